//! Folder and project captures end to end: the real binary, the fake Lean
//! replaying fixtures/lean-output, sessions checked on disk and through
//! `leanscope query`, row by row.
//!
//! The session project is laid out at test time from the demo sources (so
//! positions stay those of the recorded cases; the fake picks a case by the
//! path's suffix):
//!
//! ```text
//! shelf/Shelf/Demo/Async.lean            case async
//! shelf/Shelf/Demo/Clean.lean            case clean
//! shelf/Shelf/Tools/Demo/Broken.lean     case broken (Lean error: status error)
//! shelf/Shelf/Tools/Demo/Imports.lean    case imports
//! shelf/Shelf/Tools/Latin1.lean          not UTF-8: the capture fails
//! shelf/Shelf/𝔽ancy/Demo/Unicode.lean    case unicode, non-BMP folder name
//! ```
//! plus entries discovery must skip.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{text, World};
use recording::session::{index_rows, FileStatus, Manifest, SessionStatus};
use recording::Recording;
use serde_json::Value;

const FILES: [(&str, &str); 6] = [
    ("Shelf/Demo/Async.lean", "Async.lean"),
    ("Shelf/Demo/Clean.lean", "Clean.lean"),
    ("Shelf/Tools/Demo/Broken.lean", "Broken.lean"),
    ("Shelf/Tools/Demo/Imports.lean", "Imports.lean"),
    ("Shelf/Tools/Latin1.lean", ""),
    ("Shelf/𝔽ancy/Demo/Unicode.lean", "Unicode.lean"),
];

struct Shelf {
    w: World,
    root: PathBuf,
}

impl Shelf {
    fn new(with_bad_file: bool) -> Shelf {
        let w = World::new();
        let root = w.path("shelf");
        let demo = w.project.clone();
        for f in ["lean-toolchain", "lakefile.toml"] {
            std::fs::create_dir_all(&root).unwrap();
            std::fs::copy(demo.join(f), root.join(f)).unwrap();
        }
        for (path, from) in FILES {
            let target = root.join(path);
            std::fs::create_dir_all(target.parent().unwrap()).unwrap();
            if from.is_empty() {
                if with_bad_file {
                    std::fs::write(&target, b"theorem caf\xe9 : True := trivial\n").unwrap();
                }
            } else {
                std::fs::copy(demo.join("Demo").join(from), &target).unwrap();
            }
        }
        // What discovery skips.
        for d in [".lake/packages/x", "build/ir", "node_modules/m", ".hidden"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
            std::fs::copy(demo.join("Demo/Clean.lean"), root.join(d).join("Skip.lean")).unwrap();
        }
        std::fs::write(root.join("lakefile.lean"), "import Lake\n").unwrap();
        std::os::unix::fs::symlink(
            root.join("Shelf/Demo/Clean.lean"),
            root.join("Shelf/Link.lean"),
        )
        .unwrap();
        Shelf { w, root }
    }

    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = self.w.command(args);
        c.current_dir(&self.root);
        c
    }

    fn run(&self, args: &[&str]) -> std::process::Output {
        self.cmd(args).output().unwrap()
    }

    fn session(&self) -> PathBuf {
        self.w.path("session")
    }
}

/// The manifest as readers see it: `session.json` with its journal (if
/// any: an unfinished session's) replayed.
fn manifest(dir: &Path) -> Manifest {
    common::read_session(dir).unwrap()
}

fn query(s: &Shelf, args: &[&str]) -> (Value, String) {
    let dir = s.session();
    let out = s.run(&[&["query", dir.to_str().unwrap()], args, &["--json"]].concat());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    (
        serde_json::from_slice(&out.stdout).unwrap(),
        text(&out.stderr),
    )
}

fn status_of(m: &Manifest, path: &str) -> FileStatus {
    m.files.iter().find(|f| f.path == path).unwrap().status
}

