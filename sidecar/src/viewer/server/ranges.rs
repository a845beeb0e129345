//! What part of a data file a request gets: conditional requests
//! (`If-None-Match`, `If-Modified-Since` → 304) and single byte ranges
//! (`Range: bytes=a-b`, `a-`, `-n` → 206; unsatisfiable → 416; `If-Range`),
//! after RFC 9110 §13 and §14. Several ranges in one request, or a Range
//! header that does not parse, get the whole file, as the RFC allows.

use crate::file_stamp::FileStamp;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// What a data file is known by.
#[derive(Debug, Clone)]
pub struct Validators {
    pub len: u64,
    /// A strong entity tag, quotes included.
    pub etag: String,
    pub modified: SystemTime,
}

impl Validators {
    /// From a file's metadata: its [`FileStamp`] (length, modification
    /// time, identity) makes the tag (the file is rewritten, not edited,
    /// when it changes).
    pub fn of_file(meta: &std::fs::Metadata) -> Validators {
        let modified = meta.modified().unwrap_or(UNIX_EPOCH);
        let stamp = FileStamp::of(meta);
        Validators {
            len: meta.len(),
            etag: format!("\"{:x}-{:x}-{:x}\"", stamp.len, stamp.mtime_ns, stamp.id),
            modified,
        }
    }

    /// For bytes held in memory for the life of the server.
    pub fn of_memory(len: u64, since: SystemTime) -> Validators {
        let ns = since
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        Validators {
            len,
            etag: format!("\"m{len:x}-{ns:x}\""),
            modified: since,
        }
    }

    pub fn last_modified(&self) -> String {
        httpdate::fmt_http_date(self.modified)
    }
}

/// The request's conditional and range headers (first value of each).
#[derive(Debug, Default, Clone)]
pub struct Conditions {
    pub range: Option<String>,
    pub if_range: Option<String>,
    pub if_none_match: Option<String>,
    pub if_modified_since: Option<String>,
}

#[derive(Debug, PartialEq, Eq)]
pub enum Selection {
    Whole,
    /// Bytes `start..=end`.
    Part {
        start: u64,
        end: u64,
    },
    NotModified,
    Unsatisfiable,
}

pub fn select(c: &Conditions, v: &Validators) -> Selection {
    if not_modified(c, v) {
        return Selection::NotModified;
    }
    let Some(range) = c.range.as_deref() else {
        return Selection::Whole;
    };
    if let Some(cond) = c.if_range.as_deref() {
        if !if_range_holds(cond.trim(), v) {
            return Selection::Whole;
        }
    }
    match parse_range(range, v.len) {
        Some(Ok((start, end))) => Selection::Part { start, end },
        Some(Err(())) => Selection::Unsatisfiable,
        None => Selection::Whole,
    }
}

/// RFC 9110 §13.1.2 (weak comparison) and §13.1.3; If-Modified-Since is
/// only looked at without If-None-Match.
fn not_modified(c: &Conditions, v: &Validators) -> bool {
    if let Some(tags) = c.if_none_match.as_deref() {
        let mine = v.etag.trim_start_matches("W/");
        return tags
            .split(',')
            .map(str::trim)
            .any(|t| t == "*" || t.trim_start_matches("W/") == mine);
    }
    match c
        .if_modified_since
        .as_deref()
        .map(|d| httpdate::parse_http_date(d.trim()))
    {
        Some(Ok(since)) => whole_seconds(v.modified) <= since,
        _ => false,
    }
}

/// If-Range: a strong tag equal to ours, or exactly our Last-Modified date.
fn if_range_holds(cond: &str, v: &Validators) -> bool {
    if cond.starts_with('"') {
        return cond == v.etag;
    }
    matches!(httpdate::parse_http_date(cond), Ok(d) if d == whole_seconds(v.modified))
}

fn whole_seconds(t: SystemTime) -> SystemTime {
    let secs = t
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    UNIX_EPOCH + Duration::from_secs(secs)
}

