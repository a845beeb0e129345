"""`leanscope mcp` through the official Python MCP client (`mcp` on PyPI) over stdio, against
the real binary and the fake toolchain on the demo project (issue 36's Tests).

Run: python -m pytest tests/mcp/ (scripts/test uses the venv scripts/setup makes)."""

import json
import os
import subprocess
import sys
import time

import anyio
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from world import World, _binary, alive, rss_kib, server_pid  # noqa: E402

TOOLS = {
    "profile_file": ["file"],
    "profile_declaration": ["declaration", "file"],
    "query": ["source"],
    "hot_spots": ["source"],
    "compare": ["baseline", "candidate"],
    "revisions": ["base", "repo"],
}

BEATS = """namespace Demo.Beats

def base (n : Nat) : Nat := n + 1 -- leanscope-fake: heartbeats 3000000

theorem uses_base : base 1 = 2 := by -- leanscope-fake: heartbeats 9000000
  rfl -- leanscope-fake: heartbeats 7000000

end Demo.Beats
"""

SLOW = """theorem slow : True := by
  trivial -- leanscope-fake: cost 60000ms
"""


@pytest.fixture
def world():
    w = World()
    yield w
    w.cleanup()


def run(main):
    anyio.run(main)


def data(result):
    assert result.structured_content is not None, result.content
    return result.structured_content


def text(result):
    return result.content[0].text


def test_tools_are_listed_with_their_schemas(world):
    async def main():
        async with world.session() as s:
            tools = {t.name: t for t in (await s.list_tools()).tools}
            assert sorted(tools) == sorted(TOOLS)
            for name, required in TOOLS.items():
                schema = tools[name].input_schema
                assert schema["type"] == "object", name
                assert schema["additionalProperties"] is False, name
                assert sorted(schema.get("required", [])) == required, name
                assert tools[name].description, name
            pf = tools["profile_file"].input_schema
            assert set(pf["properties"]) == {
                "file", "measure", "threshold", "repeat", "limit", "lake", "timeoutSeconds"}
            measures = pf["$defs"]["MeasureArg"]["oneOf"]
            assert [m["const"] for m in measures] == ["time", "heartbeats"]
            kinds = tools["query"].input_schema["$defs"]["Kind"]["enum"]
            assert kinds == ["file", "folder", "declaration", "tactic"]

    run(main)


def test_profile_file_reports_the_account_declarations_tactics_and_lines(world):
    async def main():
        progress = []

        async def on_progress(p, total, message):
            progress.append(message)

        async with world.session() as s:
            r = await s.call_tool("profile_file", {"file": "Demo/Clean.lean"},
                                  progress_callback=on_progress)
            assert not r.is_error, text(r)
            d = data(r)
            assert d["unit"] == "ms" and d["measure"] == "time"
            assert d["account"]["file"] > 0 and d["account"]["imports"] > 0
            names = {row["name"]: row for row in d["declarations"]["rows"]}
            assert names["Demo.Clean.double_add"]["line"] == 7
            assert d["declarations"]["matched"] == 5
            assert d["tactics"]["rows"] and all(t["total"] > 0 for t in d["tactics"]["rows"])
            assert d["lines"]["rows"][0]["total"] >= d["lines"]["rows"][-1]["total"]
            assert d["lines"]["matched"] == len(d["lines"]["rows"]) + d["lines"]["leftOut"]
            assert os.path.isfile(d["recording"])
            assert "Slowest declarations: Demo.Clean." in text(r)
            assert any(m and m.startswith("Starting Lean on Demo.Clean") for m in progress), progress

            # The recording is a resource, and reading it gives the same report.
            listed = [x.uri for x in (await s.list_resources()).resources]
            assert d["resource"] in listed
            read = await s.read_resource(d["resource"])
            body = json.loads(read.contents[0].text)
            assert body["declarations"]["rows"] == d["declarations"]["rows"]

            # limit bounds every list and counts what was left out.
            q = await s.call_tool("query", {"source": d["resource"], "kind": "tactic", "limit": 2})
            assert not q.is_error, text(q)
            assert len(data(q)["rows"]) == 2 and data(q)["matched"] == d["tactics"]["matched"]
            h = await s.call_tool("hot_spots", {"source": d["recording"], "limit": 3})
            assert not h.is_error, text(h)
            assert len(data(h)["rows"]) <= 3
            c = await s.call_tool("compare", {"baseline": d["recording"], "candidate": d["resource"]})
            assert not c.is_error, text(c)
            assert data(c)["comparison"]["has_regression"] is False
            assert data(c)["comparison"]["matchedCount"] >= 5

    run(main)


