//! What a viewer walks: the events that make up a declaration's or a
//! line's time, event depths, and time shares. The attribution rules are
//! the ones of [`super::aggregate`] (a declaration owns the events whose
//! range lies inside it; a line owns the events whose range starts on it).

use super::aggregate::DeclarationIndex;
use super::Recording;
use crate::columns::{NO_PARENT, NO_RANGE};

/// True when event `i` is not covered by its parent: it has none, its
/// parent is not `owned`, or it runs on another thread (an asynchronous
/// proof may outlive the command that started it).
fn uncovered(rec: &Recording, i: u32, owned: impl Fn(u32) -> bool) -> bool {
    match rec.parent(i) {
        None => true,
        Some(p) => !owned(p) || rec.thread(p) != rec.thread(i),
    }
}

/// The operations that make up declaration `d`'s time: the events whose
/// range lies inside the declaration and that their parent does not cover
/// (the topmost contributors on each thread), slowest first. Their union is
/// the declaration's time when same-thread children lie inside their
/// parents (see the validation issues).
pub fn declaration_operations(rec: &Recording, d: usize) -> Vec<u32> {
    // Events share ranges: each range's owner once, then a lookup per event.
    let owners = DeclarationIndex::new(rec).owners_of_ranges();
    let owned = |i: u32| {
        let id = rec.events.range[i as usize];
        id != NO_RANGE && owners[id as usize] == Some(d as u32)
    };
    let mut out: Vec<u32> = (0..rec.len() as u32)
        .filter(|&i| owned(i) && uncovered(rec, i, owned))
        .collect();
    sort_slowest_first(rec, &mut out);
    out
}

/// The declaration (index into the header's) that owns event `i`.
pub fn declaration_of_event(rec: &Recording, i: u32) -> Option<usize> {
    DeclarationIndex::new(rec).find_event(i)
}

/// The operations that make up 0-based `line`'s bar: the events whose range
/// starts on the line and that their parent does not cover (as for
/// [`declaration_operations`]), slowest first.
pub fn line_operations(rec: &Recording, line: u32) -> Vec<u32> {
    let starts_here = |i: u32| rec.range(i).is_some_and(|r| r.start_line == line);
    let mut out: Vec<u32> = (0..rec.len() as u32)
        .filter(|&i| starts_here(i) && uncovered(rec, i, starts_here))
        .collect();
    sort_slowest_first(rec, &mut out);
    out
}

/// Children of event `i`, slowest first.
pub fn children_slowest_first(rec: &Recording, i: u32) -> Vec<u32> {
    let mut out = rec.children(i).to_vec();
    sort_slowest_first(rec, &mut out);
    out
}

fn sort_slowest_first(rec: &Recording, events: &mut [u32]) {
    events.sort_by(|&a, &b| {
        rec.inclusive_ns(b)
            .cmp(&rec.inclusive_ns(a))
            .then(a.cmp(&b))
    });
}

/// Depth of every event (roots have depth 0), saturating at `u16::MAX`.
pub fn depths(rec: &Recording) -> Vec<u16> {
    let mut depth = vec![0u16; rec.len()];
    for i in 0..rec.len() {
        let p = rec.events.parent[i];
        if p != NO_PARENT {
            depth[i] = depth[p as usize].saturating_add(1);
        }
    }
    depth
}

/// The ancestors of event `i`, from its root down to its parent.
pub fn ancestors(rec: &Recording, i: u32) -> Vec<u32> {
    let mut out = Vec::new();
    let mut at = rec.parent(i);
    while let Some(p) = at {
        out.push(p);
        at = rec.parent(p);
    }
    out.reverse();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{declaration_times, line_rows, union_ns, Interval};
    use crate::synth::{synthetic_bytes, SynthParams};

    fn synth() -> Recording {
        let bytes = synthetic_bytes(&SynthParams {
            seed: 7,
            events: 2_000,
            threads: 3,
        })
        .unwrap();
        Recording::from_bytes(&bytes).unwrap()
    }

    #[test]
    fn declaration_operations_cover_the_declaration_time() {
        let rec = synth();
        let times = declaration_times(&rec);
        for (d, t) in times.iter().enumerate() {
            let ops = declaration_operations(&rec, d);
            let mut ivs: Vec<Interval> = ops.iter().map(|&i| rec.interval(i)).collect();
            // The topmost events' union is the declaration's union: every
            // other owned event lies inside one of them.
            assert_eq!(
                t.map(|t| t.total_ns),
                (!ops.is_empty()).then(|| union_ns(&mut ivs))
            );
            for w in ops.windows(2) {
                assert!(rec.inclusive_ns(w[0]) >= rec.inclusive_ns(w[1]));
            }
            for &i in &ops {
                assert_eq!(declaration_of_event(&rec, i), Some(d));
            }
        }
    }

    #[test]
    fn line_operations_cover_the_line_bar() {
        let rec = synth();
        for row in line_rows(&rec).iter().take(50) {
            let ops = line_operations(&rec, row.line);
            let mut ivs: Vec<Interval> = ops.iter().map(|&i| rec.interval(i)).collect();
            assert_eq!(union_ns(&mut ivs), row.time.total_ns, "line {}", row.line);
        }
    }

    #[test]
    fn depths_and_ancestors_agree() {
        let rec = synth();
        let d = depths(&rec);
        for i in (0..rec.len() as u32).step_by(37) {
            assert_eq!(ancestors(&rec, i).len(), d[i as usize] as usize);
        }
        assert_eq!(u32::from(*d.iter().max().unwrap()) + 1, rec.max_depth());
    }
}
