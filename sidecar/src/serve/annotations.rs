//! `leanscope/annotations`: line bars, declaration times and the top
//! operations of each line, for the buffer an editor shows — or a stale
//! answer when the buffer is not the recorded source.
//!
//! From a `recording`, or from a `session` and one of its `file`s (see
//! [`super::session_annotations`]): a repeated capture's file is annotated
//! with the medians over its runs and their spreads.

use std::path::PathBuf;

use recording::headroom::{headroom_with_counts, HeadroomOptions};
use recording::repeats::{AnnotationsOverRuns, WholeSpread};
use recording::{sha256_hex, Recording};
use serde::{Deserialize, Serialize};
use tower_lsp_server::jsonrpc::Error;

use super::errors;
use super::recordings::Loaded;
use super::uri::path_or_uri;
use super::wire::{DeclarationJson, FileAccountJson, FileTimeJson, HeadroomJson, LineJson};
use recording::model::annotations::Parallelism;
use recording::model::time_account;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AnnotationsParams {
    /// A recording: an absolute path or a `file://` URI.
    pub recording: Option<String>,
    /// Or a session directory (or its `session.json`): an absolute path or
    /// a `file://` URI, with `file`.
    pub session: Option<String>,
    /// The session's file: its path as the session lists it (relative to
    /// the project root), or the absolute source path (or its URI).
    pub file: Option<String>,
    /// The editor's current text of the file.
    pub text: String,
    /// A heartbeat recording's headroom: a `set_option maxHeartbeats N in` is flagged as not
    /// needed when the declaration's heartbeats are under this share of the default (0 to 1;
    /// default 0.5).
    pub bump_not_needed_below: Option<f64>,
}

/// What to annotate from.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    Recording(PathBuf),
    Session { dir: PathBuf, file: String },
}

impl AnnotationsParams {
    /// The headroom choices; a share outside 0 to 1 is `-32602`.
    pub fn headroom_options(&self) -> Result<HeadroomOptions, Error> {
        match self.bump_not_needed_below {
            None => Ok(HeadroomOptions::default()),
            Some(s) if (0.0..=1.0).contains(&s) => Ok(HeadroomOptions {
                bump_not_needed_below: s,
            }),
            Some(s) => Err(errors::invalid_params(format!(
                "bumpNotNeededBelow is a share of the default limit from 0 to 1, got {s}"
            ))),
        }
    }

    /// The recording, or the session and its file; anything else is
    /// `-32602` saying what to give.
    pub fn source(&self) -> Result<Source, Error> {
        match (&self.recording, &self.session, &self.file) {
            (Some(r), None, None) => Ok(Source::Recording(
                path_or_uri(r, "recording").map_err(errors::invalid_params)?,
            )),
            (None, Some(s), Some(f)) => {
                let mut dir = path_or_uri(s, "session").map_err(errors::invalid_params)?;
                if dir.file_name() == Some(recording::session::MANIFEST_FILE.as_ref()) {
                    dir.pop();
                }
                if f.trim().is_empty() {
                    return Err(errors::invalid_params(
                        "file is empty; give the file's path as the session lists it",
                    ));
                }
                Ok(Source::Session {
                    dir,
                    file: f.clone(),
                })
            }
            (Some(_), Some(_), _) => Err(errors::invalid_params(
                "give recording, or session with file, not both",
            )),
            (Some(_), None, Some(_)) => Err(errors::invalid_params(
                "file goes with session; a recording is of one file already",
            )),
            (None, Some(_), None) => Err(errors::invalid_params(
                "session needs file: the file's path as the session lists it, or its absolute path",
            )),
            (None, None, _) => Err(errors::invalid_params(
                "give recording, or session with file",
            )),
        }
    }
}

