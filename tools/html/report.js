/* ---- a report ---- */
function runTable(run) {
	const rows = [['command', (run.command || []).join(' ')]];
	for (const [key, value] of Object.entries(run.labels || {})) rows.push(['label ' + key, value]);
	rows.push(['process', run.pid + ' on ' + run.host], ['time', run.start + ' to ' + run.end + ', ended by ' + run.ended_by]);
	return el('table', {'class': 'meta'}, rows.map(([k, v]) => el('tr', {}, [el('td', {text: k}), el('td', {}, [el('code', {text: String(v)})])])));
}

const COUNTER_COLUMNS = name => [nameColumn(name), {name: 'at the peak', numeric: true, bytes: true},
	{name: 'own peak', numeric: true, bytes: true}, {name: 'live at exit', numeric: true, bytes: true},
	{name: 'allocations over the run', numeric: true}];
function counterRows(list, key) {
	return (list || []).map(item => [item[key], item.at_peak_bytes, item.peak_bytes, item.live_at_exit_bytes, item.allocations]);
}
function whereColumn(report) {
	return {name: 'where', render: id => id === null || id === undefined ? '' : stackNode(report, id),
		key: id => id === null || id === undefined ? '' : stackKey(report, id)};
}
/* A row's own peak: exact, or bounds where its stacks' high points need
 * not have coincided (stack_view.h). */
function ownPeak(group) {
	return {low: group.peak_low_bytes === undefined ? group.peak_bytes : group.peak_low_bytes, high: group.peak_bytes};
}
function ownPeakText(peak) {
	return peak.low === peak.high ? human(peak.high) : human(peak.low) + ' to ' + human(peak.high);
}
/* What the rows leave out of the peak, as the text says it. */
function restRows(owner, columns) {
	const rest = owner.stack_rest || {}, rows = [];
	const blank = () => columns.map(() => '');
	if (rest.bytes > 0 || rest.stacks > 0) {
		const row = blank();
		row[1] = (rest.stacks === null || rest.stacks === undefined ? 'the other stacks'
			: counted(rest.stacks, 'more stack')) + ', not listed';
		row[3] = human(rest.bytes);
		rows.push(row);
	}
	if (rest.no_stack_bytes > 0) {
		const row = blank();
		row[1] = 'allocated with no stack';
		row[3] = human(rest.no_stack_bytes);
		rows.push(row);
	}
	return rows;
}
/* One row per place and tag: the stacks whose shown frames are the same,
 * their figures combined; ranked as the text ranks them. */
function stackTable(report, owner) {
	const groups = owner.stack_groups || [];
	const rows = groups.map(g => [g.rank, g.id, g.tag, g.at_peak_bytes, ownPeak(g), g.allocations, g.stacks]);
	const apart = twins(report, groups.map(g => g.id));
	const where = Object.assign(whereColumn(report), {render: id => stackNode(report, id, apart.get(id))});
	const columns = [{name: '#', numeric: true}, where, nameColumn('tag'),
		{name: 'at the peak', numeric: true, bytes: true},
		{name: 'own peak', numeric: true, render: ownPeakText, key: peak => peak.high},
		{name: 'allocations', numeric: true}, {name: 'stacks', numeric: true}];
	const footer = restRows(owner, columns);
	return sortableTable(columns, rows, 'by place (stacks at the same lines are one row)', footer.length ? footer : null);
}

/* The stacks of a pinned moment, where the report holds them: the
 * interval's own (the largest at its highest point, exactly), or, in a
 * report without them, the peak's stacks for the interval of the peak.
 * Each {id, tag, bytes}; rest, the moment's bytes they leave out. */
function momentStacks(owner, row, end) {
	const tagOf = new Map();
	for (const s of owner.stacks || []) if (!tagOf.has(s.id)) tagOf.set(s.id, s.tag);
	const peak = owner.peak || {};
	if (row.top_stacks) {
		const stacks = row.top_stacks.map(s => ({id: s.stack, tag: tagOf.get(s.stack) || 'untagged', bytes: s.bytes}));
		return {stacks, bytes: rowMax(row), at: row.t_ns, rest: row.other_stacks_bytes || 0,
			byTag: row.by_tag || {}, caption: 'largest stacks at the interval\'s highest'};
	}
	if (!(peak.at_ns >= row.t_ns && peak.at_ns < end)) return null;
	const stacks = (owner.stacks || []).filter(s => s.at_peak_bytes > 0).map(s => ({id: s.id, tag: s.tag, bytes: s.at_peak_bytes}));
	const listed = stacks.reduce((sum, s) => sum + s.bytes, 0);
	const byTag = {};
	for (const tag of owner.tags || []) byTag[tag.tag] = tag.at_peak_bytes;
	return {stacks, bytes: peak.bytes, at: peak.at_ns, rest: Math.max(0, peak.bytes - listed), byTag,
		caption: 'stacks live at the peak, ' + seconds(peak.at_ns)};
}
/* A moment's flame graph: its stacks under their tags, what they leave out
 * as "[other stacks]" under each tag where the split by tag accounts for
 * it, else beside the tags; the root names the moment. */
