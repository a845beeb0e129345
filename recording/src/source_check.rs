//! The check that a recording's embedded source text matches its SHA-256.
//!
//! Readers check it while decoding the header. A caller that can hash
//! faster elsewhere (the viewer's worker hands the text to the browser's
//! native `crypto.subtle` while the events decode) asks the stream decoder
//! to leave the check to it ([`SourceCheck::ByCaller`]) and must then call
//! [`check_source_digest`] before it uses the recording.

use crate::error::{RecordingError, Result};
use crate::types::{sha256_hex, Header};

/// Who checks the source text against its SHA-256.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SourceCheck {
    /// The reader, while decoding the header.
    #[default]
    Reader,
    /// The caller, with [`check_source_digest`], before using the recording.
    ByCaller,
}

/// The error of a source text that does not match its SHA-256.
pub fn source_mismatch() -> RecordingError {
    RecordingError::Invalid("the embedded source text does not match its SHA-256".into())
}

/// Checks the header's source text against its recorded SHA-256. `digest`
/// is the text's SHA-256 (lowercase hex) when the caller computed it;
/// `None` computes it here.
pub fn check_source_digest(header: &Header, digest: Option<&str>) -> Result<()> {
    let matches = match digest {
        Some(d) => d.eq_ignore_ascii_case(&header.source_sha256),
        None => sha256_hex(header.source_text.as_bytes()) == header.source_sha256,
    };
    if matches {
        Ok(())
    } else {
        Err(source_mismatch())
    }
}
