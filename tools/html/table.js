/* ---- sortable tables ----
 * Columns: {name, numeric, bytes, signed, render(value) -> Node or text,
 * key(value) -> what sorts}. Rows are arrays of values. A long table builds
 * only the rows it shows (200 until asked for all); a sort computes each
 * row's key once and orders indices, so 16k rows sort and show in well
 * under a second. Headers sort by click, Enter or Space. */
function sortableTable(columns, rows, caption, footer) {
	const table = el('table', {'class': 'sortable'});
	if (caption) table.append(el('caption', {text: caption}));
	const head = el('tr');
	const body = el('tbody');
	let order = rows.map((_, i) => i), sortedBy = -1, down = true, limit = 200;
	function cell(column, value) {
		const td = document.createElement('td');
		if (column.numeric) td.className = 'n';
		if (column.render) value = column.render(value);
		if (value instanceof Node) td.append(value);
		else if (column.signed && typeof value === 'number') td.append(delta(value));
		else td.textContent = column.bytes && typeof value === 'number' ? human(value) : String(value);
		return td;
	}
	function fill() {
		const fragment = document.createDocumentFragment();
		const shown = Math.min(limit, order.length);
		for (let r = 0; r < shown; r++) {
			const tr = document.createElement('tr');
			const row = rows[order[r]];
			for (let i = 0; i < columns.length; i++) tr.append(cell(columns[i], row[i]));
			fragment.append(tr);
		}
		if (order.length > limit) {
			const more = el('button', {type: 'button', text: 'show all ' + order.length + ' rows'});
			more.addEventListener('click', () => { limit = order.length; fill(); });
			fragment.append(el('tr', {}, [el('td', {colspan: columns.length}, [more])]));
		}
		body.replaceChildren(fragment);
	}
	function sort(i, th) {
		down = sortedBy === i ? !down : true;
		sortedBy = i;
		const column = columns[i];
		const keys = rows.map(row => {
			const v = column.key ? column.key(row[i]) : row[i];
			return v instanceof Node ? v.textContent : v;
		});
		const numeric = keys.every(k => typeof k === 'number');
		order.sort((a, b) => {
			let d;
			if (numeric) d = keys[a] - keys[b];
			else { const x = String(keys[a]), y = String(keys[b]); d = x < y ? -1 : x > y ? 1 : 0; }
			return (down ? -d : d) || a - b;
		});
		head.querySelectorAll('th').forEach(h => { h.className = ''; h.setAttribute('aria-sort', 'none'); });
		th.className = down ? 'sorted-down' : 'sorted-up';
		th.setAttribute('aria-sort', down ? 'descending' : 'ascending');
		fill();
	}
	columns.forEach((column, i) => {
		const th = el('th', {text: column.name, title: 'sort by ' + column.name, tabindex: 0, 'aria-sort': 'none'});
		if (column.numeric) th.classList.add('n');
		th.addEventListener('click', () => sort(i, th));
		th.addEventListener('keydown', event => {
			if (event.key === 'Enter' || event.key === ' ') { event.preventDefault(); sort(i, th); }
		});
		head.append(th);
	});
	table.append(el('thead', {}, [head]), body);
	if (footer) {
		const tr = el('tr', {'class': 'remainder'});
		footer.forEach((value, i) => tr.append(cell(Object.assign({}, columns[i], {render: null}), value)));
		table.append(el('tfoot', {}, [tr]));
	}
	fill();
	table.__rows = rows;
	table.__refill = fill;
	return el('div', {'class': 'table-box'}, [table]);
}
