//! `leanscope/compareRevisions`: the editor's *Compare Revisions…*. Runs
//! `revisions run --profile` (the same run as the command line's) with
//! work-done progress per step and sample; Cancel stops the running
//! sample's process group and answers RequestCancelled. A finished run
//! answers its state, its workspace and, when complete, the diff view's
//! document of the two sides' sessions.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};
use tower_lsp_server::ls_types::ProgressToken;
use tower_lsp_server::Client;

use super::capture::{self, Captures};
use super::errors;
use super::uri::{optional_path, path_or_uri};
use crate::capture::project::find_lake;
use crate::capture::{timestamp, PROJECT_DIR};
use crate::revisions::profile::{diff_of_workspace, side_session};
use crate::revisions::report::{Side, State};
use crate::revisions::run::{run, RunRequest, DEFAULT_TIMEOUTS_S};

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CompareRevisionsParams {
    /// Any folder inside the Git repository (path or file URI).
    pub repo: String,
    /// The base revision; the measured base is its merge base with `head`.
    pub base: String,
    /// The revision under test (default `HEAD`).
    pub head: Option<String>,
    /// A new folder (default `<repository>/.leanscope/revisions/<time>`).
    pub workspace: Option<String>,
    /// Samples per file and side (default 1).
    pub repeat: Option<u64>,
    pub lake: Option<String>,
    pub timeout_file_seconds: Option<u64>,
    pub timeout_build_seconds: Option<u64>,
    pub timeout_total_seconds: Option<u64>,
    pub work_done_token: Option<ProgressToken>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompareRevisionsResult {
    pub workspace: PathBuf,
    /// `complete`, `no_changes` or `error`.
    pub state: State,
    pub run_id: String,
    pub files: usize,
    pub flagged: u64,
    pub error: Option<String>,
    /// The head side's session (complete runs).
    pub head_session: Option<PathBuf>,
    /// The diff view's document, head against base (complete runs).
    pub diff: Option<serde_json::Value>,
}

pub async fn compare_revisions(
    client: &Client,
    captures: &Arc<Captures>,
    client_creates_tokens: bool,
    p: CompareRevisionsParams,
) -> Result<CompareRevisionsResult> {
    let repo = path_or_uri(&p.repo, "repo").map_err(errors::invalid_params)?;
    if !repo.is_dir() {
        return Err(errors::no_such_directory("the repository", &repo));
    }
    if matches!(p.repeat, Some(0)) {
        return Err(errors::invalid_params("repeat must be at least 1"));
    }
    let seconds = |v: Option<u64>, default: u64, name: &str| match v {
        Some(0) => Err(errors::invalid_params(format!("{name} must be at least 1"))),
        v => Ok(Duration::from_secs(v.unwrap_or(default))),
    };
    let timeout_file = seconds(
        p.timeout_file_seconds,
        DEFAULT_TIMEOUTS_S.0,
        "timeoutFileSeconds",
    )?;
    let timeout_build = seconds(
        p.timeout_build_seconds,
        DEFAULT_TIMEOUTS_S.1,
        "timeoutBuildSeconds",
    )?;
    let timeout_total = seconds(
        p.timeout_total_seconds,
        DEFAULT_TIMEOUTS_S.2,
        "timeoutTotalSeconds",
    )?;
    let lake = optional_path(p.lake.as_deref(), "lake").map_err(errors::invalid_params)?;
    let lake = find_lake(lake.as_deref(), None).map_err(|e| Error {
        code: ErrorCode::ServerError(errors::TOOLCHAIN_NOT_FOUND),
        message: e.to_string().into(),
        data: Some(serde_json::json!({"kind": "noLake"})),
    })?;
    let workspace =
        match optional_path(p.workspace.as_deref(), "workspace").map_err(errors::invalid_params)? {
            Some(w) => w,
            None => crate::revisions::git::Repo::open(&repo)
                .and_then(|r| r.toplevel())
                .map_err(|e| errors::invalid_params(e.to_string()))?
                .join(PROJECT_DIR)
                .join("revisions")
                .join(timestamp()),
        };
    if p.workspace.is_none() {
        if let Some(parent) = workspace.parent() {
            std::fs::create_dir_all(parent).map_err(|e| {
                errors::invalid_params(format!("cannot create {}: {e}", parent.display()))
            })?;
        }
    }
    let head = p.head.unwrap_or_else(|| "HEAD".into());
    let (mut guard, work, cancel) = capture::start(
        client,
        captures,
        client_creates_tokens,
        p.work_done_token,
        "leanscope/compareRevisions",
        format!("Comparing {} with {head}", p.base),
        "planning".into(),
        "Cancelled; Lean was stopped, the workspace keeps what was measured",
    )
    .await;
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<String>();
    let ws = workspace.clone();
    let base = p.base.clone();
    let repeat = p.repeat.unwrap_or(1);
    let cancel_seen = cancel.clone();
    let task = tokio::task::spawn_blocking(move || {
        let req = RunRequest::profiled(
            &repo,
            &base,
            &head,
            &ws,
            lake,
            repeat,
            (timeout_file, timeout_build, timeout_total),
            cancel,
        );
        run(&req, &mut |m| {
            let _ = tx.send(m.to_owned());
        })
    });
    while let Some(m) = rx.recv().await {
        work.report(m).await;
    }
    let result = task
        .await
        .map_err(|e| errors::internal(format!("the revision run failed: {e}")))?;
    guard.finished = true;
    let report = match result {
        Ok(r) => r,
        Err(e) => {
            work.end(format!("Failed: {e}")).await;
            return Err(errors::invalid_params(e.to_string()));
        }
    };
    if cancel_seen.is_cancelled() {
        work.end(guard.cancelled_message.into()).await;
        return Err(errors::cancelled_at(&workspace));
    }
    let complete = report.state == State::Complete;
    let diff = if complete {
        Some(diff_of_workspace(&workspace).map_err(errors::cannot_compare)?)
    } else {
        None
    };
    work.end(match report.state {
        State::Complete => format!(
            "{} files compared, {} flagged",
            report.files.len(),
            report.flagged
        ),
        State::NoChanges => "No library .lean file differs".into(),
        State::Error => format!("Failed: {}", report.error.as_deref().unwrap_or("")),
    })
    .await;
    Ok(CompareRevisionsResult {
        head_session: complete.then(|| side_session(&workspace, Side::Head)),
        workspace,
        state: report.state,
        run_id: report.run_id,
        files: report.files.len(),
        flagged: report.flagged,
        error: report.error,
        diff,
    })
}
