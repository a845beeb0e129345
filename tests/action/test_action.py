"""The GitHub Action (action.yml, ci/github/*.sh) run end to end as the
runner runs it (runner.py), on a real Git repository (a copy of the demo
project with a base and a head commit), through the fake toolchain and the
real leanscope binary; the job summary rendered with cmark-gfm, GitHub's
Markdown dialect.

    python3 -m unittest discover -s tests/action -p 'test_*.py'

Needs target/debug/leanscope and target/debug/fake-lean (cargo build -p
leanscope -p fake-toolchain), git, GNU time, bubblewrap and cmark-gfm.
"""

import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

from runner import REPO, run_action  # noqa: E402

TARGET = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target")) / "debug"
LEANSCOPE = TARGET / "leanscope"
FAKE_LEAN = TARGET / "fake-lean"
GIT_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "T",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "T",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
}
# Flags a test project can reach in a second: ×1.5 and +200 ms.
SMALL_FLAGS = {"flag-ratio": "1.5", "flag-min-increase-ms": "200", "flag-added-ms": "250"}


def decls(theorems):
    """Theorems `(name, ms)`, each spending that much CPU in its tactic."""
    return "".join(
        f"theorem {n} : True := by\n  trivial -- leanscope-fake: cost {ms}ms\n\n"
        for n, ms in theorems
    )


def hb_decls(theorems):
    """Theorems `(name, elab, kernel)` whose `.hb.json` entries (written by
    the fake `lake build` with LEANSCOPE_FAKE_HB_JSON=1, as a Lean that
    writes them) give those heartbeats."""
    return "".join(
        f"theorem {n} : True := trivial\n"
        f"-- leanscope-fake: hb-entry {n} {n} elab {e}\n"
        f"-- leanscope-fake: hb-entry {n} {n} kernel {k}\n\n"
        for n, e, k in theorems
    )


def hb_totals(build):
    """Each declaration's heartbeats (its entries summed) in the `.hb.json`
    files of the project built in `build`, read here independently of
    leanscope: {(file, declaration): heartbeats}."""
    lib = Path(build) / ".lake/build/lib/lean"
    totals = {}
    for f in sorted(lib.rglob("*.hb.json")):
        source = str(f.relative_to(lib)).removesuffix(".hb.json") + ".lean"
        for e in json.loads(f.read_text())["entries"]:
            key = (source, e["owner"])
            totals[key] = totals.get(key, 0) + e["heartbeats"]
    return totals


def render(markdown):
    """GitHub-flavoured Markdown to HTML, raw HTML kept (as GitHub keeps
    <details> and <summary>)."""
    p = subprocess.run(
        ["cmark-gfm", "--unsafe", "-e", "table", "-e", "strikethrough", "-e", "autolink"],
        input=markdown,
        capture_output=True,
        text=True,
        check=True,
    )
    return p.stdout


