//! leanscope's one streaming JSON layer: a small, strict pull parser over a reader, shared by
//! the capture (Lean's Firefox profile) and the importers (Chrome traces, Firefox profiles,
//! summaries).
//!
//! It is meant for schema-directed readers of large machine-written files: the reader asks for
//! the value it expects next (an object, a key, an array element, a string, a number) and skips
//! everything it does not need with [`JsonCursor::skip_value`]. Nothing is converted that the
//! reader does not ask for; numbers are handed over as their decimal text (plus their digits as
//! an integer when they fit), so no binary floating point is involved. A reader may also take
//! one whole value as bytes ([`JsonCursor::take_value`], [`JsonCursor::parse_value`] in
//! `values.rs`) to parse it another way, such as a Chrome trace's events, one by one, and
//! [`LimitedStrings`] bounds the strings of a document read by `serde_json` whole.
//!
//! The input goes through one buffer of [`READ_CHUNK`] bytes that is refilled as the cursor
//! moves, so a large file is never held whole; the buffer grows only for a single number token
//! longer than that, or a value taken whole (within the caller's limit). It accepts exactly
//! RFC 8259 JSON: any whitespace between tokens, every string escape including `\uXXXX`
//! surrogate pairs (a lone surrogate is an error), UTF-8 text, no control characters in
//! strings, no leading zeros, no trailing commas. Limits: nesting [`MAX_JSON_DEPTH`], a string
//! read into memory [`MAX_JSON_STRING_BYTES`] (or the reader's own,
//! [`JsonCursor::with_max_string`]), a value taken whole the caller's `max`; a number token is
//! bounded by the input's. Errors carry the byte offset and the 1-based line and column (in
//! bytes, as serde_json counts them) where the input went wrong.

mod limited_strings;
pub(crate) mod swar;
mod values;

pub use limited_strings::{LimitedStrings, StringTooLong};
pub use values::Stop;

use std::borrow::Cow;
use std::io::{self, Read};

use crate::limit;
use crate::limits::{Limit, MAX_JSON_DEPTH, MAX_JSON_STRING_BYTES};
use swar::{digits_value, leading_digits, POWERS_OF_TEN};

/// Bytes read from the reader at a time (and the usual size of the cursor's buffer).
pub const READ_CHUNK: usize = 256 * 1024;

/// What went wrong.
#[derive(Debug)]
pub enum JsonError {
    /// The text is not JSON (or not the JSON the reader expected) here.
    Syntax(SyntaxError),
    /// A string to be read is longer than the cursor's limit: it was not read whole.
    TooLong {
        /// Byte offset of the string's opening quote.
        offset: u64,
        /// The limit, in bytes of the string's value.
        limit: Limit,
    },
    /// A value taken whole ([`JsonCursor::take_value`], [`JsonCursor::parse_value`]) is longer
    /// than the caller's limit.
    ValueTooLarge {
        /// Byte offset of the value's first byte.
        offset: u64,
        /// The limit, in bytes.
        max: usize,
    },
    /// The reader failed.
    Io(io::Error),
}

impl std::fmt::Display for JsonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JsonError::Syntax(e) => write!(
                f,
                "line {} column {} (byte {}): {}",
                e.line, e.column, e.offset, e.reason
            ),
            JsonError::TooLong { offset, limit } => write!(
                f,
                "byte {offset}: a string is longer than {} bytes ({})",
                limit.value, limit.name
            ),
            JsonError::ValueTooLarge { offset, max } => {
                write!(f, "byte {offset}: a value is longer than {max} bytes")
            }
            JsonError::Io(e) => write!(f, "{e}"),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    /// Byte offset in the input.
    pub offset: u64,
    /// 1-based.
    pub line: usize,
    /// 1-based, in bytes.
    pub column: usize,
    pub reason: Cow<'static, str>,
}

pub type Result<T> = std::result::Result<T, Box<JsonError>>;

/// A number token: its text (valid JSON number syntax) and what the syntax says about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Number<'a> {
    /// The token (ASCII).
    bytes: &'a [u8],
    pub negative: bool,
    /// Has an exponent part.
    pub exponent: bool,
    /// Number of digits after the decimal point.
    pub fraction_digits: usize,
    /// All digits (integer and fraction part, without the point) as an integer, when they fit
    /// a `u64`.
    pub digits: Option<u64>,
}

impl<'a> Number<'a> {
    /// The token as written.
    pub fn text(&self) -> &'a str {
        // the scanner accepts ASCII only
        std::str::from_utf8(self.bytes).unwrap_or_default()
    }

    /// The text after the sign.
    pub fn unsigned_text(&self) -> &'a str {
        let text = self.text();
        if self.negative {
            text.get(1..).unwrap_or_default()
        } else {
            text
        }
    }

    /// No fraction and no exponent.
    pub fn is_integer(&self) -> bool {
        !self.exponent && self.fraction_digits == 0
    }

    /// Whether the value is zero (every digit is `0`, whatever the sign and exponent).
    pub fn is_zero(&self) -> bool {
        self.digits == Some(0)
    }
}

/// A scalar element handed over by [`JsonCursor::compact_scalars`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scalar<'a> {
    Null,
    Bool(bool),
    Number(Number<'a>),
}

/// Per-byte flag for the string scanner: `"`, `\` and control characters need attention.
static STRING_SPECIAL: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = true;
        i += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

/// Result of scanning a number in the buffered window.
enum Scan {
    /// A complete token of this many bytes.
    Done(usize),
    /// The window ends inside the token.
    More,
    /// Not a number: offset in the window and why.
    Bad(usize, &'static str),
}

/// Where a reader is in the input. Every method that reads a value skips the whitespace before
/// it; methods that end a value leave the cursor just after it.
pub struct JsonCursor<R> {
    reader: R,
    buf: Vec<u8>,
    /// Next byte to look at, in `buf`.
    pos: usize,
    /// End of the bytes read into `buf`.
    end: usize,
    eof: bool,
    chunk: usize,
    /// Input offset of `buf[0]`.
    base: u64,
    /// Newlines before `buf[0]`, and the input offset just after the last of them.
    lines_before: usize,
    line_start: u64,
    /// Whether lines are counted (for errors' line and column; a reader that reports byte
    /// offsets only saves a pass over the input).
    count_lines: bool,
    /// Longest string value read into memory: `string_limit` as a number.
    max_string: usize,
    string_limit: Limit,
}

impl<R: Read> JsonCursor<R> {
    pub fn new(reader: R) -> Self {
        Self::with_chunk(reader, READ_CHUNK)
    }

