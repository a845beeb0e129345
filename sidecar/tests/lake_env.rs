//! One Lake environment per session: `lake env` runs once per capture
//! session (again only when a lakefile or `lake-manifest.json` changes) and
//! `lean` starts directly in that environment; the manifest names it.
//! The fake toolchain logs every `lake`/`lean` run (`LEANSCOPE_FAKE_CALLS`),
//! so the tests count them. An ignored test measures the wall time saved per
//! file.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{text, World};
use recording::session::{Manifest, SessionStatus};

/// The calls the fake logged: (mode and arguments, the LEAN_PATH it had).
fn calls(log: &Path) -> Vec<(String, String)> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(|l| {
            let (call, lean_path) = l.split_once('\t').unwrap();
            (call.to_string(), lean_path.to_string())
        })
        .collect()
}

fn count(calls: &[(String, String)], pred: impl Fn(&str) -> bool) -> usize {
    calls.iter().filter(|(c, _)| pred(c)).count()
}

/// `leanscope ARGS` in `cwd` with the fake first on PATH, logging its calls to `log`.
fn leanscope(w: &World, cwd: &Path, log: &Path, args: &[&str]) -> Command {
    let mut c = w.command(args);
    c.current_dir(cwd).env("LEANSCOPE_FAKE_CALLS", log);
    c
}

fn manifest(dir: &Path) -> Manifest {
    common::read_session(dir).unwrap()
}

#[test]
fn a_session_runs_lake_env_once_and_lean_directly_in_it() {
    let w = World::new();
    let files = 6;
    let root = w.many_files(files);
    let log = w.path("calls");
    let dir = w.path("session");
    let out = leanscope(
        &w,
        &root,
        &log,
        &["profile", ".", "-o", dir.to_str().unwrap(), "--jobs", "2"],
    )
    .output()
    .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let calls = calls(&log);
    // Exactly one `lake` run, `lake env` with no command; no `lake env lean` per file.
    assert_eq!(count(&calls, |c| c.starts_with("lake")), 1, "{calls:?}");
    assert_eq!(count(&calls, |c| c == "lake env"), 1, "{calls:?}");
    assert_eq!(count(&calls, |c| c == "lean --version"), 1, "{calls:?}");
    let json_runs: Vec<_> = calls
        .iter()
        .filter(|(c, _)| c.starts_with("lean --json"))
        .collect();
    assert_eq!(json_runs.len(), files, "{calls:?}");

    // What the fake `lake env` prints in that project, as the manifest names it.
    let printed = Command::new(w.bin.join("lake"))
        .arg("env")
        .current_dir(root.canonicalize().unwrap())
        .env("PATH", format!("{}:/usr/bin:/bin", w.bin.display()))
        .output()
        .unwrap();
    assert!(printed.status.success());
    let m = manifest(&dir);
    assert_eq!(m.status, SessionStatus::Complete);
    let env = m
        .lake_env
        .as_ref()
        .expect("the manifest names no Lake environment");
    assert_eq!(env.taken, 1);
    assert_eq!(env.sha256, recording::sha256_hex(&printed.stdout));
    assert_eq!(env.lean, w.bin.join("lean").display().to_string());
    for line in text(&printed.stdout).lines() {
        let (k, v) = line.split_once('=').unwrap();
        assert_eq!(env.variables.get(k).map(String::as_str), Some(v), "{k}");
    }
    // Every `lean` ran with Lake's LEAN_PATH.
    let lean_path = &env.variables["LEAN_PATH"];
    assert!(lean_path.contains(".lake/build/lib/lean"), "{lean_path}");
    for (call, p) in &json_runs {
        assert_eq!(p, lean_path, "{call}");
    }
    // The finished session.json (no journal) holds it, valid by the schema.
    assert!(!dir.join("session.journal").exists());
    let on_disk: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("session.json")).unwrap()).unwrap();
    assert_eq!(on_disk["lakeEnv"]["taken"], 1);
    let schema: serde_json::Value = serde_json::from_slice(
        &std::fs::read(common::repo().join("schemas/session.schema.json")).unwrap(),
    )
    .unwrap();
    let validator = jsonschema::draft202012::new(&schema).unwrap();
    assert!(validator.is_valid(&on_disk));

    // A resume with files to capture takes it once more, and counts it.
    let first = root.join("F0/Demo/Clean.lean");
    let mut src = std::fs::read_to_string(&first).unwrap();
    src.push_str("\n-- edited\n");
    std::fs::write(&first, src).unwrap();
    std::fs::remove_file(&log).unwrap();
    let out = leanscope(
        &w,
        &root,
        &log,
        &["profile", "--resume", dir.to_str().unwrap()],
    )
    .output()
    .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let calls = self::calls(&log);
    assert_eq!(count(&calls, |c| c == "lake env"), 1, "{calls:?}");
    assert_eq!(count(&calls, |c| c.starts_with("lean --json")), 1);
    assert_eq!(manifest(&dir).lake_env.unwrap().taken, 2);
}

