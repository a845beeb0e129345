//! `leanscope profile --repeat N [--warmup K]` end to end, against the fake toolchain's
//! `run-log` and `heartbeats-runs` directives: every run of a file plans its own heartbeats
//! (a known jitter), so the runs, their order and the medians and spreads are checked
//! against hand-computed values.

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::{read_session, text, World};
use recording::session::{FileStatus, SessionStatus, TargetKind};
use recording::Recording;

/// The heartbeats of run k of each file's command and its step: k = 0 is the warm-up when
/// there is one. With one warm-up and three repeats, the kept runs are 300, 200, 250
/// (median 250, min 200, max 300) and 150, 100, 120 (median 120, min 100, max 150).
const COMMAND_RUNS: &str = "100,300,200,250,400";
const STEP_RUNS: &str = "50,150,100,120,160";

/// A world with `Rep/A.lean`, `Rep/B.lean`, `Rep/C.lean`, each logging its runs to
/// `runs.log` (and costing `cost_ms` of CPU per run).
fn world(cost_ms: u64) -> (World, PathBuf) {
    let w = World::new();
    let log = w.path("runs.log");
    std::fs::create_dir_all(w.project.join("Rep")).unwrap();
    for name in ["A", "B", "C"] {
        let cost = if cost_ms > 0 {
            format!("-- leanscope-fake: cost {cost_ms}ms\n")
        } else {
            String::new()
        };
        std::fs::write(
            w.project.join(format!("Rep/{name}.lean")),
            format!(
                "-- leanscope-fake: run-log {}\n{cost}theorem t{name} : True := by -- leanscope-fake: heartbeats-runs {COMMAND_RUNS}\n  trivial -- leanscope-fake: heartbeats-runs {STEP_RUNS}\n",
                log.display()
            ),
        )
        .unwrap();
    }
    (w, log)
}

fn profile_args<'a>(target: &'a str, out: &'a Path, extra: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec![
        "profile",
        target,
        "--measure",
        "heartbeats",
        "--threshold",
        "10",
        "-o",
        out.to_str().unwrap(),
    ];
    v.extend_from_slice(extra);
    v
}

/// Asserts that `doc` conforms to `schemas/<schema>`, whose summary keys are the summary
/// schema's (referenced by URI).
fn assert_valid(schema: &str, doc: &serde_json::Value) {
    let load = |name: &str| -> serde_json::Value {
        serde_json::from_str(
            &std::fs::read_to_string(common::repo().join("schemas").join(name)).unwrap(),
        )
        .unwrap()
    };
    let registry = jsonschema::Registry::new()
        .add(
            "https://leanscope.invalid/schemas/summary.schema.json",
            load("summary.schema.json"),
        )
        .unwrap()
        .prepare()
        .unwrap();
    let validator = jsonschema::options()
        .with_registry(&registry)
        .build(&load(schema))
        .unwrap();
    let errors: Vec<String> = validator
        .iter_errors(doc)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{schema}: {errors:?}");
}

