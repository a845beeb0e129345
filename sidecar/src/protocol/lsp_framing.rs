//! LSP framing on the server's input: a header block (`Content-Length: N`,
//! other headers ignored) ended by an empty line, then N bytes of body.
//!
//! A body over [`MAX_MESSAGE_BYTES`] is skipped unread (its length is known,
//! so the next message can still be found) and reported as
//! [`Frame::TooLarge`]. A header block that cannot be understood leaves no
//! way to find the next message: [`FramingError`].

use crate::limits::{MAX_HEADER_BYTES, MAX_MESSAGE_BYTES};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt};

/// One message as framed on the input.
#[derive(Debug, PartialEq)]
pub enum Frame {
    Body(Vec<u8>),
    /// A body of `length` bytes, over the limit, skipped.
    TooLarge {
        length: u64,
    },
}

#[derive(Debug, thiserror::Error)]
pub enum FramingError {
    #[error("reading the input failed: {0}")]
    Io(#[from] std::io::Error),
    #[error("the header block is longer than {MAX_HEADER_BYTES} bytes")]
    HeaderTooLong,
    #[error("a header line is not UTF-8")]
    HeaderNotUtf8,
    #[error("the header line {0:?} is not `Name: value`")]
    BadHeaderLine(String),
    #[error("the header block has no Content-Length")]
    NoContentLength,
    #[error("Content-Length {0:?} is not a byte count")]
    BadContentLength(String),
    #[error("the input ended inside a header block")]
    EndInHeader,
    #[error("the input ended {missing} bytes before the end of a {length}-byte message")]
    EndInBody { length: u64, missing: u64 },
}

/// The next message, or `None` at the end of the input between messages.
pub async fn read_frame<R: AsyncBufRead + Unpin>(r: &mut R) -> Result<Option<Frame>, FramingError> {
    let Some(length) = read_header(r).await? else {
        return Ok(None);
    };
    if length > MAX_MESSAGE_BYTES {
        let skipped = tokio::io::copy(&mut r.take(length), &mut tokio::io::sink()).await?;
        if skipped < length {
            return Err(FramingError::EndInBody {
                length,
                missing: length - skipped,
            });
        }
        return Ok(Some(Frame::TooLarge { length }));
    }
    let mut body = Vec::with_capacity(length as usize);
    let got = r.take(length).read_to_end(&mut body).await? as u64;
    if got < length {
        return Err(FramingError::EndInBody {
            length,
            missing: length - got,
        });
    }
    Ok(Some(Frame::Body(body)))
}

/// The Content-Length of the next header block; `None` at the end of input
/// before any of it.
async fn read_header<R: AsyncBufRead + Unpin>(r: &mut R) -> Result<Option<u64>, FramingError> {
    let mut length = None;
    let mut used = 0usize;
    let mut first = true;
    loop {
        let mut line = Vec::new();
        // At most the rest of the header budget (plus one byte to tell
        // "too long" from "exactly full").
        let budget = (MAX_HEADER_BYTES - used) as u64 + 1;
        let n = r.take(budget).read_until(b'\n', &mut line).await?;
        if n == 0 {
            return if first {
                Ok(None)
            } else {
                Err(FramingError::EndInHeader)
            };
        }
        first = false;
        used += n;
        if used > MAX_HEADER_BYTES {
            return Err(FramingError::HeaderTooLong);
        }
        if line.last() != Some(&b'\n') {
            return Err(FramingError::EndInHeader);
        }
        let text = std::str::from_utf8(&line).map_err(|_| FramingError::HeaderNotUtf8)?;
        let text = text.trim_end_matches(['\r', '\n']);
        if text.is_empty() {
            return length.map(Some).ok_or(FramingError::NoContentLength);
        }
        let (name, value) = text
            .split_once(':')
            .ok_or_else(|| FramingError::BadHeaderLine(text.into()))?;
        if name.trim().eq_ignore_ascii_case("content-length") {
            let value = value.trim();
            let n: u64 = value
                .parse()
                .map_err(|_| FramingError::BadContentLength(value.into()))?;
            if length.is_some_and(|l| l != n) {
                return Err(FramingError::BadContentLength(value.into()));
            }
            length = Some(n);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(input: &[u8]) -> Vec<Result<Frame, String>> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(async {
            let mut r = tokio::io::BufReader::new(input);
            let mut out = Vec::new();
            loop {
                match read_frame(&mut r).await {
                    Ok(Some(f)) => out.push(Ok(f)),
                    Ok(None) => break,
                    Err(e) => {
                        out.push(Err(e.to_string()));
                        break;
                    }
                }
            }
            out
        })
    }

    #[test]
    fn reads_messages_one_after_another() {
        let got =
            read_all(b"Content-Length: 2\r\n\r\n{}Content-Type: x\r\ncontent-length:3\r\n\r\n[1]");
        assert_eq!(
            got,
            vec![
                Ok(Frame::Body(b"{}".to_vec())),
                Ok(Frame::Body(b"[1]".to_vec()))
            ]
        );
        assert!(read_all(b"").is_empty());
    }

    #[test]
    fn a_body_over_the_limit_is_skipped_and_the_next_one_read() {
        let at = MAX_MESSAGE_BYTES as usize;
        let mut input = format!("Content-Length: {at}\r\n\r\n").into_bytes();
        input.extend(std::iter::repeat_n(b' ', at));
        input.extend(format!("Content-Length: {}\r\n\r\n", at + 1).bytes());
        input.extend(std::iter::repeat_n(b' ', at + 1));
        input.extend(b"Content-Length: 2\r\n\r\n{}");
        let got = read_all(&input);
        assert_eq!(got.len(), 3);
        assert!(matches!(&got[0], Ok(Frame::Body(b)) if b.len() == at));
        assert_eq!(
            got[1],
            Ok(Frame::TooLarge {
                length: MAX_MESSAGE_BYTES + 1
            })
        );
        assert_eq!(got[2], Ok(Frame::Body(b"{}".to_vec())));
    }

    #[test]
    fn header_blocks_that_lose_the_next_message_are_errors() {
        for (input, says) in [
            (&b"Content-Length: abc\r\n\r\n{}"[..], "is not a byte count"),
            (b"Content-Type: x\r\n\r\n{}", "has no Content-Length"),
            (b"garbage\r\n\r\n", "is not `Name: value`"),
            (
                b"Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
                "byte count",
            ),
            (b"Content-Length: 9\r\n\r\n{}", "7 bytes before the end"),
            (b"Content-Length: 2\r\n", "ended inside a header"),
            (b"Content-\xffLength: 2\r\n\r\n{}", "not UTF-8"),
        ] {
            let got = read_all(input);
            let last = got.last().unwrap().as_ref().unwrap_err();
            assert!(last.contains(says), "{last} for {input:?}");
        }
    }

    #[test]
    fn the_header_block_is_limited() {
        let header = |ys: usize| format!("X: {}\r\nContent-Length: 2\r\n\r\n{{}}", "y".repeat(ys));
        let exactly = header(MAX_HEADER_BYTES - 26);
        assert_eq!(exactly.len() - 2, MAX_HEADER_BYTES);
        assert_eq!(
            read_all(exactly.as_bytes()),
            vec![Ok(Frame::Body(b"{}".to_vec()))]
        );
        let got = read_all(header(MAX_HEADER_BYTES - 25).as_bytes());
        assert!(
            matches!(&got[0], Err(e) if e.contains("longer than")),
            "{got:?}"
        );
        let endless = vec![b'a'; MAX_HEADER_BYTES * 4];
        let got = read_all(&endless);
        assert!(matches!(&got[0], Err(e) if e.contains("longer than")));
    }
}
