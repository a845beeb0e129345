//! One file over the runs of a repeated capture: what each run gives its
//! lines, declarations and tactic spans ([`RunTimes`], taken from a run's
//! recording by the aggregation rules of [`crate::model`]), and the median
//! of those times with their spread ([`FileRuns`]). The viewer and the
//! editor's annotations read a repeated file through this one place.
//!
//! - A row is the same across runs when it is the same line, the same
//!   declaration (by its index in the header: every run recorded the same
//!   source, which [`FileRuns::of`] checks), or the same tactic span (its
//!   source range and text).
//! - A row some runs lack (no event recorded there in that run) has the
//!   spread of the runs that have it; [`Spread::runs`] says how many. A
//!   missing row is not a zero: "no recorded interval is no time".
//! - Event-level detail (the timeline, an event's children, the operations
//!   of a line) is one run's: the **median run** ([`median_run`]), the run
//!   whose file time is nearest to the median file time.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::{whole, Spread, WholeSpread};
use crate::model::annotations::FileShare;
use crate::model::{declaration_times, file_time, line_rows, tactic_rows, Recording, TimeRow};
use crate::types::SourceRange;

/// The median of a time and of its self time over the runs, each with its
/// spread, in nanoseconds (or heartbeats).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct TimeSpread {
    pub total: Spread,
    #[serde(rename = "self")]
    pub self_: Spread,
}

impl TimeSpread {
    /// The median total, rounded to a whole nanosecond (or heartbeat).
    pub fn total_ns(&self) -> u64 {
        whole(self.total.median)
    }

    /// The median self time, rounded to a whole nanosecond (or heartbeat).
    pub fn self_ns(&self) -> u64 {
        whole(self.self_.median)
    }

    /// The medians as one row, with `count` (events) from the run shown.
    pub fn median_row(&self, count: u64) -> TimeRow {
        TimeRow {
            count,
            total_ns: self.total_ns(),
            self_ns: self.self_ns(),
        }
    }

    /// Both spreads in whole nanoseconds (or heartbeats), as answers show
    /// them.
    pub fn whole(&self) -> WholeTimeSpread {
        WholeTimeSpread {
            total: self.total.whole(),
            self_: self.self_.whole(),
        }
    }

    fn of(rows: &[TimeRow]) -> Option<TimeSpread> {
        let totals: Vec<f64> = rows.iter().map(|t| t.total_ns as f64).collect();
        let selfs: Vec<f64> = rows.iter().map(|t| t.self_ns as f64).collect();
        Some(TimeSpread {
            total: Spread::of(&totals)?,
            self_: Spread::of(&selfs)?,
        })
    }
}

/// A [`TimeSpread`] in whole nanoseconds (or heartbeats):
/// `{"total": {...}, "self": {...}}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct WholeTimeSpread {
    pub total: WholeSpread,
    #[serde(rename = "self")]
    pub self_: WholeSpread,
}

/// What makes two runs' tactic spans the same span.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TacticKey {
    pub range: SourceRange,
    pub label: String,
}

/// What one run of a file gives its lines, declarations and tactic spans.
#[derive(Debug, Clone, PartialEq)]
pub struct RunTimes {
    source_sha256: String,
    /// The time shares are relative to ([`FileShare`]).
    file_ns: u64,
    /// The union of all recorded intervals ([`crate::model::file_time`]).
    traced_ns: u64,
    lines: Vec<(u32, TimeRow)>,
    declarations: Vec<Option<TimeRow>>,
    tactics: Vec<(TacticKey, TimeRow)>,
    /// The peak resident memory of Lean's process tree, when it was sampled.
    memory_peak: Option<u64>,
    /// Per header declaration: the memory Lean gained while it ran, when sampled.
    memory_growth: Vec<Option<u64>>,
}

impl RunTimes {
    /// The times of one run's recording.
    pub fn of(rec: &Recording) -> RunTimes {
        RunTimes {
            source_sha256: rec.header.source_sha256.clone(),
            file_ns: FileShare::of(rec).ns,
            traced_ns: file_time(rec).traced_ns,
            lines: line_rows(rec)
                .into_iter()
                .map(|r| (r.line, r.time))
                .collect(),
            declarations: declaration_times(rec),
            tactics: tactic_rows(rec)
                .into_iter()
                .map(|t| {
                    (
                        TacticKey {
                            range: t.range,
                            label: t.label,
                        },
                        t.time,
                    )
                })
                .collect(),
            memory_peak: rec.header.memory.as_ref().map(|m| m.peak_bytes),
            memory_growth: rec
                .header
                .declarations
                .iter()
                .map(|d| rec.header.memory.as_ref()?.growth_of(&d.name))
                .collect(),
        }
    }

