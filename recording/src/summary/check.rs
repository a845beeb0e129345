//! The invariants every summary must satisfy, checked when a summary is
//! read back. Each failure names the JSON path of the offending value.

use std::collections::HashSet;

use super::{share_permille, Summary, SummaryKind};

/// A summary that breaks an invariant: where (a JSON path such as
/// `$.rows[3].mean_ns`) and what.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct SummaryInvalid {
    pub path: String,
    pub message: String,
}

fn bad(path: impl Into<String>, message: impl Into<String>) -> SummaryInvalid {
    SummaryInvalid {
        path: path.into(),
        message: message.into(),
    }
}

impl Summary {
    /// Checks each row's statistics and the cross-row invariants:
    ///
    /// - every row has at least one call; self ≤ total; min ≤ mean ≤ max;
    ///   min ≤ median ≤ p95 ≤ max; mean = floor(total / calls);
    ///   share ≤ 1000; no key appears twice;
    /// - LeanProfiler summaries: the calls add up to the event count, and
    ///   each share is floor(self · 1000 / recorded thread time);
    /// - leanscope summaries: each share is floor(self · 1000 / the rows'
    ///   summed self time); grouped by name or class, the calls (outermost
    ///   events) are at most the event count and the self times add up to the
    ///   recorded thread time.
    pub fn check(&self) -> Result<(), SummaryInvalid> {
        let mut seen = HashSet::new();
        for (i, r) in self.rows.iter().enumerate() {
            let p = format!("$.rows[{i}]");
            let s = &r.stats;
            if s.count == 0 {
                return Err(bad(
                    format!("{p}.calls"),
                    "a row must have at least one call",
                ));
            }
            if s.self_ns > s.total_ns {
                return Err(bad(
                    &p,
                    format!("self_ns {} exceeds total_ns {}", s.self_ns, s.total_ns),
                ));
            }
            if !(s.min_ns <= s.mean_ns && s.mean_ns <= s.max_ns) {
                return Err(bad(&p, "mean_ns lies outside min_ns and max_ns"));
            }
            if !(s.min_ns <= s.median_ns && s.median_ns <= s.p95_ns && s.p95_ns <= s.max_ns) {
                return Err(bad(
                    &p,
                    "min_ns, median_ns, p95_ns and max_ns are not in order",
                ));
            }
            if s.mean_ns != s.total_ns / s.count {
                return Err(bad(
                    format!("{p}.mean_ns"),
                    format!(
                        "expected floor(total_ns / calls) = {}, found {}",
                        s.total_ns / s.count,
                        s.mean_ns
                    ),
                ));
            }
            if u128::from(s.max_ns) > u128::from(s.total_ns) {
                return Err(bad(&p, "max_ns exceeds total_ns"));
            }
            if r.share_permille > 1000 {
                return Err(bad(format!("{p}.share_permille"), "value exceeds 1000"));
            }
            if let Some(c) = &r.counters {
                if c.self_heartbeats > c.total_heartbeats {
                    return Err(bad(&p, "self_heartbeats exceeds total_heartbeats"));
                }
            }
            if r.key.kind() != self.kind {
                return Err(bad(format!("{p}.key"), "key of the wrong summary kind"));
            }
            if !seen.insert(&r.key) {
                return Err(bad(
                    format!("{p}.key"),
                    format!("duplicate row key `{}`", r.key.label()),
                ));
            }
        }
        let calls = self
            .rows
            .iter()
            .fold(0u128, |a, r| a + u128::from(r.stats.count));
        let selfs = self
            .rows
            .iter()
            .fold(0u128, |a, r| a + u128::from(r.stats.self_ns));
        // LeanProfiler counts every event as a call; leanscope, grouped by name or
        // class, only the outermost events of each row (the rest are inside them).
        let (every_event, by_events) = match self.kind {
            SummaryKind::LeanProfiler => (true, true),
            SummaryKind::Leanscope => (
                false,
                matches!(
                    self.group_by,
                    Some(super::GroupBy::Name)
                        | Some(super::GroupBy::Class)
                        | Some(super::GroupBy::Key)
                ),
            ),
        };
        let event_count = u128::from(self.event_count);
        if (every_event && calls != event_count) || (by_events && calls > event_count) {
            return Err(bad(
                "$.rows",
                format!(
                    "calls add up to {calls}, but event_count is {}",
                    self.event_count
                ),
            ));
        }
        if by_events && selfs != u128::from(self.recorded_thread_time_ns) {
            return Err(bad(
                "$.rows",
                format!(
                    "self_ns adds up to {selfs}, but recorded_thread_time_ns is {}",
                    self.recorded_thread_time_ns
                ),
            ));
        }
        let denominator = match self.kind {
            SummaryKind::LeanProfiler => self.recorded_thread_time_ns,
            SummaryKind::Leanscope => u64::try_from(selfs).unwrap_or(u64::MAX),
        };
        for (i, r) in self.rows.iter().enumerate() {
            let expected = share_permille(r.stats.self_ns, denominator);
            if r.share_permille != expected {
                return Err(bad(
                    format!("$.rows[{i}].share_permille"),
                    format!(
                        "found {}, expected {expected} from self_ns and {}",
                        r.share_permille,
                        if self.kind == SummaryKind::LeanProfiler {
                            "recorded_thread_time_ns"
                        } else {
                            "the rows' summed self_ns"
                        }
                    ),
                ));
            }
        }
        if (self.validation_issues.len() as u64) > self.validation_issue_count {
            return Err(bad(
                "$.validation_issue_count",
                format!(
                    "{} issues are listed but the count is {}",
                    self.validation_issues.len(),
                    self.validation_issue_count
                ),
            ));
        }
        if self.event_count == 0 && (self.thread_count != 0 || self.trace_window_ns != 0) {
            return Err(bad(
                "$.thread_count",
                "an empty capture must have zero threads and an empty window",
            ));
        }
        if self.event_count > 0 && (self.thread_count == 0 || self.thread_count > self.event_count)
        {
            return Err(bad(
                "$.thread_count",
                format!(
                    "expected a value from 1 through event_count ({}), found {}",
                    self.event_count, self.thread_count
                ),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Stats;
    use crate::summary::{GroupBy, LeanscopeKey, SummaryKey, SummaryRow};

    fn summary() -> Summary {
        let row = |name: &str, d: &mut [u64], self_ns| SummaryRow {
            key: SummaryKey::Leanscope(LeanscopeKey::named(name)),
            stats: Stats::from_durations(d, self_ns),
            share_permille: 0,
            counters: None,
        };
        let mut s = Summary {
            kind: SummaryKind::Leanscope,
            measure: crate::Measure::Time,
            group_by: Some(GroupBy::Class),
            event_count: 3,
            thread_count: 1,
            max_depth: 2,
            trace_origin_ns: 0,
            trace_window_ns: 10,
            recorded_thread_time_ns: 10,
            dropped_events: 0,
            validation_issue_count: 0,
            validation_issues: vec![],
            rows: vec![row("a", &mut [10], 6), row("b", &mut [2, 2], 4)],
        };
        s.rows[0].share_permille = 600;
        s.rows[1].share_permille = 400;
        s
    }

    #[test]
    fn a_consistent_summary_passes() {
        summary().check().unwrap();
    }

    #[test]
    fn each_broken_invariant_names_its_path() {
        type Breaker = fn(&mut Summary);
        let cases: Vec<(Breaker, &str)> = vec![
            (|s| s.rows[1].stats.mean_ns = 3, "$.rows[1]"),
            (|s| s.rows[1].stats.self_ns = 5, "$.rows[1]"),
            (
                |s| s.rows[0].share_permille = 601,
                "$.rows[0].share_permille",
            ),
            (|s| s.rows[1].stats.count = 0, "$.rows[1].calls"),
            (|s| s.rows[1].key = s.rows[0].key.clone(), "$.rows[1].key"),
            (|s| s.event_count = 2, "$.rows"),
            (|s| s.thread_count = 0, "$.thread_count"),
            (|s| s.rows[0].stats.p95_ns = 9, "$.rows[0]"),
        ];
        for (break_it, path) in cases {
            let mut s = summary();
            break_it(&mut s);
            let e = s.check().expect_err(path);
            assert_eq!(e.path, path, "{e}");
        }
    }
}
