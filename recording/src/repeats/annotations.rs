//! The editor's annotations of a file over the runs of a repeated capture:
//! the annotations of one run (the median run, whose events the hovers
//! list) with every line and declaration time replaced by its median over
//! the runs ([`FileRuns`]), with its spread, and shares relative to the
//! median file time.
//!
//! - A line is annotated when some run recorded events starting on it (as
//!   the viewer's line bars): its `count` (events) and top operations are
//!   the shown run's, none when that run recorded nothing there.
//! - A declaration's time is its median over the runs that recorded time
//!   inside it (`None` when none did); its `count` is the shown run's.
//! - The file's time is the median of the runs' file times; its share
//!   basis (elapsed or traced) is the shown run's.

use super::{FileRuns, Spread, TimeSpread};
use crate::model::annotations::{Annotations, DeclarationAnnotation, FileShare, LineAnnotation};

/// A line over the runs: the median annotation and its spread.
#[derive(Debug, Clone, PartialEq)]
pub struct LineOverRuns {
    pub annotation: LineAnnotation,
    pub spread: TimeSpread,
}

/// A declaration over the runs: the median annotation and its spread
/// (`None` when no run recorded time inside it).
#[derive(Debug, Clone, PartialEq)]
pub struct DeclarationOverRuns {
    pub annotation: DeclarationAnnotation,
    pub spread: Option<TimeSpread>,
    /// The memory Lean gained while it ran, over the runs that sampled it.
    pub memory: Option<Spread>,
}

/// Everything an editor shows for a file over its runs.
#[derive(Debug, Clone, PartialEq)]
pub struct AnnotationsOverRuns {
    /// How many runs were taken together.
    pub runs: usize,
    /// The median file time, with the shown run's share basis.
    pub file: FileShare,
    /// The file time over the runs.
    pub file_spread: Option<Spread>,
    /// The peak resident memory over the runs that sampled it.
    pub memory_peak: Option<Spread>,
    /// Lines some run recorded events on, in order.
    pub lines: Vec<LineOverRuns>,
    /// The shown run's header declarations, in order.
    pub declarations: Vec<DeclarationOverRuns>,
}

