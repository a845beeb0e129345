//! Exports as other tools read them: the Chrome trace nests for an
//! independent reader (Python's `json` with `decimal`, and in floating
//! point as JavaScript adds), leanscope reads back everything it writes at
//! any size (file-level data in bounded pieces), and `export` names its
//! files as each tool expects.

use std::path::{Path, PathBuf};
use std::process::Command;

use leanscope::interop::{self, chrome, Format};
use recording::synth::{write_synthetic, SynthParams};
use recording::Recording;

fn synthetic(seed: u64, events: u64, threads: u32) -> Recording {
    let params = SynthParams {
        seed,
        events,
        threads,
    };
    Recording::from_bytes(&write_synthetic(&params, Vec::new()).unwrap()).unwrap()
}

fn import(data: &[u8]) -> interop::Result<Recording> {
    let bytes = interop::import_from_bytes(data, Format::Chrome)?;
    Ok(Recording::from_bytes(&bytes).expect("an import reads back"))
}

/// Every event as (thread, class, label, start, duration, range), sorted.
type Interval = (
    u16,
    String,
    String,
    u64,
    u64,
    Option<recording::SourceRange>,
);

fn intervals(rec: &Recording) -> Vec<Interval> {
    let mut v: Vec<_> = (0..rec.len() as u32)
        .map(|i| {
            (
                rec.thread(i),
                rec.class(i).to_owned(),
                rec.label(i).to_owned(),
                rec.start(i),
                rec.inclusive_ns(i),
                rec.range(i),
            )
        })
        .collect();
    v.sort();
    v
}

fn checker() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/trace/check_nesting.py")
}

/// Runs the independent reader on `path`: (passed, its report).
fn check_nesting(path: &Path) -> (bool, String) {
    let out = Command::new("python3")
        .arg(checker())
        .arg(path)
        .arg("--exact-ns")
        .output()
        .expect("python3 runs");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

#[test]
fn the_chrome_export_nests_for_an_independent_reader_exactly_and_in_floating_point() {
    let dir = tempfile::tempdir().unwrap();
    let rec = synthetic(3, 30_000, 3);
    let path = dir.path().join("synth.trace.json");
    std::fs::write(&path, chrome::export(&rec, Vec::new()).unwrap()).unwrap();
    let (ok, report) = check_nesting(&path);
    assert!(ok, "{report}");
    assert!(
        report.contains(&format!("{} intervals", rec.len())),
        "{report}"
    );
    // The reader does catch what a floating-point sum breaks: microseconds
    // with decimals (0.1 + 0.2 > 0.3 in a double), as leanscope used to write.
    let bad = dir.path().join("decimals.trace.json");
    std::fs::write(
        &bad,
        r#"{"traceEvents":[{"ph":"X","name":"p","ts":0,"dur":0.3,"pid":1,"tid":0,"args":{"ns":[0,300]}},
           {"ph":"X","name":"c","ts":0.1,"dur":0.2,"pid":1,"tid":0,"args":{"ns":[100,200]}}]}"#,
    )
    .unwrap();
    let (ok, report) = check_nesting(&bad);
    assert!(!ok && report.contains("floating point: "), "{report}");
    assert!(!report.contains("exact: "), "{report}");
}

#[test]
fn a_round_trip_is_exact_to_the_nanosecond_with_the_header_in_bounded_pieces() {
    let mut rec = synthetic(8, 60_000, 3);
    // A source text of 2.5 pieces, with text that needs escaping.
    let line = "theorem t : \"a\" ≠ \"b\" := by\n\tsimp\n";
    let mut text = String::new();
    while text.len() < chrome::HEADER_CHUNK_BYTES * 5 / 2 {
        text.push_str(line);
    }
    rec.header.source_text = text;
    let json = chrome::export(&rec, Vec::new()).unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert!(doc.get("otherData").is_none());
    let events = doc["traceEvents"].as_array().unwrap();
    let named = |n: &str| events.iter().filter(|e| e["name"] == n).count();
    assert_eq!(named("leanscope_header"), 1);
    assert_eq!(named("leanscope_source"), 3);
    assert!(named("leanscope_declarations") >= 1);
    // No event is anywhere near the importer's limit on one event.
    for e in events {
        let len = serde_json::to_vec(e).unwrap().len();
        assert!(
            len < 2 * chrome::HEADER_CHUNK_BYTES,
            "an event of {len} bytes"
        );
    }
    let back = import(&json).unwrap();
    assert_eq!(intervals(&back), intervals(&rec));
    assert_eq!(back.header.source_text, rec.header.source_text);
    assert_eq!(back.header.declarations, rec.header.declarations);
    assert_eq!(back.header.diagnostics, rec.header.diagnostics);
    assert_eq!(back.header.source_path, rec.header.source_path);
}