class Project:
    """A Git repository holding the demo project: `main` (the base) and
    `feature` (the pull request's head), and the fake toolchain."""

    def __init__(self, head_changes, base_files=None):
        self.tmp = Path(tempfile.mkdtemp(prefix="action-test-"))
        self.repo = self.tmp / "repo"
        shutil.copytree(REPO / "fixtures/projects/demo", self.repo)
        (self.repo / "Demo/Slow.lean").write_text(decls([("slow", 50), ("same", 30)]))
        for rel, text in (base_files or {}).items():
            (self.repo / rel).write_text(text)
        self.git("init", "-q", "-b", "main")
        self.base = self.commit("base")
        self.git("checkout", "-q", "-b", "feature")
        for rel, text in head_changes.items():
            path = self.repo / rel
            if text is None:
                path.unlink()
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
        self.head = self.commit("feature")
        self.toolchain = self.tmp / "toolchain"
        (self.toolchain / "bin").mkdir(parents=True)
        for name in ["lake", "lean"]:
            os.symlink(FAKE_LEAN, self.toolchain / "bin" / name)
        fixtures = self.toolchain / "fixtures/lean-output"
        fixtures.mkdir(parents=True)
        shutil.copy(REPO / "fixtures/lean-output/toolchains.json", fixtures)

    def git(self, *args):
        env = {**os.environ, **GIT_ENV, "HOME": str(self.tmp)}
        return subprocess.run(
            ["git", *args], cwd=self.repo, env=env, check=True, capture_output=True, text=True
        ).stdout.strip()

    def commit(self, msg):
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", msg)
        return self.git("rev-parse", "HEAD")

    def event(self):
        return {
            "action": "synchronize",
            "number": 35,
            "pull_request": {
                "number": 35,
                "base": {"ref": "main", "sha": self.base},
                "head": {"ref": "feature", "sha": self.head},
            },
        }

    def env(self, with_lake=True, hb_json=False):
        path = "/usr/bin:/bin"
        if with_lake:
            path = f"{self.toolchain / 'bin'}:{path}"
        env = {
            "PATH": path,
            "HOME": str(self.tmp),
            "LANG": "C.UTF-8",
            "LEANSCOPE_FAKE_FIXTURES": str(REPO / "fixtures/lean-output"),
        }
        if hb_json:
            # The fake `lake build` acts as a Lean that writes `.hb.json`.
            env["LEANSCOPE_FAKE_HB_JSON"] = "1"
        return env

    def run(self, with_lake=True, event=None, hb_json=False, **inputs):
        inputs = {"leanscope": str(LEANSCOPE), "repeat": "2", **SMALL_FLAGS, **inputs}
        env = self.env(with_lake, hb_json)
        return run_action(self.repo, event or self.event(), inputs, env=env, temp_root=self.tmp)

    def build_of(self, rev, hb_json=True):
        """A built copy of `rev` (what a workflow's own build step leaves):
        `git archive` of the commit, then the fake `lake build`."""
        out = self.tmp / f"built-{rev}"
        out.mkdir()
        archive = subprocess.run(
            ["git", "archive", rev], cwd=self.repo, check=True, capture_output=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(out)], input=archive, check=True)
        subprocess.run(
            [str(self.toolchain / "bin/lake"), "build"],
            cwd=out,
            env=self.env(hb_json=hb_json),
            check=True,
            capture_output=True,
        )
        return out

    def cleanup(self):
        shutil.rmtree(self.tmp, ignore_errors=True)


class ActionCase(unittest.TestCase):
    """What every case of the action needs: the binaries, a project, the
    summary rendered."""

    @classmethod
    def setUpClass(cls):
        for tool in [LEANSCOPE, FAKE_LEAN]:
            if not tool.exists():
                raise unittest.SkipTest(f"{tool} missing: cargo build -p leanscope -p fake-toolchain")

    def project(self, head_changes, base_files=None):
        p = Project(head_changes, base_files)
        self.addCleanup(p.cleanup)
        return p

    def assert_summary_says(self, job, *needles):
        self.assertTrue(job.summary.strip(), "the summary is never empty")
        html = render(job.summary)
        for n in needles:
            self.assertIn(n, html, job.summary + job.logs)
        return html


