//! Runs the `fake-lean` binary the way the sidecar will: as `lake` and `lean` from a temporary
//! `bin` directory, replaying fixtures/lean-output.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn fixtures() -> PathBuf {
    repo().join("fixtures/lean-output")
}

fn project() -> PathBuf {
    repo().join("fixtures/projects/demo")
}

/// A fresh temporary directory with `bin/lake` and `bin/lean` linked to the fake.
struct Sandbox {
    root: PathBuf,
}

impl Sandbox {
    fn new(name: &str) -> Sandbox {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let root = std::env::temp_dir().join(format!(
            "fake-lean-{name}-{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("bin")).expect("temp dir");
        let exe = PathBuf::from(env!("CARGO_BIN_EXE_fake-lean"));
        for name in ["lake", "lean"] {
            std::os::unix::fs::symlink(&exe, root.join("bin").join(name)).expect("symlink");
        }
        Sandbox { root }
    }

    fn bin(&self, tool: &str) -> PathBuf {
        self.root.join("bin").join(tool)
    }

    /// `lake env lean ARGS…` run in the demo project.
    fn lake_env_lean(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(self.bin("lake"));
        cmd.current_dir(project())
            .arg("env")
            .arg("lean")
            .args(args)
            .env("LEANSCOPE_FAKE_FIXTURES", fixtures())
            .env("LEANSCOPE_FAKE_TOOLCHAIN", "v4.28.0")
            .env_remove("LEANSCOPE_FAKE_DELAY_SCALE")
            .env_remove("LEANSCOPE_FAKE_PIDFILE");
        cmd
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

fn read(path: impl AsRef<Path>) -> String {
    std::fs::read_to_string(path.as_ref())
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.as_ref().display()))
}

fn run(mut cmd: Command) -> Output {
    cmd.output().expect("fake runs")
}

const PROFILER_ARGS: [&str; 6] = [
    "--json",
    "-Dtrace.profiler=true",
    "-Dtrace.profiler.threshold=1",
    "-Dprofiler=true",
    "-Dprofiler.threshold=1",
    "-Dtrace.profiler.output.pp=true",
];

fn profile_arg(path: &Path) -> String {
    format!("-Dtrace.profiler.output={}", path.display())
}

#[test]
fn versions() {
    let sb = Sandbox::new("versions");
    let out = run({
        let mut c = Command::new(sb.bin("lean"));
        c.arg("--version")
            .env("LEANSCOPE_FAKE_FIXTURES", fixtures())
            .env_remove("LEANSCOPE_FAKE_TOOLCHAIN");
        c
    });
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "Lean (version 4.31.0, x86_64-unknown-linux-gnu, commit 6f0e5c1b7a9d24e83c51a0b9d7e2f46a8c3b1d05, Release)\n"
    );
    let old = run({
        let mut c = Command::new(sb.bin("lean"));
        c.arg("--version")
            .env("LEANSCOPE_FAKE_FIXTURES", fixtures())
            .env("LEANSCOPE_FAKE_TOOLCHAIN", "v4.7.0");
        c
    });
    assert!(String::from_utf8_lossy(&old.stdout).starts_with("Lean (version 4.7.0, "));
    let lake = run({
        let mut c = Command::new(sb.bin("lake"));
        c.arg("--version")
            .env("LEANSCOPE_FAKE_FIXTURES", fixtures())
            .env_remove("LEANSCOPE_FAKE_TOOLCHAIN");
        c
    });
    assert_eq!(
        String::from_utf8_lossy(&lake.stdout),
        "Lake version 5.0.0-src+6f0e5c1 (Lean version 4.31.0)\n"
    );
    let lean_via_lake = run({
        let mut c = sb.lake_env_lean(&["--version"]);
        c.env_remove("LEANSCOPE_FAKE_TOOLCHAIN");
        c
    });
    assert!(String::from_utf8_lossy(&lean_via_lake.stdout).starts_with("Lean (version 4.31.0"));
}

#[test]
fn replays_clean_case_with_profile() {
    let sb = Sandbox::new("clean");
    let profile = sb.root.join("profile.json");
    let mut cmd = sb.lake_env_lean(&PROFILER_ARGS);
    cmd.arg(profile_arg(&profile)).arg("Demo/Clean.lean");
    let out = run(cmd);
    assert_eq!(out.status.code(), Some(0));
    let case = fixtures().join("clean");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        read(case.join("stdout"))
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        read(case.join("stderr"))
    );
    assert_eq!(read(&profile), read(case.join("profile.json")));
}

