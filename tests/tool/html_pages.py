"""The HTML pages in a real browser (Chromium through Selenium): each page
loads without a console error and fetches nothing; the report's timeline
tooltip gives the row's numbers, its ticks are round, a drag zooms and
re-ticks it, a click at the peak lists the stacks live then; the flame
graph zooms by keyboard, search finds frames, tables sort by keyboard,
plumbing frames hide and show; the diff page states the peak change, the
fit page its formulas, prediction and largest fit; hostile strings in
labels, commands, tags and function names leave every page drawn; empty
and host-only reports say so; pages fit 800 px; a report of 32,768 stacks
renders, shows all rows and sorts in time. Screenshots are kept in OUT.
Usage: html_pages.py TOOL FIXTURES OUT [BIG_REPORT]. Exits 77 without
Selenium or chromedriver."""
import json
import os
import re
import subprocess
import sys
import time

try:
    from selenium import webdriver
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
except ImportError:
    print("python3-selenium is not installed: skipped")
    sys.exit(77)

tool, fixtures, out = sys.argv[1], sys.argv[2], sys.argv[3]
big = sys.argv[4] if len(sys.argv) > 4 else None
os.makedirs(out, exist_ok=True)
failures = []


def check(condition, what):
    print(("ok    " if condition else "FAIL  ") + what)
    if not condition:
        failures.append(what)


def vramtrace(*args):
    subprocess.run([tool, *args], check=True, stdout=subprocess.DEVNULL)


def browser():
    options = webdriver.ChromeOptions()
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--window-size=1200,1600",
                 "--disable-dev-shm-usage"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    try:
        return webdriver.Chrome(options=options)
    except Exception as error:  # no chromedriver, or it cannot start
        print(f"chromedriver cannot start ({error.__class__.__name__}): skipped")
        sys.exit(77)


OVERLAP = """
const bad = [];
for (const chart of document.querySelectorAll('svg:not(.flame)')) {
    const boxes = [...chart.querySelectorAll('text')].map(t => [t.textContent, t.getBoundingClientRect()])
        .filter(([, b]) => b.width > 0);
    for (let i = 0; i < boxes.length; i++)
        for (let j = i + 1; j < boxes.length; j++) {
            const [ta, a] = boxes[i], [tb, b] = boxes[j];
            if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1)
                bad.push(ta + ' / ' + tb);
        }
}
return bad;"""


CROSSING = """
const bad = [];
const crosses = (x1, y1, x2, y2, b) => {
    let t0 = 0, t1 = 1;
    const dx = x2 - x1, dy = y2 - y1;
    for (const [p, q] of [[-dx, x1 - b.x0], [dx, b.x1 - x1], [-dy, y1 - b.y0], [dy, b.y1 - y1]]) {
        if (p === 0) { if (q < 0) return false; continue; }
        const r = q / p;
        if (p < 0) { if (r > t1) return false; if (r > t0) t0 = r; } else { if (r < t0) return false; if (r < t1) t1 = r; }
    }
    return t0 <= t1;
};
for (const chart of document.querySelectorAll('svg:not(.flame)')) {
    const origin = chart.getBoundingClientRect();
    const segments = [];
    for (const l of chart.querySelectorAll('line.grid, line.peak-line, line.budget-line, line.capacity-line'))
        segments.push([l.getAttribute('class'), +l.getAttribute('x1'), +l.getAttribute('y1'), +l.getAttribute('x2'), +l.getAttribute('y2')]);
    for (const p of chart.querySelectorAll('polyline')) {
        const xy = p.getAttribute('points').split(' ').map(q => q.split(',').map(Number));
        for (let i = 1; i < xy.length; i++) segments.push([p.getAttribute('class') || 'polyline', ...xy[i - 1], ...xy[i]]);
    }
    for (const t of chart.querySelectorAll('text.peak-label, text.budget-label, text.capacity-label, text.note-label, text.failure-label')) {
        const r = t.getBoundingClientRect();
        const b = {x0: r.left - origin.left + 1, x1: r.right - origin.left - 1, y0: r.top - origin.top + 1, y1: r.bottom - origin.top - 1};
        for (const s of segments) if (crosses(s[1], s[2], s[3], s[4], b)) { bad.push(t.textContent + ' / ' + s[0]); break; }
    }
}
return bad;"""


def no_overlap(driver, name):
    bad = driver.execute_script(OVERLAP)
    check(not bad, f"{name}: no chart text overprints another {bad[:3]}")
    bad = driver.execute_script(CROSSING)
    check(not bad, f"{name}: no line crosses a chart's label {bad[:3]}")


def load(driver, page, name):
    started = time.monotonic()
    driver.get("file://" + page)
    driver.find_element(By.CSS_SELECTOR, ".vt-page")
    elapsed = time.monotonic() - started
    time.sleep(0.3)  # the charts draw at the first frame, at the window's width
    errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    check(not errors, f"{name}: no console error {errors[:2]}")
    source = open(page, encoding="utf-8").read()
    check("http://" not in source and "https://" not in source, f"{name}: nothing fetched")
    no_overlap(driver, name)
    driver.save_screenshot(os.path.join(out, name + ".png"))
    return elapsed


LEFT, RIGHT = 72, 12  # the timeline's margins (tools/html/timeline.js)


def chart_x(driver, chart, t, end=None):
    """The offset from the chart's centre of time t (ns) in the view shown."""
    width = float(chart.get_attribute("width"))
    return int(driver.execute_script("return arguments[0].__x(arguments[1])", chart, t) - width / 2)


def run_end(device):
    rows, timeline = device["timeline"]["rows"], device["timeline"]
    end = timeline.get("end_ns", 0)
    return end if end > rows[-1]["t_ns"] else rows[-1]["t_ns"] + timeline["interval_ns"]


def axis_ticks(chart):
    return [t.text for t in chart.find_elements(By.CSS_SELECTOR, ".axis text")]


def round_ticks(labels, unit_words):
    """Every tick a round number (1, 2 or 5 times a power of ten apart)."""
    values = []
    for label in labels:
        number, _, unit = label.partition(" ")
        if unit not in unit_words:
            continue
        values.append(float(number))
    steps = {round(b - a, 9) for a, b in zip(values, values[1:])}
    if len(steps) != 1:
        return False
    step = steps.pop()
    mantissa = step / 10 ** __import__("math").floor(__import__("math").log10(step))
    return round(mantissa, 6) in (1, 2, 5)


