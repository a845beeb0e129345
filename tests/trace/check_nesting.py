#!/usr/bin/env python3
"""An independent reader of Chrome trace-event JSON, for leanscope's tests.

Checks that the complete (`X`) and duration (`B`/`E`) events of each thread
(pid, tid) nest: no event ends after the event it starts in. It checks this
twice: with exact decimal arithmetic (`decimal`), and with binary floating
point as a JavaScript reader (speedscope, chrome://tracing) computes
`ts + dur`. With `--exact-ns`, it also checks leanscope's `ns` (exact
start and duration in nanoseconds) against `ts` and `dur`, which leanscope
writes rounded down to a step of 1/1024 microsecond.

Usage: check_nesting.py TRACE.json [--exact-ns]
Prints a summary and exits 0 when everything nests, else prints each
problem (up to 20) and exits 1.
"""

import json
import sys
from decimal import Decimal


def events_of(doc):
    if isinstance(doc, list):
        return doc
    return doc["traceEvents"]


def spans(events, as_float):
    """Per thread: (start, end, index) of each interval."""
    per_thread = {}
    open_ = {}
    for k, e in enumerate(events):
        ph = e.get("ph")
        key = (str(e.get("pid", 0)), str(e.get("tid", 0)))
        num = float if as_float else Decimal
        if ph == "X":
            ts, dur = num(e["ts"]), num(e["dur"])
            per_thread.setdefault(key, []).append((ts, ts + dur, k))
        elif ph == "B":
            open_.setdefault(key, []).append((num(e["ts"]), k))
        elif ph == "E":
            ts0, k0 = open_[key].pop()
            per_thread.setdefault(key, []).append((ts0, num(e["ts"]), k0))
    return per_thread


def overlaps(per_thread):
    problems = []
    for key, xs in per_thread.items():
        # Start order, the longer first, then file order (as readers sort).
        xs.sort(key=lambda s: (s[0], -(s[1] - s[0]), s[2]))
        stack = []
        for start, end, k in xs:
            while stack and stack[-1][0] <= start:
                stack.pop()
            if stack and end > stack[-1][0]:
                problems.append(
                    f"thread {key}: traceEvents[{k}] ends at {end}, after its "
                    f"parent traceEvents[{stack[-1][1]}] ending at {stack[-1][0]}"
                )
            stack.append((end, k))
    return problems


def exact_ns_problems(events):
    problems = []
    for k, e in enumerate(events):
        if e.get("ph") != "X":
            continue
        # The event's own `ns`; exports before it was moved wrote `args.ns`.
        ns = e.get("ns", (e.get("args") or {}).get("ns"))
        if ns is None:
            problems.append(f"traceEvents[{k}] has no ns")
            continue
        start, dur = int(ns[0]), int(ns[1])
        ts, d = Decimal(e["ts"]), Decimal(e["dur"])
        if ts * 1024 != (start * 128) // 125 or (ts + d) * 1024 != ((start + dur) * 128) // 125:
            problems.append(f"traceEvents[{k}]: ts {ts} dur {d} disagree with ns {ns}")
    return problems


def main(argv):
    path = argv[1]
    with open(path, "rb") as f:
        doc = json.load(f, parse_float=Decimal, parse_int=Decimal)
    events = events_of(doc)
    problems = []
    exact = spans(events, as_float=False)
    problems += ["exact: " + p for p in overlaps(exact)]
    problems += ["floating point: " + p for p in overlaps(spans(events, as_float=True))]
    if "--exact-ns" in argv:
        problems += exact_ns_problems(events)
    intervals = sum(len(v) for v in exact.values())
    if problems:
        for p in problems[:20]:
            print(p)
        print(f"{len(problems)} problems in {intervals} intervals")
        return 1
    print(f"{len(exact)} threads, {intervals} intervals: they nest, exactly and in floating point")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
