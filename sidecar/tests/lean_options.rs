//! Lean's newer options in a capture. Lean 4.31's `trace.profiler.serve` serves the profile over
//! HTTP at the end of a run and waits for one request when no `trace.profiler.output` is given:
//! a capture turns it off where the toolchain has it (and names an output, which Lean then
//! writes instead of serving, even when the file itself sets the option), and never passes it
//! to an older Lean, which refuses options it does not know. The fake toolchain acts as both.

mod common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{text, World};
use recording::Recording;

/// A source that sets the option itself (a `set_option` overrides `-D`).
const SERVING: &str = "set_option trace.profiler.serve true\n\
theorem a : True := by -- leanscope-fake: heartbeats 52000\n  trivial -- leanscope-fake: heartbeats 41000\n";

/// `lean` command lines the fake saw.
fn lean_calls(calls: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(calls)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.starts_with("lean ") && !l.starts_with("lean --version"))
        .map(String::from)
        .collect()
}

#[test]
fn a_capture_never_waits_for_the_profile_server() {
    let w = World::new();
    std::fs::write(w.project.join("Demo/Serving.lean"), SERVING).unwrap();
    for (toolchain, measure, serve_known) in [
        ("v4.31.0", "heartbeats", true),
        ("v4.31.0", "time", true),
        ("v4.35.0", "heartbeats", true),
        ("v4.28.0", "heartbeats", false),
    ] {
        let calls = w.path(&format!("calls-{toolchain}-{measure}"));
        let out = w.path(&format!("{toolchain}-{measure}.lsrec"));
        let started = Instant::now();
        let o = w
            .command(&[
                "profile",
                "Demo/Serving.lean",
                "-o",
                out.to_str().unwrap(),
                "--measure",
                measure,
                "--timeout",
                "60",
            ])
            .env("LEANSCOPE_FAKE_TOOLCHAIN", toolchain)
            .env("LEANSCOPE_FAKE_CALLS", &calls)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{toolchain} {measure}: {}",
            text(&o.stderr)
        );
        assert!(started.elapsed() < Duration::from_secs(50));
        let rec = Recording::open(&out).unwrap();
        assert_eq!(rec.header.status, recording::CaptureStatus::Ok);
        let lean = lean_calls(&calls);
        assert_eq!(lean.len(), 1, "{lean:?}");
        assert_eq!(
            lean[0].contains("-Dtrace.profiler.serve=false"),
            serve_known,
            "{toolchain}: {}",
            lean[0]
        );
        if serve_known {
            assert!(lean[0].contains("-Dtrace.profiler.output="), "{}", lean[0]);
        }
    }
}

#[test]
fn the_fake_waits_like_lean_when_the_option_is_on() {
    // what the capture guards against: the fake, as a 4.31 Lean asked to serve with no output,
    // does not end on its own
    let w = World::new();
    std::fs::write(w.project.join("Demo/Serving.lean"), SERVING).unwrap();
    let mut child = Command::new(common::fake_lean())
        .arg0_lean()
        .args(["-Dtrace.profiler=true", "Demo/Serving.lean"])
        .current_dir(&w.project)
        .env("LEANSCOPE_FAKE_FIXTURES", &w.fixtures)
        .env("LEANSCOPE_FAKE_TOOLCHAIN", "v4.31.0")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    let running = child.try_wait().unwrap().is_none();
    child.kill().unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(running, "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("trace.profiler: serving profile at"),
        "{}",
        text(&o.stderr)
    );
    // and an older Lean refuses the option
    let o = Command::new(common::fake_lean())
        .arg0_lean()
        .args(["-Dtrace.profiler.serve=false", "Demo/Serving.lean"])
        .current_dir(&w.project)
        .env("LEANSCOPE_FAKE_FIXTURES", &w.fixtures)
        .env("LEANSCOPE_FAKE_TOOLCHAIN", "v4.28.0")
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(
        text(&o.stderr).contains("unknown configuration option 'trace.profiler.serve'"),
        "{}",
        text(&o.stderr)
    );
}

/// The fake acts as `lean` by the name it is run under.
trait AsLean {
    fn arg0_lean(&mut self) -> &mut Self;
}

impl AsLean for Command {
    fn arg0_lean(&mut self) -> &mut Self {
        std::os::unix::process::CommandExt::arg0(self, "lean")
    }
}
