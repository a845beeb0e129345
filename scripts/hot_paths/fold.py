"""Folded stacks to figures, for scripts/profile-hot-paths.

  fold.py merge FOLDED...              the stacks of several runs summed (stdout)
  fold.py scenario NAME WORK DIR       one scenario's figures (JSON on stdout)
  fold.py report OUT COMMIT HYPOTHESES every scenario, the environment and the
                                       hypotheses' verdicts (JSON on stdout)
  fold.py markdown SUMMARY             that summary's tables, for docs/hot-paths.md

A folded line is `frame;frame;…;frame COUNT` (inferno's format), root first;
COUNT is nanoseconds of CPU (perf's cpu-clock periods; the viewer's V8
samples weighed by their time deltas). A frame's inclusive share is the share
of CPU time whose stack holds it at least once; its self share, where it is
the leaf. The root (the process or thread name) and `[unknown]` (a frame
DWARF unwinding could not name) are left out of the top lists.
"""

import collections
import json
import os
import platform
import re
import statistics
import subprocess
import sys

TOP = 15


def read_folded(path):
    stacks = collections.Counter()
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            stack, _, count = line.rpartition(" ")
            if not stack or not count.isdigit():
                raise SystemExit(f"{path}: not a folded line: {line[:80]!r}")
            stacks[stack] += int(count)
    return stacks


def merge(paths):
    total = collections.Counter()
    for p in paths:
        total.update(read_folded(p))
    for stack, count in sorted(total.items()):
        print(f"{stack} {count}")


UNNAMED = "[unknown]"


def shares(stacks):
    samples = sum(stacks.values())
    inclusive, leaf = collections.Counter(), collections.Counter()
    for stack, count in stacks.items():
        frames = stack.split(";")
        for f in set(frames[1:]) - {UNNAMED}:
            inclusive[f] += count
        leaf[frames[-1]] += count
    return samples, inclusive, leaf


def top(counter, samples):
    return [{"frame": f, "cpu_ns": n, "share": round(n / samples, 4)}
            for f, n in counter.most_common(TOP)] if samples else []


