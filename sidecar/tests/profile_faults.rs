//! Cancellation, timeouts and broken Lean output: Lean's whole process
//! group is stopped, the error is named, and nothing is left half-written.

mod common;

use std::process::Stdio;
use std::time::{Duration, Instant};

use common::{all_gone, copy_dir, is_running, pids, text, World};

/// How long Lean may take to go after the group was signalled (the
/// sidecar's SIGTERM-to-SIGKILL grace).
const KILL_GRACE: Duration = Duration::from_secs(2);

/// Starts a capture of `Demo/Clean.lean` into `out_path` whose fake Lean
/// is slowed by `delay_scale`, and returns once that `lean --json` runs
/// (the second lean: the first is `--version`).
fn start_slow_capture(
    w: &World,
    out_path: &std::path::Path,
    delay_scale: &str,
) -> std::process::Child {
    let pidfile = w.path("pids");
    let child = w
        .command(&[
            "profile",
            "Demo/Clean.lean",
            "-o",
            out_path.to_str().unwrap(),
        ])
        .env("LEANSCOPE_FAKE_DELAY_SCALE", delay_scale)
        .env("LEANSCOPE_FAKE_PIDFILE", &pidfile)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while pids(&pidfile).iter().filter(|(n, _)| n == "lean").count() < 2 {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "fake lean never started"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    child
}

/// Starts a slow capture, waits until the fake `lean` runs, sends `signal`.
fn interrupt(signal: i32) -> (std::process::Output, Vec<(String, i32)>, World) {
    let w = World::new();
    let out_path = w.path("slow.lsrec");
    let started = Instant::now();
    let child = start_slow_capture(&w, &out_path, "100");
    std::thread::sleep(Duration::from_millis(200));
    // SAFETY: sends a signal to the child we spawned.
    unsafe { libc::kill(child.id() as i32, signal) };
    let out = child.wait_with_output().unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "cancelling took too long"
    );
    // Cancelled, the capture keeps what Lean reported as a partial recording (published whole).
    let rec = recording::Recording::open(&out_path).expect("the partial recording");
    assert_eq!(rec.header.status, recording::CaptureStatus::Stopped);
    assert_eq!(
        rec.header.stop.as_ref().map(|s| s.reason),
        Some(recording::StopReason::Cancelled)
    );
    let leftovers: Vec<_> = std::fs::read_dir(w.dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(
        !leftovers
            .iter()
            .any(|n| n.to_string_lossy().contains(".tmp")),
        "{leftovers:?}"
    );
    assert_eq!(
        std::fs::read_dir(w.project.join(".leanscope/tmp"))
            .unwrap()
            .count(),
        0
    );
    (out, pids(&w.path("pids")), w)
}

#[test]
fn ctrl_c_stops_lake_and_lean_and_keeps_a_partial_recording() {
    let (out, pids, _w) = interrupt(libc::SIGINT);
    assert_eq!(out.status.code(), Some(130), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("cancelled; Lean was stopped; the recording is partial"),
        "{}",
        text(&out.stderr)
    );
    assert!(all_gone(&pids, KILL_GRACE), "still running: {pids:?}");
    for (name, pid) in &pids {
        assert!(!is_running(*pid), "{name} {pid} still runs");
    }
}

#[test]
fn sigterm_exits_143() {
    let (out, pids, _w) = interrupt(libc::SIGTERM);
    assert_eq!(out.status.code(), Some(143), "{}", text(&out.stderr));
    assert!(all_gone(&pids, KILL_GRACE), "still running: {pids:?}");
}

#[test]
fn timeout_stops_lean_and_names_the_limit() {
    let w = World::new();
    let out_path = w.path("t.lsrec");
    let out = w
        .command(&[
            "profile",
            "Demo/Clean.lean",
            "--timeout",
            "1",
            "-o",
            out_path.to_str().unwrap(),
        ])
        .env("LEANSCOPE_FAKE_DELAY_SCALE", "100")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(
        text(&out.stderr).contains("Lean did not finish within 1 s and was stopped"),
        "{}",
        text(&out.stderr)
    );
    // What Lean reported until then is kept, as a partial recording.
    let rec = recording::Recording::open(&out_path).unwrap();
    assert_eq!(rec.header.status, recording::CaptureStatus::Stopped);
    assert_eq!(
        rec.header.stop.as_ref().map(|s| s.reason),
        Some(recording::StopReason::Timeout)
    );
}

/// One well-formed message of Lean's `--json` output for `Demo/Bad.lean`.
const GOOD_MESSAGE: &[u8] = br#"{"caption":"","data":"elaboration took 1ms\n","endPos":null,"fileName":"Demo/Bad.lean","isSilent":false,"keepFullRange":false,"kind":"[anonymous]","pos":{"column":0,"line":1},"severity":"information"}"#;

/// A world whose fake Lean replays one extra, hand-made case for
/// `Demo/Bad.lean`.
fn bad_case(stdout: &[u8], stderr: &str, exit_code: i32) -> World {
    let mut w = World::new();
    let fixtures = w.path("lean-output");
    copy_dir(&w.fixtures, &fixtures);
    let case = fixtures.join("bad");
    std::fs::create_dir_all(&case).unwrap();
    std::fs::write(
        case.join("case.json"),
        r#"{"source":"Demo/Bad.lean","toolchain":"v4.31.0","lean_version":"4.31.0","module":"Demo.Bad",
            "invocation":{},"stderr_lines_before_stdout":0,"delays":[],"description":"test"}"#,
    )
    .unwrap();
    std::fs::write(case.join("stdout"), stdout).unwrap();
    std::fs::write(case.join("stdout.traces"), stdout).unwrap();
    std::fs::write(case.join("stderr"), stderr).unwrap();
    std::fs::write(case.join("exit-code"), exit_code.to_string()).unwrap();
    std::fs::write(
        w.project.join("Demo/Bad.lean"),
        "theorem t : True := trivial\n",
    )
    .unwrap();
    w.fixtures = fixtures;
    w
}

