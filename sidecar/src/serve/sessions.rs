//! `leanscope/captureFolder` (a folder or project capture into a session,
//! or a repeated capture of one file as `profile FILE --repeat N` makes,
//! per-file progress, cancellation like `leanscope/capture`: the running
//! Lean is stopped, completed files are kept, the session is `cancelled`)
//! and `leanscope/query` (the answer of `leanscope query --json`).

use super::log::log_line;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use recording::session::{QueryKind, QuerySpec, SortBy};
use serde::Deserialize;
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};
use tower_lsp_server::ls_types::ProgressToken;
use tower_lsp_server::Client;

use super::capture::{self, plural, Captures};
use super::errors;
use super::uri::{optional_path, path_or_uri};
use crate::capture::project::ProjectError;
use crate::capture::{timestamp, CancelToken, PROJECT_DIR};
use crate::commands::query::{self, Answer, SourceError, DEFAULT_LIMIT};
use crate::session::engine::{
    plan, plan_file, run_new, SessionEvent, SessionFailure, SessionOptions, SessionSummary,
};
use crate::session::store::StoreError;
use recording::session::SessionStatus;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CaptureFolderParams {
    /// The folder (absolute path or file URI).
    pub folder: Option<String>,
    /// Or one `.lean` file (absolute path or file URI), with `repeat`: a
    /// session of that file's runs (`profile FILE --repeat N`).
    pub file: Option<String>,
    /// Capture the whole project containing `folder`.
    #[serde(default)]
    pub project: bool,
    pub threshold_ms: Option<u64>,
    /// `time` (default) or `heartbeats` (`trace.profiler.useHeartbeats`).
    pub measure: Option<String>,
    /// The threshold of a heartbeat capture, in heartbeats.
    pub threshold_heartbeats: Option<u64>,
    pub lake: Option<String>,
    /// Per-file limit.
    pub timeout_seconds: Option<u64>,
    /// Parallel captures (default 1).
    pub jobs: Option<usize>,
    /// Capture each file this many times (`profile --repeat`).
    pub repeat: Option<u32>,
    /// Discarded warm-up runs of each file (default 1 when `repeat` is over 1).
    pub warmup: Option<u32>,
    /// `stock` (the default, and today the only backend); anything else,
    /// such as `auto`, is rejected.
    pub backend: Option<String>,
    /// A new (or empty) session directory; default
    /// `<project>/.leanscope/sessions/<time>/`.
    pub output: Option<String>,
    pub work_done_token: Option<ProgressToken>,
}

fn failure(e: SessionFailure) -> Error {
    let (code, data) = match &e {
        SessionFailure::Usage(m) => return errors::invalid_params(m.clone()),
        SessionFailure::Project(ProjectError::Missing(p)) => {
            return errors::no_such_directory("the folder", Path::new(p))
        }
        SessionFailure::Project(ProjectError::OutsideProject { file, .. }) => (
            errors::NOT_IN_PROJECT,
            serde_json::json!({"kind": "notInProject", "path": file}),
        ),
        SessionFailure::Project(ProjectError::NoLake { .. }) => (
            errors::TOOLCHAIN_NOT_FOUND,
            serde_json::json!({"kind": "noLake"}),
        ),
        SessionFailure::Store(StoreError::NotEmpty(p)) => (
            errors::CAPTURE_FAILED,
            serde_json::json!({"kind": "cannotWrite", "path": p}),
        ),
        SessionFailure::Store(_) | SessionFailure::Io(_) => {
            (errors::CAPTURE_FAILED, serde_json::json!({"kind": "io"}))
        }
        SessionFailure::LakeEnv(_) => (
            errors::CAPTURE_FAILED,
            serde_json::json!({"kind": "lakeEnv"}),
        ),
    };
    Error {
        code: ErrorCode::ServerError(code),
        message: e.to_string().into(),
        data: Some(data),
    }
}

