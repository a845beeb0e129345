//! `profile_file`: capture one Lean file (time or heartbeats, once or `repeat` times) and
//! report where its time went: the time account, the slowest declarations, tactics and
//! lines, and the recording's path (or, repeated, the session's medians).

use std::time::Duration;

use serde_json::json;

use super::call::Call;
use super::capture::{self, How};
use super::resources::uri_of_session;
use super::{query, report, Reply, ToolError};
use crate::capture::{timestamp, PROJECT_DIR};
use crate::session::engine::{plan_file, run_new, SessionEvent, SessionOptions};
pub use leanscope::protocol::mcp_tools::profile_file::{Params, NAME};

pub fn tool() -> rmcp::model::Tool {
    super::tool::<Params>(
        NAME,
        "Profile a whole Lean file: run Lean with its profiler and report the file's time \
         account, its slowest declarations, tactics and lines (1-based), Lean's errors, and the \
         recording's path (a leanscope:// resource). Measures time or heartbeats; repeat > 1 \
         captures it several times and reports medians. Sends progress; cancelling stops Lean.",
    )
}

pub async fn call(call: &Call, p: Params) -> Result<Reply, ToolError> {
    let (limit, how) = p.capture.how().map_err(ToolError::new)?;
    let req = capture::request(call, &p.capture.file, &how)?;
    let max = recording::limits::MAX_REPEATS;
    match p.repeat {
        None | Some(1) => {}
        Some(n) if n == 0 || n > max => {
            return Err(ToolError::new(format!(
                "repeat {n} is out of range: give 1 to {max}"
            )))
        }
        Some(n) => return repeated(call, req, how, n, limit).await,
    }
    let r = capture::run(call, req, how.timeout_seconds).await?;
    let path = r.recording.clone();
    let (rec, mut data) = tokio::task::spawn_blocking(move || {
        let rec = report::open(&path)?;
        let data = report::file_report(&rec, &path, limit);
        Ok::<_, ToolError>((rec, data))
    })
    .await
    .map_err(|e| ToolError::new(format!("reading the recording failed: {e}")))??;
    data["leanWallMs"] = json!(r.lean_wall_ms);
    data["leanscopeCpuMs"] = json!((r.overhead_cpu_ms * 10.0).round() / 10.0);
    let mut summary = report::headline(&rec, &data);
    summary.push_str(&format!("\nRecording: {}", r.recording.display()));
    if r.errors > 0 {
        let first = &data["errors"]["rows"][0];
        return Err(ToolError {
            message: format!(
                "Lean reported {} error(s) in {} (first, line {}: {}). Fix them and profile again; \
                 the profile below covers what Lean elaborated.\n{summary}",
                r.errors,
                rec.header.source_path,
                first["line"],
                first["message"].as_str().unwrap_or("").lines().next().unwrap_or(""),
            ),
            data: Some(data),
        });
    }
    Ok(Reply { summary, data })
}

/// `repeat` runs into a new session (`profile FILE --repeat N`), reported by medians.
async fn repeated(
    call: &Call,
    req: crate::capture::CaptureRequest,
    how: How,
    runs: u32,
    limit: usize,
) -> Result<Reply, ToolError> {
    let file = req.file.clone();
    let opts = SessionOptions {
        threshold: req.threshold,
        measure: req.measure,
        lake: req.lake.clone(),
        timeout: how.timeout_seconds.map(Duration::from_secs),
        jobs: 1,
        repeats: Some(recording::session::Repeats { runs, warmup: 1 }),
        memory: crate::capture::MemoryOptions::default(),
        lean_args: Vec::new(),
    };
    let summary = call
        .blocking(
            "the repeated capture",
            move |cancel, report| {
                let planned = plan_file(&file).map_err(|e| e.to_string())?;
                let base = planned.project.root.join(PROJECT_DIR).join("sessions");
                let mut dir = base.join(timestamp());
                let mut n = 1;
                while dir.exists() {
                    n += 1;
                    dir = base.join(format!("{}-{n}", timestamp()));
                }
                run_new(planned, &dir, &opts, &cancel, &mut |e| report(e))
                    .map_err(|e| e.to_string())
            },
            |e| match e {
                SessionEvent::FileStarted { path, run, .. } => Some(format!(
                    "Capturing {path}{}",
                    run.map(|r| format!(" ({r})")).unwrap_or_default()
                )),
                _ => None,
            },
        )
        .await?
        .map_err(|e| ToolError::new(format!("the repeated capture failed: {e}")))?;
    call.state.wrote(&summary.session);
    let dir = summary.session.clone();
    let mut data = tokio::task::spawn_blocking(move || query::session_report(&dir, limit))
        .await
        .map_err(|e| ToolError::new(format!("reading the session failed: {e}")))??;
    data["session"] = json!(summary.session);
    data["resource"] = json!(uri_of_session(&summary.session));
    data["runs"] = json!(runs);
    let text = format!(
        "Captured {} {runs} times (after a warm-up run) into the session {}; times are medians over the runs.",
        req.file.display(),
        summary.session.display()
    );
    if summary.with_errors > 0 {
        return Err(ToolError {
            message: format!(
                "Lean reported errors in the file; fix them and profile again. {text}"
            ),
            data: Some(data),
        });
    }
    Ok(Reply {
        summary: text,
        data,
    })
}