def report_page(driver):
    page = os.path.join(out, "report.html")
    vramtrace("report", os.path.join(fixtures, "llm_bf16.json"), "--format", "html",
              "--budget", "20GiB", "-o", page)
    load(driver, page, "report")
    report = json.load(open(os.path.join(fixtures, "llm_bf16.json")))
    device = report["devices"][0]
    text = driver.find_element(By.TAG_NAME, "body").text
    check("peak 18.29 GiB (19637144576 bytes)" in text, "report: the device peak")
    check("host (pinned memory)" in text and "host memory (pinned)" in driver.page_source,
          "report: the host section, its axis saying host")
    check("budget 20 GiB" in driver.page_source, "report: the budget line, in the axis' unit as given")
    check("cudaMalloc (runtime_memory.c" not in text and "__libc_start_main" not in text,
          "report: plumbing frames hidden in the tables")
    # Nothing is allocated in the first 1.781 ms of 3.32: the first view
    # starts just before the first allocation, which the status says.
    rows = device["timeline"]["rows"]
    chart = driver.find_element(By.CSS_SELECTOR, ".timeline svg")
    plot = float(chart.get_attribute("width")) - LEFT - RIGHT
    first = driver.execute_script("return arguments[0].__x(arguments[1])", chart, rows[0]["t_ns"])
    status = driver.find_element(By.CSS_SELECTOR, ".timeline .controls .note").text
    check(LEFT < first < LEFT + 0.03 * plot and status.startswith("before 1.781 ms nothing was allocated: showing from 1.75"),
          f"timeline: the first view starts just before the first allocation (x {first:.1f}; {status!r})")
    # Hover the timeline at the peak's row: the tooltip gives its numbers.
    peak_row = max(range(len(rows)), key=lambda i: rows[i]["live_bytes"])
    end = run_end(device)
    chart = driver.find_element(By.CSS_SELECTOR, ".timeline svg")
    middle = (rows[peak_row]["t_ns"] + (rows[peak_row + 1]["t_ns"] if peak_row + 1 < len(rows)
                                        else end)) / 2
    ActionChains(driver).move_to_element_with_offset(chart, chart_x(driver, chart, middle, end), 0).perform()
    tooltip = driver.find_element(By.CSS_SELECTOR, ".tooltip").text
    check("total 18.29 GiB at the highest" in tooltip, f"report: tooltip total ({tooltip!r})")
    check("weights 13.04 GiB" in tooltip, "report: tooltip split by tag")
    ActionChains(driver).click().perform()
    outline = driver.execute_script(
        "const c = document.activeElement; return [c.matches('svg.tl'), getComputedStyle(c).outlineStyle]")
    check(outline == [True, "none"], f"timeline: a click focuses the chart without a ring ({outline})")
    ticks = axis_ticks(chart)
    check(round_ticks(ticks, ("GiB",)) and round_ticks(ticks, ("ms",)),
          f"timeline: round ticks ({ticks})")
    # A click at the peak's moment lists the stacks live then, exact bytes.
    ActionChains(driver).move_to_element_with_offset(
        chart, chart_x(driver, chart, device["peak"]["at_ns"], end), 0).click().perform()
    moment = driver.find_element(By.CSS_SELECTOR, ".moment").text
    # One row per place: the two stacks of load_weights' line (13562500000
    # and 437500000 bytes) are one row of 14000000000.
    check("14000000000" in moment and "13562500000" not in moment and "4294967296" in moment
          and "stacks live at the peak" in moment,
          f"timeline: a click at the peak lists its stacks, one row per place ({moment[:240]!r})")
    # A drag zooms: the status names the range and the axis is re-ticked.
    before = axis_ticks(chart)
    a, b = rows[2]["t_ns"], rows[6]["t_ns"]
    ActionChains(driver).move_to_element_with_offset(chart, chart_x(driver, chart, a, end), 0) \
        .click_and_hold().move_by_offset(chart_x(driver, chart, b, end) - chart_x(driver, chart, a, end), 0) \
        .release().perform()
    status = driver.find_element(By.CSS_SELECTOR, ".timeline .controls .note").text
    after = axis_ticks(chart)
    check(status.startswith("showing ") and after != before and round_ticks(after, ("ms", "\u00b5s")),
          f"timeline: a drag zooms and re-ticks ({status!r}, {after})")
    driver.find_element(By.CSS_SELECTOR, ".timeline .controls button[aria-label='show the whole run']").click()
    status = driver.find_element(By.CSS_SELECTOR, ".timeline .controls .note").text
    whole = driver.execute_script("return arguments[0].__x(arguments[1])", chart, rows[0]["t_ns"])
    driver.find_element(By.CSS_SELECTOR, ".timeline .controls button[aria-label='back to the first view']").click()
    status = driver.find_element(By.CSS_SELECTOR, ".timeline .controls .note").text
    check(whole > LEFT + 0.5 * plot and status.startswith("before 1.781 ms nothing was allocated"),
          f"timeline: the whole run a click away (the first allocation at x {whole:.1f}), then the first view ({status!r})")
    # Click a frame of the flame graph: it zooms to the full width.
    flame = driver.find_element(By.CSS_SELECTOR, "section.owner > .flame-box svg.flame")
    full = float(flame.get_attribute("width"))
    width = lambda name: driver.execute_script(
        "for (const r of arguments[0].querySelectorAll('rect'))"
        " if (r.__node && r.__node.name === arguments[1]) return +r.getAttribute('width');"
        " return -1;", flame, name)
    check(width("[kv_cache]") < full * 0.9, "flame: kv_cache narrower than the page before the zoom")
    target = driver.execute_script(
        "for (const r of arguments[0].querySelectorAll('rect'))"
        " if (r.__node && r.__node.name === '[kv_cache]') return r;", flame)
    target.send_keys("\n")
    check(width("[kv_cache]") == full, "flame: Enter on kv_cache zooms it to the full width")
    search = driver.find_element(By.CSS_SELECTOR, "section.owner > .flame-box .controls input")
    search.send_keys("llm_serving.c:176")
    found = driver.find_element(By.CSS_SELECTOR, "section.owner > .flame-box .controls .note").text
    check("matches hold 4.00 GiB (21.9% of the peak)" in found, f"flame: search ({found!r})")
    # Sort the tag table by bytes at the peak, by keyboard, smallest first.
    table = driver.find_elements(By.CSS_SELECTOR, "section.owner > .table-box table.sortable")[0]
    header = table.find_elements(By.TAG_NAME, "th")[1]
    header.send_keys("\n")
    header.send_keys(" ")
    first = table.find_element(By.CSS_SELECTOR, "tbody tr td").text
    check(first == "workspace", f"tables: sorted ascending by keyboard ({first!r})")
    focusable = driver.execute_script(
        "return [...document.querySelectorAll('th, button, input, svg.tl')].every(e => e.tabIndex >= 0)")
    check(focusable, "keyboard: every header, button, input and chart takes focus")
    driver.find_element(By.CSS_SELECTOR, ".vt-page > .controls input[type=checkbox]").click()
    text = driver.find_element(By.TAG_NAME, "body").text
    check("cudaMalloc (runtime_memory.c" in text, "report: plumbing frames shown on request")
    driver.save_screenshot(os.path.join(out, "report-interacted.png"))


