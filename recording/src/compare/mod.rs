//! Comparing a baseline summary with a candidate summary.
//!
//! Rows match on their full key. Smaller values are better. For a matched
//! row, a candidate value below the baseline is an *improvement*; an
//! increase is a *regression* only when it is strictly greater than both
//! the absolute tolerance and the relative tolerance (in basis points of
//! the baseline; 100 bps = 1 %). With a zero baseline there is no finite
//! relative change, so the absolute tolerance alone decides. Anything else
//! is *within tolerance*. Baseline-only rows are *missing*, candidate-only
//! rows are *new*; they fail a comparison only when the policy says so.
//! These are LeanProfiler's `compare` semantics.

pub mod noise;

use serde::Serialize;

use crate::summary::{Summary, SummaryKey, SummaryKind, SummaryRow};

/// The statistic compared between matched rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    TotalNs,
    SelfNs,
    MeanNs,
    MedianNs,
    P95Ns,
    MaxNs,
    MinNs,
    Calls,
    /// LeanProfiler summaries only.
    TotalHeartbeats,
    /// LeanProfiler summaries only.
    SelfHeartbeats,
    /// LeanProfiler summaries only.
    AllocBytes,
    /// LeanProfiler summaries only.
    PeakLiveBytes,
}

impl Metric {
    pub const ALL: [Metric; 12] = [
        Metric::TotalNs,
        Metric::SelfNs,
        Metric::MeanNs,
        Metric::MedianNs,
        Metric::P95Ns,
        Metric::MaxNs,
        Metric::MinNs,
        Metric::Calls,
        Metric::TotalHeartbeats,
        Metric::SelfHeartbeats,
        Metric::AllocBytes,
        Metric::PeakLiveBytes,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Metric::TotalNs => "total_ns",
            Metric::SelfNs => "self_ns",
            Metric::MeanNs => "mean_ns",
            Metric::MedianNs => "median_ns",
            Metric::P95Ns => "p95_ns",
            Metric::MaxNs => "max_ns",
            Metric::MinNs => "min_ns",
            Metric::Calls => "calls",
            Metric::TotalHeartbeats => "total_heartbeats",
            Metric::SelfHeartbeats => "self_heartbeats",
            Metric::AllocBytes => "alloc_bytes",
            Metric::PeakLiveBytes => "peak_live_bytes",
        }
    }

    pub fn parse(s: &str) -> Option<Metric> {
        Metric::ALL.into_iter().find(|m| m.as_str() == s)
    }

    /// Whether rows of this kind of summary carry the metric.
    pub fn available_in(self, kind: SummaryKind) -> bool {
        kind == SummaryKind::LeanProfiler
            || !matches!(
                self,
                Metric::TotalHeartbeats
                    | Metric::SelfHeartbeats
                    | Metric::AllocBytes
                    | Metric::PeakLiveBytes
            )
    }

    /// The row's value of this metric (0 for counters the row lacks).
    pub fn value(self, row: &SummaryRow) -> u64 {
        let s = &row.stats;
        let c = row.counters.as_deref().copied().unwrap_or_default();
        match self {
            Metric::TotalNs => s.total_ns,
            Metric::SelfNs => s.self_ns,
            Metric::MeanNs => s.mean_ns,
            Metric::MedianNs => s.median_ns,
            Metric::P95Ns => s.p95_ns,
            Metric::MaxNs => s.max_ns,
            Metric::MinNs => s.min_ns,
            Metric::Calls => s.count,
            Metric::TotalHeartbeats => c.total_heartbeats,
            Metric::SelfHeartbeats => c.self_heartbeats,
            Metric::AllocBytes => c.alloc_bytes,
            Metric::PeakLiveBytes => c.peak_live_bytes,
        }
    }
}

impl std::fmt::Display for Metric {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How much a candidate may grow before it is a regression.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Tolerance {
    /// In the metric's unit (nanoseconds for the `_ns` metrics).
    pub absolute: u64,
    /// In basis points of the baseline (100 = 1 %).
    pub relative_bps: u64,
}

impl Tolerance {
    /// True when `candidate` exceeds `baseline` by strictly more than both
    /// tolerances (the absolute one alone when the baseline is zero).
    pub fn exceeded(&self, baseline: u64, candidate: u64) -> bool {
        if candidate <= baseline {
            return false;
        }
        let increase = candidate - baseline;
        let over_absolute = increase > self.absolute;
        let over_relative = baseline == 0
            || u128::from(baseline) * u128::from(self.relative_bps) < u128::from(increase) * 10_000;
        over_absolute && over_relative
    }