/// The medians of `runs` laid over `shown`, the annotations of one of the
/// runs (the median run).
pub fn annotations_over_runs(shown: &Annotations, runs: &FileRuns) -> AnnotationsOverRuns {
    let file = FileShare {
        ns: runs.file_ns(),
        basis: shown.file.basis,
    };
    let lines = runs
        .lines()
        .map(|(line, spread)| {
            let own = shown
                .lines
                .binary_search_by_key(&line, |l| l.line)
                .ok()
                .and_then(|at| shown.lines.get(at));
            let time = spread.median_row(own.map_or(0, |l| l.time.count));
            LineOverRuns {
                annotation: LineAnnotation {
                    line,
                    time,
                    share: runs.share(time.total_ns),
                    self_share: runs.share(time.self_ns),
                    top: own.map(|l| l.top.clone()).unwrap_or_default(),
                },
                spread: *spread,
            }
        })
        .collect();
    let declarations = shown
        .declarations
        .iter()
        .map(|d| {
            let spread = runs.declaration(d.index).copied();
            let time = spread.map(|s| s.median_row(d.time.map_or(0, |t| t.count)));
            DeclarationOverRuns {
                annotation: DeclarationAnnotation {
                    time,
                    share: time.and_then(|t| runs.share(t.total_ns)),
                    self_share: time.and_then(|t| runs.share(t.self_ns)),
                    ..d.clone()
                },
                spread,
                memory: runs.memory_growth(d.index),
            }
        })
        .collect();
    AnnotationsOverRuns {
        runs: runs.runs(),
        file,
        file_spread: runs.file(),
        memory_peak: runs.memory_peak(),
        lines,
        declarations,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::annotations::{Operation, ShareBasis};
    use crate::model::TimeRow;
    use crate::repeats::RunTimes;
    use crate::types::{RangeKind, SourceRange};

    fn row(count: u64, total: u64, self_: u64) -> TimeRow {
        TimeRow {
            count,
            total_ns: total,
            self_ns: self_,
        }
    }

    fn op(event: u32, ns: u64) -> Operation {
        Operation {
            event,
            class: "Elab.step".into(),
            label: format!("step {event}"),
            kind: "tactic",
            inclusive_ns: ns,
            self_ns: ns,
            thread: 0,
            range: None,
            range_kind: RangeKind::Exact,
        }
    }

    fn declaration(index: usize, time: Option<TimeRow>) -> DeclarationAnnotation {
        let r = SourceRange::new(index as u32, 0, index as u32, 5);
        DeclarationAnnotation {
            index,
            name: format!("d{index}"),
            kind: "theorem".into(),
            range: r,
            selection_range: r,
            generated: false,
            time,
            share: None,
            self_share: None,
        }
    }

    /// The median run (file time 100000): line 1 with two events, line 4
    /// with one; declaration 0 timed, declaration 1 not.
    fn shown() -> Annotations {
        Annotations {
            file: FileShare {
                ns: 100_000,
                basis: ShareBasis::Traced,
            },
            lines: vec![
                LineAnnotation {
                    line: 1,
                    time: row(2, 20_000, 5_000),
                    share: Some(0.2),
                    self_share: Some(0.05),
                    top: vec![op(0, 20_000), op(1, 5_000)],
                },
                LineAnnotation {
                    line: 4,
                    time: row(1, 7, 7),
                    share: None,
                    self_share: None,
                    top: vec![op(2, 7)],
                },
            ],
            declarations: vec![
                declaration(0, Some(row(3, 20_000, 15_000))),
                declaration(1, None),
            ],
        }
    }

    fn run(file: u64, line1: u64, line2: Option<u64>, decl0: u64, decl1: Option<u64>) -> RunTimes {
        let mut lines = vec![(1, row(2, line1, line1 / 4))];
        if let Some(t) = line2 {
            lines.push((2, row(1, t, t)));
        }
        RunTimes::by_hand(
            "sha",
            file,
            lines,
            vec![Some(row(3, decl0, decl0 / 2)), decl1.map(|t| row(1, t, t))],
        )
    }

    #[test]
    fn medians_spreads_and_shares_by_hand() {
        // Files 80000 100000 120000 200000 → median 110000.
        // Line 1: 30000 10000 50000 20000 → 25000, q1 17500, q3 35000;
        // self (a quarter) 7500 2500 12500 5000 → 6250.
        // Line 2 only in runs 1 and 3: 300 and 500 → 400.
        // Declaration 0: 40000 20000 60000 30000 → 35000; self → 17500.
        // Declaration 1 only in run 4: 900.
        let runs = FileRuns::of(&[
            run(80_000, 30_000, Some(300), 40_000, None),
            run(100_000, 10_000, None, 20_000, None),
            run(120_000, 50_000, Some(500), 60_000, None),
            run(200_000, 20_000, None, 30_000, Some(900)),
        ])
        .unwrap();
        let a = annotations_over_runs(&shown(), &runs);
        assert_eq!(a.runs, 4);
        assert_eq!(
            a.file,
            FileShare {
                ns: 110_000,
                basis: ShareBasis::Traced
            }
        );
        assert_eq!(a.file_spread.unwrap().max, 200_000.0);
        // The lines are the runs' (the made-up shown run's line 4 is in
        // none of them, which a real median run cannot be).
        let lines: Vec<u32> = a.lines.iter().map(|l| l.annotation.line).collect();
        assert_eq!(lines, vec![1, 2]);
        let l1 = &a.lines[0];
        assert_eq!(l1.annotation.time, row(2, 25_000, 6_250));
        assert_eq!(l1.annotation.share, Some(25_000.0 / 110_000.0));
        assert_eq!(l1.annotation.self_share, Some(6_250.0 / 110_000.0));
        assert_eq!(l1.annotation.top, shown().lines[0].top);
        let w = l1.spread.whole();
        assert_eq!(
            (
                w.total.runs,
                w.total.min,
                w.total.max,
                w.total.q1,
                w.total.q3
            ),
            (4, 10_000, 50_000, Some(17_500), Some(35_000))
        );
        // Line 2: none of its events in the shown run.
        let l2 = &a.lines[1];
        assert_eq!(l2.annotation.time, row(0, 400, 400));
        assert!(l2.annotation.top.is_empty());
        assert_eq!((l2.spread.total.runs, l2.spread.total.q1), (2, None));
        // Declarations keep their header facts; times are medians.
        let d0 = &a.declarations[0];
        assert_eq!(d0.annotation.name, "d0");
        assert_eq!(d0.annotation.time, Some(row(3, 35_000, 17_500)));
        assert_eq!(d0.annotation.share, Some(35_000.0 / 110_000.0));
        assert_eq!(d0.spread.unwrap().total.runs, 4);
        // Declaration 1: no time in the shown run, 900 in one run.
        let d1 = &a.declarations[1];
        assert_eq!(d1.annotation.time, Some(row(0, 900, 900)));
        assert_eq!(d1.spread.unwrap().total.runs, 1);
    }

    #[test]
    fn a_declaration_no_run_timed_has_no_time() {
        let runs = FileRuns::of(&[RunTimes::by_hand(
            "sha",
            0,
            Vec::new(),
            vec![Some(row(1, 5, 5)), None],
        )])
        .unwrap();
        let a = annotations_over_runs(&shown(), &runs);
        assert_eq!(a.declarations[1].annotation.time, None);
        assert_eq!(a.declarations[1].spread, None);
        // A zero median file time gives no shares.
        assert_eq!(a.declarations[0].annotation.share, None);
        assert!(a.lines.is_empty());
    }
}
