//! The language-server side of `leanscope serve`: `initialize`,
//! `shutdown`, and the `leanscope/*` methods.

use super::log::log_line;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use serde_json::json;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{
    InitializeParams, InitializeResult, InitializedParams, ServerCapabilities, ServerInfo,
    WorkDoneProgressCancelParams,
};
use tower_lsp_server::{Client, LanguageServer};

use super::annotations::{self, AnnotationsAnswer, AnnotationsParams, Source};
use super::capture::{self, CaptureParams, Captures};
use super::compare::{self, CompareParams};
use super::errors;
use super::open::{self, OpenAnswer, OpenParams};
use super::recordings::{Loaded, Recordings};
use super::sessions;
use super::uri::path_or_uri;
use crate::capture::CaptureResult;

/// The methods `leanscope serve` answers besides LSP's own.
pub const METHODS: [&str; 8] = [
    "leanscope/capture",
    "leanscope/open",
    "leanscope/annotations",
    "leanscope/captureFolder",
    "leanscope/query",
    "leanscope/hotSpots",
    "leanscope/compare",
    "leanscope/compareRevisions",
];

/// State shared by the server and the process that runs it.
#[derive(Default)]
pub struct Shared {
    pub captures: Arc<Captures>,
    pub recordings: Recordings,
    /// `shutdown` was received (so `exit` exits 0).
    pub shutdown: AtomicBool,
    /// The client handles `window/workDoneProgress/create`.
    pub client_progress: AtomicBool,
}

pub struct Backend {
    client: Client,
    shared: Arc<Shared>,
}

impl Backend {
    pub fn new(client: Client, shared: Arc<Shared>) -> Self {
        Backend { client, shared }
    }

    pub async fn capture(&self, p: CaptureParams) -> Result<CaptureResult> {
        let creates = self.shared.client_progress.load(Ordering::SeqCst);
        capture::run(&self.client, &self.shared.captures, creates, p).await
    }

    pub async fn capture_folder(
        &self,
        p: sessions::CaptureFolderParams,
    ) -> Result<crate::session::engine::SessionSummary> {
        let creates = self.shared.client_progress.load(Ordering::SeqCst);
        sessions::capture_folder(&self.client, &self.shared.captures, creates, p).await
    }

    pub async fn compare_revisions(
        &self,
        p: super::revisions::CompareRevisionsParams,
    ) -> Result<super::revisions::CompareRevisionsResult> {
        let creates = self.shared.client_progress.load(Ordering::SeqCst);
        super::revisions::compare_revisions(&self.client, &self.shared.captures, creates, p).await
    }

    pub async fn query(&self, p: sessions::QueryParams) -> Result<crate::commands::query::Answer> {
        sessions::query(p).await
    }

    pub async fn hot_spots(
        &self,
        p: super::hot_spots::HotSpotsParams,
    ) -> Result<crate::hot_spots::Document> {
        super::hot_spots::hot_spots(p).await
    }

    pub async fn open(&self, p: OpenParams) -> Result<OpenAnswer> {
        let path = path_or_uri(&p.recording, "recording").map_err(errors::invalid_params)?;
        self.with_recording(path.clone(), move |loaded| open::answer(path, loaded))
            .await
    }

    pub async fn annotations(&self, p: AnnotationsParams) -> Result<AnnotationsAnswer> {
        let source = p.source()?;
        let opts = p.headroom_options()?;
        let text = p.text;
        match source {
            Source::Recording(path) => {
                self.with_recording(path, move |loaded| annotations::answer(loaded, &text, opts))
                    .await
            }
            Source::Session { dir, file } => {
                let shared = self.shared.clone();
                tokio::task::spawn_blocking(move || {
                    super::session_annotations::answer(&shared.recordings, &dir, &file, &text, opts)
                })
                .await
                .map_err(|e| errors::internal(format!("reading the session failed: {e}")))?
            }
        }
    }

    pub async fn compare(&self, p: CompareParams) -> Result<serde_json::Value> {
        let checked = compare::check(p)?;
        tokio::task::spawn_blocking(move || compare::answer(checked))
            .await
            .map_err(|e| errors::internal(format!("comparing failed: {e}")))?
    }

    /// The Cancel button of a capture's progress.
    pub async fn work_done_progress_cancel(&self, p: WorkDoneProgressCancelParams) {
        if !self.shared.captures.cancel_progress(&p.token) {
            log_line!(
                "leanscope serve: no running capture reports progress on {:?}",
                p.token
            );
        }
    }

    /// Loads the recording and computes `f` off the async threads.
    async fn with_recording<T: Send + 'static>(
        &self,
        path: std::path::PathBuf,
        f: impl FnOnce(&Loaded) -> T + Send + 'static,
    ) -> Result<T> {
        let shared = self.shared.clone();
        tokio::task::spawn_blocking(move || shared.recordings.get(&path).map(|l| f(&l)))
            .await
            .map_err(|e| errors::internal(format!("reading the recording failed: {e}")))?
    }
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        let progress = params
            .capabilities
            .window
            .as_ref()
            .and_then(|w| w.work_done_progress)
            .unwrap_or(false);
        self.shared
            .client_progress
            .store(progress, Ordering::SeqCst);
        Ok(InitializeResult {
            capabilities: ServerCapabilities {
                experimental: Some(json!({
                    "leanscope": {
                        "methods": METHODS,
                        "recordingSchemaVersion": recording::SCHEMA_VERSION,
                    }
                })),
                ..ServerCapabilities::default()
            },
            server_info: Some(ServerInfo {
                name: "leanscope".into(),
                version: Some(env!("CARGO_PKG_VERSION").into()),
            }),
            ..InitializeResult::default()
        })
    }

    async fn initialized(&self, _: InitializedParams) {
        log_line!("leanscope serve: ready");
    }

    async fn shutdown(&self) -> Result<()> {
        self.shared.shutdown.store(true, Ordering::SeqCst);
        Ok(())
    }
}