/// Lean's elapsed time for a case, from its profile: the main thread's
/// `runFrontend` node ends at its last sample; `meta.startTime` is its start.
fn elapsed_from_profile(case: &str) -> f64 {
    let p: Value = serde_json::from_slice(
        &std::fs::read(
            common::repo()
                .join("fixtures/lean-output")
                .join(case)
                .join("profile.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let start = p["meta"]["startTime"].as_f64().unwrap();
    let end = p["threads"][0]["samples"]["time"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_f64().unwrap())
        .fold(f64::MIN, f64::max);
    end - start
}

fn ms(v: &Value) -> f64 {
    v.as_f64().unwrap()
}

#[test]
fn project_capture_records_every_file_and_answers_queries_row_by_row() {
    let s = Shelf::new(true);
    let dir = s.session();
    let out = s.run(&["profile", "--project", "-o", dir.to_str().unwrap()]);
    // One file failed to capture: exit 3; the session goes on past it.
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).trim(), dir.to_str().unwrap());
    let m = manifest(&dir);
    assert_eq!(m.status, SessionStatus::Partial);
    assert_eq!(
        (m.counts.planned, m.counts.completed, m.counts.failed),
        (6, 5, 1)
    );
    assert_eq!(m.target.path, "");
    assert_eq!(m.toolchains, ["leanprover/lean4:v4.31.0"]);
    assert_eq!(m.lean_versions, ["4.31.0"]);
    assert!(m.completed_unix_ms.is_some());
    let paths: Vec<_> = m.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, FILES.map(|f| f.0));
    assert_eq!(
        status_of(&m, "Shelf/Tools/Demo/Broken.lean"),
        FileStatus::Error
    );
    assert_eq!(status_of(&m, "Shelf/Demo/Clean.lean"), FileStatus::Ok);
    let bad = &m.files[4];
    assert_eq!(bad.status, FileStatus::Failed);
    assert!(bad.recording.is_none());
    assert!(
        bad.error
            .as_deref()
            .unwrap()
            .contains("Latin1.lean is not UTF-8 (byte 11)"),
        "{:?}",
        bad.error
    );
    assert_eq!(m.files[5].module, "Shelf.𝔽ancy.Demo.Unicode");
    assert_eq!(m.files[2].lean_errors, Some(1));

    // Every committed file: its recording, its SHA-256, and its index rows
    // exactly as the model computes them from the recording.
    let mut expected_rows = Vec::new();
    for f in m.files.iter().filter(|f| f.status.is_committed()) {
        let rec = Recording::open(dir.join(f.recording.as_ref().unwrap())).unwrap();
        let src = std::fs::read(s.root.join(&f.path)).unwrap();
        assert_eq!(
            f.source_sha256.as_deref(),
            Some(recording::sha256_hex(&src).as_str())
        );
        assert_eq!(rec.header.source_path, f.path);
        expected_rows.extend(index_rows(&rec, f.id, f.capture.unwrap(), &f.path));
    }
    let index = std::fs::read_to_string(dir.join("index.jsonl")).unwrap();
    assert_eq!(index.len() as u64, m.index_bytes);
    let on_disk: Vec<recording::session::IndexRow> = index
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(on_disk, expected_rows);

    // Values from the fixture outputs themselves.
    for (path, case) in [
        ("Shelf/Demo/Async.lean", "async"),
        ("Shelf/Demo/Clean.lean", "clean"),
        ("Shelf/Tools/Demo/Imports.lean", "imports"),
        ("Shelf/𝔽ancy/Demo/Unicode.lean", "unicode"),
    ] {
        let f = m.files.iter().find(|f| f.path == path).unwrap();
        let want = elapsed_from_profile(case);
        assert!(
            (f.elapsed_ms.unwrap() - want).abs() < 1e-6,
            "{path}: {:?} vs {want}",
            f.elapsed_ms
        );
    }

    // Files, longest first, with Lean's elapsed times.
    let (q, _) = query(&s, &["--kind", "file", "--all"]);
    assert_eq!(q["session"]["status"], "partial");
    assert_eq!(q["session"]["interrupted"], false);
    assert_eq!(
        (
            &q["session"]["planned"],
            &q["session"]["completed"],
            &q["session"]["failed"]
        ),
        (&Value::from(6), &Value::from(5), &Value::from(1))
    );
    let rows = q["rows"].as_array().unwrap();
    let got: Vec<_> = rows
        .iter()
        .map(|r| r["path"].as_str().unwrap().to_string())
        .collect();
    // Lean's elapsed time where it reported one; Broken (no profile: Lean
    // writes none for a file with errors) falls back to the traced time.
    let file_ms = |f: &recording::session::FileEntry| {
        f.elapsed_ms.unwrap_or_else(|| {
            expected_rows
                .iter()
                .find(|r| r.file == f.id && r.kind == recording::session::RowKind::File)
                .and_then(|r| r.duration_ms)
                .unwrap()
        })
    };
    assert!(m.files[2].elapsed_ms.is_none());
    let mut want: Vec<_> = m
        .files
        .iter()
        .filter(|f| f.status.is_committed())
        .map(|f| (file_ms(f), f.path.clone()))
        .collect();
    want.sort_by(|a, b| b.0.total_cmp(&a.0));
    assert_eq!(got, want.iter().map(|w| w.1.clone()).collect::<Vec<_>>());
    for (r, w) in rows.iter().zip(&want) {
        assert_eq!(ms(&r["durationMs"]), w.0);
    }
    // Imports dominates: the 1.85 s import of the fixture.
    assert_eq!(rows[0]["name"], "Shelf.Tools.Demo.Imports");

    // Declarations: every committed declaration with a time, row by row.
    let (q, _) = query(&s, &["--kind", "declaration", "--all"]);
    let rows = q["rows"].as_array().unwrap();
    let mut want: Vec<_> = expected_rows
        .iter()
        .filter(|r| r.kind == recording::session::RowKind::Declaration)
        .collect();
    want.sort_by(|a, b| {
        b.duration_ms.is_some().cmp(&a.duration_ms.is_some()).then(
            b.duration_ms
                .unwrap_or(0.0)
                .total_cmp(&a.duration_ms.unwrap_or(0.0)),
        )
    });
    assert_eq!(rows.len(), want.len());
    assert_eq!(q["matched"], want.len());
    for (r, w) in rows.iter().zip(&want) {
        assert_eq!(r["name"], w.name.as_str());
        assert_eq!(r["path"], w.path.as_str());
        assert_eq!(r["durationMs"].as_f64(), w.duration_ms);
        assert_eq!(r["selfMs"].as_f64(), w.self_ms);
        assert_eq!(r["line"], w.line.unwrap());
        assert_eq!(r["endLine"], w.end_line.unwrap());
    }

    // Tactics under the non-BMP folder, from the fixture's trace tree:
    // `omega` (7.093 ms) inside its tactic block (0.036 + 7.093 + 0.047 ms),
    // and `rfl` likewise (0.036 + 1.512 + 0.047 ms).
    let (q, _) = query(&s, &["--kind", "tactic", "--path", "Shelf/𝔽ancy"]);
    let rows = q["rows"].as_array().unwrap();
    let got: Vec<_> = rows
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap(),
                ms(&r["durationMs"]),
                r["line"].as_u64().unwrap(),
                r["declaration"].as_str().unwrap(),
                r["attribution"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("omega", 7.176, 11, "Demo.Unicode.succ_gt", "matched"),
            ("rfl", 1.595, 9, "Demo.Unicode.𝔽_refl", "matched"),
        ]
    );
    // Path filters match whole components.
    let (q, _) = query(&s, &["--kind", "tactic", "--path", "Shelf/𝔽anc"]);
    assert_eq!(q["rows"].as_array().unwrap().len(), 0);
    // By self time, Clean's slowest tactic is `omega` at 6.238 ms (the
    // fixture's leaf; by total the `induction` block holding it wins).
    let (q, _) = query(
        &s,
        &[
            "--kind",
            "tactic",
            "--path",
            "Shelf/Demo/Clean.lean",
            "--limit",
            "1",
            "--sort",
            "self",
        ],
    );
    assert_eq!(q["rows"][0]["name"], "omega");
    assert_eq!(ms(&q["rows"][0]["durationMs"]), 6.238);
    assert_eq!(q["rows"][0]["line"], 9);

    // Folders: sums of their committed files (the failed one adds nothing).
    let (q, _) = query(&s, &["--kind", "folder", "--all"]);
    let mut sums: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for f in m.files.iter().filter(|f| f.status.is_committed()) {
        let ns = (file_ms(f) * 1e6).round() as u64;
        let mut folders = vec![".".to_string()];
        let parts: Vec<_> = f.path.split('/').collect();
        for i in 1..parts.len() {
            folders.push(parts[..i].join("/"));
        }
        for d in folders {
            let e = sums.entry(d).or_default();
            e.0 += ns;
            e.1 += 1;
        }
    }
    let rows = q["rows"].as_array().unwrap();
    assert_eq!(rows.len(), sums.len());
    for r in rows {
        let (ns, files) = sums[r["path"].as_str().unwrap()];
        assert_eq!(ms(&r["durationMs"]), ns as f64 / 1e6, "{r}");
        assert_eq!(r["files"], files);
    }
    assert_eq!(rows[0]["path"], ".");
    assert_eq!(sums["Shelf/Tools"].1, 2);

    // TSV by default, with a header; JSONL one row per line.
    let out = s.run(&[
        "query",
        dir.to_str().unwrap(),
        "--kind",
        "file",
        "--limit",
        "2",
    ]);
    let tsv = text(&out.stdout);
    let lines: Vec<_> = tsv.lines().collect();
    assert_eq!(
        lines[0],
        "kind\tname\tpath\tdurationMs\tselfMs\tline\tendLine\tdeclaration\tattribution"
    );
    assert_eq!(lines.len(), 3);
    assert!(lines[1].starts_with("file\tShelf.Tools.Demo.Imports\tShelf/Tools/Demo/Imports.lean\t"));
    let out = s.run(&[
        "query",
        dir.to_str().unwrap(),
        "--kind",
        "tactic",
        "--jsonl",
        "--limit",
        "3",
    ]);
    assert_eq!(text(&out.stdout).lines().count(), 3);

    // One recording: the same rows, computed on the fly.
    let clean = dir.join(m.files[1].recording.as_ref().unwrap());
    let out = s.run(&[
        "query",
        clean.to_str().unwrap(),
        "--kind",
        "tactic",
        "--limit",
        "1",
        "--sort",
        "self",
        "--json",
    ]);
    let q: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(q["session"], Value::Null);
    assert_eq!(ms(&q["rows"][0]["durationMs"]), 6.238);
}

