/* ---- the timeline: live bytes over time, to explore ----
 * Each interval's bytes at its highest, split by tag (stacked areas in the
 * legend's colours), its highest (solid) and lowest (dashed) line; the peak,
 * failures, capacity and budget marked with labels that never overprint.
 * Drag to zoom into a range, the wheel or the buttons or keys (+ - arrows
 * Home) to zoom and pan, a click pins a moment and shows what was live. */
const TL = {H: 272, LEFT: 72, RIGHT: 12, TOP: 32, BOTTOM: 38};
const PEAK_HIT = 8; /* px: the peak mark's width as a click target */

function rowMax(row) { return row.max_bytes !== undefined ? row.max_bytes : row.live_bytes; }
function rowMin(row) { return row.min_bytes !== undefined ? row.min_bytes : rowMax(row); }

/* The tags drawn as their own series, the rest as "other". */
function seriesOf(owner) {
	const names = (owner.tags || []).map(t => t.tag);
	const shown = names.slice(0, PALETTE.length - 1);
	/* The last series, past "other", is bytes whose split is unknown. */
	return {shown, other: names.length > shown.length,
		color: i => i > shown.length ? 'var(--unsplit)' : PALETTE[i % PALETTE.length]};
}
/* An interval's bytes at its highest, per drawn series; what the split does
 * not name goes to the last ("other"), so the stack reaches the highest. */
function rowSplit(row, series) {
	const byTag = row.by_tag || {};
	const values = series.shown.map(name => byTag[name] || 0);
	const named = values.reduce((s, v) => s + v, 0);
	values.push(Math.max(0, rowMax(row) - named));
	return values;
}
function timelineEnd(owner) {
	const tl = owner.timeline, rows = tl.rows;
	const last = rows[rows.length - 1].t_ns;
	return tl.end_ns && tl.end_ns > last ? tl.end_ns : last + (tl.interval_ns || 1);
}
function rowAt(rows, t) {
	let lo = 0, hi = rows.length - 1;
	while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (rows[mid].t_ns <= t) lo = mid; else hi = mid - 1; }
	return lo;
}

/* A time axis that zooms and pans, shared by the report's and the diff's
 * timelines: the view, its buttons and status, the drag, the wheel and
 * the keys. The first view starts just before the first allocation when
 * the run allocated nothing for a tenth of it (defaultView), the whole
 * run a click away. redraw() is called at every change of the view. */