/// A trace of one `X` event with leanscope's exact times `ns` (as
/// leanscope writes them, in the event itself) and with `args`.
fn one_event(ts: &str, dur: &str, ns: &str, args: &str) -> String {
    format!(
        r#"{{"traceEvents":[{{"ph":"X","name":"e","cat":"c","ts":{ts},"dur":{dur},"pid":1,"tid":0,"ns":{ns}{args}}}]}}"#
    )
}

#[test]
fn exact_nanoseconds_must_agree_with_ts_and_dur() {
    // 1999 ns is 2046.976 steps of 1/1024 µs, written as 2046
    // (1.998046875 µs); its end, 3000 ns, is 3072 steps.
    let back =
        import(one_event("1.998046875", "1.001953125", "[1999,1001]", "").as_bytes()).unwrap();
    assert_eq!((back.start(0), back.inclusive_ns(0)), (1999, 1001));
    for (ts, dur, ns) in [
        ("2.002", "1.001953125", "[1999,1001]"),
        ("1.998046875", "1.005", "[1999,1001]"),
    ] {
        let e = import(one_event(ts, dur, ns, "").as_bytes())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("traceEvents[0] (byte 16).ns")
                && e.contains("disagrees with `ts` and `dur`"),
            "{e}"
        );
    }
    let e = import(one_event("0", "0", "[9223372036854775807,1]", "").as_bytes())
        .unwrap_err()
        .to_string();
    assert!(e.contains("ends past the largest time"), "{e}");
    // `args.ns`, where exports before 0.2 wrote the exact times, is an
    // argument like any other: not read, not checked.
    let back = import(
        one_event(
            "1.998046875",
            "1.001953125",
            "[1999,1001]",
            r#","args":{"ns":[5,5]}"#,
        )
        .as_bytes(),
    )
    .unwrap();
    assert_eq!((back.start(0), back.inclusive_ns(0)), (1999, 1001));
}

/// A trace whose leanscope header has `source_bytes` of source text.
fn trace_with_source(source_bytes: usize) -> Vec<u8> {
    let rec = synthetic(1, 10, 1);
    let mut header = rec.header.clone();
    header.source_text.clear();
    header.declarations.clear();
    let mut t = format!(
        r#"{{"traceEvents":[{{"ph":"M","name":"leanscope_header","args":{{"header":{}}}}}"#,
        serde_json::to_string(&header).unwrap()
    );
    let piece = "a".repeat(chrome::HEADER_CHUNK_BYTES);
    let mut left = source_bytes;
    while left > 0 {
        let n = left.min(piece.len());
        t.push_str(&format!(
            r#",{{"ph":"M","name":"leanscope_source","args":{{"text":"{}"}}}}"#,
            &piece[..n]
        ));
        left -= n;
    }
    t.push_str("]}");
    t.into_bytes()
}

#[test]
fn the_header_source_text_is_read_up_to_its_limit() {
    let max = recording::limits::MAX_SOURCE_BYTES;
    let e = import(&trace_with_source(max + 1)).unwrap_err().to_string();
    assert!(
        e.contains("MAX_SOURCE_BYTES") && e.contains("source text of leanscope's header"),
        "{e}"
    );
    let mut sink = interop::sink::TraceSink::new("Chrome trace", &std::env::temp_dir()).unwrap();
    let got = chrome::import(&trace_with_source(max)[..], &mut sink).unwrap();
    assert_eq!(got.header.unwrap().source_text.len(), max);
}

#[test]
fn header_pieces_without_the_header_are_refused() {
    let t = r#"{"traceEvents":[{"ph":"M","name":"leanscope_source","args":{"text":"x"}}]}"#;
    let e = import(t.as_bytes()).unwrap_err().to_string();
    assert!(e.contains("without its `leanscope_header` event"), "{e}");
}

