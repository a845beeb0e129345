//! `leanscope headroom`: how close each declaration is to its `maxHeartbeats` (and its slowest
//! instance search to `synthInstance.maxHeartbeats`), for a Lean file, folder or project
//! (captured in heartbeats first) or a heartbeat recording or session; `--fail` makes it a CI
//! check.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Result;
use recording::headroom::HeadroomOptions;
use recording::session::MANIFEST_FILE;
use recording::Measure;

use crate::capture::{capture_file, CaptureRequest, DEFAULT_THRESHOLD_HEARTBEATS};
use crate::exit;
use crate::headroom::{self, document, Thresholds};

#[derive(clap::Args)]
#[command(after_help = "\
Lean sources (a .lean FILE, a FOLDER without session.json, --project) are captured first
with --measure heartbeats, as `leanscope profile` does (the recording or session is kept,
its path on stderr); a RECORDING or SESSION is read as it is and must be measured in
heartbeats. Each declaration's limit is the `set_option maxHeartbeats N in` attached to it,
else the command-level `set_option maxHeartbeats N` of its section or namespace, else Lean's
default for the recording's toolchain; its heartbeats are its declaration total (the median
over the runs of a repeated capture); share = heartbeats / (limit × 1000). The same for its
slowest instance search against synthInstance.maxHeartbeats. docs/heartbeats.md has the
rules and their sources in Lean.

Output: every declaration with recorded heartbeats, worst share first; WARN at --warn,
OVER at --fail, and `bump not needed` for an `in` bump under --bump-not-needed-below of the
default. --json writes the document of schemas/headroom.schema.json.

Exit codes: 0 ok; 1 Lean reported errors (the report is complete); 2 usage, or a recording
measured in time; 3 capture failure; 4 a declaration at or over --fail; 130 Ctrl-C; 143 SIGTERM.")]
pub struct Args {
    /// A .lean file, a folder of Lean sources, a heartbeat recording, or a session directory.
    #[arg(required_unless_present = "project", conflicts_with = "project")]
    target: Option<PathBuf>,
    /// Capture every .lean file of the project containing DIR (default: the current directory).
    #[arg(long, value_name = "DIR", num_args = 0..=1, default_missing_value = ".")]
    project: Option<PathBuf>,
    /// Write the document of schemas/headroom.schema.json instead of the table.
    #[arg(long)]
    json: bool,
    /// Mark declarations at or over this share of their limit (percent).
    #[arg(long, value_name = "PERCENT", default_value_t = 80.0, value_parser = parse_percent)]
    warn: f64,
    /// Exit with status 4 when a declaration is at or over this share of its limit (percent):
    /// the CI threshold.
    #[arg(long, value_name = "PERCENT", value_parser = parse_percent)]
    fail: Option<f64>,
    /// A `set_option maxHeartbeats N in` is not needed when the declaration uses less than this
    /// share of the default limit (percent).
    #[arg(long, value_name = "PERCENT", default_value_t = 50.0, value_parser = parse_share_percent)]
    bump_not_needed_below: f64,
    /// Where a capture writes: the recording of a file, or a new session directory of a folder
    /// or project (default: as `leanscope profile`, under the project's .leanscope/).
    #[arg(long, short)]
    out: Option<PathBuf>,
    /// Profiler threshold of a capture, in heartbeats (default 1000000): smaller steps are
    /// not recorded, and a declaration with none over it has no row.
    #[arg(long, value_name = "HEARTBEATS")]
    threshold: Option<u64>,
    /// The lake to use for a capture (default: lake on PATH, then ~/.elan/bin/lake).
    #[arg(long)]
    lake: Option<PathBuf>,
    /// Stop Lean after this many seconds (per file).
    #[arg(long)]
    timeout: Option<u64>,
}

/// A percentage from 0 to 100000 (a share of a limit can pass 100 %).
fn parse_percent(s: &str) -> Result<f64, String> {
    match s.trim_end_matches('%').parse::<f64>() {
        Ok(p) if (0.0..=100_000.0).contains(&p) => Ok(p),
        _ => Err(format!("{s:?} is not a percentage from 0 to 100000")),
    }
}

/// A percentage from 0 to 100.
fn parse_share_percent(s: &str) -> Result<f64, String> {
    match s.trim_end_matches('%').parse::<f64>() {
        Ok(p) if (0.0..=100.0).contains(&p) => Ok(p),
        _ => Err(format!("{s:?} is not a percentage from 0 to 100")),
    }
}

/// What the target is.
enum Target {
    Sources { dir: PathBuf, whole: bool },
    File(PathBuf),
    Recording(PathBuf),
    Session(PathBuf),
}