    /// The same run with its memory: the peak and each declaration's growth.
    #[cfg(test)]
    pub(crate) fn with_memory(self, peak: Option<u64>, growth: Vec<Option<u64>>) -> RunTimes {
        RunTimes {
            memory_peak: peak,
            memory_growth: growth,
            ..self
        }
    }
}

#[cfg(test)]
impl RunTimes {
    /// A run's times by hand (the tests of the modules that read runs).
    pub(crate) fn by_hand(
        source_sha256: &str,
        file_ns: u64,
        lines: Vec<(u32, TimeRow)>,
        declarations: Vec<Option<TimeRow>>,
    ) -> RunTimes {
        RunTimes {
            source_sha256: source_sha256.into(),
            file_ns,
            traced_ns: file_ns,
            lines,
            declarations,
            tactics: Vec::new(),
            memory_peak: None,
            memory_growth: Vec::new(),
        }
    }
}

/// Why runs cannot be taken together.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RunsError {
    #[error("a file over runs needs at least one run")]
    NoRuns,
    #[error("run {run} recorded another source (SHA-256 {found}) than run 1 ({expected}): the runs of a file must be of one source text")]
    OtherSource {
        run: usize,
        expected: String,
        found: String,
    },
}

/// One file over its runs: medians with their spread per line, declaration
/// and tactic span, and of the file's time.
#[derive(Debug, Clone, PartialEq)]
pub struct FileRuns {
    runs: usize,
    file: Option<Spread>,
    traced: Option<Spread>,
    lines: BTreeMap<u32, TimeSpread>,
    declarations: Vec<Option<TimeSpread>>,
    tactics: HashMap<TacticKey, TimeSpread>,
    memory_peak: Option<Spread>,
    memory_growth: Vec<Option<Spread>>,
}

impl FileRuns {
    /// Takes the runs together; they must be of one source text.
    pub fn of(runs: &[RunTimes]) -> Result<FileRuns, RunsError> {
        let first = runs.first().ok_or(RunsError::NoRuns)?;
        if let Some((k, r)) = runs
            .iter()
            .enumerate()
            .find(|(_, r)| r.source_sha256 != first.source_sha256)
        {
            return Err(RunsError::OtherSource {
                run: k + 1,
                expected: first.source_sha256.clone(),
                found: r.source_sha256.clone(),
            });
        }
        let mut lines: BTreeMap<u32, Vec<TimeRow>> = BTreeMap::new();
        let mut tactics: HashMap<TacticKey, Vec<TimeRow>> = HashMap::new();
        let mut declarations: Vec<Vec<TimeRow>> = vec![Vec::new(); first.declarations.len()];
        for r in runs {
            for &(line, t) in &r.lines {
                lines.entry(line).or_default().push(t);
            }
            for (key, t) in &r.tactics {
                tactics.entry(key.clone()).or_default().push(*t);
            }
            for (d, t) in r.declarations.iter().enumerate() {
                if let (Some(t), Some(all)) = (t, declarations.get_mut(d)) {
                    all.push(*t);
                }
            }
        }
        let mut growth: Vec<Vec<f64>> = vec![Vec::new(); first.declarations.len()];
        for r in runs {
            for (all, g) in growth.iter_mut().zip(&r.memory_growth) {
                all.extend(g.map(|g| g as f64));
            }
        }
        let peaks: Vec<f64> = runs
            .iter()
            .filter_map(|r| r.memory_peak.map(|p| p as f64))
            .collect();
        let files: Vec<f64> = runs.iter().map(|r| r.file_ns as f64).collect();
        let traced: Vec<f64> = runs.iter().map(|r| r.traced_ns as f64).collect();
        Ok(FileRuns {
            runs: runs.len(),
            file: Spread::of(&files),
            traced: Spread::of(&traced),
            lines: lines
                .into_iter()
                .filter_map(|(l, rows)| Some((l, TimeSpread::of(&rows)?)))
                .collect(),
            declarations: declarations
                .iter()
                .map(|rows| TimeSpread::of(rows))
                .collect(),
            tactics: tactics
                .into_iter()
                .filter_map(|(k, rows)| Some((k, TimeSpread::of(&rows)?)))
                .collect(),
            memory_peak: Spread::of(&peaks),
            memory_growth: growth.iter().map(|g| Spread::of(g)).collect(),
        })
    }

