/* ---- flame graphs of a moment (icicles: the root on top) ----
 * The peak's, and that of any moment the timeline pins. The root is the
 * moment's whole bytes: under each tag, the listed stacks (for the peak,
 * one per row) and, for what they do not cover, an explicit block
 * ("[other stacks, not listed]"), so widths and searches are shares of
 * the moment itself. */
const FLAME_COLORS = {root: 'var(--flame-root)', tag: 'var(--flame-tag)', python: 'var(--flame-python)',
	native: 'var(--flame-native)', rest: 'var(--flame-rest)'};
const ROW = 18;

function treeNode(name, kind, parent, inlined) {
	return {name, kind, value: 0, children: new Map(), parent, inlined: !!inlined};
}
function addPath(root, path, bytes) {
	let node = root;
	node.value += bytes;
	for (const step of path) {
		let child = node.children.get(step.name);
		if (!child) { child = treeNode(step.name, step.kind, node, step.inlined); node.children.set(step.name, child); }
		child.value += bytes;
		node = child;
	}
}
/* What the listed rows leave out, per tag: the tag's bytes at the peak
 * less its rows' (the folded format's "[other stacks]"). A stack has one
 * tag; in older reports a row was under the tag of its stack's latest
 * allocation and could hold bytes allocated under other tags (one line run
 * in several NVTX ranges): when some tag's rows hold more than the tag, the
 * per-tag remainders would count those bytes twice, so what the rows leave
 * out of the peak is one block under no tag, and the graph's root stays
 * the peak. */
function remainders(owner) {
	const listed = new Map();
	let listedTotal = 0;
	for (const group of owner.stack_groups || []) {
		const bytes = Math.max(0, group.at_peak_bytes);
		listed.set(group.tag, (listed.get(group.tag) || 0) + bytes);
		listedTotal += bytes;
	}
	const rest = [];
	let mixed = false;
	for (const tag of owner.tags || []) {
		const bytes = tag.at_peak_bytes - (listed.get(tag.tag) || 0);
		if (bytes > 0) rest.push({tag: tag.tag, bytes});
		mixed = mixed || bytes < 0;
	}
	if (!mixed) return rest;
	const unlisted = ((owner.peak || {}).bytes || 0) - listedTotal;
	return unlisted > 0 ? [{tag: null, bytes: unlisted}] : [];
}
/* What a flame graph draws: its root's words and bytes, its stacks (each
 * an id of the page's stack data, a tag and bytes) and what they leave
 * out ({tag, bytes}, tag null for bytes no tag accounts for). The peak's:
 * one stack per row (the stacks at one place with one tag). */
function peakFlame(owner) {
	const rest = remainders(owner), left = owner.stack_rest || {};
	const name = rest.length === 1 && left.stacks > 0 && !(left.no_stack_bytes > 0)
		? '[' + counted(left.stacks, 'more stack') + ', not listed]'
		: '[other stacks, not listed]';
	return {root: 'all of the peak', whole: 'the peak', bytes: (owner.peak || {}).bytes || 0,
		stacks: (owner.stack_groups || []).map(g => ({id: g.id, tag: g.tag, bytes: g.at_peak_bytes})),
		rest: rest.map(r => ({tag: r.tag, bytes: r.bytes, name}))};
}
/* One path per stack, its frames from the outermost under its tag; an
 * inlined function is a cell of its own, marked, under the caller it was
 * compiled into. */
function buildTree(report, input) {
	const root = treeNode(input.root, 'root', null);
	for (const stack of input.stacks) {
		if (stack.bytes <= 0) continue;
		const frames = shownFrames(report, stack.id).slice().reverse();
		addPath(root, [{name: '[' + stack.tag + ']', kind: 'tag'}].concat(frames.map(f =>
			({name: frameLabel(f) + (f.inlined ? ' [inlined]' : ''), kind: f.python ? 'python' : 'native', inlined: f.inlined}))),
		stack.bytes);
	}
	for (const {tag, bytes, name} of input.rest)
		if (bytes > 0)
			addPath(root, (tag === null ? [] : [{name: '[' + tag + ']', kind: 'tag'}]).concat([{name, kind: 'rest'}]), bytes);
	return root;
}

