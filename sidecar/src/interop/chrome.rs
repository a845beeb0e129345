//! Chrome/Perfetto trace-event JSON: import (streaming) and export.
//!
//! Import reads the JSON array form (`[ {...}, ... ]`, whose closing `]`
//! the format lets a truncated trace omit) and the object form
//! (`{"traceEvents": [...], ...}`). It understands complete events (`X`),
//! duration events (`B`/`E`, matched per thread), nestable async events
//! (`b`/`e`, matched per process, category and id, each id becoming its own
//! track; an async half whose other half the trace cut off is dropped and
//! counted in a note, while an unmatched `B` or `E` is an error) and metadata (`M`: `process_name`, `thread_name`). Other phases
//! (instant, counter, flow, object, sample events) carry no interval and are
//! counted in a note. Timestamps and durations are microseconds; they are
//! read as exact decimals and rounded to whole nanoseconds.
//!
//! Events are nested per thread by time, in constant memory: each thread
//! holds back at most [`MAX_REORDER_EVENTS`] completed events to put them
//! in start order (parents before children), so a trace may be out of
//! order by that much per thread.
//!
//! Export (`chrome_export`) writes the object form with one `X` event per
//! event, in exact binary fractions of a microsecond, the exact nanoseconds
//! in the event's `ns` (read back here; `args.ns` in older exports) and leanscope's header in bounded
//! `leanscope_*` metadata events (read back here; the header in
//! `otherData.leanscope`, as leanscope wrote it before, is read too), so
//! that importing an exported trace gives back the same recording, except
//! for links between threads, which the format cannot express.

use std::borrow::Cow;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};
use std::io::Read;

use recording::{Declaration, Diagnostic, Header, RangeKind, SourceRange};
use serde::Deserialize;
use serde_json::value::RawValue;

use super::chrome_event::{parse_event, ArgSpans, EventSpans, IdSpan, Num, Span};
use super::chrome_export::{DECLARATIONS_EVENT, DIAGNOSTICS_EVENT, HEADER_EVENT, SOURCE_EVENT};
use super::chrome_json::TraceJson;
use super::chrome_lanes::LANE_EVENT;
use super::error::{InteropError, Result};
use super::sink::{IdEvent, TraceSink};
use crate::limit;
use crate::limits::{
    MAX_CHROME_LANES, MAX_HEADER_ITEMS, MAX_OPEN_SPANS, MAX_PENDING_EVENTS, MAX_REORDER_EVENTS,
    MAX_STACK_DEPTH,
};

const FORMAT: &str = "Chrome trace";

/// The names of the metadata events that carry leanscope's header.
const HEADER_PREFIX: &str = "leanscope_";

/// A `pid` or `tid`: a number or a string.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Id<'a> {
    Num(i64),
    Str(Cow<'a, str>),
}

impl Id<'_> {
    fn to_static(&self) -> Id<'static> {
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
struct SerdeEvent<'a> {
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
    fn into_raw(self) -> RawEvent<'a> {
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
struct RawEvent<'a> {
    ph: Option<Cow<'a, str>>,
    name: Option<Cow<'a, str>>,
    cat: Option<Cow<'a, str>>,
    ts: Option<Time<'a>>,
    dur: Option<Time<'a>>,
    pid: Option<Id<'a>>,
    tid: Option<Id<'a>>,
    id: Option<Id<'a>>,
    /// leanscope's exact `[start, duration]` (the event's `ns`).
    ns: Option<[u64; 2]>,
    args: Option<Args<'a>>,
}

/// A `ts` or `dur`: its JSON text, and its value in nanoseconds when the
/// fast path read it (the usual plain form).
#[derive(Clone, Copy)]
struct Time<'a> {
    text: &'a str,
    ns: Option<u64>,
}

/// An event's `args`: its JSON text (the general path), or what the fast
/// path read from it (an object whose `range`, `range_kind` and `name` have
/// the types they should).
enum Args<'a> {
    Raw(&'a str),
    Read {
        range: Option<[u32; 4]>,
        ns: Option<[u64; 2]>,
        range_kind: Option<Cow<'a, str>>,
        name: Option<Cow<'a, str>>,
    },
}

impl<'a> RawEvent<'a> {
    /// The event the fast path found in `bytes`; `None` when they are not
    /// UTF-8 or one of its strings does not decode (the general path
    /// reports it).
    #[inline(always)]
    fn from_spans(bytes: &'a [u8], ev: &EventSpans) -> Option<Self> {
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
                ns: a.ns,
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
fn all_ascii(b: &[u8]) -> bool {
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

/// What the importer reads from `args`.
#[derive(Deserialize)]
struct RangeArgs<'a> {
    range: Option<[u32; 4]>,
    ns: Option<[u64; 2]>,
    #[serde(borrow)]
    range_kind: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct NameArgs {
    name: Option<String>,
}

/// A microsecond decimal (JSON number text) as whole nanoseconds, rounded
/// half away from zero; exact for up to three decimals.
pub fn micros_to_ns(text: &str) -> std::result::Result<i128, String> {
    match plain_micros_to_ns(text.as_bytes()) {
        Some(ns) => Ok(ns),
        None => any_micros_to_ns(text),
    }
}

/// [`micros_to_ns`] of any form.
fn any_micros_to_ns(text: &str) -> std::result::Result<i128, String> {
    let t = text.as_bytes();
    let mut i = 0;
    let negative = t.first() == Some(&b'-');
    if negative {
        i += 1;
    }
    let mut mantissa: i128 = 0;
    let mut digits = 0;
    let mut exponent: i32 = 0;
    let mut seen_digit = false;
    let mut push = |d: u8, frac: bool, exponent: &mut i32| {
        // Digits past 30 significant ones only shift the magnitude.
        if digits < 30 {
            mantissa = mantissa * 10 + i128::from(d - b'0');
            if mantissa != 0 {
                digits += 1;
            }
            if frac {
                *exponent -= 1;
            }
        } else if !frac {
            *exponent += 1;
        }
    };
    while i < t.len() && t[i].is_ascii_digit() {
        push(t[i], false, &mut exponent);
        seen_digit = true;
        i += 1;
    }
    if i < t.len() && t[i] == b'.' {
        i += 1;
        while i < t.len() && t[i].is_ascii_digit() {
            push(t[i], true, &mut exponent);
            seen_digit = true;
            i += 1;
        }
    }
    if !seen_digit {
        return Err(format!("`{text}` is not a number"));
    }
    if i < t.len() && (t[i] == b'e' || t[i] == b'E') {
        i += 1;
        let neg_exp = t.get(i) == Some(&b'-');
        if matches!(t.get(i), Some(b'-') | Some(b'+')) {
            i += 1;
        }
        let mut e: i32 = 0;
        let mut any = false;
        while i < t.len() && t[i].is_ascii_digit() {
            e = e.saturating_mul(10).saturating_add(i32::from(t[i] - b'0'));
            any = true;
            i += 1;
        }
        if !any {
            return Err(format!("`{text}` is not a number"));
        }
        exponent = exponent.saturating_add(if neg_exp { -e } else { e });
    }
    if i != t.len() {
        return Err(format!("`{text}` is not a number"));
    }
    // Microseconds to nanoseconds.
    let exponent = exponent.saturating_add(3);
    let magnitude = if mantissa == 0 {
        0
    } else if exponent >= 0 {
        if exponent > 38 - digits.max(1) {
            return Err(format!("`{text}` is too large"));
        }
        mantissa * 10i128.pow(exponent as u32)
    } else if exponent < -38 {
        0
    } else {
        let div = 10i128.pow((-exponent) as u32);
        (mantissa + div / 2) / div
    };
    Ok(if negative { -magnitude } else { magnitude })
}

/// [`micros_to_ns`] of the usual form, `123` or `123.4` (up to 15 digits,
/// up to 3 decimals: exact in an i64), quickly; `None` for another form.
fn plain_micros_to_ns(t: &[u8]) -> Option<i128> {
    let (int, frac) = match memchr::memchr(b'.', t) {
        Some(dot) => (&t[..dot], &t[dot + 1..]),
        None => (t, &t[t.len()..]),
    };
    if int.is_empty()
        || int.len() > 15
        || frac.len() > 3
        || (frac.is_empty() && int.len() < t.len())
    {
        return None;
    }
    let mut ns: i64 = 0;
    for &d in int.iter().chain(frac) {
        if !d.is_ascii_digit() {
            return None;
        }
        ns = ns * 10 + i64::from(d - b'0');
    }
    for _ in frac.len()..3 {
        ns *= 10;
    }
    Some(i128::from(ns))
}

/// Where an event's interval goes: a thread, or a nestable async id.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum TrackKey {
    Thread(Id<'static>, Id<'static>),
    Async(Id<'static>, String, Id<'static>),
}

/// A completed event waiting to be placed.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Pending {
    start: u64,
    dur: u64,
    /// Its index in `traceEvents`.
    seq: u64,
    class: u32,
    label: u32,
    /// Its range's id in the sink.
    range: Option<(u32, RangeKind)>,
}

impl Ord for Pending {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (self.start, Reverse(self.dur), self.seq).cmp(&(o.start, Reverse(o.dur), o.seq))
    }
}

