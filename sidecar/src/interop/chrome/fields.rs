//! The fields of one Chrome trace event that the importer reads, however
//! it read them: by the fast path's spans (`event`) or by
//! `serde_json` (the general path), as a [`RawEvent`].

use std::borrow::Cow;

use recording::{RangeKind, SourceRange};
use serde::Deserialize;
use serde_json::value::RawValue;

use super::event::{EventSpans, IdSpan, Num, Span};
use super::time::Time;
use super::FORMAT;
use crate::interop::error::{InteropError, Result};

/// A `pid` or `tid`: a number or a string.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) enum Id<'a> {
    Num(i64),
    Str(Cow<'a, str>),
}

impl Id<'_> {
    pub(super) fn to_static(&self) -> Id<'static> {
        match self {
            Id::Num(n) => Id::Num(*n),
            Id::Str(s) => Id::Str(Cow::Owned(s.to_string())),
        }
    }
}

impl std::fmt::Display for Id<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Id::Num(n) => write!(f, "{n}"),
            Id::Str(s) => f.write_str(s),
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Id<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Id<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an integer or a string")
            }
            fn visit_i64<E>(self, v: i64) -> std::result::Result<Id<'de>, E> {
                Ok(Id::Num(v))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> std::result::Result<Id<'de>, E> {
                i64::try_from(v)
                    .map(Id::Num)
                    .map_err(|_| E::custom("id is too large"))
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> std::result::Result<Id<'de>, E> {
                Ok(Id::Str(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> std::result::Result<Id<'de>, E> {
                Ok(Id::Str(Cow::Owned(v.to_owned())))
            }
        }
        d.deserialize_any(V)
    }
}

/// The fields of a trace event that the importer reads, as `serde_json`
/// reads them (the general path).
#[derive(Deserialize)]
pub(super) struct SerdeEvent<'a> {
    #[serde(borrow)]
    ph: Option<Cow<'a, str>>,
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow)]
    cat: Option<Cow<'a, str>>,
    #[serde(borrow)]
    ts: Option<&'a RawValue>,
    #[serde(borrow)]
    dur: Option<&'a RawValue>,
    #[serde(borrow)]
    pid: Option<Id<'a>>,
    #[serde(borrow)]
    tid: Option<Id<'a>>,
    #[serde(borrow)]
    id: Option<Id<'a>>,
    ns: Option<[u64; 2]>,
    #[serde(borrow)]
    args: Option<&'a RawValue>,
}

impl<'a> SerdeEvent<'a> {
    pub(super) fn into_raw(self) -> RawEvent<'a> {
        RawEvent {
            ph: self.ph,
            name: self.name,
            cat: self.cat,
            ts: self.ts.map(|t| Time {
                text: t.get(),
                ns: None,
            }),
            dur: self.dur.map(|t| Time {
                text: t.get(),
                ns: None,
            }),
            pid: self.pid,
            tid: self.tid,
            id: self.id,
            ns: self.ns,
            args: self.args.map(|a| Args::Raw(a.get())),
        }
    }
}

/// The fields of a trace event that the importer reads, however it read
/// them.
pub(super) struct RawEvent<'a> {
    pub(super) ph: Option<Cow<'a, str>>,
    pub(super) name: Option<Cow<'a, str>>,
    pub(super) cat: Option<Cow<'a, str>>,
    pub(super) ts: Option<Time<'a>>,
    pub(super) dur: Option<Time<'a>>,
    pub(super) pid: Option<Id<'a>>,
    pub(super) tid: Option<Id<'a>>,
    pub(super) id: Option<Id<'a>>,
    /// leanscope's exact `[start, duration]` (the event's `ns`).
    pub(super) ns: Option<[u64; 2]>,
    pub(super) args: Option<Args<'a>>,
}

/// An event's `args`: its JSON text (the general path), or what the fast
/// path read from it (an object whose `range`, `range_kind` and `name` have
/// the types they should).
pub(super) enum Args<'a> {
    Raw(&'a str),
    Read {
        range: Option<[u32; 4]>,
        range_kind: Option<Cow<'a, str>>,
        name: Option<Cow<'a, str>>,
    },
}