pub async fn capture_folder(
    client: &Client,
    captures: &Arc<Captures>,
    client_creates_tokens: bool,
    p: CaptureFolderParams,
) -> Result<SessionSummary> {
    let target = target(&p)?;
    let backend = errors::backend(p.backend.as_deref())?;
    let lake = optional_path(p.lake.as_deref(), "lake").map_err(errors::invalid_params)?;
    let output = optional_path(p.output.as_deref(), "output").map_err(errors::invalid_params)?;
    if p.timeout_seconds == Some(0) {
        return Err(errors::invalid_params("timeoutSeconds must be at least 1"));
    }
    if p.jobs == Some(0) {
        return Err(errors::invalid_params("jobs must be at least 1"));
    }
    let max = recording::limits::MAX_REPEATS;
    if p.repeat.is_some_and(|n| n == 0 || n > max) || p.warmup.is_some_and(|k| k > max) {
        return Err(errors::invalid_params(format!(
            "repeat must be 1 to {max} and warmup 0 to {max}"
        )));
    }
    if p.warmup.is_some() && p.repeat.is_none() {
        return Err(errors::invalid_params("warmup needs repeat"));
    }
    let repeats = p.repeat.map(|runs| recording::session::Repeats {
        runs,
        warmup: p.warmup.unwrap_or(u32::from(runs > 1)),
    });
    let (measure, threshold) =
        errors::measure(p.measure.as_deref(), p.threshold_ms, p.threshold_heartbeats)?;
    let opts = SessionOptions {
        threshold,
        measure,
        lake,
        timeout: p.timeout_seconds.map(Duration::from_secs),
        jobs: p.jobs.unwrap_or(1),
        repeats,
        memory: crate::capture::MemoryOptions::default(),
        lean_args: Vec::new(),
    };
    let whole = p.project;
    let scan = target.clone();
    let planned = tokio::task::spawn_blocking(move || match scan {
        Target::Folder(dir) => plan(&dir, whole),
        Target::File(file) => plan_file(&file),
    })
    .await
    .map_err(|e| errors::internal(format!("planning failed: {e}")))?
    .map_err(failure)?;
    let folder = target.path();
    if planned.files.is_empty() {
        return Err(errors::invalid_params(format!(
            "no .lean files to capture in {}",
            folder.display()
        )));
    }
    let out: PathBuf = output.unwrap_or_else(|| {
        planned
            .project
            .root
            .join(PROJECT_DIR)
            .join("sessions")
            .join(timestamp())
    });
    let name = folder.file_name().map_or_else(
        || folder.display().to_string(),
        |n| n.to_string_lossy().into(),
    );
    let (mut guard, work, cancel): (_, _, CancelToken) = capture::start(
        client,
        captures,
        client_creates_tokens,
        p.work_done_token,
        "leanscope/captureFolder",
        format!(
            "Profiling {} {name}",
            match target {
                Target::File(_) => "file",
                Target::Folder(_) if whole => "project",
                Target::Folder(_) => "folder",
            }
        ),
        format!("{} to capture", plural(planned.files.len() as u64, "file")),
        "Cancelled; Lean was stopped, completed files are kept",
    )
    .await;
    let id = guard.id;
    log_line!(
        "leanscope serve: session capture {id} of {} into {} ({} backend)",
        folder.display(),
        out.display(),
        backend.name()
    );
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<SessionEvent>();
    let cancel_seen = cancel.clone();
    let task = tokio::task::spawn_blocking(move || {
        run_new(planned, &out, &opts, &cancel, &mut |e| {
            let _ = tx.send(e);
        })
    });
    while let Some(e) = rx.recv().await {
        let (message, pct) = match e {
            SessionEvent::Started { .. } => continue,
            SessionEvent::FileStarted { path, run, .. } => {
                (format!("Capturing {path}{}", run_suffix(&run)), None)
            }
            SessionEvent::FileDone {
                path,
                run,
                status,
                done,
                total,
                ..
            } => (
                format!(
                    "[{done}/{total}] {path}{}: {}",
                    run_suffix(&run),
                    status.as_str()
                ),
                Some((done * 100 / total.max(1)) as u32),
            ),
        };
        work.report_percent(message, pct).await;
    }
    let result = task
        .await
        .map_err(|e| errors::internal(format!("the session thread failed: {e}")))?;
    guard.finished = true;
    match result {
        // Answered only now: Lean has stopped, the manifest says
        // `cancelled` and the session's lock is released.
        Ok(s) if cancel_seen.is_cancelled() && s.status == SessionStatus::Cancelled => {
            work.end(guard.cancelled_message.into()).await;
            log_line!("leanscope serve: session capture {id} cancelled");
            Err(errors::session_cancelled(&s.session))
        }
        Ok(s) => {
            let c = s.counts;
            work.end(format!(
                "Session {}: {} of {} files captured, {} failed",
                s.status.as_str(),
                c.completed,
                c.planned,
                c.failed
            ))
            .await;
            log_line!(
                "leanscope serve: session capture {id} {}",
                s.status.as_str()
            );
            Ok(s)
        }
        Err(e) => {
            let error = failure(e);
            work.end(format!("Failed: {}", error.message)).await;
            Err(error)
        }
    }
}