    pub fn classify(&self, baseline: u64, candidate: u64) -> Status {
        if candidate < baseline {
            Status::Improvement
        } else if self.exceeded(baseline, candidate) {
            Status::Regression
        } else {
            Status::WithinTolerance
        }
    }
}

/// Signed change of `candidate` against `baseline` in basis points,
/// truncated toward zero; `None` for a zero baseline.
pub fn change_bps(baseline: u64, candidate: u64) -> Option<i64> {
    if baseline == 0 {
        return None;
    }
    let b = u128::from(baseline);
    let magnitude = u128::from(candidate.abs_diff(baseline)) * 10_000 / b;
    let magnitude = i64::try_from(magnitude).unwrap_or(i64::MAX);
    Some(if candidate >= baseline {
        magnitude
    } else {
        -magnitude
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Improvement,
    WithinTolerance,
    Regression,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Improvement => "improvement",
            Status::WithinTolerance => "within_tolerance",
            Status::Regression => "regression",
        }
    }
}

/// A key present in both summaries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MatchedRow {
    pub key: SummaryKey,
    pub status: Status,
    pub baseline: u64,
    pub candidate: u64,
    /// candidate − baseline.
    pub delta: i128,
    pub change_bps: Option<i64>,
    pub baseline_calls: u64,
    pub candidate_calls: u64,
}

/// A key present in only one summary, with its value and calls.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UnmatchedRow {
    pub key: SummaryKey,
    pub value: u64,
    pub calls: u64,
}

/// When a comparison fails besides regressions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct FailPolicy {
    pub fail_on_new: bool,
    pub fail_on_missing: bool,
}

/// The result of comparing two summaries; rows are sorted by key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comparison {
    pub metric: Metric,
    pub tolerance: Tolerance,
    pub matched: Vec<MatchedRow>,
    pub missing: Vec<UnmatchedRow>,
    pub new: Vec<UnmatchedRow>,
}

impl Comparison {
    pub fn has_regression(&self) -> bool {
        self.matched.iter().any(|r| r.status == Status::Regression)
    }

    pub fn count(&self, status: Status) -> usize {
        self.matched.iter().filter(|r| r.status == status).count()
    }

    /// True when the comparison fails: a regression, or new or missing
    /// rows that the policy fails on.
    pub fn policy_failed(&self, policy: &FailPolicy) -> bool {
        self.has_regression()
            || (policy.fail_on_new && !self.new.is_empty())
            || (policy.fail_on_missing && !self.missing.is_empty())
    }
}

/// Why two summaries cannot be compared.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CompareError {
    #[error(
        "cannot compare a baseline measured in {baseline} with a candidate measured in {candidate}: the numbers count different things; capture both with the same --measure"
    )]
    DifferentMeasures {
        baseline: &'static str,
        candidate: &'static str,
    },
    #[error(
        "cannot compare a {baseline} summary with a {candidate} summary: their row keys differ"
    )]
    DifferentKinds {
        baseline: &'static str,
        candidate: &'static str,
    },
    #[error("cannot compare a summary grouped by {baseline} with one grouped by {candidate}")]
    DifferentGrouping {
        baseline: &'static str,
        candidate: &'static str,
    },
    #[error("metric {metric} is only in LeanProfiler summaries")]
    MetricUnavailable { metric: &'static str },
    #[error("the {which} summary is incomplete: {reasons}; pass --allow-incomplete to compare the retained rows deliberately")]
    Incomplete {
        which: &'static str,
        reasons: String,
    },
}

/// Refuses a summary with dropped events or validation issues.
pub fn ensure_complete(which: &'static str, s: &Summary) -> Result<(), CompareError> {
    let reasons = s.incomplete_reasons();
    if reasons.is_empty() {
        Ok(())
    } else {
        Err(CompareError::Incomplete {
            which,
            reasons: reasons.join(", "),
        })
    }
}

