//! One tool call's context: its progress token (`_meta.progressToken`), its cancellation
//! (`notifications/cancelled`, or the client going away) and the blocking work it runs.
//! Long work (a capture, a revision run) runs on a blocking thread with a
//! [`CancelToken`] that the call's cancellation sets, so Lean's process group is stopped.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::{Peer, RoleServer};
use tokio_util::sync::CancellationToken;

use super::state::State;
use super::ToolError;
use crate::capture::CancelToken;

pub struct Call {
    pub state: Arc<State>,
    peer: Peer<RoleServer>,
    token: Option<ProgressToken>,
    cancelled: CancellationToken,
    step: AtomicU64,
}

/// Sets the work's [`CancelToken`] when the call is cancelled, or when the call's future
/// is dropped before the work finished.
struct Stop {
    cancel: CancelToken,
    finished: bool,
}

impl Drop for Stop {
    fn drop(&mut self) {
        if !self.finished {
            self.cancel.cancel();
        }
    }
}

impl Call {
    pub fn new(
        state: Arc<State>,
        peer: Peer<RoleServer>,
        token: Option<ProgressToken>,
        cancelled: CancellationToken,
    ) -> Call {
        Call {
            state,
            peer,
            token,
            cancelled,
            step: AtomicU64::new(0),
        }
    }

    /// Sends a progress notification when the client asked for them.
    pub async fn progress(&self, message: String) {
        let Some(token) = &self.token else {
            return;
        };
        let step = self.step.fetch_add(1, Ordering::Relaxed) + 1;
        let _ = self
            .peer
            .notify_progress(
                ProgressNotificationParam::new(token.clone(), step as f64).with_message(message),
            )
            .await;
    }

    /// Runs `work` on a blocking thread; each event it reports that `describe` turns into
    /// text is sent as progress. Cancelling the call sets the work's [`CancelToken`] (the
    /// work stops Lean) and answers a tool error once the work has stopped.
    pub async fn blocking<T, E>(
        &self,
        what: &str,
        work: impl FnOnce(CancelToken, &mut dyn FnMut(E)) -> T + Send + 'static,
        describe: impl Fn(E) -> Option<String>,
    ) -> Result<T, ToolError>
    where
        T: Send + 'static,
        E: Send + 'static,
    {
        let cancel = CancelToken::default();
        let registered = self.state.running.register(cancel.clone());
        let mut stop = Stop {
            cancel: cancel.clone(),
            finished: false,
        };
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<E>();
        let given = cancel.clone();
        let task = tokio::task::spawn_blocking(move || {
            work(given, &mut |e| {
                let _ = tx.send(e);
            })
        });
        let watch = self.cancelled.clone();
        let on_cancel = cancel.clone();
        let watcher = tokio::spawn(async move {
            watch.cancelled().await;
            on_cancel.cancel();
        });
        while let Some(e) = rx.recv().await {
            if let Some(message) = describe(e) {
                self.progress(message).await;
            }
        }
        let result = task.await;
        watcher.abort();
        stop.finished = true;
        self.state.running.remove(registered);
        let value = result.map_err(|e| ToolError::new(format!("{what} failed: {e}")))?;
        if cancel.is_cancelled() {
            return Err(ToolError::new(format!(
                "{what} was cancelled; Lean was stopped. Call the tool again to start over."
            )));
        }
        Ok(value)
    }
}
