//! The session layout: a folder or project capture on disk.
//!
//! ```text
//! SESSION/
//!   session.json   the manifest (rewritten atomically after every file)
//!   index.jsonl    one row per file, declaration and tactic (append-only)
//!   files/*.lsrec  one recording per captured file
//! ```
//!
//! These types are the one definition of both JSON documents; writers
//! (captures, `leanscope synth-session`) and readers (the viewer, query)
//! share them. Field names are camelCase on disk.
//!
//! Readers trust only files the manifest marks committed ([`FileStatus::is_committed`]),
//! and only index rows of those files: a row of a file that is not
//! committed (a capture that crashed between appending rows and
//! rewriting the manifest) is ignored, and so is a half-written last line.

use serde::{Deserialize, Serialize};

use crate::model::{declaration_times, file_time, tactic_rows, Recording};
use crate::types::SourceRange;

/// The manifest's schema version this build writes and the newest it reads.
pub const SESSION_SCHEMA_VERSION: u32 = 1;
/// File name of the manifest inside a session directory.
pub const MANIFEST_FILE: &str = "session.json";
/// File name of the index inside a session directory.
pub const INDEX_FILE: &str = "index.jsonl";
/// Folder of the recordings inside a session directory.
pub const FILES_DIR: &str = "files";
/// Longest error text kept for a file, in bytes.
pub const MAX_ERROR_TEXT_BYTES: usize = 4096;
/// Most files a session may list.
pub const MAX_SESSION_FILES: usize = 1_000_000;

/// The state of the whole session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SessionStatus {
    /// A capture is writing it, or it stopped without saying so (crash,
    /// `kill -9`): readers report such a session as interrupted.
    Running,
    Complete,
    /// Finished, with some files failed or skipped.
    Partial,
    Cancelled,
}

impl SessionStatus {
    /// How readers name the state: `running` on disk is `interrupted`
    /// for anyone reading it, since the writer may be gone.
    pub fn reader_label(self) -> &'static str {
        match self {
            SessionStatus::Running => "interrupted",
            SessionStatus::Complete => "complete",
            SessionStatus::Partial => "partial",
            SessionStatus::Cancelled => "cancelled",
        }
    }
}

/// The state of one planned file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FileStatus {
    /// Planned, not captured yet.
    Pending,
    /// Captured; Lean reported no errors.
    Ok,
    /// Captured; Lean reported errors for the file.
    Error,
    /// The capture failed; no recording.
    Failed,
    /// Not captured on purpose.
    Skipped,
}

impl FileStatus {
    /// True when the file's recording was published: only these files
    /// and their index rows are trusted.
    pub fn is_committed(self) -> bool {
        matches!(self, FileStatus::Ok | FileStatus::Error)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            FileStatus::Pending => "pending",
            FileStatus::Ok => "ok",
            FileStatus::Error => "error",
            FileStatus::Failed => "failed",
            FileStatus::Skipped => "skipped",
        }
    }
}

/// `session.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionManifest {
    pub schema_version: u32,
    /// Absolute path of the project root the paths are relative to.
    pub project_root: String,
    /// What was captured: a file, a folder (project-relative) or `project`.
    pub target: String,
    #[serde(default)]
    pub toolchains: Vec<String>,
    pub started_unix_ms: u64,
    #[serde(default)]
    pub completed_unix_ms: Option<u64>,
    pub status: SessionStatus,
    pub planned: u64,
    pub completed: u64,
    pub failed: u64,
    pub files: Vec<SessionFile>,
}

/// One planned file of a session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionFile {
    pub id: u32,
    /// Project-relative path with `/` separators.
    pub path: String,
    #[serde(default)]
    pub module: String,
    pub status: FileStatus,
    /// Session-relative path of the recording (committed files only).
    #[serde(default)]
    pub recording: Option<String>,
    /// Lean's elapsed time for the file, imports included.
    #[serde(default)]
    pub elapsed_ns: Option<u64>,
    /// The union of the recorded top-level intervals.
    #[serde(default)]
    pub traced_ns: Option<u64>,
    /// Wall-clock time of the whole capture of the file.
    #[serde(default)]
    pub capture_wall_ms: Option<u64>,
    #[serde(default)]
    pub events: Option<u64>,
    #[serde(default)]
    pub declarations: Option<u64>,
    #[serde(default)]
    pub source_sha256: Option<String>,
    /// Why the capture failed or what Lean reported, at most
    /// [`MAX_ERROR_TEXT_BYTES`].
    #[serde(default)]
    pub error: Option<String>,
}

impl SessionFile {
    /// The file's time: Lean's elapsed time when known, otherwise the
    /// traced time (see [`SessionFile::time_is_elapsed`]). `None` for a
    /// file that is not committed.
    pub fn time_ns(&self) -> Option<u64> {
        if !self.status.is_committed() {
            return None;
        }
        self.elapsed_ns.or(self.traced_ns)
    }

    /// True when [`SessionFile::time_ns`] is Lean's elapsed time.
    pub fn time_is_elapsed(&self) -> bool {
        self.elapsed_ns.is_some()
    }

