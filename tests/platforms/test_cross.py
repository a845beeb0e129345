"""leanscope built for other platforms, run where it runs here.

The Windows build (x86_64-pc-windows-gnu) runs under Wine
(scripts/cross/wine-runner), the aarch64 Linux build under qemu-user (binfmt,
scripts/cross/setup-qemu). Each profiles the demo project through the fake
toolchain built for the same platform, laid out as users have it (`lake.exe`
and `lean.exe` on Windows), and its results are held against the native
Linux build's:

- a capture of Demo/Clean.lean has the same events, declarations and
  project-relative paths as the Linux capture, and its recording queries the
  same with either binary;
- a timeout stops Lean's whole process tree (`lake` and the `lean` it
  started), and the file's failure is said;
- a session with a failed file completes with --resume;
- `view` serves the viewer and the recording.

The binaries are built by scripts/test before this runs (debug builds):
target/<triple>/debug/leanscope[.exe] and fake-lean[.exe]. LEANSCOPE_CROSS
names the platforms to test (default: windows,aarch64).
"""

import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import unittest
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
NATIVE = REPO / "target" / "debug"


class Platform:
    def __init__(self, name, triple, exe, runner):
        self.name, self.triple, self.exe, self.runner = name, triple, exe, runner
        self.bin = REPO / "target" / triple / "debug"

    def path(self, p):
        """A host path as the platform's programs see it."""
        p = str(p)
        return "Z:" + p.replace("/", "\\") if self.exe else p

    def program(self, name):
        return self.bin / (name + self.exe)


PLATFORMS = {
    "windows": Platform(
        "windows", "x86_64-pc-windows-gnu", ".exe", [str(REPO / "scripts/cross/wine-runner")]
    ),
    "aarch64": Platform("aarch64", "aarch64-unknown-linux-gnu", "", []),
}


def selected():
    names = os.environ.get("LEANSCOPE_CROSS", "windows,aarch64")
    return [PLATFORMS[n] for n in names.split(",") if n]


def volatile_free(doc):
    """A JSON document without what differs between two captures of one
    file or two runs of one query: when the capture was made, and the path
    the recording was named by (written as the platform writes paths)."""
    drop = {"createdUnixMs", "path", "recording"}
    # Memory is sampled on the wall clock: it differs from run to run.
    measured = {"createdUnixMs", "memory", "memoryGrowthBytes", "memoryPeakBytes", "memorySpread", "peakMemoryBytes"}

    def walk(v, top):
        if isinstance(v, dict):
            return {k: walk(x, False) for k, x in v.items() if not (k in measured or (k in drop and top))}
        if isinstance(v, list):
            return [walk(x, False) for x in v]
        return v

    return walk(doc, True)


def tree_of(info_text):
    """`info --tree` without its first line (the recording's path) and its
    memory lines."""
    lines = info_text.splitlines()
    assert lines[0].startswith("recording"), lines[0]
    # Memory lines: sampled on the wall clock, they differ from run to run.
    return [l for l in lines[1:] if not l.startswith(("memory ", "  grew "))]


