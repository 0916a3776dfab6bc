// Unit tests of the pages' pure functions (tools/html/common.js): round
// ticks for bytes, times and settings at every zoom, labels that never
// overprint, numbers in words. Run by `node --test`; the scripts are
// loaded as the page loads them, into one scope, with a stand-in document.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import vm from 'node:vm';

const html = new URL('../../tools/html/', import.meta.url);
const names = ['human', 'counted', 'seconds', 'roundStep', 'byteTicks', 'timeTicks', 'valueTicks',
	'labelPlacer', 'defaultView', 'natural', 'crosses', 'sizeIn', 'byteUnit', 'coefficient'];

function load() {
	const element = () => ({attributes: {}, setAttribute(key, value) { this.attributes[key] = value; },
		append() {}});
	const document = {createElement: element, createElementNS: element};
	const text = fs.readFileSync(new URL('common.js', html), 'utf8');
	return vm.runInNewContext(text + `\n;({${names.join(', ')}})`, {document});
}
const page = load();
// Values made in the page's scope, compared as plain data.
const plain = value => JSON.parse(JSON.stringify(value));
const GiB = 1024 ** 3;

test('byte ticks are round steps in the unit of the top', () => {
	const ticks = page.byteTicks(10 * GiB, 5);
	assert.deepEqual(plain(ticks.map(t => t.text)), ['0 GiB', '2 GiB', '4 GiB', '6 GiB', '8 GiB', '10 GiB']);
	assert.deepEqual(plain(ticks.map(t => t.value)), [0, 2, 4, 6, 8, 10].map(v => v * GiB));
	assert.deepEqual(plain(page.byteTicks(18.29 * GiB, 4).map(t => t.text)), ['0 GiB', '5 GiB', '10 GiB', '15 GiB']);
});

test('time ticks are re-ticked in round units at every zoom', () => {
	// The whole of a 1.358 ms run, then a zoom into a quarter millisecond.
	assert.deepEqual(plain(page.timeTicks(0, 1358000, 5).map(t => t.text)), ['0 \u00b5s', '500 \u00b5s', '1000 \u00b5s']);
	assert.deepEqual(plain(page.timeTicks(10.15e6, 10.4e6, 5).map(t => t.text)),
		['10.15 ms', '10.2 ms', '10.25 ms', '10.3 ms', '10.35 ms', '10.4 ms']);
	for (const [low, high] of [[0, 3.7e9], [1.2e9, 1.3e9], [123, 4567], [5e6, 5.5e6]]) {
		const ticks = page.timeTicks(low, high, 6);
		assert.ok(ticks.length >= 2 && ticks.length <= 13, `${ticks.length} ticks for ${low}..${high}`);
		assert.ok(ticks.every(t => t.value >= low - 1e-6 && t.value <= high + 1e-6), 'inside the range');
		const steps = new Set(ticks.slice(1).map((t, i) => Math.round((t.value - ticks[i].value) * 1e6)));
		assert.equal(steps.size, 1, 'one step between every two ticks');
	}
});

test('a whole-numbered setting gets whole ticks', () => {
	const ticks = page.valueTicks(2, 8, 5, true);
	assert.deepEqual(plain(ticks.map(t => t.value)), [2, 4, 6, 8]);
	assert.ok(page.valueTicks(1, 3, 10, true).every(t => Number.isInteger(t.value)), 'never 1.5');
	assert.deepEqual(plain(page.valueTicks(0, 1, 4, false).map(t => t.text)), ['0', '0.5', '1']);
});

test('labels never overprint and stay inside the chart', () => {
	const place = page.labelPlacer(200);
	const first = place('capacity 80 GiB', [{x: 10, y: 20}]);
	const second = place('peak 18 GiB', [{x: 12, y: 20}, {x: 12, y: 40}]);
	assert.ok(first && second);
	assert.equal(second.attributes.y, 40, 'the second takes its next place');
	assert.equal(place('budget', [{x: 14, y: 20}, {x: 14, y: 40}]), null, 'no place left: left out');
	assert.equal(place('far too long to fit here', [{x: 190, y: 80}]), null, 'past the width');
	assert.ok(place('end', [{x: 190, y: 80, anchor: 'end'}]), 'anchored at its end, it fits');
});

test('numbers in words', () => {
	assert.equal(page.human(1536), '1.50 KiB');
	assert.equal(page.human(-512), '-512 B');
	assert.equal(page.counted(1, 'stack'), '1 stack');
	assert.equal(page.counted(32768, 'row'), '32,768 rows');
	assert.equal(page.seconds(450000), '450 \u00b5s');
	assert.equal(page.seconds(2402000), '2.402 ms');
});

