//! Sessions linear in their size: the journal that commits each file, its
//! crash guarantees under `kill -9` at random moments, and (ignored, run by
//! hand) the cost per file of a large session capture.
//!
//! The project is N copies of the demo's `Clean.lean`, each in its own
//! folder (`F00042/Demo/Clean.lean`): the fake Lean replays the Clean case
//! for each (it picks the case by the path's suffix) with no delays.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{text, World};
use recording::session::{Manifest, SessionStatus};

/// A project of `files` copies of `Demo/Clean.lean`.
fn many_files(w: &World, files: usize) -> PathBuf {
    let root = w.path("many");
    std::fs::create_dir_all(&root).unwrap();
    for f in ["lean-toolchain", "lakefile.toml"] {
        std::fs::copy(w.project.join(f), root.join(f)).unwrap();
    }
    let clean = std::fs::read(w.project.join("Demo/Clean.lean")).unwrap();
    let width = files.to_string().len();
    for i in 0..files {
        let d = root.join(format!("F{i:0width$}/Demo"));
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("Clean.lean"), &clean).unwrap();
    }
    root
}

/// The session as every reader sees it: `session.json` with its journal
/// replayed.
fn manifest(dir: &Path) -> Manifest {
    read_session(dir).unwrap()
}

fn read_session(dir: &Path) -> Result<Manifest, String> {
    let base = std::fs::read(dir.join("session.json")).map_err(|e| e.to_string())?;
    let journal = match std::fs::read(dir.join("session.journal")) {
        Ok(b) => Some(b),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(e.to_string()),
    };
    recording::session::load_manifest(&base, journal.as_deref())
        .map(|l| l.manifest)
        .map_err(|e| e.to_string())
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

/// Waits for `child` to exit without reaping it, so its own CPU time and
/// I/O counters can still be read from `/proc`; then reaps it.
fn wait_measured(child: &mut Child) -> (std::process::ExitStatus, Duration, u64) {
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
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as u64;
    let cpu = Duration::from_micros(ticks * 1_000_000 / hz);
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

/// leanscope's own CPU per file of a session capture with a fast fake Lean
/// (no delays), and the bytes of manifest and journal it wrote in all: the
/// bytes it wrote (`wchar` of `/proc/PID/io`) less the recordings, the
/// index and its own output, each written once.
///
/// `LEANSCOPE_BENCH_SESSION_FILES=10000 cargo test -p leanscope --test
/// session_journal -- --ignored --nocapture` (default 1,000 files).
#[test]
#[ignore = "a benchmark: prints figures; run by hand"]
fn bench_session_capture_cost_per_file() {
    let files = env_usize("LEANSCOPE_BENCH_SESSION_FILES", 1000);
    let w = World::new();
    let root = many_files(&w, files);
    let dir = w.path("session");
    let out_path = w.path("stdout");
    let err_path = w.path("stderr");
    let started = Instant::now();
    let mut child = Command::new(bench_bin())
        .args(["profile", ".", "-o", dir.to_str().unwrap()])
        .current_dir(&root)
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
    let m = manifest(&dir);
    assert_eq!(m.status, SessionStatus::Complete);
    assert_eq!(m.counts.completed as usize, files);
    let once = dir_bytes(&dir.join("files"))
        + std::fs::metadata(dir.join("index.jsonl")).unwrap().len()
        + std::fs::metadata(&out_path).unwrap().len()
        + stderr.len() as u64;
    let manifest_bytes = wchar.saturating_sub(once);
    let final_manifest = std::fs::metadata(dir.join("session.json")).unwrap().len();
    println!(
        "session capture, {files} files (fast fake Lean, {}): leanscope's own CPU {:.1} ms per file ({:.2} s in all), wall {:.1} ms per file; manifest + journal bytes written {} ({:.0} B per file, {:.1}x the final session.json of {} B)",
        bench_bin().display(),
        cpu.as_secs_f64() * 1e3 / files as f64,
        cpu.as_secs_f64(),
        wall.as_secs_f64() * 1e3 / files as f64,
        manifest_bytes,
        manifest_bytes as f64 / files as f64,
        manifest_bytes as f64 / final_manifest as f64,
        final_manifest,
    );
}