impl<'a> RawEvent<'a> {
    /// The event the fast path found in `bytes`; `None` when they are not
    /// UTF-8 or one of its strings does not decode (the general path
    /// reports it).
    #[inline(always)]
    pub(super) fn from_spans(bytes: &'a [u8], ev: &EventSpans) -> Option<Self> {
        // One check of the whole event (serde_json checks all of `args`,
        // every string it keeps and every key); the usual event is all
        // ASCII, which is quicker to see.
        let text = if all_ascii(bytes) {
            // SAFETY: ASCII bytes are UTF-8.
            unsafe { std::str::from_utf8_unchecked(bytes) }
        } else {
            std::str::from_utf8(bytes).ok()?
        };
        let string = |s: Option<Span>| match s {
            Some(s) => s.decode(text).map(Some),
            None => Some(None),
        };
        let number = |s: Option<Num>| {
            s.map(|n| {
                text.get(n.start as usize..n.end as usize).map(|t| Time {
                    text: t,
                    ns: n.thousandths,
                })
            })
        };
        let id = |s: Option<IdSpan>| match s {
            None => Some(None),
            Some(IdSpan::Num(n)) => Some(Some(Id::Num(n))),
            Some(IdSpan::Str(s)) => s.decode(text).map(|s| Some(Id::Str(s))),
        };
        let args = match &ev.args {
            None => None,
            Some(a) => Some(Args::Read {
                range: a.range,
                range_kind: string(a.range_kind)?,
                name: string(a.name)?,
            }),
        };
        Some(RawEvent {
            ph: string(ev.ph)?,
            name: string(ev.name)?,
            cat: string(ev.cat)?,
            ts: number(ev.ts).map_or(Some(None), |t| t.map(Some))?,
            dur: number(ev.dur).map_or(Some(None), |t| t.map(Some))?,
            pid: id(ev.pid)?,
            tid: id(ev.tid)?,
            id: id(ev.id)?,
            ns: ev.ns,
            args,
        })
    }
}

/// Whether `b` is all ASCII, 8 bytes at a time (quicker than the
/// standard library's check for event-sized slices).
pub(super) fn all_ascii(b: &[u8]) -> bool {
    let word = |c: &[u8]| u64::from_le_bytes(c.try_into().expect("8 bytes"));
    let mut seen = 0u64;
    let mut chunks = b.chunks_exact(8);
    for c in &mut chunks {
        seen |= word(c);
    }
    if b.len() >= 8 {
        // The last 8 bytes, overlapping the chunks: covers the remainder.
        seen |= word(&b[b.len() - 8..]);
    } else {
        for &c in chunks.remainder() {
            seen |= u64::from(c);
        }
    }
    seen & 0x8080_8080_8080_8080 == 0
}

/// What the importer reads from an event's `args`.
#[derive(Deserialize)]
struct RangeArgs<'a> {
    range: Option<[u32; 4]>,
    #[serde(borrow)]
    range_kind: Option<Cow<'a, str>>,
}

/// What the importer reads from the `args` of a `process_name` or `thread_name` event.
#[derive(Deserialize)]
pub(super) struct NameArgs {
    pub name: Option<String>,
}

/// The source range leanscope keeps in an event's `args` (JSON text).
pub(super) fn range_arg(
    args: &str,
    where_: &dyn Fn() -> String,
) -> Result<Option<(SourceRange, RangeKind)>> {
    let a: RangeArgs = serde_json::from_str(args)
        .map_err(|e| InteropError::invalid(FORMAT, format!("{}.args", where_()), e.to_string()))?;
    let Some(range) = a.range else {
        return Ok(None);
    };
    Ok(Some((
        range_of(range),
        range_kind_of(a.range_kind.as_deref(), where_)?,
    )))
}

pub(super) fn range_of([sl, sc, el, ec]: [u32; 4]) -> SourceRange {
    SourceRange::new(sl, sc, el, ec)
}

pub(super) fn range_kind_of(kind: Option<&str>, where_: &dyn Fn() -> String) -> Result<RangeKind> {
    Ok(match kind {
        None | Some("exact") => RangeKind::Exact,
        Some("matched") => RangeKind::Matched,
        Some("inherited") => RangeKind::Inherited,
        Some(other) => {
            return Err(InteropError::invalid(
                FORMAT,
                format!("{}.args.range_kind", where_()),
                format!("unknown range kind `{other}`"),
            ))
        }
    })
}
