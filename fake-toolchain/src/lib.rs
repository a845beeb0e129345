//! A fake Lean toolchain for tests: one binary, `fake-lean`, that acts as `lake` or `lean`
//! depending on the file name it is invoked under (tests copy or symlink it as `lake` and
//! `lean` into a temporary `bin` directory).
//!
//! - `lake --version`, `lake env` (prints the environment) and `lake env CMD ARGS…` (runs `CMD`
//!   with `LEAN_PATH`, `LEAN_SRC_PATH`, `LAKE`, `LEAN_SYSROOT` set and the fake's `bin`
//!   directory first on `PATH`, as a child process, and exits with its status).
//! - `lean --version`, and `lean [--json] [-D name=value]… FILE`, which replays the recorded
//!   output of the case whose `source` is a path suffix of `FILE`; a source carrying
//!   `-- leanscope-fake:` directives is elaborated instead, at the costs it asks for
//!   (`src/elaborate.rs`).
//! - `lake build [TARGETS…]`: succeeds unless a source asks it to fail (`src/elaborate.rs`),
//!   and then writes each module's `.olean` stand-in and, with `LEANSCOPE_FAKE_HB_JSON=1`, its
//!   `.hb.json` under `.lake/build/lib/lean/` (`src/build_outputs.rs`).
//!
//! Environment:
//! - `LEANSCOPE_FAKE_FIXTURES` (required for replay and versions): the `fixtures/lean-output`
//!   directory.
//! - `LEANSCOPE_FAKE_TOOLCHAIN`: which toolchain of `toolchains.json` to act as (default: its
//!   `default`). Only that toolchain's cases are replayed.
//! - `LEANSCOPE_FAKE_DELAY_SCALE`: multiplies the per-line delays of a case (default 1, `0`
//!   turns them off).
//! - `LEANSCOPE_FAKE_PIDFILE`: a file to which each `lake`/`lean` process appends
//!   `<lake|lean> <pid>` when it starts.
//! - `LEANSCOPE_FAKE_CALLS`: a file to which each `lake`/`lean` process appends one line when
//!   it starts: its mode and arguments, then a tab and the `LEAN_PATH` it was given (`-` when
//!   unset), so tests count `lake env` runs and see the environment `lean` ran in.
//!
//! The fake never changes its process group: a caller that kills the group of `lake` also
//! kills the `lean` child.

pub mod build_outputs;
pub mod cases;
pub mod dialect;
pub mod elaborate;
pub mod huge;
pub mod lake;
pub mod lean;
pub mod lean_format;
pub mod limits;

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Exit status for a misconfigured fake (missing fixtures, unreadable case files).
pub const EXIT_FAKE_MISCONFIGURED: i32 = 70;

/// Environment variable naming the `fixtures/lean-output` directory.
pub const ENV_FIXTURES: &str = "LEANSCOPE_FAKE_FIXTURES";
/// Environment variable selecting a toolchain from `toolchains.json`.
pub const ENV_TOOLCHAIN: &str = "LEANSCOPE_FAKE_TOOLCHAIN";
/// Environment variable scaling the replay delays.
pub const ENV_DELAY_SCALE: &str = "LEANSCOPE_FAKE_DELAY_SCALE";
/// Environment variable naming a file that receives `<mode> <pid>` lines.
pub const ENV_PIDFILE: &str = "LEANSCOPE_FAKE_PIDFILE";
/// Environment variable naming a file that receives one line per invocation.
pub const ENV_CALLS: &str = "LEANSCOPE_FAKE_CALLS";

/// Runs the fake with the given `argv` (including `argv[0]`) and returns the exit status.
pub fn run(args: &[OsString]) -> i32 {
    let argv0 = args.first().cloned().unwrap_or_default();
    let name = Path::new(&argv0)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let rest: Vec<String> = args
        .iter()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let mode = name.strip_suffix(".exe").unwrap_or(&name);
    match mode {
        "lake" => {
            record_pid("lake");
            record_call("lake", &rest);
            lake::main(Path::new(&argv0), &rest)
        }
        "lean" => {
            record_pid("lean");
            record_call("lean", &rest);
            lean::main(&rest)
        }
        _ => {
            eprintln!(
                "fake-lean: invoke me as `lake` or `lean` (copy or symlink the binary under \
                 one of those names); I was invoked as {name:?}"
            );
            EXIT_FAKE_MISCONFIGURED
        }
    }
}

fn record_pid(mode: &str) {
    let Some(path) = std::env::var_os(ENV_PIDFILE) else {
        return;
    };
    let result = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut f| f.write_all(format!("{mode} {}\n", std::process::id()).as_bytes()));
    if let Err(e) = result {
        eprintln!(
            "fake-lean: cannot write {}: {e}",
            PathBuf::from(path).display()
        );
    }
}

/// Appends `MODE ARGS…\tLEAN_PATH` to the file [`ENV_CALLS`] names, if any.
fn record_call(mode: &str, args: &[String]) {
    let Some(path) = std::env::var_os(ENV_CALLS) else {
        return;
    };
    let lean_path = std::env::var("LEAN_PATH").unwrap_or_else(|_| "-".into());
    let mut line = mode.to_string();
    for a in args {
        line.push(' ');
        line.push_str(a);
    }
    line.push('\t');
    line.push_str(&lean_path);
    line.push('\n');
    // One write of a short line to a file opened for appending: lines of
    // processes running at once do not interleave.
    let result = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut f| f.write_all(line.as_bytes()));
    if let Err(e) = result {
        eprintln!(
            "fake-lean: cannot write {}: {e}",
            PathBuf::from(path).display()
        );
    }
}

/// Where a toolchain folder of the fake keeps its fixtures, relative to the folder above its
/// `bin/`: a sandbox that clears the environment (a revision run's) still finds them there.
pub const TOOLCHAIN_FIXTURES: &str = "fixtures/lean-output";

/// The fixtures directory from [`ENV_FIXTURES`], else the invoked program's toolchain folder's
/// [`TOOLCHAIN_FIXTURES`] when it has one.
pub fn fixtures_dir() -> Result<PathBuf, String> {
    match std::env::var_os(ENV_FIXTURES) {
        Some(dir) if !dir.is_empty() => Ok(PathBuf::from(dir)),
        _ => std::env::args_os()
            .next()
            .map(|argv0| lake::bin_dir(Path::new(&argv0)))
            .and_then(|bin| bin.parent().map(|root| root.join(TOOLCHAIN_FIXTURES)))
            .filter(|dir| dir.join("toolchains.json").is_file())
            .ok_or_else(|| {
                format!(
                    "{ENV_FIXTURES} is not set; point it at fixtures/lean-output (or put it at {TOOLCHAIN_FIXTURES} in the toolchain's folder)"
                )
            }),
    }
}