    /// A cursor that reads `chunk` bytes at a time (tests use tiny ones).
    pub fn with_chunk(reader: R, chunk: usize) -> Self {
        JsonCursor {
            reader,
            buf: Vec::new(),
            pos: 0,
            end: 0,
            eof: false,
            chunk: chunk.max(1),
            base: 0,
            lines_before: 0,
            line_start: 0,
            count_lines: true,
            max_string: MAX_JSON_STRING_BYTES,
            string_limit: limit!(MAX_JSON_STRING_BYTES, "a JSON string"),
        }
    }

    /// Stops counting lines: errors then give line 0 and column 0, and only their byte offset
    /// says where they are.
    pub fn without_lines(mut self) -> Self {
        self.count_lines = false;
        self
    }

    /// Sets the longest string (key or value, in bytes of its value) the cursor reads into
    /// memory; a longer one is a [`JsonError::TooLong`], found before more than a buffer past
    /// the limit is held, which names `limit`.
    pub fn with_max_string(mut self, limit: Limit) -> Self {
        self.max_string = usize::try_from(limit.value).unwrap_or(usize::MAX);
        self.string_limit = limit;
        self
    }

    pub fn reader(&self) -> &R {
        &self.reader
    }

    /// An error at `at` (an index into the buffer, at most `end`).
    #[cold]
    fn error(&self, at: usize, reason: impl Into<Cow<'static, str>>) -> Box<JsonError> {
        let at = at.min(self.end);
        let offset = self.base + at as u64;
        if !self.count_lines {
            return Box::new(JsonError::Syntax(SyntaxError {
                offset,
                line: 0,
                column: 0,
                reason: reason.into(),
            }));
        }
        let before = &self.buf[..at];
        let line = self.lines_before + before.iter().filter(|&&b| b == b'\n').count();
        let line_start = match before.iter().rposition(|&b| b == b'\n') {
            Some(i) => self.base + i as u64 + 1,
            None => self.line_start,
        };
        Box::new(JsonError::Syntax(SyntaxError {
            offset,
            line: line + 1,
            column: (offset - line_start) as usize + 1,
            reason: reason.into(),
        }))
    }

    /// An error at the cursor (for what the reader finds wrong with what it just read).
    pub fn error_here(&self, reason: impl Into<Cow<'static, str>>) -> Box<JsonError> {
        self.error(self.pos, reason)
    }

    fn fail<T>(&self, at: usize, reason: impl Into<Cow<'static, str>>) -> Result<T> {
        Err(self.error(at, reason))
    }