class ActionTest(ActionCase):
    def test_a_regression_is_reported_per_file_and_declaration(self):
        p = self.project(
            {
                "Demo/Slow.lean": decls([("slow", 700), ("same", 30), ("added", 40)]),
                "Demo/Fresh.lean": decls([("fresh", 20)]),
            }
        )
        job = p.run()
        self.assertTrue(job.ok, job.logs)
        self.assertEqual(job.outputs["state"], "complete", job.logs)
        self.assertEqual(job.outputs["regressions"], "1", job.logs)
        report = json.loads(Path(job.outputs["report"]).read_text())
        self.assertEqual(report["flagged"], 1)
        self.assertEqual(report["revisions"]["head"], p.head)
        self.assertEqual(report["revisions"]["merge_base"], p.base)

        html = render(job.summary)
        # Regressions first: the flagged file, then its declarations.
        regressions = html.index("Regressions: 1")
        self.assertLess(regressions, html.index("All 2 measured files"))
        first_table = html[regressions:]
        self.assertRegex(first_table, r"(?s)^.*?<table>.*?<code>Demo/Slow.lean</code>.*?regression")
        self.assertRegex(html, r"(?s)Declarations of <code>Demo/Slow.lean</code>.*?<table>.*?<code>slow</code>")
        # Tables came out as tables, also inside the <details> blocks.
        self.assertNotIn("|---", html)
        details = re.findall(r"(?s)<details>(.*?)</details>", html)
        self.assertGreaterEqual(len(details), 3, html)  # all files, two files' declarations, tactics
        for d in details:
            self.assertIn("<summary>", d)
            self.assertIn("<table>", d, d)
        self.assertRegex(html, r"(?s)<summary><code>Demo/Slow.lean</code>: 3 declaration\(s\).*?<code>added</code> \(new\)")
        self.assertIn("The rule.", html)
        self.assertIn("noise", html)

        # The artifact: the reports, both sessions and the published viewer.
        files = [Path(f) for f in job.artifact]
        names = {f.name for f in files}
        self.assertTrue({"report.json", "report.md", "profiles", "site"} <= names, job.artifact)
        site = next(f for f in files if f.name == "site")
        self.assertTrue((site / "index.html").is_file())
        profiles = next(f for f in files if f.name == "profiles")
        for side in ["base", "head"]:
            self.assertTrue((profiles / side / "session.json").is_file())

    def test_regressions_fail_the_job_only_when_asked(self):
        p = self.project({"Demo/Slow.lean": decls([("slow", 700), ("same", 30)])})
        job = p.run(**{"fail-on-regression": "true"})
        self.assertFalse(job.ok)
        self.assertEqual(job.failed_step, "verdict", job.logs)
        self.assertEqual(job.outputs["regressions"], "1")
        self.assertIn("Regressions: 1", render(job.summary))
        self.assertTrue(job.artifact, "the artifact is uploaded before the verdict")
        # An unchanged cost is no regression, asked or not.
        q = self.project({"Demo/Slow.lean": decls([("slow", 50), ("same", 30), ("x", 10)])})
        job = q.run(**{"fail-on-regression": "true"})
        self.assertTrue(job.ok, job.logs)
        self.assertEqual(job.outputs["regressions"], "0")
        self.assertIn("Regressions: 0", render(job.summary))

    def test_no_lean_change_is_a_no_changes_summary(self):
        p = self.project({"README.md": "docs only\n"})
        # leanscope found on PATH, as on a runner that installed it.
        on_path = p.tmp / "tools"
        on_path.mkdir()
        os.symlink(LEANSCOPE, on_path / "leanscope")
        env = p.env()
        env["PATH"] = f"{on_path}:{env['PATH']}"
        inputs = {"leanscope": "", "fail-on-regression": "true"}
        job = run_action(p.repo, p.event(), inputs, env=env, temp_root=p.tmp)
        self.assertIn(str(on_path / "leanscope"), job.logs)
        self.assertTrue(job.ok, job.logs)
        self.assertEqual(job.outputs["state"], "no_changes")
        self.assertEqual(job.outputs["regressions"], "0")
        self.assert_summary_says(job, "No changes:", "changes no library <code>.lean</code> file")

    def test_a_toolchain_bump_is_refused_with_the_reason(self):
        p = self.project(
            {"lean-toolchain": "leanprover/lean4:v4.35.0\n", "Demo/Slow.lean": decls([("slow", 60)])}
        )
        job = p.run()
        self.assertTrue(job.ok, "advisory by default: " + job.logs)
        self.assertEqual(job.outputs["state"], "not_run")
        self.assertEqual(job.outputs["report"], "")
        self.assert_summary_says(job, "not measured", "lean-toolchain")
        self.assertEqual(job.artifact, [], "nothing to upload")
        job = p.run(**{"fail-on-regression": "true"})
        self.assertEqual(job.failed_step, "verdict", job.logs)

    def test_a_failed_build_on_one_side_says_what_failed(self):
        p = self.project({"Demo/Slow.lean": "-- leanscope-fake: build-error\n" + decls([("slow", 50)])})
        job = p.run()
        self.assertTrue(job.ok, job.logs)
        self.assertEqual(job.outputs["state"], "error")
        self.assert_summary_says(job, "The run failed:", "prebuild of head (lake build) failed")
        self.assertIn("report.json", [Path(f).name for f in job.artifact])

    def test_a_timeout_says_what_timed_out(self):
        p = self.project({"Demo/Slow.lean": decls([("slow", 8000)])})
        job = p.run(**{"timeout-file": "1", "repeat": "1"})
        self.assertEqual(job.outputs["state"], "error", job.logs)
        html = self.assert_summary_says(job, "The run failed:", "Demo/Slow.lean")
        self.assertIn("did not finish within 1 s", html)

    def test_a_missing_toolchain_says_so(self):
        p = self.project({"Demo/Slow.lean": decls([("slow", 60)])})
        job = p.run(with_lake=False)
        self.assertEqual(job.outputs["state"], "not_run", job.logs)
        self.assert_summary_says(job, "not measured", "lake")

    def test_a_matrix_of_shards_merges_into_one_report(self):
        p = self.project(
            {
                "Demo/Slow.lean": decls([("slow", 700), ("same", 30)]),
                "Demo/Fresh.lean": decls([("fresh", 20)]),
                "Demo/Other.lean": decls([("other", 20)]),
            }
        )
        downloads = p.tmp / "downloads"
        for k in [1, 2]:
            job = p.run(**{"shard-index": str(k), "shard-count": "2"})
            self.assertTrue(job.ok, job.logs)
            self.assertIn(f"(shard {k} of 2: its files only)", render(job.summary))
            # What download-artifact lays out: one folder per artifact,
            # holding the paths uploaded, relative to the workspace.
            dest = downloads / f"leanscope-revisions-{k}"
            dest.mkdir(parents=True)
            for f in map(Path, job.artifact):
                copy = shutil.copytree if f.is_dir() else shutil.copy
                copy(f, dest / f.name)
        job = p.run(**{"merge-from": str(downloads)})
        self.assertTrue(job.ok, job.logs)
        self.assertEqual(job.outputs["state"], "complete", job.logs)
        self.assertEqual(job.outputs["regressions"], "1")
        html = render(job.summary)
        self.assertIn("(2 shards merged)", html)
        self.assertIn("All 3 measured files", html)
        self.assertRegex(html, r"(?s)Declarations of <code>Demo/Slow.lean</code>.*?<code>slow</code>")
        names = {Path(f).name for f in job.artifact}
        self.assertTrue({"report.json", "profiles", "site"} <= names, job.artifact)
        # A shard missing: the merge says which, and the job fails only when asked.
        shutil.rmtree(downloads / "leanscope-revisions-2")
        job = p.run(**{"merge-from": str(downloads)})
        self.assertTrue(job.ok, job.logs)
        self.assertEqual(job.outputs["state"], "not_run")
        self.assert_summary_says(job, "shards missing: 2 of 2")

    def test_no_revisions_to_compare_says_so(self):
        p = self.project({"Demo/Slow.lean": decls([("slow", 60)])})
        event = p.event()
        event["pull_request"]["base"]["sha"] = ""
        job = p.run(event=event)
        self.assertTrue(job.ok, job.logs)
        self.assertEqual(job.outputs["state"], "not_run")
        self.assert_summary_says(job, "not measured", "give the base and head inputs")
        # Given as inputs, they win over the event.
        job = p.run(event=event, base="main", head="feature")
        self.assertEqual(job.outputs["state"], "complete", job.logs)


