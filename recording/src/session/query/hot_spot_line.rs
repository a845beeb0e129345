//! One `index.jsonl` line read as a hot-spot row, borrowing its text: the fields a
//! session's hot spots need, read by the flat-object scanner of [`super::line_scanner`]
//! without parsing the row into an [`IndexRow`]. A line the scanner cannot vouch for (a
//! value of the wrong type or out of range, a duplicate key, a field the hot spots do
//! not read but a full parse checks) is left to serde, so both ways accept and refuse
//! the same lines.

use std::borrow::Cow;

use super::line_scanner::{parse_time, parse_u64, unescape, walk_flat_object, Token, Value};
use crate::limits::MAX_EVENTS;
use crate::session::ms_to_ns;
use crate::session::rows::{IndexRow, RowKind};

/// The fields of one index line that a session's hot spots read.
#[derive(Debug, Default, PartialEq)]
pub(super) struct HotSpotLine<'a> {
    pub capture: u64,
    pub file: u32,
    /// Whether the row is of kind `hotspot` (it is of another kind otherwise).
    pub hot_spot: bool,
    pub path: Cow<'a, str>,
    /// The key's class; empty when the row has none.
    pub class: Cow<'a, str>,
    pub name: Cow<'a, str>,
    pub duration_ms: Option<f64>,
    pub self_ms: Option<f64>,
    pub count: Option<u64>,
    pub declaration: Option<Cow<'a, str>>,
    pub declaration_ms: Option<f64>,
    pub holds: Option<u64>,
}

/// A hot-spot row's values, checked, in the recording's unit (nanoseconds, or heartbeats).
#[derive(Debug, PartialEq, Eq)]
pub(super) struct HotSpotValues {
    pub total: u64,
    pub self_time: u64,
    pub count: u64,
    /// The part of the total in the row's declaration, when it names one.
    pub declaration: Option<u64>,
    /// How many keys an `(other)` row holds.
    pub holds: u64,
}

