//! A streaming scanner over JSON text: it walks the outer structure of a
//! large document (an array of events, or an object holding one) and hands
//! out each element as a complete byte slice for `serde_json` to parse,
//! without ever holding more than one element (bounded by a limit). Values
//! it skips — however large, even a 2 GB string — stream past in constant
//! memory.

use std::io::Read;
use std::ops::Range;

use super::error::{InteropError, Result};

const READ_CHUNK: usize = 1 << 20;

/// Why a parser offered bytes by [`Scanner::parse_value`] did not read a
/// value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// The bytes end inside the value.
    Incomplete,
    /// Not the shape that parser reads: read the value another way.
    Bail,
}

pub struct Scanner<R: Read> {
    input: R,
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    /// Input offset of `buf[0]`.
    base: u64,
    eof: bool,
    format: &'static str,
    /// The name of the limit `take_value`'s `max` stands for.
    limit_name: &'static str,
}

impl<R: Read> Scanner<R> {
    pub fn new(input: R, format: &'static str) -> Self {
        Scanner {
            input,
            buf: vec![0; READ_CHUNK],
            pos: 0,
            end: 0,
            base: 0,
            eof: false,
            format,
            limit_name: "MAX_CHROME_EVENT_BYTES",
        }
    }

    /// Names the limit that `take_value`'s `max` stands for in errors.
    pub fn with_limit_name(mut self, name: &'static str) -> Self {
        self.limit_name = name;
        self
    }