def test_profile_declaration_uses_earlier_declarations_of_its_file(world):
    # double_add unfolds `double`, defined earlier in the same file: a copy of the header and
    # the theorem alone would not elaborate; the whole file is captured instead.
    async def main():
        async with world.session() as s:
            r = await s.call_tool("profile_declaration",
                                  {"file": "Demo/Clean.lean", "declaration": "double_add"})
            assert not r.is_error, text(r)
            d = data(r)
            assert d["capturedWholeFile"] is True
            decl = d["declaration"]
            assert (decl["name"], decl["kind"], decl["line"], decl["endLine"]) == (
                "Demo.Clean.double_add", "theorem", 7, 9)
            assert decl["total"] > decl["self"] > 0
            tactics = d["tactics"]["rows"]
            assert {t["tactic"] for t in tactics} >= {"unfold double", "omega"}
            assert all(8 <= t["line"] <= 9 for t in tactics)
            assert {row["line"] for row in d["lines"]["rows"]} == {7, 8, 9}
            assert text(r).startswith("Demo.Clean.double_add (theorem, lines 7–9)")

            full = await s.call_tool("profile_declaration",
                                     {"file": "Demo/Clean.lean", "declaration": "Demo.Clean.double_add"})
            assert data(full)["declaration"]["name"] == "Demo.Clean.double_add"
            missing = await s.call_tool("profile_declaration",
                                        {"file": "Demo/Clean.lean", "declaration": "nope"})
            assert missing.is_error
            assert 'no declaration "nope"' in text(missing)
            assert "Demo.Clean.double_add" in text(missing)

    run(main)


def test_profile_file_repeated_reports_medians_from_a_session(world):
    async def main():
        async with world.session() as s:
            r = await s.call_tool("profile_file", {"file": "Demo/Clean.lean", "repeat": 3})
            assert not r.is_error, text(r)
            d = data(r)
            assert d["runs"] == 3 and os.path.isdir(d["session"])
            assert d["session"].startswith(str(world.project / ".leanscope/sessions"))
            decl = {row["name"]: row for row in d["declarations"]["rows"]}["Demo.Clean.double_add"]
            assert decl["durationSpread"]["runs"] == 3
            assert "3 times (after a warm-up run)" in text(r)
            listed = [x.uri for x in (await s.list_resources()).resources]
            assert d["resource"] in listed and d["resource"].startswith("leanscope://session/")
            body = json.loads((await s.read_resource(d["resource"])).contents[0].text)
            assert body["files"]["rows"][0]["path"] == "Demo/Clean.lean"

    run(main)


def test_heartbeats(world):
    world.write("Demo/Beats.lean", BEATS)

    async def main():
        async with world.session() as s:
            r = await s.call_tool("profile_file", {"file": "Demo/Beats.lean", "measure": "heartbeats"})
            assert not r.is_error, text(r)
            d = data(r)
            assert (d["measure"], d["unit"]) == ("heartbeats", "heartbeats")
            rows = {row["name"]: row for row in d["declarations"]["rows"]}
            assert rows["Demo.Beats.uses_base"]["total"] == 9000000
            assert rows["Demo.Beats.base"]["total"] == 3000000
            assert "12.0 M hb in all" in text(r)
            assert "Demo.Beats.uses_base (9.00 M hb, line 5)" in text(r), text(r)
            r = await s.call_tool("profile_declaration",
                                  {"file": "Demo/Beats.lean", "declaration": "uses_base",
                                   "measure": "heartbeats"})
            assert not r.is_error, text(r)
            d = data(r)
            assert d["unit"] == "heartbeats"
            assert d["declaration"]["total"] == 9000000
            assert d["declaration"]["self"] == 2000000
            assert d["tactics"]["rows"][0]["total"] == 7000000

    run(main)


