"""The control endpoint and the live commands at their edges: what a
program's own tag names, descriptors and threads, and a client that reads
slowly, do to `vramtrace metrics`, `snapshot` and the program itself.

Uses test_control's Target: control_target under `vramtrace run
--simulate`, with a private XDG_RUNTIME_DIR."""
import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import unittest

from test_control import MiB, TARGET, TOOL, TargetsTestCase, device0, socket_dir, tool


def samples(text):
    """name{labels} -> value of each sample line, and how many lines."""
    lines = [line for line in text.splitlines() if not line.startswith("#")]
    return {line.rsplit(" ", 1)[0]: int(line.rsplit(" ", 1)[1]) for line in lines}, len(lines)


class ControlEdgesTest(TargetsTestCase):
    def test_a_tag_named_other_is_summed_into_the_rest(self):
        """With more than eight tags, a program's own tag "other" got a
        series of its own beside the rest summed as tag="other": two samples
        with one label set, which OpenMetrics forbids."""
        target = self.start()
        names = ["other", "a", "b", "c", "d", "e", "f", "g", "h", "i"]
        for i, name in enumerate(names):
            target.step(f"alloc {(10 - i) * MiB} {name}")
        text = tool(self.runtime, "metrics").stdout
        values, count = samples(text)
        self.assertEqual(count, len(values), "a label set repeated")
        live = {k.rsplit(",tag=", 1)[1][:-1]: v for k, v in values.items()
                if k.startswith("vramtrace_device_live_bytes")}
        self.assertEqual(live, {'"a"': 9 * MiB, '"b"': 8 * MiB, '"c"': 7 * MiB, '"d"': 6 * MiB,
                                '"e"': 5 * MiB, '"f"': 4 * MiB, '"g"': 3 * MiB, '"h"': 2 * MiB,
                                '"other"': 11 * MiB})
        self.assertEqual(sum(live.values()), 55 * MiB)
        self.assertEqual(target.finish(0)[0], 0)

    def test_a_closed_endpoint_leaves_the_program_s_threads_running(self):
        """The endpoint's thread, on finding its socket's descriptor closed
        by the program, ended still counted as a thread of the tracer's: the
        program's last thread but one then looked like its last, and a main
        thread ending by the exit system call ended the whole process, its
        other thread killed before it printed."""
        target = self.start()
        self.assertEqual(target.step("closefds"), "fd 3 ok\n")
        deadline = time.time() + 60
        while os.listdir(socket_dir(self.runtime)):
            self.assertLess(time.time(), deadline, "the socket stayed")
            time.sleep(0.05)
        target.process.stdin.write("main_exits\n")
        target.process.stdin.close()
        out = target.process.stdout.read()
        self.assertEqual(target.process.wait(timeout=60), 5)
        self.assertEqual(out, "worker ok\n")

    def test_tags_that_read_alike_are_one_tag(self):
        """Tags the report writes alike were two tags: "\\xff" and "\\xfe"
        (both U+FFFD in JSON), or a tag named "untagged" beside untagged
        memory. A timeline row's by_tag then held one key twice, and the
        snapshot, ps, metrics and the final report were all refused as
        broken JSON."""
        directory = tempfile.mkdtemp(prefix="vt-control-")
        self.addCleanup(shutil.rmtree, directory, True)
        report_path = os.path.join(directory, "report.json")
        env = dict(os.environ, XDG_RUNTIME_DIR=self.runtime, VRAMTRACE_SUMMARY="0",
                   VRAMTRACE_OUTPUT=report_path)
        process = subprocess.Popen([TOOL, "run", "--simulate", "--", TARGET],
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, env=env)
        self.addCleanup(process.wait)
        self.addCleanup(process.kill)
        self.assertEqual(process.stdout.readline(), b"ready\n")
        for step in (b"alloc 1048576 \xff", b"alloc 2097152 \xfe", b"untagged 4194304",
                     b"alloc 8388608 untagged", b"alloc 16777216 other\xa0tags"):
            process.stdin.write(step + b"\n")
            process.stdin.flush()
            self.assertEqual(process.stdout.readline(), b"ok\n")
        pid = int(os.listdir(socket_dir(self.runtime))[0][:-5])
        expected = {"\ufffd": 3 * MiB, "untagged": 12 * MiB, "other\ufffdtags": 16 * MiB}
        live = device0(json.loads(tool(self.runtime, "snapshot", str(pid)).stdout))
        self.assertEqual({t["tag"]: t["live_at_exit_bytes"] for t in live["tags"]}, expected)
        self.assertEqual(live["timeline"]["rows"][-1]["by_tag"], expected)
        self.assertEqual(len(tool(self.runtime, "ps").stdout.splitlines()), 2)
        process.stdin.close()
        self.assertEqual(process.wait(timeout=60), 0)
        with open(report_path) as f:
            final = device0(json.load(f))
        self.assertEqual({t["tag"]: t["live_at_exit_bytes"] for t in final["tags"]}, expected)
        report = subprocess.run([TOOL, "report", report_path], capture_output=True, text=True)
        self.assertEqual((report.returncode, report.stderr), (0, ""))

    def test_a_client_that_reads_slowly_is_dropped_at_the_deadline(self):
        """Each write of the answer waited up to 2 s for room, but the
        answer as a whole had no limit: a client taking 32 KiB every 1.5 s
        held the one thread that serves for as long as it liked, and every
        other client was told the process did not answer. It is dropped 10
        s after connecting, as the tool gives up, and the next is served."""
        target = self.start()
        for i in range(1000):
            target.step(f"alloc 4096 tag{i}")
        slow = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.addCleanup(slow.close)
        slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        slow.connect(os.path.join(socket_dir(self.runtime), f"{target.pid}.sock"))
        slow.sendall(b"snapshot\n")
        start = time.monotonic()
        taken = []
        hurry = threading.Event()

        def take_slowly():
            while True:
                if not hurry.wait(1.5):
                    taken.append(len(slow.recv(32768)))
                    continue
                chunk = slow.recv(1 << 20)
                if not chunk:
                    return
                taken.append(len(chunk))
        reader = threading.Thread(target=take_slowly, daemon=True)
        reader.start()
        time.sleep(max(0, start + 12.5 - time.monotonic()))
        answer = tool(self.runtime, "snapshot", str(target.pid))
        self.assertLess(time.monotonic() - start, 15, "served at once, the slow one dropped")
        live = device0(json.loads(answer.stdout))
        self.assertEqual((live["allocations"], live["live_at_exit_bytes"]), (1000, 1000 * 4096))
        hurry.set()
        reader.join(timeout=20)
        self.assertFalse(reader.is_alive())
        self.assertLess(sum(taken), len(answer.stdout), "the slow one got no whole answer")
        status, out, err = target.finish(0)
        self.assertEqual((status, out), (0, ""))
        self.assertNotIn("vramtrace:", err)


if __name__ == "__main__":
    unittest.main(verbosity=2)