    /// The peak resident memory over the runs that sampled it.
    pub fn memory_peak(&self) -> Option<Spread> {
        self.memory_peak
    }

    /// Declaration `d`'s memory growth over the runs that sampled it.
    pub fn memory_growth(&self, d: usize) -> Option<Spread> {
        *self.memory_growth.get(d)?
    }

    /// How many runs were taken together.
    pub fn runs(&self) -> usize {
        self.runs
    }

    /// The file's time that shares are relative to, over the runs.
    pub fn file(&self) -> Option<Spread> {
        self.file
    }

    /// The traced time (the union of all recorded intervals) over the runs.
    pub fn traced(&self) -> Option<Spread> {
        self.traced
    }

    /// The median file time, rounded.
    pub fn file_ns(&self) -> u64 {
        self.file.map_or(0, |s| whole(s.median))
    }

    /// A line (0-based) over the runs that recorded events starting on it.
    pub fn line(&self, line: u32) -> Option<&TimeSpread> {
        self.lines.get(&line)
    }

    /// Every line with events in some run, in order.
    pub fn lines(&self) -> impl Iterator<Item = (u32, &TimeSpread)> {
        self.lines.iter().map(|(&l, t)| (l, t))
    }

    /// Declaration `d` (an index into the header's declarations) over the
    /// runs that recorded time inside it.
    pub fn declaration(&self, d: usize) -> Option<&TimeSpread> {
        self.declarations.get(d)?.as_ref()
    }

    /// A tactic span over the runs that recorded it.
    pub fn tactic(&self, range: SourceRange, label: &str) -> Option<&TimeSpread> {
        self.tactics.get(&TacticKey {
            range,
            label: label.to_owned(),
        })
    }

    /// `ns` as a fraction of the median file time, or `None` when it is 0.
    pub fn share(&self, ns: u64) -> Option<f64> {
        let file = self.file_ns();
        (file > 0).then(|| ns as f64 / file as f64)
    }
}

