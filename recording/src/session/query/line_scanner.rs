//! The line scanner of a session query: reads the few fields a query needs
//! (capture, file, kind, path, total and self time) from one `index.jsonl`
//! line without parsing the whole row. It knows flat JSON objects only
//! (string, number, `true`/`false`/`null` values); anything else is `None`
//! and the query falls back to a full parse with serde.

use std::borrow::Cow;

use crate::session::rows::IndexRow;

/// The fields of a row a query needs, as raw JSON tokens.
#[derive(Default)]
pub(super) struct Probe<'a> {
    capture: Option<&'a [u8]>,
    file: Option<&'a [u8]>,
    kind: Option<Token<'a>>,
    path: Option<Token<'a>>,
    duration: Option<&'a [u8]>,
    self_time: Option<&'a [u8]>,
    memory: Option<&'a [u8]>,
    owned: Option<Resolved<'static>>,
}

#[derive(Clone, Copy)]
pub(super) struct Token<'a> {
    /// The string's content between the quotes.
    raw: &'a [u8],
    escaped: bool,
    /// The string with its quotes, for unescaping.
    quoted: &'a [u8],
}

pub(super) struct Resolved<'a> {
    pub capture: u64,
    pub file: u64,
    pub kind: Cow<'a, [u8]>,
    pub path: Cow<'a, [u8]>,
    pub duration: Option<f64>,
    pub self_time: Option<f64>,
    /// `memoryGrowthBytes`, absent in most rows.
    pub memory: Option<f64>,
}

impl<'a> Probe<'a> {
    /// The fields of a row already parsed in full (the fallback).
    pub fn from_row(r: &IndexRow) -> Probe<'static> {
        Probe {
            owned: Some(Resolved {
                capture: r.capture,
                file: u64::from(r.file),
                kind: Cow::Borrowed(r.kind.as_str().as_bytes()),
                path: Cow::Owned(r.path.as_bytes().to_vec()),
                duration: r.duration_ms,
                self_time: r.self_ms,
                memory: r.memory_growth_bytes.map(|b| b as f64),
            }),
            ..Probe::default()
        }
    }

    /// The fields as values; `None` when one is missing or invalid.
    pub fn resolve(self) -> Option<Resolved<'a>> {
        if let Some(r) = self.owned {
            return Some(r);
        }
        Some(Resolved {
            capture: parse_u64(self.capture?)?,
            file: parse_u64(self.file?)?,
            kind: unescape(self.kind?)?,
            path: unescape(self.path?)?,
            duration: parse_time(self.duration?)?,
            self_time: parse_time(self.self_time?)?,
            memory: match self.memory {
                None => None,
                Some(v) => parse_time(v)?,
            },
        })
    }

    /// Scans a flat JSON object (string, number, `true`/`false`/`null`
    /// values). `None` when the line is anything else; the caller then
    /// falls back to a full parse.
    pub fn scan(line: &'a [u8]) -> Option<Probe<'a>> {
        let mut p = Probe::default();
        walk_flat_object(line, |key, value| {
            match (key, value) {
                (b"kind", Value::Str(v)) => p.kind = Some(v),
                (b"path", Value::Str(v)) => p.path = Some(v),
                (b"capture", Value::Bare(v)) => p.capture = Some(v),
                (b"file", Value::Bare(v)) => p.file = Some(v),
                (b"durationMs", Value::Bare(v)) => p.duration = Some(v),
                (b"selfMs", Value::Bare(v)) => p.self_time = Some(v),
                (b"memoryGrowthBytes", Value::Bare(v)) => p.memory = Some(v),
                _ => {}
            }
            Some(())
        })?;
        Some(p)
    }
}