function momentFlame(moment) {
	const listed = {};
	for (const s of moment.stacks) listed[s.tag] = (listed[s.tag] || 0) + s.bytes;
	const perTag = Object.entries(moment.byTag).map(([tag, bytes]) => ({tag, bytes: bytes - (listed[tag] || 0), name: '[other stacks]'}))
		.filter(r => r.bytes > 0);
	const split = perTag.reduce((sum, r) => sum + r.bytes, 0) === moment.rest;
	return {root: 'at ' + seconds(moment.at) + ': ' + human(moment.bytes), whole: 'this moment', bytes: moment.bytes,
		stacks: moment.stacks, rest: split ? perTag : [{tag: null, bytes: moment.rest, name: '[other stacks]'}]};
}

/* What was live at a moment the timeline pins: the interval's split by tag
 * at its highest and, where the report holds them, its largest stacks
 * with exact bytes and their flame graph. */
/* A moment's stacks one row per place and tag (the frames a picture
 * shows), as every listing has them: their bytes added, the largest stack
 * naming the row, largest first. */
function placeRows(report, stacks) {
	const places = new Map();
	for (const s of stacks.slice().sort((a, b) => b.bytes - a.bytes)) {
		const key = s.tag + '\n' + (shownFrames(report, s.id).map(frameLabel).join(' < ') || 'stack ' + s.id);
		const row = places.get(key);
		if (row) {
			row[3] += s.bytes;
			row[4] += s.bytes;
			row[5]++;
		} else {
			places.set(key, [s.id, s.id, s.tag, s.bytes, s.bytes, 1]);
		}
	}
	return [...places.values()].sort((a, b) => b[3] - a[3]);
}

function momentPanel(report, owner, panel, row, end) {
	const span = end - row.t_ns;
	panel.replaceChildren(el('h4', {text: 'live from ' + timeText(row.t_ns, span) + ' to ' + timeText(end, span) +
		': ' + human(rowMax(row)) + ' at the highest, ' + human(rowMin(row)) + ' at the lowest'}));
	const tags = Object.entries(row.by_tag || {}).map(([tag, bytes]) => [tag, bytes]);
	if (tags.length)
		panel.append(sortableTable([nameColumn('tag'), {name: 'bytes at the interval\'s highest', numeric: true, bytes: true}],
			tags.sort((a, b) => b[1] - a[1]), 'by tag'));
	const peak = owner.peak || {};
	const moment = momentStacks(owner, row, end);
	if (moment) {
		const rows = placeRows(report, moment.stacks);
		const rest = moment.rest > 0 ? ['', 'other stacks and allocations with no stack', '', human(moment.rest), String(moment.rest), ''] : null;
		panel.append(sortableTable([{name: 'stack', numeric: true}, whereColumn(report), nameColumn('tag'),
			{name: 'bytes', numeric: true, bytes: true}, {name: 'exact bytes', numeric: true}, {name: 'stacks', numeric: true}],
			rows, moment.caption, rest));
		panel.append(el('h4', {text: 'flame graph of this moment'}), flame(report, momentFlame(moment)));
	} else if (row.top_stacks === null) {
		panel.append(el('p', {'class': 'note', text: 'the stacks of this moment are not kept: the device\'s history holds its first ' +
			count((owner.timeline || {}).history_bound || 0) + ' changes of ' + count((owner.timeline || {}).history_changes || 0) +
			', and this interval\'s highest point came after them'}));
	} else {
		panel.append(el('p', {'class': 'note', text: 'this report holds stacks for the moment of the peak only (' +
			seconds(peak.at_ns || 0) + '); press Enter on the chart, or click the peak\'s interval, to list them'}));
	}
}

/* What was live when an allocation failed: bytes by tag, and the
 * snapshot's largest stacks with their bytes (three, the rest counted). */
function snapshotNode(report, snapshot) {
	if (!snapshot) return el('span', {'class': 'note', text: 'no snapshot'});
	const node = el('div', {'class': 'snapshot'}, [el('div', {text: Object.entries(snapshot.live_by_tag || {})
		.sort((a, b) => b[1] - a[1]).map(([t, b]) => t + ' ' + human(b)).join(', ')})]);
	const stacks = (snapshot.top_stacks || []).slice().sort((a, b) => b.bytes - a.bytes);
	for (const s of stacks.slice(0, 3))
		node.append(el('div', {'class': 'live-stack'}, [el('span', {'class': 'n', text: human(s.bytes)}), stackNode(report, s.stack)]));
	if (stacks.length > 3)
		node.append(el('div', {'class': 'note', text: counted(stacks.length - 3, 'more stack') + ', ' +
			human(stacks.slice(3).reduce((sum, s) => sum + s.bytes, 0))}));
	return node;
}