/// The median run of runs with these file times: the run whose time is
/// nearest to the median of the times (ties: the earlier run). Runs
/// without a time are never chosen; `None` when no run has one.
pub fn median_run(times: &[Option<u64>]) -> Option<usize> {
    let known: Vec<f64> = times.iter().flatten().map(|&t| t as f64).collect();
    let median = Spread::of(&known)?.median;
    times
        .iter()
        .enumerate()
        .filter_map(|(k, t)| Some((k, (t.map(|t| t as f64)? - median).abs())))
        .min_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)))
        .map(|(k, _)| k)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(total: u64, self_: u64) -> TimeRow {
        TimeRow {
            count: 1,
            total_ns: total,
            self_ns: self_,
        }
    }

    fn run(sha: &str, file: u64, lines: &[(u32, u64)], decls: &[Option<u64>]) -> RunTimes {
        RunTimes {
            source_sha256: sha.into(),
            file_ns: file,
            traced_ns: file / 2,
            lines: lines.iter().map(|&(l, t)| (l, row(t, t / 2))).collect(),
            declarations: decls.iter().map(|t| t.map(|t| row(t, t))).collect(),
            tactics: vec![(
                TacticKey {
                    range: SourceRange::new(3, 2, 3, 8),
                    label: "simp".into(),
                },
                row(file / 10, file / 20),
            )],
            memory_peak: None,
            memory_growth: Vec::new(),
        }
    }

    #[test]
    fn medians_and_spreads_by_hand() {
        let runs = [
            run("a", 1000, &[(2, 100), (5, 40)], &[Some(300), None]),
            run("a", 1400, &[(2, 140)], &[Some(500), None]),
            run("a", 1100, &[(2, 120), (5, 60)], &[Some(320), Some(7)]),
            run("a", 1300, &[(2, 90)], &[Some(280), None]),
        ];
        let f = FileRuns::of(&runs).unwrap();
        assert_eq!(f.runs(), 4);
        // 1000 1100 1300 1400: median 1200, q1 1075, q3 1325.
        let file = f.file().unwrap();
        assert_eq!(
            (file.median, file.q1, file.q3),
            (1200.0, Some(1075.0), Some(1325.0))
        );
        assert_eq!(f.traced().unwrap().median, 600.0);
        // Line 2: 90 100 120 140 → median 110, self 45 50 60 70 → 55.
        let l2 = f.line(2).unwrap();
        assert_eq!((l2.total_ns(), l2.self_ns()), (110, 55));
        assert_eq!(
            (l2.total.min, l2.total.max, l2.total.runs),
            (90.0, 140.0, 4)
        );
        // Line 5 only in two runs: its spread is theirs.
        let l5 = f.line(5).unwrap();
        assert_eq!(
            (l5.total.runs, l5.total.median, l5.total.q1),
            (2, 50.0, None)
        );
        assert_eq!(f.lines().map(|(l, _)| l).collect::<Vec<_>>(), vec![2, 5]);
        // Declaration 0: 280 300 320 500 → 310; declaration 1 in one run.
        assert_eq!(f.declaration(0).unwrap().total_ns(), 310);
        assert_eq!(f.declaration(1).unwrap().total.runs, 1);
        assert_eq!(f.declaration(2), None);
        // The tactic: 100 110 130 140 → 120.
        let t = f.tactic(SourceRange::new(3, 2, 3, 8), "simp").unwrap();
        assert_eq!(t.total_ns(), 120);
        assert_eq!(f.tactic(SourceRange::new(3, 2, 3, 8), "ring"), None);
        assert_eq!(f.share(600), Some(0.5));
    }

    #[test]
    fn memory_over_the_runs() {
        // Peaks 300, 100, 200 → 200; declaration 0 grew 5, 9, and was not sampled in run 3;
        // declaration 1 in no run.
        let runs = [
            run("a", 1, &[], &[None, None]).with_memory(Some(300), vec![Some(5), None]),
            run("a", 1, &[], &[None, None]).with_memory(Some(100), vec![Some(9), None]),
            run("a", 1, &[], &[None, None]).with_memory(Some(200), vec![None, None]),
        ];
        let f = FileRuns::of(&runs).unwrap();
        let peak = f.memory_peak().unwrap();
        assert_eq!(
            (peak.median, peak.min, peak.max, peak.runs),
            (200.0, 100.0, 300.0, 3)
        );
        let g = f.memory_growth(0).unwrap();
        assert_eq!((g.median, g.runs), (7.0, 2));
        assert_eq!(f.memory_growth(1), None);
        assert_eq!(f.memory_growth(2), None);
        // No run sampled memory: no figure at all.
        let f = FileRuns::of(&[run("a", 1, &[], &[None])]).unwrap();
        assert_eq!((f.memory_peak(), f.memory_growth(0)), (None, None));
    }

    #[test]
    fn runs_of_another_source_are_refused() {
        let runs = [run("a", 1, &[], &[]), run("b", 1, &[], &[])];
        let e = FileRuns::of(&runs).unwrap_err();
        assert_eq!(
            e,
            RunsError::OtherSource {
                run: 2,
                expected: "a".into(),
                found: "b".into()
            }
        );
        assert!(e.to_string().contains("run 2 recorded another source"));
        assert_eq!(FileRuns::of(&[]), Err(RunsError::NoRuns));
    }

    #[test]
    fn the_median_run_is_nearest_to_the_median_time() {
        // 10 30 20 → median 20: run 2.
        assert_eq!(median_run(&[Some(10), Some(30), Some(20)]), Some(2));
        // 10 20 30 40 → median 25: runs 1 and 2 are as near; the earlier.
        assert_eq!(
            median_run(&[Some(10), Some(20), Some(30), Some(40)]),
            Some(1)
        );
        // A run without a time is never the median run.
        assert_eq!(median_run(&[None, Some(5), Some(9)]), Some(1));
        assert_eq!(median_run(&[None, None]), None);
        assert_eq!(median_run(&[]), None);
    }
}
