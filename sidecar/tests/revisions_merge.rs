//! `revisions run --shard K/N` and `revisions merge`: a change measured in
//! shards and merged is the run an unsharded one makes (files, flags,
//! declaration diff, both sessions); a shard missing or given twice, a
//! workspace of another run and a run without --shard are refused, naming
//! the problem; a failed shard makes the merged run fail, saying which.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::git_repo::Repo;
use common::revisions::{decls, report, FLAGS, LAKEFILE};
use common::toolchain_dir::{toolchain_dir, Toolchain};
use serde_json::Value;

/// Five changed files: A slower (flagged), B, C, D the same, N new.
fn project() -> Repo {
    let r = Repo::new();
    r.write("lakefile.toml", LAKEFILE);
    r.write("lean-toolchain", "leanprover/lean4:v4.18.0\n");
    for (f, ms) in [("A", 30), ("B", 20), ("C", 20), ("D", 20)] {
        r.write(
            &format!("Demo/{f}.lean"),
            &decls(&[(&format!("t{f}"), ms)], &[]),
        );
    }
    r.commit("base");
    r.git(&["checkout", "-q", "-b", "feature"]);
    r.write("Demo/A.lean", &decls(&[("tA", 500)], &[]));
    for f in ["B", "C", "D"] {
        r.write(
            &format!("Demo/{f}.lean"),
            &decls(&[(&format!("t{f}"), 20), (&format!("u{f}"), 10)], &[]),
        );
    }
    r.write("Demo/N.lean", &decls(&[("tN", 20)], &[]));
    r.commit("feature");
    r
}

fn leanscope(r: &Repo, t: &Toolchain, args: &[&str]) -> Output {
    Command::new(common::leanscope_bin())
        .args(args)
        .env("PATH", format!("{}:/usr/bin:/bin", t.bin.display()))
        .env("HOME", r.dir.path())
        .env(
            "LEANSCOPE_FAKE_FIXTURES",
            common::repo().join("fixtures/lean-output"),
        )
        .output()
        .unwrap()
}

fn run(r: &Repo, t: &Toolchain, ws: &Path, extra: &[&str]) -> Output {
    let repo = r.path.to_str().unwrap();
    let ws = ws.to_str().unwrap();
    let mut args = vec![
        "revisions",
        "run",
        "--repo",
        repo,
        "--base",
        "main",
        "--head",
        "feature",
        "--workspace",
        ws,
        "--profile",
    ];
    args.extend(FLAGS);
    args.extend(extra);
    leanscope(r, t, &args)
}

fn merge(r: &Repo, t: &Toolchain, shards: &[&PathBuf], ws: &Path, extra: &[&str]) -> Output {
    let mut args: Vec<String> = vec!["revisions".into(), "merge".into()];
    args.extend(shards.iter().map(|p| p.display().to_string()));
    args.extend(["--workspace".into(), ws.display().to_string()]);
    args.extend(extra.iter().map(|s| s.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    leanscope(r, t, &args)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The parts of a run that must not depend on sharding: per file its
/// status, flag and sample count; the declaration rows (names, files, the
/// fake's exact times) and counts.
fn essence(rep: &Value) -> Value {
    let files: Vec<Value> = rep["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            serde_json::json!([
                f["path"],
                f["status"],
                f["flagged"],
                f["base"]["samples"],
                f["head"]["samples"]
            ])
        })
        .collect();
    let d = &rep["profile"]["declarations"];
    let mut matched: Vec<Value> = d["matched"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| serde_json::json!([m["file"], m["name"], m["base_ns"], m["head_ns"]]))
        .collect();
    matched.sort_by_key(|v| v.to_string());
    let mut new: Vec<Value> = d["new"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| serde_json::json!([m["file"], m["name"], m["ns"]]))
        .collect();
    new.sort_by_key(|v| v.to_string());
    serde_json::json!({
        "state": rep["state"], "flagged": rep["flagged"], "files": files,
        "counts": d["counts"], "matched": matched, "new": new,
        "plan_digest": rep["plan_digest"], "revisions": rep["revisions"],
    })
}