    /// Makes at least `need` bytes available from the cursor, unless the input ends first;
    /// returns whether they are.
    fn fill(&mut self, need: usize) -> Result<bool> {
        if self.end - self.pos >= need {
            return Ok(true);
        }
        if self.eof {
            return Ok(false);
        }
        if self.pos > 0 {
            let gone = &self.buf[..self.pos];
            // (a SIMD search: machine-written JSON rarely has newlines)
            let newline = match self.count_lines {
                true => memchr::memrchr(b'\n', gone),
                false => None,
            };
            if let Some(last) = newline {
                self.lines_before += memchr::memchr_iter(b'\n', gone).count();
                self.line_start = self.base + last as u64 + 1;
            }
            self.buf.copy_within(self.pos..self.end, 0);
            self.base += self.pos as u64;
            self.end -= self.pos;
            self.pos = 0;
        }
        let size = need.max(self.chunk);
        if self.buf.len() < size {
            self.buf.resize(size, 0);
        }
        while self.end < need {
            match self.reader.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(false);
                }
                Ok(n) => self.end += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Box::new(JsonError::Io(e))),
            }
        }
        Ok(true)
    }

    /// The byte at the cursor, reading more if needed; `None` at the end of the input.
    #[inline]
    fn current(&mut self) -> Result<Option<u8>> {
        if self.pos < self.end || self.fill(1)? {
            return Ok(Some(self.buf[self.pos]));
        }
        Ok(None)
    }

    #[inline]
    fn skip_ws(&mut self) -> Result<()> {
        loop {
            while self.pos < self.end {
                if !matches!(self.buf[self.pos], b' ' | b'\n' | b'\r' | b'\t') {
                    return Ok(());
                }
                self.pos += 1;
            }
            if !self.fill(1)? {
                return Ok(());
            }
        }
    }

    /// The first byte of the next value (after whitespace), not consumed.
    #[inline]
    pub fn peek(&mut self) -> Result<u8> {
        self.skip_ws()?;
        match self.current()? {
            Some(b) => Ok(b),
            None => self.fail(self.pos, "EOF while parsing a value"),
        }
    }

    /// Expects the end of the input (whitespace only).
    pub fn end(&mut self) -> Result<()> {
        self.skip_ws()?;
        if self.current()?.is_some() {
            return self.fail(self.pos, "trailing characters");
        }
        Ok(())
    }

    fn expect_start(&mut self, open: u8, what: &'static str) -> Result<()> {
        if self.peek()? != open {
            return self.fail(self.pos, format!("invalid type: expected {what}"));
        }
        self.pos += 1;
        Ok(())
    }

    /// Consumes `{`.
    pub fn begin_object(&mut self) -> Result<()> {
        self.expect_start(b'{', "an object")
    }

    /// Consumes `[`.
    pub fn begin_array(&mut self) -> Result<()> {
        self.expect_start(b'[', "an array")
    }

    /// After [`begin_object`](Self::begin_object): the next key (and its `:`), or `None` at the
    /// closing `}`. `first` must start `true` for each object.
    pub fn next_key(&mut self, first: &mut bool) -> Result<Option<String>> {
        if !self.next_member(first, b'}')? {
            return Ok(None);
        }
        if self.peek()? != b'"' {
            return self.fail(self.pos, "key must be a string");
        }
        let mut key = String::new();
        self.string_into(&mut key)?;
        self.colon()?;
        Ok(Some(key))
    }

    /// Like [`next_key`](Self::next_key) without keeping the key; returns whether a member
    /// follows (its value is next).
    fn skip_key(&mut self, first: &mut bool) -> Result<bool> {
        if !self.next_member(first, b'}')? {
            return Ok(false);
        }
        if self.peek()? != b'"' {
            return self.fail(self.pos, "key must be a string");
        }
        self.string_body(None)?;
        self.colon()?;
        Ok(true)
    }

    fn colon(&mut self) -> Result<()> {
        self.skip_ws()?;
        match self.current()? {
            Some(b':') => {
                self.pos += 1;
                Ok(())
            }
            Some(_) => self.fail(self.pos, "expected `:`"),
            None => self.fail(self.pos, "EOF while parsing an object"),
        }
    }

    /// After [`begin_array`](Self::begin_array): whether another element follows (it is next),
    /// consuming the `,` or the closing `]`. `first` must start `true` for each array.
    #[inline]
    pub fn next_element(&mut self, first: &mut bool) -> Result<bool> {
        self.next_member(first, b']')
    }

    #[inline]
    fn next_member(&mut self, first: &mut bool, close: u8) -> Result<bool> {
        // fast path: a `,` followed by the next value, or the closing bracket
        if let Some(&[a, b]) = self.buf[..self.end].get(self.pos..self.pos + 2) {
            if a == b',' && !*first && b != close && !matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
                self.pos += 1;
                return Ok(true);
            }
            if a == close {
                self.pos += 1;
                return Ok(false);
            }
        }
        self.next_member_slow(first, close)
    }

    fn next_member_slow(&mut self, first: &mut bool, close: u8) -> Result<bool> {
        self.skip_ws()?;
        match self.current()? {
            Some(b) if b == close => {
                self.pos += 1;
                Ok(false)
            }
            Some(_) if *first => {
                *first = false;
                Ok(true)
            }
            Some(b',') => {
                self.pos += 1;
                self.skip_ws()?;
                if self.current()? == Some(close) {
                    return self.fail(self.pos, "trailing comma");
                }
                Ok(true)
            }
            Some(_) => self.fail(
                self.pos,
                if close == b']' {
                    "expected `,` or `]`"
                } else {
                    "expected `,` or `}`"
                },
            ),
            None => self.fail(self.pos, "EOF while parsing a value"),
        }
    }

    /// The fast path for arrays of scalars as machine writers print them (`[1,-1,null,2.5]`,
    /// no whitespace): after [`begin_array`](Self::begin_array) (and any elements read since),
    /// hands each following number, `null`, `true` or `false` whose token and separator are
    /// already in the buffer to `each`, in one tight loop. Returns `true` when it consumed the
    /// closing `]`. It stops without consuming anything of an element it cannot take (other
    /// spelling, whitespace, a nested value, the end of the buffer) or that `each` declines
    /// (returns `false` for); the caller then reads that element the general way
    /// ([`next_element`](Self::next_element) and the value's method) and calls this again. So
    /// errors and positions are exactly those of the general path.
    #[inline]
    pub fn compact_scalars(
        &mut self,
        first: &mut bool,
        mut each: impl FnMut(Scalar<'_>) -> bool,
    ) -> bool {
        let buf = &self.buf[..self.end];
        let mut pos = self.pos;
        let mut is_first = *first;
        let closed = loop {
            let start = match buf.get(pos) {
                Some(b']') => break true,
                Some(b',') if !is_first => pos + 1,
                Some(_) if is_first => pos,
                _ => break false,
            };
            let (len, scalar) = match buf.get(start) {
                // the most common element of all: one digit (ids, categories)
                Some(&d @ b'0'..=b'9') if matches!(buf.get(start + 1), Some(b',' | b']')) => (
                    1,
                    Scalar::Number(Number {
                        bytes: &buf[start..start + 1],
                        negative: false,
                        exponent: false,
                        fraction_digits: 0,
                        digits: Some(u64::from(d - b'0')),
                    }),
                ),
                Some(b'-' | b'0'..=b'9') => match fast_number(&buf[start..]) {
                    Some((len, negative, fraction_digits, digits)) => (
                        len,
                        Scalar::Number(Number {
                            bytes: &buf[start..start + len],
                            negative,
                            exponent: false,
                            fraction_digits,
                            digits: Some(digits),
                        }),
                    ),
                    None => break false,
                },
                Some(b'n') if buf.get(start..start + 4) == Some(b"null") => (4, Scalar::Null),
                Some(b't') if buf.get(start..start + 4) == Some(b"true") => (4, Scalar::Bool(true)),
                Some(b'f') if buf.get(start..start + 5) == Some(b"false") => {
                    (5, Scalar::Bool(false))
                }
                _ => break false,
            };
            if !each(scalar) {
                break false;
            }
            pos = start + len;
            is_first = false;
        };
        if closed {
            // `[]`, or `]` after an element: what `next_element` would accept
            self.pos = pos + 1;
            *first = false;
        } else {
            self.pos = pos;
            *first = is_first;
        }
        closed
    }

    /// `true` or `false`.
    pub fn boolean(&mut self) -> Result<bool> {
        match self.peek()? {
            b't' => self.literal(b"true").map(|()| true),
            b'f' => self.literal(b"false").map(|()| false),
            _ => self.fail(self.pos, "invalid type: expected a boolean"),
        }
    }

    /// Consumes `null` if it is next; returns whether it was.
    #[inline]
    pub fn null(&mut self) -> Result<bool> {
        if self.peek()? == b'n' {
            self.literal(b"null")?;
            return Ok(true);
        }
        Ok(false)
    }

    #[inline]
    fn literal(&mut self, word: &'static [u8]) -> Result<()> {
        if let Some(have) = self.buf[..self.end].get(self.pos..self.pos + word.len()) {
            if have.iter().zip(word).all(|(a, b)| a == b) {
                self.pos += word.len();
                return Ok(());
            }
        }
        self.literal_slow(word)
    }

    fn literal_slow(&mut self, word: &'static [u8]) -> Result<()> {
        self.fill(word.len())?;
        let have = &self.buf[self.pos..self.end];
        if !have.starts_with(word) {
            let same = have.iter().zip(word).take_while(|(a, b)| a == b).count();
            let at = self.pos + same;
            return if same == have.len() {
                self.fail(at, "EOF while parsing a value")
            } else {
                self.fail(at, "expected ident")
            };
        }
        self.pos += word.len();
        Ok(())
    }

    /// A number token.
    #[inline]
    pub fn number(&mut self) -> Result<Number<'_>> {
        self.skip_ws()?;
        if let Some((len, negative, fraction_digits, digits)) =
            fast_number(&self.buf[self.pos..self.end])
        {
            let start = self.pos;
            self.pos += len;
            return Ok(Number {
                bytes: &self.buf[start..self.pos],
                negative,
                exponent: false,
                fraction_digits,
                digits: Some(digits),
            });
        }
        self.number_slow()
    }

    fn number_slow(&mut self) -> Result<Number<'_>> {
        let len = loop {
            match scan_number(&self.buf[self.pos..self.end], self.eof) {
                Scan::Done(len) => break len,
                Scan::Bad(at, reason) => return self.fail(self.pos + at, reason),
                Scan::More => {
                    let have = self.end - self.pos;
                    // at the end of the input the next scan sees `eof`
                    self.fill(have + 64)?;
                }
            }
        };
        let start = self.pos;
        self.pos += len;
        let token = &self.buf[start..self.pos];
        let negative = token[0] == b'-';
        let mut digits: Option<u64> = Some(0);
        let mut fraction_digits = 0;
        let mut in_fraction = false;
        let mut exponent = false;
        for &b in &token[usize::from(negative)..] {
            match b {
                b'0'..=b'9' => {
                    digits = digits
                        .and_then(|d| d.checked_mul(10))
                        .and_then(|d| d.checked_add(u64::from(b - b'0')));
                    if in_fraction {
                        fraction_digits += 1;
                    }
                }
                b'.' => in_fraction = true,
                _ => {
                    exponent = true;
                    break;
                }
            }
        }
        Ok(Number {
            bytes: token,
            negative,
            exponent,
            fraction_digits,
            digits,
        })
    }

    /// An unsigned integer that fits a `u32` (`-0` is 0, as serde reads it).
    #[inline]
    pub fn u32(&mut self) -> Result<u32> {
        let n = self.number()?;
        let reason = if !n.is_integer() {
            "invalid type: floating point, expected u32"
        } else {
            match n.digits {
                Some(0) => return Ok(0),
                _ if n.negative => "invalid value: negative integer, expected u32",
                Some(v) if v <= u64::from(u32::MAX) => return Ok(v as u32),
                _ => "invalid value: integer out of range for u32",
            }
        };
        let len = n.bytes.len();
        self.fail(self.pos - len, reason)
    }

    /// A string.
    pub fn string(&mut self) -> Result<String> {
        let mut out = String::new();
        self.string_into(&mut out)?;
        Ok(out)
    }

    /// Appends a string's value to `out`; returns its length in bytes.
    pub fn string_into(&mut self, out: &mut String) -> Result<usize> {
        if self.peek()? != b'"' {
            return self.fail(self.pos, "invalid type: expected a string");
        }
        let before = out.len();
        self.string_body(Some(out))?;
        Ok(out.len() - before)
    }

    /// With the cursor on the opening quote: reads to the closing quote, appending the value to
    /// `out` if there is one.
    fn string_body(&mut self, mut out: Option<&mut String>) -> Result<()> {
        let opening = self.base + self.pos as u64;
        let before = out.as_deref().map_or(0, String::len);
        self.pos += 1;
        loop {
            if let Some(out) = out.as_deref() {
                if out.len() - before > self.max_string {
                    return Err(Box::new(JsonError::TooLong {
                        offset: opening,
                        limit: self.string_limit,
                    }));
                }
            }
            let run_end = plain_run(&self.buf[..self.end], self.pos);
            if run_end > self.pos {
                let run = &self.buf[self.pos..run_end];
                match std::str::from_utf8(run) {
                    Ok(text) => {
                        if let Some(out) = out.as_deref_mut() {
                            out.push_str(text);
                        }
                        self.pos = run_end;
                    }
                    Err(e) => {
                        let valid = e.valid_up_to();
                        if let (Some(out), Ok(text)) =
                            (out.as_deref_mut(), std::str::from_utf8(&run[..valid]))
                        {
                            out.push_str(text);
                        }
                        self.pos += valid;
                        // a character cut by the end of the buffer: read on
                        let cut = e.error_len().is_none() && run_end == self.end;
                        if !cut || !self.fill(self.end - self.pos + 1)? {
                            return self.fail(self.pos, "invalid UTF-8 in a string");
                        }
                        continue;
                    }
                }
            }
            if self.pos == self.end {
                if !self.fill(1)? {
                    return self.fail(self.pos, "EOF while parsing a string");
                }
                continue;
            }
            match self.buf[self.pos] {
                b'"' => {
                    self.pos += 1;
                    return Ok(());
                }
                b'\\' => {
                    // the longest escape is a surrogate pair, 12 bytes
                    self.fill(12)?;
                    let c = self.escape()?;
                    if let Some(out) = out.as_deref_mut() {
                        out.push(c);
                    }
                }
                _ => {
                    return self.fail(
                        self.pos,
                        "control character (\\u0000-\\u001F) found while parsing a string",
                    )
                }
            }
        }
    }

    /// With the cursor on a backslash (and the escape in the buffer): the escaped character.
    fn escape(&mut self) -> Result<char> {
        let at = self.pos;
        let Some(&kind) = self.buf[..self.end].get(at + 1) else {
            return self.fail(at + 1, "EOF while parsing a string");
        };
        self.pos = at + 2;
        Ok(match kind {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let unit = self.hex4()?;
                match unit {
                    0xD800..=0xDBFF => {
                        if self.buf[..self.end].get(self.pos..self.pos + 2) != Some(b"\\u") {
                            return self.fail(self.pos, "lone leading surrogate in hex escape");
                        }
                        self.pos += 2;
                        let low = self.hex4()?;
                        if !(0xDC00..=0xDFFF).contains(&low) {
                            return self.fail(self.pos - 6, "lone leading surrogate in hex escape");
                        }
                        let c = 0x10000
                            + ((u32::from(unit) - 0xD800) << 10)
                            + (u32::from(low) - 0xDC00);
                        match char::from_u32(c) {
                            Some(c) => c,
                            None => return self.fail(at, "invalid unicode code point"),
                        }
                    }
                    0xDC00..=0xDFFF => {
                        return self.fail(at, "lone trailing surrogate in hex escape")
                    }
                    _ => match char::from_u32(u32::from(unit)) {
                        Some(c) => c,
                        None => return self.fail(at, "invalid unicode code point"),
                    },
                }
            }
            _ => return self.fail(at + 1, "invalid escape"),
        })
    }

    fn hex4(&mut self) -> Result<u16> {
        let mut v: u16 = 0;
        for k in 0..4 {
            let Some(&b) = self.buf[..self.end].get(self.pos + k) else {
                return self.fail(self.pos + k, "EOF while parsing a string");
            };
            let d = match b {
                b'0'..=b'9' => b - b'0',
                b'a'..=b'f' => b - b'a' + 10,
                b'A'..=b'F' => b - b'A' + 10,
                _ => return self.fail(self.pos + k, "invalid escape"),
            };
            v = v << 4 | u16::from(d);
        }
        self.pos += 4;
        Ok(v)
    }

    /// Skips the next value whatever it is, checking its syntax.
    pub fn skip_value(&mut self) -> Result<()> {
        self.skip_nested(0)
    }

    fn skip_nested(&mut self, depth: usize) -> Result<()> {
        match self.peek()? {
            b'{' => {
                if depth >= MAX_JSON_DEPTH {
                    return self.fail(self.pos, "recursion limit exceeded");
                }
                self.pos += 1;
                let mut first = true;
                while self.skip_key(&mut first)? {
                    self.skip_nested(depth + 1)?;
                }
                Ok(())
            }
            b'[' => {
                if depth >= MAX_JSON_DEPTH {
                    return self.fail(self.pos, "recursion limit exceeded");
                }
                self.pos += 1;
                let mut first = true;
                loop {
                    // the common case in machine-written tables: compact scalars
                    if self.compact_scalars(&mut first, |_| true) {
                        break;
                    }
                    if !self.next_element(&mut first)? {
                        break;
                    }
                    match self.current()? {
                        Some(b'n') => self.literal(b"null")?,
                        Some(b'-' | b'0'..=b'9') => {
                            self.number()?;
                        }
                        _ => self.skip_nested(depth + 1)?,
                    }
                }
                Ok(())
            }
            b'"' => self.string_body(None),
            b'-' | b'0'..=b'9' => self.number().map(|_| ()),
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            _ => self.fail(self.pos, "expected value"),
        }
    }
}

