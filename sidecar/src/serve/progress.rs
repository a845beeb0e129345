//! Work-done progress (`$/progress` begin/report/end) for a request.
//!
//! The token is the client's `workDoneToken` when the request carries one;
//! otherwise, when the client said it handles `window.workDoneProgress`,
//! the server asks it to create one (`window/workDoneProgress/create`). A
//! client that does neither gets no progress notifications.

use super::log::log_line;
use tower_lsp_server::ls_types::notification::Progress;
use tower_lsp_server::ls_types::{
    ProgressParams, ProgressParamsValue, ProgressToken, WorkDoneProgress, WorkDoneProgressBegin,
    WorkDoneProgressEnd, WorkDoneProgressReport,
};
use tower_lsp_server::Client;

/// A started progress stream (or none, when the client gets no progress).
pub struct WorkDone {
    client: Client,
    token: Option<ProgressToken>,
}

impl WorkDone {
    /// Picks or creates the token and sends `begin`. Cancellable progress
    /// shows a Cancel button, which sends `window/workDoneProgress/cancel`.
    pub async fn begin(
        client: &Client,
        given: Option<ProgressToken>,
        may_create: Option<ProgressToken>,
        title: String,
        message: String,
    ) -> WorkDone {
        let token = match (given, may_create) {
            (Some(t), _) => Some(t),
            (None, Some(t)) => match client.create_work_done_progress(t.clone()).await {
                Ok(()) => Some(t),
                Err(e) => {
                    log_line!("leanscope serve: the client refused a progress token: {e}");
                    None
                }
            },
            (None, None) => None,
        };
        let w = WorkDone {
            client: client.clone(),
            token,
        };
        w.send(WorkDoneProgress::Begin(WorkDoneProgressBegin {
            title,
            cancellable: Some(true),
            message: Some(message),
            percentage: None,
        }))
        .await;
        w
    }

    pub fn token(&self) -> Option<&ProgressToken> {
        self.token.as_ref()
    }

    pub async fn report(&self, message: String) {
        self.report_percent(message, None).await;
    }

    pub async fn report_percent(&self, message: String, percentage: Option<u32>) {
        self.send(WorkDoneProgress::Report(WorkDoneProgressReport {
            cancellable: None,
            message: Some(message),
            percentage,
        }))
        .await;
    }

    pub async fn end(&self, message: String) {
        self.send(WorkDoneProgress::End(WorkDoneProgressEnd {
            message: Some(message),
        }))
        .await;
    }

    async fn send(&self, value: WorkDoneProgress) {
        if let Some(token) = &self.token {
            send(&self.client, token.clone(), value).await;
        }
    }
}

/// Sends `end` on a token, for a request whose handler is gone.
pub async fn end(client: Client, token: ProgressToken, message: String) {
    send(
        &client,
        token,
        WorkDoneProgress::End(WorkDoneProgressEnd {
            message: Some(message),
        }),
    )
    .await;
}

async fn send(client: &Client, token: ProgressToken, value: WorkDoneProgress) {
    client
        .send_notification::<Progress>(ProgressParams {
            token,
            value: ProgressParamsValue::WorkDone(value),
        })
        .await;
}
