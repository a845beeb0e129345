//! `leanscope profile --measure heartbeats` end to end, against the fake toolchain's
//! `heartbeats N` directive: the recorded numbers are the heartbeats the source planned, every
//! output says heartbeats, and a heartbeat recording is never compared with a time recording.

mod common;

use std::path::{Path, PathBuf};

use common::{text, World};
use recording::{Measure, Recording};
use serde_json::Value;

/// A source whose commands and steps plan their heartbeats (see `fake-toolchain`'s
/// `elaborate.rs`): two commands over the threshold of 1000, one step of each over it, and a
/// command (900) and a step (700) under it.
const PLANNED: &str = "\
theorem a : True := by -- leanscope-fake: heartbeats 52000
  trivial -- leanscope-fake: heartbeats 41000
  skip -- leanscope-fake: heartbeats 700

def b : Nat := 1 -- leanscope-fake: heartbeats 900

theorem c : 1 = 1 := by -- leanscope-fake: heartbeats 2500000
  rfl -- leanscope-fake: heartbeats 2400000
";

fn world_with_source() -> World {
    let w = World::new();
    std::fs::write(w.project.join("Demo/Planned.lean"), PLANNED).unwrap();
    w
}

fn capture_heartbeats(w: &World, out: &Path) {
    let o = w.run(&[
        "profile",
        "Demo/Planned.lean",
        "--measure",
        "heartbeats",
        "--threshold",
        "1000",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
}

fn capture_time(w: &World, out: &Path) {
    let o = w.profile_command("Demo/Clean.lean", out).output().unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
}

fn json_of(w: &World, args: &[&str]) -> Value {
    let o = w.run(args);
    assert!(o.status.success(), "{args:?}: {}", text(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn capture_records_the_planned_heartbeats() {
    let w = world_with_source();
    let out = w.path("hb.lsrec");
    capture_heartbeats(&w, &out);
    let rec = Recording::open(&out).unwrap();
    assert_eq!(rec.header.measure, Measure::Heartbeats);
    assert_eq!(
        rec.header.threshold_ns, 1000,
        "the threshold is kept in heartbeats"
    );
    let mut got: Vec<(String, String, u64)> = (0..rec.len() as u32)
        .map(|i| {
            (
                rec.class(i).to_string(),
                rec.label(i).to_string(),
                rec.inclusive_ns(i),
            )
        })
        .collect();
    got.sort();
    let want = [
        ("Elab.command", "theorem a : True := by", 52_000),
        ("Elab.command", "theorem c : 1 = 1 := by", 2_500_000),
        ("Elab.step", "rfl", 2_400_000),
        ("Elab.step", "trivial", 41_000),
    ];
    let want: Vec<(String, String, u64)> = want
        .iter()
        .map(|(c, l, n)| (c.to_string(), l.to_string(), *n))
        .collect();
    assert_eq!(got, want, "exactly the planned counts over the threshold");
    // self heartbeats: the command's count minus its step's
    let a = common::find(&rec, "Elab.command", "theorem a : True := by");
    assert_eq!(rec.self_ns(a), 11_000);
}

#[test]
fn lean_is_run_in_heartbeat_mode_only_when_asked() {
    // The same source captured by time: the fake prints no heartbeat trace, so no event
    // carries the planned counts.
    let w = world_with_source();
    let out = w.path("time.lsrec");
    let o = w
        .profile_command("Demo/Planned.lean", &out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    let rec = Recording::open(&out).unwrap();
    assert_eq!(rec.header.measure, Measure::Time);
    assert_eq!(rec.len(), 0);
}

#[test]
fn every_output_speaks_heartbeats() {
    let w = world_with_source();
    let out = w.path("hb.lsrec");
    capture_heartbeats(&w, &out);
    let path = out.to_str().unwrap();

    let info = w.run(&["info", path, "--tree"]);
    let info = text(&info.stdout);
    assert!(info.contains("measure       heartbeats"), "{info}");
    assert!(info.contains("threshold 1.00 k hb"), "{info}");
    assert!(info.contains("2.55 M hb traced"), "{info}");
    assert!(
        info.contains("Elab.command [theorem a : True := by] 52.0 k hb (self 11.0 k hb)"),
        "{info}"
    );
    // Memory is sampled on the wall clock, in heartbeat captures too: its
    // lines are the only ones that may speak of time.
    let measured: String = info
        .lines()
        .filter(|l| !l.starts_with("memory ") && !l.starts_with("  grew "))
        .collect::<Vec<_>>()
        .join("\n");
    for time_unit in [" ms", " µs", " ns", " s "] {
        assert!(!measured.contains(time_unit), "{time_unit:?} in {info}");
    }
    let info = json_of(&w, &["info", path, "--json"]);
    assert_eq!(info["measure"], "heartbeats");
    assert_eq!(info["unit"], "heartbeats");
    assert_eq!(info["timeAccount"]["measure"], "heartbeats");

    let summary = json_of(&w, &["summary", path, "--json", "-", "--group-by", "class"]);
    assert_eq!(summary["time_unit"], "heartbeats", "{summary}");
    let summary = w.run(&["summary", path, "--group-by", "class"]);
    let summary = text(&summary.stdout);
    assert!(
        summary.contains("recorded thread heartbeats 2.55 M hb"),
        "{summary}"
    );
    assert!(summary.contains("2.44 M hb"), "{summary}");

    let query = json_of(&w, &["query", path, "--kind", "declaration", "--json"]);
    assert_eq!(query["unit"], "heartbeats");
    let top = &query["rows"][0];
    assert_eq!(top["name"], "c");
    assert_eq!(top["durationMs"], 2_500_000.0, "{query}");
    let tsv = text(&w.run(&["query", path, "--kind", "declaration"]).stdout);
    assert!(
        tsv.starts_with("kind\tname\tpath\tdurationHeartbeats\tselfHeartbeats"),
        "{tsv}"
    );

    let speedscope = w.path("hb.speedscope.json");
    let o = w.run(&[
        "export",
        path,
        "--format",
        "speedscope",
        "-o",
        speedscope.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let doc: Value = serde_json::from_slice(&std::fs::read(&speedscope).unwrap()).unwrap();
    assert_eq!(doc["profiles"][0]["unit"], "none");
}

#[test]
fn a_time_recording_reads_as_time() {
    let w = World::new();
    let out = w.path("time.lsrec");
    capture_time(&w, &out);
    let rec = Recording::open(&out).unwrap();
    assert_eq!(rec.header.measure, Measure::Time);
    let info = json_of(&w, &["info", out.to_str().unwrap(), "--json"]);
    assert_eq!(info["measure"], "time");
    let summary = json_of(
        &w,
        &[
            "summary",
            out.to_str().unwrap(),
            "--json",
            "-",
            "--group-by",
            "class",
        ],
    );
    assert_eq!(summary["time_unit"], "nanoseconds");
}

fn mixed_pair() -> (World, PathBuf, PathBuf) {
    let w = world_with_source();
    let hb = w.path("hb.lsrec");
    let time = w.path("time.lsrec");
    capture_heartbeats(&w, &hb);
    capture_time(&w, &time);
    (w, hb, time)
}

#[test]
fn mixing_measures_is_refused() {
    let (w, hb, time) = mixed_pair();
    for (baseline, candidate, first, second) in [
        (&time, &hb, "time (nanoseconds)", "heartbeats"),
        (&hb, &time, "heartbeats", "time (nanoseconds)"),
    ] {
        let o = w.run(&[
            "compare",
            baseline.to_str().unwrap(),
            candidate.to_str().unwrap(),
            "--group-by",
            "class",
        ]);
        assert!(!o.status.success());
        let err = text(&o.stderr);
        assert!(
            err.contains(&format!(
                "cannot compare a baseline measured in {first} with a candidate measured in {second}"
            )),
            "{err}"
        );
        assert!(text(&o.stdout).is_empty(), "no comparison printed");
    }
    // the diff of `view --baseline` and of the editor's Compare with Baseline (leanscope/compare)
    // refuses the same
    let answer = serve_request(
        &w,
        "leanscope/compare",
        serde_json::json!({"baseline": hb, "candidate": time, "groupBy": "class"}),
    );
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains(
            "cannot compare a baseline measured in heartbeats with a candidate measured in time (nanoseconds)"
        ),
        "{answer}"
    );
    // two heartbeat recordings compare
    let hb2 = w.path("hb2.lsrec");
    capture_heartbeats(&w, &hb2);
    let o = w.run(&[
        "compare",
        hb.to_str().unwrap(),
        hb2.to_str().unwrap(),
        "--group-by",
        "class",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
}

/// One request over `leanscope serve`: its response.
fn serve_request(w: &World, method: &str, params: Value) -> Value {
    use std::io::{BufRead, BufReader, Read, Write};
    let mut child = w
        .command(&["serve"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut send = |m: Value| {
        let body = serde_json::to_vec(&m).unwrap();
        write!(stdin, "Content-Length: {}\r\n\r\n", body.len()).unwrap();
        stdin.write_all(&body).unwrap();
        stdin.flush().unwrap();
    };
    send(
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"processId": null, "rootUri": null, "capabilities": {}}}),
    );
    send(serde_json::json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    send(serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": method, "params": params}));
    let mut r = BufReader::new(child.stdout.take().unwrap());
    let answer = loop {
        let mut len = 0usize;
        loop {
            let mut line = String::new();
            assert!(r.read_line(&mut line).unwrap() > 0, "serve ended early");
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some(v) = line.strip_prefix("Content-Length: ") {
                len = v.parse().unwrap();
            }
        }
        let mut body = vec![0; len];
        r.read_exact(&mut body).unwrap();
        let m: Value = serde_json::from_slice(&body).unwrap();
        if m["id"] == 2 {
            break m;
        }
    };
    send(serde_json::json!({"jsonrpc": "2.0", "id": 3, "method": "shutdown"}));
    send(serde_json::json!({"jsonrpc": "2.0", "method": "exit"}));
    drop(stdin);
    child.wait().unwrap();
    answer
}

#[test]
fn the_editors_annotations_say_what_they_count() {
    // The extension labels its line bars, hovers and CodeLens by the
    // answer's `measure` (tests/extension/unit.test.mjs).
    let (w, hb, time) = mixed_pair();
    for (rec, source, measure) in [
        (&hb, "Demo/Planned.lean", "heartbeats"),
        (&time, "Demo/Clean.lean", "time"),
    ] {
        let text = std::fs::read_to_string(w.project.join(source)).unwrap();
        let answer = serve_request(
            &w,
            "leanscope/annotations",
            serde_json::json!({"recording": rec, "text": text}),
        );
        let result = &answer["result"];
        assert_eq!(result["stale"], false, "{answer}");
        assert_eq!(result["measure"], measure, "{answer}");
    }
    let text = std::fs::read_to_string(w.project.join("Demo/Planned.lean")).unwrap();
    let answer = serve_request(
        &w,
        "leanscope/annotations",
        serde_json::json!({"recording": hb, "text": text}),
    );
    // The planned heartbeats, as the bars' numbers.
    let lines = answer["result"]["lines"].as_array().unwrap();
    assert!(lines.iter().any(|l| l["totalNs"] == 2_500_000), "{answer}");
}

#[test]
fn a_folder_session_keeps_its_measure() {
    let w = world_with_source();
    let dir = w.project.join("Hb");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("Planned.lean"), PLANNED).unwrap();
    let session = w.path("session");
    let o = w.run(&[
        "profile",
        "Hb",
        "--measure",
        "heartbeats",
        "--threshold",
        "1000",
        "-o",
        session.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(session.join("session.json")).unwrap()).unwrap();
    assert_eq!(manifest["measure"], "heartbeats");
    assert_eq!(manifest["thresholdMs"], 1000);
    let query = json_of(
        &w,
        &[
            "query",
            session.to_str().unwrap(),
            "--kind",
            "declaration",
            "--json",
        ],
    );
    assert_eq!(query["unit"], "heartbeats");
    assert_eq!(query["rows"][0]["durationMs"], 2_500_000.0, "{query}");
}

#[test]
fn an_unknown_measure_is_a_usage_error() {
    let w = world_with_source();
    let o = w.run(&["profile", "Demo/Planned.lean", "--measure", "seconds"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("unknown measure \"seconds\": use time or heartbeats"),
        "{}",
        text(&o.stderr)
    );
}

/// Lean's Firefox profile of a heartbeat run (`trace.profiler.output` with
/// `trace.profiler.useHeartbeats=true`), written by the fake Lean for the planned source.
fn heartbeat_profile(w: &World) -> PathBuf {
    let profile = w.path("hb-profile.json");
    let o = std::process::Command::new(w.bin.join("lean"))
        .args([
            "-Dtrace.profiler=true",
            "-Dtrace.profiler.useHeartbeats=true",
            "-Dtrace.profiler.threshold=1000",
            &format!("-Dtrace.profiler.output={}", profile.display()),
            "Demo/Planned.lean",
        ])
        .current_dir(&w.project)
        .env("LEANSCOPE_FAKE_FIXTURES", &w.fixtures)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    profile
}

#[test]
fn import_reads_a_heartbeat_profile_in_heartbeats() {
    let w = world_with_source();
    let profile = heartbeat_profile(&w);
    // Lean writes each count × 1000 where it writes milliseconds
    let raw: Value = serde_json::from_slice(&std::fs::read(&profile).unwrap()).unwrap();
    assert_eq!(raw["meta"]["product"], "lean");
    let out = w.path("imported.lsrec");
    let o = w.run(&[
        "import",
        profile.to_str().unwrap(),
        "--measure",
        "heartbeats",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let rec = Recording::open(&out).unwrap();
    assert_eq!(rec.header.measure, Measure::Heartbeats);
    let mut got: Vec<(String, String, u64, Option<String>)> = (0..rec.len() as u32)
        .map(|i| {
            (
                rec.class(i).to_string(),
                rec.label(i).to_string(),
                rec.inclusive_ns(i),
                rec.parent(i).map(|p| rec.label(p).to_string()),
            )
        })
        .collect();
    got.sort();
    let (a, c) = ("theorem a : True := by", "theorem c : 1 = 1 := by");
    let want = [
        ("Elab.command", a, 52_000, None),
        ("Elab.command", c, 2_500_000, None),
        ("Elab.step", "rfl", 2_400_000, Some(c)),
        ("Elab.step", "trivial", 41_000, Some(a)),
    ];
    let want: Vec<(String, String, u64, Option<String>)> = want
        .iter()
        .map(|(cl, l, n, p)| (cl.to_string(), l.to_string(), *n, p.map(str::to_string)))
        .collect();
    assert_eq!(
        got, want,
        "the planned counts, without the clock-timed runFrontend root"
    );
    let info = json_of(&w, &["info", out.to_str().unwrap(), "--json"]);
    assert_eq!(info["measure"], "heartbeats", "{info}");

    // Read by time, the same profile is Lean's clock-timed root over counter values: the
    // general walk refuses its times, which go back from the root's start to the counter's.
    let o = w.run(&[
        "import",
        profile.to_str().unwrap(),
        "-o",
        w.path("as-time.lsrec").to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(
        text(&o.stderr).contains("sample times go backwards"),
        "{}",
        text(&o.stderr)
    );
    // Heartbeats are only read from Lean's output: a log of a time run warns, naming the line
    // of each tree whose numbers are seconds (sidecar/tests/import_shared_text.rs has the rest).
    let o = w.run(&[
        "import",
        w.fixtures.join("clean/stdout.traces").to_str().unwrap(),
        "--measure",
        "heartbeats",
        "-o",
        w.path("log.lsrec").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("is not a whole count of heartbeats"),
        "{}",
        text(&o.stderr)
    );
    // a log with profiler lines only has nothing to read as heartbeats
    let o = w.run(&[
        "import",
        w.fixtures.join("clean/stdout").to_str().unwrap(),
        "--measure",
        "heartbeats",
        "-o",
        w.path("log.lsrec").to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(
        text(&o.stderr).contains("--measure heartbeats: no trace tree to read as heartbeats"),
        "{}",
        text(&o.stderr)
    );
    let folded = w.path("stacks.folded");
    std::fs::write(&folded, "main;work 12\n").unwrap();
    let o = w.run(&[
        "import",
        folded.to_str().unwrap(),
        "--measure",
        "heartbeats",
        "-o",
        w.path("folded.lsrec").to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(
        text(&o.stderr).contains("--measure heartbeats reads only Lean's output"),
        "{}",
        text(&o.stderr)
    );
}
