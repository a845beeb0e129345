//! Sharded captures end to end: `profile --project --shard K/N` run
//! concurrently through the fake toolchain, `session merge`, and the merged
//! session read by `query`, `summary` and `--resume` like any other.
//!
//! The synthetic project has `LEANSCOPE_SHARD_TEST_FILES` files (default
//! 120; the full size is 2000:
//! `LEANSCOPE_SHARD_TEST_FILES=2000 cargo test -p leanscope --test shards`).

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::{text, World};
use recording::session::{FileStatus, Manifest, SessionStatus};
use serde_json::Value;

/// The demo sources the synthetic files copy (the fake replays a case
/// whose source path is a suffix of the file's).
const SOURCES: [&str; 5] = [
    "Clean.lean",
    "Async.lean",
    "Unicode.lean",
    "Imports.lean",
    "Broken.lean",
];

fn synthetic_files() -> usize {
    std::env::var("LEANSCOPE_SHARD_TEST_FILES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(120)
}

/// A project under test: its root and how to run leanscope in it.
struct Proj {
    w: World,
    root: PathBuf,
}

impl Proj {
    /// The demo project itself.
    fn demo() -> Proj {
        let w = World::new();
        let root = w.project.clone();
        git_init(&root);
        Proj { w, root }
    }

    /// `files` copies of the demo sources at `Syn/Gg/Fi/Demo/NAME.lean`, in
    /// a Git checkout.
    fn synthetic(files: usize) -> Proj {
        let w = World::new();
        let root = w.path("syn");
        std::fs::create_dir_all(&root).unwrap();
        for f in ["lean-toolchain", "lakefile.toml"] {
            std::fs::copy(w.project.join(f), root.join(f)).unwrap();
        }
        for i in 0..files {
            let name = SOURCES[i % SOURCES.len()];
            let dir = root.join(format!("Syn/G{}/F{i:04}/Demo", i % 10));
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::copy(w.project.join("Demo").join(name), dir.join(name)).unwrap();
        }
        git_init(&root);
        Proj { w, root }
    }

    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = self.w.command(args);
        c.current_dir(&self.root);
        c
    }

    fn run(&self, args: &[&str]) -> Output {
        self.cmd(args).output().unwrap()
    }

    fn path(&self, name: &str) -> PathBuf {
        self.w.path(name)
    }

    /// Shards 1..=n of the project, run at the same time, into `prefix-K`.
    fn shards(&self, n: u32, prefix: &str, extra: &[&str]) -> Vec<PathBuf> {
        let dirs: Vec<PathBuf> = (1..=n)
            .map(|k| self.path(&format!("{prefix}-{k}")))
            .collect();
        let children: Vec<_> = dirs
            .iter()
            .enumerate()
            .map(|(i, d)| {
                let shard = format!("{}/{n}", i + 1);
                let mut args = vec!["profile", "--project", "--shard", &shard];
                args.extend_from_slice(&["-o", d.to_str().unwrap()]);
                args.extend_from_slice(extra);
                self.cmd(&args)
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for c in children {
            let out = c.wait_with_output().unwrap();
            // 0, or 1 for the files with Lean errors; 3 when a file failed.
            assert!(
                matches!(out.status.code(), Some(0 | 1 | 3)),
                "{}",
                text(&out.stderr)
            );
        }
        dirs
    }

    fn merge(&self, shards: &[PathBuf], out: &Path) -> Output {
        let mut args = vec!["session".to_string(), "merge".to_string()];
        args.extend(shards.iter().map(|d| d.display().to_string()));
        args.extend(["-o".to_string(), out.display().to_string()]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        self.run(&args)
    }
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=T", "-c", "user.email=t@example.invalid"])
        .args(["-c", "commit.gpgsign=false"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", text(&out.stderr));
    text(&out.stdout).trim().to_string()
}

fn git_init(dir: &Path) {
    git(dir, &["init", "-q", "-b", "main"]);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "project"]);
}

/// The manifest with its journal replayed (an unfinished shard's).
fn manifest(dir: &Path) -> Manifest {
    common::read_session(dir).unwrap()
}

/// The index rows of a session's committed files, times, memory growth and capture
/// numbers aside, sorted.
fn rows_without_times(dir: &Path) -> Vec<String> {
    let m = manifest(dir);
    let committed = m.committed();
    let index = std::fs::read(dir.join("index.jsonl")).unwrap();
    let mut rows: Vec<String> = index[..m.index_bytes as usize]
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .filter_map(|l| {
            let mut v: Value = serde_json::from_slice(l).unwrap();
            let file = v["file"].as_u64().unwrap();
            let capture = v["capture"].as_u64().unwrap();
            if !committed.accepts(file, capture) {
                return None;
            }
            let o = v.as_object_mut().unwrap();
            for k in [
                "durationMs",
                "selfMs",
                "capture",
                "memoryGrowthBytes",
                "memoryPeakBytes",
            ] {
                o.remove(k);
            }
            Some(v.to_string())
        })
        .collect();
    rows.sort();
    rows
}

fn files_of(m: &Manifest) -> Vec<(u32, String, FileStatus)> {
    m.files
        .iter()
        .map(|f| (f.id, f.path.clone(), f.status))
        .collect()
}

/// Shards 1/3..3/3 run at once, merged, equal one unsharded capture.
fn sharded_equals_unsharded(p: &Proj) {
    let whole = p.path("whole");
    let out = p.run(&["profile", "--project", "-o", whole.to_str().unwrap()]);
    assert!(
        matches!(out.status.code(), Some(0 | 1 | 3)),
        "{}",
        text(&out.stderr)
    );
    let shards = p.shards(3, "shard", &[]);
    let commit = git(&p.root, &["rev-parse", "HEAD"]);
    let mut digests = BTreeSet::new();
    let mut covered = 0;
    for (k, d) in shards.iter().enumerate() {
        let m = manifest(d);
        let info = m.shard.clone().expect("a shard session records its shard");
        assert_eq!((info.index, info.count), (k as u32 + 1, 3));
        assert_eq!(info.git_commit.as_deref(), Some(commit.as_str()));
        assert_eq!(info.plan_files as usize, manifest(&whole).files.len());
        assert_eq!(m.toolchains, manifest(&whole).toolchains);
        assert_eq!(m.lean_versions, manifest(&whole).lean_versions);
        assert!(d.join("plan.json").is_file());
        digests.insert(info.plan_digest);
        covered += m.files.len();
        assert!(!m.files.is_empty());
    }
    assert_eq!(digests.len(), 1, "{digests:?}");
    assert_eq!(covered, manifest(&whole).files.len());

    let merged = p.path("merged");
    let out = p.merge(&shards, &merged);
    let w = manifest(&whole);
    let m = manifest(&merged);
    let expect_code = if w.status == SessionStatus::Complete {
        0
    } else {
        3
    };
    assert_eq!(
        out.status.code(),
        Some(expect_code),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(m.status, w.status);
    assert_eq!(files_of(&m), files_of(&w));
    assert_eq!(m.counts, w.counts);
    let info = m.merge.clone().unwrap();
    assert!(info.missing.is_empty());
    assert_eq!(info.shards.len(), 3);
    assert_eq!(info.git_commit.as_deref(), Some(commit.as_str()));
    let (mr, wr) = (rows_without_times(&merged), rows_without_times(&whole));
    assert_eq!(mr.len(), wr.len());
    assert_eq!(mr, wr);
    // Every committed file's recording is there, under the session.
    for f in m.files.iter().filter(|f| f.status.is_committed()) {
        assert!(merged.join(f.recording.as_ref().unwrap()).is_file());
    }
    // query and summary read it as any session.
    let q = p.run(&[
        "query",
        merged.to_str().unwrap(),
        "--kind",
        "file",
        "--all",
        "--json",
    ]);
    assert_eq!(q.status.code(), Some(0), "{}", text(&q.stderr));
    let q: Value = serde_json::from_slice(&q.stdout).unwrap();
    assert_eq!(
        q["rows"].as_array().unwrap().len() as u64,
        m.counts.completed
    );
    let s = p.run(&["summary", merged.to_str().unwrap(), "--json", "-"]);
    assert!(s.status.success(), "{}", text(&s.stderr));
    let s: Value = serde_json::from_slice(&s.stdout).unwrap();
    assert!(s.is_object());
    // The same shards cannot be merged into a non-empty directory.
    let again = p.merge(&shards, &merged);
    assert_eq!(again.status.code(), Some(2));
    assert!(
        text(&again.stderr).contains("exists and is not empty"),
        "{}",
        text(&again.stderr)
    );
    check_schemas(&shards[0], &merged);
}

fn check_schemas(shard: &Path, merged: &Path) {
    let schema = |name: &str| -> Value {
        serde_json::from_slice(&std::fs::read(common::repo().join("schemas").join(name)).unwrap())
            .unwrap()
    };
    let session = jsonschema::draft202012::new(&schema("session.schema.json")).unwrap();
    let plan = jsonschema::draft202012::new(&schema("plan.schema.json")).unwrap();
    for dir in [shard, merged] {
        let m: Value =
            serde_json::from_slice(&std::fs::read(dir.join("session.json")).unwrap()).unwrap();
        let errors: Vec<_> = session.iter_errors(&m).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{}: {errors:?}", dir.display());
        let p: Value =
            serde_json::from_slice(&std::fs::read(dir.join("plan.json")).unwrap()).unwrap();
        let errors: Vec<_> = plan.iter_errors(&p).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{}: {errors:?}", dir.display());
        let mut bad = p.clone();
        bad["files"][0]["shard"] = 0.into();
        assert!(!plan.is_valid(&bad));
    }
    let m: Value =
        serde_json::from_slice(&std::fs::read(shard.join("session.json")).unwrap()).unwrap();
    let mut bad = m;
    bad["shard"]["planDigest"] = "abc".into();
    assert!(!session.is_valid(&bad));
}

#[test]
fn shards_of_a_synthetic_project_merge_into_the_unsharded_session() {
    let p = Proj::synthetic(synthetic_files());
    sharded_equals_unsharded(&p);
}

#[test]
fn shards_of_the_demo_project_merge_into_the_unsharded_session() {
    let p = Proj::demo();
    sharded_equals_unsharded(&p);
}

/// The shard of each listed file under `--shard K/N --list`.
fn listed(p: &Proj, n: u32, extra: &[&str]) -> Vec<(u32, Vec<String>, Value)> {
    (1..=n)
        .map(|k| {
            let shard = format!("{k}/{n}");
            let args = [
                &["profile", "--project", "--list", "--shard", &shard],
                extra,
            ]
            .concat();
            let out = p.run(&args);
            assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
            let v: Value = serde_json::from_slice(&out.stdout).unwrap();
            let files = v["files"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f["path"].as_str().unwrap().to_string())
                .collect();
            (k, files, v["shard"].clone())
        })
        .collect()
}

#[test]
fn balance_from_a_session_puts_the_slowest_files_in_different_shards() {
    let p = Proj::synthetic(24);
    let before = p.path("before");
    p.run(&["profile", "--project", "-o", before.to_str().unwrap()]);
    // The slowest files of that session (Imports replays the longest).
    let m = manifest(&before);
    let mut timed: Vec<(u64, String)> = m
        .files
        .iter()
        .filter_map(|f| Some((f.time_ns()?, f.path.clone())))
        .collect();
    timed.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let n = 4u32;
    let slowest: Vec<String> = timed.iter().take(n as usize).map(|t| t.1.clone()).collect();
    let by_time = listed(&p, n, &["--balance-from", before.to_str().unwrap()]);
    for (k, files, info) in &by_time {
        assert_eq!(info["balance"], "session");
        let here = slowest.iter().filter(|s| files.contains(s)).count();
        assert_eq!(
            here, 1,
            "shard {k}/{n} holds {here} of the slowest {slowest:?}"
        );
    }
    // By size the cut differs (the slowest files are not the largest).
    let by_size = listed(&p, n, &[]);
    assert_eq!(by_size[0].2["balance"], "size");
    assert_ne!(by_size[0].2["planDigest"], by_time[0].2["planDigest"]);
    // Both cuts cover every file once.
    for cut in [&by_time, &by_size] {
        let mut all: Vec<&String> = cut.iter().flat_map(|c| &c.1).collect();
        all.sort();
        let len = all.len();
        all.dedup();
        assert_eq!((len, all.len()), (m.files.len(), m.files.len()));
    }
    // A balance session that is not one is refused, naming it.
    let out = p.run(&[
        "profile",
        "--project",
        "--list",
        "--shard",
        "1/2",
        "--balance-from",
        "/nonexistent",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--balance-from /nonexistent"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn shards_of_different_plans_commits_or_toolchains_are_refused() {
    let p = Proj::synthetic(12);
    let one = p.shards(2, "a", &[]);
    let merged = p.path("m");
    // Another threshold is another plan.
    let other = p.shards(2, "b", &["--threshold", "1"]);
    let out = p.merge(&[one[0].clone(), other[1].clone()], &merged);
    assert_eq!(out.status.code(), Some(2));
    let e = text(&out.stderr);
    assert!(e.contains("the shards come from different plans"), "{e}");
    assert!(
        e.contains(&manifest(&one[0]).shard.unwrap().plan_digest),
        "{e}"
    );
    assert!(!merged.exists());
    // The same shard twice.
    let out = p.merge(&[one[0].clone(), one[0].clone()], &merged);
    assert!(
        text(&out.stderr).contains("shard 1/2 is given twice"),
        "{}",
        text(&out.stderr)
    );
    // Another commit.
    std::fs::write(p.root.join("README.md"), "changed\n").unwrap();
    git(&p.root, &["add", "-A"]);
    git(&p.root, &["commit", "-q", "-m", "readme"]);
    let later = p.shards(2, "c", &[]);
    let out = p.merge(&[one[0].clone(), later[1].clone()], &merged);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("the shards come from different commits"),
        "{}",
        text(&out.stderr)
    );
    // Another toolchain (the same commit, lean-toolchain edited).
    std::fs::write(p.root.join("lean-toolchain"), "leanprover/lean4:v4.22.0\n").unwrap();
    let tool = p.shards(2, "d", &[]);
    let out = p.merge(&[later[0].clone(), tool[1].clone()], &merged);
    assert_eq!(out.status.code(), Some(2));
    let e = text(&out.stderr);
    assert!(
        e.contains("the shards were captured with different toolchains"),
        "{e}"
    );
    assert!(e.contains("leanprover/lean4:v4.22.0"), "{e}");
    // An ordinary session is not a shard.
    let plain = p.path("plain");
    p.run(&["profile", "--project", "-o", plain.to_str().unwrap()]);
    let out = p.merge(std::slice::from_ref(&plain), &merged);
    assert!(
        text(&out.stderr).contains("is not a shard"),
        "{}",
        text(&out.stderr)
    );
    assert!(!merged.exists());
    // A bad --shard is a usage error.
    for bad in ["0/2", "3/2", "x"] {
        let out = p.run(&["profile", "--project", "--shard", bad, "--list"]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert!(
            text(&out.stderr).contains("--shard") || text(&out.stderr).contains("K must be"),
            "{}",
            text(&out.stderr)
        );
    }
}

#[test]
fn a_missing_shard_makes_the_merge_partial_and_resume_completes_it() {
    let p = Proj::synthetic(15);
    let shards = p.shards(3, "s", &[]);
    let merged = p.path("merged");
    let out = p.merge(&[shards[0].clone(), shards[2].clone()], &merged);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    let m = manifest(&merged);
    assert_eq!(m.status, SessionStatus::Partial);
    let expected: Vec<String> = manifest(&shards[1])
        .files
        .iter()
        .map(|f| f.path.clone())
        .collect();
    assert_eq!(m.merge.as_ref().unwrap().missing, expected);
    assert!(text(&out.stderr).contains(&format!(
        "{} planned files are in no merged shard",
        expected.len()
    )));
    for f in &m.files {
        assert_eq!(
            f.status == FileStatus::Skipped,
            expected.contains(&f.path),
            "{}",
            f.path
        );
    }
    // `--resume` captures exactly the missing files.
    let out = p.run(&["profile", "--resume", merged.to_str().unwrap()]);
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        text(&out.stderr)
    );
    let m = manifest(&merged);
    assert_eq!(m.status, SessionStatus::Complete);
    assert_eq!(m.counts.completed as usize, m.files.len());
    assert!(m.merge.as_ref().unwrap().missing.is_empty());
    let full = p.path("full");
    p.merge(&shards, &full);
    assert_eq!(rows_without_times(&merged), rows_without_times(&full));
}

fn completed(dir: &Path) -> u64 {
    common::read_session(dir).map_or(0, |m| m.counts.completed)
}

#[test]
fn a_killed_shard_is_resumed_then_merged() {
    let p = Proj::synthetic(18);
    let whole = p.path("whole");
    p.run(&["profile", "--project", "-o", whole.to_str().unwrap()]);
    let mut shards = p.shards(3, "s", &[]);
    // Shard 2 again, killed with SIGKILL after its first file.
    let killed = p.path("killed-2");
    let pidfile = p.path("pids");
    let mut child = p
        .cmd(&[
            "profile",
            "--project",
            "--shard",
            "2/3",
            "-o",
            killed.to_str().unwrap(),
        ])
        .env("LEANSCOPE_FAKE_DELAY_SCALE", "10")
        .env("LEANSCOPE_FAKE_PIDFILE", &pidfile)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while completed(&killed) < 1 {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no file captured"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
    child.wait().unwrap();
    for (_, pid) in common::pids(&pidfile) {
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    let before = manifest(&killed);
    assert_eq!(before.status, SessionStatus::Running);
    assert!(before.counts.completed < before.files.len() as u64);
    // Resume captures the rest of the shard.
    let out = p.run(&["profile", "--resume", killed.to_str().unwrap()]);
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        text(&out.stderr)
    );
    let after = manifest(&killed);
    assert_eq!(after.status, SessionStatus::Complete);
    // The resumed shard keeps its plan: no files of other shards.
    assert_eq!(
        files_of(&after).len(),
        files_of(&manifest(&shards[1])).len()
    );
    shards[1] = killed;
    let merged = p.path("merged");
    let out = p.merge(&shards, &merged);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(files_of(&manifest(&merged)), files_of(&manifest(&whole)));
    assert_eq!(rows_without_times(&merged), rows_without_times(&whole));
}

#[test]
fn shard_auto_reads_the_index_of_kubernetes_and_slurm() {
    let p = Proj::demo();
    let list = |env: &[(&str, &str)], args: &[&str]| -> Value {
        let mut c = p.cmd(&[&["profile", "--project", "--list", "--shard", "auto"], args].concat());
        for (k, v) in env {
            c.env(k, v);
        }
        let out = c.output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        serde_json::from_slice::<Value>(&out.stdout).unwrap()["shard"].clone()
    };
    let k8s = list(&[("JOB_COMPLETION_INDEX", "2")], &["--shards", "3"]);
    assert_eq!(
        (k8s["index"].as_u64(), k8s["count"].as_u64()),
        (Some(3), Some(3))
    );
    let slurm = list(
        &[
            ("SLURM_ARRAY_TASK_ID", "1"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
        ],
        &[],
    );
    assert_eq!(
        (slurm["index"].as_u64(), slurm["count"].as_u64()),
        (Some(1), Some(3))
    );
    // The same plan either way.
    assert_eq!(k8s["planDigest"], slurm["planDigest"]);
    let out = p
        .cmd(&["profile", "--project", "--list", "--shard", "auto"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("neither JOB_COMPLETION_INDEX"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_damaged_index_line_of_a_shard_is_skipped_with_a_warning() {
    let p = Proj::synthetic(9);
    let shards = p.shards(3, "s", &[]);
    let good = p.path("good");
    assert_eq!(p.merge(&shards, &good).status.code(), Some(0));
    let rows = rows_without_times(&good).len();
    // Break the first row of shard 2 (within its committed length), and
    // leave half a line after it (what a killed writer leaves).
    let index = shards[1].join("index.jsonl");
    let mut bytes = std::fs::read(&index).unwrap();
    bytes[0] = b'#';
    bytes.extend_from_slice(b"{\"capture\":1,\"fi");
    std::fs::write(&index, bytes).unwrap();
    let merged = p.path("merged");
    let out = p.merge(&shards, &merged);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("warning: 1 index lines of the shards were not merged"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(rows_without_times(&merged).len(), rows - 1);
    let len = std::fs::metadata(merged.join("index.jsonl")).unwrap().len();
    assert_eq!(len, manifest(&merged).index_bytes);
}
