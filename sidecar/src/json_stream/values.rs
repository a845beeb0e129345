//! Whole values as bytes: a reader that parses some values another way (a Chrome trace's
//! events, by a parser made for them, or by `serde_json`) takes each one as a slice of the
//! cursor's buffer, bounded by its own limit. Finding where a value ends only tracks strings
//! and brackets; the value's own parser validates it.

use std::io::Read;
use std::ops::Range;

use super::{JsonCursor, JsonError, Result};

/// Why a parser offered bytes by [`JsonCursor::parse_value`] did not read a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// The bytes end inside the value.
    Incomplete,
    /// Not the shape that parser reads: read the value another way.
    Bail,
}

impl<R: Read> JsonCursor<R> {
    /// Input offset of the next unread byte.
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// The next byte that is not whitespace, not consumed; `None` at the end of the input.
    ///
    /// A reader taking an array's elements one by one calls this two or three times per
    /// element (before it, for its `,`, for the `]` a trailing comma may come before): one
    /// loop over the buffered bytes, inlined into the caller, with a call only to refill.
    #[inline(always)]
    pub fn next_byte(&mut self) -> Result<Option<u8>> {
        loop {
            while self.pos < self.end {
                let b = self.buf[self.pos];
                if !matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
                    return Ok(Some(b));
                }
                self.pos += 1;
            }
            if !self.fill(1)? {
                return Ok(None);
            }
        }
    }

    /// Consumes the byte [`JsonCursor::next_byte`] just returned.
    #[inline]
    pub fn bump(&mut self) {
        if self.pos < self.end {
            self.pos += 1;
        }
    }

    fn value_too_large(&self, start: usize, max: usize) -> Box<JsonError> {
        Box::new(JsonError::ValueTooLarge {
            offset: self.base + start as u64,
            max,
        })
    }

    /// Reads on, keeping the bytes from the cursor, until `more` bytes past the `have` there
    /// are buffered or the input ends; returns whether any came.
    fn read_more(&mut self, have: usize, more: usize) -> Result<bool> {
        self.fill(have.saturating_add(more))?;
        Ok(self.end - self.pos > have)
    }

    /// Returns the next complete value (object, array, string or scalar) as a slice of at most
    /// `max` bytes, consuming it.
    pub fn take_value(&mut self, max: usize) -> Result<&[u8]> {
        let Some(first) = self.next_byte()? else {
            return self.fail(self.pos, "EOF while parsing a value");
        };
        let mut scan = ValueScan::new(first);
        let mut scanned = 0;
        loop {
            let start = self.pos;
            let found = scan.advance(&self.buf[start + scanned..self.end]);
            let len = match found {
                Some(n) => scanned + n,
                None => self.end - start,
            };
            if len > max {
                return Err(self.value_too_large(start, max));
            }
            if found.is_some() {
                self.pos = start + len;
                return Ok(&self.buf[start..start + len]);
            }
            scanned = len;
            // at least double what there is, so a large value is scanned in a bounded number
            // of reads (the scan goes on where it stopped)
            if !self.read_more(len, len.max(self.chunk))? {
                if scan.is_scalar() && scanned > 0 {
                    // a scalar may end at the end of the input
                    let start = self.pos;
                    self.pos = self.end;
                    return Ok(&self.buf[start..self.end]);
                }
                return self.fail(self.end, "EOF while parsing a value");
            }
        }
    }

    /// Offers the next value (after whitespace) to `parse`, which reads it and returns its
    /// length, reading on while `parse` needs more bytes. Returns where the value's bytes are
    /// (for [`JsonCursor::bytes`]), having consumed them; `None` when `parse` gives up or the
    /// input ends, leaving the value unread for [`JsonCursor::take_value`] to report on or hand
    /// to a general parser.
    #[inline]
    pub fn parse_value(
        &mut self,
        max: usize,
        mut parse: impl FnMut(&[u8]) -> std::result::Result<usize, Stop>,
    ) -> Result<Option<Range<usize>>> {
        if self.next_byte()?.is_none() {
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
                return Err(self.value_too_large(start, max));
            }
            // At least double what `parse` saw (up to the limit), so that a large value is
            // parsed a bounded number of times.
            let want = available.min(max + 1 - available).max(1);
            if !self.read_more(available, want)? {
                return Ok(None);
            }
        }
    }

    /// The bytes of a value [`JsonCursor::parse_value`] just read.
    pub fn bytes(&self, at: Range<usize>) -> &[u8] {
        &self.buf[at]
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
    use super::super::READ_CHUNK;
    use super::*;

    /// A reader that hands out 3 bytes at a time.
    struct Slow<'a>(&'a [u8]);
    impl Read for Slow<'_> {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            let n = self.0.len().min(3).min(out.len());
            out[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    fn values(text: &str, chunk: usize) -> Vec<String> {
        let mut s = JsonCursor::with_chunk(Slow(text.as_bytes()), chunk);
        s.begin_array().unwrap();
        let mut out = vec![];
        loop {
            match s.next_byte().unwrap() {
                Some(b']') => break,
                Some(b',') => s.bump(),
                _ => out.push(String::from_utf8(s.take_value(100).unwrap().to_vec()).unwrap()),
            }
        }
        out
    }

    #[test]
    fn splits_values_across_reads() {
        for chunk in [1, 2, 5, 64, READ_CHUNK] {
            assert_eq!(
                values(
                    r#"[{"a":"}\"{","b":[1,{"c":2}]}, 12.5e3 ,"x\\",[],{} ,true]"#,
                    chunk
                ),
                [
                    r#"{"a":"}\"{","b":[1,{"c":2}]}"#,
                    "12.5e3",
                    r#""x\\""#,
                    "[]",
                    "{}",
                    "true"
                ],
                "{chunk}"
            );
        }
    }

    #[test]
    fn a_scalar_may_end_the_input_after_a_refill() {
        let mut s = JsonCursor::with_chunk(&b"[ 1"[..], 2);
        s.begin_array().unwrap();
        assert_eq!(s.take_value(10).unwrap(), b"1");
        assert_eq!(s.next_byte().unwrap(), None);
    }

    #[test]
    fn the_input_may_end_inside_a_value() {
        let mut s = JsonCursor::with_chunk(&b"[{\"a\": [1, 2"[..], 4);
        s.begin_array().unwrap();
        match *s.take_value(100).unwrap_err() {
            JsonError::Syntax(e) => {
                assert_eq!((&*e.reason, e.offset), ("EOF while parsing a value", 12))
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn values_over_the_limit_are_refused() {
        let big = format!("[\"{}\"]", "x".repeat(500));
        let mut s = JsonCursor::with_chunk(big.as_bytes(), 64);
        s.begin_array().unwrap();
        match *s.take_value(100).unwrap_err() {
            JsonError::ValueTooLarge {
                offset: 1,
                max: 100,
            } => {}
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn parse_value_reads_on_until_the_parser_is_done() {
        // a "parser" that wants the whole array of digits and its closing bracket
        let text = format!("[{}] 7", "1,".repeat(1000) + "1");
        let mut s = JsonCursor::with_chunk(Slow(text.as_bytes()), 16);
        let mut calls = 0;
        let at = s
            .parse_value(1 << 20, |b| {
                calls += 1;
                memchr::memchr(b']', b)
                    .map(|i| i + 1)
                    .ok_or(Stop::Incomplete)
            })
            .unwrap()
            .unwrap();
        assert_eq!(s.bytes(at).len(), text.len() - 2);
        assert!(calls < 20, "{calls} parses: the window doubles");
        assert_eq!(s.parse_value(10, |_| Err(Stop::Bail)).unwrap(), None);
        assert_eq!(s.take_value(10).unwrap(), b"7");
        let mut s = JsonCursor::new(text.as_bytes());
        match *s
            .parse_value(100, |b| {
                memchr::memchr(b']', b)
                    .map(|i| i + 1)
                    .ok_or(Stop::Incomplete)
            })
            .unwrap_err()
        {
            JsonError::ValueTooLarge {
                offset: 0,
                max: 100,
            } => {}
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn skipping_streams_any_size() {
        let big = format!("[\"{}\", 1]", "y".repeat(5 << 20));
        let mut s = JsonCursor::new(big.as_bytes());
        s.begin_array().unwrap();
        let mut first = true;
        assert!(s.next_element(&mut first).unwrap());
        s.skip_value().unwrap();
        assert!(s.next_element(&mut first).unwrap());
        assert_eq!(s.take_value(10).unwrap(), b"1");
        assert!(s.buf.len() <= 2 * READ_CHUNK);
    }
}
