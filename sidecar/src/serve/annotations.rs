//! `leanscope/annotations`: line bars, declaration times and the top
//! operations of each line, for the buffer an editor shows — or a stale
//! answer when the buffer is not the recorded source.

use recording::sha256_hex;
use serde::{Deserialize, Serialize};

use super::recordings::Loaded;
use super::wire::{DeclarationJson, FileTimeJson, LineJson};

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AnnotationsParams {
    /// An absolute path or a `file://` URI.
    pub recording: String,
    /// The editor's current text of the file.
    pub text: String,
}

#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum AnnotationsAnswer {
    Fresh(Fresh),
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
    pub lines: Vec<LineJson>,
    pub declarations: Vec<DeclarationJson>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Stale {
    /// Always `true`.
    pub stale: bool,
    pub recorded_sha256: String,
    pub buffer_sha256: String,
}

pub fn answer(loaded: &Loaded, text: &str) -> AnnotationsAnswer {
    let recorded = &loaded.recording.header.source_sha256;
    let buffer = sha256_hex(text.as_bytes());
    if &buffer != recorded {
        return AnnotationsAnswer::Stale(Stale {
            stale: true,
            recorded_sha256: recorded.clone(),
            buffer_sha256: buffer,
        });
    }
    let a = loaded.annotations();
    AnnotationsAnswer::Fresh(Fresh {
        stale: false,
        source_sha256: buffer,
        measure: loaded.recording.header.measure.as_str(),
        file: FileTimeJson::from(&a.file),
        lines: a.lines.iter().map(LineJson::from).collect(),
        declarations: a.declarations.iter().map(DeclarationJson::from).collect(),
    })
}
