"""The pages' tables and charts read true in a real browser (Chromium
through Selenium): a long tag and a long function name leave the numbers
of every table in view at 1400 px, the whole names on hover; columns of
times and of uncertainties sort by the value, not by the text ("950 us"
after "3.3 ms"); the fit's largest fit carries the uncertainty its
headline states. Screenshots are kept in OUT.
Usage: html_readable.py TOOL FIXTURES OUT. Exits 77 without Selenium or
chromedriver."""
import json
import os
import subprocess
import sys
import time

try:
    from selenium import webdriver
    from selenium.webdriver.common.by import By
except ImportError:
    print("python3-selenium is not installed: skipped")
    sys.exit(77)

tool, fixtures, out = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(out, exist_ok=True)
failures = []


def check(condition, what):
    print(("ok    " if condition else "FAIL  ") + what)
    if not condition:
        failures.append(what)


def browser():
    options = webdriver.ChromeOptions()
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--window-size=1400,1200",
                 "--disable-dev-shm-usage"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    try:
        return webdriver.Chrome(options=options)
    except Exception as error:  # no chromedriver, or it cannot start
        print(f"chromedriver cannot start ({error.__class__.__name__}): skipped")
        sys.exit(77)


def render(args, name):
    page = os.path.join(out, name + ".html")
    subprocess.run([tool, *args, "--format", "html", "-o", page], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return page


def load(driver, page, name):
    driver.get("file://" + page)
    driver.find_element(By.CSS_SELECTOR, ".vt-page")
    time.sleep(0.3)  # the charts draw at the first frame
    errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    check(not errors, f"{name}: no console error {errors[:2]}")
    driver.save_screenshot(os.path.join(out, name + ".png"))


def sorted_column(driver, caption_or_header, column, clicks):
    """The texts of a column after clicks on its header, in the table whose
    caption starts with caption_or_header or that has such a header."""
    return driver.execute_script("""
const [want, column, clicks] = arguments;
const table = [...document.querySelectorAll('table.sortable')].find(t =>
    (t.caption && t.caption.textContent.startsWith(want)) || [...t.querySelectorAll('th')].some(h => h.textContent === want));
const th = table.querySelectorAll('th')[column];
for (let i = 0; i < clicks; i++) th.click();
return [...table.querySelectorAll('tbody tr')].map(tr => tr.cells[column].innerText);""",
                                 caption_or_header, column, clicks)


LONG_TAG = "model.decoder.layers.31.self_attention.key_value_cache.paged_blocks.bfloat16.shard_0_of_8"
LONG_FUNCTION = ("allocate_the_key_value_cache_of_every_transformer_decoder_layer_in_the_serving_engine"
                 "_with_paged_blocks_of_sixteen_tokens")


def long_names_page(driver):
    """llm_bf16 with its KV cache tagged by a 88-character name and
    allocated by a 100-character function: at 1400 px every table of the
    report shows its last column inside its box (no sideways scroll to
    reach a number), each name whole on hover."""
    report = json.load(open(os.path.join(fixtures, "llm_bf16.json")))
    text = json.dumps(report).replace('"kv_cache"', json.dumps(LONG_TAG))
    report = json.loads(text)
    for entry in report["stack_frames"]:
        for frame in entry["frames"]:
            if frame.get("line") == 176 and frame.get("function") == "main":
                frame["function"] = LONG_FUNCTION
    path = os.path.join(out, "long-names.json")
    json.dump(report, open(path, "w"))
    page = render(["report", path], "long-names")
    load(driver, page, "long-names")
    hidden = driver.execute_script("""
const bad = [];
for (const box of document.querySelectorAll('section.owner .table-box')) {
    const table = box.querySelector('table');
    if (box.scrollWidth > box.clientWidth + 1 || box.getBoundingClientRect().right > document.documentElement.clientWidth)
        bad.push((table.caption ? table.caption.textContent : table.querySelector('th').textContent) +
            ' ' + box.scrollWidth + '>' + box.clientWidth);
}
return bad;""")
    check(not hidden, f"long names: every table's numbers in view at 1400 px {hidden}")
    titles = driver.execute_script(
        "return [...document.querySelectorAll('section.owner td [title]')].map(e => e.getAttribute('title'))")
    check(any(t == LONG_TAG for t in titles) and any(LONG_FUNCTION in t for t in titles),
          "long names: the whole tag and function on hover")
    places = sorted_column(driver, "by place", 3, 0)
    check(places == ["13.04 GiB", "4.00 GiB", "1.00 GiB", "256.00 MiB"],
          f"long names: the place table's bytes at the peak ({places})")


def failures_sorted_page(driver):
    """Failures at 950 us, 2.95 ms and 3.3 ms: sorted by when, in time's
    order either way, each time on one line."""
    report = json.load(open(os.path.join(fixtures, "llm_bf16.json")))
    device = report["devices"][0]
    failure = {"bytes": 100 << 30, "kind": "device", "error": 2, "error_name": "cudaErrorMemoryAllocation",
               "api": "cudaMalloc", "driver_api": "cuMemAlloc_v2", "live_bytes": 0, "tag": "workspace", "stack": 6}
    device["failures"] = [dict(failure, at_ns=t) for t in (2_950_000, 950_000, 3_300_000)]
    device["failed_allocations"] = 3
    report["tracer"].update({"failures_total": 3, "failures_kept": 3, "events": report["tracer"]["events"] + 3})
    path = os.path.join(out, "failures-times.json")
    json.dump(report, open(path, "w"))
    page = render(["report", path], "failures-times")
    load(driver, page, "failures-times")
    down = sorted_column(driver, "when", 3, 1)
    up = sorted_column(driver, "when", 3, 1)
    check(down == ["3.3 ms", "2.95 ms", "950 \u00b5s"] and up == ["950 \u00b5s", "2.95 ms", "3.3 ms"],
          f"failures: sorted by when in time's order ({down}, {up})")
    lines = driver.execute_script("""
const t = [...document.querySelectorAll('table.sortable')].find(t => [...t.querySelectorAll('th')].some(h => h.textContent === 'when'));
return [...t.querySelectorAll('tbody tr')].map(tr => {
    const range = document.createRange();
    range.selectNodeContents(tr.cells[3]);
    return new Set([...range.getClientRects()].map(r => Math.round(r.top))).size;
});""")
    check(lines == [1, 1, 1], f"failures: each time on one line ({lines})")


def fit_page(driver):
    """Runs at batch 2, 4 and 8, predictions at 12, 32 and 100 and the largest
    fit of 80 GiB: the predictions' uncertainties (GiB and MiB) sort by
    their bytes; the largest fit's point has the bar of the uncertainty
    its headline states, on the chart's scale."""
    base = json.load(open(os.path.join(fixtures, "llm_batch8.json")))
    runs = []
    for batch in (2, 4, 8):
        report = json.loads(json.dumps(base))
        report["run"]["labels"] = {"batch": str(batch)}
        report["run"]["pid"] = 1000 + batch
        device = report["devices"][0]
        extra = batch * (128 << 20)
        device["peak"]["bytes"] += extra
        weights = next(t for t in device["tags"] if t["tag"] == "weights")
        weights["at_peak_bytes"] += extra
        weights["peak_bytes"] += extra
        runs.append(os.path.join(out, f"readable-batch{batch}.json"))
        json.dump(report, open(runs[-1], "w"))
    page = render(["fit", *runs, "--budget", "80GiB", "--headroom", "10%", "--solve", "batch",
                   "--predict", "batch=12", "--predict", "batch=32", "--predict", "batch=100"], "fit-readable")
    load(driver, page, "fit-readable")
    data = json.loads(subprocess.run([tool, "fit", *runs, "--budget", "80GiB", "--headroom", "10%", "--solve", "batch",
                                      "--predict", "batch=12", "--predict", "batch=32", "--predict", "batch=100",
                                      "--format", "json"], check=True, capture_output=True, text=True).stdout)
    by_bytes = sorted(data["predictions"], key=lambda p: p["uncertainty_bytes"])
    want = [f"batch={p['labels']['batch']:g}" for p in reversed(by_bytes)]
    got = [row.split("\t")[0] for row in driver.execute_script("""
const t = [...document.querySelectorAll('table.sortable')].find(t => t.caption && t.caption.textContent === 'predictions');
const th = [...t.querySelectorAll('th')].find(h => h.textContent === 'uncertainty');
th.click();
return [...t.querySelectorAll('tbody tr')].map(tr => tr.cells[0].innerText);""")]
    check(len({p["uncertainty_bytes"] >= 1 << 30 for p in data["predictions"]}) == 2 and got == want,
          f"fit: uncertainties sort by their bytes ({got}, want {want})")
    largest = data["largest_fit"]
    bar = driver.execute_script("""
const chart = document.querySelector('figure svg');
const dot = chart.querySelector('circle.fit-largest');
const cx = +dot.getAttribute('cx');
const bar = [...chart.querySelectorAll('line.fit-bar')].find(l => Math.abs(+l.getAttribute('x1') - cx) < 0.01);
const zero = [...chart.querySelectorAll('.axis text')].find(t => t.textContent === '0 GiB');
return bar ? [+dot.getAttribute('cy'), +bar.getAttribute('y1'), +bar.getAttribute('y2'), +zero.getAttribute('y') - 4] : null;""")
    if bar:
        cy, y1, y2, base = bar
        per_byte = (base - cy) / largest["peak_bytes"]
        u = largest["uncertainty_bytes"]
        check(abs((y1 - y2) - 2 * u * per_byte) < 1 and abs((y1 + y2) / 2 - cy) < 1,
              f"fit: the largest fit's bar spans its uncertainty ({bar}, \u00b1{u} bytes)")
    else:
        check(False, "fit: the largest fit's point has an uncertainty bar")


driver = browser()
try:
    long_names_page(driver)
    failures_sorted_page(driver)
    fit_page(driver)
finally:
    driver.quit()
print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
