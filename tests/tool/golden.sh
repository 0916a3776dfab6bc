#!/bin/sh
# Golden-file tests of every output of vramtrace report, diff and merge on
# the fixtures in tests/fixtures. Run from anywhere; "--update" rewrites
# the golden files after a deliberate change (review the diff).
set -eu
tool=$(realpath "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
update=${2:-}
cd "$root"
golden=tests/golden
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failed=0
checked=0

# without_page_code: a page with its inlined style and script left out, so
# the golden pages hold what a report puts in a page (its structure and
# data) and tools/html/ stays the one copy of the page's code.
without_page_code() {
	sed -e '/^<style>$/,/^<\/style>$/c\
<style>(tools/html/page.css)</style>' \
		-e '/^<script>$/,/^<\/script><\/head><body>$/c\
<script>(tools/html/*.js)</script></head><body>'
}

# compare NAME COMMAND...: the command's stdout must equal golden/NAME.
compare() {
	name=$1
	shift
	case $name in
	*.html) NO_COLOR=1 "$@" | without_page_code >"$scratch/$name" ;;
	*) NO_COLOR=1 "$@" >"$scratch/$name" ;;
	esac
	if [ "$update" = "--update" ]; then
		cp "$scratch/$name" "$golden/$name"
	elif ! cmp -s "$scratch/$name" "$golden/$name"; then
		echo "FAIL $name differs from $golden/$name:"
		diff -u "$golden/$name" "$scratch/$name" | head -20
		failed=$((failed + 1))
	fi
	checked=$((checked + 1))
}

for fixture in minimal llm_bf16; do
	for format in text json folded trace html; do
		compare "$fixture.$format" "$tool" report "tests/fixtures/$fixture.json" \
			--format "$format"
	done
done
compare minimal.device0.text "$tool" report tests/fixtures/minimal.json --device 0 --top 1
for format in text markdown json; do
	compare "diff.minimal.$format" "$tool" diff tests/fixtures/minimal.json \
		tests/fixtures/minimal_b.json --min-delta 0 --format "$format"
	compare "diff.batch.$format" "$tool" diff tests/fixtures/llm_batch8.json \
		tests/fixtures/llm_batch16.json --format "$format"
	compare "diff.batch.hidden.$format" "$tool" diff tests/fixtures/llm_batch8.json \
		tests/fixtures/llm_batch16.json --format "$format" --min-delta 1MiB
done
compare diff.dtype.text "$tool" diff tests/fixtures/llm_bf16.json tests/fixtures/llm_fp32.json \
	--by device,tag
"$tool" merge tests/fixtures/rank0.json tests/fixtures/rank1.json tests/fixtures/rank2.json \
	tests/fixtures/rank3.json -o "$scratch/ranks.merged"
compare merged.json cat "$scratch/ranks.merged"
compare merged.text "$tool" report "$scratch/ranks.merged"
compare merged.folded "$tool" report "$scratch/ranks.merged" --format folded
echo "$checked golden files compared, $failed differ"
[ "$failed" -eq 0 ]
