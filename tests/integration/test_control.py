"""The control endpoint of a running traced process, end to end on the
simulated device: vramtrace ps, snapshot (and --reset-peak), top --once,
metrics (parsed as OpenMetrics), the watermark, other users refused,
hostile clients, and no socket left behind after any ending.

Each case runs tests/integration/programs/control_target under
`vramtrace run --simulate`, with a private XDG_RUNTIME_DIR so that other
traced processes on the machine are never seen."""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

TOOL = os.environ["VT_TEST_TOOL"]
TARGET = os.path.join(os.environ["VT_TEST_PROGRAMS"], "control_target")
MiB = 1 << 20


class Target:
    """control_target under vramtrace run, driven a step at a time."""

    def __init__(self, runtime_dir, extra_env=None, known=()):
        self.dir = tempfile.mkdtemp(prefix="vt-control-")
        env = dict(os.environ, XDG_RUNTIME_DIR=runtime_dir, VRAMTRACE_SUMMARY="0",
                   VRAMTRACE_OUTPUT=os.path.join(self.dir, "report.json"))
        env.update(extra_env or {})
        self.process = subprocess.Popen(
            [TOOL, "run", "--simulate", "--", TARGET], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True, cwd=self.dir)
        assert self.process.stdout.readline() == "ready\n"
        self.pid = traced_pids(runtime_dir, known)[0]

    def step(self, line):
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        return self.process.stdout.readline()

    def finish(self, code=0):
        self.process.stdin.write(f"exit {code}\n")
        self.process.stdin.close()
        out = self.process.stdout.read()
        err = self.process.stderr.read()
        status = self.process.wait(timeout=60)
        return status, out, err

    def report(self):
        with open(os.path.join(self.dir, "report.json")) as f:
            return json.load(f)

    def close(self):
        # SIGTERM, which vramtrace run forwards, and SIGCONT for a stopped
        # target, as a shell's kill does: SIGKILL would leave the target
        # running without its wrapper, and the wrapper's report list.
        if self.process.poll() is None:
            self.process.terminate()
            try:
                os.kill(self.pid, signal.SIGCONT)
            except ProcessLookupError:
                pass
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def documented_metric_families():
    """{family: type} from the table of docs/cli.md's metrics section."""
    docs = os.path.join(os.environ["VT_TEST_FIXTURES"], "..", "..", "docs", "cli.md")
    with open(docs, encoding="utf-8") as f:
        text = f.read().split("## `vramtrace metrics")[1].split("\n## ")[0]
    return {m.group(1): m.group(2)
            for m in re.finditer(r"^\| `(vramtrace_\w+)`[^|]* \| (\w+) \|", text, re.M)}


def socket_dir(runtime_dir):
    return os.path.join(runtime_dir, "vramtrace")


def traced_pids(runtime_dir, known=(), wait_s=60):
    """The pids with a socket other than those known, once there is one."""
    deadline = time.time() + wait_s
    while time.time() < deadline:
        try:
            names = os.listdir(socket_dir(runtime_dir))
        except FileNotFoundError:
            names = []
        pids = sorted(int(n[:-5]) for n in names if n.endswith(".sock")
                      and int(n[:-5]) not in known)
        if pids:
            return pids
        time.sleep(0.02)
    raise AssertionError("no control socket appeared")


def tool(runtime_dir, *args, check=True):
    result = subprocess.run([TOOL, *args], capture_output=True, text=True, timeout=60,
                            env=dict(os.environ, XDG_RUNTIME_DIR=runtime_dir))
    if check and result.returncode != 0:
        raise AssertionError(f"vramtrace {' '.join(args)}: {result.returncode}\n{result.stderr}")
    return result


def snapshot(runtime_dir, pid, *extra):
    return json.loads(tool(runtime_dir, "snapshot", str(pid), *extra).stdout)


def device0(report):
    return report["devices"][0]


def tag_live(device):
    return {t["tag"]: t["live_at_exit_bytes"] for t in device["tags"] if t["live_at_exit_bytes"]}


def ask(runtime_dir, pid, payload, read=True):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(os.path.join(socket_dir(runtime_dir), f"{pid}.sock"))
    try:
        s.sendall(payload)
    except (BrokenPipeError, ConnectionResetError):
        return b""  # refused: the endpoint closed the connection
    data = b""
    while read:
        chunk = s.recv(1 << 16)
        if not chunk:
            break
        data += chunk
    s.close()
    return data