impl PartialOrd for Pending {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

/// An open `B` (or `b`) event.
struct Open {
    start: u64,
    seq: u64,
    name: String,
    class: u32,
    label: u32,
    /// Its range's id in the sink.
    range: Option<(u32, RangeKind)>,
}

/// Completed events waiting to be placed, in start order: events that
/// arrive in order (the usual case) queue up in `run` at O(1) each; only
/// out-of-order ones go through the heap.
#[derive(Default)]
struct Waiting {
    run: VecDeque<Pending>,
    heap: BinaryHeap<Reverse<Pending>>,
}

impl Waiting {
    fn len(&self) -> usize {
        self.run.len() + self.heap.len()
    }

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn push(&mut self, p: Pending) {
        if self.run.back().is_none_or(|b| *b <= p) {
            self.run.push_back(p);
        } else {
            self.heap.push(Reverse(p));
        }
    }

    fn peek(&self) -> Option<&Pending> {
        match (self.run.front(), self.heap.peek()) {
            (Some(a), Some(Reverse(b))) => Some(if a <= b { a } else { b }),
            (a, b) => a.or(b.map(|r| &r.0)),
        }
    }

    fn pop(&mut self) -> Option<Pending> {
        let from_run = match (self.run.front(), self.heap.peek()) {
            (Some(a), Some(Reverse(b))) => a <= b,
            (Some(_), None) => true,
            _ => false,
        };
        if from_run {
            self.run.pop_front()
        } else {
            self.heap.pop().map(|r| r.0)
        }
    }
}

struct Track {
    thread: u32,
    waiting: Waiting,
    open: Vec<Open>,
    /// Placed events that may still contain later ones: (start, end, index).
    stack: Vec<(u64, u64, u32)>,
    last_start: u64,
}

/// What an import found besides events.
#[derive(Debug, Default)]
pub struct ChromeImport {
    /// leanscope's header, when the trace was exported by leanscope.
    pub header: Option<Header>,
}

struct Importer<'s> {
    /// Whether events go the fast path first.
    fast: bool,
    sink: &'s mut TraceSink,
    tracks: Vec<Track>,
    track_index: HashMap<TrackKey, usize>,
    last: Option<(TrackKey, usize)>,
    process_names: HashMap<Id<'static>, String>,
    thread_names: HashMap<(Id<'static>, Id<'static>), String>,
    /// Lanes (`leanscope_lane`): a `(pid, tid)` whose events belong to the
    /// thread `tid` of the same process.
    lanes: HashMap<(Id<'static>, Id<'static>), Id<'static>>,
    keys: Vec<TrackKey>,
    waiting: usize,
    ignored: std::collections::BTreeMap<String, u64>,
    unmatched_async: u64,
    /// The header of `otherData` (as leanscope wrote it before 0.2).
    header: Option<Header>,
    header_parts: HeaderParts,
}

/// leanscope's header as its metadata events give it.
#[derive(Default)]
struct HeaderParts {
    header: Option<Header>,
    source: String,
    declarations: Vec<Declaration>,
    diagnostics: Vec<Diagnostic>,
    /// The first of these events.
    seen_at: Option<u64>,
}

fn at(seq: u64) -> String {
    format!("traceEvents[{seq}]")
}

impl<'s> Importer<'s> {
    fn track(&mut self, mut key: TrackKey, seq: u64) -> Result<usize> {
        if !self.lanes.is_empty() {
            if let TrackKey::Thread(pid, tid) = &key {
                if let Some(owner) = self.lanes.get(&(pid.clone(), tid.clone())) {
                    key = TrackKey::Thread(pid.clone(), owner.clone());
                }
            }
        }
        if let Some((k, i)) = &self.last {
            if *k == key {
                return Ok(*i);
            }
        }
        let i = match self.track_index.get(&key) {
            Some(&i) => i,
            None => {
                let (id, name) = match &key {
                    TrackKey::Thread(pid, tid) => (
                        match tid {
                            Id::Num(n) if *n >= 0 => *n as u64,
                            _ => self.tracks.len() as u64,
                        },
                        format!("pid {pid} tid {tid}"),
                    ),
                    TrackKey::Async(pid, cat, id) => (
                        self.tracks.len() as u64,
                        format!("pid {pid} async {cat} #{id}"),
                    ),
                };
                let thread = self.sink.add_thread(id, name).map_err(|e| match e {
                    InteropError::Limit { limit, .. } => InteropError::over(FORMAT, at(seq), limit),
                    e => e,
                })?;
                self.tracks.push(Track {
                    thread,
                    waiting: Waiting::default(),
                    open: Vec::new(),
                    stack: Vec::new(),
                    last_start: 0,
                });
                self.keys.push(key.clone());
                self.track_index.insert(key.clone(), self.tracks.len() - 1);
                self.tracks.len() - 1
            }
        };
        self.last = Some((key, i));
        Ok(i)
    }

