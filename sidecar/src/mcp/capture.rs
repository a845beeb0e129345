//! Capturing a Lean file for a tool: `leanscope profile FILE`'s capture
//! (`crate::capture::capture_file`) on a blocking thread, with MCP progress and
//! cancellation, and its failures said as what to do next.

use std::path::Path;
use std::sync::atomic::Ordering;
use std::time::Duration;

use super::call::Call;
use super::ToolError;
use crate::capture::process::RunError;
use crate::capture::project::ProjectError;
use crate::capture::{
    capture_file, default_threshold, CaptureError, CaptureRequest, CaptureResult, Progress,
    RunOptions,
};
use leanscope::limits::MAX_MCP_TIMEOUT_SECONDS;
pub use leanscope::protocol::mcp_tools::How;

/// The Lean file and the request, checked before Lean runs.
pub fn request(call: &Call, file: &str, how: &How) -> Result<CaptureRequest, ToolError> {
    let path = call.state.path(file);
    if path.extension().is_none_or(|x| x != "lean") {
        return Err(ToolError::new(format!(
            "{} is not a .lean file: give the path of a Lean source file (relative paths are under {})",
            path.display(),
            call.state.root.display()
        )));
    }
    if !path.is_file() {
        return Err(ToolError::new(format!(
            "{} does not exist: give the path of a Lean source file (relative paths are under {})",
            path.display(),
            call.state.root.display()
        )));
    }
    if let Some(t) = how.timeout_seconds {
        if !(1..=MAX_MCP_TIMEOUT_SECONDS).contains(&t) {
            return Err(ToolError::new(format!(
                "timeoutSeconds {t} is out of range: give 1 to {MAX_MCP_TIMEOUT_SECONDS}"
            )));
        }
    }
    let lake = match &how.lake {
        None => call.state.lake.clone(),
        Some(l) => {
            let p = call.state.path(l);
            if !p.is_file() {
                return Err(ToolError::new(format!(
                    "lake {} does not exist: give the path of the project's lake (for example ~/.elan/bin/lake), or leave lake out to use the one on PATH",
                    p.display()
                )));
            }
            Some(p)
        }
    };
    Ok(CaptureRequest {
        file: path,
        output: None,
        threshold: how.threshold.unwrap_or(default_threshold(how.measure)),
        measure: how.measure,
        lake,
        publish: recording::Publish::Atomic,
        memory: crate::capture::MemoryOptions::default(),
        lean_args: Vec::new(),
    })
}

/// Captures the file; progress goes to the client.
pub async fn run(
    call: &Call,
    req: CaptureRequest,
    timeout_seconds: Option<u64>,
) -> Result<CaptureResult, ToolError> {
    let file = req.file.clone();
    call.progress(format!("Profiling {}", file.display())).await;
    let result = call
        .blocking(
            "the capture",
            move |cancel, report| {
                let opts = RunOptions {
                    timeout: timeout_seconds.map(Duration::from_secs),
                    cancel,
                    ..RunOptions::default()
                };
                let lines = opts.stdout_lines.clone();
                let r = capture_file(&req, &opts, &mut |p| report(p));
                // Cancelled after Lean finished: no recording may be left.
                if let Ok(r) = &r {
                    if opts.cancel.is_cancelled() {
                        let _ = std::fs::remove_file(&r.recording);
                    }
                }
                (r, lines.load(Ordering::Relaxed))
            },
            |p| {
                Some(match p {
                    Progress::Starting { module, lake } => {
                        format!("Starting Lean on {module} (lake: {})", lake.display())
                    }
                    Progress::Running { messages } => {
                        format!("Lean has reported {messages} messages")
                    }
                    Progress::Reading => "Lean finished; reading its output".into(),
                    Progress::Writing { path } => format!("Writing {}", path.display()),
                })
            },
        )
        .await?;
    let r = result.0.map_err(|e| failure(&file, e))?;
    call.state.wrote(&r.recording);
    Ok(r)
}

/// A capture's failure, with what to do.
fn failure(file: &Path, e: CaptureError) -> ToolError {
    let message = match &e {
        CaptureError::Project(ProjectError::NoLake { looked }) => format!(
            "no Lean toolchain: cannot find lake (looked for {looked}). Install Lean with elan (https://lean-lang.org/install), or pass lake: the path of the project's lake."
        ),
        CaptureError::Project(ProjectError::OutsideProject { .. }) => format!(
            "{e}. Give a file inside a Lake project (a folder with lean-toolchain and a lakefile)."
        ),
        CaptureError::Run(RunError::TimedOut(s)) => format!(
            "Lean did not finish {} within {s} s and was stopped. Give a larger timeoutSeconds.",
            file.display()
        ),
        CaptureError::Run(RunError::Spawn { .. }) => format!(
            "{e}. Check that the toolchain is installed (`lake --version` in the project), or pass lake."
        ),
        CaptureError::LeanFailed { .. } => format!(
            "{e}\nCheck that the project builds (`lake build`) and that the file's imports are built."
        ),
        _ => format!("profiling {} failed: {e}", file.display()),
    };
    ToolError::new(message)
}