fn leanscope(args: &[&str], dir: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_leanscope"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

#[test]
fn export_names_files_as_each_tool_expects() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let synth = leanscope(&["synth", "--events", "500", "--out", "demo.lsrec"], d);
    assert!(synth.status.success(), "{synth:?}");
    for (format, name) in [
        ("chrome", "demo.trace.json"),
        ("speedscope", "demo.speedscope.json"),
        ("folded", "demo.folded"),
        ("summary", "demo.summary.json"),
    ] {
        let out = leanscope(&["export", "demo.lsrec", "--format", format], d);
        assert!(out.status.success(), "{format}: {out:?}");
        assert!(d.join(name).is_file(), "{name}");
        assert!(
            String::from_utf8_lossy(&out.stdout).trim().ends_with(name),
            "{out:?}"
        );
    }
    // Exporting a trace to its own format would overwrite it: refused.
    let out = leanscope(&["export", "demo.trace.json", "--format", "chrome"], d);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("would overwrite its input"), "{err}");
    let back = leanscope(
        &[
            "export",
            "demo.trace.json",
            "--format",
            "speedscope",
            "-o",
            "again.speedscope.json",
        ],
        d,
    );
    assert!(back.status.success(), "{back:?}");
}

#[test]
fn a_big_thread_is_written_in_lanes_of_whole_subtrees_and_read_back_as_one() {
    let rec = synthetic(5, 120_000, 3);
    let json = chrome::export(&rec, Vec::new()).unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&json).unwrap();
    let events = doc["traceEvents"].as_array().unwrap();
    let mut per_tid = std::collections::BTreeMap::<u64, u32>::new();
    for e in events.iter().filter(|e| e["ph"] == "X") {
        *per_tid.entry(e["tid"].as_u64().unwrap()).or_default() += 1;
    }
    let lanes: Vec<_> = events
        .iter()
        .filter(|e| e["name"] == "leanscope_lane")
        .collect();
    // The main thread alone has far more than a lane's events.
    assert!(
        lanes.len() >= 120_000 / 2 / chrome::LANE_EVENTS as usize,
        "{} lanes",
        lanes.len()
    );
    assert_eq!(per_tid.len(), rec.header.threads.len() + lanes.len());
    for (tid, n) in &per_tid {
        assert!(*n <= chrome::LANE_EVENTS, "tid {tid} has {n} events");
    }
    for l in &lanes {
        let (tid, of) = (
            l["tid"].as_u64().unwrap(),
            l["args"]["thread"].as_u64().unwrap(),
        );
        assert!(of < rec.header.threads.len() as u64 && tid >= rec.header.threads.len() as u64);
        let name = events
            .iter()
            .find(|e| e["name"] == "thread_name" && e["tid"] == tid)
            .unwrap();
        let owner = &rec.header.threads[of as usize].name;
        assert!(name["args"]["name"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{owner} (part ")));
    }
    // Each lane nests for the independent reader.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lanes.trace.json");
    std::fs::write(&path, &json).unwrap();
    let (ok, report) = check_nesting(&path);
    assert!(ok, "{report}");
    let back = import(&json).unwrap();
    assert_eq!(intervals(&back), intervals(&rec));
    let names = |r: &Recording| {
        r.header
            .threads
            .iter()
            .map(|t| t.name.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(names(&back), names(&rec));
}

#[test]
fn lanes_are_refused_when_they_would_not_merge_cleanly() {
    let refused = |events: &str, want: &str| {
        let t = format!(r#"{{"traceEvents":[{events}]}}"#);
        let e = import(t.as_bytes()).unwrap_err().to_string();
        assert!(e.contains(want), "{e}");
    };
    let lane = |tid: u32, of: i64| {
        format!(
            r#"{{"ph":"M","name":"leanscope_lane","pid":1,"tid":{tid},"args":{{"thread":{of}}}}}"#
        )
    };
    let x = |tid: u32| {
        format!(r#"{{"ph":"X","name":"a","cat":"c","ts":1,"dur":1,"pid":1,"tid":{tid}}}"#)
    };
    refused(
        &format!("{},{}", x(5), lane(5, 0)),
        "after events of that thread",
    );
    refused(&lane(2, 2), "a lane of itself");
    refused(
        &format!("{},{}", lane(3, 0), lane(4, 3)),
        "which is a lane itself",
    );
    refused(
        &format!("{},{}", lane(3, 0), lane(3, 1)),
        "a second `leanscope_lane`",
    );
    refused(
        r#"{"ph":"M","name":"leanscope_lane","pid":1,"tid":3,"args":{"thread":"main"}}"#,
        "traceEvents[0].args",
    );
    // A lane's events land on its thread.
    let t = format!(
        r#"{{"traceEvents":[{},{},{}]}}"#,
        lane(7, 0),
        x(0),
        x(7).replace("\"ts\":1", "\"ts\":5")
    );
    let back = import(t.as_bytes()).unwrap();
    assert_eq!(back.header.threads.len(), 1);
    assert_eq!(back.len(), 2);
}
