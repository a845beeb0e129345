//! Interval math: unions, self times and self pieces.
//!
//! Inclusive time is an event's interval. Self time is the inclusive time
//! minus the union of the event's immediate same-thread children, each
//! clipped to the parent. Children on other threads stay linked but are
//! never subtracted. Times that overlap are never added twice: aggregates
//! take unions.

use super::Recording;

/// A half-open time interval `[start, end)` in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Interval {
    pub start: u64,
    pub end: u64,
}

impl Interval {
    pub fn new(start: u64, end: u64) -> Self {
        Interval { start, end }
    }

    pub fn len(&self) -> u64 {
        self.end.saturating_sub(self.start)
    }

    pub fn is_empty(&self) -> bool {
        self.end <= self.start
    }
}

/// Length of the union of `intervals` (sorted in place).
pub fn union_ns(intervals: &mut [Interval]) -> u64 {
    intervals.sort_unstable();
    let mut total = 0;
    let mut current: Option<Interval> = None;
    for iv in intervals.iter().filter(|iv| !iv.is_empty()) {
        match &mut current {
            Some(c) if iv.start <= c.end => c.end = c.end.max(iv.end),
            _ => {
                if let Some(c) = current {
                    total += c.len();
                }
                current = Some(*iv);
            }
        }
    }
    total + current.map_or(0, |c| c.len())
}

/// Self time of event `i`: its interval minus the union of its
/// same-thread children, each clipped to it. Children usually come in
/// start order without overlapping each other: then the union is the sum
/// of their lengths, summed on the way; otherwise [`self_time`] sorts.
pub(super) fn self_ns(rec: &Recording, i: u32) -> u64 {
    let parent = rec.interval(i);
    let thread = rec.thread(i);
    let mut covered = 0u64;
    let mut at = parent.start;
    for &c in rec.children(i) {
        if rec.thread(c) != thread {
            continue;
        }
        let iv = rec.interval(c);
        let (s, e) = (iv.start.max(parent.start), iv.end.min(parent.end));
        if e <= s {
            continue;
        }
        if s < at {
            return self_time(rec, i, &mut Vec::new());
        }
        covered += e - s;
        at = e;
    }
    parent.len() - covered
}

/// Self time of event `i` by the definition (see [`self_ns`]).
pub(super) fn self_time(rec: &Recording, i: u32, scratch: &mut Vec<Interval>) -> u64 {
    let parent = rec.interval(i);
    let thread = rec.thread(i);
    scratch.clear();
    scratch.extend(
        rec.children(i)
            .iter()
            .filter(|&&c| rec.thread(c) == thread)
            .map(|&c| {
                let iv = rec.interval(c);
                Interval::new(iv.start.max(parent.start), iv.end.min(parent.end))
            }),
    );
    parent.len().saturating_sub(union_ns(scratch))
}

/// Appends the pieces of event `i`'s interval that no same-thread child
/// covers (its self time, as intervals).
pub fn self_pieces(rec: &Recording, i: u32, out: &mut Vec<Interval>) {
    let parent = rec.interval(i);
    let thread = rec.thread(i);
    let kids = rec
        .children(i)
        .iter()
        .filter(move |&&c| rec.thread(c) == thread)
        .map(move |&c| {
            let iv = rec.interval(c);
            Interval::new(iv.start.max(parent.start), iv.end.min(parent.end))
        })
        .filter(|iv| !iv.is_empty());
    // Usually the children come in start order already: no scratch list.
    if kids.clone().map(|k| k.start).is_sorted() {
        gaps(parent, kids, out);
    } else {
        let mut sorted: Vec<Interval> = kids.collect();
        sorted.sort_unstable();
        gaps(parent, sorted.into_iter(), out);
    }
}

/// Appends the parts of `parent` that none of `kids` (clipped to it, by
/// start) covers.
fn gaps(parent: Interval, kids: impl Iterator<Item = Interval>, out: &mut Vec<Interval>) {
    let mut at = parent.start;
    for k in kids {
        if k.start > at {
            out.push(Interval::new(at, k.start));
        }
        at = at.max(k.end);
    }
    if parent.end > at {
        out.push(Interval::new(at, parent.end));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn union_merges_overlaps_and_touching() {
        let mut v = vec![
            Interval::new(10, 20),
            Interval::new(0, 5),
            Interval::new(15, 30),
            Interval::new(30, 31),
            Interval::new(7, 7),
        ];
        assert_eq!(union_ns(&mut v), 5 + 21);
        assert_eq!(union_ns(&mut []), 0);
    }
}