def narrow(driver, page, name):
    """At 800 px: no horizontal scroll, the charts inside the window."""
    driver.set_window_size(800, 1200)
    driver.get("file://" + page)
    time.sleep(0.3)
    widths = driver.execute_script(
        "return [document.documentElement.scrollWidth, document.documentElement.clientWidth,"
        " Math.max(0, ...[...document.querySelectorAll('svg')].map(s => s.getBoundingClientRect().right))]")
    check(widths[0] <= widths[1] and widths[2] <= widths[1], f"{name}: fits 800 px ({widths})")
    no_overlap(driver, name + " at 800 px")
    driver.save_screenshot(os.path.join(out, name + "-800.png"))
    driver.set_window_size(1200, 1600)


def diff_page(driver):
    page = os.path.join(out, "diff.html")
    vramtrace("diff", os.path.join(fixtures, "llm_bf16.json"),
              os.path.join(fixtures, "llm_fp32.json"), "--format", "html", "-o", page)
    load(driver, page, "diff")
    text = driver.find_element(By.TAG_NAME, "body").text
    check("device 0: peak 18.29 GiB \u2192 36.33 GiB (+18.04 GiB, +98.6%, \u00d71.99)" in text,
          "diff: the headline states the peak change")
    source = driver.page_source
    check("A 13.04 GiB" in source and "B 26.08 GiB" in source, "diff: weights, A against B")
    check("+13.04 GiB +100.0%" in source, "diff: the bars' signed delta")
    check("run=bf16" in text and "run=fp32" in text, "diff: both runs' labels")
    check("A peak 18.29 GiB" in source and "B peak 36.33 GiB" in source, "diff: both peaks marked")
    rows = driver.find_elements(By.CSS_SELECTOR, "table.sortable tbody tr")
    check(rows and "llm_serving.c:164" in rows[0].text and "+13.04 GiB" in rows[0].text,
          "diff: the stack that grew most first, its growth signed")
    # Both runs' timelines from just before the first allocation of either;
    # a drag zooms, the whole run a click away.
    chart = driver.find_element(By.CSS_SELECTOR, ".timeline svg.tl")
    status = driver.find_element(By.CSS_SELECTOR, ".timeline .controls .note").text
    check(status.startswith("before 1.781 ms nothing was allocated"), f"diff: the first view ({status!r})")
    ActionChains(driver).move_to_element_with_offset(chart, chart_x(driver, chart, 2.0e6), 0) \
        .click_and_hold().move_by_offset(chart_x(driver, chart, 2.5e6) - chart_x(driver, chart, 2.0e6), 0) \
        .release().perform()
    status = driver.find_element(By.CSS_SELECTOR, ".timeline .controls .note").text
    ticks = axis_ticks(chart)
    check(status.startswith("showing 2") and round_ticks(ticks, ("ms", "\u00b5s")) and "2.5 ms" in ticks,
          f"diff: a drag zooms the timeline and re-ticks it ({status!r}, {ticks})")
    driver.find_element(By.CSS_SELECTOR, ".timeline .controls button[aria-label='show the whole run']").click()
    status = driver.find_element(By.CSS_SELECTOR, ".timeline .controls .note").text
    check(status.startswith("the whole run, 5."), f"diff: the whole run ({status!r})")
    narrow(driver, page, "diff")


def diff_timeline_page(driver):
    """A run that freed everything 10 ms before it ended ends at 0 on the
    diff's timeline, in the hover too; with two devices, each run and
    device has a colour of its own, named in the legend."""
    a = json.load(open(os.path.join(fixtures, "llm_bf16.json")))
    timeline = a["devices"][0]["timeline"]
    last = timeline["rows"][-1]
    last.update({"max_bytes": last["live_bytes"], "min_bytes": 0, "end_bytes": 0})
    timeline["end_ns"] = last["t_ns"] + 10_000_000
    a_path = os.path.join(out, "freed.json")
    json.dump(a, open(a_path, "w"))
    page = os.path.join(out, "diff-freed.html")
    vramtrace("diff", a_path, os.path.join(fixtures, "llm_fp32.json"), "--format", "html", "-o", page)
    load(driver, page, "diff-freed")
    chart = driver.find_element(By.CSS_SELECTOR, ".timeline svg.tl")
    driver.find_element(By.CSS_SELECTOR, ".timeline .controls button[aria-label='show the whole run']").click()
    tail = last["t_ns"] + 5_000_000
    ActionChains(driver).move_to_element_with_offset(chart, chart_x(driver, chart, tail), 0).perform()
    tooltip = driver.find_element(By.CSS_SELECTOR, ".tooltip").text
    ends = driver.execute_script(
        "return [...arguments[0].querySelectorAll('polyline.run-line')].map(p => p.getAttribute('points').split(' ').pop())", chart)
    baseline = f"{272 - 38:.1f}"  # the timeline's height less its bottom margin
    check("A device 0: 0 B" in tooltip and ends[0] == f"{float(chart.get_attribute('width')) - RIGHT:.1f},{baseline}",
          f"diff: A ends at 0 B after it freed all ({tooltip!r}, line ends {ends})")
    for report in (a, json.load(open(os.path.join(fixtures, "llm_fp32.json")))):
        second = json.loads(json.dumps(report["devices"][0]))
        second["ordinal"] = 1
        report["devices"].append(second)
    # B's device 1 grows more than its device 0: the diff ranks it first.
    extra = 4 << 30
    second["peak"]["bytes"] += extra
    weights = next(t for t in second["tags"] if t["tag"] == "weights")
    weights["at_peak_bytes"] += extra
    weights["peak_bytes"] += extra
    pair = []
    for name, report in (("two_a", a), ("two_b", report)):
        pair.append(os.path.join(out, name + ".json"))
        json.dump(report, open(pair[-1], "w"))
    page = os.path.join(out, "diff-two.html")
    vramtrace("diff", *pair, "--format", "html", "-o", page)
    load(driver, page, "diff-two")
    strokes = driver.execute_script(
        "return [...document.querySelectorAll('.timeline polyline.run-line')].map(p => [p.getAttribute('stroke'), p.getAttribute('stroke-dasharray')])")
    legend = [e.text for e in driver.find_elements(By.CSS_SELECTOR, ".timeline .legend > span")]
    check(len({stroke for stroke, _ in strokes}) == 4 and [dash for _, dash in strokes] == ["", "6 3", "", "6 3"]
          and legend == ["A device 0", "B device 0", "A device 1", "B device 1"],
          f"diff: two devices, four colours, B dashed ({strokes}, {legend!r})")
    headlines = [e.text.split(":")[0] for e in driver.find_elements(By.CSS_SELECTOR, "p.headline")]
    check(headlines == ["device 0", "device 1"], f"diff: the headlines in the devices' order ({headlines})")