#[test]
fn without_profile_output_stdout_carries_traces() {
    let sb = Sandbox::new("traces");
    let mut cmd = sb.lake_env_lean(&PROFILER_ARGS);
    cmd.arg("./Demo/Clean.lean");
    let out = run(cmd);
    assert_eq!(out.status.code(), Some(0));
    // Lean reports the file name as given on the command line
    let expected = read(fixtures().join("clean/stdout.traces")).replace(
        "\"fileName\":\"Demo/Clean.lean\"",
        "\"fileName\":\"./Demo/Clean.lean\"",
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), expected);
    assert!(expected.contains("\"kind\":\"trace\""));
}

#[test]
fn file_name_follows_the_argument() {
    let sb = Sandbox::new("filename");
    let absolute = project().join("Demo/Unicode.lean");
    let mut cmd = sb.lake_env_lean(&PROFILER_ARGS);
    cmd.arg(&absolute);
    let out = run(cmd);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let expected = read(fixtures().join("unicode/stdout.traces")).replace(
        "\"fileName\":\"Demo/Unicode.lean\"",
        &format!("\"fileName\":\"{}\"", absolute.display()),
    );
    assert_eq!(stdout, expected);
    assert!(!stdout.contains("\"fileName\":\"Demo/Unicode.lean\""));
}

#[test]
fn broken_case_exits_1_and_writes_no_profile() {
    let sb = Sandbox::new("broken");
    let profile = sb.root.join("profile.json");
    let mut cmd = sb.lake_env_lean(&PROFILER_ARGS);
    cmd.arg(profile_arg(&profile)).arg("Demo/Broken.lean");
    let out = run(cmd);
    assert_eq!(out.status.code(), Some(1));
    assert!(!profile.exists());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("\"severity\":\"error\""));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cumulative profiling times:"));
}

#[test]
fn plain_text_without_json() {
    let sb = Sandbox::new("plain");
    let mut cmd = sb.lake_env_lean(&["-Dprofiler=true", "Demo/Broken.lean"]);
    cmd.arg("-Dtrace.profiler.output=/nonexistent-dir/x.json");
    let out = run(cmd);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains(
        "Demo/Broken.lean:9:8: error(lean.unknownIdentifier): Unknown identifier `Nat.zero_add_typo`\n"
    ));
    assert!(stdout.starts_with("elaboration took 1.13ms\n"));
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn unknown_file_fails_like_lean() {
    let sb = Sandbox::new("unknown");
    let out = run(sb.lake_env_lean(&["--json", "Demo/Missing.lean"]));
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "uncaught exception: no such file or directory (error code: 2)\n  file: Demo/Missing.lean\n"
    );
    assert!(out.stdout.is_empty());
    // an existing file without a recording is a clear fake error, also exit 1
    let out = run(sb.lake_env_lean(&["--json", "lakefile.toml"]));
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no recorded Lean output for lakefile.toml")
    );
}

#[test]
fn old_toolchain_variant() {
    let sb = Sandbox::new("old");
    let profile = sb.root.join("p.json");
    let mut cmd = sb.lake_env_lean(&PROFILER_ARGS);
    cmd.env("LEANSCOPE_FAKE_TOOLCHAIN", "v4.7.0");
    cmd.arg(profile_arg(&profile)).arg("Demo/Clean.lean");
    let out = run(cmd);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("unknown configuration option 'trace.profiler.output'"));
    assert!(!profile.exists());

    let mut cmd = sb.lake_env_lean(&PROFILER_ARGS[..5]);
    cmd.env("LEANSCOPE_FAKE_TOOLCHAIN", "v4.7.0")
        .arg("Demo/Clean.lean");
    let out = run(cmd);
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout, read(fixtures().join("clean-v4.7.0/stdout.traces")));
    assert!(stdout.starts_with("{\"severity\":\"information\",\"pos\":{\"line\":5,\"column\":0}"));
    assert!(stdout.contains("[Elab.command] [0.005061s] def double"));
}

