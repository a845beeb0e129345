//! Sessions linear in their size: the journal that commits each file, its
//! crash guarantees under `kill -9` at random moments, and (ignored, run by
//! hand) the cost per file of a large session capture.
//!
//! The project is N copies of the demo's `Clean.lean`, each in its own
//! folder (`F00042/Demo/Clean.lean`): the fake Lean replays the Clean case
//! for each (it picks the case by the path's suffix) with no delays.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{text, World};
use recording::session::{Manifest, SessionStatus};
use recording::Recording;

/// The session as every reader sees it: `session.json` with its journal
/// replayed.
fn manifest(dir: &Path) -> Manifest {
    common::read_session(dir).unwrap()
}

/// A small deterministic generator (xorshift64*), seeded from the clock
/// unless `LEANSCOPE_TEST_SEED` says; the seed is printed so a failure can
/// be replayed.
struct Rng(u64);

impl Rng {
    fn new() -> Rng {
        let seed = std::env::var("LEANSCOPE_TEST_SEED")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap()
                    .as_nanos() as u64
            });
        eprintln!("LEANSCOPE_TEST_SEED={seed}");
        Rng(seed | 1)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % n
    }
}

/// Kills what the fake toolchain started (each `lake`/`lean` appends
/// `NAME PID` to the pidfile).
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

/// Each committed file of `m`: its capture number and recording.
fn committed_files(m: &Manifest) -> BTreeMap<u32, (u64, String)> {
    m.files
        .iter()
        .filter(|f| f.status.is_committed())
        .map(|f| {
            (
                f.id,
                (f.capture.unwrap(), f.recording.clone().unwrap_or_default()),
            )
        })
        .collect()
}

#[test]
fn kill_9_at_random_moments_never_loses_a_committed_file() {
    let files = env_usize("LEANSCOPE_TEST_JOURNAL_FILES", 1000);
    let kills = env_usize("LEANSCOPE_TEST_JOURNAL_KILLS", 8);
    let mut rng = Rng::new();
    let w = World::new();
    let root = w.many_files(files);
    let dir = w.path("session");
    let pidfile = w.path("pids");
    let start = |args: &[&str]| -> Child {
        let mut c = w.command(args);
        c.current_dir(&root)
            .env("LEANSCOPE_FAKE_PIDFILE", &pidfile)
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        c.spawn().unwrap()
    };
    let dir_arg = dir.to_str().unwrap();
    // Everything a reader ever saw committed, with its capture number.
    let mut seen: BTreeMap<u32, (u64, String)> = BTreeMap::new();
    let mut journal_lines = 0;
    let schema = journal_schema();
    let mut runs = 0;
    for k in 0..kills {
        let created = dir.join("session.json").exists();
        if !created {
            // Killed before the session existed: start it again.
            let _ = std::fs::remove_dir_all(&dir);
        }
        let mut child = if created {
            start(&["profile", "--resume", dir_arg])
        } else {
            start(&["profile", ".", "-o", dir_arg])
        };
        runs += 1;
        // The kills are spread over the capture: the k-th waits until a
        // random number of files in the k-th part of it are committed (or
        // none, for the first), then a random moment more.
        let target = if k == 0 {
            0
        } else {
            (k * files / kills) as u64 + rng.below((files / kills).max(1) as u64)
        };
        let t = Instant::now();
        while child.try_wait().unwrap().is_none()
            && t.elapsed() < Duration::from_secs(300)
            && common::read_session(&dir).map_or(0, |m| m.counts.completed) < target
        {
            std::thread::sleep(Duration::from_millis(10));
        }
        std::thread::sleep(Duration::from_millis(rng.below(300)));
        let exited = child.try_wait().unwrap().is_some();
        unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
        child.wait().unwrap();
        kill_fakes(&pidfile);
        let _ = std::fs::remove_file(&pidfile);
        if !dir.join("session.json").exists() {
            assert!(seen.is_empty(), "the session vanished after kill {k}");
            eprintln!("kill {k}: before the session was created");
            continue;
        }
        journal_lines += check_journal_lines(&dir, &schema);
        let m =
            common::read_session(&dir).unwrap_or_else(|e| panic!("unreadable after kill {k}: {e}"));
        // A kill that lands after the last write (the capture had marked the
        // session complete and was exiting) finds it complete: only a
        // session with every file committed may say so.
        let finished = exited || m.status == SessionStatus::Complete;
        if finished {
            assert_eq!(m.status, SessionStatus::Complete, "after kill {k}");
            assert_eq!(m.counts.completed as usize, files, "after kill {k}");
        } else {
            assert_eq!(m.status, SessionStatus::Running, "after kill {k}");
        }
        let now = committed_files(&m);
        for (id, was) in &seen {
            assert_eq!(
                now.get(id),
                Some(was),
                "file {id} lost or changed after kill {k}"
            );
        }
        for (id, (_, rel)) in &now {
            Recording::open(dir.join(rel))
                .unwrap_or_else(|e| panic!("file {id}'s recording {rel} after kill {k}: {e}"));
        }
        // Readers agree: query lists exactly the committed files.
        let out = w
            .command(&["query", dir_arg, "--kind", "file", "--all", "--json"])
            .output()
            .unwrap();
        let q: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("query after kill {k}: {e}: {}", text(&out.stderr)));
        assert_eq!(
            q["rows"].as_array().unwrap().len(),
            now.len(),
            "after kill {k}"
        );
        eprintln!("kill {k}: {} of {files} files committed", now.len());
        seen = now;
        if finished {
            break;
        }
    }
    // Resume completes it, capturing only what was not committed.
    let out = w
        .command(&["profile", "--resume", dir_arg])
        .current_dir(&root)
        .env("LEANSCOPE_FAKE_PIDFILE", &pidfile)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let m = manifest(&dir);
    assert_eq!(m.status, SessionStatus::Complete);
    assert_eq!(m.counts.completed as usize, files);
    let done = committed_files(&m);
    for (id, was) in &seen {
        assert_eq!(
            done.get(id),
            Some(was),
            "file {id} recaptured or lost by the resume"
        );
    }
    let lean_runs = std::fs::read_to_string(&pidfile)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.starts_with("lean "))
        .count();
    // One `lean --version` for the resume's Lake environment, then a `lean --json` per capture;
    // none at all when the kill came after the last file was committed.
    let missing = files - seen.len();
    assert_eq!(lean_runs, if missing == 0 { 0 } else { 1 + missing });
    // A finished session is session.json alone, and the index holds one
    // file row per file.
    assert!(!dir.join("session.journal").exists());
    assert_eq!(
        std::fs::metadata(dir.join("index.jsonl")).unwrap().len(),
        m.index_bytes
    );
    let out = w
        .command(&["query", dir_arg, "--kind", "file", "--all", "--json"])
        .output()
        .unwrap();
    let q: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut paths: Vec<&str> = q["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["path"].as_str().unwrap())
        .collect();
    paths.sort_unstable();
    paths.dedup();
    assert_eq!(paths.len(), files);
    assert!(
        !text(&out.stderr).contains("warning"),
        "{}",
        text(&out.stderr)
    );
    assert!(
        journal_lines > 0 || runs == 1,
        "no kill ever found a journal"
    );
}