/// Most significant digits of a number [`fast_number`] reads: 10^19 - 1 fits a `u64`.
const FAST_DIGITS: usize = 19;

/// The usual spellings, `-?(0|[1-9][0-9]*)(\.[0-9]+)?` with at most 19 digits, when `w` also
/// holds the byte after the token: (length, negative, fraction digits, digits). Anything else
/// is left to [`scan_number`]. Always inlined: it runs for most of a profile's millions of
/// numbers, and as a call it returns its tuple through memory.
#[inline(always)]
fn fast_number(w: &[u8]) -> Option<(usize, bool, usize, u64)> {
    let negative = *w.first()? == b'-';
    let mut i = usize::from(negative);
    let first = *w.get(i)?;
    if !first.is_ascii_digit() {
        return None;
    }
    let mut digits = u64::from(first - b'0');
    let mut count = 1;
    i += 1;
    if first != b'0' {
        i = digit_run(w, i, &mut digits, &mut count)?;
    }
    let mut fraction = 0;
    if w.get(i) == Some(&b'.') {
        let before = count;
        i = digit_run(w, i + 1, &mut digits, &mut count)?;
        fraction = count - before;
        if fraction == 0 {
            return None;
        }
    }
    match w.get(i) {
        Some(b) if !b.is_ascii_digit() && !matches!(b, b'.' | b'e' | b'E') => {
            Some((i, negative, fraction, digits))
        }
        _ => None,
    }
}