def fit_page(driver):
    """The batch fixtures, labelled with their batch as a number."""
    runs = []
    for batch in (8, 16):
        report = json.load(open(os.path.join(fixtures, f"llm_batch{batch}.json")))
        report["run"]["labels"] = {"batch": str(batch)}
        runs.append(os.path.join(out, f"batch{batch}.json"))
        json.dump(report, open(runs[-1], "w"))
    page = os.path.join(out, "fit.html")
    subprocess.run([tool, "fit", *runs, "--budget", "80GiB", "--headroom", "10%", "--solve", "batch",
                    "--predict", "batch=32", "--format", "html", "-o", page], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    load(driver, page, "fit")
    text = driver.find_element(By.TAG_NAME, "body").text
    check("activations = 128.00 MiB \u00d7 batch" in text and "peak = 18.79 GiB" in text,
          "fit: the formulas in the runs' terms")
    check("batch=32" in text and "18.79 GiB" in text and "\u00b1 3.00 GiB" in text
          and "extrapolated" in text, "fit: the prediction, its uncertainty, the warning")
    check("-512.00 MiB" in text and "+512.00 MiB" in text, "fit: residuals per run")
    check("the largest batch that fits 80.00 GiB with 8.00 GiB kept free" in text,
          "fit: the largest fit stated")
    charts = driver.find_elements(By.CSS_SELECTOR, "figure svg")
    check(len(charts) == 5 and "peak against batch" in text, "fit: the peak and four tags charted")
    ticks = axis_ticks(charts[0])
    whole = [t for t in ticks if " " not in t and t != "batch"]
    check(whole and all(t.isdigit() for t in whole), f"fit: whole-number batch ticks ({whole})")
    narrow(driver, page, "fit")


def fit_order_page(driver):
    """Nine runs of batch and sessions 2, 4, 16 and 4, 8, 16: rows and
    legend in the numbers' order (bs_2_4 before bs_2_16, sessions=4
    before 16); the largest fit names the other variable as held."""
    base = json.load(open(os.path.join(fixtures, "llm_batch8.json")))
    runs = []
    for b in (16, 2, 4):
        for s in (16, 4, 8):
            report = json.loads(json.dumps(base))
            report["run"]["labels"] = {"batch": str(b), "sessions": str(s)}
            report["run"]["pid"] = 1000 + b * 100 + s
            device = report["devices"][0]
            extra = b * (128 << 20) + s * (512 << 20)
            device["peak"]["bytes"] += extra
            weights = next(t for t in device["tags"] if t["tag"] == "weights")
            weights["at_peak_bytes"] += extra
            weights["peak_bytes"] += extra
            runs.append(os.path.join(out, f"bs_{b}_{s}.json"))
            json.dump(report, open(runs[-1], "w"))
    page = os.path.join(out, "fit-order.html")
    subprocess.run([tool, "fit", *runs, "--budget", "80GiB", "--solve", "batch", "--predict", "batch=4,sessions=8",
                    "--format", "html", "-o", page], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    load(driver, page, "fit-order")
    residuals = driver.execute_script(
        "const t = [...document.querySelectorAll('table.sortable')].find(t => t.caption.textContent.startsWith('residuals'));"
        " return [...t.querySelectorAll('tbody tr')].map(r => r.cells[0].textContent);")
    legend = driver.execute_script(
        "return [...document.querySelector('figure .legend').children].slice(2).map(s => s.textContent)")
    headline = driver.find_element(By.CSS_SELECTOR, "p.headline").text
    check(residuals == [f"bs_{b}_{s}.json" for b in (2, 4, 16) for s in (4, 8, 16)]
          and legend == ["fitted at sessions=4", "fitted at sessions=8", "fitted at sessions=16"]
          and "(80.00 GiB usable), at sessions=8: batch=" in headline,
          f"fit: runs and lines in the numbers' order, the held variable named ({residuals}, {legend}, {headline!r})")
    warning = driver.find_element(By.CSS_SELECTOR, "p.extrapolated").text
    largest = re.search(r"batch=(\d+), peak ([\d.]+ GiB) \u00b1 ([\d.]+ GiB)", headline)
    check(largest and warning.startswith(f"\u26a0 extrapolated: batch={largest.group(1)} is "
                                         f"{int(largest.group(1)) - 16} above the measured 2 to 16 (")
          and f"\u00d7 the largest measured): the fit says little of it; its peak there is "
              f"{largest.group(2)} \u00b1 {largest.group(3)}" in warning,
          f"fit: the largest fit's uncertainty and how far beyond the runs it lies ({warning!r})")
    table = driver.execute_script(
        "const t = [...document.querySelectorAll('table.sortable')].find(t => t.caption.textContent.startsWith('residuals'));"
        " const h = t.querySelector('th'); h.click(); h.click();"
        " return [...t.querySelectorAll('tbody tr')].slice(0, 3).map(r => r.cells[0].textContent);")
    check(table == ["bs_2_4.json", "bs_2_8.json", "bs_2_16.json"], f"fit: a click sorts the runs as numbers ({table})")


HOSTILE = "<!--<script>x</script><img src=q onerror=\"window.pwned=1\">&amp;\u2028end"


def rename(value, old, new):
    if isinstance(value, dict):
        return {(new if k == old else k): rename(v, old, new) for k, v in value.items()}
    if isinstance(value, list):
        return [rename(v, old, new) for v in value]
    return new if value == old else value


def hostile_pages(driver):
    """Strings that end a script element early or open a comment in it, in
    labels, the command, a tag and a function name: every page still draws
    and shows them as text."""
    report = json.load(open(os.path.join(fixtures, "llm_bf16.json")))
    report = rename(report, "weights", "w" + HOSTILE)
    report = rename(report, "main", "main" + HOSTILE)
    # fit keeps 63 bytes of a label's name: this one is shorter.
    numeric = "<!--<script>b</script>"
    report["run"]["labels"] = {"k" + HOSTILE: "v" + HOSTILE, numeric: "8"}
    report["run"]["command"].append(HOSTILE)
    path = os.path.join(out, "hostile.json")
    json.dump(report, open(path, "w"))
    other = json.load(open(os.path.join(fixtures, "llm_batch16.json")))
    other["run"]["labels"] = {"k" + HOSTILE: "v" + HOSTILE, numeric: "16"}
    other_path = os.path.join(out, "hostile16.json")
    json.dump(other, open(other_path, "w"))
    pages = {"hostile-report": ["report", path, "--format", "html"],
             "hostile-diff": ["diff", path, os.path.join(fixtures, "llm_fp32.json"), "--format", "html"],
             "hostile-fit": ["fit", path, other_path, "--format", "html"]}
    for name, args in pages.items():
        page = os.path.join(out, name + ".html")
        subprocess.run([tool, *args, "-o", page], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        load(driver, page, name)
        text = driver.find_element(By.TAG_NAME, "body").text
        drawn = driver.execute_script("return document.querySelectorAll('.vt-page svg').length")
        check(drawn > 0 and HOSTILE.split("\u2028")[0] in text,
              f"{name}: drawn, the hostile string shown as text ({drawn} charts)")
        check(driver.execute_script("return window.pwned === undefined && !document.querySelector('img')"),
              f"{name}: nothing of it ran")


def empty_pages(driver):
    """A report with no allocation says so; a host-only one says that."""
    report = json.load(open(os.path.join(fixtures, "minimal.json")))
    empty = json.loads(json.dumps(report["host"]))
    empty.update({k: report["devices"][0][k] for k in ("ordinal", "name", "pci_bus_id", "capacity_bytes")})
    report["devices"] = [empty]
    report["stack_frames"] = []
    path = os.path.join(out, "empty.json")
    json.dump(report, open(path, "w"))
    page = os.path.join(out, "empty.html")
    vramtrace("report", path, "--format", "html", "-o", page)
    load(driver, page, "empty")
    text = driver.find_element(By.TAG_NAME, "body").text
    check("no GPU memory was allocated in this run" in text and "peak 0 B" not in text,
          f"empty: says what happened ({text[-120:]!r})")
    host = json.load(open(os.path.join(fixtures, "llm_bf16.json")))
    report["host"] = host["host"]
    report["stack_frames"] = host["stack_frames"]
    json.dump(report, open(path, "w"))
    vramtrace("report", path, "--format", "html", "-o", page)
    load(driver, page, "host-only")
    text = driver.find_element(By.TAG_NAME, "body").text
    check("pinned host memory only" in text and "peak 64.00 MiB" in text, "host-only: says so, shows the host")


def big_page(driver):
    page = os.path.join(out, "big.html")
    vramtrace("report", big, "--format", "html", "--top", "100000", "-o", page)
    size = os.path.getsize(page)
    # The better of two loads: the first also pays the browser's cold start,
    # and a machine busy with other work adds seconds to either.
    elapsed = min(load(driver, page, "big"), load(driver, page, "big"))
    listed = driver.find_elements(By.CSS_SELECTOR, "table.sortable")[2]
    check("show all 32,768 rows" in listed.text, "big: every stack listed, the first 200 shown")
    compact_table(driver, listed)
    started = time.monotonic()
    target = driver.execute_script(
        "for (const r of document.querySelectorAll('svg.flame rect'))"
        " if (r.__node && r.__node.kind === 'native') return r;")
    driver.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))",
                          target)
    zoom = time.monotonic() - started
    # Show all rows, then sort them by where: each within a second; the
    # table scrolls to its last row.
    show = driver.execute_script(
        "const b = arguments[0].querySelector('button'); const t = performance.now(); b.click();"
        " document.body.offsetHeight; return performance.now() - t;", listed)
    last = json.load(open(big))["devices"][0]["stacks"][-1]["id"]
    driver.execute_script("const box = arguments[0].parentNode; box.scrollTop = box.scrollHeight;", listed)
    time.sleep(0.3)
    bottom = driver.execute_script(
        "const r = arguments[0].querySelectorAll('tbody tr:not(.spacer)'); return r[r.length - 1].cells[0].textContent;",
        listed)
    check(bottom == str(last), f"big: scrolled to the end, the last stack ({bottom} against {last})")
    sort = driver.execute_script(
        "const h = arguments[0].querySelectorAll('th')[1]; const t = performance.now(); h.click();"
        " document.body.offsetHeight; return performance.now() - t;", listed)
    print(f"big: {size} bytes, rendered in {elapsed:.2f} s, a zoom in {zoom:.2f} s, "
          f"all rows shown in {show:.0f} ms, sorted by where in {sort:.0f} ms")
    # The figure above is the measurement (a page of this size renders in
    # about 1.3 s on a quiet machine); the check only catches a page that
    # has become pathologically slow, whatever else the machine is doing.
    check(elapsed < 20, "big: renders within 20 s")
    check(show < 1000 and sort < 1000, "big: all rows shown and sorted within 1 s")
    # A diff of 4,096 against 32,768 stacks: the stacks that changed most,
    # the rest summed, in a page of a few MB.
    page = os.path.join(out, "big-diff.html")
    vramtrace("diff", os.path.join(out, "top20.json"), big, "--format", "html", "-o", page)
    size = os.path.getsize(page)
    load(driver, page, "big-diff")
    footer = driver.find_element(By.CSS_SELECTOR, "tfoot").text
    rows = len(json.load(open(big))["devices"][0]["stacks"])
    print(f"big-diff: {size} bytes")
    check(size < 3 << 20 and f"{rows + 20 - 1000:,} more stacks that changed less" in footer,
          f"big-diff: {size} bytes, the rest summed ({footer!r})")