def callgrind(d):
    """Total instructions (Ir) of the callgrind run, its input and top self frames."""
    out = os.path.join(d, "callgrind.out")
    if not os.path.exists(out):
        return None
    total = None
    with open(out, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith(("summary:", "totals:")):
                total = int(line.split()[1])
    annotated = subprocess.run(["callgrind_annotate", "--inclusive=no", out],
                               capture_output=True, text=True).stdout
    frames = []
    for line in annotated.splitlines():
        m = re.match(r"\s*([\d,]+)\s+\(\s*([\d.]+)%\)\s+(.*)$", line)
        if m and "PROGRAM TOTALS" not in line and len(frames) < TOP:
            frames.append({"frame": m.group(3).strip(), "instructions": int(m.group(1).replace(",", "")),
                           "share": round(float(m.group(2)) / 100, 4)})
    with open(os.path.join(d, "callgrind.work"), encoding="utf-8") as f:
        work = f.read().strip()
    return {"instructions": total, "input": work, "top_self": frames}


def scenario(name, work, d):
    stacks = read_folded(os.path.join(d, f"{name}.folded"))
    samples, inclusive, leaf = shares(stacks)
    with open(os.path.join(d, "walls"), encoding="utf-8") as f:
        walls = [float(x) for x in f.read().split()]
    amount, unit = work.split(" ", 1)
    median = statistics.median(walls)
    cpu = samples / len(walls) / 1e9
    return {
        "scenario": name,
        "work": {"amount": int(amount), "unit": unit},
        "wall_seconds": walls,
        "median_wall_seconds": median,
        "wall_throughput_per_second": round(int(amount) / median, 1) if median else None,
        # leanscope's own CPU (the fake Lean's excluded), per repeat on average.
        "cpu_seconds_per_run": round(cpu, 4),
        "throughput_per_cpu_second": round(int(amount) / cpu, 1) if cpu else None,
        "cpu_ns": samples,
        "top_inclusive": top(inclusive, samples),
        "top_self": top(leaf, samples),
        "callgrind": callgrind(d),
    }


def version(cmd):
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
        return (r.stdout or r.stderr).strip().splitlines()[0]
    except (OSError, IndexError, subprocess.TimeoutExpired):
        return None


def environment(commit):
    cpu = None
    with open("/proc/cpuinfo", encoding="utf-8") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    hw = "not supported" not in subprocess.run(
        ["perf", "stat", "-e", "instructions:u", "true"], capture_output=True, text=True).stderr
    return {
        "commit": commit, "cpu": cpu, "cores": os.cpu_count(), "kernel": platform.release(),
        "perf": version(["perf", "--version"]), "inferno": next((l.rstrip(":") for l in subprocess.run(
            ["cargo", "install", "--list"], capture_output=True, text=True).stdout.splitlines()
            if l.startswith("inferno ")), None),
        "valgrind": version(["valgrind", "--version"]), "rustc": version(["rustc", "--version"]),
        "chromium": version(["chromium", "--version"]), "hardware_counters": hw,
        "load_average": open("/proc/loadavg", encoding="utf-8").read().split()[:3],
    }


def verdict(h, scenarios):
    """A hypothesis: the frames matching `frames` hold at least `supported_at`
    of a scenario's samples (inclusive); under half of that refutes it."""
    s = scenarios.get(h["scenario"])
    if s is None:
        return {**h, "verdict": "not measured", "share": None}
    stacks = read_folded(s["_folded"])
    samples = sum(stacks.values())
    pattern = re.compile(h["frames"])
    hit = sum(n for stack, n in stacks.items() if any(pattern.search(f) for f in stack.split(";")))
    share = hit / samples if samples else 0.0
    if share >= h["supported_at"]:
        v = "supported"
    elif share < h["supported_at"] / 2:
        v = "refuted"
    else:
        v = "inconclusive"
    return {**h, "verdict": v, "share": round(share, 4)}


def report(out, commit, hypotheses_path):
    scenarios = {}
    for name in sorted(os.listdir(out)):
        p = os.path.join(out, name, "summary.json")
        if os.path.exists(p):
            with open(p, encoding="utf-8") as f:
                s = json.load(f)
            s["_folded"] = os.path.join(out, name, f"{name}.folded")
            scenarios[name] = s
    with open(hypotheses_path, encoding="utf-8") as f:
        hypotheses = json.load(f)
    verdicts = [verdict(h, scenarios) for h in hypotheses]
    with open(os.path.join(out, "inputs.tsv"), encoding="utf-8") as f:
        inputs = [dict(zip(("scenario", "what", "sha256"), l.rstrip("\n").split("\t"))) for l in f if l.strip()]
    for s in scenarios.values():
        del s["_folded"]
    json.dump({"environment": environment(commit), "inputs": inputs, "scenarios": scenarios,
               "hypotheses": verdicts}, sys.stdout, indent=2)
    print()


def cell(text):
    return str(text).replace("|", "\\|")


def markdown(path):
    with open(path, encoding="utf-8") as f:
        r = json.load(f)
    env = r["environment"]
    print("Table 1. The environment of the run.\n")
    print("| what | value |\n|---|---|")
    for k in ("commit", "cpu", "cores", "kernel", "perf", "inferno", "valgrind", "rustc", "chromium",
              "hardware_counters", "load_average"):
        print(f"| {k} | {cell(env.get(k))} |")
    print("\nTable 2. The inputs (made by the script, seeded; SHA-256 of each).\n")
    print("| scenario | input | SHA-256 |\n|---|---|---|")
    for i in r["inputs"]:
        print(f"| {i['scenario']} | {cell(i['what'])} | `{i['sha256'][:16]}…` |")
    print("\nTable 3. Throughput: wall time of each repeat under perf, leanscope's own CPU per "
          "repeat (from the samples), and work per CPU second; instructions from callgrind, "
          "on the input named.\n")
    print("| scenario | work | wall s (3 repeats) | CPU s / repeat | per CPU second | callgrind |")
    print("|---|---|---|---|---|---|")
    for name, s in r["scenarios"].items():
        w = s["work"]
        cg = s.get("callgrind")
        cgt = f"{cg['instructions'] / 1e9:.2f} G instructions ({cg['input']})" if cg and cg["instructions"] else "—"
        per = s["throughput_per_cpu_second"]
        print(f"| {name} | {w['amount']:,} {w['unit']} | {' / '.join(f'{x:.2f}' for x in s['wall_seconds'])} "
              f"| {s['cpu_seconds_per_run']:.3f} | {per:,.0f} {w['unit']} | {cgt} |")
    n = 4
    for name, s in r["scenarios"].items():
        print(f"\nTable {n}. `{name}`: the top frames by inclusive and by self share of leanscope's CPU.\n")
        n += 1
        print("| inclusive | frame | self | frame |\n|---|---|---|---|")
        for a, b in zip(s["top_inclusive"][:10], s["top_self"][:10]):
            print(f"| {a['share']:.1%} | `{cell(a['frame'][:90])}` | {b['share']:.1%} | `{cell(b['frame'][:90])}` |")
    print(f"\nTable {n}. Hypotheses and verdicts: *supported* when the frames matching the pattern hold "
          "at least the threshold of the scenario's CPU (inclusive), *refuted* under half of it, "
          "*inconclusive* between.\n")
    print("| id | hypothesis | frames (regex) | threshold | share | verdict |\n|---|---|---|---|---|---|")
    for h in r["hypotheses"]:
        share = "—" if h["share"] is None else f"{h['share']:.1%}"
        print(f"| {h['id']} | {cell(h['claim'])} | `{cell(h['frames'])}` | {h['supported_at']:.0%} | {share} "
              f"| **{h['verdict']}** |")


def main(argv):
    if len(argv) >= 2 and argv[0] == "merge":
        merge(argv[1:])
    elif len(argv) == 4 and argv[0] == "scenario":
        json.dump(scenario(*argv[1:]), sys.stdout, indent=2)
        print()
    elif len(argv) == 4 and argv[0] == "report":
        report(*argv[1:])
    elif len(argv) == 2 and argv[0] == "markdown":
        markdown(argv[1])
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
