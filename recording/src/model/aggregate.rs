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
    let by_line = LineEvents::of(rec);
    let mut scratch = Vec::new();
    by_line
        .iter()
        .map(|(line, events)| LineRow {
            line,
            time: time_of_in(rec, events, &mut scratch),
        })
        .collect()
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
struct LineEvents {
    lines: Vec<u32>,
    starts: Vec<usize>,
    events: Vec<u32>,
}

impl LineEvents {
    fn of(rec: &Recording) -> Self {
        // Events share ranges: the lines in use, in order, and each range's
        // place among them; then the events counted and placed by it.
        let mut lines: Vec<u32> = rec.ranges.iter().map(|r| r.start_line).collect();
        lines.sort_unstable();
        lines.dedup();
        let slot_of_range: Vec<u32> = rec
            .ranges
            .iter()
            .map(|r| lines.partition_point(|&l| l < r.start_line) as u32)
            .collect();
        let slot = |r: u32| slot_of_range.get(r as usize).map(|&s| s as usize);
        let mut starts = vec![0usize; lines.len() + 1];
        for &r in &rec.events.range {
            if let Some(s) = slot(r) {
                starts[s + 1] += 1;
            }
        }
        for k in 1..starts.len() {
            starts[k] += starts[k - 1];
        }
        let mut next = starts.clone();
        let mut events = vec![0u32; starts[lines.len()]];
        for (i, &r) in rec.events.range.iter().enumerate() {
            if let Some(s) = slot(r) {
                events[next[s]] = i as u32;
                next[s] += 1;
            }
        }
        LineEvents {
            lines,
            starts,
            events,
        }
    }

    /// Each line with events and its events.
    fn iter(&self) -> impl Iterator<Item = (u32, &[u32])> + '_ {
        (self.lines.iter().enumerate())
            .map(|(k, &line)| (line, &self.events[self.starts[k]..self.starts[k + 1]]))
            .filter(|(_, events)| !events.is_empty())
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
