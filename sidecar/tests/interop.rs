//! Importers and exporters: round trips, real third-party samples, Lean's
//! own profile format, and bad input (each a specific error, never a panic).

mod common;

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use leanscope::interop::{self, chrome, folded, speedscope, Format, ImportOptions};
use recording::summary::{summarize, GroupBy};
use recording::synth::{write_synthetic, SynthParams};
use recording::Recording;
use serde_json::Value;

/// A third-party sample in `../shared/external-formats/` ([`common::shared`]).
fn external(rel: &str) -> PathBuf {
    common::shared("external-formats").join(rel)
}

fn synthetic(seed: u64, events: u64, threads: u32) -> Recording {
    let bytes = write_synthetic(
        &SynthParams {
            seed,
            events,
            threads,
        },
        Vec::new(),
    )
    .unwrap();
    Recording::from_bytes(&bytes).unwrap()
}

fn import_bytes(data: &[u8], format: Format) -> interop::Result<Recording> {
    let bytes = interop::import_from_bytes(data, format)?;
    Ok(Recording::from_bytes(&bytes).expect("an import reads back"))
}

fn import_path(path: &Path, format: Option<Format>, unit_ns: u64) -> interop::Result<Recording> {
    interop::import_recording(path, format, ImportOptions { unit_ns })
}

