//! What an editor shows next to the source of a recording: a timing bar per
//! line, a time per declaration, and the operations behind each line (for
//! hovers). Built on the aggregation rules of [`super::aggregate`], so the
//! editor, the viewer and the CLI show the same numbers.
//!
//! - Line bar: [`super::line_rows`] (the union of the intervals of the
//!   events whose range starts on the line, and of their self pieces).
//! - Declaration time: [`super::declaration_times`].
//! - Share of file: a time divided by the file's time (see [`FileShare`]).
//! - Top operations of a line: its events by inclusive time, longest first
//!   (ties: earlier event first), at most [`TOP_OPERATIONS_PER_LINE`].

use serde::Serialize;

use super::aggregate::{declaration_times, events_by_line, time_of, TimeRow};
use super::classify::{kind_of, EventKind};
use super::timing::{union_ns, Interval};
use super::Recording;
use crate::types::{RangeKind, SourceRange};

/// Most operations listed per line.
pub const TOP_OPERATIONS_PER_LINE: usize = 5;

/// Longest operation label kept, in characters (longer ones are cut and end
/// with `…`). Only the label's first line is kept.
pub const OPERATION_LABEL_MAX_CHARS: usize = 160;

/// Which time shares are relative to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ShareBasis {
    /// Lean's elapsed time for the file, imports included.
    Elapsed,
    /// The union of all recorded intervals, on every thread (Lean's elapsed
    /// time is unknown, or shorter than what was recorded).
    Traced,
}

impl ShareBasis {
    pub fn as_str(self) -> &'static str {
        match self {
            ShareBasis::Elapsed => "elapsed",
            ShareBasis::Traced => "traced",
        }
    }
}

/// The file time that shares are relative to: Lean's elapsed time when it
/// is known and covers everything recorded, else the union of all recorded
/// intervals. Either way no line or declaration exceeds 100%.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct FileShare {
    pub ns: u64,
    pub basis: ShareBasis,
}

impl FileShare {
    pub fn of(rec: &Recording) -> FileShare {
        let mut all: Vec<Interval> = (0..rec.len() as u32).map(|i| rec.interval(i)).collect();
        let traced = union_ns(&mut all);
        match rec.header.elapsed_ns {
            Some(e) if e >= traced => FileShare {
                ns: e,
                basis: ShareBasis::Elapsed,
            },
            _ => FileShare {
                ns: traced,
                basis: ShareBasis::Traced,
            },
        }
    }

    /// `ns` as a fraction of the file's time (0 to 1), or `None` when the
    /// file's time is zero.
    pub fn share(&self, ns: u64) -> Option<f64> {
        (self.ns > 0).then(|| ns as f64 / self.ns as f64)
    }
}

/// One event behind a line, for hovers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Operation {
    pub event: u32,
    pub class: String,
    /// The first line of the event's text, at most
    /// [`OPERATION_LABEL_MAX_CHARS`] characters.
    pub label: String,
    /// `command`, `tactic`, `term` or `other`.
    pub kind: &'static str,
    pub inclusive_ns: u64,
    pub self_ns: u64,
    pub thread: u16,
    pub range: Option<SourceRange>,
    pub range_kind: RangeKind,
}

/// The timing bar of one source line.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LineAnnotation {
    /// 0-based line.
    pub line: u32,
    pub time: TimeRow,
    pub share: Option<f64>,
    pub self_share: Option<f64>,
    /// The line's longest events, longest first.
    pub top: Vec<Operation>,
}

/// A declaration of the header with its time.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeclarationAnnotation {
    /// Index into the header's declarations.
    pub index: usize,
    pub name: String,
    pub kind: String,
    pub range: SourceRange,
    pub selection_range: SourceRange,
    pub generated: bool,
    /// `None` when no event was recorded inside the declaration.
    pub time: Option<TimeRow>,
    pub share: Option<f64>,
    pub self_share: Option<f64>,
}

/// Everything an editor shows for a recording.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Annotations {
    pub file: FileShare,
    /// Lines with events, in order.
    pub lines: Vec<LineAnnotation>,
    /// The header's declarations, in order.
    pub declarations: Vec<DeclarationAnnotation>,
}

/// Computes the annotations of a recording.
pub fn annotations(rec: &Recording) -> Annotations {
    let file = FileShare::of(rec);
    let lines = events_by_line(rec)
        .into_iter()
        .map(|(line, mut events)| {
            let time = time_of(rec, &events);
            events.sort_by(|&a, &b| {
                rec.inclusive_ns(b)
                    .cmp(&rec.inclusive_ns(a))
                    .then(a.cmp(&b))
            });
            events.truncate(TOP_OPERATIONS_PER_LINE);
            LineAnnotation {
                line,
                share: file.share(time.total_ns),
                self_share: file.share(time.self_ns),
                time,
                top: events.iter().map(|&i| operation(rec, i)).collect(),
            }
        })
        .collect();
    Annotations {
        file,
        lines,
        declarations: declaration_annotations(rec, &file),
    }
}