def test_a_cancelled_capture_leaves_no_lean_running(world):
    world.write("Demo/Slow.lean", SLOW)

    async def main():
        async with world.session() as s:
            started = anyio.Event()

            async def on_progress(p, total, message):
                if message and message.startswith("Starting Lean"):
                    started.set()

            async def call():
                await s.call_tool("profile_file", {"file": "Demo/Slow.lean"},
                                  progress_callback=on_progress)
                raise AssertionError("the capture finished instead of being cancelled")

            with anyio.fail_after(30):
                async with anyio.create_task_group() as tg:
                    tg.start_soon(call)
                    await started.wait()
                    # Wait until the fake lean runs, then cancel the call.
                    while not any(alive(p) for p in world.fake_pids()):
                        await anyio.sleep(0.05)
                    tg.cancel_scope.cancel()
            pids = world.fake_pids()
            assert pids
            deadline = time.monotonic() + 10
            while any(alive(p) for p in pids) and time.monotonic() < deadline:
                await anyio.sleep(0.05)
            assert not any(alive(p) for p in pids), [p for p in pids if alive(p)]
            recordings = world.project / ".leanscope/recordings"
            assert not recordings.exists() or not any(recordings.glob("Demo.Slow*"))
            # The server is still there.
            assert len((await s.list_tools()).tools) == len(TOOLS)

    run(main)


BAD = [
    ("profile_file", {}, "missing field `file`"),
    ("profile_file", {"file": 3}, "invalid type: integer `3`, expected a string"),
    ("profile_file", {"file": "Demo/Clean.lean", "colour": "red"}, "unknown field `colour`"),
    ("profile_file", {"file": "Demo/Clean.lean", "measure": "cycles"}, "unknown variant `cycles`"),
    ("profile_file", {"file": "Demo/Clean.lean", "limit": 0}, "limit 0 is out of range: give 1 to 200"),
    ("profile_file", {"file": "Demo/Clean.lean", "repeat": 0}, "repeat 0 is out of range"),
    ("profile_file", {"file": "Demo/Clean.lean", "timeoutSeconds": 0}, "timeoutSeconds 0 is out of range"),
    ("profile_file", {"file": "Demo/Nope.lean"}, "Nope.lean does not exist: give the path of a Lean source file"),
    ("profile_file", {"file": "lakefile.toml"}, "is not a .lean file"),
    ("profile_declaration", {"file": "Demo/Clean.lean", "declaration": " "}, "declaration is empty"),
    ("query", {"source": "nowhere.lsrec"}, "nowhere.lsrec does not exist"),
    ("query", {"source": "leanscope://elsewhere/x"}, "is not a leanscope resource"),
    ("query", {"source": "lakefile.toml"}, "is neither a session directory nor a readable recording"),
    ("query", {"source": "Demo", "kind": "theorem"}, "unknown variant `theorem`"),
    ("hot_spots", {"source": "Demo/Clean.lean"}, "Demo/Clean.lean"),
    ("compare", {"baseline": "a.lsrec", "candidate": "b.lsrec", "metric": "speed"}, 'unknown metric "speed"'),
    ("compare", {"baseline": "a.lsrec", "candidate": "b.lsrec"}, "the baseline"),
    ("revisions", {"repo": "nowhere", "base": "HEAD"}, "is not a folder"),
    ("revisions", {"repo": ".", "base": "HEAD"}, "cannot plan"),
    ("no_such_tool", {}, "there is no tool \"no_such_tool\""),
]


def test_malformed_arguments_get_tool_errors(world):
    async def main():
        async with world.session() as s:
            for name, args, expected in BAD:
                r = await s.call_tool(name, args)
                assert r.is_error, (name, args, text(r))
                assert expected in text(r), (name, args, text(r))
            # Still serving, and a good call still works.
            r = await s.call_tool("profile_file", {"file": "Demo/Clean.lean"})
            assert not r.is_error, text(r)

    run(main)


def test_junk_and_oversized_messages_are_dropped_and_the_server_goes_on(world):
    # Below the client library: raw JSON lines on the server's stdin.
    p = subprocess.Popen([str(_binary("leanscope")), "mcp"], cwd=world.project, env=world.env,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        def send(obj):
            p.stdin.write((json.dumps(obj) + "\n").encode())
            p.stdin.flush()

        send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}})
        assert json.loads(p.stdout.readline())["id"] == 1
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        p.stdin.write(b"{not json\n")
        # Over the 16 MiB limit of a message (rmcp's stdio transport): dropped, not buffered.
        p.stdin.write(b"x" * (17 * 1024 * 1024) + b"\n")
        send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        while True:
            m = json.loads(p.stdout.readline())
            if m.get("id") == 2:
                break
        assert len(m["result"]["tools"]) == len(TOOLS)
        p.stdin.close()
        assert p.wait(timeout=10) == 0
    finally:
        p.kill()
        p.wait()