/// Every event as (thread name, class, label, start, duration), sorted.
fn intervals(rec: &Recording) -> Vec<(String, String, String, u64, u64)> {
    let mut v: Vec<_> = (0..rec.len() as u32)
        .map(|i| {
            (
                rec.header.threads[rec.thread(i) as usize].name.clone(),
                rec.class(i).to_owned(),
                rec.label(i).to_owned(),
                rec.start(i),
                rec.inclusive_ns(i),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn chrome_round_trip_keeps_intervals_and_summaries() {
    let rec = synthetic(11, 3000, 3);
    let json = chrome::export(&rec, Vec::new()).unwrap();
    let back = import_bytes(&json, Format::Chrome).unwrap();
    assert_eq!(back.len(), rec.len());
    assert_eq!(intervals(&back), intervals(&rec));
    // The header rides along: source, declarations, elapsed time.
    assert_eq!(back.header.source_text, rec.header.source_text);
    assert_eq!(back.header.declarations, rec.header.declarations);
    assert_eq!(back.header.capture_mode, recording::CaptureMode::Imported);
    // (File time without Lean's elapsed time is the union of top-level
    // intervals, which changes because the format cannot link an async
    // worker's events to their command on another thread.)
    for g in [
        GroupBy::Name,
        GroupBy::Class,
        GroupBy::Declaration,
        GroupBy::Tactic,
    ] {
        let (a, b) = (summarize(&rec, g), summarize(&back, g));
        assert!(!a.rows.is_empty(), "{g}");
        assert_eq!(a.rows, b.rows, "rows grouped by {g}");
        assert_eq!(a.recorded_thread_time_ns, b.recorded_thread_time_ns);
        assert_eq!(
            (a.trace_origin_ns, a.trace_window_ns),
            (b.trace_origin_ns, b.trace_window_ns)
        );
    }
    // A second round trip changes nothing either.
    let again = import_bytes(&chrome::export(&back, Vec::new()).unwrap(), Format::Chrome).unwrap();
    assert_eq!(intervals(&again), intervals(&rec));
}

#[test]
fn exported_chrome_trace_is_well_formed() {
    let rec = synthetic(5, 2000, 3);
    let json: Value = serde_json::from_slice(&chrome::export(&rec, Vec::new()).unwrap()).unwrap();
    assert_eq!(json["displayTimeUnit"], "ns");
    let events = json["traceEvents"].as_array().unwrap();
    let mut names = BTreeMap::new();
    let mut per_thread: BTreeMap<u64, Vec<(u64, u64)>> = BTreeMap::new();
    let mut x = 0;
    for e in events {
        match e["ph"].as_str().unwrap() {
            "M" if e["name"] == "thread_name" => {
                names.insert(
                    e["tid"].as_u64().unwrap(),
                    e["args"]["name"].as_str().unwrap().to_owned(),
                );
            }
            "M" => {}
            "X" => {
                // ts and dur are microseconds in exact steps of 1/1024:
                // the start and the end rounded down to a step; the event's
                // `ns` has the exact nanoseconds, and `args` only the
                // source location (speedscope names frames by `args`).
                let (ts, dur) = (e["ts"].as_f64().unwrap(), e["dur"].as_f64().unwrap());
                let (ts_ns, dur_ns) = (rec.start(x), rec.inclusive_ns(x));
                assert_eq!(e["ns"], serde_json::json!([ts_ns, dur_ns]));
                assert!(e["args"].get("ns").is_none(), "{e}");
                assert_eq!(e.get("args").is_some(), rec.range(x).is_some(), "{e}");
                let step = |ns: u64| (u128::from(ns) * 128 / 125) as f64;
                assert_eq!(ts * 1024.0, step(ts_ns));
                assert_eq!((ts + dur) * 1024.0, step(ts_ns + dur_ns));
                if let Some(r) = rec.range(x) {
                    assert_eq!(e["args"]["file"], rec.header.source_path.as_str());
                    assert_eq!(e["args"]["line"], r.start_line + 1);
                }
                per_thread
                    .entry(e["tid"].as_u64().unwrap())
                    .or_default()
                    .push((ts_ns, ts_ns + dur_ns));
                x += 1;
            }
            other => panic!("unexpected phase {other}"),
        }
    }
    assert_eq!(x as usize, rec.len());
    // Every thread is named, and X events of a thread nest or are disjoint.
    for (tid, mut spans) in per_thread {
        assert_eq!(names[&tid], rec.header.threads[tid as usize].name);
        spans.sort_by_key(|&(s, e)| (s, std::cmp::Reverse(e)));
        let mut stack: Vec<u64> = Vec::new();
        for (s, e) in spans {
            while stack.last().is_some_and(|&end| end <= s) {
                stack.pop();
            }
            if let Some(&end) = stack.last() {
                assert!(
                    e <= end,
                    "thread {tid}: [{s}, {e}) overlaps its enclosing event ending at {end}"
                );
            }
            stack.push(e);
        }
    }
}

#[test]
fn folded_round_trip_keeps_self_time_per_stack() {
    let rec = synthetic(7, 2000, 2);
    let text = folded::export(&rec, Vec::new()).unwrap();
    let back = import_bytes(&text, Format::Folded).unwrap();
    // The format has no escaping: `;` becomes `:` and line breaks spaces.
    let frame = |r: &Recording, i: u32| r.label(i).replace(';', ":").replace('\n', " ");
    let per_stack = |r: &Recording| {
        let mut m: BTreeMap<Vec<String>, u64> = BTreeMap::new();
        for i in 0..r.len() as u32 {
            let mut path = vec![frame(r, i)];
            let mut at = r.parent(i);
            while let Some(p) = at {
                path.push(frame(r, p));
                at = r.parent(p);
            }
            path.reverse();
            if r.self_ns(i) > 0 {
                *m.entry(path).or_default() += r.self_ns(i);
            }
        }
        m
    };
    assert_eq!(per_stack(&back), per_stack(&rec));
    assert_eq!(back.header.clock, recording::ClockKind::DurationsOnly);
    // One line per distinct stack, depth first with the frames under a
    // stack in name order: the order of the stacks as lists of frames.
    let lines: Vec<(Vec<String>, u64)> = std::str::from_utf8(&text)
        .unwrap()
        .lines()
        .map(|l| {
            let (stack, n) = l.rsplit_once(' ').unwrap();
            (
                stack.split(';').map(str::to_owned).collect(),
                n.parse().unwrap(),
            )
        })
        .collect();
    let want: Vec<(Vec<String>, u64)> = per_stack(&rec).into_iter().collect();
    assert!(want.len() < rec.len(), "the case merges some stacks");
    assert_eq!(lines, want);
}

#[test]
fn speedscope_export_nests_and_names_lines() {
    let rec = synthetic(9, 1500, 3);
    let doc: Value =
        serde_json::from_slice(&speedscope::export(&rec, Vec::new()).unwrap()).unwrap();
    // The same top-level shape as speedscope's own sample files.
    let sample: Value = serde_json::from_reader(
        std::fs::File::open(external("speedscope/simple.speedscope.json")).unwrap(),
    )
    .unwrap();
    for key in ["$schema", "shared", "profiles"] {
        assert!(sample.get(key).is_some() && doc.get(key).is_some(), "{key}");
    }
    assert_eq!(doc["$schema"], sample["$schema"]);
    let frames = doc["shared"]["frames"].as_array().unwrap();
    assert!(frames
        .iter()
        .any(|f| f["line"].as_u64().is_some() && f["file"] == rec.header.source_path.as_str()));
    let profiles = doc["profiles"].as_array().unwrap();
    assert_eq!(profiles.len(), rec.active_thread_count());
    let mut opened = 0;
    for p in profiles {
        assert_eq!(p["type"], "evented");
        assert_eq!(p["unit"], "nanoseconds");
        let mut stack = Vec::new();
        let mut last = 0;
        for e in p["events"].as_array().unwrap() {
            let at = e["at"].as_u64().unwrap();
            assert!(at >= last, "time goes backwards");
            last = at;
            let f = e["frame"].as_u64().unwrap();
            assert!((f as usize) < frames.len());
            match e["type"].as_str().unwrap() {
                "O" => {
                    stack.push(f);
                    opened += 1;
                }
                "C" => assert_eq!(
                    stack.pop(),
                    Some(f),
                    "close matches the innermost open frame"
                ),
                t => panic!("{t}"),
            }
        }
        assert!(stack.is_empty());
        assert!(p["endValue"].as_u64() >= p["startValue"].as_u64());
    }
    assert_eq!(opened, rec.len());
}

#[test]
fn imports_speedscopes_multiprocess_chrome_sample() {
    let rec = import_path(
        &external("chrome-trace/speedscope-multiprocess.json"),
        None,
        1,
    )
    .unwrap();
    assert_eq!(rec.len(), 8);
    assert_eq!(rec.header.threads.len(), 8);
    let mut names: Vec<&str> = rec.header.threads.iter().map(|t| t.name.as_str()).collect();
    names.sort();
    // pid 2 has no process name, pid 3 no thread names.
    assert_eq!(
        names,
        [
            "p0 / p0t0",
            "p0 / p0t1",
            "p1 / p1t0",
            "p1 / p1t1",
            "p3 / tid 0",
            "p3 / tid 1",
            "pid 2 / p2t0",
            "pid 2 / p2t1"
        ]
    );
    let alpha = (0..8).find(|&i| rec.label(i) == "alpha").unwrap();
    assert_eq!((rec.start(alpha), rec.inclusive_ns(alpha)), (0, 1000));
}

#[test]
fn imports_a_real_chrome_trace_with_begin_end_and_async_events() {
    let rec = import_path(
        &external("chrome-trace/firefox-profiler-test.chrome-unchunked.json"),
        None,
        1,
    )
    .unwrap();
    // 39 X events, 30 B/E pairs, and the async pairs whose halves are both present.
    let xb = (0..rec.len() as u32)
        .filter(|&i| {
            !rec.header.threads[rec.thread(i) as usize]
                .name
                .contains("async")
        })
        .count();
    assert_eq!(xb, 39 + 30);
    let notes = rec.header.notes.join("\n");
    assert!(
        notes.contains("ignored events without an interval"),
        "{notes}"
    );
    assert!(
        notes.contains("async `b`/`e` events whose other half is not in the trace"),
        "{notes}"
    );
    let rspack = import_path(
        &external("chrome-trace/firefox-profiler-chrome-trace-issue-5429.json"),
        None,
        1,
    )
    .unwrap();
    assert_eq!(rspack.len(), 51);
    assert_eq!(rspack.header.threads.len(), 1);
    // Nested async spans get parents.
    assert!((0..51).any(|i| rspack.parent(i).is_some()));
    assert_eq!(rspack.issue_count, 0);
}

#[test]
fn imports_a_real_firefox_profile() {
    let rec = import_path(
        &external("firefox/firefox-profiler-unsymbolicated.json"),
        None,
        1,
    )
    .unwrap();
    assert_eq!(rec.header.threads.len(), 6);
    assert_eq!(rec.header.threads[0].name, "a.out");
    assert_eq!(rec.issue_count, 0, "{:?}", rec.issues);
    // The main thread's samples run from 240.520375 ms to 299.7795 ms plus one 1 ms interval.
    let main_roots: Vec<u32> = rec.roots().filter(|&i| rec.thread(i) == 0).collect();
    let start = main_roots.iter().map(|&i| rec.start(i)).min().unwrap();
    let end = main_roots.iter().map(|&i| rec.end(i)).max().unwrap();
    assert_eq!((start, end), (240_520_375, 300_779_500));
    // The newest layout stores stacks differently; it is refused by name.
    let e = import_path(
        &external("firefox/firefox-profiler-cli-sourcemap-single.json"),
        None,
        1,
    )
    .unwrap_err();
    assert!(e.to_string().contains("prefixOffset"), "{e}");
}

/// A profile shaped exactly as Lean's `Profile.export` writes it: slices
/// as sample pairs, a zero-length parent slice between siblings, and a
/// zero-weight gap pair between two traces of a worker thread.
fn lean_profile() -> String {
    let thread = |name: &str,
                  main: bool,
                  funcs: &[&str],
                  stacks: &[(u64, Option<u64>)],
                  samples: &[(u64, f64, f64)]| {
        serde_json::json!({
            "name": name, "processType": "default", "isMainThread": main,
            "samples": {
                "stack": samples.iter().map(|s| s.0).collect::<Vec<_>>(),
                "time": samples.iter().map(|s| s.1).collect::<Vec<_>>(),
                "weight": samples.iter().map(|s| s.2).collect::<Vec<_>>(),
                "weightType": "tracing-ms",
                "threadCPUDelta": samples.iter().map(|s| s.2).collect::<Vec<_>>(),
                "length": samples.len()
            },
            "markers": {"data": [], "name": [], "length": 0},
            "stackTable": {
                "frame": stacks.iter().map(|s| s.0).collect::<Vec<_>>(),
                "prefix": stacks.iter().map(|s| s.1).collect::<Vec<_>>(),
                "category": stacks.iter().map(|_| 0).collect::<Vec<_>>(),
                "subcategory": stacks.iter().map(|_| 0).collect::<Vec<_>>(),
                "length": stacks.len()
            },
            "frameTable": {
                "address": funcs.iter().map(|_| -1).collect::<Vec<_>>(),
                "inlineDepth": funcs.iter().map(|_| 0).collect::<Vec<_>>(),
                "category": funcs.iter().map(|_| 0).collect::<Vec<_>>(),
                "subcategory": funcs.iter().map(|_| Value::Null).collect::<Vec<_>>(),
                "func": (0..funcs.len()).collect::<Vec<_>>(),
                "nativeSymbol": funcs.iter().map(|_| Value::Null).collect::<Vec<_>>(),
                "innerWindowID": funcs.iter().map(|_| Value::Null).collect::<Vec<_>>(),
                "implementation": funcs.iter().map(|_| Value::Null).collect::<Vec<_>>(),
                "line": funcs.iter().map(|_| Value::Null).collect::<Vec<_>>(),
                "column": funcs.iter().map(|_| Value::Null).collect::<Vec<_>>(),
                "length": funcs.len()
            },
            "resourceTable": {"type": [], "length": 0},
            "stringArray": funcs,
            "funcTable": {
                "name": (0..funcs.len()).collect::<Vec<_>>(),
                "resource": funcs.iter().map(|_| -1).collect::<Vec<_>>(),
                "fileName": funcs.iter().map(|_| Value::Null).collect::<Vec<_>>(),
                "lineNumber": funcs.iter().map(|_| Value::Null).collect::<Vec<_>>(),
                "columnNumber": funcs.iter().map(|_| Value::Null).collect::<Vec<_>>(),
                "length": funcs.len()
            }
        })
    };
    // Main thread: runFrontend [0,10] ms holding Elab.command [1,6] whose
    // two Meta.isDefEq children [2,3] and [3,4] touch (separated by the
    // command's zero-length slice at 3).
    let main = thread(
        "Main.lean",
        true,
        &["runFrontend", "Elab.command", "Meta.isDefEq: a =?= b"],
        &[(0, None), (1, Some(0)), (2, Some(1))],
        &[
            (0, 0.0, 0.0),
            (0, 1.0, 1.0),
            (1, 1.0, 0.0),
            (1, 2.0, 1.0),
            (2, 2.0, 0.0),
            (2, 3.0, 1.0),
            (1, 3.0, 0.0),
            (1, 3.0, 0.0),
            (2, 3.0, 0.0),
            (2, 4.0, 1.0),
            (1, 4.0, 0.0),
            (1, 6.0, 2.0),
            (0, 6.0, 0.0),
            (0, 10.0, 4.0),
        ],
    );
    // Worker: Kernel [2,3], a gap pair (weight 0) to 5, Kernel [5,7].
    let worker = thread(
        "1",
        false,
        &["Kernel"],
        &[(0, None)],
        &[
            (0, 2.0, 0.0),
            (0, 3.0, 1.0),
            (0, 3.0, 0.0),
            (0, 5.0, 0.0),
            (0, 5.0, 0.0),
            (0, 7.0, 2.0),
        ],
    );
    serde_json::json!({
        "meta": {"interval": 0.0, "startTime": 0.0, "categories": [{"name": "Other", "color": "gray", "subcategories": []}],
                 "processType": 0, "product": "lean", "preprocessedProfileVersion": 48, "markerSchema": [],
                 "sampleUnits": {"time": "ms", "eventDelay": "ms", "threadCPUDelta": "µs"}},
        "libs": [],
        "threads": [main, worker]
    })
    .to_string()
}

#[test]
fn reads_leans_trace_profiler_output() {
    let rec = import_bytes(lean_profile().as_bytes(), Format::Firefox).unwrap();
    let ms = 1_000_000;
    type Row<'a> = (u16, &'a str, &'a str, u64, u64, Option<u32>);
    let got: Vec<Row> = (0..rec.len() as u32)
        .map(|i| {
            (
                rec.thread(i),
                rec.class(i),
                rec.label(i),
                rec.start(i),
                rec.end(i),
                rec.parent(i),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (0, "runFrontend", "", 0, 10 * ms, None),
            (0, "Elab.command", "", ms, 6 * ms, Some(0)),
            (0, "Meta.isDefEq", "a =?= b", 2 * ms, 3 * ms, Some(1)),
            (0, "Meta.isDefEq", "a =?= b", 3 * ms, 4 * ms, Some(1)),
            (1, "Kernel", "", 2 * ms, 3 * ms, None),
            (1, "Kernel", "", 5 * ms, 7 * ms, None),
        ]
    );
    assert_eq!(rec.issue_count, 0);
    assert_eq!(detect(lean_profile().as_bytes()), Some(Format::Firefox));
}

fn detect(b: &[u8]) -> Option<Format> {
    interop::detect_bytes(b)
}

#[test]
fn imports_real_folded_stacks() {
    let go = import_path(&external("folded/inferno-go-stacks-collapsed.txt"), None, 1).unwrap();
    let total: u64 = go.roots().map(|i| go.inclusive_ns(i)).sum();
    assert_eq!(total, 1_250_000);
    let frac = import_path(
        &external("folded/inferno-fractional-samples.txt"),
        None,
        1000,
    )
    .unwrap();
    // 31.23 + 6.1 + 1.4 + 19.0 = 57.73 samples under cksum, of 1000 ns each.
    let cksum = frac.roots().find(|&i| frac.label(i) == "cksum").unwrap();
    assert_eq!(frac.inclusive_ns(cksum), 57_730);
    let noploop = frac.roots().find(|&i| frac.label(i) == "noploop").unwrap();
    assert_eq!(frac.inclusive_ns(noploop), 276_888);
    let fg = import_path(&external("folded/firefox-profiler-flamegraph.txt"), None, 1).unwrap();
    assert!(fg.len() > 100);
    assert_eq!(fg.issue_count, 0);
}

#[test]
fn imports_lean_profile_text() {
    let text = "interpretation of Std.Tactic.Lint.stdLinterExt took 113ms\nimport took 354ms\nsimp took 524ms\n\
                some other message\ntype checking took 1.2s\ncumulative profiling times:\n\
                \tcompilation 16.5ms\n\timport 354ms\n\ttype checking 653ms\n\ttypeclass inference 0.00671ms\n";
    let rec = import_bytes(text.as_bytes(), Format::LeanProfile).unwrap();
    let got: Vec<(u16, &str, &str, u64, u64)> = (0..rec.len() as u32)
        .map(|i| {
            (
                rec.thread(i),
                rec.class(i),
                rec.label(i),
                rec.start(i),
                rec.inclusive_ns(i),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                0,
                "profiler",
                "interpretation of Std.Tactic.Lint.stdLinterExt",
                0,
                113_000_000
            ),
            (0, "profiler", "import", 113_000_000, 354_000_000),
            (0, "profiler", "simp", 467_000_000, 524_000_000),
            (0, "profiler", "type checking", 991_000_000, 1_200_000_000),
        ]
    );
    // the cumulative block is Lean's totals: in the header, not events
    let cumulative: Vec<(&str, u64)> = rec
        .header
        .cumulative_times
        .iter()
        .map(|c| (c.category.as_str(), c.ns))
        .collect();
    assert_eq!(
        cumulative,
        [
            ("compilation", 16_500_000),
            ("import", 354_000_000),
            ("type checking", 653_000_000),
            ("typeclass inference", 6_710),
        ]
    );
    assert!(
        rec.header.notes.iter().any(|n| n.contains(
            "1 lines that are not Lean profiler output were skipped: line 4: `some other message`"
        )),
        "{:?}",
        rec.header.notes
    );
}

fn chrome_err(text: &str) -> String {
    import_bytes(text.as_bytes(), Format::Chrome)
        .unwrap_err()
        .to_string()
}

#[test]
fn bad_chrome_traces_get_specific_errors() {
    let cases = [
        ("", "the input is empty"),
        ("hello", "not JSON trace events"),
        ("{\"foo\": 1}", "no `traceEvents` array"),
        ("{\"traceEvents\": 5}", "`traceEvents` must be an array"),
        (
            "[1]",
            "traceEvents[0] (byte 1): a trace event must be a JSON object",
        ),
        (
            "[{\"ph\":\"X\",\"ts\":1,,}]",
            "traceEvents[0] (byte 1): not JSON",
        ),
        ("[{\"ts\":1}]", "the event has no `ph`"),
        ("[{\"ph\":\"X\",\"ts\":1}]", "an `X` event needs `dur`"),
        ("[{\"ph\":\"X\",\"dur\":1}]", "a `X` event needs `ts`"),
        (
            "[{\"ph\":\"X\",\"ts\":5,\"dur\":-2}]",
            "traceEvents[0] (byte 1).dur: `dur` is negative (-2)",
        ),
        ("[{\"ph\":\"X\",\"ts\":\"5\",\"dur\":2}]", "is not a number"),
        (
            "[{\"ph\":\"E\",\"ts\":5,\"tid\":3}]",
            "unmatched `E` event: no `B` event is open on pid 0 tid 3",
        ),
        (
            "[{\"ph\":\"B\",\"name\":\"a\",\"ts\":5}]",
            "traceEvents[0]: unmatched begin event `a` on pid 0 tid 0: it never ends",
        ),
        (
            "[{\"ph\":\"B\",\"name\":\"a\",\"ts\":5},{\"ph\":\"E\",\"name\":\"b\",\"ts\":6}]",
            "`E` event `b` does not match the open event `a`",
        ),
        (
            "[{\"ph\":\"B\",\"ts\":5},{\"ph\":\"E\",\"ts\":4}]",
            "negative duration",
        ),
        (
            "[{\"ph\":\"X\",\"ts\":1,\"dur\":1}] x",
            "unexpected `x` after the end of the trace",
        ),
        (
            "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1,\"dur\":1}]",
            "found the end of the input",
        ),
        (
            "[{\"ph\":\"X\",\"ts\":1e30,\"dur\":1}]",
            "`ts` is too large",
        ),
    ];
    for (text, want) in cases {
        let e = chrome_err(text);
        assert!(e.contains(want), "{text:?}: {e}");
        assert!(e.starts_with("Chrome trace: "), "{e}");
    }
    // Chrome's array form may lack its closing bracket.
    let rec = import_bytes(b"[{\"ph\":\"X\",\"ts\":1,\"dur\":2},\n", Format::Chrome).unwrap();
    assert_eq!(rec.len(), 1);
}

/// Streams `[{"name":"` + a string of `len` bytes, without holding it.
struct HugeString {
    prefix: &'static [u8],
    left: u64,
}

impl Read for HugeString {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if !self.prefix.is_empty() {
            let n = self.prefix.len().min(out.len());
            out[..n].copy_from_slice(&self.prefix[..n]);
            self.prefix = &self.prefix[n..];
            return Ok(n);
        }
        let n = (self.left.min(out.len() as u64)) as usize;
        out[..n].fill(b'a');
        self.left -= n as u64;
        Ok(n)
    }
}

#[test]
fn a_two_gigabyte_string_is_refused_without_reading_it_whole() {
    let huge = || HugeString {
        prefix: b"[{\"ph\":\"X\",\"ts\":1,\"dur\":1,\"name\":\"",
        left: 2 << 30,
    };
    let dir = tempfile::tempdir().unwrap();
    let e = interop::import_reader(
        huge(),
        "huge",
        Format::Chrome,
        ImportOptions::default(),
        dir.path(),
        Vec::new(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("a trace event is over the limit of 16777216 (MAX_CHROME_EVENT_BYTES)"),
        "{e}"
    );
    let huge_ff = HugeString {
        prefix: b"{\"meta\":{\"product\":\"",
        left: 2 << 30,
    };
    let e = interop::import_reader(
        huge_ff,
        "huge",
        Format::Firefox,
        ImportOptions::default(),
        dir.path(),
        Vec::new(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("a JSON string is over the limit of 67108864 (MAX_JSON_STRING_BYTES)"),
        "{e}"
    );
}

/// `n` X events on one thread, latest first.
fn reversed_events(n: usize) -> String {
    let mut s = String::from("[");
    for i in (0..n).rev() {
        if i + 1 != n {
            s.push(',');
        }
        s.push_str(&format!(
            "{{\"ph\":\"X\",\"name\":\"e\",\"ts\":{i},\"dur\":1}}"
        ));
    }
    s.push(']');
    s
}

#[test]
fn reordering_is_bounded_at_its_limit() {
    use leanscope::limits::MAX_REORDER_EVENTS;
    // One more than the window still sorts: the first event placed early is
    // the latest pushed, and no later one starts before it.
    let rec = import_bytes(
        reversed_events(MAX_REORDER_EVENTS + 1).as_bytes(),
        Format::Chrome,
    )
    .unwrap();
    assert_eq!(rec.len(), MAX_REORDER_EVENTS + 1);
    assert!((1..rec.len() as u32).all(|i| rec.start(i) >= rec.start(i - 1)));
    let e = chrome_err(&reversed_events(MAX_REORDER_EVENTS + 2));
    assert!(
        e.contains("out of start order by at most 65536 events (MAX_REORDER_EVENTS)"),
        "{e}"
    );
}

#[test]
fn bad_folded_and_lean_profile_text_get_specific_errors() {
    let folded_cases: [(&str, &str); 5] = [
        ("", "no stack lines"),
        ("a;b;c\n", "line 1: a stack line without a count"),
        (
            "a;b 3\na;c x\n",
            "line 2: a stack line without a count: `x` is not a number",
        ),
        ("a;b -3\n", "line 1: the count -3 is negative"),
        ("a 1e300\n", "line 1: the count is too large"),
    ];
    for (text, want) in folded_cases {
        let e = import_bytes(text.as_bytes(), Format::Folded)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(want) && e.starts_with("folded stacks: "),
            "{text:?}: {e}"
        );
    }
    let long = format!("{} 1\n", "f;".repeat(600_000));
    let e = import_bytes(long.as_bytes(), Format::Folded)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("line 1: the line's length is over the limit of 1048576 (MAX_LINE_BYTES)"),
        "{e}"
    );
    let lean_cases = [
        ("hello\n", "not Lean's output (line 1: `hello`)"),
        (
            "simp took 12parsecs\n",
            "line 1: `simp took 12parsecs` has ` took ` but no Lean profiling time",
        ),
        (
            "cumulative profiling times:\n\tsimp\n",
            "line 2: malformed `cumulative profiling times` entry",
        ),
    ];
    for (text, want) in lean_cases {
        let e = import_bytes(text.as_bytes(), Format::LeanProfile)
            .unwrap_err()
            .to_string();
        assert!(e.contains(want), "{text:?}: {e}");
    }
}

#[test]
fn bad_firefox_profiles_get_specific_errors() {
    let good: Value = serde_json::from_str(&lean_profile()).unwrap();
    let mutate = |f: &dyn Fn(&mut Value)| {
        let mut v = good.clone();
        f(&mut v);
        import_bytes(v.to_string().as_bytes(), Format::Firefox)
            .unwrap_err()
            .to_string()
    };
    let cases: Vec<(String, &str)> = vec![
        (
            import_bytes(b"{\"meta\":", Format::Firefox)
                .unwrap_err()
                .to_string(),
            "not JSON",
        ),
        (
            mutate(&|v| {
                v["meta"]
                    .as_object_mut()
                    .unwrap()
                    .retain(|k, _| k != "preprocessedProfileVersion")
            }),
            "a raw Gecko profile",
        ),
        (
            mutate(&|v| v["threads"][0]["samples"]["stack"][3] = 99.into()),
            "$.threads[0].samples.stack[3]: stack 99 does not exist",
        ),
        (
            mutate(&|v| v["threads"][0]["samples"]["time"][5] = 0.5.into()),
            "$.threads[0].samples.time[5]: sample times go backwards",
        ),
        (
            mutate(&|v| v["threads"][0]["samples"]["time"][0] = (-1.0).into()),
            "time -1 ms is negative",
        ),
        (
            mutate(&|v| v["threads"][0]["stackTable"]["prefix"][1] = 2.into()),
            "$.threads[0].stackTable.prefix[1]: prefix 2 does not come before stack 1",
        ),
        (
            mutate(&|v| v["threads"][0]["frameTable"]["func"][0] = 7.into()),
            "$.threads[0].frameTable.func[0]: function 7 does not exist",
        ),
        (
            mutate(&|v| {
                v["threads"][1]["samples"]["stack"]
                    .as_array_mut()
                    .unwrap()
                    .pop();
            }),
            "$.threads[1].samples: 5 stacks but 6 times",
        ),
        (
            mutate(&|v| v["threads"] = 3.into()),
            "not a processed profile",
        ),
    ];
    for (e, want) in cases {
        assert!(
            e.contains(want) && e.starts_with("Firefox profile: "),
            "{want}: {e}"
        );
    }
}

/// The fuzzer's crash (`attempt to add with overflow` laying out the first
/// frames): counts that each fit but sum past the largest time are refused
/// as such, whether the stacks share a frame or are laid end to end.
#[test]
fn folded_counts_summing_past_the_largest_time_are_refused_by_name() {
    let big = "6666666666666666662";
    for text in [
        format!("a {big}\nb {big}\n"),
        format!("a {big}\nb {big}\nc {big}\n"),
        format!("a;b {big}\na;c {big}\n"),
        format!("a {big}\na;b {big}\n"),
    ] {
        let err = import_bytes(text.as_bytes(), Format::Folded)
            .err()
            .unwrap_or_else(|| panic!("{text:?} imported"));
        let message = err.to_string();
        assert!(
            message.contains("add up past the largest time"),
            "{text:?}: {message}"
        );
        assert!(!message.contains("ends past"), "{text:?}: {message}");
    }
    // Under the limit still imports: the check is the sum, not each count (3 × 3e18 < 2^63 - 1).
    let n = 3_000_000_000_000_000_000u64;
    let rec = import_bytes(format!("a {n}\nb {n}\nc {n}\n").as_bytes(), Format::Folded).unwrap();
    assert_eq!(rec.len(), 3);
    assert_eq!(rec.inclusive_ns(2), n);
}