/// Appends the run of ASCII digits at `w[i..]` to `digits` (decimal), eight at a time where
/// the window has eight bytes; returns the index after the run, or `None` if `count` would
/// pass [`FAST_DIGITS`].
#[inline]
fn digit_run(w: &[u8], mut i: usize, digits: &mut u64, count: &mut usize) -> Option<usize> {
    while let Some(chunk) = w.get(i..i + 8) {
        let word = u64::from_le_bytes(chunk.try_into().ok()?);
        let run = leading_digits(word);
        if run == 0 {
            return Some(i);
        }
        if *count + run > FAST_DIGITS {
            return None;
        }
        *digits = *digits * POWERS_OF_TEN[run] + digits_value(word, run);
        *count += run;
        i += run;
        if run < 8 {
            return Some(i);
        }
    }
    while let Some(&b) = w.get(i) {
        if !b.is_ascii_digit() {
            break;
        }
        if *count == FAST_DIGITS {
            return None;
        }
        *digits = *digits * 10 + u64::from(b - b'0');
        *count += 1;
        i += 1;
    }
    Some(i)
}

/// Scans a number token at the start of `w`. `eof`: nothing follows `w`.
#[inline]
fn scan_number(w: &[u8], eof: bool) -> Scan {
    let digits_from = |mut i: usize| {
        while i < w.len() && w[i].is_ascii_digit() {
            i += 1;
        }
        i
    };
    // `i` is at the end of the window: wait for more, or judge what is there
    macro_rules! at_end {
        ($i:expr, $complete:expr) => {
            if $i >= w.len() {
                if !eof {
                    return Scan::More;
                }
                if !$complete {
                    return Scan::Bad($i, "EOF while parsing a value");
                }
            }
        };
    }
    let mut i = 0;
    at_end!(i, false);
    let negative = w[0] == b'-';
    if negative {
        i = 1;
        at_end!(i, false);
    }
    match w[i] {
        b'0' => i += 1,
        b'1'..=b'9' => i = digits_from(i + 1),
        b'"' | b'[' | b'{' | b't' | b'f' | b'n' if !negative => {
            return Scan::Bad(i, "invalid type: expected a number")
        }
        _ if negative => return Scan::Bad(i, "invalid number"),
        _ => return Scan::Bad(i, "expected value"),
    }
    at_end!(i, true);
    if i < w.len() && w[i] == b'.' {
        i += 1;
        at_end!(i, false);
        let end = digits_from(i);
        if end == i {
            return Scan::Bad(i, "invalid number");
        }
        i = end;
        at_end!(i, true);
    }
    if i < w.len() && (w[i] == b'e' || w[i] == b'E') {
        i += 1;
        at_end!(i, false);
        if w[i] == b'+' || w[i] == b'-' {
            i += 1;
            at_end!(i, false);
        }
        let end = digits_from(i);
        if end == i {
            return Scan::Bad(i, "invalid number");
        }
        i = end;
        at_end!(i, true);
    }
    Scan::Done(i)
}