impl<'a> HotSpotLine<'a> {
    /// The row parsed in full (the fallback).
    pub fn of_row(r: &'a IndexRow) -> HotSpotLine<'a> {
        HotSpotLine {
            capture: r.capture,
            file: r.file,
            hot_spot: r.kind == RowKind::HotSpot,
            path: Cow::Borrowed(&r.path),
            class: Cow::Borrowed(r.class.as_deref().unwrap_or("")),
            name: Cow::Borrowed(&r.name),
            duration_ms: r.duration_ms,
            self_ms: r.self_ms,
            count: r.count,
            declaration: r.declaration.as_deref().map(Cow::Borrowed),
            declaration_ms: r.declaration_ms,
            holds: r.holds,
        }
    }

    /// The row's fields, when the scanner can read them all as a full parse would; `None`
    /// sends the line to serde.
    pub fn scan(line: &'a [u8]) -> Option<HotSpotLine<'a>> {
        let mut r = HotSpotLine::default();
        // Fields seen, one bit each: a duplicate goes to serde (which refuses it).
        let mut seen = 0u16;
        let mut once = |bit: u16| {
            let first = seen & bit == 0;
            seen |= bit;
            first.then_some(())
        };
        walk_flat_object(line, |key, value| {
            match key {
                b"capture" => {
                    once(1)?;
                    r.capture = parse_u64(bare(value)?)?;
                }
                b"file" => {
                    once(2)?;
                    r.file = u32::try_from(parse_u64(bare(value)?)?).ok()?;
                }
                b"kind" => {
                    once(4)?;
                    r.hot_spot = match &*text(value)? {
                        "hotspot" => true,
                        "file" | "declaration" | "tactic" => false,
                        _ => return None,
                    };
                }
                b"path" => {
                    once(8)?;
                    r.path = text(value)?;
                }
                b"name" => {
                    once(16)?;
                    r.name = text(value)?;
                }
                b"class" => {
                    once(32)?;
                    r.class = optional(value, text)?.unwrap_or_default();
                }
                b"declaration" => {
                    once(64)?;
                    r.declaration = optional(value, text)?;
                }
                b"durationMs" => {
                    once(128)?;
                    r.duration_ms = parse_time(bare(value)?)?;
                }
                b"selfMs" => {
                    once(256)?;
                    r.self_ms = parse_time(bare(value)?)?;
                }
                b"declarationMs" => {
                    once(512)?;
                    r.declaration_ms = parse_time(bare(value)?)?;
                }
                b"count" => {
                    once(1024)?;
                    r.count = optional(value, |v| parse_u64(bare(v)?))?;
                }
                b"holds" => {
                    once(2048)?;
                    r.holds = optional(value, |v| parse_u64(bare(v)?))?;
                }
                // Fields of other kinds of rows: a full parse checks them.
                b"line" | b"endLine" | b"attribution" => {
                    optional(value, |_| None::<()>)?;
                }
                _ => {}
            }
            Some(())
        })?;
        // capture, file, kind, path and name: a full parse requires them.
        (seen & 31 == 31).then_some(r)
    }

    /// The row's values, checked; `Err` says what is wrong with the row.
    pub fn values(&self, heartbeats: bool) -> Result<HotSpotValues, &'static str> {
        if self.class.is_empty() {
            return Err("without a class");
        }
        let fits = |v: Option<f64>| {
            v.is_none_or(|ms| {
                ms.is_finite()
                    && ms >= 0.0
                    && (if heartbeats { ms } else { ms * 1e6 }) < u64::MAX as f64
            })
        };
        if !fits(self.duration_ms) || !fits(self.self_ms) || !fits(self.declaration_ms) {
            return Err("with a negative, non-finite or out-of-range value");
        }
        let value = |ms: f64| {
            if heartbeats {
                ms.round() as u64
            } else {
                ms_to_ns(ms).unwrap_or(0)
            }
        };
        let (Some(total), Some(self_time)) = (self.duration_ms, self.self_ms) else {
            return Err("without its total or self");
        };
        let v = HotSpotValues {
            total: value(total),
            self_time: value(self_time),
            count: self.count.unwrap_or(0),
            declaration: self
                .declaration
                .as_ref()
                .and(self.declaration_ms)
                .map(value),
            holds: self.holds.unwrap_or(0),
        };
        if v.self_time > v.total {
            return Err("whose self is over its total");
        }
        if v.count > MAX_EVENTS || v.holds > MAX_EVENTS {
            return Err("with a count over the events a recording may hold");
        }
        Ok(v)
    }
}

fn bare(v: Value<'_>) -> Option<&[u8]> {
    match v {
        Value::Bare(b) => Some(b),
        Value::Str(_) => None,
    }
}

/// A JSON string's text (unescaped, UTF-8).
fn text(v: Value<'_>) -> Option<Cow<'_, str>> {
    let Value::Str(t) = v else {
        return None;
    };
    string(t)
}

fn string(t: Token<'_>) -> Option<Cow<'_, str>> {
    match unescape(t)? {
        Cow::Borrowed(b) => std::str::from_utf8(b).ok().map(Cow::Borrowed),
        Cow::Owned(b) => String::from_utf8(b).ok().map(Cow::Owned),
    }
}

/// `null` as `Some(None)`; anything else through `read` (`None` when it cannot).
fn optional<'a, T>(v: Value<'a>, read: impl FnOnce(Value<'a>) -> Option<T>) -> Option<Option<T>> {
    match v {
        Value::Bare(b"null") => Some(None),
        v => read(v).map(Some),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::write_row;

    fn row() -> IndexRow {
        IndexRow {
            class: Some("Meta.synthInstance".into()),
            count: Some(7),
            duration_ms: Some(12.345678),
            self_ms: Some(2.5),
            declaration: Some("Foo.\"bar\"\t𝔽".into()),
            declaration_ms: Some(10.0),
            holds: None,
            ..IndexRow::new(
                RowKind::HotSpot,
                3,
                9,
                "A/é b.lean",
                "Decidable (b = true)".into(),
            )
        }
    }

    fn line(r: &IndexRow) -> Vec<u8> {
        let mut v = Vec::new();
        write_row(r, &mut v);
        v.pop();
        v
    }

    #[test]
    fn the_scanner_reads_what_a_full_parse_reads() {
        let mut other = IndexRow::new(RowKind::HotSpot, 0, 1, "x.lean", String::new());
        other.class = Some(crate::hotspots::OTHER_CLASS.into());
        other.duration_ms = Some(1.0);
        other.self_ms = Some(0.0);
        other.holds = Some(12);
        let file = IndexRow::new(RowKind::File, u32::MAX, u64::MAX, "y.lean", "Y".into());
        for r in [row(), other, file] {
            let l = line(&r);
            let scanned = HotSpotLine::scan(&l).expect("scanned");
            assert_eq!(scanned, HotSpotLine::of_row(&r));
            assert_eq!(scanned.values(false), HotSpotLine::of_row(&r).values(false));
        }
        let v = HotSpotLine::scan(&line(&row()))
            .unwrap()
            .values(false)
            .unwrap();
        assert_eq!(
            v,
            HotSpotValues {
                total: 12_345_678,
                self_time: 2_500_000,
                count: 7,
                declaration: Some(10_000_000),
                holds: 0
            }
        );
    }

    #[test]
    fn lines_a_full_parse_must_judge_go_to_serde() {
        let good = String::from_utf8(line(&row())).unwrap();
        let cases = [
            good.replace("\"count\":7", "\"count\":-7"),
            good.replace("\"count\":7", "\"count\":\"7\""),
            good.replace("\"file\":3", "\"file\":4294967296"),
            good.replace("\"kind\":\"hotspot\"", "\"kind\":\"spot\""),
            good.replace("\"selfMs\":2.5", "\"selfMs\":-2.5"),
            good.replace("\"selfMs\":2.5", "\"selfMs\":2.5,\"selfMs\":1"),
            good.replace("\"path\":", "\"line\":3,\"path\":"),
            good.replace("\"path\":", "\"attribution\":\"exact\",\"path\":"),
            good.replace("\"name\":\"Decidable (b = true)\",", ""),
            good.replace("\"class\":\"Meta.synthInstance\"", "\"class\":5"),
            good.replace("\"count\":7", "\"count\":[7]"),
        ];
        for c in &cases {
            assert_ne!(c, &good);
            assert!(HotSpotLine::scan(c.as_bytes()).is_none(), "{c}");
        }
        // Fields it does not know are ignored, as a full parse ignores them; nulls are none.
        let extra = good.replace("\"path\":", "\"future\":true,\"line\":null,\"path\":");
        let r = HotSpotLine::scan(extra.as_bytes()).unwrap();
        assert_eq!(r.count, Some(7));
        let nulls = good.replace("\"count\":7", "\"count\":null");
        assert_eq!(HotSpotLine::scan(nulls.as_bytes()).unwrap().count, None);
        let at = good.find("A/").unwrap() + 2;
        let invalid = [&good.as_bytes()[..at], b"\xff\xfe", &good.as_bytes()[at..]].concat();
        assert!(HotSpotLine::scan(&invalid).is_none());
    }

    #[test]
    fn values_are_checked() {
        let mut r = row();
        r.class = None;
        assert_eq!(
            HotSpotLine::of_row(&r).values(false),
            Err("without a class")
        );
        let mut r = row();
        r.self_ms = Some(20.0);
        assert_eq!(
            HotSpotLine::of_row(&r).values(false),
            Err("whose self is over its total")
        );
        let mut r = row();
        r.duration_ms = Some(f64::INFINITY);
        assert!(HotSpotLine::of_row(&r).values(false).is_err());
        let mut r = row();
        r.self_ms = None;
        assert_eq!(
            HotSpotLine::of_row(&r).values(false),
            Err("without its total or self")
        );
        let mut r = row();
        r.count = Some(MAX_EVENTS + 1);
        assert!(HotSpotLine::of_row(&r).values(false).is_err());
        // Heartbeats are counted, not milliseconds.
        let v = HotSpotLine::of_row(&row()).values(true).unwrap();
        assert_eq!((v.total, v.self_time), (12, 3));
    }
}