#[test]
fn lake_env_sets_lean_variables() {
    let sb = Sandbox::new("env");
    let out = run({
        let mut c = Command::new(sb.bin("lake"));
        c.arg("env").current_dir(project());
        c
    });
    let text = String::from_utf8_lossy(&out.stdout);
    let bin = sb.root.join("bin");
    assert!(text.contains(&format!("LAKE={}\n", bin.join("lake").display())));
    assert!(text.contains(&format!("LEAN_SYSROOT={}\n", sb.root.display())));
    assert!(text
        .lines()
        .any(|l| l.starts_with("LEAN_PATH=") && l.contains(".lake/build/lib/lean")));
    assert!(text.contains(&format!("PATH={}:", bin.display())));
    let unsupported = run({
        let mut c = Command::new(sb.bin("lake"));
        c.arg("test");
        c
    });
    assert_eq!(unsupported.status.code(), Some(1));
}

#[test]
fn delays_scale_and_can_be_disabled() {
    let sb = Sandbox::new("delays");
    let time = |scale: &str| {
        let mut cmd = sb.lake_env_lean(&PROFILER_ARGS);
        cmd.env("LEANSCOPE_FAKE_DELAY_SCALE", scale)
            .arg("Demo/Async.lean");
        let start = Instant::now();
        let out = run(cmd);
        assert!(out.status.success());
        start.elapsed()
    };
    // the async case waits 3 × 150 ms
    assert!(time("2") >= Duration::from_millis(900));
    assert!(time("0") < Duration::from_millis(900));
    let mut bad = sb.lake_env_lean(&PROFILER_ARGS);
    bad.env("LEANSCOPE_FAKE_DELAY_SCALE", "fast")
        .arg("Demo/Async.lean");
    assert_eq!(
        run(bad).status.code(),
        Some(fake_toolchain::EXIT_FAKE_MISCONFIGURED)
    );
}

#[test]
fn streams_lines_before_finishing() {
    let sb = Sandbox::new("stream");
    let mut cmd = sb.lake_env_lean(&PROFILER_ARGS);
    cmd.env("LEANSCOPE_FAKE_DELAY_SCALE", "10")
        .arg("Demo/Async.lean")
        .stdout(Stdio::piped());
    let mut child = cmd.spawn().expect("spawns");
    let mut stdout = child.stdout.take().expect("stdout");
    let start = Instant::now();
    let mut first = [0u8; 1];
    std::io::Read::read_exact(&mut stdout, &mut first).expect("first byte");
    // the first line comes before the first delay (1.5 s at this scale)
    assert!(start.elapsed() < Duration::from_millis(1_400));
    assert_eq!(first[0], b'{');
    let _ = child.kill();
    let _ = child.wait();
}

fn pgrp_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // pid (comm) state ppid pgrp ...
    let after = stat.rsplit_once(')')?.1;
    after.split_whitespace().nth(2)?.parse().ok()
}

fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