/// The header's declarations with their times and shares of `file`.
pub fn declaration_annotations(rec: &Recording, file: &FileShare) -> Vec<DeclarationAnnotation> {
    rec.header
        .declarations
        .iter()
        .zip(declaration_times(rec))
        .enumerate()
        .map(|(index, (d, time))| DeclarationAnnotation {
            index,
            name: d.name.clone(),
            kind: d.kind.clone(),
            range: d.range,
            selection_range: d.selection_range,
            generated: d.generated,
            share: time.and_then(|t| file.share(t.total_ns)),
            self_share: time.and_then(|t| file.share(t.self_ns)),
            time,
        })
        .collect()
}

fn operation(rec: &Recording, i: u32) -> Operation {
    let kind: EventKind = kind_of(rec, i);
    Operation {
        event: i,
        class: rec.class(i).to_owned(),
        label: short_label(rec.label(i)),
        kind: kind.as_str(),
        inclusive_ns: rec.inclusive_ns(i),
        self_ns: rec.self_ns(i),
        thread: rec.thread(i),
        range: rec.range(i),
        range_kind: rec.range_kind(i),
    }
}

/// How the declarations of a file share its time: what their shares add up
/// to, and on how many threads the recorded work ran. With proofs elaborated
/// on worker threads at once, declarations' shares of the file's wall time
/// add up to more than 1; an editor says so beside them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Parallelism {
    /// The sum of the declarations' shares of the file (`None` when none has one).
    pub share_sum: Option<f64>,
    /// The distinct threads of the recorded events (0 for an empty recording).
    pub threads: u32,
}

impl Parallelism {
    /// The parallelism of `rec` with its declarations' `shares`.
    pub fn of(rec: &Recording, shares: impl IntoIterator<Item = Option<f64>>) -> Parallelism {
        let mut share_sum: Option<f64> = None;
        for s in shares.into_iter().flatten() {
            share_sum = Some(share_sum.unwrap_or(0.0) + s);
        }
        let mut seen: Vec<u16> = (0..rec.len() as u32).map(|i| rec.thread(i)).collect();
        seen.sort_unstable();
        seen.dedup();
        Parallelism {
            share_sum,
            threads: seen.len() as u32,
        }
    }
}

/// The first line of `label`, trimmed, cut to [`OPERATION_LABEL_MAX_CHARS`].
pub fn short_label(label: &str) -> String {
    let first = label.lines().next().unwrap_or("").trim();
    let mut chars = first.chars();
    let kept: String = chars.by_ref().take(OPERATION_LABEL_MAX_CHARS).collect();
    if chars.next().is_some() {
        let mut cut: String = kept
            .chars()
            .take(OPERATION_LABEL_MAX_CHARS.saturating_sub(1))
            .collect();
        cut.push('…');
        cut
    } else {
        kept
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parallelism_sums_the_declarations_shares_and_counts_threads() {
        let bytes = crate::synth::synthetic_bytes(&crate::synth::SynthParams {
            seed: 7,
            events: 2_000,
            threads: 3,
        })
        .unwrap();
        let rec = Recording::from_bytes(&bytes).unwrap();
        let a = annotations(&rec);
        let p = Parallelism::of(&rec, a.declarations.iter().map(|d| d.share));
        assert_eq!(p.threads, 3);
        let want: f64 = a.declarations.iter().filter_map(|d| d.share).sum();
        assert!((p.share_sum.unwrap() - want).abs() < 1e-12);
        // No shares: no sum (missing, not zero).
        assert_eq!(Parallelism::of(&rec, [None, None]).share_sum, None);
        assert_eq!(
            Parallelism::of(&rec, [Some(0.45), Some(0.45), Some(0.45)]).share_sum,
            Some(0.45 + 0.45 + 0.45)
        );
    }

    #[test]
    fn labels_keep_their_first_line_within_the_limit() {
        assert_eq!(short_label("  simp only [foo]\n  more"), "simp only [foo]");
        let exact = "x".repeat(OPERATION_LABEL_MAX_CHARS);
        assert_eq!(short_label(&exact), exact);
        let over = "é".repeat(OPERATION_LABEL_MAX_CHARS + 1);
        let cut = short_label(&over);
        assert_eq!(cut.chars().count(), OPERATION_LABEL_MAX_CHARS);
        assert!(cut.ends_with('…'));
        assert_eq!(short_label(""), "");
    }
}
