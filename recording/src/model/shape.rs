//! The shape of the forest, worked out batch by batch as events arrive (a
//! parent always comes before its children): each event's depth, the
//! deepest depth on each thread, the time window and the roots' traced
//! time. A viewer streaming a recording gets this
//! done while it waits for the next bytes, not after the last one.

use super::timing::{union_ns, Interval};
use super::Events;
use crate::columns::NO_PARENT;

#[derive(Debug, Default, Clone)]
pub(super) struct Shape {
    /// Depth of each event seen (roots 0), saturating at `u16::MAX`.
    pub depth: Vec<u16>,
    /// The deepest depth on each thread (by thread index), if any event.
    pub thread_depth: Vec<Option<u16>>,
    /// Earliest start and latest end.
    pub window: Option<Interval>,
    /// Root intervals, merged into disjoint ones now and then.
    roots: Vec<Interval>,
    merged_roots: usize,
}

impl Shape {
    pub fn with_capacity(events: usize) -> Self {
        Shape {
            depth: Vec::with_capacity(events),
            ..Shape::default()
        }
    }

    /// Takes in the events after those seen so far.
    pub fn extend(&mut self, events: &Events, threads: usize) {
        let (from, to) = (self.depth.len(), events.len());
        if from >= to {
            return;
        }
        if self.thread_depth.len() < threads.max(1) {
            self.thread_depth.resize(threads.max(1), None);
        }
        // Slots made beforehand and slices of one length: the loop below
        // has no capacity checks and few bounds checks.
        self.depth.resize(to, 0);
        let (parent, start, duration, thread) = (
            &events.parent[..to],
            &events.start[..to],
            &events.duration[..to],
            &events.thread[..to],
        );
        let depth = &mut self.depth[..to];
        let (mut lo, mut hi) = self.window.map_or((u64::MAX, 0), |w| (w.start, w.end));
        for i in from..to {
            let p = parent[i];
            let (s, e) = (start[i], start[i] + duration[i]);
            lo = lo.min(s);
            hi = hi.max(e);
            let d = if p == NO_PARENT {
                self.roots.push(Interval::new(s, e));
                0
            } else {
                depth[p as usize].saturating_add(1)
            };
            depth[i] = d;
            if let Some(m) = self.thread_depth.get_mut(thread[i] as usize) {
                *m = Some(m.map_or(d, |m| m.max(d)));
            }
        }
        self.window = Some(Interval::new(lo, hi));
        if self.roots.len() > 2 * self.merged_roots + 1024 {
            self.merge_roots();
        }
    }

    /// Sorts the roots and merges overlapping ones: the union stays the
    /// same and the list stays as short as the union's pieces.
    fn merge_roots(&mut self) {
        self.roots.sort_unstable();
        let mut out: Vec<Interval> = Vec::with_capacity(self.roots.len());
        for &iv in &self.roots {
            match out.last_mut() {
                Some(last) if iv.start <= last.end => last.end = last.end.max(iv.end),
                _ => out.push(iv),
            }
        }
        self.roots = out;
        self.merged_roots = self.roots.len();
    }

    /// What the finished recording keeps (the depths go).
    pub fn finish(mut self) -> FinishedShape {
        FinishedShape {
            thread_depth: self.thread_depth,
            window: self.window,
            traced_ns: union_ns(&mut self.roots),
        }
    }
}

/// See [`Shape::finish`].
pub(super) struct FinishedShape {
    pub thread_depth: Vec<Option<u16>>,
    pub window: Option<Interval>,
    /// The union of the roots' intervals.
    pub traced_ns: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Events with many roots (so the roots are merged along the way),
    /// out of start order, on three threads.
    fn events(n: u32) -> Events {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        let mut e = Events::default();
        for i in 0..n {
            e.parent.push(if i == 0 || next(3) == 0 {
                NO_PARENT
            } else {
                next(u64::from(i)) as u32
            });
            e.start.push(next(1_000_000));
            e.duration.push(next(500));
            e.thread.push(next(3) as u16);
        }
        e
    }

    #[test]
    fn batch_by_batch_equals_the_definitions() {
        let e = events(20_000);
        let mut shape = Shape::default();
        let mut seen = Events::default();
        let mut at = 0;
        for step in [1, 7, 1000, 3000, 5000, 10_992] {
            for i in at..at + step {
                seen.parent.push(e.parent[i]);
                seen.start.push(e.start[i]);
                seen.duration.push(e.duration[i]);
                seen.thread.push(e.thread[i]);
            }
            at += step;
            shape.extend(&seen, 3);
        }
        assert_eq!(at, e.len());
        assert!(shape.merged_roots > 0, "the roots were never merged");
        let mut depth = vec![0u16; e.len()];
        let mut deepest = vec![None; 3];
        let mut roots = Vec::new();
        for i in 0..e.len() {
            let p = e.parent[i];
            if p == NO_PARENT {
                roots.push(Interval::new(e.start[i], e.start[i] + e.duration[i]));
            } else {
                depth[i] = depth[p as usize] + 1;
            }
            let m: &mut Option<u16> = &mut deepest[e.thread[i] as usize];
            *m = Some(m.map_or(depth[i], |m| m.max(depth[i])));
        }
        assert_eq!(shape.depth, depth);
        let shape = shape.finish();
        assert_eq!(shape.thread_depth, deepest);
        let lo = e.start.iter().min().copied().unwrap();
        let hi = (0..e.len())
            .map(|i| e.start[i] + e.duration[i])
            .max()
            .unwrap();
        assert_eq!(shape.window, Some(Interval::new(lo, hi)));
        assert_eq!(shape.traced_ns, union_ns(&mut roots));
    }
}
