//! `leanscope revisions run` end to end: a real Git repository the test
//! builds, the real binary, the fake toolchain elaborating sources at the
//! CPU costs their `-- leanscope-fake:` comments ask for, GNU time's
//! counters, the report and its exit codes.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::git_repo::Repo;
use common::revisions::{decls, report, FLAGS, LAKEFILE};
use common::toolchain_dir::{toolchain_dir, Toolchain};
use serde_json::Value;

fn cost(ms: u64) -> String {
    format!("theorem t : True := by\n  trivial -- leanscope-fake: cost {ms}ms\n")
}

/// `main` with three files, `feature` making A costlier, adding N and
/// removing R.
fn project() -> Repo {
    let r = Repo::new();
    r.write("lakefile.toml", LAKEFILE);
    r.write("lean-toolchain", "leanprover/lean4:v4.18.0\n");
    r.write("Demo/A.lean", &cost(50));
    r.write("Demo/R.lean", &cost(20));
    r.write("Demo/Same.lean", &cost(20));
    r.commit("base");
    r.git(&["checkout", "-q", "-b", "feature"]);
    r.write("Demo/A.lean", &cost(450));
    r.write("Demo/N.lean", &cost(300));
    std::fs::remove_file(r.path.join("Demo/R.lean")).unwrap();
    r.commit("feature");
    r
}

fn run(r: &Repo, t: &Toolchain, ws: &Path, extra: &[&str]) -> Output {
    run_at(r, &r.path, t, ws, extra)
}

/// [`run`], which must exit 0; its report, checked against the schema.
fn run_ok(r: &Repo, t: &Toolchain, ws: &Path, extra: &[&str]) -> Value {
    let out = run(r, t, ws, extra);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    report(ws)
}

/// `--repo` may be any folder inside the repository.
fn run_at(r: &Repo, repo: &Path, t: &Toolchain, ws: &Path, extra: &[&str]) -> Output {
    let mut c = Command::new(common::leanscope_bin());
    c.args(["revisions", "run", "--repo"])
        .arg(repo)
        .args(["--base", "main", "--head", "feature", "--workspace"])
        .arg(ws)
        .args(extra)
        .env("PATH", format!("{}:/usr/bin:/bin", t.bin.display()))
        .env("HOME", r.dir.path())
        .env(
            "LEANSCOPE_FAKE_FIXTURES",
            common::repo().join("fixtures/lean-output"),
        );
    c.output().unwrap()
}

fn file<'a>(rep: &'a Value, path: &str) -> &'a Value {
    rep["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == path)
        .unwrap()
}

