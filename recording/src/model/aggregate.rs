//! Aggregation by declaration, tactic span, source line and file.
//!
//! - Declaration time: the union of the intervals of events whose range lies
//!   inside the declaration's range, across threads. Its self time is the
//!   part of that union not covered by any of its tactic spans. A
//!   declaration with no such event has no time (`None`), not zero.
//! - Tactic time: per exact source span (events of the same range), the
//!   union of the tactic events' intervals; self is the union of their self
//!   pieces.
//! - Line bars: per source line (where an event's range starts), the union
//!   of the events' intervals; self is the union of their self pieces.
//! - File time: Lean's elapsed time for the file, imports included.

use serde::Serialize;

use super::classify::is_tactic;
use super::timing::{self_pieces, union_ns, Interval};
use super::Recording;
use crate::columns::NO_RANGE;
use crate::types::{RangeKind, SourceRange};

/// Time attributed to something: how many events, their union and the
/// union of their self pieces, in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct TimeRow {
    pub count: u64,
    pub total_ns: u64,
    pub self_ns: u64,
}

/// For each declaration of the header, in order, its time (or `None`).
pub fn declaration_times(rec: &Recording) -> Vec<Option<TimeRow>> {
    let decls = &rec.header.declarations;
    // Events share ranges: find each range's declaration once.
    let owner = DeclarationIndex::new(rec).owners_of_ranges();
    let mut events: Vec<Vec<u32>> = vec![Vec::new(); decls.len()];
    for (i, &r) in rec.events.range.iter().enumerate() {
        if let Some(&Some(d)) = owner.get(r as usize) {
            events[d as usize].push(i as u32);
        }
    }
    let mut scratch = Vec::new();
    events
        .iter()
        .map(|evs| {
            if evs.is_empty() {
                return None;
            }
            scratch.clear();
            scratch.extend(evs.iter().map(|&i| rec.interval(i)));
            let total = union_ns(&mut scratch);
            scratch.clear();
            scratch.extend(
                evs.iter()
                    .filter(|&&i| is_tactic(rec, i))
                    .map(|&i| rec.interval(i)),
            );
            let in_tactics = union_ns(&mut scratch);
            // Tactic intervals lie within the declaration's union, so the
            // difference is the time outside them.
            Some(TimeRow {
                count: evs.len() as u64,
                total_ns: total,
                self_ns: total.saturating_sub(in_tactics),
            })
        })
        .collect()
}

/// Finds the declaration whose range contains a given range.
pub(crate) struct DeclarationIndex<'a> {
    rec: &'a Recording,
    /// Declaration indices sorted by range start.
    by_start: Vec<usize>,
}

impl<'a> DeclarationIndex<'a> {
    pub(crate) fn new(rec: &'a Recording) -> Self {
        let mut by_start: Vec<usize> = (0..rec.header.declarations.len()).collect();
        by_start.sort_by_key(|&d| {
            let r = rec.header.declarations[d].range;
            (r.start_line, r.start_col)
        });
        DeclarationIndex { rec, by_start }
    }

    pub(crate) fn find(&self, r: &SourceRange) -> Option<usize> {
        let decls = &self.rec.header.declarations;
        let at = self.by_start.partition_point(|&d| {
            let s = decls[d].range;
            (s.start_line, s.start_col) <= (r.start_line, r.start_col)
        });
        // The nearest declarations starting at or before the range; the
        // first one that contains it wins.
        self.by_start[..at]
            .iter()
            .rev()
            .take(4)
            .copied()
            .find(|&d| decls[d].range.contains(r))
    }

    /// The declaration of each of the recording's ranges (by range id).
    pub(crate) fn owners_of_ranges(&self) -> Vec<Option<u32>> {
        self.rec
            .ranges
            .iter()
            .map(|r| self.find(r).map(|d| d as u32))
            .collect()
    }

    pub(crate) fn find_event(&self, i: u32) -> Option<usize> {
        self.rec.range(i).and_then(|r| self.find(&r))
    }
}

/// Time of one tactic source span.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TacticRow {
    pub range: SourceRange,
    pub range_kind: RangeKind,
    /// The tactic's text (of its first event).
    pub label: String,
    /// The declaration the span lies in, as an index into the header's.
    pub declaration: Option<usize>,
    /// The span's events.
    pub events: Vec<u32>,
    pub time: TimeRow,
}