fn target(a: &Args) -> Target {
    match (&a.project, &a.target) {
        (Some(p), _) => Target::Sources {
            dir: p.clone(),
            whole: true,
        },
        (None, Some(t)) if t.is_dir() && t.join(MANIFEST_FILE).exists() => {
            Target::Session(t.clone())
        }
        (None, Some(t)) if t.is_dir() => Target::Sources {
            dir: t.clone(),
            whole: false,
        },
        (None, Some(t)) if t.extension().is_some_and(|e| e == "lean") => Target::File(t.clone()),
        (None, Some(t)) => Target::Recording(t.clone()),
        (None, None) => unreachable!("clap requires a target or --project"),
    }
}

pub fn run(a: Args) -> Result<u8> {
    let thresholds = Thresholds {
        warn: a.warn / 100.0,
        fail: a.fail.map(|f| f / 100.0),
        headroom: HeadroomOptions {
            bump_not_needed_below: a.bump_not_needed_below / 100.0,
        },
    };
    let (files, capture_code) = match target(&a) {
        Target::Recording(p) => (
            vec![headroom::of_recording(&p, thresholds.headroom)?],
            exit::OK,
        ),
        Target::Session(dir) => (headroom::of_session(&dir, thresholds.headroom)?, exit::OK),
        Target::File(file) => match capture_one(&a, file)? {
            Ok((path, code)) => (
                vec![headroom::of_recording(&path, thresholds.headroom)?],
                code,
            ),
            Err(code) => return Ok(code),
        },
        Target::Sources { dir, whole } => match capture_many(&a, &dir, whole)? {
            Ok((session, code)) => (headroom::of_session(&session, thresholds.headroom)?, code),
            Err(code) => return Ok(code),
        },
    };
    let doc = document::document(&files, &thresholds);
    let mut out = std::io::stdout().lock();
    if a.json {
        serde_json::to_writer_pretty(&mut out, &doc)?;
        writeln!(out)?;
    } else {
        headroom::text::write(&mut out, &doc)?;
    }
    out.flush()?;
    Ok(if doc.failed {
        exit::HEADROOM_EXCEEDED
    } else {
        capture_code
    })
}

fn threshold(a: &Args) -> u64 {
    a.threshold.unwrap_or(DEFAULT_THRESHOLD_HEARTBEATS)
}

/// Captures one file in heartbeats: its recording and the exit code so far (Lean's errors),
/// or the exit code of a failure.
fn capture_one(a: &Args, file: PathBuf) -> Result<Result<(PathBuf, u8), u8>> {
    let (opts, interrupts) = super::profile::run_options(a.timeout)?;
    let req = CaptureRequest {
        file,
        output: a.out.clone(),
        threshold: threshold(a),
        measure: Measure::Heartbeats,
        lake: a.lake.clone(),
        publish: recording::Publish::Atomic,
        // Heartbeats do not bound memory: a heartbeat capture samples it too.
        memory: crate::capture::MemoryOptions::default(),
        lean_args: Vec::new(),
    };
    match capture_file(&req, &opts, &mut |_| {}) {
        Ok(r) => {
            eprintln!("leanscope: recording {}", r.recording.display());
            for note in &r.notes {
                eprintln!("leanscope: note: {note}");
            }
            let code = if r.errors > 0 {
                eprintln!(
                    "leanscope: Lean reported {} errors; the recording keeps them",
                    r.errors
                );
                exit::LEAN_ERRORS
            } else {
                exit::OK
            };
            Ok(Ok((r.recording, code)))
        }
        Err(e) => Ok(Err(super::profile::capture_failed(&e, &interrupts))),
    }
}

/// Captures a folder or project in heartbeats into a session, as `profile` does: the session
/// and the exit code so far, or the exit code when there is no session to report on.
fn capture_many(a: &Args, dir: &Path, whole: bool) -> Result<Result<(PathBuf, u8), u8>> {
    let out = match &a.out {
        Some(o) => o.clone(),
        None => match crate::session::engine::plan(dir, whole) {
            Ok(p) => super::profile_session::default_out(&p),
            Err(e) => {
                eprintln!("leanscope: error: {e}");
                return Ok(Err(exit::USAGE));
            }
        },
    };
    let code = super::profile_session::run(super::profile_session::Args {
        target: (!whole).then(|| dir.to_path_buf()),
        project: whole.then(|| dir.to_path_buf()),
        resume: None,
        list: false,
        jobs: 1,
        out: Some(out.clone()),
        threshold: threshold(a),
        measure: Measure::Heartbeats,
        lake: a.lake.clone(),
        timeout: a.timeout,
        memory: crate::capture::MemoryOptions::default(),
        lean_args: Vec::new(),
        json: false,
        shard: None,
        shards: None,
        balance_from: None,
        repeats: None,
        print_session: false,
    })?;
    if !out.join(MANIFEST_FILE).exists()
        || [exit::USAGE, exit::INTERRUPTED, exit::TERMINATED].contains(&code)
    {
        return Ok(Err(code));
    }
    eprintln!("leanscope: session {}", out.display());
    Ok(Ok((out, code)))
}
