//! `leanscope/hotSpots`: the hot-spots document of a recording (`uri`) or a session
//! (`session`), as `leanscope top --json` writes it.

use recording::hotspots::By;
use serde::Deserialize;
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};

use super::errors;
use super::uri::path_or_uri;
use crate::commands::top::{DEFAULT_DEPTH, DEFAULT_LIMIT};
use crate::hot_spots::{self, Document, TopError, TopSpec};

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Sort {
    #[serde(rename = "self")]
    SelfTime,
    Total,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HotSpotsParams {
    /// A recording or another profiler's file: an absolute path or a `file://` URI.
    pub uri: Option<String>,
    /// Or a session directory.
    pub session: Option<String>,
    /// `key` (default) or `class`.
    pub by: Option<String>,
    #[serde(default)]
    pub classes: Vec<String>,
    pub limit: Option<usize>,
    pub depth: Option<usize>,
    pub sort: Option<Sort>,
    /// A key path (`top --path`).
    pub path: Option<String>,
    #[serde(default)]
    pub inverted: bool,
    #[serde(default)]
    pub tree: bool,
    /// A session's files under this project-relative folder.
    pub folder: Option<String>,
}

pub async fn hot_spots(p: HotSpotsParams) -> Result<Document> {
    let (source, is_session) = match (&p.uri, &p.session) {
        (Some(u), None) => (
            path_or_uri(u, "uri").map_err(errors::invalid_params)?,
            false,
        ),
        (None, Some(s)) => (
            path_or_uri(s, "session").map_err(errors::invalid_params)?,
            true,
        ),
        _ => {
            return Err(errors::invalid_params(
                "give uri (a recording) or session (a session directory), one of them",
            ))
        }
    };
    let by = match p.by.as_deref() {
        None => By::Key,
        Some(b) => By::parse(b).ok_or_else(|| {
            errors::invalid_params(format!("unknown by {b:?}; expected \"key\" or \"class\""))
        })?,
    };
    if p.folder.is_some() && !is_session {
        return Err(errors::invalid_params("folder goes with session"));
    }
    let spec = TopSpec {
        by,
        classes: p.classes,
        path: p.path,
        inverted: p.inverted,
        tree: p.tree,
        folder: p.folder,
        limit: p.limit.unwrap_or(DEFAULT_LIMIT),
        depth: p.depth.unwrap_or(DEFAULT_DEPTH),
        by_total: matches!(p.sort, Some(Sort::Total)),
        format: None,
        import: Default::default(),
    };
    tokio::task::spawn_blocking(move || {
        if is_session && !source.is_dir() {
            return Err(errors::no_such_directory("the session", &source));
        }
        if !is_session && !source.is_file() {
            return Err(errors::no_such_file("the recording", &source));
        }
        hot_spots::answer(&source, &spec).map_err(|e| match e {
            TopError::Usage(m) => errors::invalid_params(m),
            TopError::Recording(path, r) => errors::recording(&path, &r),
            TopError::Session(path, e) => errors::not_a_session(&path, &format!("{e:#}")),
            TopError::Other(path, e) => not_readable(format!("{e:#}"), &path),
        })
    })
    .await
    .map_err(|e| errors::internal(format!("finding the hot spots failed: {e}")))?
}

/// A profile that cannot be imported, or a session's recording that cannot be read: the
/// code and kind of a file that is not a readable recording.
fn not_readable(message: String, path: &std::path::Path) -> Error {
    Error {
        code: ErrorCode::ServerError(errors::NOT_A_RECORDING),
        message: message.into(),
        data: Some(serde_json::json!({"kind": "notARecording", "path": path})),
    }
}
