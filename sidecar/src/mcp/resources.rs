//! Recordings and sessions as MCP resources. `leanscope://recording/<absolute path>` is a
//! recording (`.lsrec`), `leanscope://session/<absolute path>` a session directory (the
//! path percent-encoded where it is not plain). The list holds the recordings and sessions
//! this server's tools wrote and those under `<root>/.leanscope/`, newest first, at most
//! [`MAX_MCP_RESOURCES_LISTED`]; reading one gives its report as JSON (bounded as tool results are).
//! Tools accept these URIs wherever they take a recording or session.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use rmcp::model::{Resource, ResourceContents};
use serde_json::Value;

use super::state::State;
use super::{bounds, query, report, ToolError};
use crate::capture::PROJECT_DIR;
use crate::viewer::server::route::percent_decode;
use leanscope::limits::MAX_MCP_RESOURCES_LISTED;

pub const RECORDING: &str = "leanscope://recording";
pub const SESSION: &str = "leanscope://session";

pub fn uri_of_recording(path: &Path) -> String {
    format!("{RECORDING}{}", encode(path))
}

pub fn uri_of_session(path: &Path) -> String {
    format!("{SESSION}{}", encode(path))
}

/// What a tool argument names: a `leanscope://` URI, a `file://` URI, or a path (relative
/// paths are under the server's root).
pub fn source(state: &State, given: &str) -> Result<PathBuf, ToolError> {
    for prefix in [RECORDING, SESSION, "file://"] {
        if let Some(rest) = given.strip_prefix(prefix) {
            return decode(rest).ok_or_else(|| {
                ToolError::new(format!(
                    "{given:?} is not a valid URI: after {prefix} comes an absolute path, percent-encoded"
                ))
            });
        }
    }
    if given.starts_with("leanscope://") {
        return Err(ToolError::new(format!(
            "{given:?} is not a leanscope resource: they begin with {RECORDING}/ or {SESSION}/"
        )));
    }
    if given.is_empty() {
        return Err(ToolError::new(
            "the path is empty: give a file or directory",
        ));
    }
    Ok(state.path(given))
}

fn encode(path: &Path) -> String {
    let mut s = String::new();
    for &b in path.as_os_str().as_encoded_bytes() {
        if b.is_ascii_alphanumeric() || b"/-_.~+@,=".contains(&b) {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    s
}

fn decode(s: &str) -> Option<PathBuf> {
    let path = PathBuf::from(percent_decode(s)?);
    path.is_absolute().then_some(path)
}

fn is_session(dir: &Path) -> bool {
    dir.join(recording::session::MANIFEST_FILE).is_file()
}

fn modified(p: &Path) -> SystemTime {
    std::fs::metadata(p)
        .and_then(|m| m.modified())
        .unwrap_or(SystemTime::UNIX_EPOCH)
}

/// The recordings and sessions to list, newest first.
pub fn list(state: &State) -> Vec<Resource> {
    let mut found: Vec<PathBuf> = state.written();
    let base = state.root.join(PROJECT_DIR);
    for (dir, want_dir) in [("recordings", false), ("sessions", true)] {
        let Ok(entries) = std::fs::read_dir(base.join(dir)) else {
            continue;
        };
        for e in entries.flatten().take(10 * MAX_MCP_RESOURCES_LISTED) {
            let p = e.path();
            let ok = if want_dir {
                is_session(&p)
            } else {
                p.extension().is_some_and(|x| x == "lsrec")
            };
            if ok && !found.contains(&p) {
                found.push(p);
            }
        }
    }
    let mut dated: Vec<(SystemTime, PathBuf)> =
        found.into_iter().map(|p| (modified(&p), p)).collect();
    dated.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    dated
        .into_iter()
        .filter(|(_, p)| p.exists())
        .take(MAX_MCP_RESOURCES_LISTED)
        .map(|(_, p)| {
            let name = p
                .file_name()
                .map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().into());
            if p.is_dir() {
                Resource::new(uri_of_session(&p), name)
                    .with_description(format!("leanscope session {}", p.display()))
                    .with_mime_type("application/json")
            } else {
                Resource::new(uri_of_recording(&p), name)
                    .with_description(format!("leanscope recording {}", p.display()))
                    .with_mime_type("application/json")
            }
        })
        .collect()
}

/// A resource's contents: a recording's report, or a session's slowest files and
/// declarations.
pub fn read(state: &State, uri: &str) -> Result<ResourceContents, ToolError> {
    if !uri.starts_with(RECORDING) && !uri.starts_with(SESSION) {
        return Err(ToolError::new(format!(
            "{uri:?} is not a leanscope resource: they begin with {RECORDING}/ or {SESSION}/ (list the resources to see them)"
        )));
    }
    let path = source(state, uri)?;
    let mut value: Value = if uri.starts_with(RECORDING) {
        let rec = report::open(&path)?;
        report::file_report(&rec, &path, bounds::DEFAULT_LIMIT)
    } else {
        query::session_report(&path, bounds::DEFAULT_LIMIT)?
    };
    bounds::fit(&mut value);
    Ok(ResourceContents::TextResourceContents {
        uri: uri.to_string(),
        mime_type: Some("application/json".into()),
        text: value.to_string(),
        meta: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_round_trip_paths() {
        let p = Path::new("/tmp/a b/Demo%1.lsrec");
        let uri = uri_of_recording(p);
        assert_eq!(uri, "leanscope://recording/tmp/a%20b/Demo%251.lsrec");
        let state = State::new(PathBuf::from("/root"));
        assert_eq!(source(&state, &uri).unwrap(), p);
        assert_eq!(
            source(&state, "x.lsrec").unwrap(),
            Path::new("/root/x.lsrec")
        );
        assert!(source(&state, "leanscope://other/x").is_err());
        assert!(source(&state, "leanscope://recording/%zz").is_err());
        assert!(source(&state, "leanscope://recordingrelative").is_err());
    }
}
