/* ---- a fit: the plan in numbers, then the charts that back it ----
 * Per group, each model as a formula in the runs' own labels, the
 * residuals, the predictions with their uncertainty, the largest setting
 * that fits the budget; then each model against each variable: measured
 * points (filled), predictions (hollow, with their uncertainty), one
 * labelled line per value of the other variables, the budget. */
function labelValue(labels, name) {
	const v = (labels || {})[name];
	return typeof v === 'string' ? parseFloat(v) : v;
}
function evaluate(model, labels) {
	let y = 0;
	for (const term of model.terms || []) {
		const factor = term.term === '1' ? 1 : term.term.split('*').reduce((p, name) => p * labelValue(labels, name), 1);
		y += term.coefficient * factor;
	}
	return y;
}
function formula(model) {
	const parts = (model.terms || []).map(term => term.term === '1' ? coefficient(term.coefficient)
		: coefficient(term.coefficient) + ' \u00d7 ' + term.term.split('*').join(' \u00d7 '));
	return parts.length ? parts.join(' + ').replace(/\+ -/g, '\u2212 ') : '0 B (no term)';
}
function labelText(labels) {
	return Object.entries(labels || {}).map(([k, v]) => k + '=' + v).join(', ');
}

function fitTables(fit, group, container) {
	const models = [['peak', group.model.peak]].concat(Object.entries(group.model.tags || {}));
	container.append(sortableTable([{name: 'model'}, {name: 'formula'}, {name: 'largest miss, fitted', numeric: true, bytes: true},
		{name: 'leave-one-out miss', numeric: true, bytes: true}],
		models.map(([name, m]) => [name, name + ' = ' + formula(m), m.fit_max_error_bytes, m.loo_max_error_bytes]), 'the fitted formulas'));
	container.append(sortableTable([{name: 'run'}, {name: 'labels'}, {name: 'measured peak', numeric: true, bytes: true},
		{name: 'fitted', numeric: true, bytes: true}, {name: 'residual', numeric: true, signed: true}],
		group.runs.map(r => [base(r.file), labelText(r.labels), r.peak_bytes, r.fitted_bytes, r.residual_bytes])
			.sort((p, q) => natural(p[1], q[1]) || natural(p[0], q[0])), 'residuals (measured \u2212 fitted)'));
	const predictions = (fit.predictions || []).filter(p => p.group === group.name);
	if (predictions.length)
		container.append(sortableTable([{name: 'at'}, {name: 'predicted peak', numeric: true, bytes: true},
			{name: 'uncertainty', numeric: true, render: bytes => '\u00b1 ' + human(bytes)}, {name: 'range'}],
			predictions.map(p => [labelText(p.labels), p.peak_bytes, p.uncertainty_bytes || 0,
				p.extrapolated ? el('span', {'class': 'fail', text: '\u26a0 extrapolated beyond the measured runs'}) : 'within the measured runs']),
			'predictions'));
}
/* Why no value is the largest: not even 1 fits, or the peak is flat
 * (flat_peak_bytes, when given, is its height), so every value fits or
 * none does; the page said "none found" when every value fit. */
function noLargest(largest, usable) {
	if (largest.bytes_per_unit > 0) return 'none (not even 1 fits)';
	const flat = largest.flat_peak_bytes === null || largest.flat_peak_bytes === undefined ? null : largest.flat_peak_bytes;
	const fits = flat !== null && flat <= usable;
	return (fits ? 'any value' : 'none') + ' (the peak does not grow with ' + largest.key +
		(flat === null ? '' : '; predicted ' + human(flat) + (fits ? '' : ', over the budget')) + ')';
}
/* The largest fit in words: for which runs (the group, the other
 * variables as held), the answer with its uncertainty, and, beyond the
 * measured range, how far beyond, as the text output warns. */
