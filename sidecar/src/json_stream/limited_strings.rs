//! A reader for a document `serde_json` reads whole (a summary): it fails as soon as a JSON
//! string passing through it is longer than a limit, so the parser never buffers a giant one.

use std::io::Read;

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
