//! Validation issues, worked out as events arrive, and the children
//! lists, linked at the end.
//!
//! Each arriving event is checked against its parent (a same-thread child
//! must lie within it), against its elder sibling and its range against
//! the source text. A parent's children usually come on one thread, in
//! start order and without overlapping each other, which is what a
//! profiler writes; a parent whose children break that is marked, and at
//! the end its children get the full check by thread (`validate`; the
//! tests hold this pass to it). Self times are not stored:
//! `timing::self_ns` works one out when asked.

use super::timing::Interval;
use super::validate::{
    check_siblings_by_thread, outside_parent, range_outside, Issues, SourceLines,
};
use super::Recording;
use crate::columns::{Columns, NO_PARENT, NO_RANGE};

/// `Sweep::latest_child` of an event without children yet.
const NO_CHILD: u32 = u32::MAX;
/// `Sweep::latest_child` of an event whose children need the full check.
const IRREGULAR: u32 = u32::MAX - 1;

/// What the events seen so far imply, kept as batches arrive.
#[derive(Debug, Default)]
pub(super) struct Sweep {
    /// Per event: its latest child so far, [`NO_CHILD`] or [`IRREGULAR`].
    latest_child: Vec<u32>,
    /// The events marked [`IRREGULAR`], each once.
    irregular: Vec<u32>,
    issues: Issues,
    lines: SourceLines,
    /// Per range id: whether it fits the source text.
    fits: Vec<bool>,
}

impl Sweep {
    pub fn new(source: &str, events: usize) -> Self {
        Sweep {
            latest_child: Vec::with_capacity(events + 1),
            lines: SourceLines::new(source),
            ..Sweep::default()
        }
    }

    /// Takes in the events (and ranges) after those seen so far.
    pub fn extend(&mut self, columns: &Columns) {
        for r in &columns.ranges[self.fits.len().min(columns.ranges.len())..] {
            self.fits.push(self.lines.fit(r));
        }
        let e = &columns.events;
        let (from, to) = (self.latest_child.len(), e.len());
        if from >= to {
            return;
        }
        // Slots made beforehand and slices of one length: the loop below
        // has no capacity checks and few bounds checks.
        self.latest_child.resize(to, NO_CHILD);
        let (parent, start, duration, thread, range) = (
            &e.parent[..to],
            &e.start[..to],
            &e.duration[..to],
            &e.thread[..to],
            &e.range[..to],
        );
        let latest_child = &mut self.latest_child[..to];
        for i in from..to {
            let r = range[i];
            if r != NO_RANGE && !self.fits[r as usize] {
                range_outside(&mut self.issues, i as u32, columns.ranges[r as usize]);
            }
            let p = parent[i];
            if p == NO_PARENT {
                continue;
            }
            let pu = p as usize;
            let (s, e) = (start[i], start[i] + duration[i]);
            if thread[pu] == thread[i] && (s < start[pu] || e > start[pu] + duration[pu]) {
                let (iv, piv) = (
                    Interval::new(s, e),
                    Interval::new(start[pu], start[pu] + duration[pu]),
                );
                outside_parent(&mut self.issues, i as u32, iv, p, piv);
            }
            let regular = match latest_child[pu] {
                IRREGULAR => continue,
                NO_CHILD => true,
                // On the same thread as its elder sibling, starting after
                // it ended.
                c => {
                    let c = c as usize;
                    thread[c] == thread[i] && s >= start[c] + duration[c]
                }
            };
            latest_child[pu] = if regular {
                i as u32
            } else {
                self.irregular.push(p);
                IRREGULAR
            };
        }
    }

    /// Pages in the per-event slots' reserved room for events still to
    /// come; see [`super::RecordingBuilder::page_in_room`].
    pub fn page_in_room(&mut self, touched: &mut usize, budget: &mut usize) -> bool {
        crate::columns::touch_room(&mut self.latest_child, touched, budget)
    }

    /// Hands over the memory of the per-event slots, which only arriving
    /// events need (the children lists are built in it).
    pub fn take_slots(&mut self) -> Vec<u32> {
        std::mem::take(&mut self.latest_child)
    }

    /// The issues of `rec` (its events are those seen and its children
    /// linked), after the children of the marked events got the full
    /// check.
    pub fn finish(self, rec: &Recording) -> Issues {
        let mut issues = self.issues;
        for p in self.irregular {
            check_siblings_by_thread(rec, rec.children(p), &mut issues);
        }
        issues.kept.sort_by_key(|i| (i.event, i.kind));
        issues
    }
}

/// Runs `pass(from, to)` over `0..n` in blocks of [`BLOCK`] items. A pass
/// over all events that runs once per load goes in blocks: a WebAssembly
/// engine (V8) swaps in a function's optimized code between calls, not
/// during one, so a single call over millions of events would run in its
/// baseline code throughout.
fn in_blocks(n: usize, mut pass: impl FnMut(usize, usize)) {
    let mut from = 0;
    while from < n {
        let to = (from + BLOCK).min(n);
        pass(from, to);
        from = to;
    }
}

/// Items per call of [`in_blocks`]'s pass.
const BLOCK: usize = 1 << 14;