#[test]
fn both_sides_measured_alternating_and_flagged() {
    let r = project();
    let t = toolchain_dir();
    // An uncommitted edit never reaches the measured trees.
    r.write("Demo/A.lean", &cost(3000));
    let ws = r.dir.path().join("ws");
    let mut args = FLAGS.to_vec();
    args.extend(["--repeat", "2"]);
    let out = run(&r, &t, &ws, &args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let rep = report(&ws);
    assert_eq!(rep["state"], "complete");
    assert_eq!(rep["advisory"], true);
    assert_eq!(rep["measure"], "cpu_time");
    let plan: Value =
        serde_json::from_slice(&std::fs::read(ws.join("plan.json")).unwrap()).unwrap();
    assert_eq!(rep["plan_digest"], plan["plan_digest"]);
    let merge_base = r.git(&["rev-parse", "main"]);
    let head = r.git(&["rev-parse", "feature"]);
    assert_eq!(rep["revisions"]["merge_base"], merge_base.as_str());

    // Both trees come from the blobs.
    assert_eq!(
        std::fs::read_to_string(ws.join("base/Demo/A.lean")).unwrap(),
        cost(50)
    );
    assert_eq!(
        std::fs::read_to_string(ws.join("head/Demo/A.lean")).unwrap(),
        cost(450)
    );
    assert!(!ws.join("head/Demo/R.lean").exists());
    assert!(!ws.join("base/Demo/N.lean").exists());

    // Alternation, rotating with the repeat and the file.
    let samples = rep["samples"].as_array().unwrap();
    let order: Vec<(String, String, u64)> = samples
        .iter()
        .map(|s| {
            (
                s["path"].as_str().unwrap().to_owned(),
                s["side"].as_str().unwrap().to_owned(),
                s["repeat"].as_u64().unwrap(),
            )
        })
        .collect();
    let o = |p: &str, s: &str, r: u64| (p.to_owned(), s.to_owned(), r);
    assert_eq!(
        order,
        vec![
            o("Demo/A.lean", "base", 0),
            o("Demo/A.lean", "head", 0),
            o("Demo/N.lean", "head", 0),
            o("Demo/R.lean", "base", 0),
            o("Demo/A.lean", "head", 1),
            o("Demo/A.lean", "base", 1),
            o("Demo/N.lean", "head", 1),
            o("Demo/R.lean", "base", 1),
        ]
    );
    for (i, s) in samples.iter().enumerate() {
        assert_eq!(s["run_id"], rep["run_id"]);
        assert_eq!(s["index"], i as u64);
        let want = if s["side"] == "base" {
            &merge_base
        } else {
            &head
        };
        assert_eq!(s["commit"], want.as_str());
    }

    let a = file(&rep, "Demo/A.lean");
    let (b, h) = (
        a["base"]["median_cpu_ms"].as_u64().unwrap(),
        a["head"]["median_cpu_ms"].as_u64().unwrap(),
    );
    // GNU time truncates user and system time to 10 ms each.
    assert!(
        (30..400).contains(&b) && h >= 430,
        "base {b} ms, head {h} ms"
    );
    assert_eq!(a["flagged"], true, "{a}");
    assert_eq!(file(&rep, "Demo/N.lean")["flagged"], true);
    assert_eq!(file(&rep, "Demo/R.lean")["flagged"], false);
    assert_eq!(file(&rep, "Demo/R.lean")["head"], Value::Null);
    assert_eq!(rep["flagged"], 2);

    let md = std::fs::read_to_string(ws.join("report.md")).unwrap();
    assert!(
        md.contains(&format!(
            "base {} (merge base of base tip {})",
            &merge_base[..7],
            &merge_base[..7]
        )),
        "{md}"
    );
    assert!(
        md.contains("| `Demo/A.lean` | modified |") && md.contains("**flagged**"),
        "{md}"
    );
    assert!(md.contains("GNU time"), "{md}");
    // Which measure, and why not instructions, on this machine.
    let note = rep["measure_note"].as_str().unwrap();
    assert!(
        note.contains("instruction counts are not used (")
            && note.contains("CPU time is the measure"),
        "{note}"
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), md);
    // GNU time's counters and Lean's output are kept apart in raw/.
    assert!(ws.join("raw/0000-base-Demo.A.time").is_file());
    assert!(ws.join("raw/0000-base-Demo.A.out").is_file());

    // Flags are advisory unless --fail-on-flag; a workspace is never reused.
    let again = run(&r, &t, &ws, &FLAGS);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("already exists"));
    assert_eq!(report(&ws)["run_id"], rep["run_id"], "untouched");
    let ws2 = r.dir.path().join("ws2");
    let mut fail = FLAGS.to_vec();
    fail.push("--fail-on-flag");
    let out = run(&r, &t, &ws2, &fail);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_ne!(report(&ws2)["run_id"], rep["run_id"], "a fresh run id");
    // Default thresholds (1.5× and +30 s): nothing here is flagged.
    let ws3 = r.dir.path().join("ws3");
    let out = run(&r, &t, &ws3, &["--fail-on-flag"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(report(&ws3)["flagged"], 0);
}

#[test]
fn non_lean_changes_only_are_no_changes() {
    let r = Repo::new();
    r.write("lakefile.toml", LAKEFILE);
    r.write("Demo/A.lean", &cost(10));
    r.commit("base");
    r.git(&["checkout", "-q", "-b", "feature"]);
    r.write("README.md", "docs\n");
    r.commit("docs");
    let t = toolchain_dir();
    let ws = r.dir.path().join("ws");
    let rep = run_ok(&r, &t, &ws, &[]);
    assert_eq!(rep["state"], "no_changes");
    assert_eq!(rep["files"], serde_json::json!([]));
    assert_eq!(rep["samples"], serde_json::json!([]));
}

#[test]
fn a_failed_elaboration_or_prebuild_is_an_error_without_a_comparison() {
    for (text, says) in [
        (
            "def x := 1 -- leanscope-fake: error\n",
            "head Demo/A.lean failed",
        ),
        (
            "-- leanscope-fake: build-error\n",
            "prebuild of head (lake build) failed",
        ),
    ] {
        let r = project();
        r.write("Demo/A.lean", text);
        r.commit("broken");
        let t = toolchain_dir();
        let ws = r.dir.path().join("ws");
        let out = run(&r, &t, &ws, &[]);
        assert_eq!(out.status.code(), Some(3));
        let rep = report(&ws);
        assert_eq!(rep["state"], "error");
        assert!(
            rep["error"].as_str().unwrap().contains(says),
            "{}",
            rep["error"]
        );
        assert_eq!(
            rep["files"],
            serde_json::json!([]),
            "partial counts never compared"
        );
        assert!(String::from_utf8_lossy(&out.stderr).contains(says));
    }
}

#[test]
fn a_timeout_stops_every_process_of_the_sample() {
    let r = project();
    r.write("Demo/A.lean", &cost(60_000));
    r.commit("slow");
    let t = toolchain_dir();
    let ws = r.dir.path().join("ws");
    let mut c = Command::new(common::leanscope_bin());
    c.args(["revisions", "run", "--repo"])
        .arg(&r.path)
        .args([
            "--base",
            "main",
            "--head",
            "feature",
            "--timeout-file",
            "1",
            "--workspace",
        ])
        .arg(&ws)
        .env("PATH", format!("{}:/usr/bin:/bin", t.bin.display()))
        .env("HOME", r.dir.path())
        .env(
            "LEANSCOPE_FAKE_FIXTURES",
            common::repo().join("fixtures/lean-output"),
        );
    let started = std::time::Instant::now();
    let out = c.output().unwrap();
    assert!(started.elapsed().as_secs() < 30);
    assert_eq!(out.status.code(), Some(3));
    let rep = report(&ws);
    assert!(
        rep["error"]
            .as_str()
            .unwrap()
            .contains("head Demo/A.lean did not finish within 1 s"),
        "{}",
        rep["error"]
    );
    // No process is left in the workspace (the 60 s fake Lean would be).
    let ws = ws.canonicalize().unwrap();
    let left: Vec<String> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| {
            std::fs::read_link(format!("/proc/{pid}/cwd")).is_ok_and(|c| c.starts_with(&ws))
                && common::is_running(pid)
        })
        .map(|pid| pid.to_string())
        .collect();
    assert!(left.is_empty(), "processes left: {left:?}");
}