PAGE_DATA = re.compile(r'<script type="application/json" class="vt-data">(.*?)</script>', re.S)


def page_data(page):
    return json.loads(PAGE_DATA.search(open(page, encoding="utf-8").read()).group(1))


def compact_table(driver, table):
    """32,768 rows of one line each (the whole stack on hover or a click),
    in a box of their own as wide as the table: the flame graph follows
    within two screens. Rows whose brief views read the same say where
    they part from the row most like them, and they do part there."""
    heights, box, window, flame = driver.execute_script(
        "const t = arguments[0], b = t.parentNode.getBoundingClientRect();"
        " return [[...t.querySelectorAll('tbody tr')].slice(0, 200).map(r => r.getBoundingClientRect().height),"
        " [b.width, b.height, t.getBoundingClientRect().width, t.parentNode.parentNode.clientWidth], window.innerHeight,"
        " document.querySelector('section.owner > .flame-box').getBoundingClientRect().top + window.scrollY]", table)
    check(len(heights) == 200 and max(heights) <= 26 and box[1] <= 0.7 * window + 1
          and abs(box[0] - min(box[2], box[3])) <= 20 and flame < 2 * window,
          f"big: one line a row ({max(heights)} px), the table in a box of {box}, the flame graph at {flame:.0f} px")
    data = page_data(os.path.join(out, "big.html"))["report"]
    frames = data["frames"]
    shown = {entry["id"]: [frames[i] if isinstance(i, int) else i for i in entry["frames"]]
             for entry in data["stack_frames"]}
    label = lambda f: f"{f['function']} ({os.path.basename(f['file'])}:{f['line']})"
    shown = {k: [label(f) for f in v if not f.get("plumbing")] for k, v in shown.items()}
    cells = driver.execute_script(
        "return [...arguments[0].querySelectorAll('tbody tr')].slice(0, 20).map(r => [+r.cells[0].textContent,"
        " (r.cells[1].querySelector('.twin') || {}).textContent || ''])", table)
    groups = {g["rank"]: g["id"] for g in data["devices"][0]["stack_groups"]}
    bad = []
    for rank, note in cells:
        match = re.fullmatch(r"\[parts at frame (\d+): (.*); ([\d,]+) rows read alike\]", note)
        own = shown[groups[rank]]
        k = int(match.group(1)) - 1 if match else -1
        twin = match and any(other != own and other[:k] == own[:k] for other in shown.values())
        if not (match and own[k] == match.group(2) and twin):
            bad.append((rank, note))
    check(not bad, f"big: rows that read alike say where they part ({cells[:2]}; wrong: {bad[:2]})")


