//! `leanscope profile DIR`, `--project [DIR]`, `--resume SESSION_DIR`:
//! folder and project captures into a session directory.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;
use recording::session::SessionStatus;

use super::interrupts::Interrupts;
use crate::capture::{timestamp, CancelToken, PROJECT_DIR};
use crate::exit;
use crate::session::engine::{
    plan, plan_file, resume, resume_preview, run_new, SessionEvent, SessionFailure, SessionOptions,
};
use crate::session::shard::cut;
use crate::session::store::StoreError;
use recording::session::shard::{ShardError, ShardSpec};

/// The session options of `leanscope profile` (see its `--help`).
pub struct Args {
    /// Extra arguments to `lean` (`--lean-arg`).
    pub lean_args: Vec<String>,
    pub target: Option<PathBuf>,
    pub project: Option<PathBuf>,
    pub resume: Option<PathBuf>,
    pub list: bool,
    pub jobs: usize,
    pub out: Option<PathBuf>,
    pub threshold: u64,
    pub measure: recording::Measure,
    pub lake: Option<PathBuf>,
    pub timeout: Option<u64>,
    pub memory: crate::capture::MemoryOptions,
    pub json: bool,
    pub shard: Option<String>,
    pub shards: Option<u32>,
    pub balance_from: Option<PathBuf>,
    /// `--repeat N --warmup K`.
    pub repeats: Option<recording::session::Repeats>,
    /// Print the session's path (or `--json` facts) on stdout when done; off when another
    /// command reports on the session (`headroom`).
    pub print_session: bool,
}

/// The shard `--shard` (and `--shards`) name.
fn shard_spec(a: &Args) -> Result<Option<ShardSpec>, ShardError> {
    let Some(text) = a.shard.as_deref() else {
        return Ok(None);
    };
    let spec = if text == "auto" {
        ShardSpec::from_env(a.shards, &|k| std::env::var(k).ok())?
    } else {
        let s = ShardSpec::parse(text)?;
        if let Some(n) = a.shards.filter(|&n| n != s.count) {
            return Err(ShardError::Auto(format!(
                "--shard {text} and --shards {n} disagree"
            )));
        }
        s
    };
    Ok(Some(spec))
}

fn failure_code(e: &SessionFailure) -> u8 {
    match e {
        SessionFailure::Project(crate::capture::project::ProjectError::NoLake { .. }) => {
            exit::CAPTURE_FAILED
        }
        SessionFailure::Store(StoreError::Io { .. } | StoreError::Session { .. })
        | SessionFailure::Io(_)
        | SessionFailure::LakeEnv(_) => exit::CAPTURE_FAILED,
        _ => exit::USAGE,
    }
}