/// Offset of the first byte at or after `i` that is `"`, `\` or a control character (or the
/// end of `b`).
#[inline]
fn plain_run(b: &[u8], mut i: usize) -> usize {
    // eight bytes at a time while none of them needs attention
    while let Some(chunk) = b.get(i..i + 8) {
        let w = u64::from_le_bytes([
            chunk[0], chunk[1], chunk[2], chunk[3], chunk[4], chunk[5], chunk[6], chunk[7],
        ]);
        if has_special(w) {
            break;
        }
        i += 8;
    }
    while i < b.len() && !STRING_SPECIAL[b[i] as usize] {
        i += 1;
    }
    i
}

/// Whether any of the eight bytes is `"`, `\` or below 0x20.
#[inline]
fn has_special(w: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let has_zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGHS;
    let quote = has_zero(w ^ (ONES * u64::from(b'"')));
    let backslash = has_zero(w ^ (ONES * u64::from(b'\\')));
    // a byte below 0x20 borrows into its high bit when 0x20 is subtracted (bytes from 0xA0 up
    // do too, and `& !w` drops them)
    let control = w.wrapping_sub(ONES * 0x20) & !w & HIGHS;
    (quote | backslash | control) != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Buffer sizes that put every token across a refill somewhere.
    const CHUNKS: [usize; 6] = [1, 2, 3, 7, 64, READ_CHUNK];

    #[allow(clippy::boxed_local)] // called through `map_err` on the cursor's boxed errors
    fn syntax(e: Box<JsonError>) -> SyntaxError {
        match *e {
            JsonError::Syntax(s) => s,
            JsonError::Io(e) => panic!("io error {e}"),
            other => panic!("{other:?}"),
        }
    }

    /// The string value of `json`, the same with every buffer size.
    fn string(json: &str) -> std::result::Result<String, SyntaxError> {
        let mut results = CHUNKS.iter().map(|&chunk| {
            JsonCursor::with_chunk(json.as_bytes(), chunk)
                .string()
                .map_err(syntax)
        });
        let first = results.next().expect("one");
        for other in results {
            assert_eq!(other, first, "{json:?}");
        }
        first
    }

    #[test]
    fn escapes_and_surrogates() {
        assert_eq!(string(r#""plain""#).unwrap(), "plain");
        assert_eq!(
            string(r#""a\"b\\c\/d\be\ff\ng\rh\ti""#).unwrap(),
            "a\"b\\c/d\u{8}e\u{c}f\ng\rh\ti"
        );
        assert_eq!(string(r#""\u00e9\u00E9""#).unwrap(), "éé");
        assert_eq!(string(r#""\ud835\udd3d x""#).unwrap(), "𝔽 x");
        assert_eq!(string("\"raw 𝔽 ✅️\"").unwrap(), "raw 𝔽 ✅️");
        assert_eq!(string(r#""\u0000""#).unwrap(), "\0");
        let reason = |s: &str| string(s).unwrap_err().reason;
        assert_eq!(
            reason(r#""\ud835""#),
            "lone leading surrogate in hex escape"
        );
        assert_eq!(
            reason(r#""\ud835\u0041""#),
            "lone leading surrogate in hex escape"
        );
        assert_eq!(
            reason(r#""\udd3d""#),
            "lone trailing surrogate in hex escape"
        );
        assert_eq!(reason(r#""\x""#), "invalid escape");
        assert_eq!(reason(r#""\u12g4""#), "invalid escape");
        assert_eq!(
            reason("\"tab\there\""),
            "control character (\\u0000-\\u001F) found while parsing a string"
        );
        assert_eq!(reason("\"open"), "EOF while parsing a string");
        assert_eq!(reason("\"open\\"), "EOF while parsing a string");
        assert_eq!(reason("\"\\u12"), "EOF while parsing a string");
        assert_eq!(reason("42"), "invalid type: expected a string");
    }

    #[test]
    fn invalid_utf8_in_strings() {
        for bytes in [&b"\"a\xff\""[..], b"\"\xe2\x9c\"", b"\"\xe2\x9c"] {
            for chunk in CHUNKS {
                let err = syntax(
                    JsonCursor::with_chunk(bytes, chunk)
                        .skip_value()
                        .unwrap_err(),
                );
                assert!(
                    err.reason.contains("UTF-8") || err.reason.contains("EOF"),
                    "{bytes:?} {chunk}: {err:?}"
                );
            }
        }
        // a character split over two reads is fine
        assert_eq!(string("\"✅️𝔽é\"").unwrap(), "✅️𝔽é");
    }

    #[test]
    fn string_scanner_word_boundaries() {
        // escapes at every offset of an eight-byte word, after multi-byte characters
        for k in 0..20 {
            let mut s = "é".repeat(k);
            s.push_str("\\n");
            s.push_str(&"x".repeat(k));
            let json = format!("\"{s}\"");
            let want = format!("{}\n{}", "é".repeat(k), "x".repeat(k));
            assert_eq!(string(&json).unwrap(), want);
            let mut into = String::from(">");
            let len = JsonCursor::new(json.as_bytes())
                .string_into(&mut into)
                .unwrap();
            assert_eq!(len, want.len());
            assert_eq!(into, format!(">{want}"));
        }
        for b in 0u8..=0xff {
            let special = b < 0x20 || b == b'"' || b == b'\\';
            for k in 0..8 {
                let mut word = *b"abcdefgh";
                word[k] = b;
                assert_eq!(
                    has_special(u64::from_le_bytes(word)),
                    special,
                    "{b:#x} at {k}"
                );
            }
        }
    }

    fn number(
        json: &str,
    ) -> std::result::Result<(String, bool, bool, usize, Option<u64>), SyntaxError> {
        let mut results = CHUNKS.iter().map(|&chunk| {
            JsonCursor::with_chunk(json.as_bytes(), chunk)
                .number()
                .map(|n| {
                    (
                        n.text().to_string(),
                        n.negative,
                        n.exponent,
                        n.fraction_digits,
                        n.digits,
                    )
                })
                .map_err(syntax)
        });
        let first = results.next().expect("one");
        for other in results {
            assert_eq!(other, first, "{json:?}");
        }
        first
    }

    #[test]
    fn numbers() {
        assert_eq!(
            number("1e+03").unwrap(),
            ("1e+03".into(), false, true, 0, Some(1))
        );
        assert_eq!(
            number(" -0.5E-2,").unwrap(),
            ("-0.5E-2".into(), true, true, 1, Some(5))
        );
        assert_eq!(
            number("259231447.812903]").unwrap(),
            (
                "259231447.812903".into(),
                false,
                false,
                6,
                Some(259_231_447_812_903)
            )
        );
        assert_eq!(number("0").unwrap(), ("0".into(), false, false, 0, Some(0)));
        assert_eq!(number("123456789012345678901234").unwrap().4, None);
        for bad in ["-", "1.", "1e", "1e+", ".5", "+1", "-a", "", "1.e3"] {
            assert!(number(bad).is_err(), "{bad}");
        }
        assert_eq!(
            number("null").unwrap_err().reason,
            "invalid type: expected a number"
        );
        // "01": the number is 0; what follows is the caller's to reject
        assert_eq!(number("01").unwrap().0, "0");
        let zero = |s: &str| JsonCursor::new(s.as_bytes()).number().unwrap().is_zero();
        assert!(zero("0.0"));
        assert!(zero("-0e5"));
        assert!(!zero("0.001"));
        assert!(!zero("1e-400"));
        let u = |s: &str| JsonCursor::new(s.as_bytes()).u32().map_err(syntax);
        assert_eq!(u("4294967295").unwrap(), u32::MAX);
        assert!(u("4294967296").is_err());
        assert!(u("99999999999999999999999").is_err());
        assert!(u("1.0").is_err());
        assert!(u("1e2").is_err());
        assert!(u("-1").is_err());
        assert_eq!(u("-0").unwrap(), 0);
        assert_eq!(u(" 1.5").unwrap_err().column, 2);
    }

    #[test]
    fn objects_arrays_and_unknown_keys() {
        let json = " { \"a\" : [ 1 , 2 ] ,\n\t\"skip\": {\"x\": [null, true, false, \"s\\\"\", {}, [], -1.5e3]}, \"b\\u0061\": \"v\" } ";
        for chunk in CHUNKS {
            let mut c = JsonCursor::with_chunk(json.as_bytes(), chunk);
            c.begin_object().unwrap();
            let mut first = true;
            let mut seen = Vec::new();
            while let Some(key) = c.next_key(&mut first).unwrap() {
                match key.as_str() {
                    "a" => {
                        c.begin_array().unwrap();
                        let mut f = true;
                        let mut v = Vec::new();
                        while c.next_element(&mut f).unwrap() {
                            v.push(c.u32().unwrap());
                        }
                        assert_eq!(v, vec![1, 2]);
                    }
                    "ba" => assert_eq!(c.string().unwrap(), "v"),
                    _ => c.skip_value().unwrap(),
                }
                seen.push(key);
            }
            c.end().unwrap();
            assert_eq!(seen, vec!["a", "skip", "ba"]);
        }
    }

    fn skip_all(json: &str) -> std::result::Result<(), SyntaxError> {
        let mut results = CHUNKS.iter().map(|&chunk| {
            let mut c = JsonCursor::with_chunk(json.as_bytes(), chunk);
            c.skip_value().and_then(|()| c.end()).map_err(syntax)
        });
        let first = results.next().expect("one");
        for other in results {
            assert_eq!(other, first, "{json:?}");
        }
        first
    }

    #[test]
    fn skipping_checks_syntax() {
        assert!(skip_all(r#"{"a":[1,[2,[3,{"b":null}]]],"c":"\ud835\udd3d"}"#).is_ok());
        for bad in [
            "[1,]",
            "[1 2]",
            "{\"a\" 1}",
            "{\"a\":1,}",
            "{1:2}",
            "[nul]",
            "[tru]",
            "[01]",
            "[\"a\tb\"]",
            "[\"\\q\"]",
            "{\"a\":[1,2}",
            "[1,2",
            "",
            "   ",
            "[1] x",
            "[-]",
        ] {
            assert!(skip_all(bad).is_err(), "{bad:?}");
        }
    }

    /// Reads an array of `u32`s and `null`s with the compact fast path and the general path
    /// mixed, as the profile reader does.
    fn compact_column(
        json: &str,
        chunk: usize,
    ) -> std::result::Result<Vec<Option<u32>>, SyntaxError> {
        let mut c = JsonCursor::with_chunk(json.as_bytes(), chunk);
        let mut out = Vec::new();
        let mut first = true;
        c.begin_array().map_err(syntax)?;
        loop {
            let closed = c.compact_scalars(&mut first, |s| match s {
                Scalar::Null => {
                    out.push(None);
                    true
                }
                Scalar::Number(n) if n.is_integer() && !n.negative => {
                    match n.digits.and_then(|d| u32::try_from(d).ok()) {
                        Some(v) => {
                            out.push(Some(v));
                            true
                        }
                        None => false,
                    }
                }
                _ => false,
            });
            if closed || !c.next_element(&mut first).map_err(syntax)? {
                break;
            }
            out.push(if c.null().map_err(syntax)? {
                None
            } else {
                Some(c.u32().map_err(syntax)?)
            });
        }
        c.end().map_err(syntax)?;
        Ok(out)
    }

    /// [`fast_number`] one byte at a time: what the eight-at-a-time version must agree with.
    fn fast_number_bytewise(w: &[u8]) -> Option<(usize, bool, usize, u64)> {
        let negative = *w.first()? == b'-';
        let mut i = usize::from(negative);
        let first = *w.get(i)?;
        if !first.is_ascii_digit() {
            return None;
        }
        let (mut digits, mut count) = (u64::from(first - b'0'), 1);
        let mut fraction = 0;
        let mut in_fraction = false;
        i += 1;
        loop {
            match w.get(i) {
                Some(&b) if b.is_ascii_digit() && (first != b'0' || in_fraction) => {
                    if count == FAST_DIGITS {
                        return None;
                    }
                    digits = digits * 10 + u64::from(b - b'0');
                    count += 1;
                    fraction += usize::from(in_fraction);
                }
                Some(b'.') if !in_fraction => in_fraction = true,
                _ => break,
            }
            i += 1;
        }
        if in_fraction && fraction == 0 {
            return None;
        }
        match w.get(i) {
            Some(b) if !b.is_ascii_digit() && !matches!(b, b'.' | b'e' | b'E') => {
                Some((i, negative, fraction, digits))
            }
            _ => None,
        }
    }

    #[test]
    fn fast_number_reads_eight_digits_at_a_time_like_one() {
        let mut cases: Vec<Vec<u8>> = [
            &b"0,"[..],
            b"-0]",
            b"7,",
            b"12345678,",
            b"123456789,",
            b"259260572.014428,",
            b"78.99999]",
            b"9999999999999999999,",
            b"10000000000000000000,",
            b"1.2345678901234567890,",
            b"0.5,",
            b"00,",
            b"1.,",
            b"1.e5,",
            b"1e5,",
            b"1E5,",
            b"-,",
            b"1.5.5,",
            b"12345678",
            b"1.2",
            b"4294967296,",
            b"1234567\xff,",
            b"123\xfa4567,",
            b"12:45678,",
            b"0.000000001,",
        ]
        .iter()
        .map(|c| c.to_vec())
        .collect();
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let alphabet = b"0123456789.-,]eE/:\x00 ";
        for _ in 0..200_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let len = 1 + (seed % 26) as usize;
            let mut r = seed;
            let text: String = (0..len)
                .map(|_| {
                    r = r.rotate_left(5) ^ 0x9e37_79b9_7f4a_7c15;
                    let c = alphabet[(r % alphabet.len() as u64) as usize];
                    // mostly digits, as numbers are
                    if r.is_multiple_of(5) {
                        c as char
                    } else {
                        (b'0' + (r >> 8) as u8 % 10) as char
                    }
                })
                .collect();
            cases.push(text.into_bytes());
        }
        for case in &cases {
            let mut bytes = case.clone();
            // bytes a digit check could confuse: high nibble 3 past 9, and 0xFA.. carries
            for extra in [[b':'], [0x3f], [0xfa], [0xff]] {
                bytes.extend_from_slice(&extra);
                assert_eq!(
                    fast_number(&bytes),
                    fast_number_bytewise(&bytes),
                    "{:?}",
                    String::from_utf8_lossy(&bytes)
                );
                bytes.pop();
            }
        }
    }

    #[test]
    fn compact_scalars_agree_with_the_general_path() {
        let ok = [
            ("[]", vec![]),
            ("[ ]", vec![]),
            (
                "[1,null,22,-0,3]",
                vec![Some(1), None, Some(22), Some(0), Some(3)],
            ),
            ("[ 1 ,null, 22\n,4]", vec![Some(1), None, Some(22), Some(4)]),
            ("[4294967295,0]", vec![Some(u32::MAX), Some(0)]),
        ];
        for (json, want) in ok {
            for chunk in CHUNKS {
                assert_eq!(
                    compact_column(json, chunk).unwrap(),
                    want,
                    "{json:?} {chunk}"
                );
            }
        }
        for (bad, reason, column) in [
            ("[1,]", "trailing comma", 4),
            ("[1 2]", "expected `,` or `]`", 4),
            ("[nul]", "expected ident", 5),
            ("[nullx]", "expected `,` or `]`", 6),
            ("[1,-2]", "invalid value: negative integer, expected u32", 4),
            ("[1,2.5]", "invalid type: floating point, expected u32", 4),
            ("[01]", "expected `,` or `]`", 3),
            (
                "[1,4294967296]",
                "invalid value: integer out of range for u32",
                4,
            ),
            ("[1,2", "EOF while parsing a value", 5),
        ] {
            for chunk in CHUNKS {
                let err = compact_column(bad, chunk).unwrap_err();
                assert_eq!(
                    (&*err.reason, err.column),
                    (reason, column),
                    "{bad:?} {chunk}"
                );
            }
        }
    }

    #[test]
    fn depth_limit_edge() {
        let nested = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert!(skip_all(&nested(MAX_JSON_DEPTH)).is_ok());
        assert_eq!(
            skip_all(&nested(MAX_JSON_DEPTH + 1)).unwrap_err().reason,
            "recursion limit exceeded"
        );
        let objects = |n: usize| format!("{}1{}", "{\"k\":".repeat(n), "}".repeat(n));
        assert!(skip_all(&objects(MAX_JSON_DEPTH)).is_ok());
        assert!(skip_all(&objects(MAX_JSON_DEPTH + 1)).is_err());
    }

    #[test]
    fn truncated_input_is_an_error_at_the_end() {
        let full = r#"{"a":[1,2.5,"x\n",{"b":true}],"c":null,"d":1e5}"#;
        for cut in 0..full.len() {
            let err = skip_all(&full[..cut]).unwrap_err();
            assert!(err.offset <= cut as u64, "{cut}: {err:?}");
        }
        assert!(skip_all(full).is_ok());
    }

    #[test]
    fn positions_are_line_and_column() {
        let err = skip_all("{\"meta\": {\"startTime\": 1},\n \"threads\": [}").unwrap_err();
        assert_eq!((err.line, err.column, err.offset), (2, 14, 40));
        let err = skip_all("[1,\n\n  2,\n x]").unwrap_err();
        assert_eq!((err.line, err.column), (4, 2));
        let err = skip_all("x").unwrap_err();
        assert_eq!((err.line, err.column), (1, 1));
    }

    #[test]
    fn read_errors_are_reported() {
        struct Failing;
        impl Read for Failing {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::Error::other("disk on fire"))
            }
        }
        match *JsonCursor::new(Failing).skip_value().unwrap_err() {
            JsonError::Io(e) => assert_eq!(e.to_string(), "disk on fire"),
            other => panic!("{other:?}"),
        }
    }
}
