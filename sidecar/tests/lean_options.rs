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

/// `profile --lean-arg ARG` on a toolchain with Lean 4.32's incremental snapshots.
fn capture_with(w: &World, name: &str, args: &[&str]) -> (std::path::PathBuf, String) {
    let out = w.path(name);
    let calls = w.path(&format!("{name}.calls"));
    let mut cmd_args = vec!["profile", "Demo/Clean.lean", "-o", out.to_str().unwrap()];
    for a in args {
        cmd_args.push("--lean-arg");
        cmd_args.push(a);
    }
    let o = w
        .command(&cmd_args)
        .env("LEANSCOPE_FAKE_TOOLCHAIN", "v4.35.0")
        .env("LEANSCOPE_FAKE_CALLS", &calls)
        .output()
        .unwrap();
    assert!(o.status.success(), "{args:?}: {}", text(&o.stderr));
    let lean = lean_calls(&calls);
    assert_eq!(lean.len(), 1, "{lean:?}");
    (out, lean[0].clone())
}

#[test]
fn incremental_snapshot_flags_are_recorded_and_runs_that_differ_in_them_do_not_compare() {
    let w = World::new();
    let snap = w.path("clean.snap");
    let save = format!("--incr-save={}", snap.display());
    let load = format!("--incr-load={}", snap.display());
    let (saved, line) = capture_with(&w, "saved.lsrec", &[&save]);
    // passed to lean as given, before the file, and kept in the recording
    assert!(line.contains(&format!("{save} Demo/Clean.lean")), "{line}");
    let rec = Recording::open(&saved).unwrap();
    assert_eq!(rec.header.lean_args, vec![save.clone()]);
    assert_eq!(rec.header.incremental_flags(), vec!["--incr-save"]);
    let info: serde_json::Value =
        serde_json::from_slice(&w.run(&["info", "--json", saved.to_str().unwrap()]).stdout)
            .unwrap();
    assert!(info.to_string().contains("--incr-save="), "{info}");

    let (plain, _) = capture_with(&w, "plain.lsrec", &[]);
    assert!(Recording::open(&plain).unwrap().header.lean_args.is_empty());
    let (loaded, _) = capture_with(&w, "loaded.lsrec", &[&load]);
    for (a, b, said) in [
        (&plain, &saved, "baseline: none; candidate: --incr-save"),
        (
            &saved,
            &loaded,
            "baseline: --incr-save; candidate: --incr-load",
        ),
    ] {
        let o = w.run(&["compare", a.to_str().unwrap(), b.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{}", text(&o.stdout));
        let e = text(&o.stderr);
        assert!(
            e.contains("different Lean incremental-snapshot flags") && e.contains(said),
            "{e}"
        );
    }
    // the same flags (another snapshot file) compare as usual
    let other = format!("--incr-save={}", w.path("other.snap").display());
    let (saved_again, _) = capture_with(&w, "saved-again.lsrec", &[&other]);
    let o = w.run(&[
        "compare",
        saved.to_str().unwrap(),
        saved_again.to_str().unwrap(),
    ]);
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "{}",
        text(&o.stderr)
    );

    // an older Lean refuses the flags, and the capture says so
    let o = w
        .command(&[
            "profile",
            "Demo/Clean.lean",
            "-o",
            w.path("old.lsrec").to_str().unwrap(),
            "--lean-arg",
            &save,
        ])
        .env("LEANSCOPE_FAKE_TOOLCHAIN", "v4.31.0")
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(
        text(&o.stderr).contains("unrecognized option '--incr-save="),
        "{}",
        text(&o.stderr)
    );
}