function flame(report, input) {
	const box = el('div', {'class': 'flame-box'});
	if (!(input.bytes > 0)) return box;
	/* Built at the first drawing, after the page shows: 32k stacks of 25
	 * frames take a few hundred milliseconds. */
	let root = null;
	const search = el('input', {type: 'search', placeholder: 'function or file', 'aria-label': 'search frames'});
	const found = el('span', {'class': 'note'});
	const reset = el('button', {type: 'button', text: 'reset zoom'});
	const chartBox = el('div', {'class': 'chart-box'});
	box.append(el('p', {'class': 'controls'}, [el('label', {text: 'search'}), search, reset, found]), chartBox,
		el('p', {'class': 'legend'}, [swatch(FLAME_COLORS.python, 'Python frame'), swatch(FLAME_COLORS.native, 'native frame'),
			swatch(FLAME_COLORS.native, 'inlined function (dashed border)', true), swatch(FLAME_COLORS.tag, 'tag'),
			swatch(FLAME_COLORS.rest, 'stacks the report does not list')]));
	let focus = null, width = 960;
	const share = node => human(node.value) + ' (' + (100 * node.value / root.value).toFixed(1) + '% of ' + input.whole + ')';
	const chart = svg('svg', {'class': 'flame', role: 'img', 'aria-label': 'flame graph of the stacks of ' + input.whole});
	chartBox.append(chart);
	function rect(node, x, w, row, faded) {
		const r = svg('rect', {x, y: row * ROW, width: w, height: ROW - 1, fill: FLAME_COLORS[node.kind]}, chart);
		if (faded) r.setAttribute('opacity', 0.6);
		if (node.inlined) r.setAttribute('class', 'inlined');
		r.__node = node;
		if (w >= 3) { r.setAttribute('tabindex', 0); r.setAttribute('aria-label', node.name + ': ' + share(node)); }
		const chars = Math.floor((w - 6) / 6.5);
		if (chars >= 4)
			svg('text', {x: x + 3, y: row * ROW + 13, text: node.name.length > chars ? node.name.slice(0, chars - 1) + '\u2026' : node.name}, chart);
	}
	function draw() {
		chart.replaceChildren();
		chart.setAttribute('width', width);
		let depth = 0;
		const ancestors = [];
		for (let node = focus; node; node = node.parent) ancestors.unshift(node);
		function place(node, x, w, row) {
			if (w < 0.5) return;
			depth = Math.max(depth, row + 1);
			rect(node, x, w, row, false);
			let offset = x;
			for (const child of [...node.children.values()].sort((a, b) => b.value - a.value)) {
				const cw = w * child.value / node.value;
				place(child, offset, cw, row + 1);
				offset += cw;
			}
		}
		ancestors.slice(0, -1).forEach((node, row) => { depth = row + 1; rect(node, 0, width, row, true); });
		place(focus, 0, width, ancestors.length - 1);
		chart.setAttribute('height', depth * ROW);
		highlight();
	}
	function highlight() {
		const text = search.value.trim().toLowerCase();
		chart.querySelectorAll('rect').forEach(r => r.classList.toggle('match', !!text && r.__node.name.toLowerCase().includes(text)));
		if (!text) { found.textContent = ''; return; }
		let bytes = 0;
		const visit = node => {
			if (node.name.toLowerCase().includes(text)) { bytes += node.value; return; }
			node.children.forEach(visit);
		};
		visit(root);
		found.textContent = 'matches hold ' + human(bytes) + ' (' + (100 * bytes / root.value).toFixed(1) + '% of ' + input.whole + ')';
	}
	function zoomTo(node) {
		focus = node === focus && node.parent ? node.parent : node;
		draw();
	}
	chart.addEventListener('click', event => { if (event.target.__node) zoomTo(event.target.__node); });
	chart.addEventListener('keydown', event => {
		if ((event.key === 'Enter' || event.key === ' ') && event.target.__node) { event.preventDefault(); zoomTo(event.target.__node); }
	});
	chart.addEventListener('mousemove', event => {
		const node = event.target.__node;
		if (node) showTip(event, [node.name, share(node)].concat(node.inlined && node.parent ? ['inlined in ' + node.parent.name] : []));
		else hideTip();
	});
	chart.addEventListener('mouseleave', hideTip);
	reset.addEventListener('click', () => { if (root) { focus = root; draw(); } });
	search.addEventListener('input', () => { if (root) highlight(); });
	responsive(chartBox, w => {
		if (!root) focus = root = buildTree(report, input);
		width = w;
		draw();
	});
	return box;
}
