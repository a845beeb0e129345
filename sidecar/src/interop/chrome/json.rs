//! The Chrome importer's use of the streaming JSON layer ([`crate::json_stream`]): the same
//! cursor the Firefox-profile reader uses, with its errors said as the importer says them (at
//! a byte offset, naming the value and the limit).

use std::io::Read;
use std::ops::Range;

use crate::json_stream::{JsonCursor, JsonError, Stop};

use crate::interop::error::{InteropError, Result};
use crate::limit;
use crate::limits::MAX_CHROME_EVENT_BYTES;

const FORMAT: &str = "Chrome trace";

/// Bytes the cursor reads at a time: traces are large, events small.
const READ_CHUNK: usize = 1 << 20;

pub struct TraceJson<R> {
    json: JsonCursor<R>,
}

/// A JSON error of the layer at the byte it names.
#[cold]
#[inline(never)]
fn layer_error(e: JsonError) -> InteropError {
    match e {
        JsonError::Syntax(e) => {
            InteropError::syntax(FORMAT, format!("byte {}", e.offset), e.reason.into_owned())
        }
        JsonError::TooLong { offset, limit } => {
            InteropError::over(FORMAT, format!("byte {offset}"), limit)
        }
        JsonError::ValueTooLarge { offset, .. } => InteropError::over(
            FORMAT,
            format!("byte {offset}"),
            limit!(MAX_CHROME_EVENT_BYTES, "a JSON value"),
        ),
        JsonError::Io(e) => InteropError::Io(e),
    }
}

/// [`layer_error`], naming the value taken whole.
#[cold]
#[inline(never)]
fn value_error(e: JsonError, what: &'static str) -> InteropError {
    match e {
        JsonError::ValueTooLarge { offset, .. } => InteropError::over(
            FORMAT,
            format!("byte {offset}"),
            limit!(MAX_CHROME_EVENT_BYTES, what),
        ),
        JsonError::Syntax(e) if e.reason.starts_with("EOF") => InteropError::syntax(
            FORMAT,
            format!("byte {}", e.offset),
            format!("the input ends inside {what}"),
        ),
        _ => layer_error(e),
    }
}

impl<R: Read> TraceJson<R> {
    pub fn new(input: R) -> Self {
        TraceJson {
            json: JsonCursor::with_chunk(input, READ_CHUNK)
                .with_max_string(limit!(MAX_CHROME_EVENT_BYTES, "a JSON string"))
                .without_lines(),
        }
    }

    /// Input offset of the next unread byte.
    pub fn offset(&self) -> u64 {
        self.json.offset()
    }

    /// The next byte that is not whitespace, not consumed; `None` at the end.
    #[inline(always)]
    pub fn peek(&mut self) -> Result<Option<u8>> {
        self.json.next_byte().map_err(|e| layer_error(*e))
    }

    #[inline]
    pub fn bump(&mut self) {
        self.json.bump()
    }

    /// Consumes `b` (after whitespace) or fails naming what was expected.
    pub fn expect(&mut self, b: u8, what: &str) -> Result<()> {
        match self.peek()? {
            Some(c) if c == b => {
                self.bump();
                Ok(())
            }
            found => Err(InteropError::syntax(
                FORMAT,
                format!("byte {}", self.offset()),
                match found {
                    Some(c) => format!("expected {what}, found `{}`", (c as char).escape_default()),
                    None => format!("expected {what}, found the end of the input"),
                },
            )),
        }
    }

    /// An object key (a string within the string limit), unescaped.
    pub fn read_key(&mut self) -> Result<String> {
        self.json.string().map_err(|e| layer_error(*e))
    }

    /// The next complete value, as at most [`MAX_CHROME_EVENT_BYTES`] bytes.
    pub fn take_value(&mut self, what: &'static str) -> Result<&[u8]> {
        self.json
            .take_value(MAX_CHROME_EVENT_BYTES)
            .map_err(|e| value_error(*e, what))
    }

    /// [`JsonCursor::parse_value`] within [`MAX_CHROME_EVENT_BYTES`].
    #[inline]
    pub fn parse_value(
        &mut self,
        what: &'static str,
        parse: impl FnMut(&[u8]) -> std::result::Result<usize, Stop>,
    ) -> Result<Option<Range<usize>>> {
        self.json
            .parse_value(MAX_CHROME_EVENT_BYTES, parse)
            .map_err(|e| value_error(*e, what))
    }

    pub fn bytes(&self, at: Range<usize>) -> &[u8] {
        self.json.bytes(at)
    }

    /// Consumes the next value without keeping it (its syntax checked), in constant memory.
    pub fn skip_value(&mut self) -> Result<()> {
        self.json.skip_value().map_err(|e| layer_error(*e))
    }
}
