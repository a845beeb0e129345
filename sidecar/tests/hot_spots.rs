//! `leanscope top` end to end: the demo project through the fake toolchain, its numbers
//! against sums worked out by hand from the fixture, a session against the sum of its
//! files, an old session without hot-spot rows, merged shards, a repeated heartbeat
//! capture, imported profiles, and every document against `schemas/hot-spots.schema.json`.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::{read_session, repo, text, World};
use recording::hotspots::{file_rows, HotSpots};
use recording::Recording;
use serde_json::Value;

/// Fails unless `doc` conforms to `schemas/hot-spots.schema.json`.
fn assert_valid(doc: &Value) {
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("schemas/hot-spots.schema.json")).unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(doc)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}\n{doc:#}");
}

/// `leanscope top ARGS --json -`, checked against the schema; with its stderr.
fn top(w: &World, args: &[&str]) -> (Value, String) {
    let mut all = vec!["top"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--json", "-"]);
    let out = w.run(&all);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_valid(&doc);
    (doc, text(&out.stderr))
}

/// Each row's label → (total, self, count, files).
fn by_label(doc: &Value) -> BTreeMap<String, (u64, u64, u64, u64)> {
    doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let n = |f: &str| r[f].as_u64().unwrap();
            (
                r["key"]["label"].as_str().unwrap().to_owned(),
                (n("total"), n("self"), n("count"), n("files")),
            )
        })
        .collect()
}

fn profile(w: &World, args: &[&str]) {
    let out = w.run(args);
    // 0, or 1 for the files with Lean errors (every file of the demo has a case).
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        text(&out.stderr)
    );
}

fn committed_recordings(dir: &Path) -> Vec<(String, PathBuf)> {
    let m = read_session(dir).unwrap();
    m.files
        .iter()
        .filter(|f| f.status.is_committed())
        .map(|f| (f.path.clone(), dir.join(f.recording.as_ref().unwrap())))
        .collect()
}