test('a run that idles before its first allocation is first shown from just before it', () => {
	// llm_serving: nothing until 17.094 ms of 17.856 ms.
	assert.deepEqual(plain(page.defaultView(17093796, 17856332)), [17093796 - (17856332 - 17093796) / 50, 17856332]);
	assert.deepEqual(plain(page.defaultView(1000, 100000)), [0, 100000], 'a short wait: the whole run');
	assert.deepEqual(plain(page.defaultView(0, 5)), [0, 5]);
	assert.deepEqual(plain(page.defaultView(9, 9)), [0, 9], 'nothing after the first allocation');
});

test('text with numbers sorts as the numbers read', () => {
	const runs = ['bs_2_16.json', 'bs_2_4.json', 'bs_2_8.json', 'bs_16_4.json'];
	assert.deepEqual(plain(runs.slice().sort(page.natural)), ['bs_2_4.json', 'bs_2_8.json', 'bs_2_16.json', 'bs_16_4.json']);
	assert.deepEqual(plain(['sessions=16', 'sessions=4', 'sessions=8'].sort(page.natural)), ['sessions=4', 'sessions=8', 'sessions=16']);
});

test('a budget reads in the axis unit, exactly as given', () => {
	const GiB = 1024 ** 3;
	const given = Math.floor(0.9 * GiB); // --budget 0.9GiB, a fraction of a byte dropped
	assert.equal(page.byteUnit(20.5 * GiB), 3);
	assert.equal(page.sizeIn(given, 3), '0.9 GiB');
	assert.equal(page.sizeIn(given, 2), '921.6 MiB');
	assert.equal(page.sizeIn(20 * GiB, 3), '20 GiB');
	assert.equal(page.sizeIn(900 * 1024 ** 2, 3), '0.87890625 GiB');
});

test('labels keep off lines', () => {
	const box = {x0: 10, x1: 50, y0: 10, y1: 20};
	assert.equal(page.crosses(0, 15, 100, 15, box), true, 'a gridline through it');
	assert.equal(page.crosses(30, 0, 30, 100, box), true, 'a peak line through it');
	assert.equal(page.crosses(0, 25, 100, 25, box), false, 'a line below it');
	assert.equal(page.crosses(0, 0, 5, 30, box), false, 'a line beside it');
	const place = page.labelPlacer(200);
	place.avoid(0, 16, 200, 16);
	const label = place('budget 0.9 GiB', [{x: 10, y: 20}, {x: 10, y: 12}]);
	assert.equal(label.attributes.y, 12, 'the place above the line');
	place.avoidPoints(['0,40', '200,40']);
	assert.equal(place('peak', [{x: 10, y: 45}]), null, 'no place off the line: left out');
	assert.ok(place('peak', [{x: 10, y: 45}], {}, undefined, {keep: true}), 'or kept where it overlaps no label');
});

test('the peak flame graph adds up to the peak when a row holds several tags', () => {
	// flame.js beside common.js, as the page loads them.
	const element = () => ({attributes: {}, setAttribute() {}, append() {}});
	const text = ['common.js', 'flame.js'].map(f => fs.readFileSync(new URL(f, html), 'utf8')).join('\n');
	const flame = vm.runInNewContext(text + '\n;({remainders, peakFlame})',
		{document: {createElement: element, createElementNS: element}});
	const MiB = 1024 ** 2;
	// mixed_tags.c: one line run under tags a to d (10 MiB, listed under d,
	// its latest), and 5 MiB tagged a; a listing of that one row.
	const owner = {peak: {bytes: 15 * MiB}, stack_groups: [{id: 1, tag: 'd', at_peak_bytes: 10 * MiB}],
		tags: [{tag: 'a', at_peak_bytes: 6 * MiB}, {tag: 'd', at_peak_bytes: 4 * MiB},
			{tag: 'c', at_peak_bytes: 3 * MiB}, {tag: 'b', at_peak_bytes: 2 * MiB}]};
	assert.deepEqual(plain(flame.remainders(owner)), [{tag: null, bytes: 5 * MiB}], 'one block under no tag');
	const input = flame.peakFlame(owner);
	assert.equal(input.stacks.reduce((s, x) => s + x.bytes, 0) + input.rest.reduce((s, x) => s + x.bytes, 0),
		15 * MiB, 'the root is the peak');
	// Rows each within their tag: the remainders stay per tag.
	const plainOwner = {peak: {bytes: 15 * MiB}, stack_groups: [{id: 1, tag: 'a', at_peak_bytes: 5 * MiB}],
		tags: [{tag: 'a', at_peak_bytes: 6 * MiB}, {tag: 'b', at_peak_bytes: 9 * MiB}]};
	assert.deepEqual(plain(flame.remainders(plainOwner)), [{tag: 'a', bytes: MiB}, {tag: 'b', bytes: 9 * MiB}]);
});

