//! leanscope's header in a Chrome trace leanscope exported: the bounded `leanscope_*` metadata
//! events that `export` writes (the header itself, the source text in pieces, the
//! declarations and the diagnostics), read back into a [`Header`]. Lanes (`leanscope_lane`),
//! which are about threads, are the event loop's (`chrome.rs`).

use recording::{Declaration, Diagnostic, Header};
use serde::Deserialize;

use super::export::{DECLARATIONS_EVENT, DIAGNOSTICS_EVENT, HEADER_EVENT, SOURCE_EVENT};
use super::{at, FORMAT};
use crate::interop::error::{InteropError, Result};
use crate::limit;
use crate::limits::MAX_HEADER_ITEMS;

/// The names of the metadata events that carry leanscope's header (and its lanes).
pub(super) const HEADER_PREFIX: &str = "leanscope_";

/// leanscope's header as its metadata events give it.
#[derive(Default)]
pub(super) struct HeaderParts {
    header: Option<Header>,
    source: String,
    declarations: Vec<Declaration>,
    diagnostics: Vec<Diagnostic>,
    /// The first of these events.
    seen_at: Option<u64>,
}

#[derive(Deserialize)]
struct HeaderArgs {
    header: Header,
}

#[derive(Deserialize)]
struct SourceArgs {
    text: String,
}

#[derive(Deserialize)]
struct DeclarationArgs {
    declarations: Vec<Declaration>,
}

#[derive(Deserialize)]
struct DiagnosticArgs {
    diagnostics: Vec<Diagnostic>,
}

/// The error of reading the `args` of the metadata event `seq`.
pub(super) fn args_error(seq: u64, e: serde_json::Error) -> InteropError {
    InteropError::invalid(FORMAT, format!("{}.args", at(seq)), e.to_string())
}

impl HeaderParts {
    /// Reads a piece of the header: the `args` (JSON text) of the metadata event `seq` named
    /// `name` (a `leanscope_` name other than the lane event's). Other `leanscope_` events (of
    /// a later version) are not read.
    pub(super) fn add(&mut self, name: &str, args: &str, seq: u64) -> Result<()> {
        let read = |e| args_error(seq, e);
        let items = self.declarations.len() + self.diagnostics.len();
        let too_many = || {
            InteropError::over(
                FORMAT,
                format!("{}.args", at(seq)),
                limit!(
                    MAX_HEADER_ITEMS,
                    "the declarations and diagnostics of leanscope's header"
                ),
            )
        };
        match name {
            HEADER_EVENT => {
                let a: HeaderArgs = serde_json::from_str(args).map_err(read)?;
                if self.header.replace(a.header).is_some() {
                    return Err(InteropError::invalid(
                        FORMAT,
                        at(seq),
                        format!("a second `{HEADER_EVENT}` event"),
                    ));
                }
            }
            SOURCE_EVENT => {
                let a: SourceArgs = serde_json::from_str(args).map_err(read)?;
                if self.source.len() + a.text.len() > recording::limits::MAX_SOURCE_BYTES {
                    return Err(InteropError::over(
                        FORMAT,
                        format!("{}.args", at(seq)),
                        limit!(
                            recording::limits::MAX_SOURCE_BYTES,
                            "the source text of leanscope's header"
                        ),
                    ));
                }
                self.source.push_str(&a.text);
            }
            DECLARATIONS_EVENT => {
                let a: DeclarationArgs = serde_json::from_str(args).map_err(read)?;
                if items + a.declarations.len() > MAX_HEADER_ITEMS {
                    return Err(too_many());
                }
                self.declarations.extend(a.declarations);
            }
            DIAGNOSTICS_EVENT => {
                let a: DiagnosticArgs = serde_json::from_str(args).map_err(read)?;
                if items + a.diagnostics.len() > MAX_HEADER_ITEMS {
                    return Err(too_many());
                }
                self.diagnostics.extend(a.diagnostics);
            }
            _ => return Ok(()),
        }
        self.seen_at.get_or_insert(seq);
        Ok(())
    }

    /// The header the events gave, `None` when the trace has none; an error when it has pieces
    /// but not the header event itself.
    pub(super) fn finish(self) -> Result<Option<Header>> {
        match (self.header, self.seen_at) {
            (Some(h), _) => Ok(Some(Header {
                source_text: self.source,
                declarations: self.declarations,
                diagnostics: self.diagnostics,
                ..h
            })),
            (None, Some(seq)) => Err(InteropError::invalid(
                FORMAT,
                at(seq),
                format!("parts of leanscope's header without its `{HEADER_EVENT}` event"),
            )),
            (None, None) => Ok(None),
        }
    }
}