/// `None`: not a single byte range we serve (ignored: the whole file);
/// `Some(Err)`: a valid range past the end (416); else inclusive bounds.
fn parse_range(header: &str, len: u64) -> Option<Result<(u64, u64), ()>> {
    let spec = header.trim().strip_prefix("bytes=")?.trim();
    if spec.contains(',') {
        return None;
    }
    let (a, b) = spec.split_once('-')?;
    let (a, b) = (a.trim(), b.trim());
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit());
    if a.is_empty() {
        // A suffix: the last n bytes.
        if !digits(b) {
            return None;
        }
        let n: u64 = b.parse().ok()?;
        if n == 0 || len == 0 {
            return Some(Err(()));
        }
        return Some(Ok((len - n.min(len), len - 1)));
    }
    if !digits(a) || !(b.is_empty() || digits(b)) {
        return None;
    }
    let start: u64 = a.parse().ok()?;
    let end: u64 = if b.is_empty() {
        u64::MAX
    } else {
        b.parse().ok()?
    };
    if end < start {
        return None;
    }
    if start >= len {
        return Some(Err(()));
    }
    Some(Ok((start, end.min(len - 1))))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v() -> Validators {
        Validators {
            len: 100,
            etag: "\"64-1-2\"".into(),
            modified: UNIX_EPOCH + Duration::from_millis(1_700_000_000_500),
        }
    }

    fn range(r: &str) -> Selection {
        select(
            &Conditions {
                range: Some(r.into()),
                ..Conditions::default()
            },
            &v(),
        )
    }

    #[test]
    fn single_ranges() {
        assert_eq!(range("bytes=0-9"), Selection::Part { start: 0, end: 9 });
        assert_eq!(range("bytes=90-"), Selection::Part { start: 90, end: 99 });
        assert_eq!(
            range("bytes=90-500"),
            Selection::Part { start: 90, end: 99 }
        );
        assert_eq!(range("bytes=-10"), Selection::Part { start: 90, end: 99 });
        assert_eq!(range("bytes=-500"), Selection::Part { start: 0, end: 99 });
        assert_eq!(range("bytes=100-"), Selection::Unsatisfiable);
        assert_eq!(range("bytes=-0"), Selection::Unsatisfiable);
        for ignored in [
            "bytes=5-1",
            "bytes=0-1,5-6",
            "items=0-1",
            "bytes=a-b",
            "bytes=-",
            "bytes=+1-2",
        ] {
            assert_eq!(range(ignored), Selection::Whole, "{ignored}");
        }
        let empty = Validators { len: 0, ..v() };
        let c = Conditions {
            range: Some("bytes=0-".into()),
            ..Conditions::default()
        };
        assert_eq!(select(&c, &empty), Selection::Unsatisfiable);
    }

    #[test]
    fn conditionals() {
        let c = |inm: Option<&str>, ims: Option<&str>| Conditions {
            if_none_match: inm.map(Into::into),
            if_modified_since: ims.map(Into::into),
            ..Conditions::default()
        };
        let lm = v().last_modified();
        assert_eq!(
            select(&c(Some("\"64-1-2\""), None), &v()),
            Selection::NotModified
        );
        assert_eq!(
            select(&c(Some("\"x\", W/\"64-1-2\""), None), &v()),
            Selection::NotModified
        );
        assert_eq!(select(&c(Some("*"), None), &v()), Selection::NotModified);
        assert_eq!(select(&c(Some("\"x\""), Some(&lm)), &v()), Selection::Whole);
        assert_eq!(select(&c(None, Some(&lm)), &v()), Selection::NotModified);
        assert_eq!(
            select(&c(None, Some("Sun, 06 Nov 1994 08:49:37 GMT")), &v()),
            Selection::Whole
        );
        assert_eq!(select(&c(None, Some("garbage")), &v()), Selection::Whole);
        let r = |ir: &str| Conditions {
            range: Some("bytes=0-0".into()),
            if_range: Some(ir.into()),
            ..Conditions::default()
        };
        assert_eq!(
            select(&r("\"64-1-2\""), &v()),
            Selection::Part { start: 0, end: 0 }
        );
        assert_eq!(select(&r(&lm), &v()), Selection::Part { start: 0, end: 0 });
        assert_eq!(select(&r("\"old\""), &v()), Selection::Whole);
    }
}