// The fit page said "none found" for a peak that does not grow with the
// variable even when every value fit the budget.
test('a flat peak fits at any value or at none', () => {
	const text = fs.readFileSync(new URL('common.js', html), 'utf8') + fs.readFileSync(new URL('fit.js', html), 'utf8');
	const noLargest = vm.runInNewContext(text + '\n;noLargest', {document: {}});
	const flat = peak => ({key: 'batch', bytes_per_unit: 0, peak_bytes: null, flat_peak_bytes: peak});
	assert.equal(noLargest(flat(1000), 1024), 'any value (the peak does not grow with batch; predicted 1000 B)');
	assert.equal(noLargest(flat(1000), 999), 'none (the peak does not grow with batch; predicted 1000 B, over the budget)');
	assert.equal(noLargest({key: 'batch', bytes_per_unit: 0, peak_bytes: null, flat_peak_bytes: null}, 999), 'none (the peak does not grow with batch)');
	assert.equal(noLargest({key: 'batch', bytes_per_unit: 4096, peak_bytes: null}, 999), 'none (not even 1 fits)');
});

// A frame whose file came without a line was named "file:null" (text: "file:0").
test('a frame with a file and no line is named by its file alone', () => {
	const text = ['common.js', 'stacks.js'].map(f => fs.readFileSync(new URL(f, html), 'utf8')).join('\n');
	const frameLabel = vm.runInNewContext(text + '\n;frameLabel', {document: {}});
	assert.equal(frameLabel({function: 'load', file: '/src/serve.c', line: null}), 'load (serve.c)');
	assert.equal(frameLabel({function: 'load', file: '/src/serve.c', line: 41}), 'load (serve.c:41)');
	assert.equal(frameLabel({function: 'cudaMalloc', module: '/usr/lib/libcudart.so.13', file: null, line: null}),
		'cudaMalloc (libcudart.so.13)');
});

// A shrink to under a hundredth read ×0.00, as if nothing were left.
test('a diff ratio under a hundredth keeps a significant digit', () => {
	// diff.js draws its page as it loads: the function alone is taken.
	const page = fs.readFileSync(new URL('diff.js', html), 'utf8');
	const ratioText = vm.runInNewContext(page.match(/function ratioText[\s\S]*?\n}\n/)[0] + ';ratioText');
	assert.equal(ratioText(2), '\u00d72.00');
	assert.equal(ratioText(0.5), '\u00d70.50');
	assert.equal(ratioText(0.0098), '\u00d70.0098');
	assert.equal(ratioText(1 / 1024), '\u00d71e-03');
	assert.equal(ratioText(1000 / 19637144576), '\u00d75e-08');
	assert.equal(ratioText(0), '\u00d70.00');
});

// The fit page's headline read "for dtype=bf16, at dtype=NaN": a group's
// text label was shown again as a number.
test('the largest fit names its group once and the numbers held', () => {
	const element = () => ({attributes: {}, setAttribute() {}, append() {}});
	const text = fs.readFileSync(new URL('common.js', html), 'utf8') + fs.readFileSync(new URL('fit.js', html), 'utf8');
	const largestText = vm.runInNewContext(text + '\n;largestText', {document: {createElement: element}});
	const fit = context => ({groups: [{name: 'dtype=bf16', variables: [{name: 'batch', low: 2, high: 8}]}],
		largest_fit: {key: 'batch', value: 6, peak_bytes: 900, budget_bytes: 1024, headroom_bytes: 0,
			bytes_per_unit: 10, group: 'dtype=bf16', extrapolated: false, uncertainty_bytes: 0,
			labels: Object.assign({dtype: 'bf16', batch: 6}, context ? {context: 4096} : {})}});
	assert.match(largestText(fit(false))[0].textContent, /for dtype=bf16: batch=6,/);
	assert.match(largestText(fit(true))[0].textContent, /for dtype=bf16, at context=4096: batch=6,/);
	assert.doesNotMatch(largestText(fit(true))[0].textContent, /NaN/);
});

test('a size that rounds up to 1024 of a unit is 1.00 of the next', () => {
	assert.equal(page.human(1048570), '1023.99 KiB');
	assert.equal(page.human(1048575), '1.00 MiB');
	assert.equal(page.human(-1048575), '-1.00 MiB');
	assert.equal(page.human(GiB - 1), '1.00 GiB');
	assert.equal(page.human(1023), '1023 B');
});

test('a fitted cost below a KiB is said as fit\'s text says it', () => {
	assert.equal(page.coefficient(0.0038147), '0.00381 B');
	assert.equal(page.coefficient(12.345), '12.3 B');
	assert.equal(page.coefficient(1023.5), '1023.5 B');
	assert.equal(page.coefficient(-1023.5), '-1023.5 B');
	assert.equal(page.coefficient(1023.97), '1.00 KiB');
	assert.equal(page.coefficient(512), '512 B');
	assert.equal(page.coefficient(67108864), '64.00 MiB');
});