function largestText(fit) {
	const largest = fit.largest_fit;
	if (!largest) return [];
	const usable = largest.budget_bytes - largest.headroom_bytes;
	const group = (fit.groups || []).find(g => g.name === (largest.group || '')) || (fit.groups || [])[0] || {};
	/* The other numeric labels; text labels (dtype=bf16) name the group. */
	const held = Object.entries(largest.labels || {}).filter(([k, v]) => k !== largest.key && typeof v === 'number')
		.map(([k, v]) => k + '=' + trim(v, 6));
	const where = (group.name ? ' for ' + group.name : '') + (held.length ? ', at ' + held.join(', ') : '');
	const what = 'the largest ' + largest.key + ' that fits ' + human(largest.budget_bytes) + ' with ' +
		human(largest.headroom_bytes) + ' kept free (' + human(usable) + ' usable)' + where + ': ';
	if (largest.value === null || largest.value === undefined)
		return [el('p', {'class': 'headline', text: what + noLargest(largest, usable)})];
	const plus = largest.uncertainty_bytes ? ' \u00b1 ' + human(largest.uncertainty_bytes) : '';
	const lines = [el('p', {'class': 'headline', text: what + largest.key + '=' + largest.value + ', peak ' + human(largest.peak_bytes) + plus + ', ' +
		human(usable - largest.peak_bytes) + ' to spare; each +1 ' + largest.key + ' adds ' + coefficient(largest.bytes_per_unit)})];
	const range = (group.variables || []).find(v => v.name === largest.key);
	if (largest.extrapolated && range) {
		const span = range.high - range.low, above = largest.value > range.high;
		const far = above ? largest.value - range.high : range.low - largest.value;
		lines.push(el('p', {'class': 'fail extrapolated', text: '\u26a0 extrapolated: ' + largest.key + '=' + largest.value + ' is ' +
			trim(far, 6) + (above ? ' above' : ' below') + ' the measured ' + trim(range.low, 6) + ' to ' + trim(range.high, 6) +
			(span > 0 ? ' (' + (100 * far / span).toFixed(0) + '% of that range' +
				(above && range.high > 0 ? ', ' + trim(largest.value / range.high, 1) + '\u00d7 the largest measured' : '') + ')' : '') +
			': the fit says little of it; its peak there is ' + human(largest.peak_bytes) + plus + '. Measure a run nearer it before relying on it.'}));
	}
	return lines;
}