/// What a capture into a session captures.
#[derive(Debug, Clone)]
enum Target {
    /// A folder (or, with `project`, its whole project).
    Folder(PathBuf),
    /// One `.lean` file, repeated.
    File(PathBuf),
}

impl Target {
    fn path(&self) -> &Path {
        match self {
            Target::Folder(p) | Target::File(p) => p,
        }
    }
}

/// The folder or the file of `leanscope/captureFolder`, checked: one of
/// them; a folder that exists; a `.lean` file that exists, with `repeat`
/// and without `project`.
fn target(p: &CaptureFolderParams) -> Result<Target> {
    match (&p.folder, &p.file) {
        (Some(folder), None) => {
            let folder = path_or_uri(folder, "folder").map_err(errors::invalid_params)?;
            if !folder.is_dir() {
                return Err(errors::no_such_directory("the folder", &folder));
            }
            Ok(Target::Folder(folder))
        }
        (None, Some(file)) => {
            let file = path_or_uri(file, "file").map_err(errors::invalid_params)?;
            if file.extension().is_none_or(|e| e != "lean") {
                return Err(errors::invalid_params(format!(
                    "{} is not a .lean file",
                    file.display()
                )));
            }
            if p.project {
                return Err(errors::invalid_params(
                    "project goes with folder, not with file",
                ));
            }
            if p.repeat.is_none() {
                return Err(errors::invalid_params(
                    "file needs repeat: a session of one file holds its repeated runs \
                     (leanscope/capture captures a file once)",
                ));
            }
            if !file.is_file() {
                return Err(errors::no_such_file("the Lean file", &file));
            }
            Ok(Target::File(file))
        }
        (Some(_), Some(_)) => Err(errors::invalid_params("give folder or file, not both")),
        (None, None) => Err(errors::invalid_params(
            "give folder (a folder to capture) or file (a .lean file with repeat)",
        )),
    }
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    File,
    Folder,
    Declaration,
    Tactic,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Sort {
    Total,
    #[serde(rename = "self")]
    SelfTime,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct QueryParams {
    /// A session directory or a recording.
    pub source: String,
    pub kind: Option<Kind>,
    pub limit: Option<usize>,
    #[serde(default)]
    pub all: bool,
    pub path: Option<String>,
    pub sort: Option<Sort>,
}

pub async fn query(p: QueryParams) -> Result<Answer> {
    let source = path_or_uri(&p.source, "source").map_err(errors::invalid_params)?;
    if p.all && p.limit.is_some() {
        return Err(errors::invalid_params("give limit or all, not both"));
    }
    let spec = QuerySpec {
        kind: match p.kind.unwrap_or(Kind::Declaration) {
            Kind::File => QueryKind::File,
            Kind::Folder => QueryKind::Folder,
            Kind::Declaration => QueryKind::Declaration,
            Kind::Tactic => QueryKind::Tactic,
        },
        sort: match p.sort.unwrap_or(Sort::Total) {
            Sort::Total => SortBy::Total,
            Sort::SelfTime => SortBy::SelfTime,
        },
        limit: (!p.all).then(|| p.limit.unwrap_or(DEFAULT_LIMIT)),
        path: p.path,
    };
    tokio::task::spawn_blocking(move || {
        if !source.exists() {
            return Err(errors::no_such_file("the session or recording", &source));
        }
        query::answer(&source, &spec).map_err(|e| match e {
            SourceError::Recording(r) => errors::recording(&source, &r),
            SourceError::Session(e) => Error {
                code: ErrorCode::ServerError(errors::NOT_A_RECORDING),
                message: format!("{e:#}").into(),
                data: Some(serde_json::json!({"kind": "notASession", "path": source})),
            },
        })
    })
    .await
    .map_err(|e| errors::internal(format!("the query failed: {e}")))?
}

/// ` (run 2/5)` after a file's path in the progress of a repeated capture.
fn run_suffix(run: &Option<String>) -> String {
    run.as_ref().map(|r| format!(" ({r})")).unwrap_or_default()
}