function timeView(end, first, redraw) {
	const full = [0, end], initial = defaultView(first, end);
	const tv = {view: initial.slice(), full, initial};
	const status = el('span', {'class': 'note', 'aria-live': 'polite'});
	const button = (text, label, action) => {
		const b = el('button', {type: 'button', text, 'aria-label': label, title: label});
		b.addEventListener('click', action);
		return b;
	};
	const whole = button('whole run', 'show the whole run', () => tv.set(full));
	if (initial[0] <= 0) whole.style.display = 'none';
	tv.controls = el('p', {'class': 'controls'}, [
		button('+', 'zoom in', () => tv.zoom(0.5)), button('\u2212', 'zoom out', () => tv.zoom(2)),
		button('\u2190', 'pan left', () => tv.pan(-0.25)), button('\u2192', 'pan right', () => tv.pan(0.25)),
		button('reset', 'back to the first view', () => tv.set(initial)), whole, status]);
	tv.set = range => {
		const span = Math.max(range[1] - range[0], Math.min(end, 1000));
		const t0 = Math.max(0, Math.min(range[0], end - span));
		tv.view = [t0, Math.min(end, t0 + span)];
		redraw();
	};
	tv.zoom = (factor, at) => {
		const [t0, t1] = tv.view, center = at !== undefined ? at : (t0 + t1) / 2;
		tv.set([center - (center - t0) * factor, center + (t1 - center) * factor]);
	};
	tv.pan = fraction => {
		const shift = (tv.view[1] - tv.view[0]) * fraction;
		tv.set([tv.view[0] + shift, tv.view[1] + shift]);
	};
	/* What the status says of the view. */
	tv.describe = () => {
		const [t0, t1] = tv.view;
		status.textContent = t0 <= 0 && t1 >= end ? 'the whole run, ' + timeText(end, end) + '; drag to zoom'
			: t0 === initial[0] && t1 === initial[1] ? 'before ' + timeText(first, end) + ' nothing was allocated: showing from ' +
				timeText(t0, end) + ' to the end, ' + timeText(end, end) + ' (the whole run is a click away); drag to zoom'
				: 'showing ' + timeText(t0, t1) + ' to ' + timeText(t1, t1) + ' of ' + timeText(end, end);
	};
	/* The pointer and keys on a chart W wide: a drag zooms into its range
	 * (then on.range(range)), a click calls on.click(t, px), a hover
	 * on.hover(event, t, px); keys zoom and pan, on.keys adds its own. */
	tv.attach = (chart, W, on) => {
		const {H, LEFT, RIGHT, TOP, BOTTOM} = TL;
		const cursor = svg('line', {y1: TOP, y2: H - BOTTOM, 'class': 'cursor', visibility: 'hidden'}, chart);
		const brush = svg('rect', {y: TOP, height: H - BOTTOM - TOP, 'class': 'brush', visibility: 'hidden'}, chart);
		const local = event => {
			const bounds = chart.getBoundingClientRect();
			return Math.max(LEFT, Math.min(W - RIGHT, (event.clientX - bounds.left) * W / bounds.width));
		};
		let start = null;
		chart.addEventListener('pointerdown', event => {
			if (event.button !== 0) return;
			start = local(event);
			chart.setPointerCapture(event.pointerId);
		});
		chart.addEventListener('pointermove', event => {
			const px = local(event);
			if (start !== null && Math.abs(px - start) > 4) {
				brush.setAttribute('x', Math.min(px, start));
				brush.setAttribute('width', Math.abs(px - start));
				brush.setAttribute('visibility', 'visible');
			}
			cursor.setAttribute('x1', px);
			cursor.setAttribute('x2', px);
			cursor.setAttribute('visibility', 'visible');
			if (on.hover) on.hover(event, chart.__t(px), px);
		});
		chart.addEventListener('pointerup', event => {
			if (start === null) return;
			const px = local(event);
			brush.setAttribute('visibility', 'hidden');
			if (Math.abs(px - start) > 4) {
				const range = [chart.__t(Math.min(px, start)), chart.__t(Math.max(px, start))];
				tv.set(range);
				if (on.range) on.range(range);
			} else if (on.click) {
				on.click(chart.__t(px), px);
			}
			start = null;
		});
		chart.addEventListener('pointerleave', () => { hideTip(); cursor.setAttribute('visibility', 'hidden'); });
		chart.addEventListener('wheel', event => {
			event.preventDefault();
			tv.zoom(event.deltaY > 0 ? 1.25 : 0.8, chart.__t(local(event)));
		}, {passive: false});
		chart.addEventListener('keydown', event => {
			const keys = Object.assign({'+': () => tv.zoom(0.5), '=': () => tv.zoom(0.5), '-': () => tv.zoom(2),
				ArrowLeft: () => tv.pan(-0.25), ArrowRight: () => tv.pan(0.25), Home: () => tv.set(initial)}, on.keys || {});
			if (keys[event.key]) { event.preventDefault(); keys[event.key](); }
		});
	};
	return tv;
}

/* What to draw of an owner's timeline: each row over its interval at its
 * highest, split by tag; where no event came for longer (the row stays
 * open until one does), the rest of it at its closing bytes, split by tag
 * where they equal the highest and unsplit otherwise. */