class CrossPlatform(unittest.TestCase):
    maxDiff = None

    def world(self, p):
        """A scratch folder: the demo project and the platform's fake
        toolchain (fake-lean copied as lake and lean, as the Linux tests
        link it)."""
        tmp = Path(tempfile.mkdtemp(prefix=f"leanscope-{p.name}-"))
        self.addCleanup(shutil.rmtree, tmp, True)
        shutil.copytree(REPO / "fixtures/projects/demo", tmp / "demo")
        tools = tmp / "toolchain" / "bin"
        tools.mkdir(parents=True)
        for name in ("lake", "lean"):
            shutil.copy2(p.program("fake-lean"), tools / (name + p.exe))
        native_tools = tmp / "native" / "bin"
        native_tools.mkdir(parents=True)
        for name in ("lake", "lean"):
            os.symlink(NATIVE / "fake-lean", native_tools / name)
        return tmp, tools, native_tools

    def env(self, p, tmp):
        env = dict(os.environ)
        env["LEANSCOPE_FAKE_FIXTURES"] = p.path(REPO / "fixtures/lean-output")
        env["LEANSCOPE_FAKE_DELAY_SCALE"] = "0"
        env["HOME"] = str(tmp)
        env.pop("LEANSCOPE_RUN", None)
        return env

    def run_on(self, p, tmp, args, timeout=300, check=True):
        cmd = p.runner + [str(p.program("leanscope"))] + args
        r = subprocess.run(
            cmd,
            cwd=tmp / "demo",
            env=self.env(p, tmp),
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if check:
            self.assertEqual(r.returncode, 0, f"{cmd}\n{r.stdout}\n{r.stderr}")
        return r

    def run_native(self, tmp, args, check=True):
        env = dict(os.environ)
        env["LEANSCOPE_FAKE_FIXTURES"] = str(REPO / "fixtures/lean-output")
        env["LEANSCOPE_FAKE_DELAY_SCALE"] = "0"
        env["HOME"] = str(tmp)
        env.pop("LEANSCOPE_RUN", None)
        r = subprocess.run(
            [str(NATIVE / "leanscope")] + args,
            cwd=tmp / "demo",
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        if check:
            self.assertEqual(r.returncode, 0, f"{args}\n{r.stdout}\n{r.stderr}")
        return r

    def each(self, test):
        for p in selected():
            with self.subTest(platform=p.name):
                self.assertTrue(p.program("leanscope").is_file(), f"build {p.triple} first")
                test(p)

    def test_a_capture_is_the_linux_capture(self):
        def check(p):
            tmp, tools, native_tools = self.world(p)
            rec, native_rec = tmp / "clean.lsrec", tmp / "clean-linux.lsrec"
            lake = p.path(tools / ("lake" + p.exe))
            self.run_on(
                p,
                tmp,
                ["profile", "Demo/Clean.lean", "-o", p.path(rec), "--threshold", "1", "--lake", lake],
            )
            self.run_native(
                tmp,
                ["profile", "Demo/Clean.lean", "-o", str(native_rec), "--threshold", "1",
                 "--lake", str(native_tools / "lake")],
            )
            theirs = json.loads(self.run_native(tmp, ["info", str(rec), "--json"]).stdout)
            ours = json.loads(self.run_native(tmp, ["info", str(native_rec), "--json"]).stdout)
            self.assertEqual(volatile_free(theirs), volatile_free(ours))
            self.assertEqual(theirs["source"]["path"], "Demo/Clean.lean")
            self.assertGreater(theirs["events"], 10)
            # The same events, with their times, ranges and threads.
            tree = tree_of(self.run_native(tmp, ["info", str(rec), "--tree"]).stdout)
            self.assertEqual(tree, tree_of(self.run_native(tmp, ["info", str(native_rec), "--tree"]).stdout))
            # The platform's own binary reads its recording as Linux does.
            on_p = json.loads(self.run_on(p, tmp, ["info", p.path(rec), "--json"]).stdout)
            self.assertEqual(volatile_free(on_p), volatile_free(theirs))
            self.assertEqual(tree_of(self.run_on(p, tmp, ["info", p.path(rec), "--tree"]).stdout), tree)
            for kind in ("declaration", "tactic"):
                linux = json.loads(self.run_native(tmp, ["query", str(rec), "--kind", kind, "--json"]).stdout)
                native = json.loads(self.run_on(p, tmp, ["query", p.path(rec), "--kind", kind, "--json"]).stdout)
                self.assertEqual(volatile_free(linux), volatile_free(native), kind)
                self.assertTrue(linux["rows"], f"no {kind}")
                self.assertEqual({r["path"] for r in linux["rows"]}, {"Demo/Clean.lean"})

        self.each(check)

    def test_a_timeout_stops_lakes_whole_tree(self):
        def check(p):
            tmp, tools, _ = self.world(p)
            slow = tmp / "demo" / "Demo" / "Slow.lean"
            slow.write_text("theorem slow : True := trivial -- leanscope-fake: cost 60000ms\n")
            started = time.monotonic()
            r = self.run_on(
                p,
                tmp,
                ["profile", "Demo/Slow.lean", "-o", p.path(tmp / "slow.lsrec"),
                 "--lake", p.path(tools / ("lake" + p.exe)), "--timeout", "3"],
                timeout=120,
                check=False,
            )
            took = time.monotonic() - started
            self.assertEqual(r.returncode, 3, r.stderr)
            self.assertIn("did not finish within 3 s", r.stderr)
            self.assertLess(took, 45, "the stop took too long")
            # Nothing of the toolchain is left running: no process runs a
            # program of the scratch toolchain folder.
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and left_running(tools):
                time.sleep(0.2)
            self.assertEqual(left_running(tools), [])

        self.each(check)

    def test_a_session_with_a_failed_file_completes_on_resume(self):
        def check(p):
            tmp, tools, _ = self.world(p)
            slow = tmp / "demo" / "Demo" / "Slow.lean"
            slow.write_text("theorem slow : True := trivial -- leanscope-fake: cost 60000ms\n")
            session = tmp / "session"
            lake = p.path(tools / ("lake" + p.exe))
            # Long enough for every other file under emulation, and so for
            # all but Slow.lean.
            args = ["profile", "Demo", "-o", p.path(session), "--lake", lake, "--timeout", "20"]
            r = self.run_on(p, tmp, args, check=False)
            self.assertNotEqual(r.returncode, 0, r.stderr)
            self.assertIn("session partial", r.stderr)
            self.assertEqual(json.loads((session / "session.json").read_text())["status"], "partial")
            slow.write_text("theorem slow : True := trivial -- leanscope-fake: cost 50ms\n")
            # Exit 1: Demo/Broken.lean has Lean errors, recorded as such.
            r = self.run_on(p, tmp, ["profile", "--resume", p.path(session), "--lake", lake], check=False)
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertIn("session complete", r.stderr)
            manifest = json.loads((session / "session.json").read_text())
            self.assertEqual(manifest["status"], "complete")
            self.assertEqual(manifest["counts"]["failed"], 0, manifest["counts"])
            files = {f["path"] for f in manifest["files"]}
            self.assertIn("Demo/Slow.lean", files)
            self.assertIn("Demo/Clean.lean", files)
            # Linux reads the platform's session: its files and declarations.
            rows = json.loads(
                self.run_native(tmp, ["query", str(session), "--kind", "declaration", "--limit", "100", "--json"]).stdout
            )["rows"]
            self.assertIn("slow", {r["name"] for r in rows})

        self.each(check)

    def test_view_serves_the_viewer_and_the_recording(self):
        def check(p):
            tmp, tools, _ = self.world(p)
            rec = tmp / "clean.lsrec"
            self.run_on(
                p,
                tmp,
                ["profile", "Demo/Clean.lean", "-o", p.path(rec), "--lake", p.path(tools / ("lake" + p.exe))],
            )
            port = free_port()
            cmd = p.runner + [str(p.program("leanscope")), "view", p.path(rec), "--port", str(port), "--no-open"]
            server = subprocess.Popen(
                cmd,
                cwd=tmp / "demo",
                env=self.env(p, tmp),
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                start_new_session=True,
            )
            self.addCleanup(stop, server)
            url = None
            deadline = time.monotonic() + 120
            while url is None and time.monotonic() < deadline:
                line = server.stdout.readline()
                if not line:
                    break
                for word in line.split():
                    if word.startswith(f"http://127.0.0.1:{port}/"):
                        url = word
            self.assertIsNotNone(url, "the server printed no URL")
            page = urllib.request.urlopen(url, timeout=30).read().decode()
            self.assertIn("<html", page.lower())
            base = url.split("?")[0].rsplit("/", 1)[0]
            for asset in ("viewer.js", "viewer_wasm_bg.wasm", "worker.js"):
                with urllib.request.urlopen(f"{base}/{asset}", timeout=30) as r:
                    self.assertEqual(r.status, 200, asset)
                    self.assertGreater(len(r.read()), 100, asset)

        self.each(check)


def left_running(folder):
    """The processes (pid, command line) running a program of `folder`."""
    found = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            cmdline = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            stat = (d / "stat").read_text()
        except OSError:
            continue
        if stat.rsplit(") ", 1)[-1].startswith("Z"):
            continue
        win = "Z:" + str(folder).replace("/", "\\")
        if str(folder) in cmdline or win.lower() in cmdline.lower():
            found.append((int(d.name), cmdline))
    return found


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop(proc):
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


if __name__ == "__main__":
    unittest.main()