# A nightly after v4.35.0: a Lean that writes `.hb.json` (fixtures/README.md).
HB_TOOLCHAIN = "leanprover/lean4:nightly-2026-12-01\n"
HB_BASE = {
    "lean-toolchain": HB_TOOLCHAIN,
    "Demo/Slow.lean": hb_decls([("slow", 5_000, 700), ("same", 300, 20), ("gone", 90, 1)]),
}


class HeartbeatModeTest(ActionCase):
    """`measure: heartbeats`: base and head built (or given built), their
    `.hb.json` files compared exactly."""

    def changed_rows(self, html):
        """The rows of the first table (the changed declarations), as lists
        of cell texts."""
        table = re.search(r"(?s)Declarations whose heartbeats changed.*?<tbody>(.*?)</tbody>", html)
        self.assertIsNotNone(table, html)
        rows = re.findall(r"(?s)<tr>(.*?)</tr>", table.group(1))
        return [
            [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"(?s)<td[^>]*>(.*?)</td>", r)]
            for r in rows
        ]

    def test_a_declaration_that_needs_more_heartbeats_is_named_with_exact_counts(self):
        p = self.project(
            {
                "Demo/Slow.lean": hb_decls([("slow", 9_000, 1_700), ("same", 300, 20), ("fresh", 40, 2)]),
            },
            base_files=HB_BASE,
        )
        job = p.run(hb_json=True, measure="heartbeats")
        self.assertTrue(job.ok, job.logs)
        self.assertEqual(job.outputs["state"], "complete", job.summary + job.logs)
        self.assertEqual(job.outputs["regressions"], "1", job.summary)
        self.assertIn("lake build of base", job.logs)
        self.assertIn("lake build of head", job.logs)

        # The counts, read from the two builds' own .hb.json files.
        temp = Path(job.outputs["report"]).parent.parent
        [base_wt] = temp.glob("leanscope-heartbeats-base-*")
        [head_wt] = temp.glob("leanscope-heartbeats-head-*")
        base, head = hb_totals(base_wt), hb_totals(head_wt)
        key = ("Demo/Slow.lean", "slow")
        self.assertEqual((base[key], head[key]), (5_700, 10_700))
        html = render(job.summary)
        self.assertIn(f"heartbeats of base {p.base[:7]} → head {p.head[:7]}", html)
        rows = self.changed_rows(html)
        self.assertEqual(
            rows,
            [["slow", "Demo/Slow.lean", f"{base[key]:,}", f"{head[key]:,}", "+5,000", "+87.71 %", "flagged"]],
            html,
        )
        self.assertIn("Declarations whose heartbeats changed: 1 (1 flagged)", html)
        # The new and the removed declaration, collapsed, with their counts.
        self.assertRegex(html, r"(?s)<summary>New declarations \(head only\): 1</summary>.*?<code>fresh</code>.*?<td[^>]*>42</td>")
        self.assertRegex(html, r"(?s)<summary>Removed declarations \(base only\): 1</summary>.*?<code>gone</code>.*?<td[^>]*>91</td>")
        self.assertRegex(html, r"(?s)<summary>Files: 1 of \d+ changed</summary>.*?<code>Demo/Slow.lean</code>")
        self.assertIn("The counts are exact.", html)
        self.assertIn("grew at all (no tolerance)", html)
        self.assertNotIn("|---", html)

        # The artifact: both sessions, the comparison, the summary, the logs, the viewer.
        names = {Path(f).name for f in job.artifact}
        self.assertTrue({"comparison.json", "report.md", "profiles", "logs", "site"} <= names, job.artifact)
        self.assertEqual(Path(job.outputs["report"]).name, "comparison.json")
        profiles = next(Path(f) for f in job.artifact if Path(f).name == "profiles")
        for side in ["base", "head"]:
            self.assertTrue((profiles / side / "session.json").is_file())

        # A tolerance above the change flags nothing; asked to fail, the job fails only on a flag.
        job = p.run(hb_json=True, measure="heartbeats", **{"flag-heartbeats-bps": "9000", "fail-on-regression": "true"})
        self.assertTrue(job.ok, job.logs)
        self.assertEqual(job.outputs["regressions"], "0", job.summary)
        self.assertIn("within the tolerance", render(job.summary))
        job = p.run(hb_json=True, measure="heartbeats", **{"fail-on-regression": "true"})
        self.assertEqual(job.failed_step, "verdict", job.logs)

    def test_given_builds_are_compared_without_building(self):
        p = self.project(
            {"Demo/Slow.lean": hb_decls([("slow", 5_000, 700), ("same", 299, 20), ("gone", 90, 1)])},
            base_files=HB_BASE,
        )
        base_build, head_build = p.build_of(p.base), p.build_of(p.head)
        # No lake on PATH: a build would fail, so none was run.
        job = p.run(
            with_lake=False,
            measure="heartbeats",
            **{"base-build": str(base_build), "head-build": str(head_build)},
        )
        self.assertTrue(job.ok, job.logs)
        self.assertEqual(job.outputs["state"], "complete", job.summary + job.logs)
        self.assertNotIn("lake build of", job.logs)
        key = ("Demo/Slow.lean", "same")
        b, h = hb_totals(base_build)[key], hb_totals(head_build)[key]
        html = render(job.summary)
        self.assertIn(f"heartbeats of base (the build in {base_build}) → head (the build in {head_build})", html)
        # One heartbeat fewer: a change all the same (exact counts), not a flag.
        self.assertEqual(
            self.changed_rows(html), [["same", "Demo/Slow.lean", f"{b:,}", f"{h:,}", "−1", "−0.31 %", "fewer"]]
        )
        self.assertEqual(job.outputs["regressions"], "0")

    def test_the_checkouts_dependencies_are_linked_only_for_the_same_manifest(self):
        manifest = '{"version": "1.1.0", "packagesDir": ".lake/packages", "packages": []}\n'
        p = self.project(
            {"lake-manifest.json": manifest.replace("[]", '[{"name": "dep"}]')},
            base_files={**HB_BASE, "lake-manifest.json": manifest},
        )
        # What `lake exe cache get` leaves in the checkout (the head).
        (p.repo / ".lake/packages/dep").mkdir(parents=True)
        job = p.run(hb_json=True, measure="heartbeats")
        self.assertEqual(job.outputs["state"], "complete", job.summary + job.logs)
        temp = Path(job.outputs["report"]).parent.parent
        [base_wt] = temp.glob("leanscope-heartbeats-base-*")
        [head_wt] = temp.glob("leanscope-heartbeats-head-*")
        # The head pins the checkout's dependencies: linked; the base pins others: not.
        self.assertTrue((head_wt / ".lake/packages").is_symlink())
        self.assertEqual((head_wt / ".lake/packages").resolve(), (p.repo / ".lake/packages").resolve())
        self.assertFalse((base_wt / ".lake/packages").exists())

    def test_a_toolchain_without_hb_json_is_named(self):
        p = self.project({"Demo/Slow.lean": hb_decls([("slow", 6_000, 700)])})
        job = p.run(hb_json=False, measure="heartbeats")
        self.assertTrue(job.ok, "advisory by default: " + job.logs)
        self.assertEqual(job.outputs["state"], "not_run", job.summary + job.logs)
        self.assertEqual(job.outputs["regressions"], "0")
        html = self.assert_summary_says(
            job, "heartbeats not compared", "no .hb.json file", "leanprover/lean4:v4.31.0", "v4.35.0"
        )
        self.assertIn("<pre>", html)
        job = p.run(hb_json=False, measure="heartbeats", **{"fail-on-regression": "true"})
        self.assertEqual(job.failed_step, "verdict", job.logs)

    def test_a_failed_build_says_which_side(self):
        p = self.project(
            {"Demo/Slow.lean": "-- leanscope-fake: build-error\n" + hb_decls([("slow", 1, 1)])},
            base_files=HB_BASE,
        )
        job = p.run(hb_json=True, measure="heartbeats")
        self.assertEqual(job.outputs["state"], "error", job.summary + job.logs)
        self.assert_summary_says(job, "The build of head", "failed")
        self.assertIn("logs", {Path(f).name for f in job.artifact})

    def test_a_build_past_timeout_build_says_so(self):
        p = self.project({"Demo/Slow.lean": hb_decls([("slow", 1, 1)])}, base_files=HB_BASE)
        # A lake whose build never ends (the fake toolchain's always does).
        slow = p.tmp / "slow-lake"
        slow.mkdir()
        (slow / "lake").write_text("#!/bin/sh\nexec sleep 60\n")
        (slow / "lake").chmod(0o755)
        env = p.env(hb_json=True)
        env["PATH"] = f"{slow}:{env['PATH']}"
        inputs = {"leanscope": str(LEANSCOPE), "measure": "heartbeats", "timeout-build": "1"}
        job = run_action(p.repo, p.event(), inputs, env=env, temp_root=p.tmp)
        self.assertTrue(job.ok, job.logs)
        self.assertEqual(job.outputs["state"], "error", job.summary + job.logs)
        self.assert_summary_says(job, "The build of base", "did not finish within 1 s (timeout-build)")

    def test_an_unknown_measure_or_flag_is_refused(self):
        p = self.project({"Demo/Slow.lean": decls([("slow", 60)])})
        job = p.run(measure="instructions")
        self.assertEqual(job.outputs["state"], "not_run", job.logs)
        self.assert_summary_says(job, "give time or heartbeats")
        job = p.run(measure="heartbeats", **{"flag-heartbeats-bps": "1.5"})
        self.assertTrue(job.ok, job.logs)
        self.assertEqual(job.outputs["state"], "not_run", job.logs)
        self.assert_summary_says(job, "flag-heartbeats-bps input is", "1.5", "whole number")


if __name__ == "__main__":
    unittest.main()