#[test]
fn process_group_kill_stops_lake_and_lean() {
    use std::os::unix::process::CommandExt;
    let sb = Sandbox::new("kill");
    let pidfile = sb.root.join("pids");
    let mut cmd = sb.lake_env_lean(&PROFILER_ARGS);
    cmd.env("LEANSCOPE_FAKE_DELAY_SCALE", "100")
        .env("LEANSCOPE_FAKE_PIDFILE", &pidfile)
        .arg("Demo/Async.lean")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0);
    let mut lake = cmd.spawn().expect("spawns");
    let deadline = Instant::now() + Duration::from_secs(10);
    let pids = loop {
        let text = std::fs::read_to_string(&pidfile).unwrap_or_default();
        let pids: Vec<(String, u32)> = text
            .lines()
            .filter_map(|l| {
                let (mode, pid) = l.split_once(' ')?;
                Some((mode.to_string(), pid.parse().ok()?))
            })
            .collect();
        if pids.len() == 2 {
            break pids;
        }
        assert!(
            Instant::now() < deadline,
            "pid file never got both processes: {text:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(pids[0], ("lake".to_string(), lake.id()));
    assert_eq!(pids[1].0, "lean");
    let lean = pids[1].1;
    // neither process moved to a group of its own
    assert_eq!(pgrp_of(lake.id()), Some(lake.id()));
    assert_eq!(pgrp_of(lean), Some(lake.id()));
    let killed = Command::new("kill")
        .args(["-KILL", "--", &format!("-{}", lake.id())])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    let status = lake.wait().expect("lake reaped");
    assert!(!status.success());
    let deadline = Instant::now() + Duration::from_secs(10);
    while alive(lean) {
        assert!(
            Instant::now() < deadline,
            "lean {lean} survived the group kill"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn misnamed_binary_refuses() {
    let out = run(Command::new(env!("CARGO_BIN_EXE_fake-lean")));
    assert_eq!(
        out.status.code(),
        Some(fake_toolchain::EXIT_FAKE_MISCONFIGURED)
    );
}

#[test]
fn huge_case_is_generated_with_200k_nodes() {
    let sb = Sandbox::new("huge");
    let profile = sb.root.join("huge.json");
    let mut cmd = sb.lake_env_lean(&PROFILER_ARGS);
    // recorded for 4.31.0 only
    cmd.env("LEANSCOPE_FAKE_TOOLCHAIN", "v4.31.0");
    cmd.arg(profile_arg(&profile)).arg("Demo/Huge.lean");
    let out = run(cmd);
    assert_eq!(out.status.code(), Some(0));
    let text = read(&profile);
    let json: serde_json::Value = serde_json::from_str(&text).expect("profile is JSON");
    let threads = json["threads"].as_array().expect("threads");
    assert_eq!(threads.len(), 5);
    let samples: u64 = threads
        .iter()
        .map(|t| t["samples"]["length"].as_u64().expect("length"))
        .sum();
    // every node has at least one pair of samples
    assert!(samples >= 400_000, "{samples} samples");
    // no trace messages when the profile is written
    assert!(!String::from_utf8_lossy(&out.stdout).contains("\"kind\":\"trace\""));

    let mut cmd = sb.lake_env_lean(&PROFILER_ARGS);
    cmd.env("LEANSCOPE_FAKE_TOOLCHAIN", "v4.31.0");
    cmd.arg("Demo/Huge.lean");
    let traced = run(cmd);
    let stdout = String::from_utf8_lossy(&traced.stdout).into_owned();
    let mut nodes = 0usize;
    for line in stdout.lines() {
        let msg: serde_json::Value = serde_json::from_str(line).expect("JSON line");
        if msg["kind"] == "trace" {
            let data = msg["data"].as_str().expect("data");
            nodes += data
                .lines()
                .filter(|l| l.trim_start().starts_with('['))
                .count();
        }
    }
    assert!(nodes >= 200_000, "{nodes} trace nodes");
    // deterministic: a second run prints the same bytes
    let mut cmd = sb.lake_env_lean(&PROFILER_ARGS);
    cmd.env("LEANSCOPE_FAKE_TOOLCHAIN", "v4.31.0");
    cmd.arg("Demo/Huge.lean");
    assert_eq!(String::from_utf8_lossy(&run(cmd).stdout), stdout);
}

/// The shapes case on each release line: one recorded description, each line's bytes.
#[test]
fn one_case_speaks_every_release_line() {
    let render = |toolchain: &str, with_profile: bool| {
        let sb = Sandbox::new("lines");
        let profile = sb.root.join("profile.json");
        let args = if with_profile {
            &PROFILER_ARGS[..]
        } else {
            &PROFILER_ARGS[..5]
        };
        let mut cmd = sb.lake_env_lean(args);
        cmd.env("LEANSCOPE_FAKE_TOOLCHAIN", toolchain);
        if with_profile {
            cmd.arg(profile_arg(&profile));
        }
        cmd.arg("Demo/Shapes.lean");
        let out = run(cmd);
        assert_eq!(out.status.code(), Some(0), "{toolchain}");
        let profile = if with_profile {
            read(&profile)
        } else {
            String::new()
        };
        (String::from_utf8_lossy(&out.stdout).into_owned(), profile)
    };
    let case = fixtures().join("shapes");
    // 4.19–4.29 is the reference layout: the recorded bytes
    let (stdout, profile) = render("v4.28.0", true);
    assert_eq!(stdout, read(case.join("stdout")));
    assert_eq!(profile, read(case.join("profile.json")));
    // 4.30–4.31: the status emoji in profile names
    let (_, profile) = render("v4.31.0", true);
    assert!(profile.contains("\"Elab.async: ✅️ Lean.addDecl\""));
    assert!(profile.contains("Elab.command: Lean.Parser.Command.theorem: ✅️ /-- Doubling"));
    assert!(profile.contains(
        "\"Kernel: ✅️ typechecking declarations [_private.Demo.Shapes.0.Demo.Shapes.secret]\""
    ));
    // 4.32 and later: not in profile names, in trace text
    let (_, profile) = render("v4.35.0", true);
    assert!(profile.contains("\"Elab.async: Lean.addDecl\""));
    let (traces, _) = render("v4.35.0", false);
    assert!(
        traces.contains("[Elab.async] [0.001564] ✅️ Lean.addDecl"),
        "{traces}"
    );
    let (traces, _) = render("v4.28.0", false);
    assert!(traces.contains("[Elab.async] [0.001564] Lean.addDecl"));
    // 4.15–4.18: descending keys with `kind`, profiler lines at the command's start
    let (stdout, profile) = render("v4.18.0", true);
    assert!(stdout.starts_with("{\"severity\":\"information\",\"pos\":{\"line\":7,\"column\":0},\"kind\":\"[anonymous]\",\"keepFullRange\":false,\"fileName\":"));
    assert!(!stdout.contains("isSilent"));
    assert!(!stdout.contains("\"pos\":{\"line\":9,\"column\":8}"));
    assert!(profile.starts_with("{\"threads\":["));
    // 4.8–4.14: no `kind` either
    let (stdout, _) = render("v4.12.0", true);
    assert!(!stdout.contains("\"kind\""));
    // ≤4.7: `[0.001564s]`, no U+FE0F
    let (traces, _) = render("v4.7.0", false);
    assert!(traces.contains("[Elab.async] [0.001564s] Lean.addDecl"));
    assert!(!traces.contains('\u{FE0F}'));
}

/// A source with directives is elaborated at the CPU cost it asks for
/// (measured from outside by GNU time), its errors and prints are Lean's
/// output, and `lake build` fails only on a `build-error` directive.
#[test]
fn elaborates_sources_with_directives_at_their_cost() {
    let sb = Sandbox::new("elaborate");
    let proj = sb.root.join("proj");
    std::fs::create_dir_all(proj.join("P")).unwrap();
    std::fs::write(
        proj.join("P/Costly.lean"),
        "theorem a : True := by\n  trivial -- leanscope-fake: cost 300ms\n-- leanscope-fake: print 9.99 user\n",
    )
    .unwrap();
    std::fs::write(
        proj.join("P/Bad.lean"),
        "def x := 1 -- leanscope-fake: error\n",
    )
    .unwrap();
    let times = sb.root.join("time.txt");
    let out = Command::new("/usr/bin/time")
        .args(["-f", "%U %S", "-o"])
        .arg(&times)
        .arg(sb.bin("lake"))
        .args(["env", "lean", "--json", "-j1", "P/Costly.lean"])
        .current_dir(&proj)
        .env("LEANSCOPE_FAKE_FIXTURES", fixtures())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "9.99 user\n");
    let t = std::fs::read_to_string(&times).unwrap();
    let cpu: f64 = t
        .split_whitespace()
        .map(|x| x.parse::<f64>().unwrap())
        .sum();
    assert!((0.29..3.0).contains(&cpu), "CPU {cpu} s for a 300 ms cost");

    let bad = Command::new(sb.bin("lake"))
        .args(["env", "lean", "P/Bad.lean"])
        .current_dir(&proj)
        .env("LEANSCOPE_FAKE_FIXTURES", fixtures())
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stdout).contains("P/Bad.lean:1:0: error:"));

    let build = |dir: &Path| {
        Command::new(sb.bin("lake"))
            .args(["build", "P"])
            .current_dir(dir)
            .output()
            .unwrap()
    };
    let ok = build(&proj);
    assert!(ok.status.success());
    assert!(String::from_utf8_lossy(&ok.stdout).contains("Build completed successfully."));
    std::fs::write(
        proj.join("P/Broken.lean"),
        "-- leanscope-fake: build-error\n",
    )
    .unwrap();
    let failed = build(&proj);
    assert_eq!(failed.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&failed.stdout).contains("P/Broken.lean: build failed"));
    let _ = std::fs::remove_dir_all(&sb.root);
}