/// A value of a flat JSON object: a string, or a bare token (a number, `true`, `false`,
/// `null`; not checked here).
#[derive(Clone, Copy)]
pub(super) enum Value<'a> {
    Str(Token<'a>),
    Bare(&'a [u8]),
}

/// Walks the members of a flat JSON object (string, number, `true`/`false`/`null`
/// values), calling `member` with each key and value in order. `None` when the line is
/// anything else (a nested value, an escaped key, text after the object), or when
/// `member` says `None`; the caller then falls back to a full parse.
pub(super) fn walk_flat_object<'a>(
    line: &'a [u8],
    mut member: impl FnMut(&'a [u8], Value<'a>) -> Option<()>,
) -> Option<()> {
    let mut i = skip_ws(line, 0);
    if line.get(i) != Some(&b'{') {
        return None;
    }
    i = skip_ws(line, i + 1);
    if line.get(i) == Some(&b'}') {
        return (skip_ws(line, i + 1) == line.len()).then_some(());
    }
    loop {
        let key = string_at(line, i)?;
        if key.escaped {
            return None;
        }
        i = skip_ws(line, i + key.quoted.len());
        if line.get(i) != Some(&b':') {
            return None;
        }
        i = skip_ws(line, i + 1);
        let value = match *line.get(i)? {
            b'"' => {
                let v = string_at(line, i)?;
                i += v.quoted.len();
                Value::Str(v)
            }
            b'{' | b'[' => return None,
            _ => {
                let start = i;
                while i < line.len() && !matches!(line[i], b',' | b'}' | b' ' | b'\t' | b'\r') {
                    i += 1;
                }
                let v = &line[start..i];
                if v.is_empty() {
                    return None;
                }
                Value::Bare(v)
            }
        };
        member(key.raw, value)?;
        i = skip_ws(line, i);
        match line.get(i) {
            Some(b',') => i = skip_ws(line, i + 1),
            Some(b'}') => break,
            _ => return None,
        }
    }
    (skip_ws(line, i + 1) == line.len()).then_some(())
}

fn skip_ws(line: &[u8], mut i: usize) -> usize {
    while i < line.len() && matches!(line[i], b' ' | b'\t' | b'\r' | b'\n') {
        i += 1;
    }
    i
}

/// The JSON string starting at `line[i]` (which must be `"`).
fn string_at(line: &[u8], i: usize) -> Option<Token<'_>> {
    if line.get(i) != Some(&b'"') {
        return None;
    }
    let mut j = i + 1;
    let mut escaped = false;
    loop {
        let k = j + memchr::memchr2(b'"', b'\\', &line[j..])?;
        if line[k] == b'"' {
            return Some(Token {
                raw: &line[i + 1..k],
                escaped,
                quoted: &line[i..=k],
            });
        }
        escaped = true;
        j = k + 2;
        if j > line.len() {
            return None;
        }
    }
}