#[test]
fn per_class_totals_of_demo_clean_are_the_fixtures_sums() {
    let w = World::new();
    let rec = w.path("clean.lsrec");
    let out = w.profile_command("Demo/Clean.lean", &rec).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let (doc, _) = top(
        &w,
        &["--by", "class", "--limit", "100", rec.to_str().unwrap()],
    );
    assert_eq!(doc["sourceKind"], "recording");
    assert_eq!(doc["unit"], "ns");
    let rows = by_label(&doc);
    // From fixtures/lean-output/clean/profile.json: a node's time is the sum of the
    // `threadCPUDelta`s (µs) of the samples beneath it. The outermost Elab.step of each proof
    // (the tactic blocks; nested steps are not added again):
    //   double_add  tacticSeq  44 + 1417 + 63 + 6238 + 97                           =  7,859 µs
    //   length_append_comm     51 + 2906 + 58 + 4472 + 88                           =  7,575 µs
    //   le_double   tacticSeq  57 + 1288 + 22 + 1394 + 41 + 173 + 31 + 1702 + 49
    //                          + 5817 + 66 + 736 + 102                              = 11,478 µs
    //   cases_example          48 + 1126 + 25 + 3381 + 37 + 162 + 21 + 1093 + 39
    //                          + 512 + 91                                           =  6,535 µs
    //   Elab.step total = 7,859 + 7,575 + 11,478 + 6,535 = 33,447 µs; every step's time
    //   lies in some step, so its self is the same.
    assert_eq!(rows["Elab.step"].0, 33_447_000);
    assert_eq!(rows["Elab.step"].1, 33_447_000);
    // Elab.async: the four proofs, all of the worker threads' samples:
    //   double_add 81 + 152 + 44 + 1417 + 63 + 6238 + 97 + 214 + 61             =  8,367 µs
    //   le_double  92 + 144 + 57 + 1288 + 22 + 1394 + 41 + 173 + 31 + 1702 + 49
    //              + 5817 + 66 + 736 + 102 + 205 + 61                            = 11,980 µs
    //   length_append_comm 77 + 139 + 51 + 2906 + 58 + 4472 + 88 + 188 + 61     =  8,040 µs
    //   cases_example 84 + 319 + 1204 + 136 + 48 + 1126 + 25 + 3381 + 37 + 162
    //              + 21 + 1093 + 39 + 512 + 91 + 173 + 61                        =  8,512 µs
    //   total 8,367 + 11,980 + 8,040 + 8,512 = 36,899 µs (a 58 µs gap with no sample
    //   after double_add is no work); self: 81 + 61 + 92 + 61 + 77 + 61 + 84 + 61 = 578 µs.
    assert_eq!(rows["Elab.async"].0, 36_899_000);
    assert_eq!(rows["Elab.async"].1, 578_000);
    assert_eq!(rows["Elab.async"].2, 4);
    // Meta.synthInstance `✅️ Decidable (b = true)`: one sample of 1,204 µs.
    assert_eq!(rows["Meta.synthInstance"], (1_204_000, 1_204_000, 1, 1));
    // Kernel `typechecking declaration` on the main thread: 573.205903 ms to
    // 574.357903 ms = 1,152 µs.
    assert_eq!(rows["Kernel"], (1_152_000, 1_152_000, 1, 1));
    // The selves add up to all the work.
    let selves: u64 = rows.values().map(|r| r.1).sum();
    assert_eq!(selves, doc["work"].as_u64().unwrap());

    // By key: the tactics by name, the same numbers summed over a class's keys' selves.
    let (doc, _) = top(&w, &["--class", "Elab.step", rec.to_str().unwrap()]);
    let rows = by_label(&doc);
    assert_eq!(
        rows.values().map(|r| r.1).sum::<u64>(),
        33_447_000,
        "{rows:?}"
    );
    assert!(rows.keys().all(|k| k.starts_with("Elab.step ")), "{rows:?}");
    // omega's three calls: 6,238 + 4,472 + 5,817 µs.
    assert_eq!(rows["Elab.step omega"], (16_527_000, 16_527_000, 3, 1));

    // The tree under a path, and the callers of a key.
    let (doc, _) = top(
        &w,
        &[
            "--path",
            "runFrontend runFrontend > Elab.command def",
            rec.to_str().unwrap(),
        ],
    );
    let node = &doc["tree"]["nodes"][0];
    assert_eq!(node["key"]["label"], "Elab.command def");
    assert_eq!(doc["tree"]["path"].as_array().unwrap().len(), 2);
    let kids: u64 = node["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["total"].as_u64().unwrap())
        .sum();
    assert_eq!(
        kids + node["self"].as_u64().unwrap(),
        node["total"].as_u64().unwrap()
    );
    let (doc, _) = top(
        &w,
        &[
            "--inverted",
            "--path",
            "Elab.step omega",
            rec.to_str().unwrap(),
        ],
    );
    let omega = &doc["tree"]["nodes"][0];
    assert_eq!(omega["total"], 16_527_000);
    let callers: Vec<&str> = omega["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["key"]["label"].as_str().unwrap())
        .collect();
    assert_eq!(callers, ["Elab.step unfold", "Elab.step simp"], "{omega:#}");

    // A path that is not in the tree is a usage error naming it.
    let out = w.run(&["top", rec.to_str().unwrap(), "--path", "Kernel>nothing"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("no key"),
        "{}",
        text(&out.stderr)
    );
    // The table for people.
    let out = w.run(&["top", rec.to_str().unwrap(), "--limit", "3"]);
    let table = text(&out.stdout);
    assert!(table.contains("Import importing"), "{table}");
    assert!(table.contains("more keys"), "{table}");
}

#[test]
fn a_session_is_the_sum_of_its_files_and_an_old_one_reads_its_recordings() {
    let w = World::new();
    let dir = w.path("session");
    profile(
        &w,
        &[
            "profile",
            "--project",
            "--threshold",
            "1",
            "-o",
            dir.to_str().unwrap(),
        ],
    );
    let (doc, stderr) = top(&w, &["--limit", "100000", dir.to_str().unwrap()]);
    assert_eq!(doc["sourceKind"], "session");
    assert_eq!(doc["fromRecordings"], 0, "{stderr}");
    let recs = committed_recordings(&dir);
    assert!(recs.len() >= 4);
    assert_eq!(doc["files"], recs.len() as u64);
    // Each file's key rows, from its recording, summed by key.
    let mut want: BTreeMap<String, (u64, u64, u64, u64)> = BTreeMap::new();
    let mut tree_total = 0u64;
    for (_, path) in &recs {
        let rec = Recording::open(path).unwrap();
        let hot = HotSpots::of(&rec);
        tree_total += hot.tree.total();
        for r in file_rows(&rec, &hot).rows {
            let e = want.entry(r.key.label()).or_default();
            e.0 += r.total;
            e.1 += r.self_time;
            e.2 += r.count;
            e.3 += 1;
        }
    }
    // Demo/Huge.lean has over 100 keys: its index rows end in one `(other)` row, which the
    // document gives apart from the table.
    let other = want.remove("(other)").expect("Huge.lean's keys past 100");
    assert_eq!(by_label(&doc), want);
    let o = &doc["other"];
    assert_eq!(
        (o["total"].as_u64(), o["self"].as_u64(), o["count"].as_u64()),
        (Some(other.0), Some(other.1), Some(other.2))
    );
    assert!(o["holds"].as_u64().unwrap() > 0);
    assert_eq!(doc["work"], tree_total);
    // A key's top files are its largest totals, largest first.
    for r in doc["rows"].as_array().unwrap() {
        let t: Vec<u64> = r["topFiles"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["total"].as_u64().unwrap())
            .collect();
        assert!(t.windows(2).all(|w| w[0] >= w[1]), "{r:#}");
    }
    // The merged call tree of the session holds all of its work.
    let (with_tree, _) = top(&w, &["--tree", dir.to_str().unwrap()]);
    assert_eq!(with_tree["tree"]["total"], tree_total);
    // Only a folder's files.
    let (demo, _) = top(
        &w,
        &[
            "--folder",
            "Demo",
            "--limit",
            "100000",
            dir.to_str().unwrap(),
        ],
    );
    let under = recs.iter().filter(|(p, _)| p.starts_with("Demo/")).count();
    assert_eq!(demo["files"], under as u64);

    // The same session without its hot-spot rows (written before them): the same rows,
    // read from the recordings, and said so.
    let old = w.path("old");
    common::copy_dir(&dir, &old);
    let _ = std::fs::remove_file(old.join("session.journal"));
    let index = std::fs::read_to_string(old.join("index.jsonl")).unwrap();
    let kept: String = index
        .lines()
        .filter(|l| !l.contains(r#""kind":"hotspot""#))
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(kept.len() < index.len());
    std::fs::write(old.join("index.jsonl"), &kept).unwrap();
    let mut m: Value =
        serde_json::from_slice(&std::fs::read(old.join("session.json")).unwrap()).unwrap();
    m["indexBytes"] = kept.len().into();
    std::fs::write(old.join("session.json"), serde_json::to_vec(&m).unwrap()).unwrap();
    let (from_old, stderr) = top(&w, &["--limit", "100000", old.to_str().unwrap()]);
    assert_eq!(from_old["fromRecordings"], recs.len() as u64);
    assert!(stderr.contains("read from their recordings"), "{stderr}");
    assert_eq!(from_old["rows"], doc["rows"]);

    // Hostile rows are skipped with a warning naming their line.
    let hostile = w.path("hostile");
    common::copy_dir(&dir, &hostile);
    let index = std::fs::read_to_string(hostile.join("index.jsonl")).unwrap();
    let (n, line) = index
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains(r#""kind":"hotspot""#))
        .unwrap();
    let mut row: Value = serde_json::from_str(line).unwrap();
    row["durationMs"] = (-1.0).into();
    let bad = serde_json::to_string(&row).unwrap();
    let index = index.replacen(line, &bad, 1);
    std::fs::write(hostile.join("index.jsonl"), &index).unwrap();
    let _ = std::fs::remove_file(hostile.join("session.journal"));
    let mut m: Value =
        serde_json::from_slice(&std::fs::read(hostile.join("session.json")).unwrap()).unwrap();
    m["indexBytes"] = index.len().into();
    std::fs::write(
        hostile.join("session.json"),
        serde_json::to_vec(&m).unwrap(),
    )
    .unwrap();
    let (doc, stderr) = top(&w, &[hostile.to_str().unwrap()]);
    let warning = format!("skipped line {} of index.jsonl", n + 1);
    assert!(stderr.contains(&warning), "{stderr}");
    assert!(doc["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|x| x.as_str().unwrap().contains(&warning)));
}

#[test]
fn merged_shards_carry_their_hot_spot_rows() {
    let w = World::new();
    let whole = w.path("whole");
    profile(
        &w,
        &[
            "profile",
            "--project",
            "--threshold",
            "1",
            "-o",
            whole.to_str().unwrap(),
        ],
    );
    let shards: Vec<PathBuf> = (1..=2).map(|k| w.path(&format!("shard-{k}"))).collect();
    for (k, d) in shards.iter().enumerate() {
        let shard = format!("{}/2", k + 1);
        profile(
            &w,
            &[
                "profile",
                "--project",
                "--threshold",
                "1",
                "--shard",
                &shard,
                "-o",
                d.to_str().unwrap(),
            ],
        );
    }
    let merged = w.path("merged");
    profile(
        &w,
        &[
            "session",
            "merge",
            shards[0].to_str().unwrap(),
            shards[1].to_str().unwrap(),
            "-o",
            merged.to_str().unwrap(),
        ],
    );
    let index = std::fs::read_to_string(merged.join("index.jsonl")).unwrap();
    assert!(index.contains(r#""kind":"hotspot""#));
    let (m, _) = top(&w, &["--limit", "100000", merged.to_str().unwrap()]);
    let (u, _) = top(&w, &["--limit", "100000", whole.to_str().unwrap()]);
    assert_eq!(m["fromRecordings"], 0);
    assert_eq!(by_label(&m), by_label(&u));
}

#[test]
fn a_repeated_heartbeat_capture_takes_each_keys_median_over_its_runs() {
    let w = World::new();
    std::fs::create_dir_all(w.project.join("Rep")).unwrap();
    let log = w.path("runs.log");
    for name in ["A", "B"] {
        // The command's heartbeats per run (the first is the warm-up), and its step's; the
        // fake counts a file's runs in the log.
        std::fs::write(
            w.project.join(format!("Rep/{name}.lean")),
            format!(
                "-- leanscope-fake: run-log {}\ntheorem t{name} : True := by -- leanscope-fake: heartbeats-runs 100,300,200,250\n  trivial -- leanscope-fake: heartbeats-runs 50,150,100,120\n",
                log.display()
            ),
        )
        .unwrap();
    }
    let dir = w.path("rep");
    profile(
        &w,
        &[
            "profile",
            "Rep",
            "--measure",
            "heartbeats",
            "--threshold",
            "10",
            "--repeat",
            "3",
            "-o",
            dir.to_str().unwrap(),
        ],
    );
    let (doc, _) = top(&w, &[dir.to_str().unwrap()]);
    assert_eq!(doc["unit"], "heartbeats");
    let rows = by_label(&doc);
    // Kept runs: command 300, 200, 250 (median 250), step 150, 100, 120 (median 120); the
    // command's self 150, 100, 130 (median 130). Two files.
    assert_eq!(rows["Elab.command theorem"], (500, 260, 2, 2), "{rows:?}");
    assert_eq!(rows["Elab.step trivial"], (240, 240, 2, 2), "{rows:?}");
    let out = w.run(&["top", dir.to_str().unwrap()]);
    assert!(text(&out.stdout).contains(" hb"), "{}", text(&out.stdout));
}

#[test]
fn imported_profiles_aggregate_by_frame_name() {
    let w = World::new();
    let folded = w.path("stacks.folded");
    std::fs::write(
        &folded,
        "main;elab;simp 30\nmain;elab;omega 20\nmain;kernel 10\nmain;elab 5\nmain;elab;simp 4\n",
    )
    .unwrap();
    let (doc, _) = top(&w, &["--unit-ns", "1000", folded.to_str().unwrap()]);
    assert_eq!(doc["sourceKind"], "imported");
    let rows = by_label(&doc);
    // simp: 30 + 4 samples of 1 µs (one stack, so one event); elab: 5 of its own,
    // 30 + 20 + 4 + 5 in all.
    assert_eq!(rows["frame simp"], (34_000, 34_000, 1, 1), "{rows:?}");
    assert_eq!(rows["frame elab"].0, 59_000, "{rows:?}");
    assert_eq!(rows["frame elab"].1, 5_000, "{rows:?}");
    let chrome = w.path("trace.json");
    std::fs::write(
        &chrome,
        r#"{"traceEvents":[{"name":"A","ph":"X","ts":0,"dur":100,"pid":1,"tid":1},{"name":"B","ph":"X","ts":10,"dur":50,"pid":1,"tid":1},{"name":"B","ph":"X","ts":70,"dur":20,"pid":1,"tid":1}]}"#,
    )
    .unwrap();
    let (doc, _) = top(&w, &[chrome.to_str().unwrap()]);
    let rows = by_label(&doc);
    assert_eq!(rows["B"], (70_000, 70_000, 2, 1), "{rows:?}");
    assert_eq!(rows["A"], (100_000, 30_000, 1, 1), "{rows:?}");
    // A missing source is a usage error naming it.
    let out = w.run(&["top", "/nonexistent/x.lsrec"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("/nonexistent/x.lsrec"));
}