def top_page(driver):
    """--top 20: the page holds 20 rows and the stacks it names (the rows',
    the moments'), the rest counted; a moment's flame graph still has its
    frames."""
    page = os.path.join(out, "big-top20.html")
    vramtrace("report", big, "--format", "html", "--top", "20", "-o", page)
    size = os.path.getsize(page)
    load(driver, page, "big-top20")
    data = page_data(page)["report"]
    device = data["devices"][0]
    named = {g["id"] for g in device["stack_groups"]} | {
        s["stack"] for row in device["timeline"]["rows"] for s in row.get("top_stacks") or []}
    held = {entry["id"] for entry in data["stack_frames"]}
    footer = driver.find_element(By.CSS_SELECTOR, "tfoot").text
    rows = len(json.load(open(big))["devices"][0]["stacks"])
    check(size < 600 << 10 and len(device["stack_groups"]) == 20 and held == named
          and {s["id"] for s in device["stacks"]} == named and "leaks" not in device
          and f"{rows - 20:,} more stacks, not listed" in footer,
          f"top: {size} bytes, 20 rows, the {len(named)} stacks named ({len(held)} held), the rest counted ({footer!r})")
    driver.find_element(By.CSS_SELECTOR, ".timeline svg.tl").send_keys("\n")
    time.sleep(0.3)
    # Cells of 4 KiB in 128 MiB are too thin to draw: count the tree's.
    leaves = driver.execute_script(
        "const leaves = [], visit = n => { if (!n.children.size) leaves.push(n.kind); n.children.forEach(visit); };"
        " visit(document.querySelector('.moment svg.flame rect').__node); return leaves;")
    check(leaves.count("native") == 20 and leaves.count("rest") == 1,
          f"top: the peak moment's flame graph draws its 20 stacks' frames, the rest as one block ({leaves[:4]})")


PEAK_CLICK = """
const chart = document.querySelector('.timeline svg.tl'), bounds = chart.getBoundingClientRect();
const line = +chart.querySelector('.peak-line').getAttribute('x1');
const x = bounds.left + line + arguments[0], y = bounds.top + 100;
for (const type of ['pointerdown', 'pointerup'])
    document.elementFromPoint(x, y).dispatchEvent(new PointerEvent(type, {clientX: x, clientY: y, button: 0, bubbles: true, pointerId: 1}));
return document.querySelector('.moment h4').textContent;"""


def peak_click_page(driver):
    """The peak's mark is a target 8 px wide: a click within 4 px of its
    line pins the peak's moment, though the peak comes 50 ns after its
    interval starts (a hundredth of a pixel); 6 px off, the interval
    before."""
    report = json.load(open(os.path.join(fixtures, "llm_bf16.json")))
    device = report["devices"][0]
    rows = device["timeline"]["rows"]
    at = max(i for i in range(len(rows)) if rows[i]["t_ns"] <= device["peak"]["at_ns"])
    device["peak"]["at_ns"] = rows[at]["t_ns"] + 50
    path = os.path.join(out, "peak-edge.json")
    json.dump(report, open(path, "w"))
    page = os.path.join(out, "peak-edge.html")
    vramtrace("report", path, "--format", "html", "-o", page)
    driver.set_window_size(1400, 1600)
    load(driver, page, "peak-click")
    heading = lambda i: driver.execute_script("document.querySelector('.timeline').__pin(arguments[0]);"
                                              " return document.querySelector('.moment h4').textContent", i)
    peak, before = heading(at), heading(at - 1)
    hits = {dx: driver.execute_script(PEAK_CLICK, dx) for dx in (-4, -1, 0, 1, 4, -6)}
    check(all(hits[dx] == peak for dx in (-4, -1, 0, 1, 4)) and hits[-6] == before != peak,
          f"peak: a click within 4 px of the peak's line pins the peak ({peak!r}; {hits})")
    driver.set_window_size(1200, 1600)

def failures_report(count, spacing_ns):
    """llm_bf16 with count failed allocations spacing_ns apart after the
    peak, each by the call at llm_serving.c:196 while the weights (line
    164) and the KV cache (line 176) were live."""
    report = json.load(open(os.path.join(fixtures, "llm_bf16.json")))
    device = report["devices"][0]
    names = ["cudaErrorMemoryAllocation", "cudaErrorInvalidValue"]
    device["failures"] = [{
        "bytes": 100 << 30, "kind": "device", "error": 2 if i % 2 == 0 else 1, "error_name": names[i % 2],
        "api": "cudaMalloc", "driver_api": "cuMemAlloc_v2", "at_ns": device["peak"]["at_ns"] + 100_000 + i * spacing_ns,
        "live_bytes": 17857467296, "tag": "workspace", "stack": 6,
        "snapshot": {"live_by_tag": {"weights": 13562500000, "kv_cache": 4294967296},
                     "top_stacks": [{"stack": 2, "bytes": 13562500000}, {"stack": 4, "bytes": 4294967296}]}}
        for i in range(count)]
    device["failed_allocations"] = count
    report["tracer"].update({"failures_total": count, "failures_kept": count,
                             "events": report["tracer"]["events"] + count})
    path = os.path.join(out, f"failures{count}.json")
    json.dump(report, open(path, "w"))
    return path


def failures_page(driver):
    """A failed allocation's row: its call's own stack in "where", and in
    "what was live" its snapshot's stacks (never the failing call's)."""
    page = os.path.join(out, "failures1.html")
    vramtrace("report", failures_report(1, 0), "--format", "html", "-o", page)
    load(driver, page, "failures1")
    cells = driver.execute_script(
        "const t = [...document.querySelectorAll('table.sortable')].find(t => [...t.querySelectorAll('th')]"
        ".some(h => h.textContent.startsWith('what was live')));"
        " return [...t.querySelector('tbody tr').cells].slice(5).map(c => c.innerText);")
    live = re.sub(r"\s+", " ", cells[1]) if cells else ""
    check(cells and cells[0] == "main (llm_serving.c:196)" and "llm_serving.c:196" not in live
          and live == "weights 12.63 GiB, kv_cache 4.00 GiB 12.63 GiB main (llm_serving.c:164) 4.00 GiB main (llm_serving.c:176)",
          f"failures: the call's stack, then what was live ({cells})")