/// Tactic spans with their times, in source order. Only spans Lean
/// reported or leanscope found in the source (exact or matched) count:
/// an inherited range is not the tactic's own span.
pub fn tactic_rows(rec: &Recording) -> Vec<TacticRow> {
    let mut by_range: std::collections::BTreeMap<(SourceRange, u32), Vec<u32>> = Default::default();
    for i in 0..rec.len() as u32 {
        let kind = rec.range_kind(i);
        if matches!(kind, RangeKind::Exact | RangeKind::Matched) && is_tactic(rec, i) {
            let id = rec.events.range[i as usize];
            if id != NO_RANGE {
                by_range
                    .entry((rec.ranges[id as usize], id))
                    .or_default()
                    .push(i);
            }
        }
    }
    let owner = DeclarationIndex::new(rec);
    let mut scratch = Vec::new();
    by_range
        .into_iter()
        .map(|((range, _), events)| {
            let first = events[0];
            let kind = if events
                .iter()
                .any(|&i| rec.range_kind(i) == RangeKind::Exact)
            {
                RangeKind::Exact
            } else {
                RangeKind::Matched
            };
            TacticRow {
                range,
                range_kind: kind,
                label: rec.label(first).to_owned(),
                declaration: owner.find_event(first),
                time: time_of_in(rec, &events, &mut scratch),
                events,
            }
        })
        .collect()
}

/// Timing bar of one source line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LineRow {
    /// 0-based line.
    pub line: u32,
    pub time: TimeRow,
}

/// Lines with events starting on them, in order.
pub fn line_rows(rec: &Recording) -> Vec<LineRow> {
    LineRowsBuilder::new(rec).finish(rec)
}

/// [`line_rows`] a part at a time: a viewer computes a big file's line bars in slices
/// of [`LineRowsBuilder::step`], so that a request arriving meanwhile is answered
/// between two of them, not after all of them.
#[derive(Debug)]
pub struct LineRowsBuilder {
    phase: Phase,
    rows: Vec<LineRow>,
    scratch: Vec<Interval>,
}

/// Events sorted by line in a step for each event timed: a pass of the sort takes
/// about a tenth of the time per event that timing takes (3,000,000 events natively:
/// 21 ms for both passes, 117 ms to time them).
const SORT_PER_TIMED: usize = 8;

#[derive(Debug)]
enum Phase {
    /// The events being sorted by line.
    Sorting(LineSort),
    /// Lines `..next` of `by_line` timed.
    Timing { by_line: LineEvents, next: usize },
}

impl LineRowsBuilder {
    /// Finds the lines `rec`'s ranges start on; no event is sorted by line yet.
    pub fn new(rec: &Recording) -> LineRowsBuilder {
        LineRowsBuilder {
            phase: Phase::Sorting(LineSort::new(rec)),
            rows: Vec::new(),
            scratch: Vec::new(),
        }
    }

    /// Sorts, then times, about `max_events` more events (a line's events are timed
    /// together); returns whether some are left. `rec` is the recording `new` was given.
    pub fn step(&mut self, rec: &Recording, max_events: usize) -> bool {
        let max = max_events.max(1);
        let (by_line, next) = match &mut self.phase {
            Phase::Sorting(sort) => {
                if !sort.step(rec, max.saturating_mul(SORT_PER_TIMED)) {
                    let by_line = std::mem::take(sort).finish();
                    self.rows.reserve(by_line.lines.len());
                    self.phase = Phase::Timing { by_line, next: 0 };
                }
                return true;
            }
            Phase::Timing { by_line, next } => (by_line, next),
        };
        let lines = by_line.lines.len();
        let mut done = 0usize;
        while *next < lines && done < max {
            let (line, events) = by_line.line(*next);
            *next += 1;
            if events.is_empty() {
                continue;
            }
            done += events.len();
            self.rows.push(LineRow {
                line,
                time: time_of_in(rec, events, &mut self.scratch),
            });
        }
        *next < lines
    }

    /// Every line's row (what is left is done now).
    pub fn finish(mut self, rec: &Recording) -> Vec<LineRow> {
        while self.step(rec, usize::MAX) {}
        self.rows
    }
}

/// The events that belong to each source line (those whose range starts on
/// it), in event order; lines in order.
pub fn events_by_line(rec: &Recording) -> std::collections::BTreeMap<u32, Vec<u32>> {
    LineEvents::of(rec)
        .iter()
        .map(|(line, events)| (line, events.to_vec()))
        .collect()
}