pub(super) fn unescape(t: Token<'_>) -> Option<Cow<'_, [u8]>> {
    if t.escaped {
        serde_json::from_slice::<String>(t.quoted)
            .ok()
            .map(|s| Cow::Owned(s.into_bytes()))
    } else {
        Some(Cow::Borrowed(t.raw))
    }
}

/// The capture, file and kind of a row that starts the way leanscope
/// writes rows (`{"capture":N,"file":N,"kind":"K"`), read without looking
/// further; `None` for any other start.
pub(super) fn quick_prefix(line: &[u8]) -> Option<(u64, u64, &[u8])> {
    let rest = line.strip_prefix(br#"{"capture":"#)?;
    let n = rest.iter().position(|b| !b.is_ascii_digit())?;
    let capture = parse_u64(&rest[..n])?;
    let rest = rest[n..].strip_prefix(br#","file":"#)?;
    let n = rest.iter().position(|b| !b.is_ascii_digit())?;
    let file = parse_u64(&rest[..n])?;
    let rest = rest[n..].strip_prefix(br#","kind":""#)?;
    let n = rest.iter().position(|&b| b == b'"' || b == b'\\')?;
    (rest[n] == b'"').then_some((capture, file, &rest[..n]))
}

pub(super) fn parse_u64(v: &[u8]) -> Option<u64> {
    if v.is_empty() || v.len() > 20 {
        return None;
    }
    let mut n: u64 = 0;
    for &b in v {
        if !b.is_ascii_digit() {
            return None;
        }
        n = n.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
    }
    Some(n)
}

/// A time: a non-negative number, or `null` (no time). `None` when invalid.
pub(super) fn parse_time(v: &[u8]) -> Option<Option<f64>> {
    if v == b"null" {
        return Some(None);
    }
    if let Some(x) = fast_decimal(v) {
        return Some(Some(x));
    }
    let x: f64 = std::str::from_utf8(v).ok()?.parse().ok()?;
    (x.is_finite() && x >= 0.0).then_some(Some(x))
}

/// `DIGITS[.DIGITS]` with at most 15 significant digits, exactly: the
/// integer mantissa and the power of ten are both exact in an `f64`, so one
/// division rounds correctly (as `str::parse` does). `None` otherwise.
fn fast_decimal(v: &[u8]) -> Option<f64> {
    const POW10: [f64; 16] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
    ];
    let mut mantissa: u64 = 0;
    let mut digits = 0usize;
    let mut frac: Option<usize> = None;
    for &b in v {
        match b {
            b'0'..=b'9' => {
                mantissa = mantissa * 10 + u64::from(b - b'0');
                digits += 1;
                if let Some(f) = frac.as_mut() {
                    *f += 1;
                }
                if digits > 15 {
                    return None;
                }
            }
            b'.' if frac.is_none() && digits > 0 => frac = Some(0),
            _ => return None,
        }
    }
    match frac {
        None if digits > 0 => Some(mantissa as f64),
        Some(f) if f > 0 => Some(mantissa as f64 / POW10[f]),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::rows::RowKind;
    use crate::types::RangeKind;

    #[test]
    fn fast_decimals_agree_with_the_standard_parser() {
        for t in [
            "0",
            "7.176",
            "6.238",
            "0.000001",
            "123456.789012",
            "1869.706",
            "999999999999999",
            "0.1",
            "3.0",
        ] {
            assert_eq!(
                fast_decimal(t.as_bytes()),
                Some(t.parse::<f64>().unwrap()),
                "{t}"
            );
        }
        for t in ["1e3", "-1", ".5", "5.", "1234567890123456", "1.2.3", ""] {
            assert_eq!(fast_decimal(t.as_bytes()), None, "{t}");
        }
        let mut x = 1u64;
        for _ in 0..10_000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let ns = x % 100_000_000_000_000;
            let text = (ns as f64 / 1e6).to_string();
            if let Some(v) = fast_decimal(text.as_bytes()) {
                assert_eq!(v, text.parse::<f64>().unwrap(), "{text}");
            }
        }
    }

    #[test]
    fn scanner_reads_what_serde_reads() {
        let r = IndexRow {
            capture: 9,
            file: 3,
            kind: RowKind::Declaration,
            path: "𝔽/x\ty.lean".into(),
            name: "a \"quoted\" \\ name\n".into(),
            duration_ms: None,
            self_ms: Some(0.5),
            line: Some(1),
            end_line: Some(2),
            declaration: None,
            attribution: Some(RangeKind::Exact),
            class: None,
            count: None,
            declaration_ms: None,
            holds: None,
            memory_growth_bytes: None,
            memory_peak_bytes: None,
        };
        let mut line = Vec::new();
        crate::session::write_row(&r, &mut line);
        let p = Probe::scan(&line[..line.len() - 1])
            .unwrap()
            .resolve()
            .unwrap();
        assert_eq!((p.capture, p.file), (9, 3));
        assert_eq!(&p.kind[..], b"declaration");
        assert_eq!(p.path, "𝔽/x\ty.lean".as_bytes());
        assert_eq!((p.duration, p.self_time), (None, Some(0.5)));
        // Nested values and escaped keys fall back to the full parser.
        assert!(Probe::scan(br#"{"a":[1],"kind":"file"}"#).is_none());
        assert!(Probe::scan(br#"{"k\u0069nd":"file"}"#).is_none());
        assert!(Probe::scan(br#"{"kind":"file"} x"#).is_none());
        assert!(Probe::scan(br#"{"kind":"fi"#).is_none());
    }
}
