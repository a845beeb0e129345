//! Errors of reading and writing recordings.

use std::io;

/// Everything that can go wrong with a recording. Each variant names the
/// problem precisely enough for a user to know what is wrong with the file.
#[derive(Debug, thiserror::Error)]
pub enum RecordingError {
    #[error("I/O error: {0}")]
    Io(#[from] io::Error),
    #[error("the file is empty, not a leanscope recording")]
    Empty,
    #[error("not a leanscope recording (wrong magic bytes at the start of the file)")]
    WrongMagic,
    #[error("the recording is truncated {context}")]
    Truncated { context: String },
    #[error("unsupported schema version {found} (this leanscope reads up to version {supported})")]
    UnsupportedVersion { found: u16, supported: u16 },
    #[error("chunk {index} at byte {offset} fails verification: {detail}")]
    InvalidChunk {
        index: usize,
        offset: u64,
        detail: String,
    },
    #[error("{what} is {value}, over the limit of {limit}")]
    LimitExceeded {
        what: &'static str,
        value: u64,
        limit: u64,
    },
    #[error("unexpected chunk {index}: {detail}")]
    UnexpectedChunk { index: usize, detail: String },
    #[error("event {event}: {detail}")]
    InvalidEvent { event: u64, detail: String },
    #[error("invalid recording: {0}")]
    Invalid(String),
}

impl RecordingError {
    pub(crate) fn truncated(context: impl Into<String>) -> Self {
        RecordingError::Truncated {
            context: context.into(),
        }
    }

    pub(crate) fn limit(what: &'static str, value: u64, limit: u64) -> Self {
        RecordingError::LimitExceeded { what, value, limit }
    }
}

pub type Result<T, E = RecordingError> = std::result::Result<T, E>;