/// Children lists in compressed form: the children of `i` are
/// `children[offsets[i]..offsets[i + 1]]`, in event order. `slots` is
/// memory to build the offsets in (its contents do not matter), to keep
/// peak memory low.
pub(super) fn link_children(parent: &[u32], slots: Vec<u32>) -> (Vec<u32>, Vec<u32>) {
    let n = parent.len();
    let mut offsets = slots;
    offsets.clear();
    offsets.resize(n + 1, 0);
    in_blocks(n, |from, to| {
        count_children(&parent[from..to], &mut offsets)
    });
    // Inclusive prefix sums: offsets[p] is the end of p's children.
    let mut sum = 0u32;
    in_blocks(n + 1, |from, to| {
        sum = prefix_sums(&mut offsets[from..to], sum)
    });
    let mut children = vec![0u32; sum as usize];
    // Filling back to front leaves offsets[p] at the start of p's children
    // and keeps each list in event order.
    in_blocks(n, |from, to| {
        let (from, to) = (n - to, n - from);
        fill_children(parent, from..to, &mut offsets, &mut children)
    });
    (offsets, children)
}

/// Counts the children of the parents of `parents` into `counts`.
#[inline(never)]
fn count_children(parents: &[u32], counts: &mut [u32]) {
    for &p in parents {
        if p != NO_PARENT {
            counts[p as usize] += 1;
        }
    }
}

/// Turns `counts` into running sums after `sum`; returns the last.
#[inline(never)]
fn prefix_sums(counts: &mut [u32], mut sum: u32) -> u32 {
    for o in counts.iter_mut() {
        sum += *o;
        *o = sum;
    }
    sum
}

/// Files the events of `events` (back to front) under their parents.
#[inline(never)]
fn fill_children(
    parent: &[u32],
    events: std::ops::Range<usize>,
    offsets: &mut [u32],
    children: &mut [u32],
) {
    for i in events.rev() {
        let p = parent[i];
        if p != NO_PARENT {
            let slot = &mut offsets[p as usize];
            *slot -= 1;
            children[*slot as usize] = i as u32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::timing::self_time;
    use super::*;
    use crate::model::RecordingBuilder;
    use crate::types::{Header, RangeKind, SourceRange};

    /// A random forest: parents anywhere before, children on two threads,
    /// in and out of start order, overlapping, sticking out of their
    /// parents, with ranges that fit the source and ranges that do not.
    fn random_recording(seed: u64, n: u32, batch: usize) -> Recording {
        let mut x = seed | 1;
        let mut next = move |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        let header = Header {
            source_text: "theorem a : True := by\n  trivial\n".into(),
            ..Header::default()
        };
        let mut b = RecordingBuilder::new(header);
        for i in 0..n {
            let cols = b.columns_mut();
            if i == 0 {
                cols.strings.push("x");
                cols.ranges.push(SourceRange::new(0, 0, 1, 9));
                cols.ranges.push(SourceRange::new(0, 0, 5, 0));
            }
            let e = &mut cols.events;
            let parent = if i == 0 || next(8) == 0 {
                NO_PARENT
            } else if next(2) == 0 {
                i - 1
            } else {
                next(u64::from(i)) as u32
            };
            let start = match parent {
                NO_PARENT => next(1000),
                p if next(10) == 0 => e.start[p as usize].saturating_sub(next(5)),
                p => e.start[p as usize] + next(e.duration[p as usize] + 2),
            };
            e.parent.push(parent);
            e.class.push(0);
            e.label.push(0);
            e.start.push(start);
            e.duration.push(next(300));
            e.thread.push(if next(6) == 0 { 1 } else { 0 });
            let range = next(3) as u32;
            e.range.push(if range == 2 { NO_RANGE } else { range });
            e.range_kind.push(if range == 2 {
                RangeKind::None
            } else {
                RangeKind::Exact
            });
            if (i as usize + 1).is_multiple_of(batch) {
                b.take_in();
            }
        }
        b.finish()
    }

    #[test]
    fn as_events_arrive_agrees_with_the_definitions() {
        for seed in 1..40 {
            let rec = random_recording(seed * 7919, 400, 1 + seed as usize * 3);
            let lines = SourceLines::new(&rec.header.source_text);
            let mut expected = Issues::default();
            let mut scratch = Vec::new();
            for i in 0..rec.len() as u32 {
                let iv = rec.interval(i);
                if let Some(p) = rec.parent(i) {
                    let piv = rec.interval(p);
                    if rec.thread(p) == rec.thread(i) && (iv.start < piv.start || iv.end > piv.end)
                    {
                        outside_parent(&mut expected, i, iv, p, piv);
                    }
                }
                if let Some(r) = rec.range(i).filter(|r| !lines.fit(r)) {
                    range_outside(&mut expected, i, r);
                }
                check_siblings_by_thread(&rec, rec.children(i), &mut expected);
                assert_eq!(
                    rec.self_ns(i),
                    self_time(&rec, i, &mut scratch),
                    "event {i}"
                );
            }
            assert!(expected.count > 0, "seed {seed} found no issues");
            expected.kept.sort_by_key(|i| (i.event, i.kind));
            assert_eq!(rec.issue_count, expected.count);
            assert_eq!(rec.issues, expected.kept);
        }
    }
}