fn expect_failure(w: &World, want: &str) {
    let out_path = w.path("bad.lsrec");
    let out = w.run(&["profile", "Demo/Bad.lean", "-o", out_path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(err.contains(want), "{err}");
    assert!(!err.contains("panicked"));
    assert!(!out_path.exists());
}

#[test]
fn malformed_json_from_lean_is_named_with_its_line() {
    let mut out = GOOD_MESSAGE.to_vec();
    out.extend_from_slice(b"\n{not json\n");
    let w = bad_case(&out, "", 0);
    expect_failure(
        &w,
        "cannot understand Lean's --json output, line 2: not a Lean JSON message",
    );
}

#[test]
fn invalid_utf8_from_lean_is_named() {
    // A `lean` that prints one good message, then bytes that are not UTF-8.
    let w = bad_case(b"", "", 0);
    let lean = w.bin.join("lean");
    std::fs::remove_file(&lean).unwrap();
    let real = w.path("real");
    std::fs::create_dir_all(&real).unwrap();
    std::os::unix::fs::symlink(common::fake_lean(), real.join("lean")).unwrap();
    let script = format!(
        "#!/bin/sh\ncase \"$1\" in --version) exec {} --version;; esac\nprintf '%s\\n' '{}'\nprintf '\\377\\376\\n'\n",
        real.join("lean").display(),
        r#"{"caption":"","data":"elaboration took 1ms\n","endPos":null,"fileName":"Demo/Bad.lean","isSilent":false,"keepFullRange":false,"kind":"[anonymous]","pos":{"column":0,"line":1},"severity":"information"}"#
    );
    std::fs::write(&lean, script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&lean, std::fs::Permissions::from_mode(0o755)).unwrap();
    expect_failure(
        &w,
        "cannot understand Lean's --json output, line 2: Lean output is not valid UTF-8",
    );
}

#[test]
fn lean_crashing_is_reported_with_its_stderr() {
    let w = bad_case(
        b"",
        "INTERNAL PANIC: unreachable code has been reached\n",
        134,
    );
    expect_failure(&w, "Lean exited with code 134; it wrote no usable output. Its last words on stderr:\nINTERNAL PANIC: unreachable code");
}

#[test]
fn an_unwritable_output_leaves_nothing() {
    let w = World::new();
    let out_path = w.path("no/such/dir/x.lsrec");
    let out = w.run(&[
        "profile",
        "Demo/Clean.lean",
        "-o",
        out_path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(3));
    assert!(
        text(&out.stderr).contains("cannot write the recording"),
        "{}",
        text(&out.stderr)
    );
    assert!(!w.path("no").exists());
}

/// A disk that fills up while the recording is written. Lean has already
/// written its output when leanscope's file-size limit is lowered to a few
/// hundred bytes, so leanscope's own write of the recording fails (EFBIG,
/// as ENOSPC would): the error names the recording, nothing is left at the
/// final path or in the temporary directory, and leanscope does not die of
/// SIGXFSZ.
#[test]
fn a_write_failing_mid_recording_leaves_nothing() {
    let w = World::new();
    let out_path = w.path("full.lsrec");
    let child = start_slow_capture(&w, &out_path, "5");
    let limit = libc::rlimit {
        rlim_cur: 512,
        rlim_max: libc::RLIM_INFINITY,
    };
    // SAFETY: lowers the file-size limit of the child we spawned (the same
    // user may); the fake Lean already runs with its own limits.
    let rc = unsafe {
        libc::prlimit(
            child.id() as libc::pid_t,
            libc::RLIMIT_FSIZE,
            &limit,
            std::ptr::null_mut(),
        )
    };
    assert_eq!(rc, 0, "prlimit: {}", std::io::Error::last_os_error());
    let out = child.wait_with_output().unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("cannot write the recording"), "{err}");
    assert!(err.contains("File too large"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(!out_path.exists(), "a recording was left at the final path");
    let leftovers: Vec<_> = std::fs::read_dir(w.dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.to_string_lossy().contains(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn a_truncated_log_is_named_with_its_line() {
    // Lean's output cut off in the middle of its second message
    let mut out = GOOD_MESSAGE.to_vec();
    out.extend_from_slice(b"\n{\"caption\":\"\",\"data\":\"elabo");
    let w = bad_case(&out, "", 0);
    expect_failure(&w, "cannot understand Lean's --json output, line 2");
}

#[test]
fn a_profile_whose_names_carry_no_known_shape_is_refused() {
    // A well-formed Firefox profile, but no node is Lean's (`runFrontend`, `Elab.command: …`):
    // recording it would place nothing, so the capture names its first node instead.
    let w = bad_case(b"", "", 0);
    let profile = std::fs::read_to_string(w.fixtures.join("clean/profile.json")).unwrap();
    let mut json: serde_json::Value = serde_json::from_str(&profile).unwrap();
    for thread in json["threads"].as_array_mut().unwrap() {
        for (i, name) in thread["stringArray"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .enumerate()
        {
            *name = serde_json::Value::String(format!("mystery.node {i}"));
        }
    }
    std::fs::write(w.fixtures.join("bad/profile.json"), json.to_string()).unwrap();
    expect_failure(
        &w,
        "no node has a known shape (`runFrontend`, `Elab.command: …`, `Elab.async: …`, `Import: …`); its first node is \"mystery.node 0\"",
    );
}
