/* ---- stacks: how a page shows a stack ----
 * The tool marks each frame (plumbing: CUDA's libraries, vramtrace,
 * process start-up, core/plumbing.h; library: a package's or a system
 * library's) and gives each stack its brief view, the frames a listing
 * shows (the program's own innermost line first, the library frames before
 * it folded into one mention), as the text formats show it. Pages hide the
 * plumbing unless asked; the whole stack is one click away. An inlined
 * function is a frame of its own, "inlined in" the caller after it. */
let SHOW_PLUMBING = false;

function frameIndex(report) {
	if (report.__stacks) return report.__stacks;
	const stacks = new Map();
	for (const entry of report.stack_frames || [])
		stacks.set(entry.id, {frames: entry.frames.map(f => typeof f === 'number' ? report.frames[f] : f),
			brief: entry.brief, via: entry.via || '', more: entry.more || 0});
	report.__stacks = stacks;
	return stacks;
}
/* As the text formats name a frame (format_common.c). */
function frameLabel(frame) {
	if (frame.__label) return frame.__label;
	const name = frame.function;
	frame.__label = name && frame.file ? name + ' (' + base(frame.file) + ':' + frame.line + ')'
		: name ? name + ' (' + base(frame.module || '?') + ')'
			: base(frame.module || '?') + '+0x' + (frame.offset || 0).toString(16);
	return frame.__label;
}
/* A stack's frames as pictures show them, innermost first, each with
 * whether it is the caller an inlined function was compiled into. */
function stackLines(report, id, whole, plumbing) {
	const entry = frameIndex(report).get(id);
	if (!entry) return [];
	const frames = entry.frames;
	const picked = !whole && !SHOW_PLUMBING && entry.brief ? entry.brief
		: frames.map((f, i) => i).filter(i => frames[i] && (SHOW_PLUMBING || plumbing || !frames[i].plumbing));
	return picked.filter(i => frames[i]).map((i, p) => ({frame: frames[i],
		inlinedIn: p > 0 && picked[p - 1] === i - 1 && !!frames[i - 1].inlined}));
}
function shownFrames(report, id) {
	return stackLines(report, id, true).map(line => line.frame);
}
function lineText(line, p) {
	return (p === 0 ? '' : line.inlinedIn ? 'inlined in ' : '\u2190 ') + frameLabel(line.frame);
}
function stackKey(report, id) {
	return stackLines(report, id, false).map(lineText).join(' ');
}
/* The brief view, and the whole stack beneath it a click away. */
function stackNode(report, id) {
	const entry = frameIndex(report).get(id) || {};
	const lines = stackLines(report, id, false);
	const summary = el('summary', {'class': 'where', title: 'show the whole stack'});
	lines.forEach((line, p) => summary.append(el('div', {'class': (line.frame.python ? 'python' : '') +
		(line.frame.inlined ? ' inlined' : ''), text: lineText(line, p)})));
	if (!lines.length) return el('span', {'class': 'where note', text: 'no frames'});
	const folded = SHOW_PLUMBING ? '' : entry.via;
	const left = SHOW_PLUMBING ? 0 : entry.more;
	if (folded) summary.append(el('div', {'class': 'note', text: folded}));
	if (left) summary.append(el('div', {'class': 'note', text: '\u2026 ' + left + (left === 1 ? ' more frame' : ' more frames')}));
	/* The whole stack: every frame, the plumbing greyed, each library's
	 * frames named by it. */
	const details = el('details', {'class': 'where'}, [summary]);
	details.addEventListener('toggle', () => {
		if (!details.open || details.querySelector('ol')) return;
		details.append(el('ol', {'class': 'stack'}, stackLines(report, id, true, true).map((line, p) =>
			el('li', {'class': (line.frame.inlined ? 'inlined' : '') + (line.frame.plumbing ? ' note' : ''),
				text: lineText(line, p) + (line.frame.plumbing ? ' [plumbing]' : line.frame.library ? ' [' + line.frame.library + ']' : '')}))));
	});
	return details;
}
