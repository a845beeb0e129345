//! `leanscope summary` and `compare` end to end: a hand-checked pair of
//! LeanProfiler-format summaries, every tolerance boundary and exit code,
//! strict summary reading, and a declaration-level diff of two sessions.

use std::path::{Path, PathBuf};
use std::process::Command;

use leanscope::interop::leanprofiler_summary;
use recording::model::Stats;
use recording::synth::{write_synthetic, SynthParams};
use recording::writer::encode_to_vec;
use recording::{NewEvent, Recording};
use serde_json::{json, Value};

fn leanscope(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_leanscope"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A LeanProfiler summary (schema version 1) whose rows have these call
/// durations and self times, with consistent event timings and shares.
fn lp_summary(rows: &[(&str, &[u64], u64)], issues: usize) -> Value {
    let mut timings = Vec::new();
    let mut out_rows = Vec::new();
    let recorded: u64 = rows.iter().map(|r| r.2).sum();
    for (name, durations, self_ns) in rows {
        let mut left = *self_ns;
        for &d in durations.iter() {
            let s = left.min(d);
            left -= s;
            timings.push(
                json!({"event_index": timings.len(), "inclusive_ns": d, "self_ns": s,
                                "inclusive_heartbeats": 0, "self_heartbeats": 0}),
            );
        }
        assert_eq!(left, 0, "self time fits the calls");
        let st = Stats::from_durations(&mut durations.to_vec(), *self_ns);
        out_rows.push(json!({
            "key": {"name": name, "phase": null, "activity": null, "backend": null, "dtype": null, "device": null, "module": null},
            "calls": st.count, "self_ns": st.self_ns, "total_ns": st.total_ns,
            "self_heartbeats": 0, "total_heartbeats": 0,
            "min_ns": st.min_ns, "mean_ns": st.mean_ns, "median_ns": st.median_ns, "p95_ns": st.p95_ns, "max_ns": st.max_ns,
            "share_permille": (self_ns * 1000).checked_div(recorded).unwrap_or(0),
            "alloc_bytes": 0, "peak_live_bytes": 0, "alloc_delta_bytes": 0
        }));
    }
    json!({
        "schema_version": 1, "clock": "monotonic", "time_unit": "nanoseconds",
        "event_count": timings.len(), "thread_count": 1, "max_depth": 0,
        "trace_origin_ns": 1000, "trace_window_ns": 5000,
        "recorded_thread_time_ns": recorded, "recorded_heartbeats": 0,
        "event_limit": null, "dropped_events": 0, "process_resources": null,
        "validation_issues": (0..issues).map(|_| json!({"event_index": 0, "message": "child ends after its parent"})).collect::<Vec<_>>(),
        "event_timings": timings,
        "rows": out_rows
    })
}

fn baseline() -> Value {
    lp_summary(
        &[
            ("parse", &[100, 200, 300], 600),
            ("elab", &[1000], 400),
            ("kernel", &[0], 0),
            ("lint", &[50], 50),
            ("cache", &[1000, 1000], 2000),
        ],
        0,
    )
}

fn candidate() -> Value {
    lp_summary(
        &[
            ("parse", &[100, 200, 420], 720),
            ("elab", &[900], 300),
            ("kernel", &[11], 11),
            ("cache", &[1000, 1100], 2100),
            ("new.thing", &[5], 5),
        ],
        0,
    )
}

fn write(dir: &Path, name: &str, v: &Value) -> String {
    let p = dir.join(name);
    std::fs::write(&p, serde_json::to_string_pretty(v).unwrap()).unwrap();
    p.to_string_lossy().into_owned()
}

struct Pair {
    _dir: tempfile::TempDir,
    base: String,
    cand: String,
    json: String,
}

fn pair() -> Pair {
    let dir = tempfile::tempdir().unwrap();
    let base = write(dir.path(), "base.json", &baseline());
    let cand = write(dir.path(), "cand.json", &candidate());
    let json = dir.path().join("cmp.json").to_string_lossy().into_owned();
    Pair {
        _dir: dir,
        base,
        cand,
        json,
    }
}

/// Runs compare on total_ns with the tolerances; returns the exit code and
/// each matched row's (name, status).
fn run(p: &Pair, abs: u64, bps: u64, extra: &[&str]) -> (i32, Vec<(String, String)>, Value) {
    let (abs, bps) = (abs.to_string(), bps.to_string());
    let mut args = vec![
        "compare",
        &p.base,
        &p.cand,
        "--metric",
        "total_ns",
        "--absolute-tolerance",
        &abs,
        "--relative-tolerance-bps",
        &bps,
        "--json",
        &p.json,
    ];
    args.extend_from_slice(extra);
    let (code, out, err) = leanscope(&args);
    assert!(code == 0 || code == 1, "{out}{err}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&p.json).unwrap()).unwrap();
    let rows = v["matched"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["key"]["name"].as_str().unwrap().to_owned(),
                r["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    (code, rows, v)
}

fn statuses(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[test]
fn hand_checked_leanprofiler_pair() {
    let p = pair();
    let (code, rows, v) = run(&p, 100, 1000, &[]);
    assert_eq!(code, 1);
    // Rows sorted by key; cache is exactly at the absolute tolerance
    // (+100), kernel has a zero baseline and +11 ≤ 100.
    assert_eq!(
        rows,
        statuses(&[
            ("cache", "within_tolerance"),
            ("elab", "improvement"),
            ("kernel", "within_tolerance"),
            ("parse", "regression"),
        ])
    );
    let m = &v["matched"];
    assert_eq!(m[0]["change_bps"], 500);
    assert_eq!(
        (m[1]["delta"].as_i64(), m[1]["change_bps"].as_i64()),
        (Some(-100), Some(-1000))
    );
    assert_eq!(m[2]["change_bps"], Value::Null);
    assert_eq!(
        (
            m[3]["baseline"].as_u64(),
            m[3]["candidate"].as_u64(),
            m[3]["delta"].as_i64(),
            m[3]["change_bps"].as_i64()
        ),
        (Some(600), Some(720), Some(120), Some(2000))
    );
    assert_eq!(
        (
            m[3]["baseline_calls"].as_u64(),
            m[3]["candidate_calls"].as_u64()
        ),
        (Some(3), Some(3))
    );
    assert_eq!(
        v["missing"],
        json!([{"key": {"name": "lint", "phase": null, "activity": null, "backend": null, "dtype": null, "device": null, "module": null}, "value": 50, "calls": 1}])
    );
    assert_eq!(v["new"][0]["key"]["name"], "new.thing");
    assert_eq!(v["new"][0]["value"], 5);
    for (k, want) in [
        ("schema_version", json!(1)),
        ("metric", json!("total_ns")),
        ("absolute_tolerance", json!(100)),
        ("relative_tolerance_bps", json!(1000)),
        ("has_regression", json!(true)),
        ("policy_failed", json!(true)),
        ("fail_on_new", json!(false)),
        ("fail_on_missing", json!(false)),
        ("allow_incomplete", json!(false)),
    ] {
        assert_eq!(v[k], want, "{k}");
    }
    // The default metric is LeanProfiler's: mean_ns (parse 200 -> 240).
    let (code, out, _) = leanscope(&["compare", &p.base, &p.cand, "--json", "-"]);
    assert_eq!(code, 1);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["metric"], "mean_ns");
    let parse = v["matched"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["key"]["name"] == "parse")
        .unwrap();
    assert_eq!(
        (parse["baseline"].as_u64(), parse["candidate"].as_u64()),
        (Some(200), Some(240))
    );
}

#[test]
fn tolerance_boundaries_and_exit_codes() {
    let p = pair();
    // Only the relative tolerance exceeded by parse (+120 ≤ 150): passes.
    let (code, rows, _) = run(&p, 150, 1000, &[]);
    assert_eq!(code, 0);
    assert_eq!(rows[3], ("parse".into(), "within_tolerance".into()));
    // Only the absolute tolerance exceeded by parse and cache; kernel's zero
    // baseline makes the absolute tolerance alone decide: +11 > 10.
    let (code, rows, _) = run(&p, 10, 100_000, &[]);
    assert_eq!(code, 1);
    assert_eq!(
        rows,
        statuses(&[
            ("cache", "within_tolerance"),
            ("elab", "improvement"),
            ("kernel", "regression"),
            ("parse", "within_tolerance"),
        ])
    );
    // Exactly at the relative tolerance: parse +120 is 2000 bps of 600.
    let (_, rows, _) = run(&p, 0, 2000, &[]);
    assert_eq!(rows[3], ("parse".into(), "within_tolerance".into()));
    let (_, rows, _) = run(&p, 0, 1999, &[]);
    assert_eq!(rows[3], ("parse".into(), "regression".into()));
    // New and missing rows fail only when asked to.
    assert_eq!(run(&p, 150, 1000, &["--fail-on-new"]).0, 1);
    assert_eq!(run(&p, 150, 1000, &["--fail-on-missing"]).0, 1);
    let (code, _, v) = run(&p, 150, 1000, &["--fail-on-new", "--fail-on-missing"]);
    assert_eq!(
        (code, &v["policy_failed"], &v["has_regression"]),
        (1, &json!(true), &json!(false))
    );
    // Identical inputs pass even with every --fail-on.
    let (code, out, _) = leanscope(&[
        "compare",
        &p.base,
        &p.base,
        "--fail-on-new",
        "--fail-on-missing",
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("0 regression(s), 0 improvement(s), 5 within tolerance"),
        "{out}"
    );
}

#[test]
fn incomplete_inputs_are_refused_unless_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let mut b = baseline();
    b["validation_issues"] = json!([{"event_index": 2, "message": "child ends after its parent"}]);
    let base = write(dir.path(), "base.json", &b);
    let cand = write(dir.path(), "cand.json", &candidate());
    let (code, _, err) = leanscope(&["compare", &base, &cand]);
    assert_eq!(code, 2);
    assert!(
        err.contains(
            "the baseline summary is incomplete: 1 validation issue(s); pass --allow-incomplete"
        ),
        "{err}"
    );
    let (code, out, err) = leanscope(&[
        "compare",
        &base,
        &cand,
        "--allow-incomplete",
        "--metric",
        "total_ns",
        "--absolute-tolerance",
        "150",
        "--relative-tolerance-bps",
        "1000",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    // Dropped events make an input incomplete too.
    let mut c = candidate();
    c["event_limit"] = json!(8);
    c["dropped_events"] = json!(3);
    let cand = write(dir.path(), "cand2.json", &c);
    let (code, _, err) = leanscope(&["compare", &write(dir.path(), "b.json", &baseline()), &cand]);
    assert_eq!(code, 2);
    assert!(
        err.contains("the candidate summary is incomplete: 3 dropped event(s)"),
        "{err}"
    );
}

#[test]
fn usage_and_invalid_input_exit_2() {
    let p = pair();
    let (code, _, err) = leanscope(&["compare", &p.base, &p.cand, "--metric", "wall_ns"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown metric `wall_ns`"), "{err}");
    let (code, _, _) = leanscope(&["compare", &p.base]);
    assert_eq!(code, 2);
    let dir = tempfile::tempdir().unwrap();
    let mut bad = baseline();
    bad["rows"][1]["bogus"] = json!(1);
    let (code, _, err) = leanscope(&["compare", &write(dir.path(), "bad.json", &bad), &p.cand]);
    assert_eq!(code, 2);
    assert!(
        err.contains(
            "$.rows[1]: field `bogus` is not part of LeanProfiler summary schema version 1"
        ),
        "{err}"
    );
    // A leanscope summary and a LeanProfiler summary have different keys.
    let rec = dir.path().join("a.lsrec");
    std::fs::write(
        &rec,
        write_synthetic(
            &SynthParams {
                seed: 1,
                events: 300,
                threads: 2,
            },
            Vec::new(),
        )
        .unwrap(),
    )
    .unwrap();
    let ls = dir.path().join("ls.json");
    let (code, _, _) = leanscope(&[
        "summary",
        rec.to_str().unwrap(),
        "--json",
        ls.to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    let (code, _, err) = leanscope(&["compare", ls.to_str().unwrap(), &p.cand]);
    assert_eq!(code, 2);
    assert!(
        err.contains("cannot compare a leanscope summary with a LeanProfiler summary"),
        "{err}"
    );
    let (code, _, err) = leanscope(&["compare", &p.base, &p.cand, "--metric", "alloc_bytes"]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = leanscope(&[
        "compare",
        ls.to_str().unwrap(),
        ls.to_str().unwrap(),
        "--metric",
        "alloc_bytes",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("metric alloc_bytes is only in LeanProfiler summaries"),
        "{err}"
    );
}

#[test]
fn leanprofiler_summaries_are_read_strictly() {
    let good = baseline();
    leanprofiler_summary::parse(&good).unwrap();
    type Mutation = fn(&mut Value);
    let cases: Vec<(Mutation, &str)> = vec![
        (|v| v["extra"] = json!(1), "$: field `extra` is not part of LeanProfiler summary schema version 1"),
        (|v| { v.as_object_mut().unwrap().remove("clock"); }, "$: required field `clock` is missing"),
        (|v| v["time_unit"] = json!("microseconds"), "$.time_unit: expected `nanoseconds`, found `microseconds`"),
        (|v| v["clock"] = json!("wall"), "$.clock: expected `monotonic`"),
        (|v| v["schema_version"] = json!(2), "$.schema_version: expected 1, found 2"),
        (|v| v["rows"][0]["total_ns"] = json!(600.5), "$.rows[0].total_ns: expected a non-negative integer, found the number 600.5 (not an integer)"),
        (|v| v["rows"][0]["min_ns"] = json!(-1), "$.rows[0].min_ns: expected a non-negative integer, found the negative number -1"),
        (|v| v["rows"][0]["key"]["phase"] = json!(3), "$.rows[0].key.phase: expected a string"),
        (|v| v["rows"][0]["mean_ns"] = json!(201), "$.rows[0].mean_ns: expected floor(total_ns / calls) = 200, found 201"),
        (|v| v["rows"][1]["share_permille"] = json!(200), "$.rows[1].share_permille: found 200, expected 131"),
        (|v| v["rows"][4]["key"] = v["rows"][0]["key"].clone(), "$.rows[4].key: duplicate row key `parse`"),
        (|v| v["event_count"] = json!(7), "$.event_count: found 7, but event_timings has 8 entries"),
        (|v| v["event_timings"][2]["event_index"] = json!(5), "$.event_timings[2].event_index: expected retained prefix index 2, found 5"),
        (|v| v["recorded_thread_time_ns"] = json!(1), "$.recorded_thread_time_ns: found 1, expected 3050"),
        (|v| v["dropped_events"] = json!(2), "$.dropped_events: events cannot be dropped when event_limit is null"),
        (|v| v["rows"][0]["calls"] = json!(0), "$.rows[0]"),
        (|v| v["rows"] = json!({}), "$.rows: expected an array, found an object"),
    ];
    for (mutate, want) in cases {
        let mut v = good.clone();
        mutate(&mut v);
        let e = leanprofiler_summary::parse(&v).expect_err(want).to_string();
        assert!(
            e.starts_with("LeanProfiler summary: ") && e.contains(want),
            "{want}\n  got: {e}"
        );
    }
}

#[test]
fn summary_json_round_trips_and_is_strict() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("a.lsrec");
    std::fs::write(
        &rec,
        write_synthetic(
            &SynthParams {
                seed: 2,
                events: 2000,
                threads: 3,
            },
            Vec::new(),
        )
        .unwrap(),
    )
    .unwrap();
    for g in ["name", "declaration", "tactic", "file", "class"] {
        let out = dir.path().join(format!("{g}.json"));
        let (code, _, err) = leanscope(&[
            "summary",
            rec.to_str().unwrap(),
            "--group-by",
            g,
            "--json",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{err}");
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        assert_eq!(v["format"], "leanscope-summary");
        assert_eq!(v["group_by"], g);
        let s = leanscope::interop::summary_json::parse(&v).unwrap();
        let direct = recording::summary::summarize(
            &Recording::open(&rec).unwrap(),
            recording::summary::GroupBy::parse(g).unwrap(),
        );
        assert_eq!(s, direct, "{g}");
        // Reading it back and comparing with itself passes.
        let (code, _, err) = leanscope(&[
            "compare",
            out.to_str().unwrap(),
            out.to_str().unwrap(),
            "--fail-on-new",
            "--fail-on-missing",
        ]);
        assert_eq!(code, 0, "{err}");
        // Regrouping a summary is refused.
        if g != "name" {
            let (code, _, err) =
                leanscope(&["summary", out.to_str().unwrap(), "--group-by", "name"]);
            assert_eq!(code, 2);
            assert!(
                err.contains(&format!(
                    "is grouped by {g}; it cannot be regrouped by name"
                )),
                "{err}"
            );
        }
    }
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("class.json")).unwrap())
            .unwrap();
    let mut bad = v.clone();
    bad["rows"][0]["self_ns"] = json!(u64::MAX);
    let e = leanscope::interop::summary_json::parse(&bad)
        .unwrap_err()
        .to_string();
    assert!(e.contains("$.rows[0]: self_ns"), "{e}");
    let mut bad = v.clone();
    bad["group_by"] = json!("module");
    let e = leanscope::interop::summary_json::parse(&bad)
        .unwrap_err()
        .to_string();
    assert!(e.contains("$.group_by: unknown grouping `module`"), "{e}");
}

/// A copy of `rec` with the times of events in declaration `decl` doubled
/// (and everything after shifted), as if that proof got slower.
fn slower(rec: &Recording, factor: u64) -> Vec<u8> {
    let events: Vec<NewEvent> = (0..rec.len() as u32)
        .map(|i| NewEvent {
            parent: rec.parent(i),
            class: rec.class(i),
            label: rec.label(i),
            start_ns: rec.start(i) * factor,
            duration_ns: rec.inclusive_ns(i) * factor,
            thread: u32::from(rec.thread(i)),
            range: rec.range(i),
            range_kind: rec.range_kind(i),
        })
        .collect();
    encode_to_vec(&rec.header, events).unwrap()
}

fn session(dir: &Path, files: &[(&str, Vec<u8>)]) -> PathBuf {
    std::fs::create_dir_all(dir.join("files")).unwrap();
    for (name, bytes) in files {
        std::fs::write(dir.join("files").join(name), bytes).unwrap();
    }
    dir.to_path_buf()
}

#[test]
fn sessions_compare_by_file_and_declaration() {
    let dir = tempfile::tempdir().unwrap();
    let synth = |seed| {
        write_synthetic(
            &SynthParams {
                seed,
                events: 640,
                threads: 2,
            },
            Vec::new(),
        )
        .unwrap()
    };
    let slow = slower(&Recording::from_bytes(&synth(2)).unwrap(), 2);
    let base = session(
        &dir.path().join("base"),
        &[
            ("a.lsrec", synth(1)),
            ("b.lsrec", synth(2)),
            ("c.lsrec", synth(3)),
        ],
    );
    let cand = session(
        &dir.path().join("cand"),
        &[
            ("a.lsrec", synth(1)),
            ("b.lsrec", slow),
            ("d.lsrec", synth(4)),
        ],
    );
    let out = dir.path().join("cmp.json");
    let (code, text, err) = leanscope(&[
        "compare",
        base.to_str().unwrap(),
        cand.to_str().unwrap(),
        "--metric",
        "total_ns",
        "--relative-tolerance-bps",
        "5000",
        "--json",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{text}{err}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(v["group_by"], "declaration");
    let matched = v["matched"].as_array().unwrap();
    let decls = |file: &'static str| matched.iter().filter(move |r| r["key"]["file"] == file);
    // Seed 1's file is unchanged; seed 2's declarations all doubled (+100 % > 50 %).
    assert!(decls("Synth/Seed1.lean").count() >= 10);
    assert!(decls("Synth/Seed1.lean").all(|r| r["status"] == "within_tolerance" && r["delta"] == 0));
    assert!(decls("Synth/Seed2.lean").count() >= 10);
    for r in decls("Synth/Seed2.lean") {
        assert_eq!(r["status"], "regression");
        assert_eq!(
            r["candidate"].as_u64().unwrap(),
            2 * r["baseline"].as_u64().unwrap()
        );
        assert_eq!(r["change_bps"], 10_000);
    }
    // Seed 3's declarations are missing, seed 4's new.
    assert!(v["missing"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["key"]["file"] == "Synth/Seed3.lean"));
    assert!(v["new"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["key"]["file"] == "Synth/Seed4.lean"));
    assert!(
        !v["missing"].as_array().unwrap().is_empty() && !v["new"].as_array().unwrap().is_empty()
    );
    assert!(
        text.contains("Regression: synth_0 [file=Synth/Seed2.lean]"),
        "{text}"
    );
    // Tactics, too.
    let (code, _, err) = leanscope(&[
        "compare",
        base.to_str().unwrap(),
        cand.to_str().unwrap(),
        "--metric",
        "total_ns",
        "--group-by",
        "tactic",
        "--relative-tolerance-bps",
        "5000",
        "--json",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{err}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let regressions: Vec<&Value> = v["matched"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["status"] == "regression")
        .collect();
    assert!(!regressions.is_empty());
    assert!(regressions
        .iter()
        .all(|r| r["key"]["file"] == "Synth/Seed2.lean" && r["key"]["line"].is_u64()));
}
