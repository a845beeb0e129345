//! The summary of a repeated capture (`profile --repeat N`): one summary per
//! run (run r: every file's r-th run), then per row key the median of the
//! runs' calls, total and self time with their spread
//! ([`crate::repeats::Spread`]). A key some runs lack has the spread of the
//! runs that have it.

use std::collections::HashMap;

use super::{Summary, SummaryKey};
use crate::repeats::Spread;

/// One row over the runs.
#[derive(Debug, Clone, PartialEq)]
pub struct RepeatedRow {
    pub key: SummaryKey,
    pub calls: Spread,
    pub total_ns: Spread,
    pub self_ns: Spread,
}

/// The rows of `runs` (one summary per run) by key, sorted by descending
/// median self time, then by key.
pub fn repeated_rows(runs: &[Summary]) -> Vec<RepeatedRow> {
    type Values = (Vec<f64>, Vec<f64>, Vec<f64>);
    let mut by_key: HashMap<&SummaryKey, Values> = HashMap::new();
    for s in runs {
        for r in &s.rows {
            let v = by_key.entry(&r.key).or_default();
            v.0.push(r.stats.count as f64);
            v.1.push(r.stats.total_ns as f64);
            v.2.push(r.stats.self_ns as f64);
        }
    }
    let mut rows: Vec<RepeatedRow> = by_key
        .into_iter()
        .filter_map(|(key, (calls, total, selfs))| {
            Some(RepeatedRow {
                key: key.clone(),
                calls: Spread::of(&calls)?,
                total_ns: Spread::of(&total)?,
                self_ns: Spread::of(&selfs)?,
            })
        })
        .collect();
    rows.sort_by(|a, b| {
        b.self_ns
            .median
            .total_cmp(&a.self_ns.median)
            .then_with(|| a.key.cmp(&b.key))
    });
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Stats;
    use crate::summary::{GroupBy, LeanscopeKey, SummaryKind, SummaryRow};

    fn summary(rows: &[(&str, u64, u64, u64)]) -> Summary {
        Summary {
            kind: SummaryKind::Leanscope,
            measure: crate::Measure::Time,
            group_by: Some(GroupBy::Declaration),
            event_count: 0,
            thread_count: 0,
            max_depth: 0,
            trace_origin_ns: 0,
            trace_window_ns: 0,
            recorded_thread_time_ns: 0,
            dropped_events: 0,
            validation_issue_count: 0,
            validation_issues: Vec::new(),
            rows: rows
                .iter()
                .map(|&(name, count, total, self_ns)| SummaryRow {
                    key: SummaryKey::Leanscope(LeanscopeKey::named(name)),
                    stats: Stats {
                        count,
                        total_ns: total,
                        self_ns,
                        ..Stats::default()
                    },
                    share_permille: 0,
                    counters: None,
                })
                .collect(),
        }
    }

    #[test]
    fn medians_and_spreads_by_hand() {
        let runs = [
            summary(&[("a", 1, 100, 10), ("b", 2, 50, 50)]),
            summary(&[("a", 1, 400, 40), ("b", 2, 70, 70)]),
            summary(&[("a", 1, 300, 30), ("b", 4, 60, 60)]),
            summary(&[("a", 1, 200, 20)]),
        ];
        let rows = repeated_rows(&runs);
        assert_eq!(rows.len(), 2);
        // b: self 50 60 70 → median 60; a: self 10 20 30 40 → median 25.
        assert_eq!(rows[0].key.label(), "b");
        assert_eq!(rows[0].self_ns.median, 60.0);
        assert_eq!(rows[0].self_ns.runs, 3);
        assert_eq!(rows[0].calls.median, 2.0);
        assert_eq!((rows[0].calls.min, rows[0].calls.max), (2.0, 4.0));
        let a = &rows[1];
        assert_eq!(a.self_ns.median, 25.0);
        // total 100 200 300 400: median 250, q1 175, q3 325.
        assert_eq!(a.total_ns.median, 250.0);
        assert_eq!((a.total_ns.q1, a.total_ns.q3), (Some(175.0), Some(325.0)));
        assert_eq!((a.total_ns.min, a.total_ns.max), (100.0, 400.0));
    }

    #[test]
    fn no_runs_no_rows() {
        assert!(repeated_rows(&[]).is_empty());
    }
}