def failure_cluster_page(driver):
    """Five failures 20 us apart, a few pixels apart on the chart: one
    label beside the first mark saying "+4 more failures", its hover
    listing each with its error name, and every mark drawn."""
    page = os.path.join(out, "failures5.html")
    vramtrace("report", failures_report(5, 20_000), "--format", "html", "-o", page)
    load(driver, page, "failures5")
    marks, labels = driver.execute_script(
        "const c = document.querySelector('.timeline svg.tl');"
        " return [[...c.querySelectorAll('.failure-mark')].map(m => +m.getAttribute('d').slice(1).split(',')[0]),"
        " [...c.querySelectorAll('.failure-label')].map(l => [l.firstChild.textContent, +l.getAttribute('x'),"
        " l.getAttribute('text-anchor'), l.querySelector('title').textContent])]")
    names = ["cudaErrorMemoryAllocation", "cudaErrorInvalidValue"] * 3
    beside = labels and (labels[0][1] == marks[0] + 6 or (labels[0][2] == "end" and labels[0][1] == marks[0] - 6))
    listed = labels and labels[0][3].split("\n")
    check(len(marks) == 5 and len(labels) == 1 and labels[0][0] == "\u2715 cudaErrorMemoryAllocation +4 more failures"
          and beside and len(listed) == 5 and all(line.endswith(", " + names[i]) and "cudaMalloc of 100.00 GiB" in line
                                                 for i, line in enumerate(listed)),
          f"failures: one label for the cluster beside its first mark, its hover listing all ({marks}, {labels})")
    chart = driver.find_element(By.CSS_SELECTOR, ".timeline svg.tl")
    width = float(chart.get_attribute("width"))
    ActionChains(driver).move_to_element_with_offset(chart, int(marks[2] - width / 2), 0).perform()
    tooltip = driver.find_element(By.CSS_SELECTOR, ".tooltip").text
    check("\u2715 failed at 2.542 ms: cudaMalloc of 100.00 GiB, cudaErrorMemoryAllocation" in tooltip,
          f"failures: the hover at a mark names the failures there ({tooltip!r})")


def remainder_page(driver):
    """20 stacks of 4,096 kept: the table and the flame graph show the other
    4,076 as one remainder, so both add up to the peak."""
    source = os.path.join(out, "top20.json")
    report = json.load(open(source))
    device = report["devices"][0]
    listed = sum(s["at_peak_bytes"] for s in device["stacks"])
    rest = device["peak"]["bytes"] - listed
    page = os.path.join(out, "top20.html")
    vramtrace("report", source, "--format", "html", "-o", page)
    load(driver, page, "top20")
    more = report["tracer"]["distinct_stacks"] - len(device["stacks"])
    footer = driver.find_element(By.CSS_SELECTOR, "tfoot").text
    check(more == 4076 and f"{more:,} more stacks, not listed" in footer,
          f"top20: the table's remainder row ({footer!r})")
    values = driver.execute_script(
        "const v = {}; for (const r of document.querySelectorAll('svg.flame rect'))"
        " v[r.__node.name] = r.__node.value; return v;")
    check(values.get("all of the peak") == device["peak"]["bytes"]
          and values.get(f"[{more:,} more stacks, not listed]") == rest,
          f"top20: the flame graph's root is the peak, the remainder {rest} bytes")


ROWS = """
const table = [...document.querySelectorAll('section.owner > .table-box table.sortable')]
    .find(t => (t.caption || {}).textContent.startsWith('by place'));
return [...table.querySelectorAll('tbody tr')].map(tr => [...tr.cells].map(td => td.innerText));"""


def places_page(driver):
    """A function inlined into main, and two calls on one line: the table
    has one row per place, the inline chain named with its caller, the
    whole stack a click away; the flame graph has the inlined function as
    a cell of its own under main, and the line's two stacks as one cell;
    rows and flame add up to the peak. At 1400 and 800 px."""
    lines = dict(item.split("=") for item in
                 open(os.path.join(out, "inlined.lines")).read().split()[1:])
    weights, call, pair = lines["weights_line"], lines["call_line"], lines["pair_line"]
    source = os.path.join(out, "inlined.json")
    report = json.load(open(source))
    peak = report["devices"][0]["peak"]["bytes"]
    page = os.path.join(out, "places.html")
    vramtrace("report", source, "--format", "html", "-o", page)
    driver.set_window_size(1400, 1600)
    load(driver, page, "places-1400")
    rows = driver.execute_script(ROWS)
    check(rows == [["1", f"load_weights (inlined.c:{weights}) inlined in main (inlined.c:{call})",
                    "untagged", "64.00 MiB", "64.00 MiB", "1", "1"],
                   ["2", f"main (inlined.c:{pair})", "untagged", "8.00 MiB", "8.00 MiB", "2", "2"]],
          f"places: one row per place, the inline chain with its caller ({rows})")
    data = json.loads(driver.execute_script(
        "return document.querySelector('script.vt-data').textContent"))
    listed = sum(g["at_peak_bytes"] for g in data["report"]["devices"][0]["stack_groups"])
    check(peak == 75497472 and listed == peak and not driver.find_elements(By.CSS_SELECTOR, "tfoot"),
          f"places: the rows add up to the peak ({listed} of {peak}), no remainder")
    cells = driver.execute_script(
        "const v = {}; for (const r of document.querySelectorAll('svg.flame rect'))"
        " v[r.__node.name] = [r.__node.value, r.classList.contains('inlined'),"
        " r.__node.parent ? r.__node.parent.name : null]; return v;")
    check(cells.get(f"load_weights (inlined.c:{weights}) [inlined]")
          == [64 << 20, True, f"main (inlined.c:{call})"]
          and cells.get(f"main (inlined.c:{pair})") == [8 << 20, False, "[untagged]"]
          and cells.get("all of the peak", [0])[0] == peak,
          f"places: the flame graph's inlined cell under its caller, one cell for the line ({cells})")
    ring = driver.execute_script(
        "const r = document.querySelector('section.owner > .flame-box svg.flame rect.inlined'); r.focus();"
        " const s = getComputedStyle(r); return [r.matches(':focus-visible'), s.stroke, s.strokeWidth, s.strokeDasharray];")
    focus = driver.execute_script("return getComputedStyle(document.documentElement).getPropertyValue('--focus').trim()")
    legend = driver.execute_script(
        "return [...document.querySelectorAll('section.owner > .flame-box .legend .swatch.dashed')].map(s => s.parentNode.textContent)")
    check(ring[0] and ring[2] == "3px" and ring[3] == "none" and focus.lower() == "#1a5fb4"
          and ring[1] == "rgb(26, 95, 180)" and legend == ["inlined function (dashed border)"],
          f"places: an inlined cell takes the focus ring, the legend names the dashed border ({ring}, {legend})")
    driver.execute_script(
        "const rows = [...document.querySelectorAll('table.sortable')].find(t => (t.caption || {})"
        ".textContent.startsWith('by place')).querySelectorAll('tbody tr');"
        "rows[0].querySelector('summary').click();")
    time.sleep(0.2)
    whole = driver.execute_script(
        "const d = document.querySelector('details.where[open] ol.stack');"
        " return d ? [...d.children].map(li => li.textContent) : null;")
    frames = next(s for s in report["stack_frames"] if s["id"] == 1)["frames"]
    lead = whole.index(f"\u2190 load_weights (inlined.c:{weights})") if whole else -1
    check(whole and len(whole) == len(frames) and lead > 0
          and whole[lead + 1] == f"inlined in main (inlined.c:{call})"
          and whole[0].endswith("[plumbing]"),
          f"places: a click shows the whole stack, every frame ({whole})")
    driver.save_screenshot(os.path.join(out, "places-1400-open.png"))
    driver.set_window_size(1200, 1600)
    narrow(driver, page, "places")