/// The journal-line schema, with the manifest schema it refers to.
fn journal_schema() -> jsonschema::Validator {
    let load = |name: &str| -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(common::repo().join("schemas").join(name)).unwrap())
            .unwrap()
    };
    let registry = jsonschema::Registry::new()
        .add(
            "https://leanscope.dev/schemas/session.schema.json",
            load("session.schema.json"),
        )
        .unwrap()
        .prepare()
        .unwrap();
    jsonschema::options()
        .with_registry(&registry)
        .build(&load("session-journal.schema.json"))
        .unwrap()
}

/// Checks every whole line of the session's journal against its schema
/// (a last line cut short by a kill aside); how many there were.
fn check_journal_lines(dir: &Path, schema: &jsonschema::Validator) -> usize {
    let Ok(journal) = std::fs::read(dir.join("session.journal")) else {
        return 0;
    };
    let mut n = 0;
    for line in journal.split_inclusive(|&b| b == b'\n') {
        let Some(line) = line.strip_suffix(b"\n") else {
            break;
        };
        let json = &line[17..];
        let v: serde_json::Value = serde_json::from_slice(json).unwrap();
        let errors: Vec<_> = schema.iter_errors(&v).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{}: {errors:?}", text(line));
        n += 1;
        // The schema rejects what it should.
        let mut bad = v.clone();
        if bad.get("file").is_some() {
            bad["file"]["status"] = "done".into();
        } else {
            bad["base"] = "x".into();
        }
        assert!(!schema.is_valid(&bad), "{bad}");
    }
    n
}

/// A number from the environment, else `default`.
fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The leanscope binary to measure: `LEANSCOPE_BENCH_BIN` (another build,
/// for a before/after comparison), else this build's.
fn bench_bin() -> PathBuf {
    std::env::var_os("LEANSCOPE_BENCH_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(common::leanscope_bin)
}

/// A process's own CPU time, in user space and in the kernel.
#[derive(Clone, Copy)]
struct Cpu {
    user: Duration,
    system: Duration,
}

impl Cpu {
    fn total(self) -> Duration {
        self.user + self.system
    }
}

/// Waits for `child` to exit without reaping it, so its own CPU time and
/// I/O counters can still be read from `/proc`; then reaps it.
fn wait_measured(child: &mut Child) -> (std::process::ExitStatus, Cpu, u64) {
    let pid = child.id() as libc::pid_t;
    // SAFETY: waitid on our own child with WNOWAIT leaves it a zombie.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    let r = unsafe {
        libc::waitid(
            libc::P_PID,
            pid as libc::id_t,
            &mut info,
            libc::WEXITED | libc::WNOWAIT,
        )
    };
    assert_eq!(r, 0, "waitid: {}", std::io::Error::last_os_error());
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // Fields after the command name: state is field 3, utime 14, stime 15
    // (its own time; its children's is in 16 and 17).
    let rest = stat.rsplit_once(") ").unwrap().1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as u64;
    let time = |field: &str| Duration::from_micros(field.parse::<u64>().unwrap() * 1_000_000 / hz);
    let cpu = Cpu {
        user: time(fields[11]),
        system: time(fields[12]),
    };
    let io = std::fs::read_to_string(format!("/proc/{pid}/io")).unwrap();
    let wchar = io
        .lines()
        .find_map(|l| l.strip_prefix("wchar: "))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let status = child.wait().unwrap();
    (status, cpu, wchar)
}

fn dir_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap().len())
        .sum()
}

