//! Exporting a 3M-event recording to Chrome trace-event JSON, speedscope
//! JSON and folded stacks: output throughput and peak resident memory of
//! each `leanscope export` (a child process, its high-water mark from
//! `wait4`). Targets for the JSON exports: at least 150 MB/s, at most
//! 256 MB resident. Then the Chrome export is imported back
//! (`leanscope import`, measured the same way) and its intervals compared
//! with the recording's.
//!
//! The recording is `leanscope synth --events N --threads 3` in
//! `target/bench-data/` (deterministic, made once).
//!
//! The throughput is of wall-clock time (the target's); the output per
//! second of the child's CPU time is printed beside it, since a shared
//! machine's load stretches the wall clock.
//!
//! Run: `cargo bench -p leanscope --bench export` (set
//! `LEANSCOPE_BENCH_EVENTS` to try another size: 6000000 makes a Chrome
//! export of about 1 GiB).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use recording::Recording;

const TARGET_MB_PER_S: f64 = 150.0;
const TARGET_PEAK_MB: f64 = 256.0;
const BIN: &str = env!("CARGO_BIN_EXE_leanscope");

/// Runs `leanscope ARGS`; returns (seconds, peak resident MB, CPU seconds).
fn run_cpu(args: &[&str]) -> (f64, f64, f64) {
    let t = Instant::now();
    // Waited for with wait4 below, which gives its resource usage.
    #[allow(clippy::zombie_processes)]
    let child = Command::new(BIN)
        .args(args)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut status = 0;
    // SAFETY: a zeroed rusage is valid; wait4 fills it for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = child.id() as libc::pid_t;
    let got = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(got, pid, "wait4");
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "leanscope {args:?} failed"
    );
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    (
        t.elapsed().as_secs_f64(),
        usage.ru_maxrss as f64 / 1024.0,
        secs(usage.ru_utime) + secs(usage.ru_stime),
    )
}

/// Runs `leanscope ARGS`; returns (seconds, peak resident MB).
fn run(args: &[&str]) -> (f64, f64) {
    let (secs, peak, _) = run_cpu(args);
    (secs, peak)
}

fn intervals(rec: &Recording) -> Vec<(u16, u64, u64, u32)> {
    // (thread, start, duration, label length): names are compared by the
    // round-trip tests; here the size is what matters.
    let mut v: Vec<_> = (0..rec.len() as u32)
        .map(|i| {
            (
                rec.thread(i),
                rec.start(i),
                rec.inclusive_ns(i),
                rec.label(i).len() as u32,
            )
        })
        .collect();
    v.sort_unstable();
    v
}

fn main() {
    let events: u64 = std::env::var("LEANSCOPE_BENCH_EVENTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3_000_000);
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/bench-data");
    std::fs::create_dir_all(&dir).unwrap();
    let rec_path = dir.join(format!("export-{events}.lsrec"));
    if !rec_path.exists() {
        let n = events.to_string();
        run(&[
            "synth",
            "--events",
            &n,
            "--threads",
            "3",
            "--out",
            rec_path.to_str().unwrap(),
        ]);
    }
    let p = |name: &str| -> PathBuf { dir.join(format!("export-{events}.{name}")) };
    let s = |p: &Path| p.to_str().unwrap().to_owned();
    let mut ok = true;
    println!("export of {events} events ({})", rec_path.display());
    for (format, ext, targeted) in [
        ("chrome", "trace.json", true),
        ("speedscope", "speedscope.json", true),
        ("folded", "folded", false),
    ] {
        let out = p(ext);
        let (secs, peak, cpu) = run_cpu(&[
            "export",
            &s(&rec_path),
            "--format",
            format,
            "--out",
            &s(&out),
        ]);
        let mb = std::fs::metadata(&out).unwrap().len() as f64 / 1e6;
        let rate = mb / secs;
        let meets = !targeted || (rate >= TARGET_MB_PER_S && peak <= TARGET_PEAK_MB);
        ok &= meets;
        println!(
            "  {format:<10} {mb:>9.1} MB in {secs:>6.2} s: {rate:>6.0} MB/s ({:.0} MB per CPU second), max RSS {peak:>6.1} MB{}",
            mb / cpu,
            if !targeted {
                ""
            } else if meets {
                " (meets the targets)"
            } else {
                " (MISSES the targets)"
            }
        );
    }
    let back = p("back.lsrec");
    let trace = p("trace.json");
    let (secs, peak) = run(&["import", &s(&trace), "--out", &s(&back)]);
    let mb = std::fs::metadata(&trace).unwrap().len() as f64 / 1e6;
    println!(
        "  import of the Chrome export: {:.0} MB/s, max RSS {peak:.1} MB",
        mb / secs
    );
    let (a, b) = (
        Recording::open(&rec_path).unwrap(),
        Recording::open(&back).unwrap(),
    );
    let same = a.len() == b.len() && intervals(&a) == intervals(&b);
    println!(
        "  round trip: {} events back, {}",
        b.len(),
        if same {
            "the same intervals"
        } else {
            "DIFFERENT intervals"
        }
    );
    ok &= same;
    for f in ["trace.json", "speedscope.json", "folded", "back.lsrec"] {
        let _ = std::fs::remove_file(p(f));
    }
    if !ok {
        std::process::exit(1);
    }
}