    /// Reads an event (the general path) and imports it.
    fn event(&mut self, seq: u64, slice: &[u8], offset: u64) -> Result<()> {
        let where_ = || format!("{} (byte {offset})", at(seq));
        if slice.first() != Some(&b'{') {
            return Err(InteropError::invalid(
                FORMAT,
                where_(),
                "a trace event must be a JSON object",
            ));
        }
        let ev: SerdeEvent = serde_json::from_slice(slice).map_err(|e| {
            if e.is_syntax() || e.is_eof() {
                InteropError::syntax(FORMAT, where_(), format!("not JSON: {e}"))
            } else {
                InteropError::invalid(FORMAT, where_(), e.to_string())
            }
        })?;
        self.import_event(seq, &ev.into_raw(), offset)
    }

    /// Imports an event the fast path found in `slice`.
    fn fast_event(&mut self, seq: u64, slice: &[u8], ev: &EventSpans, offset: u64) -> Result<()> {
        if self.usual_complete_event(seq, slice, ev)? {
            return Ok(());
        }
        // leanscope's header events go the general way, which keeps `args`.
        let named = |s: Option<Span>, prefix: &[u8]| {
            s.is_some_and(|s| slice[s.start as usize..s.end as usize].starts_with(prefix))
        };
        if named(ev.ph, b"M") && named(ev.name, HEADER_PREFIX.as_bytes()) {
            return self.event(seq, slice, offset);
        }
        match RawEvent::from_spans(slice, ev) {
            Some(ev) => self.import_event(seq, &ev, offset),
            None => self.event(seq, slice, offset),
        }
    }

    /// Imports the most common kind of event quickly, as [`Importer::import_event`]
    /// would: an `X` event of ASCII text whose times have the plain form
    /// and are in range, whose ids are numbers, whose names have no escapes
    /// and whose range (if any) is well-formed. Returns false, having done
    /// nothing, for any other event.
    #[inline]
    fn usual_complete_event(&mut self, seq: u64, bytes: &[u8], ev: &EventSpans) -> Result<bool> {
        let plain = |n: Option<Num>| {
            n.and_then(|n| n.thousandths)
                .filter(|&ns| ns <= recording::limits::MAX_TIME_NS)
        };
        let id = |i: Option<IdSpan>| match i {
            None => Some(0),
            Some(IdSpan::Num(n)) => Some(n),
            Some(IdSpan::Str(_)) => None,
        };
        let (Some(ph), Some(ts), Some(dur), Some(pid), Some(tid)) =
            (ev.ph, plain(ev.ts), plain(ev.dur), id(ev.pid), id(ev.tid))
        else {
            return Ok(false);
        };
        if ph.escaped || bytes.get(ph.start as usize..ph.end as usize) != Some(b"X") {
            return Ok(false);
        }
        // Strings not read here but decoded by the other ways (where an
        // escaped lone surrogate is an error) must have no escapes.
        let escaped = |s: Option<Span>| s.is_some_and(|s| s.escaped);
        if matches!(ev.id, Some(IdSpan::Str(s)) if s.escaped)
            || ev.args.is_some_and(|a| escaped(a.name))
            || !all_ascii(bytes)
        {
            return Ok(false);
        }
        // Unescaped text of the event (`None` when escaped: not read here).
        let text = |s: Option<Span>| match s {
            None => Some(""),
            Some(s) if s.escaped => None,
            Some(s) => bytes
                .get(s.start as usize..s.end as usize)
                // SAFETY: `bytes` is all ASCII, which is UTF-8.
                .map(|b| unsafe { std::str::from_utf8_unchecked(b) }),
        };
        let ns = exact_ns(ev.ns, ev.args.and_then(|a| a.ns));
        let range = match ev.args {
            Some(ArgSpans {
                range: Some(r),
                range_kind,
                ..
            }) => {
                let kind = match text(range_kind) {
                    _ if range_kind.is_none() => RangeKind::Exact,
                    Some("exact") => RangeKind::Exact,
                    Some("matched") => RangeKind::Matched,
                    Some("inherited") => RangeKind::Inherited,
                    _ => return Ok(false),
                };
                Some((range_of(r), kind))
            }
            _ => None,
        };
        let (Some(name), Some(cat)) = (text(ev.name), text(ev.cat)) else {
            return Ok(false);
        };
        let t = match &self.last {
            Some((TrackKey::Thread(Id::Num(p), Id::Num(t)), i)) if *p == pid && *t == tid => *i,
            _ => self.track(TrackKey::Thread(Id::Num(pid), Id::Num(tid)), seq)?,
        };
        let times = exact_times((ts, dur), ns, &|| at(seq))?;
        self.complete_named(t, seq, times, (cat, name), range)?;
        Ok(true)
    }

