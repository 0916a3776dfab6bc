/* ---- sortable tables ----
 * Columns: {name, numeric, bytes, signed, render(value) -> Node or text,
 * key(value) -> what sorts}. Rows are arrays of values. A long table builds
 * only the rows it shows (200 until asked for all); a sort computes each
 * row's key once and orders indices, so 16k rows sort and show in well
 * under a second. Headers sort by click, Enter or Space. */
/* Rows of a table showing all of a long list: a window of them drawn in a
 * scrolling box at a fixed height, so that showing and sorting 16k rows
 * lays out a few dozen. */
const ROW_HEIGHT = 24, WINDOW_AFTER = 400, TALL_AFTER = 30;

function sortableTable(columns, rows, caption, footer) {
	const table = el('table', {'class': 'sortable'});
	if (caption) table.append(el('caption', {text: caption}));
	const head = el('tr');
	const body = el('tbody');
	const box = el('div', {'class': 'table-box'}, [table]);
	let order = rows.map((_, i) => i), sortedBy = -1, down = true, limit = 200, windowed = false;
	/* A long table scrolls in a box of its own, as wide as the table (its
	 * scroll bar beside it), so the page below stays in reach. */
	box.classList.toggle('tall', rows.length > TALL_AFTER);
	const keyCache = new Map();
	function cell(column, value) {
		const td = document.createElement('td');
		if (column.numeric) td.className = 'n';
		if (column.render) value = column.render(value);
		if (value instanceof Node) td.append(value);
		else if (column.signed && typeof value === 'number') td.append(delta(value));
		else td.textContent = column.bytes && typeof value === 'number' ? human(value) : String(value);
		return td;
	}
	function rowNode(r) {
		const tr = document.createElement('tr');
		const row = rows[order[r]];
		for (let i = 0; i < columns.length; i++) tr.append(cell(columns[i], row[i]));
		return tr;
	}
	function spacer(height) {
		const tr = el('tr', {'class': 'spacer', 'aria-hidden': 'true'});
		tr.style.height = height + 'px';
		return tr;
	}
	function fill() {
		const fragment = document.createDocumentFragment();
		if (windowed) {
			const first = Math.max(0, Math.floor(box.scrollTop / ROW_HEIGHT) - 10);
			const last = Math.min(order.length, first + Math.ceil((box.clientHeight || 800) / ROW_HEIGHT) + 20);
			fragment.append(spacer(first * ROW_HEIGHT));
			for (let r = first; r < last; r++) fragment.append(rowNode(r));
			fragment.append(spacer((order.length - last) * ROW_HEIGHT));
			body.replaceChildren(fragment);
			return;
		}
		const shown = Math.min(limit, order.length);
		for (let r = 0; r < shown; r++) fragment.append(rowNode(r));
		if (order.length > limit) {
			const more = el('button', {type: 'button', text: 'show all ' + counted(order.length, 'row')});
			more.addEventListener('click', () => {
				limit = order.length;
				windowed = order.length > WINDOW_AFTER;
				box.classList.toggle('windowed', windowed);
				fill();
			});
			fragment.append(el('tr', {}, [el('td', {colspan: columns.length}, [more])]));
		}
		body.replaceChildren(fragment);
	}
	box.addEventListener('scroll', () => { if (windowed) requestAnimationFrame(fill); });
	function keys(i) {
		if (keyCache.has(i)) return keyCache.get(i);
		const column = columns[i];
		const list = rows.map(row => {
			const v = column.key ? column.key(row[i]) : row[i];
			return v instanceof Node ? v.textContent : v;
		});
		const numeric = list.every(k => typeof k === 'number');
		const result = {list: numeric ? list : list.map(String), numeric};
		keyCache.set(i, result);
		return result;
	}
	function sort(i, th) {
		down = sortedBy === i ? !down : true;
		sortedBy = i;
		const {list, numeric} = keys(i);
		order.sort((a, b) => {
			const x = list[a], y = list[b];
			const d = numeric ? x - y : natural(x, y);
			return (down ? -d : d) || a - b;
		});
		head.querySelectorAll('th').forEach(h => { h.classList.remove('sorted-down', 'sorted-up'); h.setAttribute('aria-sort', 'none'); });
		th.classList.add(down ? 'sorted-down' : 'sorted-up');
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
	/* footer: one row, or a list of rows (what the rows leave out). */
	if (footer) {
		const foot = el('tfoot');
		for (const values of Array.isArray(footer[0]) ? footer : [footer]) {
			const tr = el('tr', {'class': 'remainder'});
			values.forEach((value, i) => tr.append(cell(Object.assign({}, columns[i], {render: null}), value)));
			foot.append(tr);
		}
		table.append(foot);
	}
	fill();
	return box;
}