function segmentsOf(owner, series) {
	const rows = owner.timeline.rows, end = timelineEnd(owner);
	const interval = owner.timeline.interval_ns || 1, segments = [];
	rows.forEach((row, i) => {
		const t1 = i + 1 < rows.length ? rows[i + 1].t_ns : end;
		const split = rowSplit(row, series), busy = Math.min(t1, row.t_ns + interval);
		const idle = row.end_bytes !== undefined && t1 > busy;
		segments.push({t_ns: row.t_ns, t1: idle ? busy : t1, split, max: rowMax(row), min: rowMin(row), row: i});
		if (idle)
			segments.push({t_ns: busy, t1, max: row.end_bytes, min: row.end_bytes, row: i, idle: true,
				split: row.end_bytes === rowMax(row) ? split : series.shown.map(() => 0).concat([0, row.end_bytes])});
	});
	return segments;
}

function timeline(owner, options) {
	const box = el('div', {'class': 'timeline'});
	const rows = (owner.timeline && owner.timeline.rows) || [];
	if (!rows.length) return box;
	const end = timelineEnd(owner);
	const next = i => i + 1 < rows.length ? rows[i + 1].t_ns : end;
	const series = seriesOf(owner);
	let pinned = -1;
	const segments = segmentsOf(owner, series);
	let draw = () => {};
	/* The first view starts at the first allocation, or at a failed one
	 * before it. */
	const first = Math.min(rows[0].t_ns, ...(owner.failures || []).map(f => f.at_ns));
	const tv = timeView(end, first, () => draw());
	const chartBox = el('div', {'class': 'chart-box'});
	box.append(tv.controls, chartBox);

	responsive(chartBox, width => {
		const W = width, {H, LEFT, RIGHT, TOP, BOTTOM} = TL;
		const chart = svg('svg', {width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, tabindex: 0,
			role: 'img', 'class': 'tl', 'aria-label': (options.what || 'device memory') +
			' over time, by tag; drag or use + and - to zoom, arrows to pan, Home for the first view, Enter to show the peak\'s moment'});
		chartBox.replaceChildren(chart);
		const plot = svg('g', {}, chart);
		const overlay = svg('g', {}, chart);
		draw = () => {
			plot.replaceChildren();
			overlay.replaceChildren();
			const [t0, t1] = tv.view;
			const x = t => LEFT + (t - t0) / (t1 - t0) * (W - LEFT - RIGHT);
			const first = rowAt(rows, t0), last = rowAt(rows, t1);
			let high = 1;
			for (let i = first; i <= last; i++) high = Math.max(high, rowMax(rows[i]));
			const top = high * 1.12;
			const y = b => H - BOTTOM - b / top * (H - BOTTOM - TOP);
			const clipId = 'clip' + Math.random().toString(36).slice(2);
			const clip = svg('clipPath', {id: clipId}, plot);
			svg('rect', {x: LEFT, y: 0, width: W - LEFT - RIGHT, height: H - BOTTOM}, clip);
			const area = svg('g', {'clip-path': 'url(#' + clipId + ')'}, plot);
			/* Grid and axes at round values. */
			const axis = svg('g', {'class': 'axis'}, plot);
			for (const tick of byteTicks(top, 4)) {
				svg('line', {x1: LEFT, x2: W - RIGHT, y1: y(tick.value), y2: y(tick.value), 'class': 'grid'}, axis);
				svg('text', {x: LEFT - 6, y: y(tick.value) + 4, 'text-anchor': 'end', text: tick.text}, axis);
			}
			for (const tick of timeTicks(t0, t1, Math.max(2, Math.floor((W - LEFT) / 110)))) {
				svg('line', {x1: x(tick.value), x2: x(tick.value), y1: H - BOTTOM, y2: H - BOTTOM + 4}, axis);
				svg('text', {x: x(tick.value), y: H - BOTTOM + 16, 'text-anchor': 'middle', text: tick.text}, axis);
			}
			svg('line', {x1: LEFT, y1: H - BOTTOM, x2: W - RIGHT, y2: H - BOTTOM}, axis);
			svg('text', {x: (LEFT + W) / 2, y: H - 4, 'text-anchor': 'middle', text: 'time since the first CUDA call'}, axis);
			svg('text', {x: 12, y: (TOP + H - BOTTOM) / 2, 'text-anchor': 'middle',
				transform: 'rotate(-90 12 ' + (TOP + H - BOTTOM) / 2 + ')', text: options.what || 'device memory'}, axis);
			/* One path per series: no seams between intervals. */
			const from = Math.max(0, rowAt(segments, t0) - 1), to = Math.min(segments.length - 1, rowAt(segments, t1) + 1);
			const base = new Array(to - from + 1).fill(0);
			for (let s = 0; s <= series.shown.length + 1; s++) {
				if (!segments.slice(from, to + 1).some(g => g.split[s] > 0)) continue;
				const upper = [], lower = [];
				for (let i = from; i <= to; i++) {
					const g = segments[i], k = i - from, x0 = x(g.t_ns).toFixed(1), x1 = x(g.t1).toFixed(1);
					const b = base[k], u = b + (g.split[s] || 0);
					upper.push(x0 + ',' + y(u).toFixed(1), x1 + ',' + y(u).toFixed(1));
					lower.unshift(x1 + ',' + y(b).toFixed(1), x0 + ',' + y(b).toFixed(1));
					base[k] = u;
				}
				svg('polygon', {points: upper.concat(lower).join(' '), fill: series.color(s), 'class': 'series'}, area);
			}
			const line = key => {
				const points = [];
				for (let i = from; i <= to; i++) {
					const g = segments[i], v = y(g[key]).toFixed(1);
					points.push(x(g.t_ns).toFixed(1) + ',' + v, x(g.t1).toFixed(1) + ',' + v);
				}
				return points.join(' ');
			};
			const highest = line('max'), lowest = line('min');
			svg('polyline', {points: highest, 'class': 'max-line'}, area);
			svg('polyline', {points: lowest, 'class': 'min-line'}, area);
			/* Labels sit on no line: the grid, the data, the marks. */
			const place = labelPlacer(W);
			for (const tick of byteTicks(top, 4)) place.avoid(LEFT, y(tick.value), W - RIGHT, y(tick.value));
			place.avoidPoints(highest.split(' '));
			place.avoidPoints(lowest.split(' '));
			marks(overlay, x, y, top, t0, t1, W, place);
			if (pinned >= 0) {
				const px = x(rows[pinned].t_ns), qx = x(next(pinned));
				if (qx >= LEFT && px <= W - RIGHT)
					svg('rect', {x: Math.max(px, LEFT), y: TOP, width: Math.max(2, Math.min(qx, W - RIGHT) - Math.max(px, LEFT)),
						height: H - BOTTOM - TOP, 'class': 'pinned'}, overlay);
			}
			tv.describe();
			chart.__x = x;
			chart.__t = px => t0 + (px - LEFT) / (W - LEFT - RIGHT) * (t1 - t0);
		};
		/* The peak's mark is a target 8 px wide: a click on it pins the
		 * peak's moment, never the interval beside it. */
		const click = (t, px) => pin(chart.__peakX !== null && Math.abs(px - chart.__peakX) < PEAK_HIT / 2 + 1
			? rowAt(rows, (owner.peak || {}).at_ns) : rowAt(rows, t));
		tv.attach(chart, W, {hover: tip, click, range: range => pin(highest(range)),
			keys: {Enter: () => pin(rowAt(rows, (owner.peak || {}).at_ns || 0))}});
		draw();
	});

	function marks(group, x, y, top, t0, t1, W, place) {
		const {H, LEFT, RIGHT, TOP, BOTTOM} = TL;
		const peak = owner.peak || {};
		const unit = byteUnit(top);
		/* The lines first, so that every label keeps off them all. */
		const px = peak.at_ns >= t0 && peak.at_ns <= t1 ? x(peak.at_ns) : null;
		if (px !== null) place.avoid(px, TOP, px, H - BOTTOM);
		const levels = [[options.budget, 'budget', 'budget'], [owner.capacity_bytes, 'capacity', 'capacity']].filter(([bytes]) => bytes);
		for (const [bytes] of levels) if (bytes <= top) place.avoid(LEFT, y(bytes), W - RIGHT, y(bytes));
		group.ownerSVGElement.__peakX = null;
		if (px !== null) {
			svg('line', {x1: px, x2: px, y1: TOP, y2: H - BOTTOM, 'class': 'peak-line'}, group);
			svg('rect', {x: px - PEAK_HIT / 2, y: TOP, width: PEAK_HIT, height: H - BOTTOM - TOP, 'class': 'peak-hit'}, group);
			group.ownerSVGElement.__peakX = px;
			const text = 'peak ' + human(peak.bytes);
			place(text, [{x: px + 4, y: TOP - 6}, {x: px - 4, y: TOP - 6, anchor: 'end'}, {x: px + 4, y: TOP - 19},
				{x: px - 4, y: TOP - 19, anchor: 'end'}], {'class': 'peak-label'}, group, {keep: true});
		}
		/* A budget in the axis' unit, as exactly as it was given; the
		 * capacity as the device reports it. */
		const above = [];
		for (const [bytes, label, cls] of levels) {
			const text = label + ' ' + (cls === 'budget' ? sizeIn(bytes, unit) : human(bytes));
			if (bytes > top) { above.push(text); continue; }
			const ly = y(bytes);
			svg('line', {x1: LEFT, x2: W - RIGHT, y1: ly, y2: ly, 'class': cls + '-line'}, group);
			const spots = [];
			for (const at of [1, 0, 0.5, 0.25, 0.75]) {
				const lx = LEFT + 4 + at * (W - LEFT - RIGHT - 8), anchor = at === 1 ? 'end' : 'start';
				spots.push({x: lx, y: ly - 4, anchor}, {x: lx, y: ly + 13, anchor});
			}
			place(text, spots, {'class': cls + '-label'}, group, {keep: true});
		}
		/* Above the plot, where no line goes. */
		if (above.length)
			place(above.join(', ') + ' (above the chart)', [{x: W - RIGHT, y: TOP - 6, anchor: 'end'}, {x: W - RIGHT, y: TOP - 19, anchor: 'end'},
				{x: LEFT, y: TOP - 19}, {x: LEFT, y: TOP - 6}], {'class': 'note-label'}, group, {keep: true});
		/* Failures too close for a label each are one cluster: one label
		 * beside its first mark, "+4 more failures", its hover listing
		 * them all with their error names. */
		const by = H - BOTTOM;
		for (const cluster of failureClusters(t0, t1, x)) {
			const first = cluster.items[0], more = cluster.items.length - 1;
			for (const failure of cluster.items) {
				const fx = x(failure.at_ns);
				svg('title', {text: failureText(failure)}, svg('path', {d: 'M' + fx + ',' + (by - 10) + 'l-5,10h10z', 'class': 'failure-mark'}, group));
			}
			const text = '\u2715 ' + errorName(first) + (more ? ' +' + counted(more, 'more failure') : '');
			const label = place(text, [{x: cluster.x0 + 6, y: by - 12}, {x: cluster.x0 - 6, y: by - 12, anchor: 'end'},
				{x: cluster.x0 + 6, y: by - 26}, {x: cluster.x0 - 6, y: by - 26, anchor: 'end'}], {'class': 'failure-label'}, group, {keep: true});
			if (label) svg('title', {text: cluster.items.map(failureText).join('\n')}, label);
		}
	}

	function errorName(failure) { return failure.error_name || ('error ' + failure.error); }
	function failureText(failure) {
		return 'failed at ' + seconds(failure.at_ns) + ': ' + (failure.api || '?') + ' of ' + human(failure.bytes) + ', ' + errorName(failure);
	}
	/* The failures in view, marks closer than their first label's width
	 * together, each cluster with the x of its first and last mark. */
	function failureClusters(t0, t1, x) {
		const clusters = [];
		const shown = (owner.failures || []).filter(f => f.at_ns >= t0 && f.at_ns <= t1).sort((a, b) => a.at_ns - b.at_ns);
		for (const failure of shown) {
			const fx = x(failure.at_ns), last = clusters[clusters.length - 1];
			if (last && fx - last.x0 < last.width) { last.items.push(failure); last.x1 = fx; continue; }
			clusters.push({x0: fx, x1: fx, items: [failure], width: ('\u2715 ' + errorName(failure) + ' +9 more failures').length * 6.4 + 12});
		}
		return clusters;
	}

	function tip(event, t, px) {
		const chart = event.currentTarget, peak = owner.peak || {};
		if (chart.__peakX !== null && Math.abs(px - chart.__peakX) < PEAK_HIT / 2 + 1) {
			showTip(event, ['the peak: ' + human(peak.bytes) + ' at ' + seconds(peak.at_ns), 'click to see what was live']);
			return;
		}
		const g = segments[rowAt(segments, t)], i = g.row, row = rows[i], span = tv.view[1] - tv.view[0];
		if (g.idle) {
			showTip(event, [timeText(g.t_ns, span) + ' to ' + timeText(g.t1, span) + ': no event',
				'live ' + human(g.max) + ' throughout', 'click to see what was live']);
			return;
		}
		const lines = [timeText(row.t_ns, span) + ' to ' + timeText(next(i), span),
			'total ' + human(rowMax(row)) + ' at the highest',
			'lowest ' + human(rowMin(row)) + (row.end_bytes !== undefined ? ', at the close ' + human(row.end_bytes) : '')];
		const split = Object.entries(row.by_tag || {}).sort((a, b) => b[1] - a[1]);
		for (const [tag, bytes] of split.slice(0, 12)) lines.push(tag + ' ' + human(bytes));
		if (split.length > 12) lines.push(split.length - 12 + ' more tags');
		const near = (owner.failures || []).filter(f => Math.abs(chart.__x(f.at_ns) - px) <= 6);
		for (const failure of near.slice(0, 8)) lines.push('\u2715 ' + failureText(failure));
		if (near.length > 8) lines.push(counted(near.length - 8, 'more failure') + ' here');
		lines.push('click to see what was live');
		showTip(event, lines);
	}

	/* The row of a range's highest point: what a selected range shows. */
	function highest(range) {
		let best = rowAt(rows, range[0]);
		for (let i = best; i < rows.length && rows[i].t_ns <= range[1]; i++)
			if (rowMax(rows[i]) > rowMax(rows[best])) best = i;
		return best;
	}
	function pin(i) {
		pinned = i;
		draw();
		if (options.onMoment) options.onMoment(rows[i], next(i), i);
	}
	box.__pin = pin;
	box.__rows = rows;
	const legend = el('p', {'class': 'legend'});
	series.shown.forEach((name, s) => legend.append(swatch(series.color(s), name)));
	if (segments.some(g => g.split[series.shown.length] > 0))
		legend.append(swatch(series.color(series.shown.length), series.other ? 'other tags' : 'not split by tag'));
	if (segments.some(g => g.split[series.shown.length + 1] > 0))
		legend.append(swatch(series.color(series.shown.length + 1), 'after an interval\'s last event, split unknown'));
	legend.append(el('span', {}, [el('span', {'class': 'line-key'}), 'each interval\'s highest']),
		el('span', {}, [el('span', {'class': 'line-key dashed'}), 'its lowest']));
	box.append(legend);
	return box;
}