#[test]
fn what_lean_prints_never_becomes_a_counter() {
    let r = project();
    r.write(
        "Demo/N.lean",
        &format!(
            "{}-- leanscope-fake: print leanscope-time 999.00 999.00 999.00 1\n",
            cost(300)
        ),
    );
    r.commit("prints");
    let t = toolchain_dir();
    let ws = r.dir.path().join("ws");
    let rep = run_ok(&r, &t, &ws, &[]);
    let n = &file(&rep, "Demo/N.lean")["head"];
    let cpu = n["median_cpu_ms"].as_u64().unwrap();
    // GNU time truncates user and system time to 10 ms each.
    assert!((280..5000).contains(&cpu), "{n}");
    assert!(n["max_rss_kib"].as_u64().unwrap() > 1);
}

/// The sandbox: a sample cannot read a file outside its binds, cannot
/// write outside its own tree (not even into the other side's), and
/// cannot reach the network; each attempt fails the sample, naming it.
#[test]
fn the_sandbox_confines_every_sample() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let r0 = project();
    let secret = r0.dir.path().join("secret.txt");
    std::fs::write(&secret, "secret\n").unwrap();
    // Outside the sandbox each of these works.
    assert!(std::fs::read(&secret).is_ok());
    assert!(std::net::TcpStream::connect(("127.0.0.1", port)).is_ok());
    drop(r0);
    // `Some(message)`: the sample fails saying so; `None`: it may succeed
    // inside (a write into the sandbox's private /tmp) but the host never
    // sees it.
    for (directive, says) in [
        ("read SECRET", Some("cannot read")),
        ("write WS/base/Demo/A.lean", Some("cannot write")),
        (
            &format!("connect 127.0.0.1:{port}") as &str,
            Some("cannot connect"),
        ),
        ("write OUTSIDE", None),
    ] {
        let r = project();
        let secret = r.dir.path().join("secret.txt");
        std::fs::write(&secret, "secret\n").unwrap();
        let outside = r.dir.path().join("outside.txt");
        let ws = r.dir.path().join("ws");
        let d = directive
            .replace("SECRET", &secret.display().to_string())
            .replace("OUTSIDE", &outside.display().to_string())
            .replace("WS", &ws.display().to_string());
        r.write(
            "Demo/A.lean",
            &format!("{}-- leanscope-fake: {d}\n", cost(10)),
        );
        r.commit("escape");
        let t = toolchain_dir();
        let out = run(&r, &t, &ws, &[]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        if let Some(says) = says {
            assert_eq!(out.status.code(), Some(3), "{directive}: {stderr}");
            let rep = report(&ws);
            assert!(
                rep["error"]
                    .as_str()
                    .unwrap()
                    .contains("head Demo/A.lean failed"),
                "{}",
                rep["error"]
            );
            let lean_out = std::fs::read_to_string(ws.join("raw/0001-head-Demo.A.out")).unwrap();
            assert!(lean_out.contains(says), "{directive}: {lean_out}");
        }
        assert!(!outside.exists(), "{directive}: the write reached the host");
        assert_eq!(
            std::fs::read_to_string(ws.join("base/Demo/A.lean")).unwrap(),
            cost(50)
        );
    }
}