function fitChart(fit, group, variable, name, model) {
	const measuredY = run => name === 'peak' ? run.peak_bytes : (run.tags || {})[name] || 0;
	const xs = group.runs.map(r => labelValue(r.labels, variable));
	if (xs.some(v => !isFinite(v)))
		return el('p', {'class': 'note', text: 'the runs\' labels do not give ' + variable + ' as a number: no chart of ' + name});
	const predictions = (fit.predictions || []).filter(p => p.group === group.name && labelValue(p.labels, variable) !== undefined);
	const largest = name === 'peak' && fit.largest_fit && fit.largest_fit.key === variable ? fit.largest_fit : null;
	const extra = predictions.map(p => labelValue(p.labels, variable));
	if (largest && largest.value !== null && largest.value !== undefined) extra.push(largest.value);
	const all = xs.concat(extra);
	const whole = all.every(v => Number.isInteger(v));
	let low = Math.min(...all), high = Math.max(...all);
	/* A solve far beyond the runs: a log axis keeps the runs apart. */
	const log = low > 0 && high / low > 20;
	if (!log) { const pad = (high - low || 1) * 0.06; low = Math.max(whole && low >= 0 ? 0 : -Infinity, low - pad); high += pad; }
	const ys = group.runs.map(measuredY).concat(predictions.map(p => name === 'peak' ? p.peak_bytes + (p.uncertainty_bytes || 0) : (p.tags || {})[name] || 0));
	const largestAt = largest && largest.value !== null && largest.value !== undefined;
	if (largest) ys.push(largest.budget_bytes);
	if (largestAt) ys.push(largest.peak_bytes + (largest.uncertainty_bytes || 0));
	const top = Math.max(1, ...ys) * 1.1;
	const box = el('figure', {}, [el('figcaption', {text: name + ' against ' + variable + (log ? ' (log axis)' : '')})]);
	const chartBox = el('div', {'class': 'chart-box'});
	box.append(chartBox);
	const others = new Map();
	const combos = group.runs.map(r => r.labels).concat(predictions.map(p => p.labels), largest ? [largest.labels] : []);
	combos.forEach(labels => {
		const rest = Object.assign({}, labels);
		delete rest[variable];
		others.set(labelText(rest), rest);
	});
	/* One line per value of the other variables, in their numbers' order. */
	const sortedOthers = new Map([...others].sort((p, q) => natural(p[0], q[0])));
	others.clear();
	sortedOthers.forEach((v, k) => others.set(k, v));
	const legend = el('p', {'class': 'legend'}, [el('span', {}, ['\u25cf measured']), el('span', {}, ['\u25cb predicted (bar: uncertainty)'])]);
	[...others.keys()].forEach((key, s) => legend.append(el('span', {}, [el('span', {'class': 'line-key', style: 'border-color:' + PALETTE[s % PALETTE.length]}), 'fitted' + (key ? ' at ' + key : '')])));
	box.append(legend);
	responsive(chartBox, width => {
		const W = Math.min(width, 900), H = 314, LEFT = 72, RIGHT = 16, TOP = 34, BOTTOM = 40;
		const lx = v => log ? Math.log10(v) : v;
		const x = v => LEFT + (lx(v) - lx(low)) / ((lx(high) - lx(low)) || 1) * (W - LEFT - RIGHT);
		const y = v => H - BOTTOM - Math.max(0, v) / top * (H - BOTTOM - TOP);
		const chart = svg('svg', {width: W, height: H, role: 'img', 'aria-label': name + ' against ' + variable});
		const axis = svg('g', {'class': 'axis'}, chart);
		for (const tick of byteTicks(top, 4)) {
			svg('line', {x1: LEFT, x2: W - RIGHT, y1: y(tick.value), y2: y(tick.value), 'class': 'grid'}, axis);
			svg('text', {x: LEFT - 6, y: y(tick.value) + 4, 'text-anchor': 'end', text: tick.text}, axis);
		}
		const ticks = log ? [1, 2, 5].flatMap(m => [0, 1, 2, 3, 4, 5, 6].map(p => m * Math.pow(10, p))).filter(v => v >= low && v <= high).sort((a, b) => a - b)
			.map(v => ({value: v, text: String(v)})) : valueTicks(low, high, Math.max(2, Math.floor((W - LEFT) / 70)), whole);
		for (const tick of ticks) svg('text', {x: x(tick.value), y: H - BOTTOM + 16, 'text-anchor': 'middle', text: tick.text}, axis);
		svg('line', {x1: LEFT, y1: H - BOTTOM, x2: W - RIGHT, y2: H - BOTTOM}, axis);
		svg('text', {x: (LEFT + W) / 2, y: H - 6, 'text-anchor': 'middle', text: variable}, axis);
		const mlow = Math.min(...xs), mhigh = Math.max(...xs);
		svg('rect', {x: x(mlow), y: TOP, width: Math.max(1, x(mhigh) - x(mlow)), height: H - BOTTOM - TOP, 'class': 'pinned'}, chart);
		/* Labels sit on no line: the grid, the curves, the marks. */
		const place = labelPlacer(W);
		for (const tick of byteTicks(top, 4)) place.avoid(LEFT, y(tick.value), W - RIGHT, y(tick.value));
		const curves = [...others.values()].map(rest => {
			const points = [];
			for (let k = 0; k <= 60; k++) {
				const v = log ? Math.pow(10, lx(low) + (lx(high) - lx(low)) * k / 60) : low + (high - low) * k / 60;
				points.push(x(v).toFixed(1) + ',' + y(evaluate(model, Object.assign({[variable]: v}, rest))).toFixed(1));
			}
			place.avoidPoints(points);
			return points;
		});
		const fx = largest && largest.value !== null && largest.value !== undefined ? x(largest.value) : null;
		if (fx !== null) place.avoid(fx, TOP, fx, H - BOTTOM);
		if (largest) for (const bytes of [largest.budget_bytes, largest.budget_bytes - largest.headroom_bytes]) place.avoid(LEFT, y(bytes), W - RIGHT, y(bytes));
		if (fx !== null)
			place('largest fit ' + variable + '=' + largest.value, [{x: fx - 4, y: TOP - 6, anchor: 'end'}, {x: fx + 4, y: TOP - 6},
				{x: fx - 4, y: TOP - 19, anchor: 'end'}, {x: fx + 4, y: TOP - 19}], {'class': 'peak-label'}, chart, {keep: true});
		place('measured range', [{x: x(mlow) + 3, y: TOP - 6}, {x: x(mhigh) - 3, y: TOP - 6, anchor: 'end'}, {x: x(mlow) + 3, y: TOP - 19},
			{x: x(mlow) + 3, y: TOP + 12}, {x: x(mhigh) - 3, y: TOP + 12, anchor: 'end'}], {'class': 'note-label'}, chart);
		curves.forEach((points, s) =>
			svg('polyline', {points: points.join(' '), fill: 'none', stroke: PALETTE[s % PALETTE.length], 'stroke-width': 2, 'class': 'fit-line'}, chart));
		if (largest) {
			const usable = largest.budget_bytes - largest.headroom_bytes;
			const unit = byteUnit(top);
			const levels = [[largest.budget_bytes, 'budget ' + sizeIn(largest.budget_bytes, unit), 'budget-line']];
			if (largest.headroom_bytes) levels.push([usable, 'less headroom ' + sizeIn(usable, unit), 'capacity-line']);
			for (const [bytes, text, cls] of levels) {
				svg('line', {x1: LEFT, x2: W - RIGHT, y1: y(bytes), y2: y(bytes), 'class': cls}, chart);
				const spots = [];
				for (const at of [0, 1, 0.5, 0.25, 0.75]) {
					const lx = LEFT + 4 + at * (W - LEFT - RIGHT - 8), anchor = at === 1 ? 'end' : 'start';
					spots.push({x: lx, y: y(bytes) - 4, anchor}, {x: lx, y: y(bytes) + 13, anchor});
				}
				place(text, spots, {'class': 'budget-label'}, chart, {keep: true});
			}
			if (fx !== null) {
				/* The answer with the uncertainty its headline states. */
				const u = largest.uncertainty_bytes || 0;
				svg('line', {x1: fx, x2: fx, y1: TOP, y2: H - BOTTOM, 'class': 'peak-line'}, chart);
				if (u) svg('line', {x1: fx, x2: fx, y1: y(largest.peak_bytes - u), y2: y(largest.peak_bytes + u), 'class': 'fit-bar'}, chart);
				const dot = svg('circle', {cx: fx, cy: y(largest.peak_bytes), r: 5, 'class': 'fit-largest'}, chart);
				svg('title', {text: 'largest fit ' + variable + '=' + largest.value + ': ' + human(largest.peak_bytes) +
					(u ? ' \u00b1 ' + human(u) : '') + ' predicted'}, dot);
			}
		}
		group.runs.forEach(r => {
			const dot = svg('circle', {cx: x(labelValue(r.labels, variable)), cy: y(measuredY(r)), r: 4, 'class': 'fit-measured'}, chart);
			svg('title', {text: labelText(r.labels) + ': ' + human(measuredY(r)) + ' measured'}, dot);
		});
		predictions.forEach(p => {
			const px = x(labelValue(p.labels, variable)), v = name === 'peak' ? p.peak_bytes : (p.tags || {})[name] || 0;
			const u = name === 'peak' ? p.uncertainty_bytes || 0 : 0;
			if (u) svg('line', {x1: px, x2: px, y1: y(v - u), y2: y(v + u), 'class': 'fit-bar'}, chart);
			const dot = svg('circle', {cx: px, cy: y(v), r: 5, 'class': 'fit-predicted'}, chart);
			svg('title', {text: 'predicted at ' + labelText(p.labels) + ': ' + human(v) + (u ? ' \u00b1 ' + human(u) : '')}, dot);
		});
		chartBox.replaceChildren(chart);
	});
	return box;
}

function renderFit(fit, container) {
	container.append(...largestText(fit));
	for (const group of fit.groups || []) {
		const section = el('section', {}, [el('h2', {text: group.name || 'the runs'})]);
		section.append(el('p', {text: group.runs.length + ' runs; ' + group.variables.map(v => v.name + ' ' + v.low + ' to ' + v.high).join(', ') +
			(Object.keys(group.fixed || {}).length ? '; fixed ' + labelText(group.fixed) : '')}));
		fitTables(fit, group, section);
		for (const variable of group.variables) {
			section.append(fitChart(fit, group, variable.name, 'peak', group.model.peak));
			for (const [tag, model] of Object.entries(group.model.tags || {}))
				section.append(fitChart(fit, group, variable.name, tag, model));
		}
		container.append(section);
	}
}
