/* vramtrace pages: what every page shares: numbers in words, round axis
 * ticks, elements, the tooltip, charts that follow the window. No request
 * leaves the page. */

/* The SVG namespace: a name, not an address; written so that no URL
 * appears in the page. */
const NS = ['htt' + 'p:', '', 'www.w3.org', '2000', 'svg'].join('/');
/* Series colours: mid-lightness hues that hold contrast on the light and
 * the dark background alike; the chart fills are these colours unmixed,
 * so the legend's swatch is the chart's colour. */
const PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#b07aa1', '#9c755f',
	'#17becf', '#edc948', '#76b7b2', '#ff9da7', '#7f7f7f', '#bcbd22'];
const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];

function human(bytes) {
	let value = Math.abs(bytes), unit = 0;
	/* 1048575 bytes, 1023.999 KiB, are "1.00 MiB", never "1024.00 KiB" */
	while ((value >= 1024 || value.toFixed(2) === '1024.00') && unit < UNITS.length - 1) { value /= 1024; unit++; }
	const text = unit === 0 ? value.toFixed(0) + ' B' : value.toFixed(2) + ' ' + UNITS[unit];
	return (bytes < 0 ? '-' : '') + text;
}
/* A fitted cost, as fit's text says it: where it is not whole below a
 * KiB, to three significant digits ("0.00381 B", not "0 B") and from
 * 100 B to a tenth of a byte ("1023.5 B"); else a size. */
function coefficient(bytes) {
	const size = Math.abs(bytes);
	if (size < 1023.95 && Math.abs(bytes - Math.round(bytes)) > 1e-6 * Math.max(1, size))
		return (size < 100 ? String(Number(bytes.toPrecision(3))) : bytes.toFixed(1)) + ' B';
	return human(Math.round(bytes));
}
/* A signed size: "+1.00 GiB", "-512 B", "0 B". */
function signed(bytes) { return (bytes > 0 ? '+' : '') + human(bytes); }
function count(n) { return Number(n).toLocaleString('en-US'); }
/* "1 stack", "2 stacks": a count with its noun. */
function counted(n, noun) { return count(n) + ' ' + noun + (Number(n) === 1 ? '' : 's'); }
/* A moment in the run, in the unit its size wants: 450 µs, 2.402 ms, 3.141 s. */
function seconds(ns) { return ns < 1e6 ? trim(ns / 1e3, 1) + ' \u00b5s' : ns < 1e9 ? trim(ns / 1e6, 3) + ' ms' : (ns / 1e9).toFixed(3) + ' s'; }
function base(path) { return path ? path.slice(path.lastIndexOf('/') + 1) : ''; }
/* A number with no trailing zeros: 2.50 -> "2.5", 3.00 -> "3". */
function trim(value, digits) { return String(+value.toFixed(digits)); }

/* Text in the order people read numbers in it: "bs_2_4" before
 * "bs_2_16", "batch=4" before "batch=16". */
const NATURAL = new Intl.Collator('en', {numeric: true});
function natural(a, b) { return NATURAL.compare(String(a), String(b)); }

/* Round steps, 1, 2 or 5 times a power of ten, in the unit of the span. */
function roundStep(span, want) {
	const raw = span / Math.max(want, 1);
	const power = Math.pow(10, Math.floor(Math.log10(raw)));
	for (const m of [1, 2, 5, 10]) if (m * power >= raw) return m * power;
	return 10 * power;
}
function stepTicks(low, high, step) {
	const ticks = [];
	for (let v = Math.ceil(low / step - 1e-9) * step; v <= high + step * 1e-9; v += step) ticks.push(v);
	return ticks;
}
/* Byte ticks in the binary unit of the top (0, 5 GiB, 10 GiB, ...), each
 * labelled without trailing zeros. */
/* The binary unit of an axis that reaches top: GiB for 20 GiB. */
function byteUnit(top) {
	let unit = 0;
	while (unit < UNITS.length - 1 && top / Math.pow(1024, unit + 1) >= 1) unit++;
	return unit;
}
/* bytes in an axis' unit, with the fewest decimals that give back the
 * very bytes (a fraction of a byte dropped, as sizes are read): a budget
 * of 0.9GiB reads "0.9 GiB" on a GiB axis, "921.6 MiB" on a MiB one. */
function sizeIn(bytes, unit) {
	const scale = Math.pow(1024, unit);
	for (let digits = 0; digits <= 10; digits++) {
		const text = (bytes / scale).toFixed(digits);
		if (Math.floor(Number(text) * scale) === bytes) return trim(Number(text), digits) + ' ' + UNITS[unit];
	}
	return (bytes / scale).toFixed(2) + ' ' + UNITS[unit];
}
function byteTicks(top, want) {
	const unit = byteUnit(top);
	const scale = Math.pow(1024, unit);
	const step = roundStep(top / scale, want);
	const digits = Math.max(0, -Math.floor(Math.log10(step)));
	return stepTicks(0, top / scale, step).map(v => ({value: v * scale, text: trim(v, digits) + ' ' + UNITS[unit]}));
}
/* Time ticks (nanoseconds) at round times, in the unit of the latest time
 * shown (a zoom at 10 ms reads 10.15 ms, not 10150 us). */
function timeTicks(low, high, want) {
	const [scale, unit] = high >= 2e9 ? [1e9, 's'] : high >= 2e6 ? [1e6, 'ms'] : high >= 2e3 ? [1e3, '\u00b5s'] : [1, 'ns'];
	const step = roundStep((high - low) / scale, want);
	const digits = Math.max(0, -Math.floor(Math.log10(step)));
	return stepTicks(low / scale, high / scale, step).map(v => ({value: v * scale, text: trim(v, digits) + ' ' + unit}));
}
/* The range a timeline shows first, of a run 0 to end whose first
 * allocation came at first: the whole run, or, when nothing was allocated
 * for more than a tenth of it, from just before the first allocation
 * (a fiftieth of what follows), so that a burst at the end is readable. */
