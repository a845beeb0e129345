//! Peak resident memory of the model of a 3,000,000-event recording
//! (target: ≤ 64 bytes/event), measured with `/usr/bin/time -v`:
//! the bench writes the recording, then runs itself twice under
//! `/usr/bin/time -v`: once only opening nothing (the baseline), once
//! reading the recording into a model with self times.
//!
//! Run: `cargo bench -p recording --bench model_memory`.

use std::path::Path;
use std::process::Command;

use recording::synth::{write_synthetic, SynthParams};
use recording::{AtomicFile, Recording};

const EVENTS: u64 = 3_000_000;
const CHILD: &str = "LEANSCOPE_MEMORY_BENCH_CHILD";

fn main() {
    match std::env::var(CHILD).as_deref() {
        Ok("baseline") => return,
        Ok(path) => {
            let rec = Recording::open(path).expect("read the recording");
            let self_total: u64 = (0..rec.len() as u32).map(|i| rec.self_ns(i)).sum();
            println!("{} events, self total {self_total}", rec.len());
            return;
        }
        Err(_) => {}
    }
    let dir = std::env::temp_dir().join("leanscope-bench");
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("memory-3m.lsrec");
    let (file, out) = AtomicFile::create(&path).expect("create");
    let out = write_synthetic(
        &SynthParams {
            seed: 1,
            events: EVENTS,
            threads: 4,
        },
        out,
    )
    .expect("synth");
    file.publish(out).expect("publish");
    let base = peak_rss_kib("baseline");
    let full = peak_rss_kib(path.to_str().expect("utf-8 path"));
    let bytes = (full.saturating_sub(base)) * 1024;
    println!(
        "memory: peak RSS {full} KiB with the model, {base} KiB baseline: {:.1} bytes/event for {EVENTS} events; target <= 64",
        bytes as f64 / EVENTS as f64
    );
    let _ = std::fs::remove_file(Path::new(&path));
}

fn peak_rss_kib(arg: &str) -> u64 {
    let me = std::env::current_exe().expect("current exe");
    let out = Command::new("/usr/bin/time")
        .arg("-v")
        .arg(me)
        .env(CHILD, arg)
        .output()
        .expect("run /usr/bin/time -v (apt-get install time)");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "child failed: {stderr}");
    stderr
        .lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix("Maximum resident set size (kbytes): ")
        })
        .and_then(|v| v.trim().parse().ok())
        .expect("time -v prints the maximum resident set size")
}