#[test]
fn changing_the_lakefile_mid_session_takes_the_environment_again() {
    let w = World::new();
    let root = w.path("slow");
    std::fs::create_dir_all(&root).unwrap();
    for f in ["lean-toolchain", "lakefile.toml"] {
        std::fs::copy(w.project.join(f), root.join(f)).unwrap();
    }
    for i in 0..4 {
        std::fs::write(
            root.join(format!("S{i}.lean")),
            "def x := 1\n-- leanscope-fake: cost 600ms\n",
        )
        .unwrap();
    }
    let log = w.path("calls");
    let dir = w.path("session");
    let child = leanscope(
        &w,
        &root,
        &log,
        &["profile", ".", "-o", dir.to_str().unwrap(), "--jobs", "1"],
    )
    .stdout(Stdio::null())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    // While the first file's Lean runs, the lakefile changes.
    let started = Instant::now();
    while count(&calls(&log), |c| c.starts_with("lean --json")) < 1 {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "lean never ran"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let lakefile = root.join("lakefile.toml");
    let mut config = std::fs::read_to_string(&lakefile).unwrap();
    config.push_str("\n# changed mid-session\n");
    std::fs::write(&lakefile, config).unwrap();
    // The second file, the first in the new environment, commits it in its
    // journal line: a reader sees it while the session is still running.
    let seen = loop {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "never saw a running session with two files committed"
        );
        if let Ok(m) = common::read_session(&dir) {
            if m.status == SessionStatus::Running && m.counts.completed >= 2 {
                break m;
            }
            assert_eq!(m.status, SessionStatus::Running, "ended before it was seen");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    assert!(dir.join("session.journal").is_file());
    assert_eq!(seen.lake_env.as_ref().map(|e| e.taken), Some(2));
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let calls = calls(&log);
    // Lean was still on its first file when the lakefile changed.
    let order: Vec<&str> = calls.iter().map(|(c, _)| c.as_str()).collect();
    assert_eq!(count(&calls, |c| c == "lake env"), 2, "{order:?}");
    assert_eq!(count(&calls, |c| c == "lean --version"), 2, "{order:?}");
    assert_eq!(count(&calls, |c| c.starts_with("lean --json")), 4);
    assert!(
        order[0] == "lake env" && order[1] == "lean --version" && order[3] == "lake env",
        "{order:?}"
    );
    let m = manifest(&dir);
    assert_eq!(m.counts.completed, 4);
    assert_eq!(m.lake_env.unwrap().taken, 2);
}

#[test]
fn a_manifest_without_the_lake_environment_still_loads() {
    let w = World::new();
    let root = w.many_files(2);
    let log = w.path("calls");
    let dir = w.path("session");
    let out = leanscope(
        &w,
        &root,
        &log,
        &["profile", ".", "-o", dir.to_str().unwrap()],
    )
    .output()
    .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    // session.json as a leanscope before this field wrote it.
    let path = dir.join("session.json");
    let mut json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert!(json.as_object_mut().unwrap().remove("lakeEnv").is_some());
    std::fs::write(&path, serde_json::to_vec(&json).unwrap()).unwrap();
    let m = manifest(&dir);
    assert!(m.lake_env.is_none());
    assert_eq!(m.counts.completed, 2);
    let out = w
        .command(&["query", dir.to_str().unwrap(), "--kind", "file", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let q: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(q["rows"].as_array().unwrap().len(), 2);
}

/// A `lake` printing `body` for `lake env` (a shell script in its own bin
/// directory, beside the fake `lean`).
fn scripted_lake(w: &World, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let bin = w.path("scripted-bin");
    std::fs::create_dir_all(&bin).unwrap();
    let lake = bin.join("lake");
    std::fs::write(&lake, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&lake, std::fs::Permissions::from_mode(0o755)).unwrap();
    lake
}

#[test]
fn a_lake_env_that_prints_garbage_stops_the_session_with_the_line_named() {
    let w = World::new();
    let dir = w.path("session");
    // A session with `lake` printing `body`: it must stop before it starts;
    // its stderr.
    let refused = |body: &str| {
        let lake = scripted_lake(&w, body);
        let out = w
            .command(&[
                "profile",
                "Demo",
                "-o",
                dir.to_str().unwrap(),
                "--lake",
                lake.to_str().unwrap(),
            ])
            .output()
            .unwrap();
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{stderr}");
        assert!(!dir.exists(), "a session was started");
        stderr
    };
    let stderr = refused("echo 'PATH=/usr/bin'; echo 'warning: manifest out of date'");
    assert!(
        stderr.contains(
            "cannot take the Lake environment: cannot understand `lake env` line 2 is not NAME=VALUE: \"warning: manifest out of date\""
        ),
        "{stderr}"
    );
    // An environment whose PATH leads to no lean.
    let stderr = refused("echo 'PATH=/nonexistent'");
    assert!(
        stderr.contains("no executable lean on its PATH (/nonexistent) nor at its LEAN (not set)"),
        "{stderr}"
    );
}

#[test]
fn a_single_file_capture_takes_the_environment_once() {
    let w = World::new();
    let log = w.path("calls");
    let out_path = w.path("one.lsrec");
    let out = w
        .profile_command("Demo/Clean.lean", &out_path)
        .env("LEANSCOPE_FAKE_CALLS", &log)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let calls: Vec<String> = calls(&log).into_iter().map(|(c, _)| c).collect();
    assert_eq!(calls.len(), 3, "{calls:?}");
    assert_eq!(calls[0], "lake env");
    assert_eq!(calls[1], "lean --version");
    assert!(calls[2].starts_with("lean --json "), "{calls:?}");
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// The wall time a file costs through the fake toolchain, both ways side by
/// side (alternating, same machine state): before, the two `lake env lean`
/// runs a capture made per file (`--version`, then `--json FILE`); now, one
/// `lean --json FILE` started in the environment `lake env` printed once.
///
/// `cargo test -p leanscope --test lake_env wall -- --ignored --nocapture`
/// (`LEANSCOPE_BENCH_ROUNDS`, default 200).
#[test]
#[ignore = "a benchmark: prints figures; run by hand"]
fn wall_time_saved_per_file() {
    let rounds: usize = std::env::var("LEANSCOPE_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let w = World::new();
    let root = w.project.canonicalize().unwrap();
    let path = format!("{}:/usr/bin:/bin", w.bin.display());
    let base = |program: &Path| {
        let mut c = Command::new(program);
        c.current_dir(&root)
            .env("PATH", &path)
            .env("LEANSCOPE_FAKE_FIXTURES", &w.fixtures)
            .env("LEANSCOPE_FAKE_DELAY_SCALE", "0")
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        c
    };
    let printed = base(&w.bin.join("lake"))
        .arg("env")
        .stdout(Stdio::piped())
        .output()
        .unwrap();
    let vars: Vec<(String, String)> = text(&printed.stdout)
        .lines()
        .map(|l| {
            let (k, v) = l.split_once('=').unwrap();
            (k.to_string(), v.to_string())
        })
        .collect();
    let args = [
        "--json",
        "-Dtrace.profiler=true",
        "-Dtrace.profiler.threshold=10",
        "-Dprofiler=true",
        "-Dprofiler.threshold=10",
        "Demo/Clean.lean",
    ];
    let (mut before, mut now) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let t = Instant::now();
        assert!(base(&w.bin.join("lake"))
            .args(["env", "lean", "--version"])
            .status()
            .unwrap()
            .success());
        assert!(base(&w.bin.join("lake"))
            .args(["env", "lean"])
            .args(args)
            .status()
            .unwrap()
            .success());
        before.push(t.elapsed());
        let t = Instant::now();
        let mut lean = base(&w.bin.join("lean"));
        for (k, v) in &vars {
            lean.env(k, v);
        }
        assert!(lean.args(args).status().unwrap().success());
        now.push(t.elapsed());
    }
    let (b, n) = (median(before), median(now));
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "wall per file through the fake toolchain, median of {rounds} alternating rounds: before (lake env lean --version + lake env lean --json) {:.2} ms, now (lean --json in the taken environment) {:.2} ms, saved {:.2} ms per file; load average {}",
        b.as_secs_f64() * 1e3,
        n.as_secs_f64() * 1e3,
        (b.as_secs_f64() - n.as_secs_f64()) * 1e3,
        load.split_whitespace().take(3).collect::<Vec<_>>().join(" ")
    );
}