def test_lean_errors_and_a_missing_toolchain_are_tool_errors_that_say_what_to_do(world):
    async def main():
        async with world.session() as s:
            r = await s.call_tool("profile_file", {"file": "Demo/Broken.lean"})
            assert r.is_error
            assert "Lean reported" in text(r) and "Fix them and profile again" in text(r)
            assert data(r)["errors"]["rows"], "the partial profile keeps Lean's errors"
        world.env["PATH"] = "/usr/bin:/bin"
        async with world.session() as s:
            r = await s.call_tool("profile_file", {"file": "Demo/Clean.lean"})
            assert r.is_error
            assert text(r).startswith("no Lean toolchain: cannot find lake"), text(r)
            assert "pass lake" in text(r)
        # The editor passes its leanscope.lakePath as --lake: the default of every capture.
        async with world.session("--lake", str(world.bin / "lake")) as s:
            r = await s.call_tool("profile_file", {"file": "Demo/Clean.lean"})
            assert not r.is_error, text(r)

    run(main)


def test_revisions_plans_a_change(world):
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    p = world.project
    subprocess.run(git + ["init", "-q"], cwd=p, check=True)
    subprocess.run(git + ["add", "-A"], cwd=p, check=True)
    subprocess.run(git + ["commit", "-qm", "one"], cwd=p, check=True)
    (p / "Demo/Clean.lean").write_text((p / "Demo/Clean.lean").read_text() + "\n-- changed\n")
    subprocess.run(git + ["commit", "-qam", "two"], cwd=p, check=True)

    async def main():
        async with world.session() as s:
            r = await s.call_tool("revisions", {"repo": ".", "base": "HEAD~1"})
            assert not r.is_error, text(r)
            files = [f["path"] for f in data(r)["files"]]
            assert files == ["Demo/Clean.lean"], data(r)
            assert "1 .lean file(s) differ" in text(r)

    run(main)


def test_revisions_runs_both_sides_and_compares_them(world):
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    repo = world.dir / "rev"
    (repo / "Demo").mkdir(parents=True)
    (repo / "lakefile.toml").write_text(
        'name = "demo"\ndefaultTargets = ["Demo"]\n\n[[lean_lib]]\nname = "Demo"\n')
    (repo / "lean-toolchain").write_text("leanprover/lean4:v4.18.0\n")

    def slow(ms):
        (repo / "Demo/A.lean").write_text(
            f"theorem slow : True := by\n  trivial -- leanscope-fake: cost {ms}ms\n")

    slow(30)
    subprocess.run(git + ["init", "-q"], cwd=repo, check=True)
    subprocess.run(git + ["add", "-A"], cwd=repo, check=True)
    subprocess.run(git + ["commit", "-qm", "base"], cwd=repo, check=True)
    base = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, check=True,
                          capture_output=True, text=True).stdout.strip()
    subprocess.run(git + ["checkout", "-qb", "feature"], cwd=repo, check=True)
    slow(400)
    subprocess.run(git + ["commit", "-qam", "slower"], cwd=repo, check=True)

    async def main():
        progress = []

        async def on_progress(p, total, message):
            progress.append(message)

        async with world.session() as s:
            r = await s.call_tool("revisions", {"repo": str(repo), "base": base, "run": True},
                                  progress_callback=on_progress)
            assert not r.is_error, text(r)
            d = data(r)
            assert (d["state"], d["files"]) == ("complete", 1), d
            assert os.path.isdir(d["headSession"]) and os.path.isdir(d["baseSession"])
            rows = d["diff"]["comparison"]["matched"]
            assert any(row["status"] == "regression" for row in rows), rows
            assert progress, "a revision run reports its steps"

    run(main)


def test_a_hundred_calls_leave_memory_flat(world):
    calls = [
        ("profile_file", {"file": "Demo/Clean.lean"}),
        ("query", {"source": None, "kind": "tactic"}),
        ("hot_spots", {"source": None}),
        ("profile_declaration", {"file": "Demo/Clean.lean", "declaration": "le_double"}),
    ]

    async def main():
        async with world.session() as s:
            pid = server_pid()
            recording = None
            rss = []
            for i in range(100):
                name, args = calls[i % len(calls)]
                args = {k: (v if v is not None else recording) for k, v in args.items()}
                r = await s.call_tool(name, args)
                assert not r.is_error, (i, name, text(r))
                if name == "profile_file":
                    recording = data(r)["recording"]
                if i in (19, 99):
                    rss.append(rss_kib(pid))
            growth = rss[1] - rss[0]
            print(f"leanscope mcp RSS after 20 calls {rss[0]} KiB, after 100 calls {rss[1]} KiB")
            assert growth < 4096, f"RSS grew by {growth} KiB over 80 calls: {rss}"

    run(main)