/// `leanscope ARGS` (the build measured) in `cwd` with the fast fake Lean,
/// stdout and stderr to files; its exit status, own CPU time, bytes
/// written (`wchar`: the kernel adds a reaped child's to its parent's, so
/// the fake Lean's writes are in it) and its stdout and stderr lengths.
fn measured_run(w: &World, cwd: &Path, args: &[&str]) -> (Cpu, Duration, u64, u64) {
    let out_path = w.path("stdout");
    let err_path = w.path("stderr");
    let started = Instant::now();
    let mut child = Command::new(bench_bin())
        .args(args)
        .current_dir(cwd)
        .env("PATH", format!("{}:/usr/bin:/bin", w.bin.display()))
        .env("HOME", w.dir.path())
        .env("LEANSCOPE_FAKE_FIXTURES", &w.fixtures)
        .env("LEANSCOPE_FAKE_DELAY_SCALE", "0")
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .unwrap();
    let (status, cpu, wchar) = wait_measured(&mut child);
    let wall = started.elapsed();
    let stderr = std::fs::read(&err_path).unwrap();
    assert!(status.success(), "{}", text(&stderr));
    let output = std::fs::metadata(&out_path).unwrap().len() + stderr.len() as u64;
    (cpu, wall, wchar, output)
}

/// leanscope's own CPU per file of a session capture with a fast fake Lean
/// (no delays), and the bytes of manifest and journal it wrote in all: the
/// bytes it wrote less the recordings, the index and its own output (each
/// written once) and the fake Lean's writes (measured by a capture of one
/// of the files alone, the same Lean runs, and counted once a file).
///
/// `LEANSCOPE_BENCH_SESSION_FILES=10000 cargo test -p leanscope --test
/// session_journal bench -- --ignored --nocapture` (default 1,000 files;
/// `LEANSCOPE_BENCH_BIN=PATH` measures another build).
#[test]
#[ignore = "a benchmark: prints figures; run by hand"]
fn bench_session_capture_cost_per_file() {
    let files = env_usize("LEANSCOPE_BENCH_SESSION_FILES", 1000);
    let w = World::new();
    let root = w.many_files(files);
    // One file alone: what the fake Lean writes for a file.
    let one = w.path("one.lsrec");
    let first = format!(
        "F{:0width$}/Demo/Clean.lean",
        0,
        width = files.to_string().len()
    );
    let (_, _, wchar, output) =
        measured_run(&w, &root, &["profile", &first, "-o", one.to_str().unwrap()]);
    let fake_per_file = wchar
        .checked_sub(std::fs::metadata(&one).unwrap().len() + output)
        .expect("a single capture wrote less than its recording and output");
    let dir = w.path("session");
    let (cpu, wall, wchar, output) =
        measured_run(&w, &root, &["profile", ".", "-o", dir.to_str().unwrap()]);
    let m = manifest(&dir);
    assert_eq!(m.status, SessionStatus::Complete);
    assert_eq!(m.counts.completed as usize, files);
    let once = dir_bytes(&dir.join("files"))
        + std::fs::metadata(dir.join("index.jsonl")).unwrap().len()
        + output
        + fake_per_file * files as u64;
    let manifest_bytes = wchar
        .checked_sub(once)
        .expect("the session wrote less than its recordings, index, output and the fake's writes");
    let final_manifest = std::fs::metadata(dir.join("session.json")).unwrap().len();
    println!(
        "session capture, {files} files (fast fake Lean, {}): leanscope's own CPU {:.1} ms per file ({:.2} s in all: {:.2} s user, {:.2} s system), wall {:.1} ms per file; manifest + journal bytes written {} ({:.0} B per file, {:.2}x the final session.json of {} B; the fake Lean's {} B a file subtracted)",
        bench_bin().display(),
        cpu.total().as_secs_f64() * 1e3 / files as f64,
        cpu.total().as_secs_f64(),
        cpu.user.as_secs_f64(),
        cpu.system.as_secs_f64(),
        wall.as_secs_f64() * 1e3 / files as f64,
        manifest_bytes,
        manifest_bytes as f64 / files as f64,
        manifest_bytes as f64 / final_manifest as f64,
        final_manifest,
        fake_per_file,
    );
}
