//! Validation of the event forest, in the spirit of LeanProfiler's checks.
//!
//! A parent before its child and well-formed intervals are guaranteed by
//! the reader, which refuses files that break them. What remains is
//! collected here as issues, and analysis goes on: the numbers of a
//! recording with issues are still computed by the same rules.

use serde::Serialize;

use super::timing::Interval;
use super::Recording;
use crate::limits::MAX_REPORTED_ISSUES;
use crate::types::SourceRange;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
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

/// Issues as they are found: the first [`MAX_REPORTED_ISSUES`] with their
/// details, all of them counted.
#[derive(Debug, Default)]
pub(super) struct Issues {
    pub kept: Vec<ValidationIssue>,
    pub count: u64,
}

impl Issues {
    pub fn report(&mut self, kind: IssueKind, event: u32, detail: &dyn Fn() -> String) {
        self.count += 1;
        if self.kept.len() < MAX_REPORTED_ISSUES {
            self.kept.push(ValidationIssue {
                kind,
                event,
                detail: detail(),
            });
        }
    }
}

/// Reports event `i` (interval `iv`) lying outside its same-thread parent
/// `p` (interval `piv`).
pub(super) fn outside_parent(issues: &mut Issues, i: u32, iv: Interval, p: u32, piv: Interval) {
    issues.report(IssueKind::ChildOutsideParent, i, &|| {
        format!(
            "[{}, {}) ns lies outside its parent {} [{}, {}) on the same thread",
            iv.start, iv.end, p, piv.start, piv.end
        )
    });
}

/// Reports event `i`'s range `r` not fitting the source text.
pub(super) fn range_outside(issues: &mut Issues, i: u32, r: SourceRange) {
    issues.report(IssueKind::RangeOutsideSource, i, &|| {
        format!(
            "range {}:{}-{}:{} does not fit the source text",
            r.start_line, r.start_col, r.end_line, r.end_col
        )
    });
}

/// The sibling check of `kids` on any threads and in any order: on each
/// thread, in start order, each must start after the ones before it
/// ended.
pub(super) fn check_siblings_by_thread(rec: &Recording, kids: &[u32], issues: &mut Issues) {
    let mut siblings: Vec<u32> = Vec::new();
    for thread in distinct_threads(rec, kids) {
        siblings.clear();
        siblings.extend(kids.iter().copied().filter(|&c| rec.thread(c) == thread));
        siblings.sort_by_key(|&c| (rec.start(c), c));
        check_siblings(rec, siblings.iter().copied(), issues);
    }
}

/// The source text's lines, to check ranges against (columns in UTF-16
/// code units).
#[derive(Debug, Default, Clone)]
pub(super) struct SourceLines {
    lengths: Vec<u32>,
}

impl SourceLines {
    pub fn new(source: &str) -> Self {
        SourceLines {
            lengths: utf16_line_lengths(source),
        }
    }

    /// Whether `r` is well formed and lies inside the source text.
    pub fn fit(&self, r: &SourceRange) -> bool {
        let fits = |line: u32, col: u32| {
            self.lengths
                .get(line as usize)
                .is_some_and(|&len| col <= len)
        };
        r.is_well_formed() && fits(r.end_line, r.end_col) && fits(r.start_line, r.start_col)
    }
}

/// The length in UTF-16 code units of each of `source`'s lines (split at
/// `\n`), in one pass: eight bytes at a time where they are ASCII
/// without a line break, else byte by byte (a character takes one unit,
/// two from U+10000 on, whose UTF-8 starts with a byte from 0xF0).
fn utf16_line_lengths(source: &str) -> Vec<u32> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let bytes = source.as_bytes();
    let mut lengths = Vec::new();
    let mut units = 0u32;
    let mut i = 0;
    while i < bytes.len() {
        if let Some(word) = bytes[i..].first_chunk::<8>() {
            let w = u64::from_le_bytes(*word);
            let breaks = w ^ (ONES * u64::from(b'\n'));
            let has_break = breaks.wrapping_sub(ONES) & !breaks & HIGH != 0;
            if w & HIGH == 0 && !has_break {
                units += 8;
                i += 8;
                continue;
            }
        }
        match bytes[i] {
            b'\n' => {
                lengths.push(units);
                units = 0;
            }
            b if b & 0xc0 != 0x80 => units += 1 + u32::from(b >= 0xf0),
            _ => {}
        }
        i += 1;
    }
    lengths.push(units);
    lengths
}

/// Reports each sibling (given in start order, on one thread) that starts
/// before an earlier one ended.
pub(super) fn check_siblings(
    rec: &Recording,
    siblings: impl Iterator<Item = u32>,
    issues: &mut Issues,
) {
    let mut reach: Option<(u64, u32)> = None;
    for c in siblings {
        if let Some((end, prev)) = reach {
            if rec.start(c) < end {
                issues.report(IssueKind::OverlappingSiblings, c, &|| {
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

#[cfg(test)]
mod tests {
    use super::utf16_line_lengths;

    #[test]
    fn line_lengths_count_utf16_units_of_each_line() {
        let by_definition = |s: &str| -> Vec<u32> {
            s.split('\n')
                .map(|l| l.encode_utf16().count() as u32)
                .collect()
        };
        let pieces = [
            "",
            "\n",
            "a",
            "theorem",
            "αβγ",
            "∀ x, x = x",
            "𝔽",
            "😀😀",
            "\r\n",
            "\n\n",
            "abcdefgh",
            "abcdefg\n",
            "        := by",
            "é",
        ];
        // Every pair and triple of the pieces, so that breaks and
        // multi-byte characters fall at every offset of an 8-byte word.
        let mut cases = vec![String::new()];
        for a in pieces {
            for b in pieces {
                cases.push(format!("{a}{b}"));
                for c in pieces {
                    cases.push(format!("{a}{b}{c}{a}"));
                }
            }
        }
        for s in &cases {
            assert_eq!(utf16_line_lengths(s), by_definition(s), "{s:?}");
        }
    }
}