#[test]
fn list_prints_the_plan_without_running_lean() {
    let s = Shelf::new(true);
    let pidfile = s.w.path("pids");
    let out = s
        .cmd(&["profile", "Shelf/Tools", "--list"])
        .env("LEANSCOPE_FAKE_PIDFILE", &pidfile)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let plan: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(plan["target"]["kind"], "folder");
    assert_eq!(plan["target"]["path"], "Shelf/Tools");
    let files: Vec<_> = plan["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap(), f["module"].as_str().unwrap()))
        .collect();
    assert_eq!(
        files,
        [
            ("Shelf/Tools/Demo/Broken.lean", "Shelf.Tools.Demo.Broken"),
            ("Shelf/Tools/Demo/Imports.lean", "Shelf.Tools.Demo.Imports"),
            ("Shelf/Tools/Latin1.lean", "Shelf.Tools.Latin1"),
        ]
    );
    assert!(!pidfile.exists(), "Lean ran");
    // The whole project: the six files, nothing skipped ones.
    let out = s.run(&["profile", "--project", "--list"]);
    let plan: Value = serde_json::from_slice(&out.stdout).unwrap();
    let paths: Vec<_> = plan["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, FILES.map(|f| f.0));
    assert!(!s.root.join(".leanscope/sessions").exists());
}

#[test]
fn an_existing_non_empty_output_is_refused() {
    let s = Shelf::new(false);
    let dir = s.session();
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("keep.txt"), "mine").unwrap();
    let out = s.run(&["profile", "Shelf", "-o", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("already exists and is not empty"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
    // The default location is under the project's .leanscope/sessions.
    let out = s.run(&["profile", "Shelf/Demo"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let made = PathBuf::from(text(&out.stdout).trim());
    assert!(made.starts_with(s.root.canonicalize().unwrap().join(".leanscope/sessions")));
    assert_eq!(manifest(&made).status, SessionStatus::Complete);
    assert_eq!(manifest(&made).counts.completed, 2);
}

fn wait_for(what: &str, timeout: Duration, mut f: impl FnMut() -> bool) {
    let t = Instant::now();
    while !f() {
        assert!(t.elapsed() < timeout, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn completed(dir: &Path) -> u64 {
    common::read_session(dir).map_or(0, |m| m.counts.completed)
}

/// Kills what the fake toolchain started (lake and lean, each in leanscope's
/// process group for Lean).
fn kill_fakes(pidfile: &Path) {
    for line in std::fs::read_to_string(pidfile).unwrap_or_default().lines() {
        if let Some(pid) = line
            .split_whitespace()
            .nth(1)
            .and_then(|p| p.parse::<i32>().ok())
        {
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }
}

fn lean_runs(pidfile: &Path) -> usize {
    std::fs::read_to_string(pidfile)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.starts_with("lean "))
        .count()
}

#[test]
fn ctrl_c_after_three_files_keeps_exactly_three() {
    let s = Shelf::new(true);
    let dir = s.session();
    let child = s
        .cmd(&["profile", "--project", "-o", dir.to_str().unwrap()])
        .env("LEANSCOPE_FAKE_DELAY_SCALE", "20")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Async, Clean and Broken commit; Imports then replays for seconds.
    wait_for("three files", Duration::from_secs(60), || {
        completed(&dir) >= 3
    });
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let t = Instant::now();
    let out = child.wait_with_output().unwrap();
    assert!(t.elapsed() < Duration::from_secs(5));
    assert_eq!(out.status.code(), Some(130), "{}", text(&out.stderr));
    let m = manifest(&dir);
    assert_eq!(m.status, SessionStatus::Cancelled);
    assert_eq!((m.counts.completed, m.counts.failed), (3, 0));
    let statuses: Vec<_> = m.files.iter().map(|f| f.status).collect();
    assert_eq!(
        statuses,
        [
            FileStatus::Ok,
            FileStatus::Ok,
            FileStatus::Error,
            FileStatus::Skipped,
            FileStatus::Skipped,
            FileStatus::Skipped
        ]
    );
    // Exactly three recordings, and rows of exactly those files.
    assert_eq!(std::fs::read_dir(dir.join("files")).unwrap().count(), 3);
    let (q, stderr) = query(&s, &["--kind", "file", "--all"]);
    assert_eq!(q["rows"].as_array().unwrap().len(), 3);
    assert_eq!(q["session"]["status"], "cancelled");
    assert!(
        stderr.contains("the session is cancelled: 3 of 6 files completed"),
        "{stderr}"
    );
}

#[test]
fn kill_9_mid_session_then_resume_captures_every_file_once() {
    let s = Shelf::new(false);
    let dir = s.session();
    let pidfile = s.w.path("pids");
    let mut child = s
        .cmd(&["profile", "--project", "-o", dir.to_str().unwrap()])
        .env("LEANSCOPE_FAKE_DELAY_SCALE", "10")
        .env("LEANSCOPE_FAKE_PIDFILE", &pidfile)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for("one file", Duration::from_secs(60), || completed(&dir) >= 1);
    unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
    child.wait().unwrap();
    kill_fakes(&pidfile);
    let before = manifest(&dir);
    assert_eq!(before.status, SessionStatus::Running);
    let done_before: Vec<_> = before
        .files
        .iter()
        .filter(|f| f.status.is_committed())
        .map(|f| (f.id, f.capture))
        .collect();
    assert!(
        !done_before.is_empty() && done_before.len() < 5,
        "{done_before:?}"
    );

    // Readable, and reported as interrupted.
    let (q, stderr) = query(&s, &["--kind", "file"]);
    assert_eq!(q["session"]["status"], "running");
    assert_eq!(q["session"]["interrupted"], true);
    assert_eq!(q["rows"].as_array().unwrap().len(), done_before.len());
    assert!(stderr.contains("the session was interrupted"), "{stderr}");

    // Resume: only the missing files, once each.
    std::fs::remove_file(&pidfile).unwrap();
    let out = s
        .cmd(&["profile", "--resume", dir.to_str().unwrap()])
        .env("LEANSCOPE_FAKE_PIDFILE", &pidfile)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr)); // Broken has Lean errors
    let m = manifest(&dir);
    assert_eq!(m.status, SessionStatus::Complete);
    assert_eq!((m.counts.planned, m.counts.completed), (5, 5));
    let missing = 5 - done_before.len();
    // One `lean --version` for the run's Lake environment, then a `lean --json` per file.
    assert_eq!(lean_runs(&pidfile), 1 + missing);
    for (id, capture) in &done_before {
        assert_eq!(m.files[*id as usize].capture, *capture);
    }
    // One recording per file (what the killed run left half-done is gone),
    // one file row per file.
    assert_eq!(std::fs::read_dir(dir.join("files")).unwrap().count(), 5);
    let (q, stderr) = query(&s, &["--kind", "file", "--all"]);
    let mut paths: Vec<_> = q["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["path"].as_str().unwrap().to_string())
        .collect();
    paths.sort();
    assert_eq!(paths.len(), 5);
    paths.dedup();
    assert_eq!(paths.len(), 5);
    assert_eq!(q["session"]["interrupted"], false);
    assert!(!stderr.contains("warning"), "{stderr}");
    let index = std::fs::read(dir.join("index.jsonl")).unwrap();
    assert_eq!(index.len() as u64, m.index_bytes);

    // Nothing to do the second time.
    std::fs::remove_file(&pidfile).unwrap();
    let out = s
        .cmd(&["profile", "--resume", dir.to_str().unwrap()])
        .env("LEANSCOPE_FAKE_PIDFILE", &pidfile)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert_eq!(lean_runs(&pidfile), 0);
}

#[test]
fn resume_recaptures_changed_and_failed_files_only() {
    let s = Shelf::new(true);
    let dir = s.session();
    let out = s.run(&["profile", "--project", "-o", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(3));
    let before = manifest(&dir);
    // Change Clean (a comment: same positions for the fixture), fix nothing else.
    let clean = s.root.join("Shelf/Demo/Clean.lean");
    let mut src = std::fs::read_to_string(&clean).unwrap();
    src.push_str("\n-- edited\n");
    std::fs::write(&clean, src).unwrap();
    let out = s.run(&["profile", "--resume", dir.to_str().unwrap(), "--list"]);
    let plan: Value = serde_json::from_slice(&out.stdout).unwrap();
    let paths: Vec<_> = plan["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["Shelf/Demo/Clean.lean", "Shelf/Tools/Latin1.lean"]);

    let pidfile = s.w.path("pids");
    let out = s
        .cmd(&["profile", "--resume", dir.to_str().unwrap()])
        .env("LEANSCOPE_FAKE_PIDFILE", &pidfile)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    // Clean ran Lean (twice: version and capture); Latin1 fails before Lean.
    assert_eq!(lean_runs(&pidfile), 2);
    let m = manifest(&dir);
    assert_eq!(m.status, SessionStatus::Partial);
    for (b, a) in before.files.iter().zip(&m.files) {
        if b.path == "Shelf/Demo/Clean.lean" {
            assert_ne!(a.capture, b.capture);
            assert_ne!(a.source_sha256, b.source_sha256);
            assert!(!dir.join(b.recording.as_ref().unwrap()).exists());
            assert!(dir.join(a.recording.as_ref().unwrap()).exists());
        } else {
            assert_eq!(
                (a.capture, &a.recording, a.status),
                (b.capture, &b.recording, b.status)
            );
        }
    }
    // The superseded rows stay in the index but no longer count.
    let (q, _) = query(&s, &["--kind", "file", "--all"]);
    assert_eq!(q["rows"].as_array().unwrap().len(), 5);
    let (q, _) = query(
        &s,
        &[
            "--kind",
            "declaration",
            "--all",
            "--path",
            "Shelf/Demo/Clean.lean",
        ],
    );
    assert_eq!(q["rows"].as_array().unwrap().len(), 5);
}

#[test]
fn a_half_written_index_tail_is_ignored_with_a_warning() {
    let s = Shelf::new(false);
    let dir = s.session();
    let out = s.run(&["profile", "Shelf/Demo", "-o", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let (clean, _) = query(&s, &["--kind", "tactic", "--all"]);
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(dir.join("index.jsonl"))
        .unwrap();
    f.write_all(br#"{"capture":1,"file":0,"kind":"tactic","path":"Shelf/De"#)
        .unwrap();
    drop(f);
    let (q, stderr) = query(&s, &["--kind", "tactic", "--all"]);
    assert_eq!(q["rows"], clean["rows"]);
    assert!(
        stderr.contains("warning: ignored the last 54 bytes of index.jsonl"),
        "{stderr}"
    );
    assert_eq!(q["warnings"].as_array().unwrap().len(), 1);
    // A manifest that claims the half line too (a damaged disk): still
    // ignored, named as a partial last line.
    let mut m = manifest(&dir);
    m.index_bytes += 54;
    std::fs::write(dir.join("session.json"), m.to_json()).unwrap();
    let (q, stderr) = query(&s, &["--kind", "tactic", "--all"]);
    assert_eq!(q["rows"], clean["rows"]);
    assert!(
        stderr.contains("ignored a partial last line of index.jsonl"),
        "{stderr}"
    );
}

#[test]
fn jobs_capture_in_parallel_with_the_same_results() {
    let s = Shelf::new(true);
    let one = s.w.path("one");
    let two = s.w.path("two");
    s.run(&["profile", "--project", "-o", one.to_str().unwrap()]);
    let out = s.run(&[
        "profile",
        "--project",
        "--jobs",
        "3",
        "-o",
        two.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    let (a, b) = (manifest(&one), manifest(&two));
    assert_eq!(a.counts, b.counts);
    for (x, y) in a.files.iter().zip(&b.files) {
        assert_eq!(
            (x.status, &x.source_sha256, x.elapsed_ms),
            (y.status, &y.source_sha256, y.elapsed_ms)
        );
    }
    let q = |d: &Path| {
        let out = s.run(&[
            "query",
            d.to_str().unwrap(),
            "--kind",
            "tactic",
            "--all",
            "--jsonl",
        ]);
        text(&out.stdout)
            .lines()
            .map(|l| {
                let mut v: Value = serde_json::from_str(l).unwrap();
                v.as_object_mut().unwrap().remove("file");
                v.to_string()
            })
            .collect::<std::collections::BTreeSet<_>>()
    };
    assert_eq!(q(&one), q(&two));
    let help = s.run(&["profile", "--help"]);
    assert!(text(&help.stdout).contains("disturb each other's timings"));
}

#[test]
fn session_files_match_their_json_schemas() {
    let s = Shelf::new(true);
    let dir = s.session();
    s.run(&["profile", "--project", "-o", dir.to_str().unwrap()]);
    let schema = |name: &str| -> Value {
        serde_json::from_slice(&std::fs::read(common::repo().join("schemas").join(name)).unwrap())
            .unwrap()
    };
    let session = jsonschema::draft202012::new(&schema("session.schema.json")).unwrap();
    let row = jsonschema::draft202012::new(&schema("index-row.schema.json")).unwrap();
    let m: Value =
        serde_json::from_slice(&std::fs::read(dir.join("session.json")).unwrap()).unwrap();
    let errors: Vec<_> = session.iter_errors(&m).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:?}");
    let index = std::fs::read_to_string(dir.join("index.jsonl")).unwrap();
    let mut kinds = std::collections::BTreeSet::new();
    for line in index.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let errors: Vec<_> = row.iter_errors(&v).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{line}: {errors:?}");
        kinds.insert(v["kind"].as_str().unwrap().to_string());
    }
    assert_eq!(
        kinds.len(),
        4,
        "file, declaration, tactic and hotspot rows: {kinds:?}"
    );
    // The schemas reject what they should.
    let mut bad = m.clone();
    bad["files"][0]["status"] = "done".into();
    assert!(!session.is_valid(&bad));
    let mut bad = m.clone();
    bad["files"][0].as_object_mut().unwrap().remove("capture");
    assert!(!session.is_valid(&bad));
    let first: Value = serde_json::from_str(index.lines().next().unwrap()).unwrap();
    let mut bad = first.clone();
    bad["kind"] = "folder".into();
    assert!(!row.is_valid(&bad));
}

/// Runs `c`, killing it if it has not finished within `limit`; its output,
/// or None when it had to be killed.
fn run_bounded(mut c: Command, limit: Duration) -> Option<std::process::Output> {
    let mut child = c
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Some(child.wait_with_output().unwrap())
}

#[test]
fn a_fifo_or_a_device_in_a_session_is_refused_without_hanging() {
    let s = Shelf::new(false);
    let dir = s.session();
    let out = s.run(&["profile", "Shelf/Demo", "-o", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let index = dir.join("index.jsonl");
    let d = dir.to_str().unwrap();
    let (clean, _) = query(&s, &["--kind", "tactic", "--all"]);
    let kept_index = std::fs::read(&index).unwrap();
    let kept_manifest = std::fs::read(dir.join("session.json")).unwrap();
    let fifo = |p: &Path| {
        std::fs::remove_file(p).unwrap();
        let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    };
    fifo(&index);
    // Exit 2: query's unusable input; 3: profile's session failure.
    for (args, code, what) in [
        (
            vec!["query", d, "--json"],
            2,
            "index.jsonl is a FIFO, not a regular file",
        ),
        (
            vec!["profile", "--resume", d, "--list"],
            3,
            "index.jsonl is a FIFO or a device",
        ),
    ] {
        let out = run_bounded(s.cmd(&args), Duration::from_secs(20))
            .unwrap_or_else(|| panic!("{args:?} hangs on a FIFO index"));
        assert_eq!(
            out.status.code(),
            Some(code),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(
            text(&out.stderr).contains(what),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
    // /dev/zero as the index, with a manifest that claims a huge one.
    std::fs::remove_file(&index).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &index).unwrap();
    let mut m = manifest(&dir);
    m.index_bytes = 1 << 40;
    std::fs::write(dir.join("session.json"), m.to_json()).unwrap();
    let out = run_bounded(s.cmd(&["query", d, "--json"]), Duration::from_secs(20))
        .expect("query hangs on /dev/zero");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("is a device"),
        "{}",
        text(&out.stderr)
    );
    // A FIFO lock file: `query` still answers (no leanscope holds it), and
    // a resume is refused rather than left waiting.
    std::fs::remove_file(&index).unwrap();
    std::fs::write(&index, &kept_index).unwrap();
    std::fs::write(dir.join("session.json"), &kept_manifest).unwrap();
    fifo(&dir.join("session.lock"));
    let args = ["query", d, "--kind", "tactic", "--all", "--json"];
    let out =
        run_bounded(s.cmd(&args), Duration::from_secs(20)).expect("query hangs on a FIFO lock");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let q: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(q["rows"], clean["rows"]);
    let out = run_bounded(
        s.cmd(&["profile", "--resume", d, "--list"]),
        Duration::from_secs(20),
    )
    .expect("resume hangs on a FIFO lock");
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("session.lock"),
        "{}",
        text(&out.stderr)
    );
}

/// `summary --json -` of `input` (grouped by file), parsed; panics on a
/// non-zero exit.
fn summary_by_file(s: &Shelf, input: &Path) -> Value {
    let args = [
        "summary",
        input.to_str().unwrap(),
        "--group-by",
        "file",
        "--json",
        "-",
    ];
    let out = run_bounded(s.cmd(&args), Duration::from_secs(60)).expect("summary hangs");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn row_files(summary: &Value) -> Vec<String> {
    let mut v: Vec<String> = summary["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["key"]["name"].as_str().unwrap().to_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn summary_and_compare_read_a_session_as_query_does() {
    let s = Shelf::new(false);
    let dir = s.session();
    let d = dir.to_str().unwrap();
    let out = s.run(&["profile", "Shelf/Demo", "-o", d]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let clean = summary_by_file(&s, &dir);
    let m = manifest(&dir);
    let committed: Vec<&str> = m
        .files
        .iter()
        .filter(|f| f.status.is_committed())
        .map(|f| f.path.as_str())
        .collect();
    assert!(committed.len() >= 2, "{committed:?}");

    // An interrupted session: its last file is pending again (what a kill
    // during its capture leaves), its recording still on disk, plus a stray
    // recording no file names. Neither is counted.
    let mut interrupted = m.clone();
    let last = interrupted
        .files
        .iter_mut()
        .rev()
        .find(|f| f.status.is_committed())
        .unwrap();
    let dropped = last.path.clone();
    let kept_recording = last.recording.clone().unwrap();
    last.status = FileStatus::Pending;
    interrupted.status = SessionStatus::Running;
    interrupted.recount();
    std::fs::write(dir.join("session.json"), interrupted.to_json()).unwrap();
    std::fs::copy(
        dir.join(&kept_recording),
        dir.join("files/99999-Stray-1.lsrec"),
    )
    .unwrap();
    let partial = summary_by_file(&s, &dir);
    let mut want: Vec<String> = row_files(&clean)
        .into_iter()
        .filter(|f| *f != dropped)
        .collect();
    want.sort();
    assert_eq!(row_files(&partial), want, "only committed files count");
    assert!(
        partial["event_count"].as_u64().unwrap() < clean["event_count"].as_u64().unwrap(),
        "{} vs {}",
        partial["event_count"],
        clean["event_count"]
    );
    // query agrees on which files count.
    let (q, _) = query(&s, &["--kind", "file", "--all"]);
    let mut qfiles: Vec<String> = q["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["path"].as_str().unwrap().to_owned())
        .collect();
    qfiles.sort();
    assert_eq!(qfiles, want);

    // An empty and a broken manifest: the error query gives, exit 2, for
    // summary and compare (either side).
    for bad in [&b""[..], &b"{\"schemaVersion\": 1"[..]] {
        std::fs::write(dir.join("session.json"), bad).unwrap();
        let q = run_bounded(s.cmd(&["query", d, "--json"]), Duration::from_secs(20)).unwrap();
        assert_eq!(q.status.code(), Some(2));
        let qerr = text(&q.stderr);
        let reason = qerr.trim().rsplit(": ").next().unwrap().to_owned();
        for args in [
            vec!["summary", d],
            vec!["compare", d, d],
            vec!["compare", &kept_recording_path(&dir, &kept_recording), d],
        ] {
            let out = run_bounded(s.cmd(&args), Duration::from_secs(20)).unwrap();
            let err = text(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
            assert!(
                err.contains("session.json") && err.contains(&reason),
                "{args:?}: {err}\nquery said: {qerr}"
            );
        }
    }

    // A FIFO recording: summary, compare and export refuse it at once.
    std::fs::write(dir.join("session.json"), m.to_json()).unwrap();
    std::fs::remove_file(dir.join("files/99999-Stray-1.lsrec")).unwrap();
    let first = m
        .files
        .iter()
        .find(|f| f.status.is_committed())
        .and_then(|f| f.recording.clone())
        .unwrap();
    let rec = dir.join(&first);
    std::fs::remove_file(&rec).unwrap();
    let c = std::ffi::CString::new(rec.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let r = rec.to_str().unwrap();
    for args in [
        vec!["summary", d],
        vec!["compare", d, d],
        vec!["summary", r],
        vec!["export", r, "--format", "folded", "-o", "/dev/null"],
        vec!["query", r],
    ] {
        let out = run_bounded(s.cmd(&args), Duration::from_secs(20))
            .unwrap_or_else(|| panic!("{args:?} hangs on a FIFO recording"));
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("is a FIFO, not a regular file"),
            "{args:?}: {err}"
        );
    }
}

fn kept_recording_path(dir: &Path, rel: &str) -> String {
    dir.join(rel).to_str().unwrap().to_owned()
}

/// The entries of `dir` whose names start with `prefix`.
fn entries_starting(dir: &Path, prefix: &str) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(prefix))
        .collect()
}

#[test]
fn publish_writes_a_whole_site_or_none() {
    let s = Shelf::new(false);
    let dir = s.session();
    let d = dir.to_str().unwrap();
    let out = s.run(&["profile", "Shelf/Demo", "-o", d]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let sites = s.w.path("sites");
    std::fs::create_dir_all(&sites).unwrap();
    let publish = |to: &Path| {
        run_bounded(
            s.cmd(&["publish", d, "-o", to.to_str().unwrap()]),
            Duration::from_secs(30),
        )
        .expect("publish hangs")
    };
    // A new directory, and an empty one (replaced by the site).
    let site = sites.join("site");
    let empty = sites.join("empty");
    std::fs::create_dir(&empty).unwrap();
    for to in [&site, &empty] {
        let out = publish(to);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert!(to.join("index.html").is_file());
        let m = Manifest::from_json(&std::fs::read(to.join("data/session.json")).unwrap()).unwrap();
        for f in m.files.iter().filter(|f| f.status.is_committed()) {
            let rel = f.recording.as_deref().unwrap();
            assert_eq!(
                std::fs::read(to.join("data").join(rel)).unwrap(),
                std::fs::read(dir.join(rel)).unwrap()
            );
        }
    }
    // A directory that is not empty is refused and left as it was.
    let before = std::fs::read(site.join("index.html")).unwrap();
    std::fs::write(site.join("mine.txt"), b"keep").unwrap();
    let out = publish(&site);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("exists and is not empty"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(std::fs::read(site.join("index.html")).unwrap(), before);
    assert_eq!(std::fs::read(site.join("mine.txt")).unwrap(), b"keep");

    // A recording that cannot be read, after the viewer, the manifest and
    // the index were written: an error naming it, and no site at all.
    let m = manifest(&dir);
    let last = m
        .files
        .iter()
        .rev()
        .find(|f| f.status.is_committed())
        .and_then(|f| f.recording.clone())
        .unwrap();
    let rec = dir.join(&last);
    std::fs::remove_file(&rec).unwrap();
    let c = std::ffi::CString::new(rec.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let failed = sites.join("failed");
    let out = publish(&failed);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("is a FIFO, not a regular file"), "{err}");
    assert!(!failed.exists(), "a partial site was left");
    assert_eq!(entries_starting(&sites, ".failed"), Vec::<String>::new());
}