    fn import_event(&mut self, seq: u64, ev: &RawEvent, offset: u64) -> Result<()> {
        let where_ = || format!("{} (byte {offset})", at(seq));
        let ph = ev
            .ph
            .as_deref()
            .ok_or_else(|| InteropError::invalid(FORMAT, where_(), "the event has no `ph`"))?;
        match ph {
            "X" | "B" | "E" | "b" | "e" => {}
            "M" => return self.metadata(ev, seq),
            other => {
                *self.ignored.entry(other.to_owned()).or_default() += 1;
                return Ok(());
            }
        }
        let ts = time_field(ev.ts, "ts", &where_)?.ok_or_else(|| {
            InteropError::invalid(FORMAT, where_(), format!("a `{ph}` event needs `ts`"))
        })?;
        let pid = ev.pid.as_ref().map_or(Id::Num(0), Id::to_static);
        let key = match ph {
            "b" | "e" => {
                let id = ev.id.as_ref().ok_or_else(|| {
                    InteropError::invalid(FORMAT, where_(), format!("a `{ph}` event needs `id`"))
                })?;
                TrackKey::Async(
                    pid,
                    ev.cat.as_deref().unwrap_or("").to_owned(),
                    id.to_static(),
                )
            }
            _ => TrackKey::Thread(pid, ev.tid.as_ref().map_or(Id::Num(0), Id::to_static)),
        };
        let t = self.track(key, seq)?;
        let name = ev.name.as_deref().unwrap_or("");
        let (range, ns) = match &ev.args {
            Some(Args::Raw(a))
                if memchr::memmem::find(a.as_bytes(), b"\"range\"").is_some()
                    || memchr::memmem::find(a.as_bytes(), b"\"ns\"").is_some() =>
            {
                range_arg(a, &where_)?
            }
            Some(Args::Read {
                range: Some(r),
                range_kind,
                ns,
                ..
            }) => (
                Some((range_of(*r), range_kind_of(range_kind.as_deref(), &where_)?)),
                *ns,
            ),
            Some(Args::Read { ns, .. }) => (None, *ns),
            _ => (None, None),
        };
        let ns = exact_ns(ev.ns, ns);
        match ph {
            "X" => {
                let dur = time_field(ev.dur, "dur", &where_)?.ok_or_else(|| {
                    InteropError::invalid(FORMAT, where_(), "an `X` event needs `dur`")
                })?;
                let cat = ev.cat.as_deref().unwrap_or("");
                let times = exact_times((ts, dur), ns, &where_)?;
                self.complete_named(t, seq, times, (cat, name), range)
            }
            "B" | "b" => {
                if self.tracks[t].open.len() >= MAX_OPEN_SPANS {
                    return Err(InteropError::over(
                        FORMAT,
                        where_(),
                        limit!(MAX_OPEN_SPANS, "the nesting of open `B` events"),
                    ));
                }
                let class = self.sink.intern(ev.cat.as_deref().unwrap_or(""))?;
                let label = self.sink.intern(name)?;
                let range = self.range_id(range);
                self.tracks[t].open.push(Open {
                    start: ts,
                    seq,
                    name: name.to_owned(),
                    class,
                    label,
                    range,
                });
                Ok(())
            }
            _ => {
                let track = &mut self.tracks[t];
                if ph == "e" && track.open.is_empty() {
                    // Async events are commonly cut off at the start of a
                    // recorded trace; they are dropped and counted.
                    self.unmatched_async += 1;
                    return Ok(());
                }
                let Some(open) = track.open.pop() else {
                    return Err(InteropError::invalid(
                        FORMAT,
                        where_(),
                        format!(
                            "unmatched `{ph}` event{}: no `{}` event is open on {}",
                            if name.is_empty() {
                                String::new()
                            } else {
                                format!(" `{name}`")
                            },
                            if ph == "E" { "B" } else { "b" },
                            self.keys[t].describe()
                        ),
                    ));
                };
                if !name.is_empty() && !open.name.is_empty() && name != open.name {
                    return Err(InteropError::invalid(
                        FORMAT,
                        where_(),
                        format!(
                            "`{ph}` event `{name}` does not match the open event `{}` ({})",
                            open.name,
                            at(open.seq)
                        ),
                    ));
                }
                let dur = ts.checked_sub(open.start).ok_or_else(|| {
                    InteropError::invalid(
                        FORMAT,
                        where_(),
                        format!(
                            "negative duration: `{ph}` at {ts} ns ends before its begin ({}) at {} ns",
                            at(open.seq),
                            open.start
                        ),
                    )
                })?;
                let range = match open.range {
                    Some(r) => Some(r),
                    None => self.range_id(range),
                };
                self.complete(
                    t,
                    Pending {
                        start: open.start,
                        dur,
                        seq: open.seq,
                        class: open.class,
                        label: open.label,
                        range,
                    },
                )
            }
        }
    }

    /// A range as the sink's id for it.
    /// A complete event of track `t` (start and duration; category and
    /// name), its names and range interned.
    fn complete_named(
        &mut self,
        t: usize,
        seq: u64,
        (start, dur): (u64, u64),
        (cat, name): (&str, &str),
        range: Option<(SourceRange, RangeKind)>,
    ) -> Result<()> {
        let class = self.sink.intern(cat)?;
        let label = self.sink.intern(name)?;
        let range = self.range_id(range);
        self.complete(
            t,
            Pending {
                start,
                dur,
                seq,
                class,
                label,
                range,
            },
        )
    }

    fn range_id(&mut self, r: Option<(SourceRange, RangeKind)>) -> Option<(u32, RangeKind)> {
        r.map(|(r, k)| (self.sink.intern_range(r), k))
    }

    /// Makes `ev`'s `(pid, tid)` a lane of the thread `owner` (see
    /// `chrome_lanes`): before any event of it, and of a thread that is no
    /// lane itself.
    fn lane(&mut self, ev: &RawEvent, owner: Id<'static>, seq: u64) -> Result<()> {
        let pid = ev.pid.as_ref().map_or(Id::Num(0), Id::to_static);
        let tid = ev.tid.as_ref().map_or(Id::Num(0), Id::to_static);
        let bad = |why: String| Err(InteropError::invalid(FORMAT, at(seq), why));
        if tid == owner {
            return bad(format!("`{LANE_EVENT}` makes tid {tid} a lane of itself"));
        }
        if self.lanes.contains_key(&(pid.clone(), owner.clone())) {
            return bad(format!(
                "`{LANE_EVENT}` makes tid {tid} a lane of tid {owner}, which is a lane itself"
            ));
        }
        if self.lanes.contains_key(&(pid.clone(), tid.clone())) {
            return bad(format!("a second `{LANE_EVENT}` for tid {tid}"));
        }
        if self
            .track_index
            .contains_key(&TrackKey::Thread(pid.clone(), tid.clone()))
        {
            return bad(format!(
                "`{LANE_EVENT}` for pid {pid} tid {tid} after events of that thread"
            ));
        }
        if self.lanes.len() >= MAX_CHROME_LANES {
            return Err(InteropError::over(
                FORMAT,
                at(seq),
                limit!(MAX_CHROME_LANES, "lanes"),
            ));
        }
        self.lanes.insert((pid, tid), owner);
        Ok(())
    }

    fn metadata(&mut self, ev: &RawEvent, seq: u64) -> Result<()> {
        let name = ev.name.as_deref().unwrap_or("");
        if name.starts_with(HEADER_PREFIX) {
            return self.header_part(name, ev, seq);
        }
        if name != "thread_name" && name != "process_name" {
            return Ok(());
        }
        let value = match &ev.args {
            None => return Ok(()),
            Some(Args::Raw(args)) => {
                let args: NameArgs = serde_json::from_str(args).map_err(|e| {
                    InteropError::invalid(FORMAT, format!("{}.args", at(seq)), e.to_string())
                })?;
                args.name
            }
            Some(Args::Read { name, .. }) => name.as_ref().map(|n| n.to_string()),
        };
        let Some(value) = value else {
            return Ok(());
        };
        let pid = ev.pid.as_ref().map_or(Id::Num(0), Id::to_static);
        if name == "process_name" {
            self.process_names.insert(pid, value);
        } else {
            let tid = ev.tid.as_ref().map_or(Id::Num(0), Id::to_static);
            self.thread_names.insert((pid, tid), value);
        }
        Ok(())
    }

