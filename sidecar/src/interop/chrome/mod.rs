//! Chrome/Perfetto trace-event JSON: import (streaming) and export.
//!
//! Import reads the JSON array form (`[ {...}, ... ]`, whose closing `]`
//! the format lets a truncated trace omit) and the object form
//! (`{"traceEvents": [...], ...}`). It understands complete events (`X`),
//! duration events (`B`/`E`, matched per thread), nestable async events
//! (`b`/`e`, matched per process, category and id, each id becoming its own
//! track; an async half whose other half the trace cut off is dropped and
//! counted in a note, while an unmatched `B` or `E` is an error) and
//! metadata (`M`: `process_name`, `thread_name`). Other phases (instant,
//! counter, flow, object, sample events) carry no interval and are counted
//! in a note. Timestamps and durations are microseconds, read as exact
//! decimals and rounded to whole nanoseconds (`time`).
//!
//! This file is the event loop: the document around the events, each event
//! (by the fast path, `event`, or the general one; its fields in
//! `fields`) and its placement on its thread. Events are nested per
//! thread by time, in constant memory: each thread holds back at most
//! [`MAX_REORDER_EVENTS`] completed events to put them in start order
//! (parents before children), so a trace may be out of order by that much
//! per thread.
//!
//! Export (`export`) writes the object form with one `X` event per
//! event, in exact binary fractions of a microsecond, the exact nanoseconds
//! in the event's `ns` (read back here) and leanscope's header in bounded
//! `leanscope_*` metadata events (read back by `header`), so that
//! importing an exported trace gives back the same recording, except for
//! links between threads, which the format cannot express.

mod event;
mod export;
mod fields;
mod header;
mod json;
mod lanes;
mod time;

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};
use std::io::Read;

use recording::{Header, RangeKind, SourceRange};
use serde::Deserialize;

use self::event::{parse_event, ArgSpans, EventSpans, IdSpan, Num, Span};
use self::fields::{
    all_ascii, range_arg, range_kind_of, range_of, Args, Id, NameArgs, RawEvent, SerdeEvent,
};
use self::header::{args_error, HeaderParts, HEADER_PREFIX};
use self::json::TraceJson;
use self::lanes::LANE_EVENT;
use self::time::{exact_times, time_field};
use super::error::{InteropError, Result};
use super::sink::{IdEvent, TraceSink};
use crate::limit;
use crate::limits::{
    MAX_CHROME_LANES, MAX_OPEN_SPANS, MAX_PENDING_EVENTS, MAX_REORDER_EVENTS, MAX_STACK_DEPTH,
};

pub(super) const FORMAT: &str = "Chrome trace";

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
    header_parts: HeaderParts,
}

/// Where the event `seq` is.
pub(super) fn at(seq: u64) -> String {
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
        let times = exact_times((ts, dur), ev.ns, &|| at(seq))?;
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
        let range = match &ev.args {
            Some(Args::Raw(a)) if memchr::memmem::find(a.as_bytes(), b"\"range\"").is_some() => {
                range_arg(a, &where_)?
            }
            Some(Args::Read {
                range: Some(r),
                range_kind,
                ..
            }) => Some((range_of(*r), range_kind_of(range_kind.as_deref(), &where_)?)),
            _ => None,
        };
        match ph {
            "X" => {
                let dur = time_field(ev.dur, "dur", &where_)?.ok_or_else(|| {
                    InteropError::invalid(FORMAT, where_(), "an `X` event needs `dur`")
                })?;
                let cat = ev.cat.as_deref().unwrap_or("");
                let times = exact_times((ts, dur), ev.ns, &where_)?;
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

    /// A range as the sink's id for it.
    fn range_id(&mut self, r: Option<(SourceRange, RangeKind)>) -> Option<(u32, RangeKind)> {
        r.map(|(r, k)| (self.sink.intern_range(r), k))
    }

    /// Makes `ev`'s `(pid, tid)` a lane of the thread `owner` (see
    /// `lanes`): before any event of it, and of a thread that is no
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

    /// A `leanscope_` metadata event: a lane, or a piece of leanscope's
    /// header (`header`).
    fn header_part(&mut self, name: &str, ev: &RawEvent, seq: u64) -> Result<()> {
        let Some(Args::Raw(args)) = &ev.args else {
            return Err(InteropError::invalid(
                FORMAT,
                at(seq),
                format!("the metadata event `{name}` has no `args`"),
            ));
        };
        if name == LANE_EVENT {
            let a: LaneArgs = serde_json::from_str(args).map_err(|e| args_error(seq, e))?;
            return self.lane(ev, Id::Num(a.thread), seq);
        }
        self.header_parts.add(name, args, seq)
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
        let header = self.header_parts.finish()?;
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

/// The `args` of a lane event (`lanes`): the thread it is a lane of.
#[derive(Deserialize)]
struct LaneArgs {
    thread: i64,
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

pub use self::export::{export, HEADER_CHUNK_BYTES};
pub use self::lanes::LANE_EVENTS;

#[cfg(test)]
mod tests {
    use super::import_both_ways;

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
}
