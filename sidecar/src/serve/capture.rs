//! `leanscope/capture`: captures one Lean file on a blocking thread, with
//! work-done progress, and cancellation by `$/cancelRequest` (the request's
//! handler is dropped), by `window/workDoneProgress/cancel` (the progress
//! Cancel button), by `exit`, or by the client going away. Cancelling stops
//! Lean's whole process group and leaves no recording.

use super::log::log_line;
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Deserialize;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::{NumberOrString, ProgressToken};
use tower_lsp_server::Client;

use super::errors;
use super::progress::{self, WorkDone};
use super::uri::{file_uri_to_path, optional_path};
use crate::capture::process::RunError;
use crate::capture::{
    capture_file, Backend, CancelToken, CaptureError, CaptureRequest, CaptureResult, Progress,
    RunOptions,
};

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CaptureParams {
    /// The Lean file, as a `file://` URI.
    pub uri: String,
    /// Profiler threshold: steps faster than this are not recorded.
    pub threshold_ms: Option<u64>,
    /// `time` (default) or `heartbeats` (`trace.profiler.useHeartbeats`).
    pub measure: Option<String>,
    /// The threshold of a heartbeat capture, in heartbeats.
    pub threshold_heartbeats: Option<u64>,
    /// The `lake` to use (absolute path or file URI); default: PATH, then ~/.elan/bin.
    pub lake: Option<String>,
    /// Stop Lean after this many seconds (at least 1).
    pub timeout_seconds: Option<u64>,
    /// `stock` (the default, and today the only backend); anything else,
    /// such as `auto`, is rejected.
    pub backend: Option<String>,
    /// Where to write the recording (absolute path or file URI); default:
    /// `<project>/.leanscope/recordings/<Module>-<time>.lsrec`.
    pub output: Option<String>,
    /// The LSP work-done token, when the client made one.
    pub work_done_token: Option<ProgressToken>,
}

/// Captures that are running, by id.
#[derive(Default)]
pub struct Captures {
    running: Mutex<HashMap<u64, Running>>,
    next: AtomicU64,
}

struct Running {
    cancel: CancelToken,
    token: Option<ProgressToken>,
}

impl Captures {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Running>> {
        self.running
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn register(&self, cancel: CancelToken) -> u64 {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        self.lock().insert(
            id,
            Running {
                cancel,
                token: None,
            },
        );
        id
    }

    fn set_token(&self, id: u64, token: Option<ProgressToken>) {
        if let Some(r) = self.lock().get_mut(&id) {
            r.token = token;
        }
    }

    fn remove(&self, id: u64) {
        self.lock().remove(&id);
    }

    /// Cancels every running capture.
    pub fn cancel_all(&self) {
        for r in self.lock().values() {
            r.cancel.cancel();
        }
    }