MOMENT_FLAME = """
const flame = document.querySelector('.moment svg.flame');
if (!flame) return null;
return [...flame.querySelectorAll('rect')].map(r => [r.__node.name, r.__node.value, r.__node.kind]);"""


def moment_flame_page(driver):
    """A pinned moment's flame graph draws its stacks with their frames:
    the root names the moment, every listed stack's frames under its tag,
    "[other stacks]" only for what the stacks leave out; in a report whose
    rows hold no stacks, the peak's moment draws the peak's stacks."""
    page = os.path.join(out, "places.html")
    lines = dict(item.split("=") for item in
                 open(os.path.join(out, "inlined.lines")).read().split()[1:])
    vramtrace("report", os.path.join(out, "inlined.json"), "--format", "html", "-o", page)
    load(driver, page, "moment-flame")
    device = json.load(open(os.path.join(out, "inlined.json")))["devices"][0]
    rows = device["timeline"]["rows"]
    # The first interval holding two stacks (which one depends on timing).
    pick = next(i for i, row in enumerate(rows) if len(row["top_stacks"]) >= 2)
    row = rows[pick]
    driver.execute_script("document.querySelector('.timeline').__pin(arguments[0])", pick)
    time.sleep(0.3)  # the flame graph draws at the next frame
    cells = driver.execute_script(MOMENT_FLAME)
    names = {name: value for name, value, _ in cells or []}
    at = f"{round(row['t_ns'] / 1e6, 3):g} ms"
    weights = f"load_weights (inlined.c:{lines['weights_line']}) [inlined]"
    check(cells and cells[0][:2] == [f"at {at}: {row['max_bytes'] / 2**20:.2f} MiB", row["max_bytes"]]
          and names.get(weights) == 64 << 20 and names.get("[untagged]") == row["max_bytes"]
          and names.get(f"main (inlined.c:{lines['pair_line']})") == row["max_bytes"] - (64 << 20)
          and not any(name.startswith("[other stacks") for name in names),
          f"moment flame: an interval's stacks with their frames ({cells})")
    page = os.path.join(out, "report.html")
    load(driver, page, "moment-flame-peak")
    report = json.load(open(os.path.join(fixtures, "llm_bf16.json")))
    device = report["devices"][0]
    rows = device["timeline"]["rows"]
    peak_row = max(i for i in range(len(rows)) if rows[i]["t_ns"] <= device["peak"]["at_ns"])
    driver.execute_script("document.querySelector('.timeline').__pin(arguments[0])", peak_row)
    time.sleep(0.3)
    cells = driver.execute_script(MOMENT_FLAME)
    names = {name: value for name, value, _ in cells or []}
    check(cells and cells[0][:2] == ["at 2.402 ms: 18.29 GiB", 19637144576]
          and names.get("[weights]") == 14000000000
          and all(name.startswith("main (llm_serving.c:") for name, _, kind in cells if kind == "native")
          and sum(1 for _, _, kind in cells if kind == "native") == 4
          and not any(name.startswith("[other stacks") for name in names),
          f"moment flame: the peak's moment, its stacks' frames ({cells and cells[:6]})")


def python_library_page(driver):
    """A Python program allocating through a library: the where column leads
    with the program's own line and names what it passed through."""
    report = json.load(open(os.path.join(fixtures, "llm_bf16.json")))
    site = "/usr/lib/python3/dist-packages/numba/cuda/cudadrv/driver.py"
    python = [{"function": "safe_cuda_api_call", "file": site, "line": 319},
              {"function": "memalloc.<locals>.allocator", "file": site, "line": 1051},
              {"function": "load_weights", "file": "/home/me/alloc.py", "line": 5},
              {"function": "<module>", "file": "/home/me/alloc.py", "line": 9}]
    for frame in python:
        frame.update({"python": True, "module": None, "offset": 0})
    stack = report["stack_frames"][1]
    stack["frames"] = stack["frames"][:1] + python + stack["frames"][1:]
    path = os.path.join(out, "python.json")
    json.dump(report, open(path, "w"))
    page = os.path.join(out, "python.html")
    vramtrace("report", path, "--format", "html", "-o", page)
    load(driver, page, "python")
    where = driver.execute_script(
        "for (const row of document.querySelectorAll('section.owner > .table-box table.sortable tbody tr'))"
        " if (row.cells.length > 2 && row.cells[1].innerText.includes('alloc.py')) return row.cells[1].innerText;")
    check(where and where.startswith("load_weights (alloc.py:5)") and "via numba, 2 frames" in where,
          f"python: the program's own line first, the library folded ({where!r})")


def themes(driver):
    """Under a dark colour-scheme preference the page is dark; text, muted
    notes and signed deltas keep a contrast of 4.5 or more in both."""
    page = os.path.join(out, "diff.html")
    contrast = """
const rgb = c => c.match(/[0-9.]+/g).slice(0, 3).map(Number).map(v => v / 255)
    .map(v => v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4));
const lum = c => { const [r, g, b] = rgb(c); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
const bg = getComputedStyle(document.body).backgroundColor;
const worst = {};
for (const sel of ['body', '.note', '.grew', 'caption', 'th']) {
    const e = document.querySelector(sel);
    if (e) worst[sel] = ratio(getComputedStyle(e).color, sel === 'th' ? getComputedStyle(e).backgroundColor : bg);
}
return [lum(bg), worst];"""
    for scheme in ("light", "dark"):
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                               {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
        driver.get("file://" + page)
        background, ratios = driver.execute_script(contrast)
        dark = background < 0.1
        check(dark == (scheme == "dark") and all(r >= 4.5 for r in ratios.values()),
              f"{scheme}: background {'dark' if dark else 'light'}, contrast {ratios}")
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})


driver = browser()
try:
    report_page(driver)
    narrow(driver, os.path.join(out, "report.html"), "report")
    diff_page(driver)
    diff_timeline_page(driver)
    fit_page(driver)
    fit_order_page(driver)
    hostile_pages(driver)
    empty_pages(driver)
    remainder_page(driver)
    places_page(driver)
    moment_flame_page(driver)
    failures_page(driver)
    failure_cluster_page(driver)
    peak_click_page(driver)
    python_library_page(driver)
    themes(driver)
    if big:
        big_page(driver)
        top_page(driver)
finally:
    driver.quit()
print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