/// The user's prepared `.lake/packages` is seen read-only, never copied.
#[test]
fn lake_packages_are_bound_read_only() {
    let r = project();
    r.write(".gitignore", ".lake\n");
    r.commit("ignore .lake");
    std::fs::create_dir_all(r.path.join(".lake/packages/dep")).unwrap();
    std::fs::write(r.path.join(".lake/packages/dep/Dep.lean"), "def dep := 1\n").unwrap();
    r.write(
        "Demo/A.lean",
        &format!(
            "{}-- leanscope-fake: read .lake/packages/dep/Dep.lean\n-- leanscope-fake: write .lake/packages/dep/Dep.lean\n",
            cost(10)
        ),
    );
    r.commit("uses a dependency");
    let t = toolchain_dir();
    let ws = r.dir.path().join("ws");
    // From a subfolder: the packages are found at the repository's top.
    let out = run_at(&r, &r.path.join("Demo"), &t, &ws, &[]);
    assert_eq!(out.status.code(), Some(3));
    let lean_out = std::fs::read_to_string(ws.join("raw/0001-head-Demo.A.out")).unwrap();
    assert!(
        lean_out.contains("read .lake/packages/dep/Dep.lean"),
        "{lean_out}"
    );
    assert!(
        lean_out.contains("cannot write .lake/packages/dep/Dep.lean"),
        "{lean_out}"
    );
    assert_eq!(
        std::fs::read_to_string(r.path.join(".lake/packages/dep/Dep.lean")).unwrap(),
        "def dep := 1\n"
    );
    // Bound, not copied: the workspace's mount point is empty outside the run.
    assert_eq!(
        std::fs::read_dir(ws.join("head/.lake/packages"))
            .unwrap()
            .count(),
        0
    );
}

fn rows<'a>(diff: &'a Value, list: &str) -> Vec<&'a Value> {
    diff[list].as_array().unwrap().iter().collect()
}

fn row<'a>(diff: &'a Value, list: &str, file: &str, name: &str) -> &'a Value {
    rows(diff, list)
        .into_iter()
        .find(|r| r["file"] == file && r["name"] == name)
        .unwrap_or_else(|| panic!("no {list} row {name} in {file}: {diff}"))
}