    /// Cancels the capture reporting progress on `token`; false if none does.
    pub fn cancel_progress(&self, token: &ProgressToken) -> bool {
        let running = self.lock();
        let hit = running.values().find(|r| r.token.as_ref() == Some(token));
        if let Some(r) = hit {
            r.cancel.cancel();
        }
        hit.is_some()
    }
}

/// Cancels the capture when the request's handler is dropped before it
/// finished (`$/cancelRequest`, `exit`), and closes its progress.
pub(super) struct Guard {
    captures: Arc<Captures>,
    pub(super) id: u64,
    cancel: CancelToken,
    progress: Option<(Client, ProgressToken)>,
    pub(super) finished: bool,
    /// The progress `end` message when cancelled.
    pub(super) cancelled_message: &'static str,
}

impl Drop for Guard {
    fn drop(&mut self) {
        self.captures.remove(self.id);
        if self.finished {
            return;
        }
        self.cancel.cancel();
        log_line!(
            "leanscope serve: capture {} cancelled; stopping Lean",
            self.id
        );
        if let (Some((client, token)), Ok(rt)) =
            (self.progress.take(), tokio::runtime::Handle::try_current())
        {
            rt.spawn(progress::end(client, token, self.cancelled_message.into()));
        }
    }
}

/// Validated parameters.
struct Plan {
    request: CaptureRequest,
    timeout: Option<Duration>,
    backend: Backend,
}

fn plan(p: CaptureParams) -> Result<Plan> {
    let file = file_uri_to_path(&p.uri).map_err(errors::invalid_params)?;
    if !file.is_file() {
        return Err(errors::no_such_file("the Lean file", &file));
    }
    let lake = optional_path(p.lake.as_deref(), "lake").map_err(errors::invalid_params)?;
    let output = optional_path(p.output.as_deref(), "output").map_err(errors::invalid_params)?;
    if let Some(dir) = output.as_deref().and_then(Path::parent) {
        if !dir.is_dir() {
            return Err(errors::no_such_directory("the output directory", dir));
        }
    }
    if p.timeout_seconds == Some(0) {
        return Err(errors::invalid_params("timeoutSeconds must be at least 1"));
    }
    let backend = errors::backend(p.backend.as_deref())?;
    let (measure, threshold) =
        errors::measure(p.measure.as_deref(), p.threshold_ms, p.threshold_heartbeats)?;
    Ok(Plan {
        request: CaptureRequest {
            file,
            output,
            threshold,
            measure,
            lake,
            publish: recording::Publish::Atomic,
            memory: crate::capture::MemoryOptions::default(),
            lean_args: Vec::new(),
        },
        timeout: p.timeout_seconds.map(Duration::from_secs),
        backend,
    })
}

/// Registers a cancellable request and begins its progress (on the
/// client's token, or on `<prefix>/<id>` when the client creates tokens).
#[allow(clippy::too_many_arguments)]
pub(super) async fn start(
    client: &Client,
    captures: &Arc<Captures>,
    client_creates_tokens: bool,
    given_token: Option<ProgressToken>,
    prefix: &str,
    title: String,
    message: String,
    cancelled_message: &'static str,
) -> (Guard, WorkDone, CancelToken) {
    // The request's own flag when the transport gave one ($/cancelRequest
    // sets it), so that the request answers once the work has stopped.
    let cancel = super::transport::request_cancel().unwrap_or_default();
    let id = captures.register(cancel.clone());
    let mut guard = Guard {
        captures: captures.clone(),
        id,
        cancel: cancel.clone(),
        progress: None,
        finished: false,
        cancelled_message,
    };
    let server_token =
        client_creates_tokens.then(|| NumberOrString::String(format!("{prefix}/{id}")));
    let work = WorkDone::begin(client, given_token, server_token, title, message).await;
    captures.set_token(id, work.token().cloned());
    guard.progress = work.token().map(|t| (client.clone(), t.clone()));
    (guard, work, cancel)
}

pub async fn run(
    client: &Client,
    captures: &Arc<Captures>,
    client_creates_tokens: bool,
    p: CaptureParams,
) -> Result<CaptureResult> {
    let given_token = p.work_done_token.clone();
    let Plan {
        request,
        timeout,
        backend,
    } = plan(p)?;
    let file = request.file.clone();
    let name = file.file_name().map_or_else(
        || file.display().to_string(),
        |n| n.to_string_lossy().into(),
    );
    let (mut guard, work, cancel) = start(
        client,
        captures,
        client_creates_tokens,
        given_token,
        "leanscope/capture",
        format!("Profiling {name}"),
        "Finding the project and toolchain".into(),
        "Cancelled; Lean was stopped",
    )
    .await;
    let id = guard.id;
    log_line!(
        "leanscope serve: capture {id} of {} started ({} backend)",
        file.display(),
        backend.name()
    );

    let opts = RunOptions {
        timeout,
        cancel,
        ..RunOptions::default()
    };
    let lines = opts.stdout_lines.clone();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Progress>();
    let task = tokio::task::spawn_blocking(move || {
        let result = capture_file(&request, &opts, &mut |p| {
            let _ = tx.send(p);
        });
        match result {
            // Cancelled after Lean finished: the client was told no
            // recording exists, so none may be left.
            Ok(r) if opts.cancel.is_cancelled() => {
                let _ = std::fs::remove_file(&r.recording);
                Err(CaptureError::Run(RunError::Cancelled))
            }
            other => other,
        }
    });
    let mut last_count = None;
    while let Some(p) = rx.recv().await {
        let message = match p {
            Progress::Starting { module, lake } => {
                format!("Starting Lean on {module} (lake: {})", lake.display())
            }
            Progress::Running { messages } => {
                if last_count == Some(messages) {
                    continue;
                }
                last_count = Some(messages);
                format!("Lean has reported {}", plural(messages, "message"))
            }
            Progress::Reading => format!(
                "Lean finished after {}; reading its output",
                plural(lines.load(Ordering::Relaxed), "message")
            ),
            Progress::Writing { path } => format!("Writing {}", display_name(&path)),
        };
        work.report(message).await;
    }
    let result = task
        .await
        .map_err(|e| errors::internal(format!("the capture thread failed: {e}")))?;
    guard.finished = true;
    match result {
        Ok(r) => {
            work.end(format!(
                "Recorded {} in {} ({}{})",
                plural(r.events, "event"),
                plural(r.declarations as u64, "declaration"),
                r.status,
                if r.errors > 0 {
                    format!(", {}", plural(r.errors as u64, "error"))
                } else {
                    String::new()
                }
            ))
            .await;
            log_line!(
                "leanscope serve: capture {id} wrote {}",
                r.recording.display()
            );
            Ok(r)
        }
        Err(CaptureError::Run(RunError::Cancelled)) => {
            work.end(guard.cancelled_message.into()).await;
            log_line!("leanscope serve: capture {id} cancelled; Lean was stopped");
            Err(errors::cancelled())
        }
        Err(e) => {
            let error: Error = errors::capture(&file, e);
            let first_line = error.message.lines().next().unwrap_or("").to_string();
            work.end(format!("Failed: {first_line}")).await;
            log_line!("leanscope serve: capture {id} failed: {}", error.message);
            Err(error)
        }
    }
}

pub(super) fn plural(n: u64, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

fn display_name(p: &Path) -> String {
    p.file_name()
        .map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(uri: &str) -> CaptureParams {
        CaptureParams {
            uri: uri.into(),
            threshold_ms: None,
            measure: None,
            threshold_heartbeats: None,
            lake: None,
            timeout_seconds: None,
            backend: None,
            output: None,
            work_done_token: None,
        }
    }

    #[test]
    fn parameters_are_checked_before_lean_runs() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("A.lean");
        std::fs::write(&f, "").unwrap();
        let uri = format!("file://{}", f.display());
        let ok = plan(params(&uri)).unwrap();
        assert_eq!(ok.request.file, f);
        assert_eq!(ok.request.threshold, crate::capture::DEFAULT_THRESHOLD_MS);
        assert_eq!(ok.request.measure, recording::Measure::Time);
        let hb = plan(CaptureParams {
            measure: Some("heartbeats".into()),
            ..params(&uri)
        })
        .unwrap();
        assert_eq!(hb.request.measure, recording::Measure::Heartbeats);
        assert_eq!(
            hb.request.threshold,
            crate::capture::DEFAULT_THRESHOLD_HEARTBEATS
        );
        let mixed = plan(CaptureParams {
            measure: Some("heartbeats".into()),
            threshold_ms: Some(5),
            ..params(&uri)
        });
        assert!(mixed.is_err());
        assert_eq!(ok.backend, Backend::Stock, "no backend is stock");
        let stock = plan(CaptureParams {
            backend: Some("stock".into()),
            ..params(&uri)
        })
        .unwrap();
        assert_eq!(stock.backend, Backend::Stock);
        for given in ["native", "auto"] {
            let e = plan(CaptureParams {
                backend: Some(given.into()),
                ..params(&uri)
            })
            .err()
            .unwrap();
            assert_eq!(e.code, tower_lsp_server::jsonrpc::ErrorCode::InvalidParams);
            assert_eq!(
                e.message,
                format!("unknown capture backend {given:?}; the accepted backends are \"stock\"")
            );
            assert_eq!(
                e.data,
                Some(
                    serde_json::json!({"kind": "unknownBackend", "value": given, "accepted": ["stock"]})
                )
            );
        }

        let e = plan(params("untitled:Untitled-1")).err().unwrap();
        assert_eq!(e.code, tower_lsp_server::jsonrpc::ErrorCode::InvalidParams);
        let e = plan(params(&format!("{uri}x"))).err().unwrap();
        assert!(
            e.message
                .ends_with("A.leanx does not exist or is not a file"),
            "{}",
            e.message
        );
        let e = plan(CaptureParams {
            timeout_seconds: Some(0),
            ..params(&uri)
        })
        .err()
        .unwrap();
        assert_eq!(e.message, "timeoutSeconds must be at least 1");
        let ok = plan(CaptureParams {
            timeout_seconds: Some(1),
            ..params(&uri)
        })
        .unwrap();
        assert_eq!(ok.timeout, Some(Duration::from_secs(1)));
        let e = plan(CaptureParams {
            lake: Some("bin/lake".into()),
            ..params(&uri)
        })
        .err()
        .unwrap();
        assert_eq!(
            e.message,
            "the lake must be an absolute path or a file:// URI, not \"bin/lake\""
        );
        let e = plan(CaptureParams {
            output: Some("/no/such/dir/x.lsrec".into()),
            ..params(&uri)
        })
        .err()
        .unwrap();
        assert_eq!(
            e.message,
            "the output directory /no/such/dir does not exist or is not a directory"
        );
    }

    #[test]
    fn counts_read_well() {
        assert_eq!(plural(1, "message"), "1 message");
        assert_eq!(plural(9, "message"), "9 messages");
    }
}
