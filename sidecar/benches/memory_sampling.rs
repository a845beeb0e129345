//! What sampling Lean's memory costs leanscope: the CPU time the sampler spends during a
//! capture (`samplingCpuMs`: its thread's CPU clock around each sample), as a share of the
//! capture's wall time (`leanWallMs`), at the default interval (20 ms) and at 5 ms.
//!
//! Run: `cargo bench -p leanscope --bench memory_sampling`. It runs the real binary with the
//! fake `lake`/`lean` on a file whose commands spend 4 s of CPU and hold 200 MiB, so the
//! sampled tree is a real, busy process with real resident memory.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Captures per interval.
const RUNS: usize = 5;
/// Target: sampling at the default interval costs at most this share of one core.
const TARGET_SHARE: f64 = 0.01;

const SOURCE: &str = "\
theorem a : True := by trivial -- leanscope-fake: cost 1000ms
theorem b : True := by -- leanscope-fake: alloc 200MB
  trivial -- leanscope-fake: cost 2000ms
theorem c : True := by trivial -- leanscope-fake: cost 1000ms
";

fn main() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf();
    let status = Command::new(env!("CARGO"))
        .args([
            "build",
            "--release",
            "-p",
            "fake-toolchain",
            "--bin",
            "fake-lean",
        ])
        .current_dir(&repo)
        .status()
        .expect("cargo build fake-lean");
    assert!(status.success());
    let fake = repo.join("target/release/fake-lean");
    let dir = std::env::temp_dir().join(format!("leanscope-sampling-bench-{}", std::process::id()));
    let project = dir.join("demo");
    copy_dir(&repo.join("fixtures/projects/demo"), &project);
    std::fs::write(project.join("Demo/Sampled.lean"), SOURCE).unwrap();
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    for name in ["lake", "lean"] {
        std::os::unix::fs::symlink(&fake, bin.join(name)).unwrap();
    }
    for interval in ["20", "5"] {
        let mut shares = Vec::new();
        let mut per_sample_us = Vec::new();
        for run in 0..RUNS {
            let out_path = dir.join(format!("sampled-{interval}-{run}.lsrec"));
            let out = Command::new(env!("CARGO_BIN_EXE_leanscope"))
                .args([
                    "profile",
                    "Demo/Sampled.lean",
                    "--json",
                    "--memory-interval",
                    interval,
                    "-o",
                ])
                .arg(&out_path)
                .current_dir(&project)
                .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
                .env("LEANSCOPE_FAKE_FIXTURES", repo.join("fixtures/lean-output"))
                .output()
                .expect("run leanscope");
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
            let sampling = v["samplingCpuMs"].as_f64().expect("samplingCpuMs");
            let wall = v["leanWallMs"].as_f64().expect("leanWallMs");
            let samples = recording::Recording::open(&out_path)
                .expect("the recording")
                .header
                .memory
                .map_or(0, |m| m.samples.len());
            shares.push(sampling / wall);
            per_sample_us.push(sampling * 1e3 / samples.max(1) as f64);
        }
        shares.sort_by(|a, b| a.total_cmp(b));
        per_sample_us.sort_by(|a, b| a.total_cmp(b));
        let median = shares[RUNS / 2];
        println!(
            "memory sampling every {interval} ms: leanscope CPU {:.3} % of the capture's wall time (median of {RUNS}; min {:.3} %, max {:.3} %), {:.0} µs per sample{}",
            median * 100.0,
            shares[0] * 100.0,
            shares[RUNS - 1] * 100.0,
            per_sample_us[RUNS / 2],
            if interval == "20" {
                format!(
                    "; target <= {:.0} % ({})",
                    TARGET_SHARE * 100.0,
                    if median <= TARGET_SHARE { "met" } else { "NOT met" }
                )
            } else {
                String::new()
            }
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn copy_dir(from: &Path, to: &PathBuf) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}