/// The events of each line with events, in one list: line `lines[k]` has
/// `events[starts[k]..starts[k + 1]]`. (One allocation, not one per line.)
#[derive(Debug)]
struct LineEvents {
    lines: Vec<u32>,
    starts: Vec<usize>,
    events: Vec<u32>,
}

impl LineEvents {
    fn of(rec: &Recording) -> Self {
        let mut sort = LineSort::new(rec);
        while sort.step(rec, usize::MAX) {}
        sort.finish()
    }

    /// Each line with events and its events.
    fn iter(&self) -> impl Iterator<Item = (u32, &[u32])> + '_ {
        (0..self.lines.len())
            .map(|k| self.line(k))
            .filter(|(_, events)| !events.is_empty())
    }

    /// The `k`th line in use and its events (none when only events of no range use it).
    fn line(&self, k: usize) -> (u32, &[u32]) {
        (
            self.lines[k],
            &self.events[self.starts[k]..self.starts[k + 1]],
        )
    }
}

/// [`LineEvents`] being built: events share ranges, so the lines in use (in order) and
/// each range's place among them come first; then the events are counted by line, and
/// placed, a slice at a time.
#[derive(Debug, Default)]
struct LineSort {
    lines: Vec<u32>,
    slot_of_range: Vec<u32>,
    starts: Vec<usize>,
    /// Where each line's next event goes, once every event is counted.
    next: Vec<usize>,
    events: Vec<u32>,
    counted: usize,
    placed: usize,
}

impl LineSort {
    fn new(rec: &Recording) -> LineSort {
        let mut lines: Vec<u32> = rec.ranges.iter().map(|r| r.start_line).collect();
        lines.sort_unstable();
        lines.dedup();
        let slot_of_range: Vec<u32> = rec
            .ranges
            .iter()
            .map(|r| lines.partition_point(|&l| l < r.start_line) as u32)
            .collect();
        LineSort {
            starts: vec![0; lines.len() + 1],
            lines,
            slot_of_range,
            next: Vec::new(),
            events: Vec::new(),
            counted: 0,
            placed: 0,
        }
    }

    /// Counts, then places, up to `max` more events; returns whether some are left.
    fn step(&mut self, rec: &Recording, max: usize) -> bool {
        let ranges = &rec.events.range;
        let slot_of_range = &self.slot_of_range;
        let slot = |r: u32| slot_of_range.get(r as usize).map(|&s| s as usize);
        if self.counted < ranges.len() {
            let to = ranges.len().min(self.counted.saturating_add(max));
            for &r in &ranges[self.counted..to] {
                if let Some(s) = slot(r) {
                    self.starts[s + 1] += 1;
                }
            }
            self.counted = to;
            if to < ranges.len() {
                return true;
            }
            for k in 1..self.starts.len() {
                self.starts[k] += self.starts[k - 1];
            }
            self.next = self.starts.clone();
            self.events = vec![0u32; self.starts[self.lines.len()]];
            return true;
        }
        let to = ranges.len().min(self.placed.saturating_add(max));
        for (i, &r) in ranges.iter().enumerate().take(to).skip(self.placed) {
            if let Some(s) = slot(r) {
                self.events[self.next[s]] = i as u32;
                self.next[s] += 1;
            }
        }
        self.placed = to;
        to < ranges.len()
    }

    fn finish(self) -> LineEvents {
        LineEvents {
            lines: self.lines,
            starts: self.starts,
            events: self.events,
        }
    }
}

/// The union of `events`' intervals and of their self pieces.
pub(crate) fn time_of(rec: &Recording, events: &[u32]) -> TimeRow {
    time_of_in(rec, events, &mut Vec::new())
}

/// [`time_of`] with a scratch list, for many calls in a row.
fn time_of_in(rec: &Recording, events: &[u32], scratch: &mut Vec<Interval>) -> TimeRow {
    scratch.clear();
    scratch.extend(events.iter().map(|&i| rec.interval(i)));
    let total = union_ns(scratch);
    scratch.clear();
    for &i in events {
        self_pieces(rec, i, scratch);
    }
    TimeRow {
        count: events.len() as u64,
        total_ns: total,
        self_ns: union_ns(scratch),
    }
}

/// Time of the whole file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct FileTime {
    /// Lean's elapsed time for the file, imports included, when known.
    pub elapsed_ns: Option<u64>,
    /// The union of all recorded top-level intervals.
    pub traced_ns: u64,
}

pub fn file_time(rec: &Recording) -> FileTime {
    FileTime {
        elapsed_ns: rec.header.elapsed_ns,
        traced_ns: rec.traced_ns(),
    }
}