    /// Input offset of the next unread byte.
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Reads more input, keeping `buf[self.pos..]`. Returns false at the end.
    fn fill(&mut self) -> Result<bool> {
        if self.eof {
            return Ok(false);
        }
        if self.pos > 0 {
            self.buf.copy_within(self.pos..self.end, 0);
            self.base += self.pos as u64;
            self.end -= self.pos;
            self.pos = 0;
        }
        if self.buf.len() - self.end < READ_CHUNK / 2 {
            let len = self.buf.len() + READ_CHUNK;
            self.buf.resize(len, 0);
        }
        loop {
            match self.input.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(false);
                }
                Ok(n) => {
                    self.end += n;
                    return Ok(true);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// The next byte that is not JSON whitespace, without consuming it.
    pub fn peek(&mut self) -> Result<Option<u8>> {
        loop {
            while self.pos < self.end {
                match self.buf[self.pos] {
                    b' ' | b'\t' | b'\n' | b'\r' => self.pos += 1,
                    b => return Ok(Some(b)),
                }
            }
            if !self.fill()? {
                return Ok(None);
            }
        }
    }

    pub fn bump(&mut self) {
        self.pos += 1;
    }

    fn syntax(&self, detail: impl Into<String>) -> InteropError {
        InteropError::syntax(self.format, format!("byte {}", self.offset()), detail)
    }

    /// Consumes `b` (after whitespace) or fails naming what was expected.
    pub fn expect(&mut self, b: u8, what: &str) -> Result<()> {
        match self.peek()? {
            Some(c) if c == b => {
                self.bump();
                Ok(())
            }
            Some(c) => Err(self.syntax(format!(
                "expected {what}, found `{}`",
                (c as char).escape_default()
            ))),
            None => Err(self.syntax(format!("expected {what}, found the end of the input"))),
        }
    }

    /// Reads a string (an object key) of at most `max` bytes, unescaped.
    pub fn read_key(&mut self, max: usize) -> Result<String> {
        let start = self.offset();
        let slice = self.take_value(max, "an object key")?;
        serde_json::from_slice::<String>(slice).map_err(|e| {
            InteropError::syntax(
                self.format,
                format!("byte {start}"),
                format!("bad key: {e}"),
            )
        })
    }

    /// Returns the next complete value (object, array, string or scalar)
    /// as a slice of at most `max` bytes, consuming it.
    pub fn take_value(&mut self, max: usize, what: &'static str) -> Result<&[u8]> {
        let first = self
            .peek()?
            .ok_or_else(|| self.syntax(format!("expected {what}, found the end of the input")))?;
        let mut scan = ValueScan::new(first);
        let mut start = self.pos;
        let mut scanned = 0;
        loop {
            let found = scan.advance(&self.buf[start + scanned..self.end]);
            let len = match found {
                Some(n) => scanned + n,
                None => self.end - start,
            };
            if len > max {
                return Err(self.value_too_large(start, what, max));
            }
            if found.is_some() {
                self.pos = start + len;
                return Ok(&self.buf[start..start + len]);
            }
            scanned = len;
            // Keep the partial value: fill() moves it to the front.
            self.pos = start;
            if !self.fill()? {
                if scan.is_scalar() && scanned > 0 {
                    // A scalar may end at the end of the input; fill() may
                    // have moved it to the front, where `pos` now is.
                    let start = self.pos;
                    self.pos = self.end;
                    return Ok(&self.buf[start..self.end]);
                }
                return Err(self.syntax(format!("the input ends inside {what}")));
            }
            start = self.pos;
        }
    }

    /// The error of a value starting at `start` in the buffer that is longer than `max`.
    fn value_too_large(&self, start: usize, what: &'static str, max: usize) -> InteropError {
        InteropError::limit(
            self.format,
            format!("byte {}", self.base + start as u64),
            what,
            max as u64,
            self.limit_name,
        )
    }

    /// Offers the next value (after whitespace) to `parse`, which reads it
    /// and returns its length, refilling the buffer while `parse` needs
    /// more bytes. Returns where the value's bytes are (for
    /// [`Scanner::bytes`]), having consumed them; `None` when
    /// `parse` gives up or the input ends, leaving the value unread for
    /// [`Scanner::take_value`] to report on or hand to a general parser.
    pub fn parse_value(
        &mut self,
        max: usize,
        what: &'static str,
        mut parse: impl FnMut(&[u8]) -> std::result::Result<usize, Stop>,
    ) -> Result<Option<Range<usize>>> {
        if self.peek()?.is_none() {
            return Ok(None);
        }
        loop {
            let start = self.pos;
            let available = self.end - start;
            let len = match parse(&self.buf[start..self.end]) {
                Ok(len) if len <= max => {
                    self.pos = start + len;
                    return Ok(Some(start..start + len));
                }
                Ok(len) => len,
                Err(Stop::Bail) => return Ok(None),
                Err(Stop::Incomplete) => available,
            };
            if len > max {
                return Err(self.value_too_large(start, what, max));
            }
            // At least double what `parse` saw (up to the limit), so that a
            // large value is parsed a bounded number of times.
            let want = available.min(max + 1 - available).max(1);
            let mut read = 0;
            while read < want {
                let before = self.end - self.pos;
                if !self.fill()? {
                    break;
                }
                read += self.end - self.pos - before;
            }
            if read == 0 {
                return Ok(None);
            }
        }
    }

    /// The bytes of a value [`Scanner::parse_value`] just read.
    pub fn bytes(&self, at: Range<usize>) -> &[u8] {
        &self.buf[at]
    }

    /// Consumes the next value without keeping it, in constant memory.
    pub fn skip_value(&mut self) -> Result<()> {
        let first = self
            .peek()?
            .ok_or_else(|| self.syntax("expected a value, found the end of the input"))?;
        let mut scan = ValueScan::new(first);
        loop {
            match scan.advance(&self.buf[self.pos..self.end]) {
                Some(n) => {
                    self.pos += n;
                    return Ok(());
                }
                None => {
                    self.pos = self.end;
                    if !self.fill()? {
                        if scan.is_scalar() {
                            return Ok(());
                        }
                        return Err(self.syntax("the input ends inside a value"));
                    }
                }
            }
        }
    }
}

/// Finds where a JSON value ends, fed the text piece by piece. It tracks
/// strings and the depth of the value's own kind of bracket (`{}` for an
/// object, `[]` for an array: in valid JSON the other kind is balanced
/// within); the value itself is validated later by the parser that reads it.
struct ValueScan {
    depth: u32,
    in_string: bool,
    escape: bool,
    started: bool,
    scalar: bool,
    open: u8,
    close: u8,
}

impl ValueScan {
    fn new(first: u8) -> Self {
        let (open, close) = if first == b'[' {
            (b'[', b']')
        } else {
            (b'{', b'}')
        };
        ValueScan {
            depth: 0,
            in_string: false,
            escape: false,
            started: false,
            scalar: !matches!(first, b'{' | b'[' | b'"'),
            open,
            close,
        }
    }

    fn is_scalar(&self) -> bool {
        self.scalar
    }

    /// Scans `text`, which continues where the last call stopped. Returns
    /// the length of `text` up to and including the value's last byte, or
    /// `None` when the value goes on.
    fn advance(&mut self, text: &[u8]) -> Option<usize> {
        let mut i = 0;
        if self.scalar {
            // Numbers, true, false, null: up to a delimiter.
            while i < text.len() {
                match text[i] {
                    b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r' => return Some(i),
                    _ => i += 1,
                }
            }
            return None;
        }
        if !self.started && !text.is_empty() {
            self.started = true;
            if text[0] == b'"' {
                self.in_string = true;
            } else {
                self.depth = 1;
            }
            i = 1;
        }
        while i < text.len() {
            if self.in_string {
                if self.escape {
                    self.escape = false;
                    i += 1;
                    continue;
                }
                let k = memchr::memchr2(b'"', b'\\', &text[i..])?;
                i += k;
                if text[i] == b'\\' {
                    self.escape = true;
                } else {
                    self.in_string = false;
                    if self.depth == 0 {
                        return Some(i + 1);
                    }
                }
                i += 1;
                continue;
            }
            let k = memchr::memchr3(b'"', self.open, self.close, &text[i..])?;
            i += k;
            match text[i] {
                b'"' => self.in_string = true,
                b if b == self.open => self.depth += 1,
                _ => {
                    self.depth -= 1;
                    if self.depth == 0 {
                        return Some(i + 1);
                    }
                }
            }
            i += 1;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(text: &str) -> Vec<String> {
        // A tiny reader that hands out 3 bytes at a time.
        struct Slow<'a>(&'a [u8]);
        impl Read for Slow<'_> {
            fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
                let n = self.0.len().min(3).min(out.len());
                out[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let mut s = Scanner::new(Slow(text.as_bytes()), "test");
        s.expect(b'[', "an array").unwrap();
        let mut out = vec![];
        loop {
            match s.peek().unwrap() {
                Some(b']') => break,
                Some(b',') => s.bump(),
                _ => out.push(
                    String::from_utf8(s.take_value(100, "a value").unwrap().to_vec()).unwrap(),
                ),
            }
        }
        out
    }

    #[test]
    fn splits_values_across_reads() {
        assert_eq!(
            values(r#"[{"a":"}\"{","b":[1,{"c":2}]}, 12.5e3 ,"x\\",[],{} ,true]"#),
            [
                r#"{"a":"}\"{","b":[1,{"c":2}]}"#,
                "12.5e3",
                r#""x\\""#,
                "[]",
                "{}",
                "true"
            ]
        );
    }

    #[test]
    fn a_scalar_may_end_the_input_after_a_refill() {
        let mut s = Scanner::new(&b"[ 1"[..], "test");
        s.expect(b'[', "an array").unwrap();
        assert_eq!(s.take_value(10, "a value").unwrap(), b"1");
        assert_eq!(s.peek().unwrap(), None);
    }

    #[test]
    fn values_over_the_limit_are_refused() {
        let big = format!("[\"{}\"]", "x".repeat(500));
        let mut s = Scanner::new(big.as_bytes(), "test");
        s.expect(b'[', "an array").unwrap();
        let e = s.take_value(100, "a trace event").unwrap_err();
        assert!(
            e.to_string()
                .contains("a trace event is over the limit of 100"),
            "{e}"
        );
    }

    #[test]
    fn skipping_streams_any_size() {
        let big = format!("[\"{}\", 1]", "y".repeat(5 << 20));
        let mut s = Scanner::new(big.as_bytes(), "test");
        s.expect(b'[', "an array").unwrap();
        s.skip_value().unwrap();
        s.expect(b',', "a comma").unwrap();
        assert_eq!(s.take_value(10, "a value").unwrap(), b"1");
        assert!(s.buf.len() <= 2 * READ_CHUNK);
    }
}

/// A reader that fails as soon as a JSON string in the text passing
/// through it is longer than `max` bytes, so that a parser reading from it
/// never buffers a giant string.
pub struct LimitedStrings<R> {
    inner: R,
    max: usize,
    in_string: bool,
    escape: bool,
    len: usize,
    offset: u64,
}

impl<R> LimitedStrings<R> {
    pub fn new(inner: R, max: usize) -> Self {
        LimitedStrings {
            inner,
            max,
            in_string: false,
            escape: false,
            len: 0,
            offset: 0,
        }
    }
}

/// The error `LimitedStrings` reports (inside an `io::Error`).
#[derive(Debug)]
pub struct StringTooLong {
    pub offset: u64,
    pub max: usize,
}

impl std::fmt::Display for StringTooLong {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "a string at byte {} is longer than {} bytes (MAX_JSON_STRING_BYTES)",
            self.offset, self.max
        )
    }
}

impl std::error::Error for StringTooLong {}

impl<R: Read> Read for LimitedStrings<R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(out)?;
        for (k, &b) in out[..n].iter().enumerate() {
            if self.in_string {
                self.len += 1;
                if self.escape {
                    self.escape = false;
                } else if b == b'\\' {
                    self.escape = true;
                } else if b == b'"' {
                    self.in_string = false;
                }
                if self.len > self.max {
                    return Err(std::io::Error::other(StringTooLong {
                        offset: self.offset + k as u64 + 1 - self.len as u64,
                        max: self.max,
                    }));
                }
            } else if b == b'"' {
                self.in_string = true;
                self.len = 0;
            }
        }
        self.offset += n as u64;
        Ok(n)
    }
}
