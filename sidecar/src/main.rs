//! `leanscope`: find where Lean 4 spends its time.

mod bench;
mod capture;
mod commands;
mod file_stamp;
mod headroom;
mod hot_spots;
mod mcp;
mod process_group;
mod revisions;
mod serve;
mod session;
mod viewer;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Exit codes (documented in the README).
pub mod exit {
    /// Success.
    pub const OK: u8 = 0;
    /// Lean reported errors in the file; the recording was written and keeps them.
    pub const LEAN_ERRORS: u8 = 1;
    /// `compare`: a regression, or new or missing rows under --fail-on-*.
    pub const POLICY_FAILED: u8 = 1;
    /// Usage error or invalid input.
    pub const USAGE: u8 = 2;
    /// The toolchain could not be found or the capture failed; nothing was written.
    pub const CAPTURE_FAILED: u8 = 3;
    /// Interrupted by Ctrl-C (SIGINT).
    pub const INTERRUPTED: u8 = 130;
    /// `headroom --fail P`: a declaration is at or over P % of its heartbeat limit.
    pub const HEADROOM_EXCEEDED: u8 = 4;
    /// Stopped by SIGTERM.
    pub const TERMINATED: u8 = 143;
}

#[derive(Parser)]
#[command(
    name = "leanscope",
    version,
    about = "Find where Lean 4 spends its time",
    after_help = "Test tools (not listed above): `synth` writes a deterministic synthetic recording, \
                  `synth-session` a synthetic session, for tests, benchmarks and demos."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Capture a Lean file, folder or project: run Lean with profiling on and write recordings.
    Profile(commands::profile::Args),
    /// Serve the viewer for a session or a recording on 127.0.0.1.
    View(commands::view::Args),
    /// Write a static copy of the viewer and a session's data.
    Publish(commands::publish::Args),
    /// Print a recording's header facts, counts and validation issues.
    Info(commands::info::Args),
    /// The slowest files, folders, declarations or tactics of a session or recording.
    Query(commands::query::Args),
    /// What kind of work dominates: hot spots by key (bottom-up table, call tree, callers).
    Top(commands::top::Args),
    /// How close each declaration is to its maxHeartbeats (and synthInstance.maxHeartbeats)
    /// limit: a report for people or CI (--fail).
    Headroom(commands::headroom::Args),
    /// Summarize a recording, session, imported file or summary JSON.
    Summary(commands::summary::Args),
    /// Compare a candidate against a baseline with tolerances (exit 1 on a regression).
    Compare(commands::compare::Args),
    /// Exact-revision profiling of a change: `plan` lists the .lean files
    /// it touches (from Git objects only); `run` measures both sides.
    Revisions(commands::revisions::Args),
    /// Import another profiler's file (Chrome, Firefox, folded, lean --profile) as a recording.
    Import(commands::import::Args),
    /// Export a recording as Chrome trace, speedscope, folded stacks or summary JSON.
    Export(commands::export::Args),
    /// Work on whole sessions: `merge` the shards of a sharded capture into one session.
    Session(commands::session::Args),
    /// Answer JSON-RPC (LSP framing) on stdin/stdout: capture, open, annotations.
    Serve(commands::serve::Args),
    /// Serve agents: a Model Context Protocol server on stdio (profile, query, compare tools).
    Mcp(commands::mcp::Args),
    /// What profiling costs: plain `lake env lean FILE` against `leanscope profile FILE`,
    /// interleaved and rotated over repeats, timed by the host.
    Bench(commands::bench::Args),
    /// Write a deterministic synthetic recording (same arguments, same bytes).
    #[command(hide = true)]
    Synth(commands::synth::Args),
    /// Write a deterministic synthetic session (for tests and demos).
    #[command(hide = true)]
    SynthSession(commands::synth_session::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    write_errors_not_signals();
    if !matches!(
        cli.command,
        Command::Serve(_)
            | Command::Mcp(_)
            | Command::View(_)
            | Command::Profile(_)
            | Command::Bench(_)
            | Command::Headroom(_)
    ) {
        quiet_on_closed_stdout();
    }
    let result = match cli.command {
        Command::Synth(a) => commands::synth::run(a),
        Command::Info(a) => commands::info::run(a),
        Command::Profile(a) => commands::profile::run(a),
        Command::View(a) => commands::view::run(a),
        Command::Publish(a) => commands::publish::run(a),
        Command::SynthSession(a) => commands::synth_session::run(a),
        Command::Summary(a) => commands::summary::run(a),
        Command::Compare(a) => commands::compare::run(a),
        Command::Import(a) => commands::import::run(a),
        Command::Export(a) => commands::export::run(a),
        Command::Serve(a) => commands::serve::run(a),
        Command::Mcp(a) => commands::mcp::run(a),
        Command::Query(a) => commands::query::run(a),
        Command::Top(a) => commands::top::run(a),
        Command::Headroom(a) => commands::headroom::run(a),
        Command::Revisions(a) => commands::revisions::run(a),
        Command::Bench(a) => commands::bench::run(a),
        Command::Session(a) => commands::session::run(a),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("leanscope: error: {e:#}");
            ExitCode::from(exit::USAGE)
        }
    }
}

/// Reports that print to standard output end quietly when the reader goes
/// away (`leanscope query … | head`), as Unix tools do, instead of failing
/// on the broken pipe. Not for `serve` and `view` (they answer over pipes
/// and sockets and handle closed peers) nor `profile` (Lean must be
/// stopped, not orphaned). Windows has no SIGPIPE: a closed pipe is a
/// write error there, reported as such.
fn quiet_on_closed_stdout() {
    // SAFETY: restores the default action of one signal before any thread
    // is started; no handler runs Rust code.
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// A file-size limit (`ulimit -f`) reached while writing a recording or a
/// session is an error leanscope reports (EFBIG, like a full disk's
/// ENOSPC), removing its temporary file, instead of SIGXFSZ ending the
/// process and leaving the temporary file behind. (Unix only: Windows
/// has no such signal.)
fn write_errors_not_signals() {
    // SAFETY: sets one signal to be ignored before any thread is started.
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}