pub fn run(a: Args) -> Result<u8> {
    let opts = SessionOptions {
        threshold: a.threshold,
        measure: a.measure,
        lake: a.lake.clone(),
        timeout: a.timeout.map(Duration::from_secs),
        jobs: a.jobs,
        repeats: a.repeats,
        memory: a.memory,
        lean_args: a.lean_args.clone(),
    };
    let cancel = CancelToken::default();
    let interrupts = Interrupts::install(&cancel)?;
    let mut on_event = |e: SessionEvent| match e {
        SessionEvent::Started {
            dir,
            planned,
            to_capture,
        } => eprintln!(
            "leanscope: session {}: capturing {to_capture} {} of {planned} files",
            dir.display(),
            if a.repeats.is_some() { "runs" } else { "files" }
        ),
        SessionEvent::FileStarted { path, run, .. } => {
            eprintln!("leanscope: capturing {path}{}", run_suffix(&run))
        }
        SessionEvent::FileDone {
            path,
            run,
            status,
            done,
            total,
            error,
            ..
        } => match error {
            Some(err) => eprintln!(
                "leanscope: [{done}/{total}] {path}{}: {}: {}",
                run_suffix(&run),
                status.as_str(),
                err.lines().next().unwrap_or("")
            ),
            None => eprintln!(
                "leanscope: [{done}/{total}] {path}{}: {}",
                run_suffix(&run),
                status.as_str()
            ),
        },
    };
    let result = if let Some(dir) = &a.resume {
        if a.list {
            return match resume_preview(dir) {
                Ok(files) => {
                    println!(
                        "{}",
                        serde_json::to_string_pretty(&serde_json::json!({
                            "session": dir,
                            "files": files,
                        }))?
                    );
                    Ok(exit::OK)
                }
                Err(e) => {
                    eprintln!("leanscope: error: {e}");
                    Ok(failure_code(&e))
                }
            };
        }
        resume(dir, &opts, &cancel, &mut on_event)
    } else {
        let (dir, whole) = match (&a.project, &a.target) {
            (Some(p), _) => (p.clone(), true),
            (None, Some(t)) if a.repeats.is_some() && t.is_file() => {
                let p = match plan_file(t) {
                    Ok(p) => p,
                    Err(e) => {
                        eprintln!("leanscope: error: {e}");
                        return Ok(failure_code(&e));
                    }
                };
                if a.list {
                    println!(
                        "{}",
                        serde_json::to_string_pretty(&serde_json::json!({
                            "projectRoot": p.project.root,
                            "target": p.target,
                            "files": p.files,
                        }))?
                    );
                    return Ok(exit::OK);
                }
                let out = a.out.clone().unwrap_or_else(|| default_out(&p));
                return finish(
                    run_new(p, &out, &opts, &cancel, &mut on_event),
                    &a,
                    &interrupts,
                );
            }
            (None, Some(t)) => (t.clone(), false),
            (None, None) => {
                eprintln!("leanscope: error: give a folder, --project or --resume");
                return Ok(exit::USAGE);
            }
        };
        let spec = match shard_spec(&a) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("leanscope: error: {e}");
                return Ok(exit::USAGE);
            }
        };
        let p = match plan(&dir, whole).and_then(|p| match spec {
            Some(spec) => cut(p, spec, a.threshold, a.balance_from.as_deref()),
            None => Ok(p),
        }) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("leanscope: error: {e}");
                return Ok(failure_code(&e));
            }
        };
        if let Some(c) = &p.shard {
            eprintln!(
                "leanscope: shard {}: {} of the plan's {} files (plan {}, balanced by {})",
                c.info.label(),
                p.files.len(),
                c.info.plan_files,
                &c.info.plan_digest[..12.min(c.info.plan_digest.len())],
                c.info.balance.as_str()
            );
        }
        for note in &p.notes {
            eprintln!("leanscope: note: {note}");
        }
        if a.list {
            let mut listing = serde_json::json!({
                "projectRoot": p.project.root,
                "target": p.target,
                "files": p.files,
            });
            if let Some(c) = &p.shard {
                listing["shard"] = serde_json::to_value(&c.info)?;
            }
            println!("{}", serde_json::to_string_pretty(&listing)?);
            return Ok(exit::OK);
        }
        if p.files.is_empty() && p.shard.is_none() {
            eprintln!(
                "leanscope: error: no .lean files to capture in {}",
                dir.display()
            );
            return Ok(exit::USAGE);
        }
        let out = a.out.clone().unwrap_or_else(|| default_out(&p));
        run_new(p, &out, &opts, &cancel, &mut on_event)
    };
    finish(result, &a, &interrupts)
}

/// Where a new session goes without `--out`.
pub fn default_out(p: &crate::session::engine::Plan) -> PathBuf {
    p.project
        .root
        .join(PROJECT_DIR)
        .join("sessions")
        .join(timestamp())
}

/// ` (run 2/5)` after a file's path in progress lines of a repeated capture.
fn run_suffix(run: &Option<String>) -> String {
    run.as_ref().map(|r| format!(" ({r})")).unwrap_or_default()
}

/// Reports how the run ended and picks the exit code.
fn finish(
    result: Result<crate::session::engine::SessionSummary, SessionFailure>,
    a: &Args,
    interrupts: &Interrupts,
) -> Result<u8> {
    let summary = match result {
        Ok(s) => s,
        Err(e) => {
            if let Some(code) = interrupts.exit_code() {
                eprintln!("leanscope: interrupted: {e}");
                return Ok(code);
            }
            eprintln!("leanscope: error: {e}");
            return Ok(failure_code(&e));
        }
    };
    if !a.print_session {
    } else if a.json {
        println!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        println!("{}", summary.session.display());
    }
    let c = summary.counts;
    eprintln!(
        "leanscope: session {}: {} of {} files captured, {} failed{}",
        summary.status.as_str(),
        c.completed,
        c.planned,
        c.failed,
        if summary.with_errors > 0 {
            format!(", {} with Lean errors", summary.with_errors)
        } else {
            String::new()
        }
    );
    if summary.status == SessionStatus::Cancelled {
        eprintln!(
            "leanscope: the completed files are kept; `leanscope profile --resume {}` captures the rest",
            summary.session.display()
        );
        return Ok(interrupts.exit_code().unwrap_or(exit::INTERRUPTED));
    }
    if c.failed > 0 || (summary.repeats.is_some() && summary.status == SessionStatus::Partial) {
        return Ok(exit::CAPTURE_FAILED);
    }
    if summary.with_errors > 0 {
        return Ok(exit::LEAN_ERRORS);
    }
    Ok(exit::OK)
}