function owner(report, item, name, budget, host) {
	const section = el('section', {'class': 'owner'});
	section.append(el('h2', {text: name}));
	const peak = item.peak || {};
	if (!peak.bytes && !item.allocations && !(item.failures || []).length) {
		section.append(el('p', {'class': 'empty', text: 'no ' + (host ? 'pinned host' : 'GPU') + ' memory was allocated on it' +
			(item.allocations === 0 ? ' (0 allocations)' : '')}));
		return section;
	}
	section.append(el('p', {'class': 'headline', text: 'peak ' + human(peak.bytes) + ' (' + peak.bytes + ' bytes) at ' + seconds(peak.at_ns || 0) +
		(peak.api ? ' by ' + peak.api : '') + '; live at exit ' + human(item.live_at_exit_bytes)}));
	const panel = el('div', {'class': 'moment', 'aria-live': 'polite'});
	section.append(el('h3', {text: 'live bytes over time'}),
		timeline(item, {budget, what: host ? 'host memory (pinned)' : 'device memory',
			onMoment: (row, end) => momentPanel(report, item, panel, row, end)}), panel);
	section.append(el('h3', {text: 'the moment of the peak'}));
	section.append(sortableTable(COUNTER_COLUMNS('tag'), counterRows(item.tags, 'tag'), 'by tag'));
	section.append(sortableTable(COUNTER_COLUMNS('kind'), counterRows(item.kinds, 'kind'), 'by kind'));
	section.append(stackTable(report, item));
	section.append(el('h3', {text: 'flame graph of the stacks at the peak'}), flame(report, peakFlame(item)));
	/* A failure: the call and its own stack, then what was live when it
	 * failed (its snapshot: bytes by tag and the largest stacks); its time
	 * sorts as a time, not as the text "950 \u00b5s". */
	const failures = (item.failures || []).map(f => [f.bytes, f.api || '?', f.error_name || String(f.error), f.at_ns, f.live_bytes,
		f.stack === null || f.stack === undefined ? null : f.stack, snapshotNode(report, f.snapshot)]);
	if (failures.length)
		section.append(el('h3', {'class': 'fail', text: 'failed allocations'}),
			sortableTable([{name: 'requested', numeric: true, bytes: true}, {name: 'call'}, {name: 'error'},
				{name: 'when', numeric: true, render: seconds}, {name: 'live then', numeric: true, bytes: true}, whereColumn(report),
				{name: 'what was live (out-of-memory snapshot)'}], failures));
	/* Leaks at one place with one tag are one row, as stacks are. */
	const leaks = (item.leak_groups || []).map(l => [l.bytes, l.count, l.tag, l.rank === null ? '' : l.rank, l.stack]);
	if (leaks.length) {
		const apart = twins(report, leaks.map(l => l[4]).filter(id => id !== null && id !== undefined));
		const where = Object.assign(whereColumn(report), {render: id => id === null || id === undefined ? '' : stackNode(report, id, apart.get(id))});
		/* What the rows leave out of what was live, as the text says it. */
		const rest = item.leak_rest;
		const footer = rest && rest.count > 0 ? [rest.bytes, rest.count, '', '', counted(rest.count, 'more allocation') + ', not listed'] : null;
		section.append(el('h3', {text: 'live at exit'}),
			sortableTable([{name: 'bytes', numeric: true, bytes: true}, {name: 'allocations', numeric: true}, nameColumn('tag'),
				{name: 'stack row #', numeric: true}, where], leaks, null, footer));
	}
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

function renderReport(report, container, budget, title) {
	if (title) container.append(el('h2', {text: title}));
	container.append(runTable(report.run || {}));
	const toggle = el('input', {type: 'checkbox', id: 'vt-plumbing-' + Math.random().toString(36).slice(2)});
	toggle.checked = SHOW_PLUMBING;
	toggle.addEventListener('change', () => {
		SHOW_PLUMBING = toggle.checked;
		container.replaceChildren();
		renderReport(report, container, budget, title);
		container.querySelector('input[type=checkbox]').focus();
	});
	container.append(el('p', {'class': 'controls'}, [toggle, el('label', {'for': toggle.id,
		text: 'show the CUDA runtime\'s, vramtrace\'s and start-up frames'})]));
	const devices = report.devices || [];
	const host = report.host;
	const hostUsed = host && ((host.peak || {}).bytes > 0 || host.allocations > 0);
	if (!devices.length || devices.every(d => !(d.peak || {}).bytes && !d.allocations))
		container.append(el('p', {'class': 'empty', text: 'no GPU memory was allocated' +
			(hostUsed ? '; the program allocated pinned host memory only, shown below' : ' in this run')}));
	for (const device of devices)
		container.append(owner(report, device, 'device ' + device.ordinal + ' (' + (device.name || 'unknown') + ', ' +
			(device.capacity_bytes ? human(device.capacity_bytes) : '?') + ')', budget, false));
	if (hostUsed) container.append(owner(report, host, 'host (pinned memory)', null, true));
}