class TargetsTestCase(unittest.TestCase):
    """Traced targets in a control directory of the test's own, closed at
    its end."""

    def setUp(self):
        self.runtime = tempfile.mkdtemp(prefix="vt-runtime-")
        os.chmod(self.runtime, 0o700)
        self.targets = []

    def tearDown(self):
        for target in self.targets:
            target.close()
        shutil.rmtree(self.runtime, ignore_errors=True)

    def start(self, env=None):
        target = Target(self.runtime, env, {t.pid for t in self.targets})
        self.targets.append(target)
        return target


class ControlTest(TargetsTestCase):
    def test_snapshot_holds_the_moment_and_reads_back(self):
        target = self.start()
        target.step("alloc 10485760 weights")
        target.step("alloc 4194304 kv_cache")
        target.step("alloc 1048576 scratch")
        target.step("free 2")
        report = snapshot(self.runtime, target.pid)
        device = device0(report)
        self.assertEqual(report["run"]["ended_by"], "running")
        self.assertEqual(device["live_at_exit_bytes"], 14 * MiB)
        self.assertEqual(device["peak"]["bytes"], 15 * MiB)
        self.assertEqual(device["allocations"], 3)
        self.assertEqual(device["frees"], 1)
        self.assertEqual(tag_live(device), {"weights": 10 * MiB, "kv_cache": 4 * MiB})
        self.assertEqual(sum(leak["bytes"] for leak in device["leaks"]), 14 * MiB)
        self.assertIsNone(device["peak_since_reset"])
        mid = os.path.join(target.dir, "mid.json")
        tool(self.runtime, "snapshot", str(target.pid), "-o", mid)
        target.step("alloc 2097152 kv_cache")
        status, out, _ = target.finish(0)
        self.assertEqual(status, 0)
        self.assertEqual(out, "")
        diff = json.loads(tool(self.runtime, "diff", mid, os.path.join(target.dir, "report.json"),
                               "--format", "json").stdout)
        self.assertEqual(diff["sections"]["device"]["rows"][0]["a_bytes"], 15 * MiB)
        self.assertEqual(diff["sections"]["device"]["rows"][0]["b_bytes"], 16 * MiB)
        self.assertEqual(device0(target.report())["peak"]["bytes"], 16 * MiB)

    def test_reset_peak_opens_an_interval_with_its_own_exact_peak(self):
        target = self.start()
        target.step("alloc 8388608 a")
        target.step("free 0")
        target.step("alloc 1048576 b")
        first = snapshot(self.runtime, target.pid, "--reset-peak")
        self.assertEqual(device0(first)["peak"]["bytes"], 8 * MiB)
        target.step("alloc 3145728 c")
        target.step("free 2")
        second = device0(snapshot(self.runtime, target.pid))
        self.assertEqual(second["peak"]["bytes"], 8 * MiB)  # the run's own
        self.assertEqual(second["peak_since_reset"]["bytes"], 4 * MiB)
        self.assertGreaterEqual(second["peak_since_reset"]["at_ns"],
                                second["peak_since_reset"]["since_ns"])
        view = tool(self.runtime, "top", str(target.pid), "--once").stdout
        self.assertRegex(view, r"\n  peak since reset 4\.00 MiB at \d+\.\d{3} s \(reset at "
                               r"\d+\.\d{3} s\)\n")
        self.assertEqual(target.finish(0)[0], 0)

    def test_ps_lists_exactly_the_traced_processes(self):
        first, second = self.start(), self.start()
        first.step("alloc 2097152 x")
        rows = tool(self.runtime, "ps").stdout.splitlines()
        self.assertEqual(rows[0].split()[:4], ["PID", "DEVICES", "LIVE", "PEAK"])
        pids = sorted(int(row.split()[0]) for row in rows[1:])
        self.assertEqual(pids, sorted([first.pid, second.pid]))
        line = next(r for r in rows[1:] if int(r.split()[0]) == first.pid)
        self.assertEqual(line.split()[1:6], ["0", "2.00", "MiB", "2.00", "MiB"])
        # A process killed without a word leaves its socket; ps removes it.
        os.kill(second.pid, signal.SIGKILL)
        second.process.wait()
        self.assertTrue(os.path.exists(os.path.join(socket_dir(self.runtime),
                                                    f"{second.pid}.sock")))
        rows = tool(self.runtime, "ps").stdout.splitlines()
        self.assertEqual([int(r.split()[0]) for r in rows[1:]], [first.pid])
        self.assertEqual(os.listdir(socket_dir(self.runtime)), [f"{first.pid}.sock"])

    def test_top_once_shows_the_figures(self):
        target = self.start()
        target.step("alloc 6291456 weights")
        target.step("alloc 2097152 kv_cache")
        self.assertEqual(target.step(f"alloc {100 << 40} huge"), "failed ok\n")
        text = tool(self.runtime, "top", str(target.pid), "--once").stdout
        lines = text.splitlines()
        self.assertTrue(lines[0].startswith(f"vramtrace top: pid {target.pid}"))
        self.assertEqual(lines[1], "device 0 (vramsim GPU 0): live 8.00 MiB of 80.00 GiB (0.0%)")
        self.assertEqual(lines[2], "  peak 8.00 MiB, 1 failed allocation")
        failed = lines.index(f"{'FAILED':>12} {'AT':>10}  {'TAG':<16} ERROR")
        self.assertRegex(lines[failed + 1], r"^  100\.00 TiB +\d+\.\d{3}s  huge +"
                                            r"cudaErrorMemoryAllocation$")
        self.assertIn("weights", text)
        tags = [l.split() for l in lines if l.startswith(("weights", "kv_cache"))]
        self.assertEqual(tags, [["weights", "6.00", "MiB", "6.00", "MiB", "1"],
                                ["kv_cache", "2.00", "MiB", "2.00", "MiB", "1"]])
        where = [l for l in lines if l.strip().startswith(("6.00 MiB", "2.00 MiB"))]
        self.assertEqual(len(where), 2)
        self.assertTrue(all(l.endswith(" main (control_target.c:74)") for l in where), where)
        self.assertNotIn("\033", text)
        self.assertTrue(all(len(l) <= 80 for l in lines))

    def test_top_once_says_what_the_tags_it_leaves_out_hold(self):
        """top listed as many tags as its rows held and said nothing of the
        rest: its rows did not add up to the device's live bytes."""
        target = self.start()
        for i in range(12):
            target.step(f"alloc {(i + 1) * MiB} tag{i:02}")
        lines = tool(self.runtime, "top", str(target.pid), "--once").stdout.splitlines()
        listed = [l.split()[0] for l in lines if l.startswith("tag")]
        left = 12 - len(listed)
        self.assertGreater(left, 0, "more tags than rows")
        self.assertEqual(listed, [f"tag{i:02}" for i in range(11, 11 - len(listed), -1)])
        self.assertIn(f"and {left} more tags, {left * (left + 1) // 2}.00 MiB live", lines)

    def test_metrics_are_valid_openmetrics_with_exact_values(self):
        target = self.start()
        for i in range(10):
            target.step(f"alloc {(i + 1) * MiB} tag{i}")
        text = tool(self.runtime, "metrics").stdout
        samples = {}
        for line in text.splitlines():
            if not line.startswith("#"):
                name, value = line.rsplit(" ", 1)
                samples[name] = int(value)
        uuid = device0(snapshot(self.runtime, target.pid))["uuid"]
        self.assertRegex(uuid, r"^GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
        labels = f'gpu="0",UUID="{uuid}",modelName="vramsim GPU 0",pid="{target.pid}"'
        self.assertEqual(samples[f"vramtrace_device_peak_bytes{{{labels}}}"], 55 * MiB)
        self.assertEqual(samples[f"vramtrace_allocations_total{{{labels}}}"], 10)
        self.assertEqual(samples[f"vramtrace_failed_allocations_total{{{labels}}}"], 0)
        live = {k: v for k, v in samples.items() if k.startswith("vramtrace_device_live_bytes")}
        self.assertEqual(len(live), 9)  # eight tags and "other"
        self.assertEqual(live[f'vramtrace_device_live_bytes{{{labels},tag="tag9"}}'], 10 * MiB)
        self.assertEqual(live[f'vramtrace_device_live_bytes{{{labels},tag="other"}}'], 3 * MiB)
        self.assertEqual(sum(live.values()), 55 * MiB)
        self.assertTrue(text.endswith("# EOF\n"))
        families = dict(l.split()[2:4] for l in text.splitlines() if l.startswith("# TYPE "))
        self.assertEqual(families, documented_metric_families())
        self.check_with_parser(text)
        textfiles = tempfile.mkdtemp(dir=self.runtime)
        tool(self.runtime, "metrics", "--textfile", textfiles, "--count", "1")
        with open(os.path.join(textfiles, "vramtrace.prom")) as f:
            self.assertEqual(f.read(), text)
        self.assertEqual(target.finish(0)[0], 0)

    def check_with_parser(self, text):
        """prometheus_client's own OpenMetrics parser, where Python has it."""
        for python in ("/usr/bin/python3", sys.executable):
            probe = subprocess.run([python, "-c", "import prometheus_client"],
                                   capture_output=True)
            if probe.returncode == 0:
                parse = subprocess.run(
                    [python, "-c",
                     "import sys\nfrom prometheus_client.openmetrics.parser import "
                     "text_string_to_metric_families as p\n"
                     "print(sum(len(f.samples) for f in p(sys.stdin.read())))"],
                    input=text, capture_output=True, text=True)
                self.assertEqual(parse.returncode, 0, parse.stderr)
                self.assertEqual(int(parse.stdout), 13)
                return
        print("prometheus_client not installed: checked by the line format only")

    def test_metrics_listen_serves_http(self):
        target = self.start()
        target.step("alloc 1048576 w")
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        server = subprocess.Popen([TOOL, "metrics", "--listen", f"127.0.0.1:{port}"],
                                  env=dict(os.environ, XDG_RUNTIME_DIR=self.runtime),
                                  stderr=subprocess.PIPE, text=True)
        try:
            self.assertIn("serving", server.stderr.readline())
            import http.client
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
            connection.request("GET", "/metrics")
            answer = connection.getresponse()
            self.assertEqual(answer.status, 200)
            self.assertTrue(answer.getheader("Content-Type").startswith(
                "application/openmetrics-text"))
            body = answer.read().decode()
            self.assertIn(f'tag="w"}} {MiB}\n', body)
            connection.close()
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
            connection.request("GET", "/other")
            self.assertEqual(connection.getresponse().status, 404)
        finally:
            server.kill()
            server.wait()

    def fake_endpoint(self, pid, backlog=16):
        """A socket where pid's control socket would be, that no tracer serves."""
        os.makedirs(socket_dir(self.runtime), mode=0o700, exist_ok=True)
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(os.path.join(socket_dir(self.runtime), f"{pid}.sock"))
        server.listen(backlog)
        self.addCleanup(server.close)
        return server

    def serve_report(self, report):
        """An endpoint for this test's own pid that answers every request
        with report, as a traced process would."""
        server = self.fake_endpoint(os.getpid())
        data = json.dumps(report).encode()

        def answer():
            while True:
                try:
                    peer, _ = server.accept()
                except OSError:
                    return
                try:
                    peer.recv(100)
                    peer.sendall(data)
                except OSError:
                    pass
                peer.close()
        threading.Thread(target=answer, daemon=True).start()

    def test_ps_asks_every_process_at_once(self):
        """ps and metrics asked the traced processes one after another,
        waiting up to 10 s for each: two stopped ones (Ctrl-Z) made them take
        20 s. They are asked at once, under one deadline, each that does not
        answer said in pid order."""
        running, *stopped = self.start(), self.start(), self.start()
        for target in stopped:
            os.kill(target.pid, signal.SIGSTOP)
        start = time.monotonic()
        result = tool(self.runtime, "ps")
        elapsed = time.monotonic() - start
        rows = result.stdout.splitlines()
        self.assertEqual([int(r.split()[0]) for r in rows[1:]], [running.pid])
        self.assertEqual(result.stderr, "".join(
            f"vramtrace ps: process {pid} did not answer within 10 s\n"
            for pid in sorted(t.pid for t in stopped)))
        self.assertGreater(elapsed, 9.5)
        self.assertLess(elapsed, 15, "one deadline for all, not 10 s for each")
        # metrics asks the same way.
        start = time.monotonic()
        result = tool(self.runtime, "metrics", check=False)
        elapsed = time.monotonic() - start
        self.assertEqual(result.returncode, 1, "processes that did not answer")
        self.assertIn(f'pid="{running.pid}"', result.stdout)
        for target in stopped:
            self.assertNotIn(f'pid="{target.pid}"', result.stdout)
        self.assertEqual(result.stderr, "".join(
            f"vramtrace metrics: process {pid} did not answer within 10 s\n"
            for pid in sorted(t.pid for t in stopped)))
        self.assertLess(elapsed, 15, "metrics: one deadline for all")

    def test_ps_shows_a_command_with_escapes_escaped(self):
        """ps printed the traced program's argv as it was: a word holding
        ESC [ 2 J cleared the terminal of whoever listed the processes."""
        fixtures = os.path.join(os.path.dirname(__file__), "..", "fixtures")
        with open(os.path.join(fixtures, "minimal.json")) as f:
            report = json.load(f)
        report["run"]["command"] = ["./serve\x1b[2J\x9b31m", "\u00e9" * 40]
        self.serve_report(report)
        rows = tool(self.runtime, "ps").stdout.splitlines()
        self.assertEqual(len(rows), 2)
        self.assertNotIn("\x1b", rows[1])
        self.assertNotIn("\x9b", rows[1])
        self.assertIn("./serve\\x1b[2J\\xc2\\x9b31m \u00e9", rows[1])
        self.assertTrue(rows[1].endswith("\u00e9..."), rows[1])

    def test_ps_removes_only_a_dead_process_s_socket(self):
        """ps unlinked any PID.sock it could not connect to: a regular file
        of that name, and the socket of a live process that had bound it but
        not yet listened."""
        directory = socket_dir(self.runtime)
        os.makedirs(directory, mode=0o700, exist_ok=True)
        sleeper = subprocess.Popen(["sleep", "60"])
        self.addCleanup(sleeper.wait)
        self.addCleanup(sleeper.kill)
        unlistened = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.addCleanup(unlistened.close)
        unlistened.bind(os.path.join(directory, f"{os.getpid()}.sock"))
        regular = os.path.join(directory, f"{sleeper.pid}.sock")
        with open(regular, "w") as f:
            f.write("not a socket")
        dead = subprocess.Popen(["true"])
        dead.wait()
        stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        stale.bind(os.path.join(directory, f"{dead.pid}.sock"))
        stale.close()
        rows = tool(self.runtime, "ps").stdout.splitlines()
        self.assertEqual(rows[1:], [])
        self.assertEqual(sorted(os.listdir(directory)),
                         sorted([f"{os.getpid()}.sock", f"{sleeper.pid}.sock"]))

    def test_a_full_queue_or_a_trickling_peer_ends_at_the_deadline(self):
        """connect() to a socket whose queue is full blocked for ever, and a
        peer sending a byte now and then kept snapshot reading for ever: the
        whole exchange now has one deadline of 10 s."""
        full = self.fake_endpoint(424242, backlog=0)
        waiting = []
        for _ in range(8):  # fill the queue: the next connection cannot get in
            client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            client.setblocking(False)
            self.addCleanup(client.close)
            try:
                client.connect(full.getsockname())
            except BlockingIOError:
                break
            waiting.append(client)
        trickling = self.fake_endpoint(424243)

        def trickle():
            peer, _ = trickling.accept()
            peer.recv(100)
            try:
                while True:
                    peer.sendall(b" ")
                    time.sleep(0.5)
            except OSError:
                pass
        threading.Thread(target=trickle, daemon=True).start()
        env = dict(os.environ, XDG_RUNTIME_DIR=self.runtime)
        start = time.monotonic()
        runs = [subprocess.Popen([TOOL, "snapshot", str(pid)], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, env=env)
                for pid in (424242, 424243)]
        results = [run.communicate(timeout=40) + (run.returncode,) for run in runs]
        elapsed = time.monotonic() - start
        self.assertEqual(results[0], ("", "vramtrace snapshot: process 424242 did not take the "
                                      "connection within 10 s (its control socket's queue "
                                      "is full)\n", 1))
        self.assertEqual(results[1], ("", "vramtrace snapshot: process 424243 did not answer "
                                      "within 10 s\n", 1))
        self.assertLess(elapsed, 14)

    def test_metrics_listen_drops_a_slow_client_and_serves_the_next(self):
        """One client trickling its request kept every other scrape waiting
        for ever; it has 2 s in all now."""
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        server = subprocess.Popen([TOOL, "metrics", "--listen", f"127.0.0.1:{port}"],
                                  env=dict(os.environ, XDG_RUNTIME_DIR=self.runtime),
                                  stderr=subprocess.PIPE, text=True)
        self.addCleanup(server.wait)
        self.addCleanup(server.kill)
        self.assertIn("serving", server.stderr.readline())
        slow = socket.create_connection(("127.0.0.1", port))
        self.addCleanup(slow.close)

        def trickle():
            try:
                for byte in b"GET /metrics HTTP/1.0\r\n" * 100:
                    slow.send(bytes([byte]))
                    time.sleep(0.5)
            except OSError:
                pass
        threading.Thread(target=trickle, daemon=True).start()
        time.sleep(0.2)
        import http.client
        start = time.monotonic()
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connection.request("GET", "/metrics")
        answer = connection.getresponse()
        self.assertEqual(answer.status, 200)
        self.assertTrue(answer.read().decode().endswith("# EOF\n"))
        connection.close()
        self.assertLess(time.monotonic() - start, 5)

    def test_watermark_records_what_was_live_at_each_crossing(self):
        target = self.start({"VRAMTRACE_WATERMARK": "5MiB,2MiB"})
        target.step("alloc 3145728 weights")
        target.step("alloc 3145728 kv_cache")  # 6 MiB: crossed
        target.step("alloc 1048576 kv_cache")  # still above: nothing more
        target.step("free 1")
        target.step("free 2")  # 3 MiB: not yet below the lower mark
        target.step("alloc 3145728 kv_cache")  # 6 MiB, but not re-armed
        target.step("free 3")
        target.step("free 0")  # 0: re-armed
        target.step("alloc 5242880 activations")  # 5 MiB: crossed again
        status, _, err = target.finish(0)
        self.assertEqual(status, 0)
        self.assertEqual(err.count("reached the watermark"), 1)
        watermark = device0(target.report())["watermark"]
        self.assertEqual((watermark["high_bytes"], watermark["low_bytes"]), (5 * MiB, 2 * MiB))
        crossings = watermark["crossings"]
        self.assertEqual([c["live_bytes"] for c in crossings], [6 * MiB, 5 * MiB])
        self.assertEqual([c["event"] for c in crossings], [2, 9])
        self.assertEqual(crossings[0]["snapshot"]["live_by_tag"],
                         {"weights": 3 * MiB, "kv_cache": 3 * MiB})
        self.assertEqual(crossings[1]["snapshot"]["live_by_tag"], {"activations": 5 * MiB})
        text = tool(self.runtime, "report", os.path.join(target.dir, "report.json")).stdout
        line = next(l for l in text.splitlines() if "watermark" in l)
        self.assertRegex(line, r"^  watermark 5\.00 MiB \(re-arms below 2\.00 MiB\): reached 2 "
                               r"times, last at \d+\.\d{3} s with 5\.00 MiB live$")

    def test_watermark_re_arms_at_90_percent_of_the_mark_by_default(self):
        # 90% of 1000009 bytes is 900008.1: the lower mark is 900008 bytes.
        target = self.start({"VRAMTRACE_WATERMARK": "1000009B"})
        target.step("alloc 900007 weights")
        target.step("alloc 100002 weights")  # 1000009: crossed
        target.step("free 1")  # 900007, below the lower mark: re-armed
        target.step("alloc 100002 weights")  # crossed again
        target.step("free 2")  # re-armed
        target.step("alloc 1 weights")
        target.step("alloc 100001 weights")  # crossed a third time
        target.step("free 4")  # 900008, not below the lower mark
        target.step("alloc 100001 weights")  # so not crossed again
        status, _, _ = target.finish(0)
        self.assertEqual(status, 0)
        watermark = device0(target.report())["watermark"]
        self.assertEqual((watermark["high_bytes"], watermark["low_bytes"]), (1000009, 900008))
        self.assertEqual([c["event"] for c in watermark["crossings"]], [2, 4, 7])

    def test_another_user_gets_nothing(self):
        if os.getuid() != 0:
            self.skipTest("needs root to act as a second user")
        target = self.start()
        target.step("alloc 1048576 w")
        path = os.path.join(socket_dir(self.runtime), f"{target.pid}.sock")
        self.assertEqual(os.stat(path).st_mode & 0o777, 0o600)
        self.assertEqual(os.stat(socket_dir(self.runtime)).st_mode & 0o777, 0o700)
        child = os.fork()
        if child == 0:
            os.setgid(65534)
            os.setuid(65534)
            try:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(path)
                s.sendall(b"snapshot\n")
                os._exit(3 if s.recv(1) else 0)
            except OSError:
                os._exit(0)
        _, status = os.waitpid(child, 0)
        self.assertEqual(os.waitstatus_to_exitcode(status), 0)
        self.assertEqual(target.finish(0)[0], 0)

    def test_a_directory_open_to_others_is_refused(self):
        os.makedirs(socket_dir(self.runtime), mode=0o700)
        os.chmod(socket_dir(self.runtime), 0o777)
        env = dict(os.environ, XDG_RUNTIME_DIR=self.runtime, VRAMTRACE_SUMMARY="0",
                   VRAMTRACE_OUTPUT=os.path.join(self.runtime, "r.json"))
        result = subprocess.run([TOOL, "run", "--simulate", "--", TARGET], input="exit 0\n",
                                capture_output=True, text=True, env=env, timeout=60)
        self.assertEqual(result.returncode, 0)
        self.assertIn("is open to other users; no control socket", result.stderr)
        self.assertEqual(os.listdir(socket_dir(self.runtime)), [])

    def test_hostile_clients_leave_the_program_unharmed(self):
        target = self.start()
        target.step("alloc 1048576 w")
        silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        silent.connect(os.path.join(socket_dir(self.runtime), f"{target.pid}.sock"))
        self.assertEqual(ask(self.runtime, target.pid, b"x" * (1 << 20)), b"")
        self.assertEqual(ask(self.runtime, target.pid, b"reboot\n"), b"")
        self.assertEqual(ask(self.runtime, target.pid, b"snapshot\nsnapshot\n"), b"")
        ask(self.runtime, target.pid, b"snapshot\n", read=False)  # hangs up unread
        never_reads = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        never_reads.connect(os.path.join(socket_dir(self.runtime), f"{target.pid}.sock"))
        never_reads.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
        never_reads.sendall(b"snapshot\n")
        answers = []

        def client():
            data = ask(self.runtime, target.pid, b"snapshot\n")
            answers.append(json.loads(data)["devices"][0]["live_at_exit_bytes"])

        threads = [threading.Thread(target=client) for _ in range(100)]
        for thread in threads:
            thread.start()
        self.assertEqual(target.step("alloc 1048576 w"), "ok\n")
        for thread in threads:
            thread.join(timeout=120)
        self.assertEqual(len(answers), 100)
        self.assertTrue(all(a in (MiB, 2 * MiB) for a in answers))
        silent.close()
        never_reads.close()
        status, out, err = target.finish(7)
        self.assertEqual((status, out), (7, ""))
        self.assertNotIn("vramtrace:", err)
        self.assertEqual(device0(target.report())["live_at_exit_bytes"], 2 * MiB)

    def test_no_socket_is_left_after_any_ending(self):
        for ending in ("exit", "SIGTERM", "SIGSEGV", "exec"):
            with self.subTest(ending=ending):
                target = self.start()
                target.step("alloc 1048576 w")
                if ending == "exit":
                    target.finish(0)
                elif ending == "exec":
                    target.process.stdin.write("exec\n")
                    target.process.stdin.close()
                    self.assertEqual(target.process.wait(timeout=60), 0)
                    # The socket outlives the old image (a failed exec goes on
                    # answering on it); the untraced new image refuses on it,
                    # and the first client lists nothing and removes it.
                    self.assertEqual(tool(self.runtime, "ps").stdout.splitlines()[1:], [])
                else:
                    os.kill(target.pid, getattr(signal, ending))
                    target.process.wait(timeout=60)
                self.assertEqual(os.listdir(socket_dir(self.runtime)), [])

    def test_a_failed_exec_keeps_the_endpoint(self):
        # An exec that fails leaves the process running: it must still
        # answer on its socket.
        target = self.start()
        target.step("alloc 4194304 weights")
        self.assertEqual(target.step("exec_fails"), "exec failed ok\n")
        self.assertTrue(os.path.exists(os.path.join(socket_dir(self.runtime),
                                                    f"{target.pid}.sock")),
                        "the socket is gone after a failed exec")
        self.assertEqual(device0(snapshot(self.runtime, target.pid))["peak"]["bytes"], 4 * MiB)
        status, _, _ = target.finish()
        self.assertEqual(status, 0)

    def test_a_fork_child_answers_on_its_own_socket(self):
        target = self.start()
        target.step("alloc 2097152 parent")
        target.step("fork")
        child = traced_pids(self.runtime, {target.pid})[0]
        self.assertEqual(device0(snapshot(self.runtime, child))["live_at_exit_bytes"], MiB)
        self.assertEqual(device0(snapshot(self.runtime, target.pid))["live_at_exit_bytes"],
                         2 * MiB)
        open(os.path.join(target.dir, "fork.release"), "w").close()
        deadline = time.time() + 60
        while os.path.exists(os.path.join(socket_dir(self.runtime), f"{child}.sock")):
            self.assertLess(time.time(), deadline, "the child's socket stayed")
            time.sleep(0.05)
        self.assertEqual(os.listdir(socket_dir(self.runtime)), [f"{target.pid}.sock"])
        self.assertEqual(target.finish(0)[0], 0)

    def test_a_program_that_closes_every_descriptor_keeps_its_files(self):
        target = self.start()
        self.assertEqual(target.step("closefds"), "fd 3 ok\n")
        with open(os.path.join(target.dir, "closefds.txt")) as f:
            self.assertEqual(f.read(), "daemon")
        deadline = time.time() + 60
        while os.listdir(socket_dir(self.runtime)):
            self.assertLess(time.time(), deadline, "the socket stayed")
            time.sleep(0.05)
        status, _, err = target.finish(0)
        self.assertEqual(status, 0)
        self.assertIn("the control endpoint is off", err)

    def test_few_descriptors_leave_the_endpoint_off(self):
        env = dict(os.environ, XDG_RUNTIME_DIR=self.runtime, VRAMTRACE_SUMMARY="0",
                   VRAMTRACE_OUTPUT=os.path.join(self.runtime, "r.json"))
        import resource
        result = subprocess.run(
            [TOOL, "run", "--simulate", "--", TARGET], input="alloc 4096 w\nexit 0\n",
            capture_output=True, text=True, env=env, timeout=60,
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64)))
        self.assertEqual((result.returncode, result.stdout), (0, "ready\nok\n"))
        self.assertFalse(os.path.exists(socket_dir(self.runtime)))

    def test_control_off(self):
        env = dict(os.environ, XDG_RUNTIME_DIR=self.runtime, VRAMTRACE_SUMMARY="0",
                   VRAMTRACE_CONTROL="0", VRAMTRACE_OUTPUT=os.path.join(self.runtime, "r.json"))
        result = subprocess.run([TOOL, "run", "--simulate", "--", TARGET],
                                input="alloc 4096 w\nexit 0\n", capture_output=True, text=True,
                                env=env, timeout=60)
        self.assertEqual((result.returncode, result.stdout), (0, "ready\nok\n"))
        self.assertFalse(os.path.exists(socket_dir(self.runtime)))
        missing = tool(self.runtime, "snapshot", "999999", check=False)
        self.assertEqual(missing.returncode, 1)
        self.assertIn("is not traced by vramtrace", missing.stderr)
        missing = tool(self.runtime, "top", "999999", "--once", check=False)
        self.assertEqual(missing.returncode, 1)
        self.assertIn("is not traced by vramtrace", missing.stderr)
        shown = tool(self.runtime, "top", "--help").stdout
        self.assertIn("Exit status: 0 when quit, 1 the process could not be asked", shown)


if __name__ == "__main__":
    unittest.main(verbosity=2)
