/* ---- a diff: the change stated first, then where it came from ---- */
function percent(relative) {
	if (relative === null || relative === undefined || !isFinite(relative)) return 'new';
	return (relative > 0 ? '+' : '') + (100 * relative).toFixed(1) + '%';
}
/* As the text writes a ratio (format_diff_text.c): two decimals, four
 * below 0.01, and below 0.001 one significant digit with a two-digit
 * exponent (1 GiB to 1 MiB is ×1e-03); only a drop to nothing is ×0.00. */
function ratioText(ratio) {
	if (ratio > 0 && ratio < 0.001) {
		const [digit, exponent] = ratio.toExponential(0).split('e');
		return '\u00d7' + digit + 'e-' + exponent.slice(1).padStart(2, '0');
	}
	return '\u00d7' + ratio.toFixed(ratio > 0 && ratio < 0.01 ? 4 : 2);
}
function headline(row) {
	const ratio = row.ratio === null || row.ratio === undefined ? '' : ', ' + ratioText(row.ratio);
	return el('p', {'class': 'headline'}, [row.key + ': peak ' + human(row.a_bytes) + ' \u2192 ' + human(row.b_bytes) + ' (',
		delta(row.delta_bytes), ', ' + percent(row.relative) + ratio + ')']);
}

function bars(rows, title) {
	const box = el('div');
	box.append(el('h3', {text: title}));
	if (!rows.length) { box.append(el('p', {'class': 'note', text: 'nothing to compare'})); return box; }
	const max = Math.max(1, ...rows.map(r => Math.max(r.a_bytes, r.b_bytes)));
	const chartBox = el('div', {'class': 'chart-box'});
	box.append(chartBox, el('p', {'class': 'legend'}, [swatch(PALETTE[0], 'A'), swatch(PALETTE[1], 'B')]));
	responsive(chartBox, W => {
		const NAME = Math.min(260, W * 0.25), barW = Math.max(40, W - NAME - 110 - 170);
		const chart = svg('svg', {width: W, height: rows.length * 36 + 4, role: 'img', 'aria-label': title});
		rows.forEach((row, i) => {
			const y = i * 36 + 4, chars = Math.floor(NAME / 6.6);
			const name = svg('text', {x: 0, y: y + 17, text: row.key.length > chars ? row.key.slice(0, chars - 1) + '\u2026' : row.key}, chart);
			svg('title', {text: row.key}, name);
			[['a_bytes', 0, 'A'], ['b_bytes', 1, 'B']].forEach(([side, k, label]) => {
				const w = barW * row[side] / max;
				svg('rect', {x: NAME, y: y + k * 14, width: Math.max(w, 0.5), height: 12, fill: PALETTE[k], 'class': 'bar'}, chart);
				svg('text', {x: NAME + w + 4, y: y + k * 14 + 10, text: label + ' ' + human(row[side])}, chart);
			});
			const d = row.b_bytes - row.a_bytes;
			svg('text', {x: W - 4, y: y + 17, 'text-anchor': 'end', 'class': d > 0 ? 'grew' : d < 0 ? 'shrank' : '',
				text: signed(d) + ' ' + percent(row.relative)}, chart);
		});
		chartBox.replaceChildren(chart);
	});
	return box;
}

/* Both runs' device memory on one time axis, each interval at its
 * highest, zoomed and panned as the report's timeline is; the first view
 * starts just before the first allocation of either run. */