/// As Lean does, the fake prints each command's trace message when the command is done: at a
/// `hang`, stdout holds the commands before it and nothing of the hung one; an `alloc` makes
/// the process resident memory really grow.
#[test]
fn a_hang_leaves_the_earlier_commands_reported_and_alloc_is_resident() {
    use std::io::Read;
    let sb = Sandbox::new("hang");
    let proj = sb.root.join("proj");
    std::fs::create_dir_all(proj.join("P")).unwrap();
    std::fs::write(
        proj.join("P/Hang.lean"),
        "theorem a : True := by trivial -- leanscope-fake: cost 50ms\ntheorem b : True := by -- leanscope-fake: alloc 64MB\n  trivial -- leanscope-fake: hang\ntheorem c : True := by trivial -- leanscope-fake: cost 50ms\n",
    )
    .unwrap();
    let mut child = Command::new(sb.bin("lean"))
        .args([
            "--json",
            "-Dtrace.profiler=true",
            "-Dtrace.profiler.threshold=1",
            "P/Hang.lean",
        ])
        .current_dir(&proj)
        .env("LEANSCOPE_FAKE_FIXTURES", fixtures())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    // Wait until it holds the 64 MiB (VmRSS), then stop it.
    let started = std::time::Instant::now();
    let rss = || -> u64 {
        std::fs::read_to_string(format!("/proc/{pid}/status"))
            .ok()
            .and_then(|s| {
                s.lines()
                    .find(|l| l.starts_with("VmRSS:"))
                    .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
            })
            .unwrap_or(0)
    };
    while rss() < 64 * 1024 {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "never resident: {} kB",
            rss()
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(200));
    child.kill().unwrap();
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    child.wait().unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 1, "{out}");
    assert!(lines[0].contains("theorem a"), "{out}");
    assert!(
        !out.contains("theorem b") && !out.contains("theorem c"),
        "{out}"
    );
}

