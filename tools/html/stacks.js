/* ---- stacks: the one place that picks the frames a page shows ----
 * The report marks the frames the summary hides (CUDA's libraries,
 * vramtrace, process start-up: core/plumbing.h, marked by the tool as
 * "plumbing"); pages hide them too unless asked. A stack shown briefly
 * leads with the program's own innermost frame, the library frames inside
 * it folded into one mention. */
let SHOW_PLUMBING = false;

function frameIndex(report) {
	if (report.__stacks) return report.__stacks;
	const stacks = new Map();
	for (const entry of report.stack_frames || [])
		stacks.set(entry.id, entry.frames.map(f => typeof f === 'number' ? report.frames[f] : f).filter(f => f));
	report.__stacks = stacks;
	return stacks;
}
function frameLabel(frame) {
	if (frame.__label) return frame.__label;
	const name = frame.function || '?';
	frame.__label = frame.file ? name + ' (' + base(frame.file) + ':' + frame.line + ')'
		: name + ' (' + base(frame.module) + '+0x' + (frame.offset || 0).toString(16) + ')';
	return frame.__label;
}
/* A stack's frames as pictures show them, innermost first. */
function shownFrames(report, id) {
	const frames = frameIndex(report).get(id) || [];
	return SHOW_PLUMBING ? frames : frames.filter(f => !f.plumbing);
}
/* The library a frame belongs to, or null for the program's own code:
 * installed Python packages and the standard library, system libraries. */
function library(frame) {
	if (frame.python || /\.py$/.test(frame.file || '')) {
		const m = /(?:site|dist)-packages\/([^/]+)/.exec(frame.file || '');
		if (m) return m[1].replace(/\.py$/, '');
		return /\/lib\/python3[\d.]*\//.test(frame.file || '') ? 'the Python library' : null;
	}
	if (/^\/(usr\/)?lib(64)?\//.test(frame.module || ''))
		return base(frame.module).replace(/\.so.*$/, '');
	return null;
}
/* A stack in brief: from the program's own innermost frame outwards (Python
 * frames first when there are any), and what it passed through. */
function stackBrief(report, id) {
	const cache = report.__briefs || (report.__briefs = new Map());
	const key = id + (SHOW_PLUMBING ? '+' : '');
	if (!cache.has(key)) cache.set(key, briefOf(report, id));
	return cache.get(key);
}
function briefOf(report, id) {
	let frames = shownFrames(report, id);
	const python = frames.filter(f => f.python);
	if (python.length) frames = python;
	const own = frames.findIndex(f => !f.plumbing && !library(f));
	const skipped = own > 0 ? frames.slice(0, own) : [];
	const names = [...new Set(skipped.map(library).filter(n => n))];
	const via = skipped.length ? 'via ' + (names.join(', ') || 'libraries') + ', ' + skipped.length +
		(skipped.length === 1 ? ' frame' : ' frames') : '';
	return {lead: frames.slice(Math.max(own, 0), Math.max(own, 0) + 3), via, all: frames};
}
function stackKey(report, id) {
	const brief = stackBrief(report, id);
	return brief.lead.map(frameLabel).join(' \u2190 ');
}
function stackNode(report, id) {
	const brief = stackBrief(report, id);
	const node = el('span', {'class': 'where', title: brief.all.map(frameLabel).join('\n')});
	brief.lead.forEach((f, i) => node.append(el('div', {'class': f.python ? 'python' : '', text: (i ? '\u2190 ' : '') + frameLabel(f)})));
	if (brief.via) node.append(el('div', {'class': 'note', text: brief.via}));
	if (!brief.lead.length) node.append(el('div', {'class': 'note', text: 'no frames'}));
	return node;
}