/// Compares the rows of two summaries by `metric` under `tolerance`.
pub fn compare(
    baseline: &Summary,
    candidate: &Summary,
    metric: Metric,
    tolerance: Tolerance,
) -> Result<Comparison, CompareError> {
    if baseline.measure != candidate.measure {
        return Err(CompareError::DifferentMeasures {
            baseline: baseline.measure.unit_name(),
            candidate: candidate.measure.unit_name(),
        });
    }
    if baseline.kind != candidate.kind {
        return Err(CompareError::DifferentKinds {
            baseline: baseline.kind.as_str(),
            candidate: candidate.kind.as_str(),
        });
    }
    if let (Some(b), Some(c)) = (baseline.group_by, candidate.group_by) {
        if b != c {
            return Err(CompareError::DifferentGrouping {
                baseline: b.as_str(),
                candidate: c.as_str(),
            });
        }
    }
    if !metric.available_in(baseline.kind) {
        return Err(CompareError::MetricUnavailable {
            metric: metric.as_str(),
        });
    }
    let mut base: Vec<&SummaryRow> = baseline.rows.iter().collect();
    let mut cand: Vec<&SummaryRow> = candidate.rows.iter().collect();
    base.sort_by(|a, b| a.key.cmp(&b.key));
    cand.sort_by(|a, b| a.key.cmp(&b.key));
    let unmatched = |r: &SummaryRow| UnmatchedRow {
        key: r.key.clone(),
        value: metric.value(r),
        calls: r.stats.count,
    };
    let (mut matched, mut missing, mut new) = (Vec::new(), Vec::new(), Vec::new());
    let (mut i, mut j) = (0, 0);
    while i < base.len() || j < cand.len() {
        let order = match (base.get(i), cand.get(j)) {
            (Some(b), Some(c)) => b.key.cmp(&c.key),
            (Some(_), None) => std::cmp::Ordering::Less,
            _ => std::cmp::Ordering::Greater,
        };
        match order {
            std::cmp::Ordering::Less => {
                missing.push(unmatched(base[i]));
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                new.push(unmatched(cand[j]));
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                let (b, c) = (base[i], cand[j]);
                let (bv, cv) = (metric.value(b), metric.value(c));
                matched.push(MatchedRow {
                    key: b.key.clone(),
                    status: tolerance.classify(bv, cv),
                    baseline: bv,
                    candidate: cv,
                    delta: i128::from(cv) - i128::from(bv),
                    change_bps: change_bps(bv, cv),
                    baseline_calls: b.stats.count,
                    candidate_calls: c.stats.count,
                });
                i += 1;
                j += 1;
            }
        }
    }
    Ok(Comparison {
        metric,
        tolerance,
        matched,
        missing,
        new,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tol(absolute: u64, relative_bps: u64) -> Tolerance {
        Tolerance {
            absolute,
            relative_bps,
        }
    }

    #[test]
    fn tolerance_boundaries() {
        use Status::*;
        // (absolute, bps, baseline, candidate, expected)
        let table = [
            // Exactly at the absolute tolerance (and over the relative one).
            (100, 0, 1000, 1100, WithinTolerance),
            (100, 0, 1000, 1101, Regression),
            // Exactly at the relative tolerance: 10 % of 1000 is 100.
            (0, 1000, 1000, 1100, WithinTolerance),
            (0, 1000, 1000, 1101, Regression),
            // Only one tolerance exceeded.
            (500, 1000, 1000, 1200, WithinTolerance), // relative exceeded only
            (50, 5000, 1000, 1200, WithinTolerance),  // absolute exceeded only
            (50, 1000, 1000, 1200, Regression),       // both exceeded
            // Zero baseline: the absolute tolerance alone decides.
            (10, 10_000, 0, 10, WithinTolerance),
            (10, 10_000, 0, 11, Regression),
            (0, 0, 0, 0, WithinTolerance),
            // Improvements and no change.
            (0, 0, 1000, 999, Improvement),
            (0, 0, 1000, 1000, WithinTolerance),
            (0, 0, 1000, 1001, Regression),
            // No overflow at the extremes.
            (0, u64::MAX, u64::MAX - 1, u64::MAX, WithinTolerance),
            (0, 0, u64::MAX - 1, u64::MAX, Regression),
        ];
        for (a, r, b, c, want) in table {
            assert_eq!(
                tol(a, r).classify(b, c),
                want,
                "abs {a} bps {r}: {b} -> {c}"
            );
        }
    }

    #[test]
    fn change_in_basis_points_truncates_toward_zero() {
        assert_eq!(change_bps(18_552_832, 36_513_627), Some(9680));
        assert_eq!(change_bps(4_081_433, 10_080_598), Some(14698));
        assert_eq!(change_bps(2_081_287, 2_078_993), Some(-11));
        assert_eq!(change_bps(0, 5), None);
        assert_eq!(change_bps(3, 0), Some(-10_000));
        assert_eq!(change_bps(1, u64::MAX), Some(i64::MAX));
    }

    #[test]
    fn metrics_parse_by_their_names() {
        for m in Metric::ALL {
            assert_eq!(Metric::parse(m.as_str()), Some(m));
        }
        assert_eq!(Metric::parse("wall_ns"), None);
        assert!(!Metric::AllocBytes.available_in(SummaryKind::Leanscope));
        assert!(Metric::AllocBytes.available_in(SummaryKind::LeanProfiler));
    }
}