#[test]
fn shards_merged_are_the_unsharded_run() {
    let r = project();
    let t = toolchain_dir();
    let dir = r.dir.path();
    let whole = dir.join("whole");
    let out = run(&r, &t, &whole, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let whole_rep = report(&whole);
    assert_eq!(whole_rep["flagged"], 1);

    let shards: Vec<PathBuf> = (1..=3).map(|k| dir.join(format!("shard-{k}"))).collect();
    let mut measured = 0;
    for (k, ws) in shards.iter().enumerate() {
        let spec = format!("{}/3", k + 1);
        let out = run(&r, &t, ws, &["--shard", &spec]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let rep = report(ws);
        assert_eq!(
            rep["shard"],
            serde_json::json!({"index": k + 1, "count": 3})
        );
        assert_eq!(rep["plan_digest"], whole_rep["plan_digest"]);
        measured += rep["files"].as_array().unwrap().len();
    }
    assert_eq!(measured, 5, "every file in exactly one shard");

    // Given in any order.
    let merged = dir.join("merged");
    let summary = dir.join("summary.md");
    let out = merge(
        &r,
        &t,
        &[&shards[2], &shards[0], &shards[1]],
        &merged,
        &["--summary", summary.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let rep = report(&merged);
    assert_eq!(essence(&rep), essence(&whole_rep));
    assert_eq!(rep["merged_runs"].as_array().unwrap().len(), 3);
    assert_eq!(rep["shard"], Value::Null);
    for side in ["base", "head"] {
        let m: Value = serde_json::from_slice(
            &std::fs::read(merged.join("profiles").join(side).join("session.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(m["status"], "complete");
    }
    let md = std::fs::read_to_string(&summary).unwrap();
    assert!(md.contains("(3 shards merged)"), "{md}");
    let report_md = std::fs::read_to_string(merged.join("report.md")).unwrap();
    assert!(report_md.contains("Merged from 3 shards"), "{report_md}");
    let shard_md = std::fs::read_to_string(shards[0].join("report.md")).unwrap();
    assert!(shard_md.contains("Shard 1 of 3"), "{shard_md}");
    assert!(md.contains("### Regressions: 1"), "{md}");
    // --fail-on-flag applies to the merged run.
    let again = dir.join("merged-2");
    let out = merge(
        &r,
        &t,
        &[&shards[0], &shards[1], &shards[2]],
        &again,
        &["--fail-on-flag"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));

    // Refused, exit 2, nothing written, the summary saying why.
    let cases: Vec<(Vec<&PathBuf>, &str)> = vec![
        (vec![&shards[0], &shards[1]], "shards missing: 3 of 3"),
        (
            vec![&shards[0], &shards[1], &shards[1]],
            "shard 2 of 3 is given twice",
        ),
        (vec![&shards[0], &whole], "its run was made without --shard"),
    ];
    for (i, (given, says)) in cases.into_iter().enumerate() {
        let ws = dir.join(format!("refused-{i}"));
        let summary = dir.join(format!("refused-{i}.md"));
        let out = merge(
            &r,
            &t,
            &given,
            &ws,
            &["--summary", summary.to_str().unwrap()],
        );
        assert_eq!(out.status.code(), Some(2), "{says}");
        assert!(stderr(&out).contains(says), "{}", stderr(&out));
        assert!(!ws.exists(), "{says}: nothing written");
        let md = std::fs::read_to_string(&summary).unwrap();
        assert!(md.contains("not measured") && md.contains(says), "{md}");
    }
    // A shard of another plan (other thresholds).
    let other = dir.join("other-3");
    let out = run(&r, &t, &other, &["--shard", "3/3", "--repeat", "2"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = merge(
        &r,
        &t,
        &[&shards[0], &shards[1], &other],
        &dir.join("m3"),
        &[],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("its repeat differs"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_failed_shard_fails_the_merged_run_saying_which() {
    let r = project();
    r.write("Demo/B.lean", "def x := 1 -- leanscope-fake: error\n");
    r.commit("broken");
    let t = toolchain_dir();
    let dir = r.dir.path();
    let shards: Vec<PathBuf> = (1..=2).map(|k| dir.join(format!("shard-{k}"))).collect();
    let mut codes = Vec::new();
    for (k, ws) in shards.iter().enumerate() {
        let spec = format!("{}/2", k + 1);
        codes.push(run(&r, &t, ws, &["--shard", &spec]).status.code());
    }
    codes.sort();
    assert_eq!(codes, [Some(0), Some(3)], "one shard holds B");
    let merged = dir.join("merged");
    let out = merge(&r, &t, &[&shards[0], &shards[1]], &merged, &[]);
    assert_eq!(out.status.code(), Some(3));
    let rep = report(&merged);
    assert_eq!(rep["state"], "error");
    let err = rep["error"].as_str().unwrap();
    assert!(
        err.contains("shard ") && err.contains("Demo/B.lean"),
        "{err}"
    );
    assert_eq!(rep["files"], serde_json::json!([]));
}