    /// A piece of leanscope's header (see `chrome_export`).
    fn header_part(&mut self, name: &str, ev: &RawEvent, seq: u64) -> Result<()> {
        let where_ = || format!("{}.args", at(seq));
        let Some(Args::Raw(args)) = &ev.args else {
            return Err(InteropError::invalid(
                FORMAT,
                at(seq),
                format!("the metadata event `{name}` has no `args`"),
            ));
        };
        let read = |e: serde_json::Error| InteropError::invalid(FORMAT, where_(), e.to_string());
        if name == LANE_EVENT {
            let a: LaneArgs = serde_json::from_str(args).map_err(read)?;
            return self.lane(ev, Id::Num(a.thread), seq);
        }
        let parts = &mut self.header_parts;
        let items = parts.declarations.len() + parts.diagnostics.len();
        let too_many = || {
            InteropError::over(
                FORMAT,
                where_(),
                limit!(
                    MAX_HEADER_ITEMS,
                    "the declarations and diagnostics of leanscope's header"
                ),
            )
        };
        match name {
            HEADER_EVENT => {
                let a: HeaderArgs = serde_json::from_str(args).map_err(read)?;
                if parts.header.replace(a.header).is_some() {
                    return Err(InteropError::invalid(
                        FORMAT,
                        at(seq),
                        format!("a second `{HEADER_EVENT}` event"),
                    ));
                }
            }
            SOURCE_EVENT => {
                let a: SourceArgs = serde_json::from_str(args).map_err(read)?;
                if parts.source.len() + a.text.len() > recording::limits::MAX_SOURCE_BYTES {
                    return Err(InteropError::over(
                        FORMAT,
                        where_(),
                        limit!(
                            recording::limits::MAX_SOURCE_BYTES,
                            "the source text of leanscope's header"
                        ),
                    ));
                }
                parts.source.push_str(&a.text);
            }
            DECLARATIONS_EVENT => {
                let a: DeclarationArgs = serde_json::from_str(args).map_err(read)?;
                if items + a.declarations.len() > MAX_HEADER_ITEMS {
                    return Err(too_many());
                }
                parts.declarations.extend(a.declarations);
            }
            DIAGNOSTICS_EVENT => {
                let a: DiagnosticArgs = serde_json::from_str(args).map_err(read)?;
                if items + a.diagnostics.len() > MAX_HEADER_ITEMS {
                    return Err(too_many());
                }
                parts.diagnostics.extend(a.diagnostics);
            }
            // Other `leanscope_` metadata (of a later version) is not read.
            _ => return Ok(()),
        }
        parts.seen_at.get_or_insert(seq);
        Ok(())
    }

    fn complete(&mut self, t: usize, p: Pending) -> Result<()> {
        self.tracks[t].waiting.push(p);
        self.waiting += 1;
        while self.tracks[t].waiting.len() > MAX_REORDER_EVENTS {
            let track = &self.tracks[t];
            let min = track.waiting.peek().expect("not empty");
            if track.open.first().is_some_and(|o| o.start <= min.start) {
                // An open `B` may still turn out to contain it.
                break;
            }
            self.place_next(t)?;
        }
        if self.waiting > MAX_PENDING_EVENTS {
            let open = self.tracks[t].open.first().map(|o| o.seq);
            return Err(InteropError::over(
                FORMAT,
                match open {
                    Some(s) => format!("{} (an open `B` event)", at(s)),
                    None => format!("thread {}", self.keys[t].describe()),
                },
                limit!(
                    MAX_PENDING_EVENTS,
                    "the number of events waiting to be placed"
                ),
            ));
        }
        Ok(())
    }

    /// Places the earliest waiting event of track `t`.
    fn place_next(&mut self, t: usize) -> Result<()> {
        let track = &mut self.tracks[t];
        let Some(p) = track.waiting.pop() else {
            return Ok(());
        };
        self.waiting -= 1;
        if p.start < track.last_start {
            return Err(InteropError::invalid(
                FORMAT,
                at(p.seq),
                format!(
                    "the event starts at {} ns on {}, before events already placed there; \
                     events of one thread may be out of start order by at most {} events \
                     (MAX_REORDER_EVENTS)",
                    p.start,
                    self.keys[t].describe(),
                    MAX_REORDER_EVENTS
                ),
            ));
        }
        track.last_start = p.start;
        let end = p.start + p.dur;
        while let Some(&(s, e, _)) = track.stack.last() {
            let inside = s <= p.start && end <= e && !(p.start == e && s < e);
            if inside {
                break;
            }
            track.stack.pop();
        }
        if track.stack.len() >= MAX_STACK_DEPTH {
            return Err(InteropError::over(
                FORMAT,
                at(p.seq),
                limit!(MAX_STACK_DEPTH, "the nesting depth"),
            ));
        }
        let parent = track.stack.last().map(|&(_, _, i)| i);
        let thread = track.thread;
        let index = self.sink.push_ids(&IdEvent {
            parent,
            class: p.class,
            label: p.label,
            start_ns: p.start,
            duration_ns: p.dur,
            thread,
            range: p.range,
        })?;
        self.tracks[t].stack.push((p.start, end, index));
        Ok(())
    }

    fn finish(mut self) -> Result<ChromeImport> {
        for t in 0..self.tracks.len() {
            if matches!(self.keys[t], TrackKey::Async(..)) {
                self.unmatched_async += self.tracks[t].open.len() as u64;
                self.tracks[t].open.clear();
            }
            if let Some(open) = self.tracks[t].open.first() {
                return Err(InteropError::invalid(
                    FORMAT,
                    at(open.seq),
                    format!(
                        "unmatched begin event `{}` on {}: it never ends",
                        open.name,
                        self.keys[t].describe()
                    ),
                ));
            }
            while !self.tracks[t].waiting.is_empty() {
                self.place_next(t)?;
            }
        }
        // Name threads by their metadata; the process too when there are several.
        let pids: std::collections::HashSet<&Id> = self
            .keys
            .iter()
            .map(|k| match k {
                TrackKey::Thread(p, _) | TrackKey::Async(p, _, _) => p,
            })
            .collect();
        let several = pids.len() > 1;
        for (t, key) in self.keys.iter().enumerate() {
            let (pid, name) = match key {
                TrackKey::Thread(pid, tid) => (
                    pid,
                    self.thread_names
                        .get(&(pid.clone(), tid.clone()))
                        .cloned()
                        .unwrap_or_else(|| format!("tid {tid}")),
                ),
                TrackKey::Async(pid, cat, id) => (pid, format!("async {cat} #{id}")),
            };
            let name = if several {
                let process = self
                    .process_names
                    .get(pid)
                    .cloned()
                    .unwrap_or_else(|| format!("pid {pid}"));
                format!("{process} / {name}")
            } else {
                name
            };
            let thread = self.tracks[t].thread as usize;
            self.sink.threads[thread].name = name;
        }
        if self.unmatched_async > 0 {
            self.sink.notes.push(format!(
                "dropped {} async `b`/`e` events whose other half is not in the trace",
                self.unmatched_async
            ));
        }
        if !self.ignored.is_empty() {
            let parts: Vec<String> = self
                .ignored
                .iter()
                .map(|(ph, n)| format!("{n} `{ph}`"))
                .collect();
            self.sink.notes.push(format!(
                "ignored events without an interval: {}",
                parts.join(", ")
            ));
        }
        let parts = self.header_parts;
        let header = match (parts.header, parts.seen_at) {
            (Some(h), _) => Some(Header {
                source_text: parts.source,
                declarations: parts.declarations,
                diagnostics: parts.diagnostics,
                ..h
            }),
            (None, Some(seq)) => {
                return Err(InteropError::invalid(
                    FORMAT,
                    at(seq),
                    format!("parts of leanscope's header without its `{HEADER_EVENT}` event"),
                ))
            }
            (None, None) => self.header,
        };
        Ok(ChromeImport { header })
    }
}

