//! Errors of importing and exporting other profilers' formats.

use std::io;

use crate::limits::Limit;

/// What went wrong with a foreign file. `at` says where: a JSON path
/// (`traceEvents[12]`), a line (`line 7`) or a byte offset.
#[derive(Debug, thiserror::Error)]
pub enum InteropError {
    /// Not a `#[source]`: the message already says it, and error chains
    /// (`{:#}`) would say it twice.
    #[error("I/O error: {0}")]
    Io(io::Error),
    /// Not the syntax the format needs (not JSON, a bad number, ...).
    #[error("{format}: {at}: {detail}")]
    Syntax {
        format: &'static str,
        at: String,
        detail: String,
    },
    /// Valid syntax, wrong content (missing field, wrong type, unmatched
    /// `B`/`E`, negative duration, ...).
    #[error("{format}: {at}: {detail}")]
    Invalid {
        format: &'static str,
        at: String,
        detail: String,
    },
    /// Over a limit, which the message names (`{what} is over the limit of {value} ({name})`).
    #[error("{format}: {at}: {limit}")]
    Limit {
        format: &'static str,
        at: String,
        limit: Limit,
    },
    #[error("{0}")]
    Unrecognized(String),
    #[error(transparent)]
    Recording(#[from] recording::RecordingError),
}

pub type Result<T, E = InteropError> = std::result::Result<T, E>;

impl InteropError {
    pub fn syntax(format: &'static str, at: impl Into<String>, detail: impl Into<String>) -> Self {
        InteropError::Syntax {
            format,
            at: at.into(),
            detail: detail.into(),
        }
    }

    pub fn invalid(format: &'static str, at: impl Into<String>, detail: impl Into<String>) -> Self {
        InteropError::Invalid {
            format,
            at: at.into(),
            detail: detail.into(),
        }
    }

    /// Over `limit` (made with [`limit!`](crate::limit), which names the constant).
    pub fn over(format: &'static str, at: impl Into<String>, limit: Limit) -> Self {
        InteropError::Limit {
            format,
            at: at.into(),
            limit,
        }
    }
}

impl From<io::Error> for InteropError {
    fn from(e: io::Error) -> Self {
        InteropError::Io(e)
    }
}