/// `peak-log` appends the peak resident memory at a normal end; bad arguments are refused.
#[test]
fn peak_log_and_bad_memory_directives() {
    let sb = Sandbox::new("peak");
    let proj = sb.root.join("proj");
    std::fs::create_dir_all(proj.join("P")).unwrap();
    let log = sb.root.join("peak.log");
    std::fs::write(
        proj.join("P/Peak.lean"),
        format!(
            "theorem a : True := by trivial -- leanscope-fake: alloc 32MB\n-- leanscope-fake: peak-log {}\n",
            log.display()
        ),
    )
    .unwrap();
    let out = Command::new(sb.bin("lean"))
        .args(["--json", "P/Peak.lean"])
        .current_dir(&proj)
        .env("LEANSCOPE_FAKE_FIXTURES", fixtures())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let peak: u64 = read(&log).trim().parse().unwrap();
    assert!(peak >= 32 << 20, "{peak}");
    for bad in ["alloc 3GBX", "alloc 99999999MB", "hang now", "peak-log"] {
        std::fs::write(
            proj.join("P/Bad.lean"),
            format!("-- leanscope-fake: {bad}\n"),
        )
        .unwrap();
        let out = Command::new(sb.bin("lean"))
            .arg("P/Bad.lean")
            .current_dir(&proj)
            .env("LEANSCOPE_FAKE_FIXTURES", fixtures())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(70), "{bad}");
    }
}