impl TrackKey {
    fn describe(&self) -> String {
        match self {
            TrackKey::Thread(pid, tid) => format!("pid {pid} tid {tid}"),
            TrackKey::Async(pid, cat, id) => format!("pid {pid} async category `{cat}` id {id}"),
        }
    }
}

fn time_field(v: Option<Time>, field: &str, where_: &dyn Fn() -> String) -> Result<Option<u64>> {
    let Some(Time { text: v, ns }) = v else {
        return Ok(None);
    };
    let ns = match ns {
        Some(ns) => i128::from(ns),
        None => micros_to_ns(v)
            .map_err(|e| InteropError::invalid(FORMAT, format!("{}.{field}", where_()), e))?,
    };
    if ns < 0 {
        return Err(InteropError::invalid(
            FORMAT,
            format!("{}.{field}", where_()),
            format!("`{field}` is negative ({v})"),
        ));
    }
    u64::try_from(ns)
        .ok()
        .filter(|&n| n <= recording::limits::MAX_TIME_NS)
        .map(Some)
        .ok_or_else(|| {
            InteropError::invalid(
                FORMAT,
                format!("{}.{field}", where_()),
                format!("`{field}` is too large ({v})"),
            )
        })
}

/// The range and exact times leanscope keeps in an event's `args`.
type EventArgs = (Option<(SourceRange, RangeKind)>, Option<[u64; 2]>);

fn range_arg(args: &str, where_: &dyn Fn() -> String) -> Result<EventArgs> {
    let a: RangeArgs = serde_json::from_str(args)
        .map_err(|e| InteropError::invalid(FORMAT, format!("{}.args", where_()), e.to_string()))?;
    let Some(range) = a.range else {
        return Ok((None, a.ns));
    };
    Ok((
        Some((
            range_of(range),
            range_kind_of(a.range_kind.as_deref(), where_)?,
        )),
        a.ns,
    ))
}

/// leanscope's exact times of an event, and the field they came from: the
/// event's own `ns`, else (as exports before it was moved wrote them)
/// `args.ns`. In `args` they made every event its own frame in readers that
/// name frames by their arguments (speedscope).
fn exact_ns(own: Option<[u64; 2]>, in_args: Option<[u64; 2]>) -> Option<([u64; 2], &'static str)> {
    match (own, in_args) {
        (Some(ns), _) => Some((ns, "ns")),
        (None, Some(ns)) => Some((ns, "args.ns")),
        (None, None) => None,
    }
}

