"""Each `leanscope mcp` tool's reply size and latency on the demo project, and leanscope's own
time per call beyond Lean's run, through the official Python client over stdio (the fake
toolchain replays Lean's output with no delays). Prints a Markdown table for
docs/benchmarks.md.

Run: ~/.cache/leanscope/mcp-venv/bin/python tests/mcp/bench_mcp.py [RUNS]
(LEANSCOPE_BIN picks the binary; default target/debug/leanscope)."""

import json
import statistics
import subprocess
import sys
import time

import anyio

from world import World

RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 20


def reply_bytes(result):
    """The tool result as the server sent it: content and structuredContent, compact JSON."""
    return len(json.dumps(result.model_dump(by_alias=True, exclude_none=True), separators=(",", ":")).encode())


async def main():
    w = World()
    git = ["git", "-c", "user.name=b", "-c", "user.email=b@b", "-c", "commit.gpgsign=false"]
    for step in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "demo"]):
        subprocess.run(git + step, cwd=w.project, check=True)
    try:
        async with w.session() as s:
            first = await s.call_tool("profile_file", {"file": "Demo/Clean.lean"})
            rec = first.structured_content["recording"]
            base = first.structured_content["recording"]
            calls = [
                ("profile_file", {"file": "Demo/Clean.lean"}),
                ("profile_declaration", {"file": "Demo/Clean.lean", "declaration": "double_add"}),
                ("profile_file (heartbeats)", {"file": "Demo/Clean.lean", "measure": "heartbeats"}),
                ("query", {"source": rec, "kind": "tactic"}),
                ("hot_spots", {"source": rec}),
                ("compare", {"baseline": base, "candidate": rec}),
                ("revisions (plan)", None),
                ("resources/read", None),
            ]
            rows = []
            for label, args in calls:
                times, sizes, lean, own_cpu = [], [], [], []
                for _ in range(RUNS):
                    t0 = time.perf_counter()
                    if label == "resources/read":
                        r = await s.read_resource(first.structured_content["resource"])
                        size = len(json.dumps(r.model_dump(by_alias=True, exclude_none=True)).encode())
                    elif label == "revisions (plan)":
                        r = await s.call_tool("revisions", {"repo": ".", "base": "HEAD"})
                        assert not r.is_error, r.content[0].text
                        size = reply_bytes(r)
                    else:
                        name = label.split(" ")[0]
                        r = await s.call_tool(name, args)
                        assert not r.is_error, (label, r.content[0].text)
                        size = reply_bytes(r)
                        d = r.structured_content
                        if "leanWallMs" in d:
                            lean.append(d["leanWallMs"])
                            own_cpu.append(d["leanscopeCpuMs"])
                    times.append((time.perf_counter() - t0) * 1000)
                    sizes.append(size)
                med = statistics.median(times)
                row = {"tool": label, "bytes": max(sizes), "median_ms": med,
                       "p90_ms": sorted(times)[int(0.9 * (len(times) - 1))]}
                if lean:
                    row["lean_ms"] = statistics.median(lean)
                    row["beyond_lean_ms"] = med - statistics.median(lean)
                    row["leanscope_cpu_ms"] = statistics.median(own_cpu)
                rows.append(row)
    finally:
        w.cleanup()
    print(f"{RUNS} calls each, one session, demo project (Demo/Clean.lean), fake toolchain")
    print("| tool | reply bytes | median ms | p90 ms | Lean's run ms | beyond Lean ms | leanscope CPU ms |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        extra = (f"{r['lean_ms']:.0f} | {r['beyond_lean_ms']:.1f} | {r['leanscope_cpu_ms']:.1f}"
                 if "lean_ms" in r else "– | – | –")
        print(f"| {r['tool']} | {r['bytes']} | {r['median_ms']:.1f} | {r['p90_ms']:.1f} | {extra} |")


if __name__ == "__main__":
    anyio.run(main)
