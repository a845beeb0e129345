//! Validation of the event forest, in the spirit of LeanProfiler's checks.
//!
//! A parent before its child and well-formed intervals are guaranteed by
//! the reader, which refuses files that break them. What remains is
//! collected here as issues, and analysis goes on: the numbers of a
//! recording with issues are still computed by the same rules.

use serde::Serialize;

use super::Recording;
use crate::reader::NO_RANGE;

/// Issues kept with their details; further ones are only counted.
pub const MAX_REPORTED_ISSUES: usize = 1000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum IssueKind {
    /// A same-thread child's interval is not inside its parent's.
    ChildOutsideParent,
    /// Two same-thread siblings overlap in time.
    OverlappingSiblings,
    /// A source range whose start comes after its end, or that lies past
    /// the end of the embedded source text.
    RangeOutsideSource,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ValidationIssue {
    pub kind: IssueKind,
    pub event: u32,
    pub detail: String,
}

impl std::fmt::Display for ValidationIssue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "event {}: {}", self.event, self.detail)
    }
}

pub(super) fn validate(rec: &Recording) -> (Vec<ValidationIssue>, u64) {
    let mut issues = Vec::new();
    let mut count = 0u64;
    let mut report = |kind, event, detail: &dyn Fn() -> String| {
        count += 1;
        if issues.len() < MAX_REPORTED_ISSUES {
            issues.push(ValidationIssue {
                kind,
                event,
                detail: detail(),
            });
        }
    };
    let fits = ranges_that_fit(rec);
    let mut siblings: Vec<u32> = Vec::new();
    for i in 0..rec.len() as u32 {
        let iv = rec.interval(i);
        if let Some(p) = rec.parent(i) {
            let piv = rec.interval(p);
            if rec.thread(p) == rec.thread(i) && (iv.start < piv.start || iv.end > piv.end) {
                report(IssueKind::ChildOutsideParent, i, &|| {
                    format!(
                        "[{}, {}) ns lies outside its parent {} [{}, {}) on the same thread",
                        iv.start, iv.end, p, piv.start, piv.end
                    )
                });
            }
        }
        let range = rec.events.range[i as usize];
        if range != NO_RANGE && !fits[range as usize] {
            if let Some(r) = rec.range(i) {
                report(IssueKind::RangeOutsideSource, i, &|| {
                    format!(
                        "range {}:{}-{}:{} does not fit the source text",
                        r.start_line, r.start_col, r.end_line, r.end_col
                    )
                });
            }
        }
        // Same-thread siblings, in start order: each must start after the
        // ones before it ended. Usually one thread and already in order.
        let kids = rec.children(i);
        if kids.len() > 1 {
            let one_thread = kids.iter().all(|&c| rec.thread(c) == rec.thread(kids[0]));
            let in_order = kids.windows(2).all(|w| rec.start(w[0]) <= rec.start(w[1]));
            if one_thread && in_order {
                check_siblings(rec, kids.iter().copied(), &mut report);
            } else {
                for thread in distinct_threads(rec, kids) {
                    siblings.clear();
                    siblings.extend(kids.iter().copied().filter(|&c| rec.thread(c) == thread));
                    siblings.sort_by_key(|&c| (rec.start(c), c));
                    check_siblings(rec, siblings.iter().copied(), &mut report);
                }
            }
        }
    }
    (issues, count)
}

/// For each of the recording's ranges (by id), whether it is well formed
/// and lies inside the source text (columns in UTF-16 code units). Events
/// share ranges, so each is checked once.
fn ranges_that_fit(rec: &Recording) -> Vec<bool> {
    if rec.ranges.is_empty() {
        return Vec::new();
    }
    let line_lengths: Vec<u32> = rec
        .header
        .source_text
        .split('\n')
        .map(|l| {
            if l.is_ascii() {
                l.len() as u32
            } else {
                l.encode_utf16().count() as u32
            }
        })
        .collect();
    let fits_line = |line: u32, col: u32| {
        line_lengths
            .get(line as usize)
            .is_some_and(|&len| col <= len)
    };
    rec.ranges
        .iter()
        .map(|r| {
            r.is_well_formed()
                && fits_line(r.end_line, r.end_col)
                && fits_line(r.start_line, r.start_col)
        })
        .collect()
}

/// Reports each sibling (given in start order) that starts before an
/// earlier one ended.
fn check_siblings(
    rec: &Recording,
    siblings: impl Iterator<Item = u32>,
    report: &mut impl FnMut(IssueKind, u32, &dyn Fn() -> String),
) {
    let mut reach: Option<(u64, u32)> = None;
    for c in siblings {
        if let Some((end, prev)) = reach {
            if rec.start(c) < end {
                report(IssueKind::OverlappingSiblings, c, &|| {
                    format!("overlaps its earlier sibling {prev} on the same thread")
                });
            }
        }
        if reach.is_none_or(|(end, _)| rec.end(c) > end) {
            reach = Some((rec.end(c), c));
        }
    }
}

fn distinct_threads(rec: &Recording, kids: &[u32]) -> Vec<u16> {
    let mut t: Vec<u16> = kids.iter().map(|&c| rec.thread(c)).collect();
    t.sort_unstable();
    t.dedup();
    t
}