fn log_lines(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// The heartbeats of a recording's command and step.
fn planned_counts(path: &Path) -> (u64, u64) {
    let rec = Recording::open(path).unwrap();
    let find = |class: &str| {
        (0..rec.len() as u32)
            .find(|&i| rec.class(i) == class)
            .map(|i| rec.inclusive_ns(i))
            .unwrap()
    };
    (find("Elab.command"), find("Elab.step"))
}

#[test]
fn n_runs_give_n_recordings_in_rotated_order() {
    let (w, log) = world(0);
    let out = w.path("s");
    let o = w.run(&profile_args("Rep", &out, &["--repeat", "3"]));
    assert!(o.status.success(), "{}", text(&o.stderr));
    // One warm-up of each file (the default when N > 1), then rounds rotated by their number.
    let want: Vec<&str> = [
        "A", "B", "C", // warm-ups
        "A", "B", "C", // round 0
        "B", "C", "A", // round 1
        "C", "A", "B", // round 2
    ]
    .to_vec();
    let got = log_lines(&log);
    let got: Vec<&str> = got
        .iter()
        .map(|l| l.trim_end_matches(".lean").rsplit('/').next().unwrap())
        .collect();
    assert_eq!(got, want);
    let m = read_session(&out).unwrap();
    assert_eq!(m.status, SessionStatus::Complete);
    let rep = m.repeats.unwrap();
    assert_eq!((rep.runs, rep.warmup), (3, 1));
    for f in &m.files {
        assert_eq!(f.status, FileStatus::Ok);
        let repeats: Vec<u32> = f.runs.iter().map(|r| r.repeat).collect();
        assert_eq!(repeats, vec![0, 1, 2], "{}", f.path);
        // Run r is the file's (r + 1)-th run (after its warm-up): its planned counts.
        for r in &f.runs {
            let counts = planned_counts(&out.join(&r.recording));
            let want = [(300, 150), (200, 100), (250, 120)][r.repeat as usize];
            assert_eq!(counts, want, "{} run {}", f.path, r.repeat);
        }
        // The file's own fields are its last committed run's.
        let last = f.runs.iter().max_by_key(|r| r.capture).unwrap();
        assert_eq!(f.recording.as_deref(), Some(last.recording.as_str()));
    }
    // Warm-ups are never stored: three recordings per file.
    let recs = std::fs::read_dir(out.join("files")).unwrap().count();
    assert_eq!(recs, 9);
}

#[test]
fn warmup_zero_and_a_single_file_session() {
    let (w, log) = world(0);
    let out = w.path("one");
    let o = w.run(&profile_args(
        "Rep/B.lean",
        &out,
        &["--repeat", "2", "--warmup", "0"],
    ));
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(log_lines(&log).len(), 2, "no warm-up");
    let m = read_session(&out).unwrap();
    assert_eq!(m.target.kind, TargetKind::File);
    assert_eq!(m.target.path, "Rep/B.lean");
    assert_eq!(m.files.len(), 1);
    let counts: Vec<(u64, u64)> = m.files[0]
        .runs
        .iter()
        .map(|r| planned_counts(&out.join(&r.recording)))
        .collect();
    // Without a warm-up the kept runs are the file's runs 0 and 1.
    assert_eq!(counts, vec![(100, 50), (300, 150)]);
}

#[test]
fn ctrl_c_during_a_repeat_keeps_the_runs_done_and_resume_completes_them() {
    let (w, log) = world(150);
    let out = w.path("s");
    let child = w
        .command(&profile_args("Rep", &out, &["--repeat", "3"]))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Interrupt while round 1 runs: 3 warm-ups and round 0 are done, round 1 has begun.
    let until = Instant::now() + Duration::from_secs(60);
    while log_lines(&log).len() < 7 {
        assert!(Instant::now() < until, "the capture did not get to round 1");
        std::thread::sleep(Duration::from_millis(10));
    }
    // SAFETY: signalling the child we spawned.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130), "{}", text(&o.stderr));
    let m = read_session(&out).unwrap();
    assert_eq!(m.status, SessionStatus::Cancelled);
    let kept: usize = m.files.iter().map(|f| f.runs.len()).sum();
    assert!(
        (3..9).contains(&kept),
        "round 0 kept, not every run: {kept}"
    );
    for f in &m.files {
        assert!(f.runs.iter().any(|r| r.repeat == 0), "{}", f.path);
        for r in &f.runs {
            assert!(out.join(&r.recording).is_file());
        }
    }
    let before: Vec<(String, Vec<u64>)> = m
        .files
        .iter()
        .map(|f| (f.path.clone(), f.runs.iter().map(|r| r.capture).collect()))
        .collect();
    let ran_before = log_lines(&log).len();

    let o = w.run(&["profile", "--resume", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let m = read_session(&out).unwrap();
    assert_eq!(m.status, SessionStatus::Complete);
    let mut warmups = 0;
    for (f, (path, old)) in m.files.iter().zip(&before) {
        assert_eq!(&f.path, path);
        let repeats: Vec<u32> = f.runs.iter().map(|r| r.repeat).collect();
        assert_eq!(repeats, vec![0, 1, 2], "{path}");
        // The runs done before the interrupt are kept as they were.
        for c in old {
            assert!(
                f.runs.iter().any(|r| r.capture == *c),
                "{path}: run {c} kept"
            );
        }
        if old.len() < 3 {
            warmups += 1;
        }
    }
    // Resume ran only the missing runs, each file missing some after a warm-up of its own.
    let missing = 9 - kept;
    assert_eq!(log_lines(&log).len() - ran_before, missing + warmups);
    let recs = std::fs::read_dir(out.join("files")).unwrap().count();
    assert_eq!(recs, 9);
}

#[test]
fn repeat_is_refused_with_shard_and_resume() {
    let (w, _) = world(0);
    let out = w.path("s");
    let o = w.run(&profile_args(
        "Rep",
        &out,
        &["--repeat", "2", "--shard", "1/2"],
    ));
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    let o = w.run(&profile_args("Rep", &out, &["--repeat", "0"]));
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    let o = w.run(&profile_args("Rep", &out, &["--warmup", "1"]));
    assert_eq!(o.status.code(), Some(2), "--warmup wants --repeat");
}

fn json_of(w: &World, args: &[&str]) -> serde_json::Value {
    let o = w.run(args);
    assert!(o.status.success(), "{args:?}: {}", text(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

fn spread(v: &serde_json::Value) -> (f64, f64, f64, Option<f64>, Option<f64>, u64) {
    (
        v["median"].as_f64().unwrap(),
        v["min"].as_f64().unwrap(),
        v["max"].as_f64().unwrap(),
        v["q1"].as_f64(),
        v["q3"].as_f64(),
        v["runs"].as_u64().unwrap(),
    )
}

#[test]
fn query_reports_medians_and_spreads_equal_to_hand_computed_values() {
    let (w, _) = world(0);
    let out = w.path("s");
    let o = w.run(&profile_args("Rep", &out, &["--repeat", "4"]));
    assert!(o.status.success(), "{}", text(&o.stderr));
    let s = out.to_str().unwrap();
    // Kept runs (after the warm-up, 100): commands 300 200 250 400, steps 150 100 120 160.
    // Sorted 200 250 300 400: median 275; q1 at h = 0.75: 200 + 0.75·50 = 237.5;
    // q3 at h = 2.25: 300 + 0.25·100 = 325.
    let q = json_of(&w, &["query", s, "--kind", "declaration", "--json"]);
    assert_eq!(q["session"]["repeats"]["runs"], 4);
    let rows = q["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    for r in rows {
        assert_eq!(r["durationMs"], 275.0);
        assert_eq!(
            spread(&r["durationSpread"]),
            (275.0, 200.0, 400.0, Some(237.5), Some(325.0), 4)
        );
        // Self (outside the step): 150 100 130 240 → 100 130 150 240: median 140,
        // q1 100 + 0.75·30 = 122.5, q3 150 + 0.25·90 = 172.5.
        assert_eq!(r["selfMs"], 140.0);
        assert_eq!(
            spread(&r["selfSpread"]),
            (140.0, 100.0, 240.0, Some(122.5), Some(172.5), 4)
        );
    }
    // Tactics: 100 120 150 160: median 135, q1 115, q3 152.5.
    let q = json_of(&w, &["query", s, "--kind", "tactic", "--json"]);
    for r in q["rows"].as_array().unwrap() {
        assert_eq!(
            spread(&r["durationSpread"]),
            (135.0, 100.0, 160.0, Some(115.0), Some(152.5), 4)
        );
    }
    // Files: the file's time is its command's (traced) time, as the declaration's.
    let q = json_of(&w, &["query", s, "--kind", "file", "--json"]);
    for r in q["rows"].as_array().unwrap() {
        assert_eq!(r["durationMs"], 275.0);
        assert_eq!(spread(&r["durationSpread"]).5, 4);
    }
    // A folder sums its files' medians.
    let q = json_of(&w, &["query", s, "--kind", "folder", "--json"]);
    assert_eq!(q["rows"][0]["durationMs"], 825.0);
    // TSV: the spread's columns follow.
    let o = w.run(&["query", s, "--kind", "tactic", "--path", "Rep/A.lean"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(
        text(&o.stdout),
        "kind\tname\tpath\tdurationHeartbeats\tselfHeartbeats\tline\tendLine\tdeclaration\tattribution\truns\tdurationMin\tdurationMax\tdurationQ1\tdurationQ3\tselfMin\tselfMax\n\
         tactic\ttrivial\tRep/A.lean\t135\t135\t3\t3\ttA\tmatched\t4\t100\t160\t115\t152.5\t100\t160\n"
    );
}

#[test]
fn three_runs_have_min_max_and_no_quartiles() {
    let (w, _) = world(0);
    let out = w.path("s");
    let o = w.run(&profile_args("Rep", &out, &["--repeat", "3"]));
    assert!(o.status.success(), "{}", text(&o.stderr));
    let q = json_of(
        &w,
        &[
            "query",
            out.to_str().unwrap(),
            "--kind",
            "declaration",
            "--json",
        ],
    );
    for r in q["rows"].as_array().unwrap() {
        assert_eq!(
            spread(&r["durationSpread"]),
            (250.0, 200.0, 300.0, None, None, 3)
        );
    }
}

#[test]
fn one_capture_stays_as_it_was() {
    let (w, _) = world(0);
    let out = w.path("s");
    let o = w.run(&profile_args("Rep", &out, &[]));
    assert!(o.status.success(), "{}", text(&o.stderr));
    let manifest = std::fs::read_to_string(out.join("session.json")).unwrap();
    assert!(!manifest.contains("\"runs\"") && !manifest.contains("\"repeats\""));
    let s = out.to_str().unwrap();
    let o = w.run(&["query", s, "--kind", "tactic", "--path", "Rep/A.lean"]);
    assert_eq!(
        text(&o.stdout),
        "kind\tname\tpath\tdurationHeartbeats\tselfHeartbeats\tline\tendLine\tdeclaration\tattribution\n\
         tactic\ttrivial\tRep/A.lean\t50\t50\t3\t3\ttA\tmatched\n"
    );
    let q = json_of(&w, &["query", s, "--kind", "declaration", "--json"]);
    let body = q.to_string();
    assert!(
        !body.contains("Spread") && !body.contains("repeats"),
        "{body}"
    );
}

#[test]
fn summary_prints_medians_and_spreads_of_a_repeated_capture() {
    let (w, _) = world(0);
    let (once, four) = (w.path("once"), w.path("four"));
    // The repeated capture first: its runs are then each file's runs 0 (the warm-up) to 4.
    let o = w.run(&profile_args("Rep", &four, &["--repeat", "4"]));
    assert!(o.status.success(), "{}", text(&o.stderr));
    let o = w.run(&profile_args("Rep", &once, &[]));
    assert!(o.status.success(), "{}", text(&o.stderr));
    // One capture: the summary as before (its usual header).
    let o = w.run(&["summary", once.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(!text(&o.stdout).contains("repeated capture"));
    assert!(
        text(&o.stdout).contains("grouped by name;"),
        "{}",
        text(&o.stdout)
    );
    // Four runs: declaration self 150 100 130 240 → median 140, q1 122.5, q3 172.5 (printed
    // rounded to whole heartbeats); total 300 200 250 400 → median 275.
    let o = w.run(&[
        "summary",
        four.to_str().unwrap(),
        "--group-by",
        "declaration",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let want = "\
repeated capture: 4 runs with rows (4 per file planned); medians over the runs, grouped by declaration; 3 rows
      self          self min-max            self q1-q3      total    calls  key
    140 hb         100 hb-240 hb         123 hb-173 hb     275 hb        1  tA [file=Rep/A.lean]
    140 hb         100 hb-240 hb         123 hb-173 hb     275 hb        1  tB [file=Rep/B.lean]
    140 hb         100 hb-240 hb         123 hb-173 hb     275 hb        1  tC [file=Rep/C.lean]
";
    assert_eq!(text(&o.stdout), want);
    // Summary JSON of the medians: its own format, with the same numbers unrounded.
    let summary_json = |to: &str| {
        let four = four.to_str().unwrap();
        w.run(&["summary", four, "--group-by", "declaration", "--json", to])
    };
    let o = summary_json("-");
    assert!(o.status.success(), "{}", text(&o.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_valid("summary-repeated.schema.json", &doc);
    assert_eq!(doc["format"], "leanscope-summary-repeated");
    assert_eq!(
        (
            &doc["measure"],
            &doc["group_by"],
            &doc["runs"],
            &doc["planned_runs"]
        ),
        (
            &serde_json::json!("heartbeats"),
            &serde_json::json!("declaration"),
            &serde_json::json!(4),
            &serde_json::json!(4)
        )
    );
    let rows = doc["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    let a = rows.iter().find(|r| r["key"]["name"] == "tA").unwrap();
    assert_eq!(
        a["self_ns"],
        serde_json::json!({"runs": 4, "median": 140.0, "min": 100.0, "max": 240.0, "q1": 122.5, "q3": 172.5})
    );
    assert_eq!(a["total_ns"]["median"], 275.0);
    assert_eq!(a["calls"]["median"], 1.0);
    // To a file: written atomically, and the table printed as well.
    let out = w.path("medians.json");
    let o = summary_json(out.to_str().unwrap());
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stdout).starts_with("repeated capture: 4 runs"));
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(written, doc);
}

#[test]
fn a_changed_source_gets_all_its_runs_again_and_parallel_runs_all_land() {
    let (w, log) = world(0);
    let out = w.path("s");
    let o = w.run(&profile_args(
        "Rep",
        &out,
        &["--repeat", "2", "--jobs", "2"],
    ));
    assert!(o.status.success(), "{}", text(&o.stderr));
    let m = read_session(&out).unwrap();
    for f in &m.files {
        let repeats: Vec<u32> = f.runs.iter().map(|r| r.repeat).collect();
        assert_eq!(repeats, vec![0, 1], "{}", f.path);
    }
    assert_eq!(log_lines(&log).len(), 9, "3 warm-ups and 6 runs");
    let old_b: Vec<String> = m.files[1]
        .runs
        .iter()
        .map(|r| r.recording.clone())
        .collect();
    // B changes: --resume runs B's warm-up and both its runs, and nothing of A and C.
    let b = w.project.join("Rep/B.lean");
    let mut src = std::fs::read_to_string(&b).unwrap();
    src.push_str("-- changed\n");
    std::fs::write(&b, src).unwrap();
    let before = log_lines(&log).len();
    let o = w.run(&["profile", "--resume", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let ran = log_lines(&log)[before..].to_vec();
    assert_eq!(ran.len(), 3, "{ran:?}");
    assert!(ran.iter().all(|l| l.ends_with("Rep/B.lean")), "{ran:?}");
    let m = read_session(&out).unwrap();
    assert_eq!(m.status, SessionStatus::Complete);
    let new_b: Vec<String> = m.files[1]
        .runs
        .iter()
        .map(|r| r.recording.clone())
        .collect();
    assert_eq!(new_b.len(), 2);
    for old in &old_b {
        assert!(!new_b.contains(old));
        assert!(!out.join(old).exists(), "{old} removed");
    }
    assert_eq!(std::fs::read_dir(out.join("files")).unwrap().count(), 6);
}

#[test]
fn resume_recaptures_only_the_run_whose_recording_is_gone() {
    let (w, log) = world(0);
    let out = w.path("s");
    let o = w.run(&profile_args("Rep", &out, &["--repeat", "3"]));
    assert!(o.status.success(), "{}", text(&o.stderr));
    let m = read_session(&out).unwrap();
    // The last committed run of C is also the file's own recording.
    let c = &m.files[2];
    let lost = c.recording.clone().unwrap();
    let lost_repeat = c.runs.iter().find(|r| r.recording == lost).unwrap().repeat;
    std::fs::remove_file(out.join(&lost)).unwrap();
    let before = log_lines(&log).len();
    let o = w.run(&["profile", "--resume", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let ran = log_lines(&log)[before..].to_vec();
    assert_eq!(ran.len(), 2, "C's warm-up and its lost run: {ran:?}");
    assert!(ran.iter().all(|l| l.ends_with("Rep/C.lean")), "{ran:?}");
    let m2 = read_session(&out).unwrap();
    let runs = &m2.files[2].runs;
    assert_eq!(runs.len(), 3);
    for r in runs {
        let was = c.runs.iter().find(|x| x.repeat == r.repeat).unwrap();
        assert_eq!(r.capture == was.capture, r.repeat != lost_repeat);
        assert!(out.join(&r.recording).is_file());
    }
}

/// Writes `Rep/A.lean`… whose command plans `command_runs` heartbeats per run (run 0 is the
/// warm-up) and logs its runs to `log`.
fn write_sources(w: &World, log: &Path, command_runs: &str) {
    for name in ["A", "B", "C"] {
        std::fs::write(
            w.project.join(format!("Rep/{name}.lean")),
            format!(
                "-- leanscope-fake: run-log {}\ntheorem t{name} : True := by -- leanscope-fake: heartbeats-runs {command_runs}\n  trivial -- leanscope-fake: heartbeats-runs 20,20,20,20\n",
                log.display()
            ),
        )
        .unwrap();
    }
}

/// A repeated capture (one warm-up, three runs) of sources planning `command_runs`.
fn repeated_capture(w: &World, name: &str, command_runs: &str) -> PathBuf {
    let log = w.path(&format!("{name}.log"));
    write_sources(w, &log, command_runs);
    let out = w.path(name);
    let o = w.run(&profile_args("Rep", &out, &["--repeat", "3"]));
    assert!(o.status.success(), "{}", text(&o.stderr));
    out
}

fn compare_json(
    w: &World,
    base: &Path,
    cand: &Path,
    extra: &[&str],
) -> (Option<i32>, serde_json::Value) {
    let mut args = vec![
        "compare",
        base.to_str().unwrap(),
        cand.to_str().unwrap(),
        "--metric",
        "total_ns",
        "--json",
        "-",
    ];
    args.extend_from_slice(extra);
    let o = w.run(&args);
    let v = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}{}", text(&o.stdout), text(&o.stderr)));
    (o.status.code(), v)
}

fn row<'a>(doc: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    doc["matched"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["key"]["name"] == name)
        .unwrap_or_else(|| panic!("no {name}: {doc:#}"))
}

#[test]
fn compare_of_repeated_captures_is_noise_aware() {
    let (w, _) = world(0);
    // Kept runs 300, 200, 250: median 250, range 200–300.
    let base = repeated_capture(&w, "base", "0,300,200,250");
    // 380–400: the ranges separate.
    let slower = repeated_capture(&w, "slower", "0,400,380,390");
    // 190–310, median 245: beyond a zero tolerance, but the ranges overlap.
    let noisy = repeated_capture(&w, "noisy", "0,310,190,245");
    let same = repeated_capture(&w, "same", "0,300,200,250");
    let valid = |v: &serde_json::Value| assert_valid("comparison.schema.json", v);

    let (code, doc) = compare_json(&w, &base, &slower, &[]);
    valid(&doc);
    assert_eq!(code, Some(1), "a regression");
    assert_eq!(doc["noise"]["baseline_runs"], 3);
    assert_eq!(doc["noise"]["candidate_runs"], 3);
    let a = row(&doc, "tA");
    assert_eq!(
        (a["baseline"].as_u64(), a["candidate"].as_u64()),
        (Some(250), Some(390)),
        "{a}"
    );
    assert_eq!(a["status"], "regression");
    assert_eq!(a["rule"], "spreads_separate");

    let (code, doc) = compare_json(&w, &base, &noisy, &[]);
    valid(&doc);
    assert_eq!(code, Some(0), "noise is not a regression: {doc:#}");
    let a = row(&doc, "tA");
    assert_eq!(a["candidate"], 245);
    assert_eq!(a["status"], "within_tolerance");
    assert_eq!(a["rule"], "noise");
    let interval = a["interval"].as_array().unwrap();
    assert!(interval[0].as_f64().unwrap() <= 0.0 && interval[1].as_f64().unwrap() >= 0.0);

    let (code, doc) = compare_json(&w, &base, &same, &[]);
    assert_eq!(code, Some(0));
    assert_eq!(row(&doc, "tA")["rule"], "tolerance");

    // Seeded: the same inputs and seed give the same answer, byte for byte.
    let (_, once) = compare_json(&w, &base, &noisy, &["--seed", "7"]);
    let (_, twice) = compare_json(&w, &base, &noisy, &["--seed", "7"]);
    assert_eq!(once, twice);
    assert_eq!(once["noise"]["seed"], 7);
}