function diffTimelines(a, b) {
	const lines = [];
	[a, b].forEach((report, side) => (report.devices || []).forEach(device => {
		if (device.timeline && (device.timeline.rows || []).length)
			lines.push({side, device, end: timelineEnd(device), segments: segmentsOf(device, seriesOf(device))});
	}));
	if (!lines.length) return el('p', {'class': 'note', text: 'neither run has a timeline'});
	/* One colour per run with one device; with several, one per run and
	 * device, B's dashed either way. */
	const ordinals = [...new Set(lines.map(l => l.device.ordinal))].sort((p, q) => p - q);
	const several = ordinals.length > 1;
	for (const line of lines) {
		line.color = PALETTE[(several ? 2 * ordinals.indexOf(line.device.ordinal) + line.side : line.side) % PALETTE.length];
		line.name = (line.side ? 'B' : 'A') + (several ? ' device ' + line.device.ordinal : '');
	}
	lines.sort((p, q) => p.device.ordinal - q.device.ordinal || p.side - q.side);
	const end = Math.max(...lines.map(l => l.end));
	const first = Math.min(...lines.map(l => l.device.timeline.rows[0].t_ns));
	const box = el('div', {'class': 'chart-box'});
	let draw = () => {};
	const tv = timeView(end, first, () => draw());
	responsive(box, W => {
		const {H, LEFT, RIGHT, TOP, BOTTOM} = TL;
		const chart = svg('svg', {width: W, height: H, role: 'img', tabindex: 0, 'class': 'tl',
			'aria-label': 'both runs\' device memory on one time axis; drag or use + and - to zoom, arrows to pan, Home for the first view'});
		box.replaceChildren(chart);
		const plot = svg('g', {}, chart);
		draw = () => {
			plot.replaceChildren();
			const [t0, t1] = tv.view;
			const x = t => LEFT + (t - t0) / (t1 - t0) * (W - LEFT - RIGHT);
			let high = 1;
			for (const {device} of lines) {
				const rows = device.timeline.rows;
				for (let i = Math.max(0, rowAt(rows, t0)); i <= rowAt(rows, t1); i++) high = Math.max(high, rowMax(rows[i]));
			}
			const top = high * 1.12;
			const y = v => H - BOTTOM - v / top * (H - BOTTOM - TOP);
			const axis = svg('g', {'class': 'axis'}, plot);
			for (const tick of byteTicks(top, 4)) {
				svg('line', {x1: LEFT, x2: W - RIGHT, y1: y(tick.value), y2: y(tick.value), 'class': 'grid'}, axis);
				svg('text', {x: LEFT - 6, y: y(tick.value) + 4, 'text-anchor': 'end', text: tick.text}, axis);
			}
			for (const tick of timeTicks(t0, t1, Math.max(2, Math.floor((W - LEFT) / 110))))
				svg('text', {x: x(tick.value), y: H - BOTTOM + 16, 'text-anchor': 'middle', text: tick.text}, axis);
			svg('line', {x1: LEFT, y1: H - BOTTOM, x2: W - RIGHT, y2: H - BOTTOM}, axis);
			svg('text', {x: (LEFT + W) / 2, y: H - 4, 'text-anchor': 'middle', text: 'time since the first CUDA call'}, axis);
			const clipId = 'clip' + Math.random().toString(36).slice(2);
			svg('rect', {x: LEFT, y: 0, width: W - LEFT - RIGHT, height: H}, svg('clipPath', {id: clipId}, plot));
			const area = svg('g', {'clip-path': 'url(#' + clipId + ')'}, plot);
			/* Peak labels sit on no line: the grid and every run's line. */
			const place = labelPlacer(W);
			for (const tick of byteTicks(top, 4)) place.avoid(LEFT, y(tick.value), W - RIGHT, y(tick.value));
			const drawn = lines.map(({segments}) => {
				const points = [];
				for (const g of segments)
					points.push(x(g.t_ns).toFixed(1) + ',' + y(g.max).toFixed(1), x(g.t1).toFixed(1) + ',' + y(g.max).toFixed(1));
				place.avoidPoints(points);
				return points;
			});
			lines.forEach(({side, device, color, name}, n) => {
				/* Each interval at its highest, then, where no event came
				 * for longer, its closing bytes (a run that freed all
				 * before it ended ends at 0). */
				svg('polyline', {points: drawn[n].join(' '), fill: 'none', stroke: color, 'stroke-width': 2,
					'stroke-dasharray': side ? '6 3' : '', 'class': 'run-line'}, area);
				if (device.peak.at_ns < t0 || device.peak.at_ns > t1) return;
				const px = x(device.peak.at_ns), py = y(device.peak.bytes);
				svg('circle', {cx: px, cy: py, r: 4, fill: color, 'class': 'peak-dot'}, plot);
				const text = name + ' peak ' + human(device.peak.bytes);
				const spots = [];
				for (const dy of [-4, 14, -18, 28]) spots.push({x: px + 6, y: py + dy}, {x: px - 6, y: py + dy, anchor: 'end'});
				spots.push({x: px + 6, y: TOP - 6}, {x: px - 6, y: TOP - 6, anchor: 'end'}, {x: px + 6, y: TOP - 19}, {x: px - 6, y: TOP - 19, anchor: 'end'});
				place(text, spots, {'class': 'peak-label'}, plot, {keep: true});
			});
			tv.describe();
			chart.__x = x;
			chart.__t = px => t0 + (px - LEFT) / (W - LEFT - RIGHT) * (t1 - t0);
		};
		tv.attach(chart, W, {hover: (event, t) => {
			const tips = [timeText(t, tv.view[1] - tv.view[0])];
			for (const {side, device, end: lineEnd, segments} of lines) {
				const value = t > lineEnd ? 'ended' : t < segments[0].t_ns ? human(0) : human(segments[rowAt(segments, t)].max);
				tips.push((side ? 'B' : 'A') + ' device ' + device.ordinal + ': ' + value);
			}
			showTip(event, tips);
		}});
		draw();
	});
	const legend = el('p', {'class': 'legend'}, lines.map(l => el('span', {}, [el('span', {'class': 'line-key' + (l.side ? ' dashed' : ''),
		style: 'border-color:' + l.color}), l.name + (several ? '' : ' (' + (l.side ? 'dashed' : 'solid') + ')')])));
	return el('div', {'class': 'timeline'}, [tv.controls, box, legend]);
}