#[test]
fn profile_diffs_declarations_and_tactics_and_view_opens_the_diff() {
    let r = Repo::new();
    r.write("lakefile.toml", LAKEFILE);
    r.write("lean-toolchain", "leanprover/lean4:v4.18.0\n");
    r.write(
        "Demo/A.lean",
        &decls(&[("slow", 50), ("same", 30)], &[("oldName", 20)]),
    );
    r.write("Demo/R.lean", &decls(&[("gone", 20)], &[]));
    r.commit("base");
    r.git(&["checkout", "-q", "-b", "feature"]);
    r.write(
        "Demo/A.lean",
        &decls(
            &[("slow", 250), ("same", 30), ("added", 40)],
            &[("newName", 20)],
        ),
    );
    r.write("Demo/N.lean", &decls(&[("fresh", 30)], &[]));
    std::fs::remove_file(r.path.join("Demo/R.lean")).unwrap();
    r.commit("feature");
    let t = toolchain_dir();
    let ws = r.dir.path().join("ws");
    let rep = run_ok(&r, &t, &ws, &["--profile", "--repeat", "3"]);
    assert_eq!(rep["state"], "complete", "{rep}");
    assert!(rep["measure_note"]
        .as_str()
        .unwrap()
        .contains("leanscope profile FILE"));
    // Every sample is a capture of its own file, kept in raw/.
    for s in rep["samples"].as_array().unwrap() {
        let name = s["recording"].as_str().unwrap();
        let bytes = std::fs::read(ws.join("raw").join(name)).unwrap();
        assert!(bytes.starts_with(&recording::MAGIC), "{name}");
    }
    let p = &rep["profile"];
    assert_eq!(p["base_session"], "profiles/base");
    assert_eq!(p["metric"], "total_ns");
    let d = &p["declarations"];
    // The fake's trace times are the planned costs, exactly.
    let ms = 1_000_000u64;
    let slow = row(d, "matched", "Demo/A.lean", "slow");
    assert_eq!(slow["base_ns"], 50 * ms);
    assert_eq!(slow["head_ns"], 250 * ms);
    assert_eq!(slow["change_ns"], 200 * ms);
    assert_eq!(
        rows(d, "matched")[0]["name"],
        "slow",
        "largest change first"
    );
    let same = row(d, "matched", "Demo/A.lean", "same");
    assert_eq!(same["change_ns"], 0);
    assert_eq!(row(d, "new", "Demo/A.lean", "added")["ns"], 40 * ms);
    assert_eq!(row(d, "new", "Demo/N.lean", "fresh")["ns"], 30 * ms);
    assert_eq!(row(d, "removed", "Demo/R.lean", "gone")["ns"], 20 * ms);
    let renamed = rows(d, "renamed");
    assert_eq!(renamed.len(), 1, "{d}");
    assert_eq!(renamed[0]["base_name"], "oldName");
    assert_eq!(renamed[0]["head_name"], "newName");
    assert_eq!(renamed[0]["file"], "Demo/A.lean");
    assert_eq!(d["counts"]["new"], 2);
    assert_eq!(d["counts"]["removed"], 1);
    assert!(
        rows(d, "new").iter().all(|r| r["name"] != "newName"),
        "a renamed declaration is not also new"
    );
    // Tactics: matched by declaration and place.
    let tac = &p["tactics"];
    let trivial = rows(tac, "matched")
        .into_iter()
        .find(|r| r["declaration"] == "slow")
        .unwrap_or_else(|| panic!("{tac}"));
    assert_eq!(trivial["name"], "trivial");
    assert_eq!(trivial["line"], 2);
    assert_eq!(trivial["change_ns"], 200 * ms);

    // Each side is an ordinary session of its files.
    for (side, files) in [
        ("base", ["Demo/A.lean", "Demo/R.lean"]),
        ("head", ["Demo/A.lean", "Demo/N.lean"]),
    ] {
        let m: Value = serde_json::from_slice(
            &std::fs::read(ws.join("profiles").join(side).join("session.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(m["status"], "complete", "{side}");
        let paths: Vec<&str> = m["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["path"].as_str().unwrap())
            .collect();
        assert_eq!(paths, files, "{side}");
    }
    let md = std::fs::read_to_string(ws.join("report.md")).unwrap();
    assert!(md.contains("## Declarations (profiled)"), "{md}");
    assert!(
        md.contains("| `Demo/A.lean` | `slow` | 50.0 | 250.0 | +200.0 |"),
        "{md}"
    );
    assert!(
        md.contains("`oldName` → `newName` in `Demo/A.lean`"),
        "{md}"
    );

    // `view WORKSPACE` serves the head with the base as its baseline, on
    // the Diff tab.
    let mut view = Command::new(common::leanscope_bin())
        .args(["view", "--no-open"])
        .arg(&ws)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(view.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    view.kill().unwrap();
    let _ = view.wait();
    assert!(
        line.starts_with("http://127.0.0.1:") && line.trim_end().ends_with("/#tab=diff"),
        "{line:?}"
    );

    // A run without --profile has nothing to view, and says so.
    let plain = r.dir.path().join("plain");
    let rep = run_ok(&r, &t, &plain, &[]);
    assert_eq!(rep["profile"], Value::Null);
    assert_eq!(rep["samples"][0]["recording"], Value::Null);
    let out = Command::new(common::leanscope_bin())
        .args(["view", "--no-open"])
        .arg(&plain)
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("made without --profile"), "{err}");
}

#[test]
fn a_change_that_only_adds_or_only_removes_files_is_profiled() {
    for (what, remove) in [("adds", false), ("removes", true)] {
        let r = Repo::new();
        r.write("lakefile.toml", LAKEFILE);
        r.write("lean-toolchain", "leanprover/lean4:v4.18.0\n");
        r.write("Demo/Keep.lean", &cost(20));
        if remove {
            r.write("Demo/Gone.lean", &decls(&[("gone", 30)], &[]));
        }
        r.commit("base");
        r.git(&["checkout", "-q", "-b", "feature"]);
        if remove {
            std::fs::remove_file(r.path.join("Demo/Gone.lean")).unwrap();
        } else {
            r.write("Demo/N.lean", &decls(&[("fresh", 30)], &[]));
        }
        r.commit("feature");
        let t = toolchain_dir();
        let ws = r.dir.path().join("ws");
        let rep = run_ok(&r, &t, &ws, &["--profile"]);
        assert_eq!(rep["state"], "complete", "{what}: {rep}");
        let d = &rep["profile"]["declarations"];
        if remove {
            assert_eq!(
                row(d, "removed", "Demo/Gone.lean", "gone")["ns"],
                30_000_000
            );
        } else {
            assert_eq!(row(d, "new", "Demo/N.lean", "fresh")["ns"], 30_000_000);
        }
    }
}

/// `--unsandboxed`: the same measurement without bubblewrap and GNU time (how macOS and
/// Windows run it), the counters from leanscope's own accounting, the report saying so; a
/// sample sees the host's files, as the flag's help says.
#[test]
fn unsandboxed_runs_measure_with_leanscopes_own_counters() {
    let r = project();
    let secret = r.dir.path().join("secret.txt");
    std::fs::write(&secret, "secret\n").unwrap();
    // Outside the sandbox this read works (inside, `the_sandbox_confines_every_sample` fails it).
    r.write(
        "Demo/N.lean",
        &format!(
            "{}-- leanscope-fake: read {}\n",
            cost(300),
            secret.display()
        ),
    );
    r.commit("reads");
    let t = toolchain_dir();
    let ws = r.dir.path().join("ws");
    let rep = run_ok(&r, &t, &ws, &["--unsandboxed"]);
    assert_eq!(rep["state"], "complete", "{rep}");
    assert!(
        rep["measure_note"]
            .as_str()
            .unwrap()
            .contains("Unsandboxed (--unsandboxed)"),
        "{}",
        rep["measure_note"]
    );
    let a = file(&rep, "Demo/A.lean");
    let (base, head) = (
        a["base"]["median_cpu_ms"].as_u64().unwrap(),
        a["head"]["median_cpu_ms"].as_u64().unwrap(),
    );
    // The fake spends 50 ms and 450 ms of CPU on A's two sides, and lake and lean some more.
    assert!((45..2000).contains(&base), "{a}");
    assert!((430..5000).contains(&head), "{a}");
    assert!(head > base, "{a}");
    let n = &file(&rep, "Demo/N.lean")["head"];
    assert!(
        (280..5000).contains(&n["median_cpu_ms"].as_u64().unwrap()),
        "{n}"
    );
    // A resident set of at least a MiB (the fake's binary itself).
    assert!(n["max_rss_kib"].as_u64().unwrap() > 1024, "{n}");
    // Lean's output is kept beside the counters, as under GNU time.
    assert!(std::fs::read_dir(ws.join("raw"))
        .unwrap()
        .flatten()
        .any(|e| e
            .file_name()
            .to_string_lossy()
            .ends_with("-head-Demo.N.err")));
}
