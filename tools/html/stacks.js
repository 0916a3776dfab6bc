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
		stacks.set(entry.id, {id: entry.id, frames: entry.frames.map(f => typeof f === 'number' ? report.frames[f] : f),
			brief: entry.brief, via: entry.via || '', more: entry.more || 0});
	report.__stacks = stacks;
	return stacks;
}
/* As the text formats name a frame (format_common.c). */
function frameLabel(frame) {
	if (frame.__label) return frame.__label;
	const name = frame.function;
	const where = frame.file ? base(frame.file) + (frame.line > 0 ? ':' + frame.line : '') : '';
	frame.__label = name && where ? name + ' (' + where + ')'
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
/* The brief view in one line (cut to fit, the whole brief on hover), and
 * the whole stack beneath it a click away. twin: what tells the row from
 * rows whose brief views read the same (see twins), shown after the lead. */
function stackNode(report, id, twin) {
	const entry = frameIndex(report).get(id) || {};
	const lines = stackLines(report, id, false);
	if (!lines.length) return el('span', {'class': 'where note', text: 'no frames'});
	const summary = el('summary', {'class': 'where'});
	const words = [];
	const part = (text, cls) => {
		if (summary.childNodes.length) summary.append(' ');
		summary.append(el('span', {'class': cls, text}));
		words.push(text);
	};
	lines.forEach((line, p) => {
		part(lineText(line, p), (line.frame.python ? 'python' : '') + (line.frame.inlined ? ' inlined' : ''));
		if (p === 0 && twin) part('[' + twin + ']', 'note twin');
	});
	const folded = SHOW_PLUMBING ? '' : entry.via;
	const left = SHOW_PLUMBING ? 0 : entry.more;
	if (folded) part(folded, 'note');
	if (left) part('\u2026 ' + left + (left === 1 ? ' more frame' : ' more frames'), 'note');
	summary.title = words.join('\n') + '\n(click for the whole stack)';
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
/* Rows whose brief views read the same (a recursion: 16k stacks that all
 * lead with "walk (many_stacks.c:28)") are places apart further out. Of
 * each such row, the first shown frame, from the innermost, where it
 * parts from the row most like it ("parts at frame 28: right
 * (many_stacks.c:21); 4,096 rows read alike");
 * none where the frames are the same (the tag tells the rows apart). */
function twins(report, ids) {
	const result = new Map(), index = frameIndex(report);
	if (SHOW_PLUMBING) return result;
	/* Frames as numbers, one per place, kept with each stack, so that 32k
	 * stacks of 30 frames group and sort in tens of milliseconds. */
	const places = report.__places || (report.__places = new Map());
	const placeOf = frame => {
		if (frame.__place === undefined) {
			const label = frameLabel(frame);
			if (!places.has(label)) places.set(label, places.size);
			frame.__place = places.get(label);
		}
		return frame.__place;
	};
	const byBrief = new Map();
	for (const id of new Set(ids)) {
		const entry = index.get(id);
		if (!entry || !entry.brief) continue;
		if (!entry.__numbers) {
			entry.__shown = entry.frames.filter(f => f && !f.plumbing);
			entry.__numbers = new Int32Array(entry.__shown.length);
			entry.__shown.forEach((f, k) => { entry.__numbers[k] = placeOf(f); });
		}
		const key = entry.brief.map(i => entry.frames[i] ? placeOf(entry.frames[i]) : -1).join(',') + '|' + entry.via + '|' + entry.more;
		if (!byBrief.has(key)) byBrief.set(key, []);
		byBrief.get(key).push(entry);
	}
	const common = (x, y) => {
		let k = 0;
		while (k < x.length && k < y.length && x[k] === y[k]) k++;
		return k;
	};
	for (const group of byBrief.values()) {
		if (group.length < 2) continue;
		group.sort((a, b) => {
			const x = a.__numbers, y = b.__numbers, k = common(x, y);
			return k < x.length && k < y.length ? x[k] - y[k] : x.length - y.length;
		});
		const alike = '; ' + count(group.length) + ' rows read alike';
		group.forEach((entry, i) => {
			const own = entry.__numbers;
			const k = Math.max(i > 0 ? common(group[i - 1].__numbers, own) : 0,
				i + 1 < group.length ? common(own, group[i + 1].__numbers) : 0);
			if (k < own.length) result.set(entry.id, 'parts at frame ' + (k + 1) + ': ' + frameLabel(entry.__shown[k]) + alike);
		});
	}
	return result;
}