#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum AnnotationsAnswer {
    Fresh(Box<Fresh>),
    Stale(Stale),
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Fresh {
    /// Always `false`.
    pub stale: bool,
    pub source_sha256: String,
    /// What the numbers count: `time` (nanoseconds) or `heartbeats`.
    pub measure: &'static str,
    #[serde(flatten)]
    pub file: FileTimeJson,
    /// A repeated capture's file: how many runs the medians are of.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runs: Option<usize>,
    /// A repeated capture's file: the median run's recording, whose
    /// operations the lines list.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recording: Option<PathBuf>,
    /// A repeated capture's file: the file time over its runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_spread: Option<WholeSpread>,
    pub lines: Vec<LineJson>,
    pub declarations: Vec<DeclarationJson>,
    /// A recording Lean did not finish: why it was stopped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partial: Option<String>,
    /// Where the file's time went, and how the declarations' shares add up
    /// (a repeated capture's file: the median run's).
    pub account: FileAccountJson,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Stale {
    /// Always `true`.
    pub stale: bool,
    pub recorded_sha256: String,
    pub buffer_sha256: String,
}

/// The stale answer when `text` is not the source `loaded` recorded.
pub fn stale(loaded: &Loaded, text: &str) -> Option<AnnotationsAnswer> {
    let recorded = &loaded.recording.header.source_sha256;
    let buffer = sha256_hex(text.as_bytes());
    (&buffer != recorded).then(|| {
        AnnotationsAnswer::Stale(Stale {
            stale: true,
            recorded_sha256: recorded.clone(),
            buffer_sha256: buffer,
        })
    })
}

/// The annotations of one recording.
pub fn answer(loaded: &Loaded, text: &str, opts: HeadroomOptions) -> AnnotationsAnswer {
    if let Some(s) = stale(loaded, text) {
        return s;
    }
    let a = loaded.annotations();
    let header = &loaded.recording.header;
    let mut declarations: Vec<DeclarationJson> = a
        .declarations
        .iter()
        .map(|d| DeclarationJson::from(d).with_run_facts(header))
        .collect();
    let counts: Vec<Option<u64>> = a
        .declarations
        .iter()
        .map(|d| d.time.map(|t| t.total_ns))
        .collect();
    add_headroom(&mut declarations, &loaded.recording, &counts, opts);
    AnnotationsAnswer::Fresh(Box::new(Fresh {
        stale: false,
        source_sha256: loaded.recording.header.source_sha256.clone(),
        measure: loaded.recording.header.measure.as_str(),
        file: FileTimeJson::from(&a.file),
        runs: None,
        recording: None,
        file_spread: None,
        lines: a.lines.iter().map(LineJson::from).collect(),
        declarations,
        partial: header.stop.as_ref().map(|s| s.detail.clone()),
        account: FileAccountJson::new(
            &time_account(&loaded.recording),
            Parallelism::of(&loaded.recording, a.declarations.iter().map(|d| d.share)),
        ),
    }))
}

/// Each declaration's headroom, in a heartbeat recording (`counts`: each declaration's
/// heartbeats, in header order); nothing in a time recording.
fn add_headroom(
    declarations: &mut [DeclarationJson],
    rec: &Recording,
    counts: &[Option<u64>],
    opts: HeadroomOptions,
) {
    let Ok(rows) = headroom_with_counts(rec, counts, opts) else {
        return;
    };
    for (d, h) in declarations.iter_mut().zip(rows) {
        d.headroom = h.map(HeadroomJson::from);
    }
}

/// The annotations of a file over its runs, `shown` being the median run
/// (at `recording`), whose buffer check has passed: headroom counts the median heartbeats.
pub fn over_runs(
    shown: &Loaded,
    recording: PathBuf,
    a: &AnnotationsOverRuns,
    opts: HeadroomOptions,
) -> AnnotationsAnswer {
    let mut declarations: Vec<DeclarationJson> =
        a.declarations.iter().map(DeclarationJson::from).collect();
    let counts: Vec<Option<u64>> = a
        .declarations
        .iter()
        .map(|d| d.annotation.time.map(|t| t.total_ns))
        .collect();
    add_headroom(&mut declarations, &shown.recording, &counts, opts);
    AnnotationsAnswer::Fresh(Box::new(Fresh {
        stale: false,
        source_sha256: shown.recording.header.source_sha256.clone(),
        measure: shown.recording.header.measure.as_str(),
        file: FileTimeJson::from(&a.file),
        runs: Some(a.runs),
        recording: Some(recording),
        file_spread: a.file_spread.map(|s| s.whole()),
        lines: a.lines.iter().map(LineJson::from).collect(),
        declarations,
        partial: None,
        account: FileAccountJson::new(
            &time_account(&shown.recording),
            Parallelism::of(
                &shown.recording,
                a.declarations.iter().map(|d| d.annotation.share),
            ),
        ),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(v: serde_json::Value) -> AnnotationsParams {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn a_recording_or_a_session_with_its_file() {
        let p = params(serde_json::json!({"recording": "/r/a.lsrec", "text": ""}));
        assert_eq!(p.source().unwrap(), Source::Recording("/r/a.lsrec".into()));
        for session in ["/s", "/s/session.json", "file:///s"] {
            let p = params(serde_json::json!({"session": session, "file": "A.lean", "text": ""}));
            assert_eq!(
                p.source().unwrap(),
                Source::Session {
                    dir: "/s".into(),
                    file: "A.lean".into()
                },
                "{session}"
            );
        }
        for (v, says) in [
            (
                serde_json::json!({"recording": "/r", "session": "/s", "file": "A.lean"}),
                "not both",
            ),
            (
                serde_json::json!({"recording": "/r", "file": "A.lean"}),
                "file goes with session",
            ),
            (serde_json::json!({"session": "/s"}), "session needs file"),
            (
                serde_json::json!({"session": "/s", "file": " "}),
                "file is empty",
            ),
            (serde_json::json!({}), "give recording, or session"),
            (
                serde_json::json!({"session": "s", "file": "A.lean"}),
                "the session must be an absolute path",
            ),
        ] {
            let mut v = v;
            v["text"] = "".into();
            let e = params(v.clone()).source().unwrap_err();
            assert_eq!(e.code, tower_lsp_server::jsonrpc::ErrorCode::InvalidParams);
            assert!(e.message.contains(says), "{v}: {}", e.message);
        }
    }
}
