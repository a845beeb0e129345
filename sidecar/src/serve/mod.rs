//! `leanscope serve`: JSON-RPC over stdio with LSP framing
//! (`Content-Length` headers): `tower-lsp-server`'s service behind our own
//! transport (transport.rs: framing limits, bad messages answered,
//! Cancel heard while every slot is busy).
//!
//! After `initialize`, it answers `leanscope/capture`, `leanscope/open` and
//! `leanscope/annotations` (README, "JSON-RPC"; `schemas/rpc/`). Captures
//! run on blocking threads with `$/progress`, and stop Lean when cancelled.

mod annotations;
mod backend;
mod capture;
mod compare;
mod errors;
mod hot_spots;
mod log;
mod open;
mod progress;
mod recordings;
mod revisions;
mod session_annotations;
mod sessions;
mod transport;
mod uri;
mod wire;

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use tower_lsp_server::LspService;

use backend::{Backend, Shared};
use transport::End;

/// How long the process waits, after the client is gone, for cancelled
/// captures to stop Lean (SIGTERM, then SIGKILL after its grace period).
const STOP_WAIT: Duration = Duration::from_secs(5);

/// Serves on stdin/stdout until `exit` or the end of stdin. Returns 0 after
/// `shutdown` then `exit`, 1 otherwise (as LSP asks).
pub fn run() -> anyhow::Result<u8> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let shared = Arc::new(Shared::default());
    let serving = shared.clone();
    let end = rt.block_on(async move {
        let captures = serving.captures.clone();
        let (service, socket) = LspService::build(|client| Backend::new(client, serving))
            .custom_method("leanscope/capture", Backend::capture)
            .custom_method("leanscope/open", Backend::open)
            .custom_method("leanscope/annotations", Backend::annotations)
            .custom_method("leanscope/compare", Backend::compare)
            .custom_method("leanscope/captureFolder", Backend::capture_folder)
            .custom_method("leanscope/query", Backend::query)
            .custom_method("leanscope/hotSpots", Backend::hot_spots)
            .custom_method("leanscope/compareRevisions", Backend::compare_revisions)
            .custom_method(
                "window/workDoneProgress/cancel",
                Backend::work_done_progress_cancel,
            )
            .finish();
        transport::serve(
            tokio::io::stdin(),
            tokio::io::stdout(),
            service,
            socket,
            captures,
            STOP_WAIT,
        )
        .await
    });
    // Cancelled captures that did not answer within STOP_WAIT still stop
    // Lean before the process goes.
    shared.captures.cancel_all();
    rt.shutdown_timeout(STOP_WAIT);
    if matches!(end, End::Unreadable(_)) {
        return Ok(1);
    }
    Ok(if shared.shutdown.load(Ordering::SeqCst) {
        0
    } else {
        1
    })
}