    /// The manifest entry of a committed file from its recording.
    pub fn from_recording(id: u32, path: &str, recording_path: &str, rec: &Recording) -> Self {
        let status = match rec.header.status {
            crate::types::CaptureStatus::Ok => FileStatus::Ok,
            crate::types::CaptureStatus::Error => FileStatus::Error,
        };
        SessionFile {
            id,
            path: path.to_owned(),
            module: rec.header.module_name.clone(),
            status,
            recording: Some(recording_path.to_owned()),
            elapsed_ns: rec.header.elapsed_ns,
            traced_ns: Some(file_time(rec).traced_ns),
            capture_wall_ms: None,
            events: Some(rec.len() as u64),
            declarations: Some(rec.header.declarations.len() as u64),
            source_sha256: Some(rec.header.source_sha256.clone()),
            error: None,
        }
    }
}

/// Cuts an error text to [`MAX_ERROR_TEXT_BYTES`] on a character boundary.
pub fn cap_error_text(text: &str) -> String {
    if text.len() <= MAX_ERROR_TEXT_BYTES {
        return text.to_owned();
    }
    let mut end = MAX_ERROR_TEXT_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

/// What an index row describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RowKind {
    File,
    Declaration,
    Tactic,
}

/// One line of `index.jsonl`. Lines are 1-based here (they are for
/// people and scripts); times are milliseconds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IndexRow {
    pub kind: RowKind,
    /// The file's module, the declaration's name, or the tactic's text.
    pub name: String,
    /// Project-relative path of the file.
    pub path: String,
    pub duration_ms: f64,
    #[serde(default)]
    pub self_ms: Option<f64>,
    #[serde(default)]
    pub line: Option<u32>,
    #[serde(default)]
    pub end_line: Option<u32>,
    /// The enclosing declaration (tactic rows).
    #[serde(default)]
    pub declaration: Option<String>,
    /// How the source range was obtained: `exact`, `matched`, ….
    #[serde(default)]
    pub attribution: Option<String>,
}

fn ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}

fn lines_of(r: SourceRange) -> (Option<u32>, Option<u32>) {
    (Some(r.start_line + 1), Some(r.end_line + 1))
}

/// The index rows of one committed file: the file, each declaration with
/// recorded time, each tactic span. `time_ns` is the file's time as the
/// manifest gives it ([`SessionFile::time_ns`]).
pub fn index_rows(rec: &Recording, path: &str, time_ns: Option<u64>) -> Vec<IndexRow> {
    let decls = &rec.header.declarations;
    let mut rows = vec![IndexRow {
        kind: RowKind::File,
        name: rec.header.module_name.clone(),
        path: path.to_owned(),
        duration_ms: ms(time_ns.unwrap_or_else(|| file_time(rec).traced_ns)),
        self_ms: None,
        line: None,
        end_line: None,
        declaration: None,
        attribution: None,
    }];
    for (d, time) in decls.iter().zip(declaration_times(rec)) {
        let Some(t) = time else { continue };
        let (line, end_line) = lines_of(d.range);
        rows.push(IndexRow {
            kind: RowKind::Declaration,
            name: d.name.clone(),
            path: path.to_owned(),
            duration_ms: ms(t.total_ns),
            self_ms: Some(ms(t.self_ns)),
            line,
            end_line,
            declaration: None,
            attribution: None,
        });
    }
    for t in tactic_rows(rec) {
        let (line, end_line) = lines_of(t.range);
        rows.push(IndexRow {
            kind: RowKind::Tactic,
            name: t.label.clone(),
            path: path.to_owned(),
            duration_ms: ms(t.time.total_ns),
            self_ms: Some(ms(t.time.self_ns)),
            line,
            end_line,
            declaration: t.declaration.map(|d| decls[d].name.clone()),
            attribution: Some(t.range_kind.as_str().to_owned()),
        });
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn committed_statuses() {
        assert!(FileStatus::Ok.is_committed());
        assert!(FileStatus::Error.is_committed());
        for s in [FileStatus::Pending, FileStatus::Failed, FileStatus::Skipped] {
            assert!(!s.is_committed());
        }
        assert_eq!(SessionStatus::Running.reader_label(), "interrupted");
    }

    #[test]
    fn error_text_is_capped_on_a_char_boundary() {
        let short = "lean crashed";
        assert_eq!(cap_error_text(short), short);
        let exact = "a".repeat(MAX_ERROR_TEXT_BYTES);
        assert_eq!(cap_error_text(&exact), exact);
        let long = format!("{}é", "a".repeat(MAX_ERROR_TEXT_BYTES - 1));
        let capped = cap_error_text(&long);
        assert_eq!(capped, format!("{}…", "a".repeat(MAX_ERROR_TEXT_BYTES - 1)));
    }

    #[test]
    fn file_time_prefers_elapsed_and_needs_a_commit() {
        let mut f = SessionFile {
            id: 0,
            path: "A.lean".into(),
            module: "A".into(),
            status: FileStatus::Ok,
            recording: Some("files/0.lsrec".into()),
            elapsed_ns: Some(10),
            traced_ns: Some(7),
            capture_wall_ms: None,
            events: None,
            declarations: None,
            source_sha256: None,
            error: None,
        };
        assert_eq!(f.time_ns(), Some(10));
        f.elapsed_ns = None;
        assert_eq!(f.time_ns(), Some(7));
        assert!(!f.time_is_elapsed());
        f.status = FileStatus::Failed;
        assert_eq!(f.time_ns(), None);
    }
}