/// An `X` event's start and duration in nanoseconds: those of `ns`
/// (leanscope's exact times) when present, which must agree with `ts` and
/// `dur` (read as nanoseconds) as leanscope writes them: each time rounded
/// down to a step of 1/1024 µs, so `ts` and `ts + dur` are within
/// [`NS_SLACK`] of the start and the end.
fn exact_times(
    (ts, dur): (u64, u64),
    ns: Option<([u64; 2], &'static str)>,
    where_: &dyn Fn() -> String,
) -> Result<(u64, u64)> {
    let Some(([start, d], field)) = ns else {
        return Ok((ts, dur));
    };
    let bad = |why: String| InteropError::invalid(FORMAT, format!("{}.{field}", where_()), why);
    let end = start
        .checked_add(d)
        .filter(|&e| e <= recording::limits::MAX_TIME_NS)
        .ok_or_else(|| bad(format!("`ns` [{start}, {d}] ends past the largest time")))?;
    let near = |exact: u64, written: u64| exact.abs_diff(written) <= NS_SLACK;
    if !near(start, ts) || !near(end, ts + dur) {
        return Err(bad(format!(
            "`ns` [{start}, {d}] disagrees with `ts` and `dur` ({ts} and {dur} ns; \
             leanscope writes the start and the end of `ns` rounded down to 1/1024 µs)"
        )));
    }
    Ok((start, d))
}

/// How far `ts` and `ts + dur`, read as whole nanoseconds, may be from
/// the exact times of `ns`: a step (under 1 ns) of rounding down on
/// writing, and the rounding of each of `ts` and `dur` to nanoseconds.
const NS_SLACK: u64 = 2;

fn range_of([sl, sc, el, ec]: [u32; 4]) -> SourceRange {
    SourceRange::new(sl, sc, el, ec)
}

fn range_kind_of(kind: Option<&str>, where_: &dyn Fn() -> String) -> Result<RangeKind> {
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

#[derive(Deserialize)]
struct HeaderArgs {
    header: Header,
}

#[derive(Deserialize)]
struct LaneArgs {
    thread: i64,
}

#[derive(Deserialize)]
struct SourceArgs {
    text: String,
}

#[derive(Deserialize)]
struct DeclarationArgs {
    declarations: Vec<Declaration>,
}

#[derive(Deserialize)]
struct DiagnosticArgs {
    diagnostics: Vec<Diagnostic>,
}

#[derive(Deserialize)]
struct OtherData {
    leanscope: Option<LeanscopeData>,
}

#[derive(Deserialize)]
struct LeanscopeData {
    header: Header,
}

/// Imports a Chrome trace from `input` into `sink`.
pub fn import<R: Read>(input: R, sink: &mut TraceSink) -> Result<ChromeImport> {
    import_with(input, sink, true)
}

/// Imports `data` twice, with the fast path and with every event read the
/// general way (as before the fast path existed), for tests and fuzzing to
/// compare: each gives the encoded recording (with a fixed header) and the
/// trace's own header, or the error's message.
#[doc(hidden)]
pub fn import_both_ways(data: &[u8], spill_dir: &std::path::Path) -> [ImportOutcome; 2] {
    [true, false].map(|fast| {
        let mut sink = TraceSink::new(FORMAT, spill_dir).map_err(|e| e.to_string())?;
        let imported = import_with(data, &mut sink, fast).map_err(|e| e.to_string())?;
        let bytes = sink
            .finish(Header::default(), Vec::new())
            .map_err(|e| e.to_string())?;
        Ok((bytes, imported.header))
    })
}

/// What [`import_both_ways`] gives for one way.
pub type ImportOutcome = std::result::Result<(Vec<u8>, Option<Header>), String>;

fn import_with<R: Read>(input: R, sink: &mut TraceSink, fast: bool) -> Result<ChromeImport> {
    let mut s = TraceJson::new(input);
    let mut imp = Importer {
        fast,
        sink,
        tracks: Vec::new(),
        track_index: HashMap::new(),
        last: None,
        process_names: HashMap::new(),
        thread_names: HashMap::new(),
        lanes: HashMap::new(),
        keys: Vec::new(),
        waiting: 0,
        ignored: Default::default(),
        unmatched_async: 0,
        header: None,
        header_parts: HeaderParts::default(),
    };
    match s.peek()? {
        None => return Err(InteropError::syntax(FORMAT, "byte 0", "the input is empty")),
        Some(b'[') => events_array(&mut s, &mut imp, true)?,
        Some(b'{') => {
            s.bump();
            let mut found = false;
            if s.peek()? == Some(b'}') {
                s.bump();
            } else {
                loop {
                    let key_at = s.offset();
                    if s.peek()? != Some(b'"') {
                        s.expect(b'"', "an object key")?;
                    }
                    let key = s.read_key()?;
                    s.expect(b':', "`:` after an object key")?;
                    match key.as_str() {
                        "traceEvents" => {
                            if found {
                                return Err(InteropError::invalid(
                                    FORMAT,
                                    format!("byte {key_at}"),
                                    "`traceEvents` appears twice",
                                ));
                            }
                            found = true;
                            if s.peek()? != Some(b'[') {
                                return Err(InteropError::invalid(
                                    FORMAT,
                                    "traceEvents",
                                    "`traceEvents` must be an array",
                                ));
                            }
                            events_array(&mut s, &mut imp, false)?;
                        }
                        "otherData" => {
                            let value = s.take_value("`otherData`")?;
                            if memchr::memmem::find(value, b"\"leanscope\"").is_some() {
                                let d: OtherData = serde_json::from_slice(value).map_err(|e| {
                                    InteropError::invalid(FORMAT, "otherData", e.to_string())
                                })?;
                                imp.header = d.leanscope.map(|l| l.header);
                            }
                        }
                        _ => s.skip_value()?,
                    }
                    match s.peek()? {
                        Some(b',') => s.bump(),
                        Some(b'}') => {
                            s.bump();
                            break;
                        }
                        _ => s.expect(b'}', "`,` or `}` in the top-level object")?,
                    }
                }
            }
            if !found {
                return Err(InteropError::invalid(
                    FORMAT,
                    "$",
                    "the object has no `traceEvents` array: not a Chrome trace",
                ));
            }
        }
        Some(c) => {
            return Err(InteropError::syntax(
                FORMAT,
                "byte 0",
                format!(
                    "not JSON trace events: expected `[` or `{{`, found `{}`",
                    (c as char).escape_default()
                ),
            ))
        }
    }
    if let Some(c) = s.peek()? {
        return Err(InteropError::syntax(
            FORMAT,
            format!("byte {}", s.offset()),
            format!(
                "unexpected `{}` after the end of the trace",
                (c as char).escape_default()
            ),
        ));
    }
    imp.finish()
}

fn events_array<R: Read>(s: &mut TraceJson<R>, imp: &mut Importer, top_level: bool) -> Result<()> {
    s.expect(b'[', "`[`")?;
    let mut seq = 0u64;
    let mut ev = EventSpans::default();
    if s.peek()? == Some(b']') {
        s.bump();
        return Ok(());
    }
    loop {
        let offset = s.offset();
        let fast = if imp.fast {
            s.parse_value("a trace event", |bytes| parse_event(bytes, &mut ev))?
        } else {
            None
        };
        match fast {
            Some(at) => imp.fast_event(seq, s.bytes(at), &ev, offset)?,
            None => {
                let slice = s.take_value("a trace event")?;
                imp.event(seq, slice, offset)?;
            }
        }
        seq += 1;
        match s.peek()? {
            Some(b',') => {
                s.bump();
                // A trailing comma before `]` (or the end) is tolerated, as
                // Chrome writes traces that way when it is cut short.
                match s.peek()? {
                    Some(b']') => {
                        s.bump();
                        return Ok(());
                    }
                    None if top_level => return Ok(()),
                    _ => {}
                }
            }
            Some(b']') => {
                s.bump();
                return Ok(());
            }
            // The JSON array form may omit its closing bracket.
            None if top_level => return Ok(()),
            _ => s.expect(b']', "`,` or `]` after a trace event")?,
        }
    }
}

pub use super::chrome_export::{export, HEADER_CHUNK_BYTES};
pub use super::chrome_lanes::LANE_EVENTS;

#[cfg(test)]
mod tests {
    use super::{any_micros_to_ns, import_both_ways, micros_to_ns, plain_micros_to_ns};

    /// Imports `text` both ways and checks they agree; returns the outcome.
    fn same_both_ways(text: &str) -> super::ImportOutcome {
        let dir = std::env::temp_dir();
        let [fast, general] = import_both_ways(text.as_bytes(), &dir);
        assert_eq!(fast, general, "{text}");
        fast
    }

    #[test]
    fn the_fast_path_reads_events_as_the_general_one_does() {
        let events = [
            r#"{"ph":"M","name":"process_name","pid":1,"args":{"name":"lean \"p\""}}"#,
            r#"{"ph":"M","name":"thread_name","pid":1,"tid":2,"args":{"name":"w\u00e9 😀"}}"#,
            r#"{"ph":"M","name":"thread_name","pid":"p","tid":"t","args":{"other":[1,{"a":null}]}}"#,
            r#"{"ph":"M","name":"thread_name","pid":1,"tid":3,"args":{"name":null}}"#,
            r#"{"ph":"X","name":"a","cat":"c","ts":1.5,"dur":10,"pid":1,"tid":2}"#,
            r#"{ "ph" : "X" , "name" : "b\n" , "ts" : 2 , "dur" : 3.25 , "tid" : 2 , "extra" : { "x" : [ true , false , -1.5e-3 ] } }"#,
            r#"{"ph":"X","name":"c","ts":2.0001,"dur":1e0,"tid":2,"args":{"range":[1,2,3,4],"range_kind":"matched"}}"#,
            r#"{"ph":"X","name":"d","ts":3,"dur":1,"tid":2,"args":{"range":[1,2,3,4]}}"#,
            r#"{"ph":"X","name":"e","ts":3,"dur":1,"tid":2,"args":{"range":null,"x":"range"}}"#,
            r#"{"ph":"X","name":"f","ts":3,"dur":1,"tid":2,"args":{"r\u0061nge":[0,0,0,1]}}"#,
            r#"{"ph":"X","name":null,"cat":null,"ts":4,"dur":1,"tid":null,"pid":null}"#,
            r#"{"ph":"X","name":"g","ts":4,"dur":1,"tid":-3,"pid":9223372036854775807}"#,
            r#"{"ph":"B","name":"h","ts":5,"tid":2}"#,
            r#"{"ph":"E","ts":7,"tid":2}"#,
            r#"{"ph":"b","cat":"k","id":"0x1","name":"i","ts":5}"#,
            r#"{"ph":"e","cat":"k","id":"0x1","name":"i","ts":6}"#,
            r#"{"ph":"e","cat":"k","id":7,"ts":6}"#,
            r#"{"ph":"i","name":"instant","ts":6}"#,
            r#"{"ph":"C","name":"counter","ts":6,"args":{"v":1}}"#,
        ];
        let array = format!("[{}]", events.join(",\n"));
        let outcome = same_both_ways(&array);
        assert!(outcome.is_ok(), "{outcome:?}");
        let _ = same_both_ways(&format!(
            "{{\"otherData\":{{\"x\":1}},\"traceEvents\":{array},\"displayTimeUnit\":\"ns\"}}"
        ));
        // Each event alone too, and each prefix (truncated traces).
        for ev in events {
            let _ = same_both_ways(&format!("[{ev}]"));
        }
        for n in 0..array.len() {
            if array.is_char_boundary(n) {
                let _ = same_both_ways(&array[..n]);
            }
        }
    }

    #[test]
    fn the_quick_way_for_usual_complete_events_agrees_with_the_others() {
        let events = [
            r#"{"ph":"X","name":"a","cat":"c","ts":1.5,"dur":10,"pid":1,"tid":2}"#,
            r#"{"ph":"X","name":"b","cat":"c","ts":2,"dur":1,"tid":2,"args":{"range":[1,2,3,4],"range_kind":"inherited","name":"n"}}"#,
            r#"{"ph":"X","name":"c","ts":3,"dur":1,"tid":2,"args":{"range":[1,2,3,4],"range_kind":"inh\u0065rited"}}"#,
            r#"{"ph":"X","name":"d","ts":3,"dur":1,"tid":2,"args":{"range":[1,2,3,4],"range_kind":"odd"}}"#,
            r#"{"ph":"X","name":"e","ts":3,"dur":1,"tid":2,"id":"\ud800"}"#,
            r#"{"ph":"X","name":"f","ts":3,"dur":1,"tid":2,"id":"\u0041"}"#,
            r#"{"ph":"X","name":"g","ts":3,"dur":1,"tid":2,"args":{"name":"\ud800"}}"#,
            r#"{"ph":"X","name":"h\u0041","cat":"\u0041","ts":3,"dur":1,"tid":2}"#,
            r#"{"ph":"X","name":"i","ts":999999999999999.999,"dur":1,"tid":2}"#,
            r#"{"ph":"X","name":"j","ts":4,"dur":999999999999999,"tid":2}"#,
            r#"{"ph":"X","name":"k","ts":4,"dur":1,"pid":"p","tid":2}"#,
            r#"{"ph":"X","name":"l é","ts":4,"dur":1,"tid":2}"#,
            r#"{"ph":"\u0058","name":"m","ts":4,"dur":1,"tid":2}"#,
            r#"{"ph":"X","name":"n","ts":4,"tid":2}"#,
            r#"{"ph":"X","name":"o","ts":1,"dur":1,"tid":2}"#,
        ];
        for ev in events {
            let _ = same_both_ways(&format!("[{ev}]"));
        }
        let _ = same_both_ways(&format!("[{}]", events.join(",")));
        let _ = same_both_ways(&format!("[{},{}]", events[0], events[1]));
    }

    #[test]
    fn the_fast_path_rejects_what_the_general_one_rejects() {
        let bad = [
            r#"[{"ph":"X","ts":1,"dur":1,"x":[1,]}]"#,
            r#"[{"ph":"X","ts":1,"dur":1,"x":01}]"#,
            r#"[{"ph":"X","ts":1,"dur":1,"x":"\q"}]"#,
            r#"[{"ph":"X","ts":1,"dur":1,"name":"\ud800"}]"#,
            r#"[{"ph":"X","ts":1,"dur":1,"ph":"X"}]"#,
            r#"[{"ph":"X","ts":1,"dur":1,"tid":1.5}]"#,
            r#"[{"ph":"X","ts":1,"dur":1,"tid":1e2}]"#,
            r#"[{"ph":"X","ts":1,"dur":1,"tid":-0}]"#,
            r#"[{"ph":"X","ts":1,"dur":1,"tid":18446744073709551615}]"#,
            r#"[{"ph":"X","ts":"1","dur":1}]"#,
            r#"[{"ph":"X","ts":1,"dur":-1}]"#,
            r#"[{"ph":"X","ts":1e30,"dur":1}]"#,
            r#"[{"ph":"X","ts":1,"dur":1,"args":{"range":[1,2,3]}}]"#,
            r#"[{"ph":"X","ts":1,"dur":1,"args":{"range":[1,2,3,4],"range_kind":"odd"}}]"#,
            r#"[{"ph":"X","ts":1,"dur":1,"args":{"range":[1,2,3,4],"range_kind":5}}]"#,
            r#"[{"ph":"X","ts":1,"dur":1,"args":{"range":[1,2,3,-4]}}]"#,
            r#"[{"ph":"M","name":"thread_name","args":{"name":5}}]"#,
            r#"[{"ph":"M","name":"thread_name","args":[]}]"#,
            "[{\"ph\":\"X\",\"ts\":1,\"dur\":1,\"name\":\"a\tb\"}]",
            r#"[{"ph":"X","ts":1,"dur":1}}]"#,
            r#"[{"ph":"X","ts":1,"dur":1},]x"#,
        ];
        for text in bad {
            let outcome = same_both_ways(text);
            assert!(outcome.is_err(), "{text}: {outcome:?}");
        }
        let deep = format!(
            "[{{\"ph\":\"X\",\"ts\":1,\"dur\":1,\"x\":{}{}}}]",
            "[".repeat(1000),
            "]".repeat(1000)
        );
        let _ = same_both_ways(&deep);
        // Invalid UTF-8 in a skipped string: serde_json lets it pass.
        let dir = std::env::temp_dir();
        let [fast, general] =
            import_both_ways(b"[{\"ph\":\"X\",\"ts\":1,\"dur\":1,\"x\":\"\xff\"}]", &dir);
        assert_eq!(fast, general);
    }

    #[test]
    fn the_quick_path_of_microseconds_agrees_with_the_general_one() {
        let mut texts: Vec<String> = ["0", "0.0", "7", "1.", ".5", "00.5", "1.5e3", "-1.5"]
            .map(String::from)
            .to_vec();
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        for _ in 0..100_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let int = x % 10u64.pow((x >> 40) as u32 % 17);
            let decimals = (x >> 50) as usize % 5;
            let frac = format!("{:04}", (x >> 20) % 10_000);
            texts.push(if decimals == 0 {
                int.to_string()
            } else {
                format!("{int}.{}", &frac[..decimals])
            });
        }
        for t in &texts {
            if let Some(ns) = plain_micros_to_ns(t.as_bytes()) {
                assert_eq!(Ok(ns), any_micros_to_ns(t), "{t}");
            }
        }
        assert_eq!(plain_micros_to_ns(b"141171.917"), Some(141_171_917));
    }

    #[test]
    fn microsecond_decimals_become_exact_nanoseconds() {
        let table = [
            ("0", 0),
            ("1", 1000),
            ("1.234", 1234),
            ("1.2345", 1235),
            ("1.2344", 1234),
            ("-2.5", -2500),
            ("1e3", 1_000_000),
            ("1.5E-3", 2),
            ("0.0004", 0),
            ("141171.917", 141_171_917),
            ("1700000000000000.001", 1_700_000_000_000_000_001),
        ];
        for (text, ns) in table {
            assert_eq!(micros_to_ns(text), Ok(ns), "{text}");
        }
        for bad in ["", "-", "1.2.3", "abc", "1e", "\"1\"", "1e40", "."] {
            assert!(micros_to_ns(bad).is_err(), "{bad}");
        }
    }
}