function defaultView(first, end) {
	if (!(first > end / 10) || first >= end) return [0, end];
	return [Math.max(0, first - (end - first) / 50), end];
}
function timeText(ns, span) {
	if (span < 2e6) return trim(ns / 1e3, 1) + ' \u00b5s';
	if (span < 2e9) return trim(ns / 1e6, 3) + ' ms';
	return trim(ns / 1e9, 3) + ' s';
}
/* Whole-numbered ticks for a setting (batch 1, 2, 4...): never 9.5. */
function valueTicks(low, high, want, whole) {
	let step = roundStep(high - low || 1, want);
	if (whole) step = Math.max(1, Math.round(step));
	const digits = Math.max(0, -Math.floor(Math.log10(step)));
	return stepTicks(low, high, step).map(v => ({value: v, text: trim(v, digits)}));
}

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
function swatch(color, label, dashed) {
	return el('span', {}, [el('span', {'class': 'swatch' + (dashed ? ' dashed' : ''), style: 'background:' + color}), label]);
}
/* A name cut to fit, with the whole name on hover. */
function ellipsis(text, cls) {
	return el('span', {'class': 'ellipsis' + (cls ? ' ' + cls : ''), title: text, text: text});
}
/* A column of names (tags, kinds): each cut to fit beside a stack and
 * the numbers, so a long tag never pushes a table's numbers out of view;
 * the whole name on hover. */
function nameColumn(name) {
	return {name, render: text => ellipsis(String(text), 'name')};
}
/* A coloured signed delta: growth red, shrinkage green. */
function delta(bytes) {
	return el('span', {'class': bytes > 0 ? 'grew' : bytes < 0 ? 'shrank' : '', text: signed(bytes)});
}

/* The one tooltip of the page. */
let TOOLTIP = null;
function showTip(event, lines) {
	TOOLTIP.replaceChildren(...lines.map(line => el('div', {text: line})));
	TOOLTIP.style.display = 'block';
	const right = event.clientX + 14 + TOOLTIP.offsetWidth > window.innerWidth;
	TOOLTIP.style.left = (right ? event.clientX - 14 - TOOLTIP.offsetWidth : event.clientX + 14) + 'px';
	const below = event.clientY + 14 + TOOLTIP.offsetHeight > window.innerHeight;
	TOOLTIP.style.top = (below ? event.clientY - 14 - TOOLTIP.offsetHeight : event.clientY + 14) + 'px';
}
function hideTip() { TOOLTIP.style.display = 'none'; }

/* A chart drawn at its box's width, and drawn again when the width
 * changes: charts follow the window, nothing is cut. */
function responsive(box, draw) {
	let width = 0;
	const redraw = () => {
		const now = Math.max(320, Math.floor(box.clientWidth));
		if (now === width) return;
		width = now;
		draw(width);
	};
	new ResizeObserver(redraw).observe(box);
	requestAnimationFrame(redraw);
	box.__redraw = () => { width = 0; redraw(); };
	return box;
}

/* Whether the segment from (x1, y1) to (x2, y2) passes through a box
 * {x0, x1, y0, y1} (Liang-Barsky clipping). */
function crosses(x1, y1, x2, y2, box) {
	let t0 = 0, t1 = 1;
	const dx = x2 - x1, dy = y2 - y1;
	for (const [p, q] of [[-dx, x1 - box.x0], [dx, box.x1 - x1], [-dy, y1 - box.y0], [dy, box.y1 - y1]]) {
		if (p === 0) { if (q < 0) return false; continue; }
		const r = q / p;
		if (p < 0) { if (r > t1) return false; if (r > t0) t0 = r; }
		else { if (r < t0) return false; if (r < t1) t1 = r; }
	}
	return t0 <= t1;
}
/* Labels that never overprint, nor sit on a line: each takes the first
 * of its candidate places that overlaps no label placed before, crosses
 * no line given to avoid(x1, y1, x2, y2) (or a polyline's points to
 * avoidPoints) and stays inside the chart's width (when given). A label
 * with no such place is left out, or, asked to stay ({keep: true}),
 * takes the first place clear of labels alone. */
function labelPlacer(width) {
	const placed = [], lines = [];
	const overlaps = (a, b) => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
	const boxOf = (text, c) => {
		const textWidth = text.length * 6.4 + 4, x0 = c.anchor === 'end' ? c.x - textWidth : c.x;
		return {x0, x1: x0 + textWidth, y0: c.y - 11, y1: c.y + 2};
	};
	function place(text, candidates, attrs, parent, options) {
		for (const pass of (options || {}).keep ? [true, false] : [true]) {
			for (const c of candidates) {
				const box = boxOf(text, c);
				if ((width && (box.x0 < 0 || box.x1 > width)) || placed.some(p => overlaps(p, box))) continue;
				if (pass && lines.some(l => crosses(l[0], l[1], l[2], l[3], box))) continue;
				placed.push(box);
				return svg('text', Object.assign({x: c.x, y: c.y, 'text-anchor': c.anchor || 'start', text}, attrs), parent);
			}
		}
		return null;
	}
	place.avoid = (x1, y1, x2, y2) => { lines.push([+x1, +y1, +x2, +y2]); };
	place.avoidPoints = points => {
		const xy = points.map(p => p.split(',').map(Number));
		for (let i = 1; i < xy.length; i++) lines.push([xy[i - 1][0], xy[i - 1][1], xy[i][0], xy[i][1]]);
	};
	return place;
}