function placeNode(row) {
	const node = ellipsis(row.label || row.key, 'wide');
	node.title = row.key.split(' < ').join('\n');
	return node;
}

function renderDiff(data, container) {
	const label = report => Object.entries((report.run || {}).labels || {}).map(([k, v]) => k + '=' + v).join(', ');
	container.append(el('table', {'class': 'meta'}, [
		el('tr', {}, [el('td', {text: 'A'}), el('td', {}, [el('code', {text: data.a_path}), ' ' + label(data.a)])]),
		el('tr', {}, [el('td', {text: 'B'}), el('td', {}, [el('code', {text: data.b_path}), ' ' + label(data.b)])])]));
	const sections = data.diff.sections || {};
	const rows = section => (sections[section] || {}).rows || [];
	const devices = rows('device');
	if (!devices.length) container.append(el('p', {'class': 'empty', text: 'neither run allocated GPU memory'}));
	/* One headline per device, in the devices' order. */
	devices.slice().sort((p, q) => natural(p.key, q.key)).forEach(row => container.append(headline(row)));
	container.append(el('h2', {text: 'device memory over time'}), diffTimelines(data.a, data.b));
	container.append(bars(rows('tag'), 'by tag (bytes at the peak), A against B'));
	container.append(bars(rows('kind'), 'by kind (bytes at the peak), A against B'));
	/* A row is a place: shown by its brief line (the program's own line
	 * first, inline chains), the whole place on hover. */
	const stacks = rows('stack').map(r => [r, r.a_bytes, r.b_bytes, r.b_bytes - r.a_bytes]).sort((x, y) => y[3] - x[3]);
	const hidden = (sections.stack || {}).hidden, rest = (sections.stack || {}).rest;
	const footer = rest ? [counted(rest.count, 'more stack') + ' that changed less (vramtrace diff --format json lists them)',
		human(rest.a_bytes), human(rest.b_bytes), signed(rest.b_bytes - rest.a_bytes)] : null;
	container.append(el('h3', {text: 'stacks ranked by growth'}), sortableTable([{name: 'stack', render: row => placeNode(row), key: row => row.label || row.key},
		{name: 'A', numeric: true, bytes: true}, {name: 'B', numeric: true, bytes: true},
		{name: 'growth', numeric: true, signed: true}], stacks, null, footer));
	if (hidden) container.append(el('p', {'class': 'note', text: counted(hidden, 'stack') + ' changed by less than the least delta shown (' +
		human(data.diff.min_delta_bytes || 0) + ')'}));
}

function render() {
	TOOLTIP = el('div', {'class': 'tooltip', role: 'tooltip'});
	document.body.append(TOOLTIP);
	document.querySelectorAll('script.vt-data').forEach(script => {
		const data = JSON.parse(script.textContent);
		const container = el('div', {'class': 'vt-page'});
		script.after(container);
		if (data.page === 'diff') renderDiff(data, container);
		else if (data.page === 'fit') renderFit(data.fit, container);
		else renderReport(data.report, container, data.budget, data.title);
	});
}
window.vramtrace = {render, human, stackNode, renderReport};
document.addEventListener('DOMContentLoaded', render);
