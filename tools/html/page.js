/* vramtrace pages: the report (timeline, the moment of the peak, a flame
 * graph, tables) and the diff, drawn from the data embedded in the page.
 * No request leaves the page. */
(function () {
	'use strict';
	/* The SVG namespace: a name, not an address; written so that no URL
	 * appears in the page. */
	const NS = ['http:', '', 'www.w3.org', '2000', 'svg'].join('/');
	/* Hues of distinct lightness, so that grey-scale keeps them apart. */
	const PALETTE = ['#1b4f72', '#f5b041', '#7d3c98', '#a9dfbf', '#b03a2e', '#d6eaf8',
		'#145a32', '#fad7a0', '#4a235a', '#f5b7b1', '#5d6d7e', '#e8daef'];
	/* The frames that say nothing about who allocated: the tool's one list
	 * (core/plumbing.h), given with the page's data. */
	let PLUMBING = {modules: [], functions: []};

	function human(bytes) {
		const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
		let value = Math.abs(bytes), unit = 0;
		while (value >= 1024 && unit < units.length - 1) { value /= 1024; unit++; }
		const text = unit === 0 ? value.toFixed(0) + ' B' : value.toFixed(2) + ' ' + units[unit];
		return (bytes < 0 ? '-' : '') + text;
	}
	function seconds(ns) { return (ns / 1e9).toFixed(3) + ' s'; }
	/* A time axis's label, in the unit its span wants. */
	function timeText(ns, span) {
		if (span < 2e6) return (ns / 1e3).toFixed(1) + ' \u00b5s';
		if (span < 2e9) return (ns / 1e6).toFixed(2) + ' ms';
		return (ns / 1e9).toFixed(3) + ' s';
	}
	function base(path) { return path ? path.slice(path.lastIndexOf('/') + 1) : ''; }

	function el(tag, attrs, children) {
		const node = document.createElement(tag);
		for (const key in attrs || {}) {
			if (key === 'text') node.textContent = attrs[key];
			else node.setAttribute(key, attrs[key]);
		}
		for (const child of children || []) node.append(child);
		return node;
	}
	function svg(tag, attrs, parent) {
		const node = document.createElementNS(NS, tag);
		for (const key in attrs || {}) {
			if (key === 'text') node.textContent = attrs[key];
			else node.setAttribute(key, attrs[key]);
		}
		if (parent) parent.append(node);
		return node;
	}

	/* ---- frames ---- */
	function frameIndex(report) {
		if (report.__stacks) return report.__stacks;
		const stacks = new Map();
		for (const entry of report.stack_frames || [])
			stacks.set(entry.id, entry.frames.map(f => typeof f === 'number' ? report.frames[f] : f));
		report.__stacks = stacks;
		return stacks;
	}
	function frameLabel(frame) {
		const name = frame.function || '?';
		if (frame.file) return name + ' (' + base(frame.file) + ':' + frame.line + ')';
		return name + ' (' + base(frame.module) + '+0x' + (frame.offset || 0).toString(16) + ')';
	}
	function plumbing(frame) {
		const module = base(frame.module);
		if (PLUMBING.modules.some(m => module.startsWith(m))) return true;
		if (PLUMBING.functions.includes(frame.function)) return true;
		return !frame.function && module.startsWith('libc.so');
	}

	/* ---- tables ---- */
	function sortableTable(columns, rows, caption) {
		const table = el('table', {'class': 'sortable'});
		if (caption) table.append(el('caption', {text: caption}));
		const head = el('tr');
		const body = el('tbody');
		let sortedBy = -1, down = true, limit = 200;
		/* Rows are cells or functions making them: a long table builds only
		 * the rows it shows, the first 200 until asked for all. */
		function cell(column, value) {
			const td = el('td', column.numeric ? {'class': 'n'} : {});
			if (typeof value === 'function') value = value();
			if (value instanceof Node) td.append(value);
			else td.textContent = column.numeric && column.bytes ? human(value) : String(value);
			return td;
		}
		function fill() {
			const shown = rows.slice(0, limit).map(row => el('tr', {}, columns.map((column, i) => cell(column, row[i]))));
			if (rows.length > limit) {
				const more = el('button', {type: 'button', text: 'show all ' + rows.length + ' rows'});
				more.addEventListener('click', () => { limit = rows.length; fill(); });
				shown.push(el('tr', {}, [el('td', {colspan: columns.length}, [more])]));
			}
			body.replaceChildren(...shown);
		}
		columns.forEach((column, i) => {
			const th = el('th', {text: column.name, title: 'sort by ' + column.name});
			th.addEventListener('click', () => {
				down = sortedBy === i ? !down : true;
				sortedBy = i;
				const key = row => typeof row[i] === 'function' ? '' : row[i] instanceof Node ? row[i].textContent : row[i];
				rows.sort((a, b) => {
					const x = key(a), y = key(b);
					const order = typeof x === 'number' ? x - y : String(x).localeCompare(String(y));
					return down ? -order : order;
				});
				head.querySelectorAll('th').forEach(h => h.className = '');
				th.className = down ? 'sorted-down' : 'sorted-up';
				fill();
			});
			head.append(th);
		});
		table.append(el('thead', {}, [head]), body);
		fill();
		return table;
	}

	/* ---- the timeline ---- */
	const W = 960, H = 240, LEFT = 84, BOTTOM = 34, TOP = 10;

	function niceTicks(top, count) {
		const ticks = [];
		for (let i = 0; i <= count; i++) ticks.push(top * i / count);
		return ticks;
	}

	function timelineSeries(owner) {
		const names = (owner.tags || []).map(t => t.tag);
		const shown = names.slice(0, PALETTE.length - 1);
		return {shown, other: names.length > shown.length};
	}

	function drawAxes(chart, scale, endNs) {
		const axis = svg('g', {'class': 'axis'}, chart);
		svg('line', {x1: LEFT, y1: H - BOTTOM, x2: W, y2: H - BOTTOM}, axis);
		svg('line', {x1: LEFT, y1: TOP, x2: LEFT, y2: H - BOTTOM}, axis);
		for (const bytes of niceTicks(scale.top, 4)) {
			const y = scale.y(bytes);
			svg('line', {x1: LEFT - 4, y1: y, x2: LEFT, y2: y}, axis);
			svg('text', {x: LEFT - 6, y: y + 4, 'text-anchor': 'end', text: human(bytes)}, axis);
		}
		for (let i = 0; i <= 5; i++) {
			const t = scale.t0 + (endNs - scale.t0) * i / 5, x = scale.x(t);
			svg('line', {x1: x, y1: H - BOTTOM, x2: x, y2: H - BOTTOM + 4}, axis);
			svg('text', {x: x, y: H - BOTTOM + 16, 'text-anchor': 'middle', text: timeText(t, endNs - scale.t0)}, axis);
		}
		svg('text', {x: (LEFT + W) / 2, y: H - 2, 'text-anchor': 'middle', text: 'time since the first CUDA call'}, axis);
		svg('text', {x: 12, y: (TOP + H - BOTTOM) / 2, 'text-anchor': 'middle',
			transform: 'rotate(-90 12 ' + (TOP + H - BOTTOM) / 2 + ')', text: 'device memory (bytes)'}, axis);
	}

	function makeScale(t0, t1, top) {
		return {t0, top,
			x: t => LEFT + (t1 > t0 ? (t - t0) / (t1 - t0) : 0) * (W - LEFT),
			y: b => H - BOTTOM - (top > 0 ? b / top : 0) * (H - BOTTOM - TOP)};
	}

	function timeline(owner, budget, tooltip) {
		const rows = (owner.timeline && owner.timeline.rows) || [];
		const box = el('div', {'class': 'timeline'});
		if (!rows.length) return box;
		const interval = owner.timeline.interval_ns || 1;
		const endNs = Math.max(owner.timeline.end_ns || 0, rows[rows.length - 1].t_ns + interval);
		const peak = owner.peak.bytes;
		const top = Math.max(peak, budget || 0, 1) * 1.08;
		const scale = makeScale(rows[0].t_ns, endNs, top);
		const chart = svg('svg', {width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, role: 'img',
			'aria-label': 'live bytes over time, by tag, with each interval\'s lowest and highest'});
		drawAxes(chart, scale, endNs);
		const {shown, other} = timelineSeries(owner);
		const next = i => i + 1 < rows.length ? rows[i + 1].t_ns : endNs;
		rows.forEach((row, i) => {
			const x0 = scale.x(row.t_ns), x1 = scale.x(next(i));
			let stacked = 0;
			const byTag = row.by_tag || {};
			const values = shown.map(name => byTag[name] || 0);
			if (other) values.push(Object.keys(byTag).filter(k => !shown.includes(k)).reduce((s, k) => s + byTag[k], 0));
			values.forEach((bytes, s) => {
				if (bytes <= 0) return;
				svg('rect', {x: x0, y: scale.y(stacked + bytes), width: Math.max(x1 - x0, 0.5),
					height: scale.y(stacked) - scale.y(stacked + bytes), fill: PALETTE[s % PALETTE.length]}, chart);
				stacked += bytes;
			});
		});
		/* The band from each interval's lowest to its highest: troughs show. */
		const band = [], low = [], high = [];
		rows.forEach((row, i) => {
			const max = row.max_bytes !== undefined ? row.max_bytes : row.live_bytes;
			const min = row.min_bytes !== undefined ? row.min_bytes : max;
			const x0 = scale.x(row.t_ns), x1 = scale.x(next(i));
			high.push(x0 + ',' + scale.y(max), x1 + ',' + scale.y(max));
			low.push(x0 + ',' + scale.y(min), x1 + ',' + scale.y(min));
			band.push(svg('rect', {x: x0, y: scale.y(max), width: Math.max(x1 - x0, 0.5),
				height: Math.max(scale.y(min) - scale.y(max), 0), fill: '#0003'}));
		});
		band.forEach(rect => chart.append(rect));
		svg('polyline', {points: high.join(' '), fill: 'none', stroke: '#000', 'stroke-width': 1.2, 'class': 'max-line'}, chart);
		svg('polyline', {points: low.join(' '), fill: 'none', stroke: '#000', 'stroke-width': 1, 'stroke-dasharray': '3 2', 'class': 'min-line'}, chart);
		const marks = svg('g', {'class': 'marks'}, chart);
		const px = scale.x(owner.peak.at_ns);
		svg('line', {x1: px, x2: px, y1: TOP, y2: H - BOTTOM, stroke: '#a00', 'stroke-dasharray': '4 3'}, marks);
		svg('text', {x: px + 4, y: TOP + 10, fill: '#a00', text: 'peak ' + human(peak)}, marks);
		let above = 0;
		function level(bytes, label, color) {
			if (!bytes) return;
			if (bytes > top) {
				svg('text', {x: W, y: TOP + 10 + 13 * above++, 'text-anchor': 'end', fill: color,
					text: label + ' ' + human(bytes) + ' (above the chart)'}, marks);
				return;
			}
			svg('line', {x1: LEFT, x2: W, y1: scale.y(bytes), y2: scale.y(bytes), stroke: color, 'stroke-width': 1.5}, marks);
			svg('text', {x: W - 4, y: scale.y(bytes) - 4, 'text-anchor': 'end', fill: color, text: label + ' ' + human(bytes)}, marks);
		}
		level(owner.capacity_bytes, 'capacity', '#555');
		level(budget, 'budget', '#a00');
		const cursor = svg('line', {y1: TOP, y2: H - BOTTOM, stroke: '#000', visibility: 'hidden'}, chart);
		chart.addEventListener('mousemove', event => {
			const bounds = chart.getBoundingClientRect();
			const x = (event.clientX - bounds.left) * W / bounds.width;
			const t = scale.t0 + (x - LEFT) / (W - LEFT) * (endNs - scale.t0);
			let i = rows.length - 1;
			while (i > 0 && rows[i].t_ns > t) i--;
			const row = rows[i];
			const max = row.max_bytes !== undefined ? row.max_bytes : row.live_bytes;
			const span = endNs - scale.t0;
			const lines = ['time ' + timeText(row.t_ns, span) + ' to ' + timeText(next(i), span),
				'total ' + human(max) + ' at the highest',
				'lowest ' + human(row.min_bytes !== undefined ? row.min_bytes : max) +
				(row.end_bytes !== undefined ? ', at the close ' + human(row.end_bytes) : '')];
			for (const [tag, bytes] of Object.entries(row.by_tag || {}).sort((a, b) => b[1] - a[1]))
				lines.push(tag + ' ' + human(bytes));
			tooltip.replaceChildren(...lines.map(line => el('div', {text: line})));
			tooltip.style.display = 'block';
			tooltip.style.left = (event.clientX + 14) + 'px';
			tooltip.style.top = (event.clientY + 14) + 'px';
			cursor.setAttribute('x1', scale.x(row.t_ns));
			cursor.setAttribute('x2', scale.x(row.t_ns));
			cursor.setAttribute('visibility', 'visible');
		});
		chart.addEventListener('mouseleave', () => {
			tooltip.style.display = 'none';
			cursor.setAttribute('visibility', 'hidden');
		});
		box.append(chart);
		const legend = el('p', {'class': 'legend'});
		shown.concat(other ? ['other'] : []).forEach((name, s) => legend.append(el('span', {},
			[el('span', {'class': 'swatch', style: 'background:' + PALETTE[s % PALETTE.length]}), name])));
		legend.append(el('span', {}, [el('span', {'class': 'swatch', style: 'background:#0003'}),
			'each interval from its lowest (dashed) to its highest (solid)']));
		box.append(legend);
		return box;
	}

	/* ---- the flame graph (an icicle: the root on top) ---- */
	function buildTree(report, owner) {
		const stacks = frameIndex(report);
		const root = {name: 'all stacks at the peak', value: 0, children: new Map(), kind: 'root'};
		for (const stack of owner.stacks || []) {
			const bytes = stack.at_peak_bytes;
			if (bytes <= 0) continue;
			const frames = (stacks.get(stack.id) || []).filter(f => !plumbing(f)).reverse();
			let node = root;
			node.value += bytes;
			const path = [{name: '[' + stack.tag + ']', kind: 'tag'}].concat(frames.map(f =>
				({name: frameLabel(f), kind: f.python ? 'python' : 'native'})));
			for (const step of path) {
				let child = node.children.get(step.name);
				if (!child) {
					child = {name: step.name, value: 0, children: new Map(), kind: step.kind, parent: node};
					node.children.set(step.name, child);
				}
				child.value += bytes;
				node = child;
			}
		}
		return root;
	}

	const COLORS = {root: '#bbb', tag: '#ddd', python: '#8fd18f', native: '#f6b26b'};
	const ROW = 18, FLAME_W = 960;

	function flame(report, owner) {
		const root = buildTree(report, owner);
		const box = el('div', {'class': 'flame-box'});
		if (!root.value) return box;
		const search = el('input', {type: 'search', placeholder: 'function or file', 'aria-label': 'search frames'});
		const found = el('span', {'class': 'note'});
		const reset = el('button', {type: 'button', text: 'reset zoom'});
		box.append(el('p', {'class': 'controls'}, [el('label', {text: 'search'}), search, reset, found]));
		const chart = svg('svg', {'class': 'flame', width: FLAME_W, role: 'img', 'aria-label': 'flame graph of the stacks at the peak'});
		box.append(chart, el('p', {'class': 'legend'}, [
			el('span', {}, [el('span', {'class': 'swatch', style: 'background:' + COLORS.python}), 'Python frame']),
			el('span', {}, [el('span', {'class': 'swatch', style: 'background:' + COLORS.native}), 'native frame']),
			el('span', {}, [el('span', {'class': 'swatch', style: 'background:' + COLORS.tag}), 'tag'])]));
		let focus = root;
		function draw() {
			chart.replaceChildren();
			let depth = 0;
			/* The focused node spans the width; its ancestors sit above it. */
			const ancestors = [];
			for (let node = focus; node; node = node.parent) ancestors.unshift(node);
			function place(node, x, width, row) {
				if (width < 0.5) return;
				depth = Math.max(depth, row + 1);
				const rect = svg('rect', {x: x, y: row * ROW, width: width, height: ROW - 1, fill: COLORS[node.kind]}, chart);
				rect.__node = node;
				svg('title', {text: node.name + ': ' + human(node.value) + ' (' + (100 * node.value / root.value).toFixed(1) + '%)'}, rect);
				if (width > 40) {
					const label = node.name.slice(0, Math.floor(width / 6.5));
					svg('text', {x: x + 3, y: row * ROW + 13, text: label}, chart);
				}
				let offset = x;
				const children = [...node.children.values()].sort((a, b) => b.value - a.value);
				for (const child of children) {
					const w = width * child.value / node.value;
					place(child, offset, w, row + 1);
					offset += w;
				}
			}
			ancestors.slice(0, -1).forEach((node, row) => {
				depth = row + 1;
				const rect = svg('rect', {x: 0, y: row * ROW, width: FLAME_W, height: ROW - 1, fill: COLORS[node.kind], opacity: 0.6}, chart);
				rect.__node = node;
				svg('text', {x: 3, y: row * ROW + 13, text: node.name}, chart);
			});
			place(focus, 0, FLAME_W, ancestors.length - 1);
			chart.setAttribute('height', depth * ROW);
			highlight();
		}
		function highlight() {
			const text = search.value.trim().toLowerCase();
			let bytes = 0;
			chart.querySelectorAll('rect').forEach(rect => {
				const match = text && rect.__node.name.toLowerCase().includes(text);
				rect.classList.toggle('match', !!match);
			});
			if (text) {
				const visit = node => {
					if (node.name.toLowerCase().includes(text)) { bytes += node.value; return; }
					node.children.forEach(visit);
				};
				visit(root);
				found.textContent = 'matches hold ' + human(bytes) + ' (' + (100 * bytes / root.value).toFixed(1) + '%)';
			} else {
				found.textContent = '';
			}
		}
		chart.addEventListener('click', event => {
			const node = event.target.__node;
			if (!node) return;
			focus = node === focus && node.parent ? node.parent : node;
			draw();
		});
		reset.addEventListener('click', () => { focus = root; draw(); });
		search.addEventListener('input', highlight);
		draw();
		return box;
	}

	/* ---- a report ---- */
	function runTable(run) {
		const rows = [['command', (run.command || []).join(' ')]];
		for (const [key, value] of Object.entries(run.labels || {})) rows.push(['label ' + key, value]);
		rows.push(['process', run.pid + ' on ' + run.host], ['time', run.start + ' to ' + run.end + ', ended by ' + run.ended_by]);
		return el('table', {'class': 'meta'}, rows.map(([k, v]) => el('tr', {}, [el('td', {text: k}), el('td', {}, [el('code', {text: v})])])));
	}

	function counterRows(list, key) {
		return (list || []).map(item => [item[key], item.at_peak_bytes, item.peak_bytes, item.live_at_exit_bytes, item.allocations]);
	}
	const COUNTER_COLUMNS = name => [{name}, {name: 'at the peak', numeric: true, bytes: true},
		{name: 'own peak', numeric: true, bytes: true}, {name: 'live at exit', numeric: true, bytes: true},
		{name: 'allocations over the run', numeric: true}];

	function stackText(report, id) {
		const frames = (frameIndex(report).get(id) || []).filter(f => !plumbing(f));
		const python = frames.filter(f => f.python);
		const list = (python.length ? python : frames).slice(0, 4);
		return el('span', {}, list.map((f, i) => el('div', {'class': f.python ? 'python' : '', text: (i ? '\u2190 ' : '') + frameLabel(f)})));
	}

	function owner(report, item, name, budget, tooltip) {
		const section = el('section', {'class': 'owner'});
		section.append(el('h2', {text: name}));
		const peak = item.peak || {};
		section.append(el('p', {text: 'peak ' + human(peak.bytes) + ' (' + peak.bytes + ' bytes) at ' + seconds(peak.at_ns || 0) +
			(peak.api ? ' by ' + peak.api : '') + '; live at exit ' + human(item.live_at_exit_bytes)}));
		section.append(el('h3', {text: 'live bytes over time'}), timeline(item, budget, tooltip));
		section.append(el('h3', {text: 'the moment of the peak'}));
		section.append(sortableTable(COUNTER_COLUMNS('tag'), counterRows(item.tags, 'tag'), 'by tag'));
		section.append(sortableTable(COUNTER_COLUMNS('kind'), counterRows(item.kinds, 'kind'), 'by kind'));
		const stacks = (item.stacks || []).map(s => [s.id, () => stackText(report, s.id), s.tag, s.at_peak_bytes, s.peak_bytes, s.allocations]);
		section.append(sortableTable([{name: 'stack', numeric: true}, {name: 'where'}, {name: 'tag'},
			{name: 'at the peak', numeric: true, bytes: true}, {name: 'own peak', numeric: true, bytes: true},
			{name: 'allocations', numeric: true}], stacks, 'by stack'));
		section.append(el('h3', {text: 'flame graph of the stacks at the peak'}), flame(report, item));
		const failures = (item.failures || []).map(f => [f.bytes, f.api || '?', f.error, seconds(f.at_ns), f.live_bytes,
			el('span', {}, [f.snapshot ? Object.entries(f.snapshot.live_by_tag || {}).map(([t, b]) => t + ' ' + human(b)).join(', ') : '',
				f.stack !== null && f.stack !== undefined ? stackText(report, f.stack) : ''])]);
		if (failures.length)
			section.append(el('h3', {'class': 'fail', text: 'failed allocations'}),
				sortableTable([{name: 'requested', numeric: true, bytes: true}, {name: 'call'}, {name: 'error', numeric: true},
					{name: 'when'}, {name: 'live then', numeric: true, bytes: true}, {name: 'what was live (out-of-memory snapshot)'}], failures));
		const leaks = (item.leaks || []).map(l => [l.bytes, l.count, l.tag, l.stack !== null && l.stack !== undefined ? () => stackText(report, l.stack) : '']);
		if (leaks.length)
			section.append(el('h3', {text: 'live at exit'}),
				sortableTable([{name: 'bytes', numeric: true, bytes: true}, {name: 'allocations', numeric: true}, {name: 'tag'}, {name: 'where'}], leaks));
		const view = item.device_view;
		if (view)
			section.append(el('h3', {text: 'device view (NVML)'}), el('table', {'class': 'meta'}, [
				['used at the tracked peak', human(view.used_at_tracked_peak_bytes)],
				['tracked then', human(view.tracked_at_sample_bytes)],
				['unexplained (context, modules, rounding)', human(view.unexplained_at_peak_bytes)],
				['peak used', human(view.peak_used_bytes)],
				['read at the peak itself', view.sampled_at_peak === false ? 'no: the nearest reading' : 'yes']].map(([k, v]) =>
				el('tr', {}, [el('td', {text: k}), el('td', {'class': 'n', text: v})]))));
		return section;
	}

	function renderReport(report, container, budget, tooltip, title) {
		if (title) container.append(el('h2', {text: title}));
		container.append(runTable(report.run || {}));
		for (const device of report.devices || [])
			container.append(owner(report, device, 'device ' + device.ordinal + ' (' + (device.name || 'unknown') + ', ' +
				(device.capacity_bytes ? human(device.capacity_bytes) : '?') + ')', budget, tooltip));
		const host = report.host;
		if (host && (host.peak.bytes > 0 || host.allocations > 0))
			container.append(owner(report, host, 'host (pinned memory)', null, tooltip));
	}

	/* ---- a diff ---- */
	function bars(rows, title) {
		const box = el('div');
		box.append(el('h3', {text: title}));
		const max = Math.max(1, ...rows.map(r => Math.max(r.a, r.b)));
		const chart = svg('svg', {width: W, height: rows.length * 34 + 8, role: 'img', 'aria-label': title});
		rows.forEach((row, i) => {
			const y = i * 34 + 4;
			svg('text', {x: 0, y: y + 14, text: row.key.slice(0, 40)}, chart);
			[['a', PALETTE[0], 'A'], ['b', PALETTE[1], 'B']].forEach(([side, color, label], k) => {
				const width = (W - 420) * row[side] / max;
				svg('rect', {x: 300, y: y + k * 14, width: Math.max(width, 0.5), height: 12, fill: color, stroke: '#333'}, chart);
				svg('text', {x: 306 + width, y: y + k * 14 + 10, text: label + ' ' + human(row[side])}, chart);
			});
		});
		box.append(chart);
		return box;
	}

	function diffTimelines(a, b, tooltip) {
		const lines = [];
		[a, b].forEach((report, side) => (report.devices || []).forEach(device => lines.push({side, device})));
		let end = 0, top = 1;
		for (const {device} of lines) {
			const rows = (device.timeline && device.timeline.rows) || [];
			if (!rows.length) continue;
			end = Math.max(end, device.timeline.end_ns || 0, rows[rows.length - 1].t_ns + (device.timeline.interval_ns || 1));
			top = Math.max(top, device.peak.bytes);
		}
		const scale = makeScale(0, end, top * 1.08);
		const chart = svg('svg', {width: W, height: H, role: 'img', 'aria-label': 'both runs\' device memory on one time axis'});
		drawAxes(chart, scale, end);
		for (const {side, device} of lines) {
			const rows = (device.timeline && device.timeline.rows) || [];
			const points = [];
			rows.forEach((row, i) => {
				const max = row.max_bytes !== undefined ? row.max_bytes : row.live_bytes;
				const t1 = i + 1 < rows.length ? rows[i + 1].t_ns : (device.timeline.end_ns || row.t_ns);
				points.push(scale.x(row.t_ns) + ',' + scale.y(max), scale.x(t1) + ',' + scale.y(max));
			});
			svg('polyline', {points: points.join(' '), fill: 'none', stroke: PALETTE[side], 'stroke-width': 2,
				'stroke-dasharray': side ? '6 3' : ''}, chart);
		}
		return el('div', {}, [chart, el('p', {'class': 'legend'}, [
			el('span', {}, [el('span', {'class': 'swatch', style: 'background:' + PALETTE[0]}), 'A (solid)']),
			el('span', {}, [el('span', {'class': 'swatch', style: 'background:' + PALETTE[1]}), 'B (dashed)'])])]);
	}

	function renderDiff(data, container, tooltip) {
		const label = report => Object.entries((report.run || {}).labels || {}).map(([k, v]) => k + '=' + v).join(', ');
		container.append(el('table', {'class': 'meta'}, [
			el('tr', {}, [el('td', {text: 'A'}), el('td', {text: data.a_path + '  ' + label(data.a)})]),
			el('tr', {}, [el('td', {text: 'B'}), el('td', {text: data.b_path + '  ' + label(data.b)})])]));
		container.append(el('h2', {text: 'device memory over time'}), diffTimelines(data.a, data.b, tooltip));
		const rows = section => (((data.diff.sections || {})[section] || {}).rows || [])
			.map(row => ({key: row.key, a: row.a_bytes, b: row.b_bytes}));
		container.append(bars(rows('tag'), 'by tag (bytes at the peak), A against B'));
		container.append(bars(rows('kind'), 'by kind (bytes at the peak), A against B'));
		const stacks = rows('stack').map(r => [r.key, r.a, r.b, r.b - r.a]).sort((x, y) => y[3] - x[3]);
		container.append(el('h3', {text: 'stacks ranked by growth'}), sortableTable([{name: 'stack'},
			{name: 'A', numeric: true, bytes: true}, {name: 'B', numeric: true, bytes: true},
			{name: 'growth', numeric: true, bytes: true}], stacks));
	}

	function render() {
		const tooltip = el('div', {'class': 'tooltip', role: 'tooltip'});
		document.body.append(tooltip);
		document.querySelectorAll('script.vt-data').forEach(script => {
			const data = JSON.parse(script.textContent);
			PLUMBING = data.plumbing || PLUMBING;
			const container = el('div', {'class': 'vt-page'});
			script.after(container);
			if (data.page === 'diff') renderDiff(data, container, tooltip);
			else renderReport(data.report, container, data.budget, tooltip, data.title);
		});
	}
	window.vramtrace = {render, human};
	document.addEventListener('DOMContentLoaded', render);
})();
