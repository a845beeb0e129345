//! `revisions`: which `.lean` files a change between two Git revisions touches (the plan,
//! from Git's objects only), or, with `run`, both sides measured in sandboxes with
//! leanscope captures (`revisions run --profile`) and the head compared with the base.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::json;

use super::call::Call;
use super::{Reply, ToolError};
use crate::capture::project::find_lake;
use crate::capture::{timestamp, PROJECT_DIR};
use crate::revisions::plan::{plan, PlanRequest, DEFAULT_MAX_FILES};
use crate::revisions::profile::{diff_of_workspace, side_session};
use crate::revisions::report::{Side, State};
use crate::revisions::run::{run, RunRequest, DEFAULT_TIMEOUTS_S};
pub use leanscope::protocol::mcp_tools::revisions::{Params, NAME};

pub fn tool() -> rmcp::model::Tool {
    super::tool::<Params>(
        NAME,
        "Exact-revision profiling of a change: plan lists the .lean files that differ between \
         two Git revisions (from Git's objects, nothing checked out); with run: true both sides \
         are built and captured in sandboxes and the head is compared with the base per \
         declaration and tactic. A run sends progress; cancelling stops Lean.",
    )
}

pub async fn call(call: &Call, p: Params) -> Result<Reply, ToolError> {
    let repo = call.state.path(&p.repo);
    if !repo.is_dir() {
        return Err(ToolError::new(format!(
            "{} is not a folder: give a folder inside the Git repository",
            repo.display()
        )));
    }
    let head = p.head.clone().unwrap_or_else(|| "HEAD".into());
    if !p.run {
        if p.repeat.is_some() || p.lake.is_some() || p.timeout_file_seconds.is_some() {
            return Err(ToolError::new(
                "repeat, lake and timeoutFileSeconds go with run: true; leave them out to plan",
            ));
        }
        let base = p.base.clone();
        let planned = tokio::task::spawn_blocking(move || {
            plan(&PlanRequest {
                repo: &repo,
                base: &base,
                head: &head,
                roots: None,
                max_files: DEFAULT_MAX_FILES,
            })
        })
        .await
        .map_err(|e| ToolError::new(format!("planning failed: {e}")))?
        .map_err(|e| ToolError::new(format!("cannot plan: {e}. Check the revisions (git rev-parse) and that the folder is inside the repository.")))?;
        let data = serde_json::to_value(&planned)
            .map_err(|e| ToolError::new(format!("cannot write the plan: {e}")))?;
        let mut summary = format!(
            "{} .lean file(s) differ between {} (merge base) and {}",
            planned.files.len(),
            p.base,
            planned.head.rev
        );
        for f in planned.files.iter().take(10) {
            summary.push_str(&format!("\n  {} {}", f.status.as_str(), f.path));
        }
        return Ok(Reply { summary, data });
    }
    running(call, p, repo, head).await
}

async fn running(call: &Call, p: Params, repo: PathBuf, head: String) -> Result<Reply, ToolError> {
    if matches!(p.repeat, Some(0)) || matches!(p.timeout_file_seconds, Some(0)) {
        return Err(ToolError::new(
            "repeat and timeoutFileSeconds must be at least 1",
        ));
    }
    let lake = find_lake(
        p.lake
            .as_deref()
            .map(|l| call.state.path(l))
            .or_else(|| call.state.lake.clone())
            .as_deref(),
        None,
    )
    .map_err(|e| ToolError::new(format!("no Lean toolchain: {e}")))?;
    let top = crate::revisions::git::Repo::open(&repo)
        .and_then(|r| r.toplevel())
        .map_err(|e| {
            ToolError::new(format!(
                "{} is not in a Git repository: {e}",
                repo.display()
            ))
        })?;
    let workspace = top.join(PROJECT_DIR).join("revisions").join(timestamp());
    if let Some(parent) = workspace.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| ToolError::new(format!("cannot create {}: {e}", parent.display())))?;
    }
    let ws = workspace.clone();
    let base = p.base.clone();
    let repeat = p.repeat.unwrap_or(1);
    let timeout_file = Duration::from_secs(p.timeout_file_seconds.unwrap_or(DEFAULT_TIMEOUTS_S.0));
    let report = call
        .blocking(
            "the revision run",
            move |cancel, progress| {
                let req = RunRequest::profiled(
                    &repo,
                    &base,
                    &head,
                    &ws,
                    lake,
                    repeat,
                    (
                        timeout_file,
                        Duration::from_secs(DEFAULT_TIMEOUTS_S.1),
                        Duration::from_secs(DEFAULT_TIMEOUTS_S.2),
                    ),
                    cancel,
                );
                run(&req, &mut |m| progress(m.to_owned()))
            },
            Some,
        )
        .await?
        .map_err(|e| ToolError::new(format!("the revision run failed: {e}")))?;
    call.state.wrote(&workspace);
    let complete = report.state == State::Complete;
    let diff = if complete {
        Some(
            diff_of_workspace(&workspace)
                .map_err(|e| ToolError::new(format!("cannot compare the two sides: {e}")))?,
        )
    } else {
        None
    };
    let summary = match report.state {
        State::Complete => format!(
            "{} file(s) compared, {} flagged; workspace {}",
            report.files.len(),
            report.flagged,
            workspace.display()
        ),
        State::NoChanges => "No library .lean file differs between the two revisions.".into(),
        State::Error => {
            return Err(ToolError::new(format!(
                "the revision run failed: {}. The workspace {} keeps what was measured.",
                report.error.as_deref().unwrap_or("unknown error"),
                workspace.display()
            )))
        }
    };
    let data = json!({
        "workspace": workspace,
        "state": report.state,
        "runId": report.run_id,
        "files": report.files.len(),
        "flagged": report.flagged,
        "headSession": complete.then(|| side_session(&workspace, Side::Head)),
        "baseSession": complete.then(|| side_session(&workspace, Side::Base)),
        "diff": diff,
    });
    Ok(Reply { summary, data })
}
