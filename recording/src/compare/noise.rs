//! Noise-aware comparison of repeated measurements (`profile --repeat N`
//! on both sides): a row is a regression only when the change of its
//! medians exceeds both tolerances **and** either the two sides' spreads
//! (min–max) do not overlap, or a seeded bootstrap confidence interval of
//! the difference of medians excludes zero. An improvement is the same
//! the other way. Otherwise the change is noise. The verdict says which
//! rule decided.
//!
//! The bootstrap: [`BOOTSTRAP_RESAMPLES`] times, each side is resampled
//! with replacement (as many values as it has) and the difference of the
//! resamples' medians (candidate − baseline) kept; the interval is the
//! [`CONFIDENCE`] central one of those differences (quantiles by linear
//! interpolation, as everywhere in [`crate::repeats`]). The random numbers
//! are SplitMix64 from a seed mixed with the row's key, so the same inputs
//! give the same answer on every machine.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{
    change_bps, compare, CompareError, Comparison, MatchedRow, Metric, Status, Tolerance,
    UnmatchedRow,
};
use crate::repeats::quantile;
use crate::summary::{Summary, SummaryKey};

/// Resamples of the bootstrap.
pub const BOOTSTRAP_RESAMPLES: usize = 2000;
/// The interval's coverage.
pub const CONFIDENCE: f64 = 0.95;
/// The seed used when none is given.
pub const DEFAULT_SEED: u64 = 0x6c65_616e_7363_6f70; // "leanscop"

/// Which rule decided a row's status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// The medians' change is within the tolerances.
    Tolerance,
    /// Beyond the tolerances, and the sides' min–max ranges do not overlap.
    SpreadsSeparate,
    /// Beyond the tolerances, the ranges overlap, and the bootstrap interval
    /// of the difference of medians excludes zero.
    Bootstrap,
    /// Beyond the tolerances, but the ranges overlap and the interval holds
    /// zero: noise.
    Noise,
}

/// The verdict on one row.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Verdict {
    pub status: Status,
    pub rule: Rule,
    pub baseline_median: f64,
    pub candidate_median: f64,
    /// The bootstrap interval of candidate − baseline medians (low, high).
    pub interval: (f64, f64),
}

/// Decides a row from its values per run on each side (neither empty),
/// under `tolerance`, with the bootstrap seeded by `seed` and `key`.
pub fn decide(
    baseline: &[u64],
    candidate: &[u64],
    tolerance: &Tolerance,
    seed: u64,
    key: &str,
) -> Verdict {
    let sorted = |v: &[u64]| {
        let mut s: Vec<f64> = v.iter().map(|&x| x as f64).collect();
        s.sort_by(f64::total_cmp);
        s
    };
    let (b, c) = (sorted(baseline), sorted(candidate));
    let (bm, cm) = (quantile(&b, 0.5), quantile(&c, 0.5));
    let interval = bootstrap(&b, &c, mix(seed, key));
    let (bi, ci) = (bm.round() as u64, cm.round() as u64);
    let verdict = |status, rule| Verdict {
        status,
        rule,
        baseline_median: bm,
        candidate_median: cm,
        interval,
    };
    let up = tolerance.exceeded(bi, ci);
    let down = tolerance.exceeded(ci, bi);
    if !up && !down {
        return verdict(Status::WithinTolerance, Rule::Tolerance);
    }
    let (status, separate, excludes) = if up {
        (Status::Regression, b[b.len() - 1] < c[0], interval.0 > 0.0)
    } else {
        (Status::Improvement, c[c.len() - 1] < b[0], interval.1 < 0.0)
    };
    if separate {
        verdict(status, Rule::SpreadsSeparate)
    } else if excludes {
        verdict(status, Rule::Bootstrap)
    } else {
        verdict(Status::WithinTolerance, Rule::Noise)
    }
}

/// Compares two repeated captures, each given as one summary per run: per
/// key, `metric`'s value in each run that has the key, then [`decide`] on
/// the two sides' values. Matched rows carry the medians (rounded) and the
/// verdict's status; rows on one side only carry their median. The
/// verdicts are in the order of the matched rows. The same checks as
/// [`compare`] (measures, kinds, groupings, metric) on the first runs.
pub fn compare_runs(
    baseline: &[Summary],
    candidate: &[Summary],
    metric: Metric,
    tolerance: Tolerance,
    seed: u64,
) -> Result<(Comparison, Vec<Verdict>), CompareError> {
    if let (Some(b), Some(c)) = (baseline.first(), candidate.first()) {
        compare(b, c, metric, tolerance)?;
    }
    type Values = BTreeMap<SummaryKey, (Vec<u64>, Vec<u64>)>;
    let values = |runs: &[Summary]| -> Values {
        let mut m = Values::new();
        for s in runs {
            for r in &s.rows {
                let v = m.entry(r.key.clone()).or_default();
                v.0.push(metric.value(r));
                v.1.push(r.stats.count);
            }
        }
        m
    };
    let median = |v: &[u64]| {
        let mut s: Vec<f64> = v.iter().map(|&x| x as f64).collect();
        s.sort_by(f64::total_cmp);
        quantile(&s, 0.5).round() as u64
    };
    let (mut b, c) = (values(baseline), values(candidate));
    let (mut matched, mut new, mut verdicts) = (Vec::new(), Vec::new(), Vec::new());
    for (key, (cv, cc)) in c {
        match b.remove(&key) {
            Some((bv, bc)) => {
                let v = decide(&bv, &cv, &tolerance, seed, &key.label());
                let (bm, cm) = (
                    v.baseline_median.round() as u64,
                    v.candidate_median.round() as u64,
                );
                matched.push(MatchedRow {
                    key,
                    status: v.status,
                    baseline: bm,
                    candidate: cm,
                    delta: i128::from(cm) - i128::from(bm),
                    change_bps: change_bps(bm, cm),
                    baseline_calls: median(&bc),
                    candidate_calls: median(&cc),
                });
                verdicts.push(v);
            }
            None => new.push(UnmatchedRow {
                value: median(&cv),
                calls: median(&cc),
                key,
            }),
        }
    }
    let missing = b
        .into_iter()
        .map(|(key, (bv, bc))| UnmatchedRow {
            value: median(&bv),
            calls: median(&bc),
            key,
        })
        .collect();
    Ok((
        Comparison {
            metric,
            tolerance,
            matched,
            missing,
            new,
        },
        verdicts,
    ))
}

/// The [`CONFIDENCE`] bootstrap interval of median(c*) − median(b*).
fn bootstrap(b: &[f64], c: &[f64], seed: u64) -> (f64, f64) {
    let mut rng = SplitMix64(seed);
    let mut diffs = Vec::with_capacity(BOOTSTRAP_RESAMPLES);
    let (mut rb, mut rc) = (vec![0.0; b.len()], vec![0.0; c.len()]);
    for _ in 0..BOOTSTRAP_RESAMPLES {
        for (out, from) in [(&mut rb, b), (&mut rc, c)] {
            for x in out.iter_mut() {
                *x = from[rng.below(from.len())];
            }
            out.sort_by(f64::total_cmp);
        }
        diffs.push(quantile(&rc, 0.5) - quantile(&rb, 0.5));
    }
    diffs.sort_by(f64::total_cmp);
    let tail = (1.0 - CONFIDENCE) / 2.0;
    (quantile(&diffs, tail), quantile(&diffs, 1.0 - tail))
}

/// The seed for one row: `seed` mixed with the FNV-1a hash of its key.
fn mix(seed: u64, key: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in key.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    seed ^ h
}

/// SplitMix64 (Steele, Lea and Flood, 2014): small, fast, fixed by its seed.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (n > 0), by rejection so that none is favoured.
    fn below(&mut self, n: usize) -> usize {
        let n = n as u64;
        let zone = u64::MAX - u64::MAX % n;
        loop {
            let x = self.next();
            if x < zone {
                return (x % n) as usize;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NONE: Tolerance = Tolerance {
        absolute: 0,
        relative_bps: 0,
    };

    #[test]
    fn separated_spreads_decide_a_regression() {
        let v = decide(&[100, 102, 98, 101], &[120, 118, 125, 119], &NONE, 1, "k");
        assert_eq!(
            (v.status, v.rule),
            (Status::Regression, Rule::SpreadsSeparate)
        );
        assert_eq!((v.baseline_median, v.candidate_median), (100.5, 119.5));
        let v = decide(&[120, 118, 125, 119], &[100, 102, 98, 101], &NONE, 1, "k");
        assert_eq!(
            (v.status, v.rule),
            (Status::Improvement, Rule::SpreadsSeparate)
        );
    }

    #[test]
    fn overlapping_spreads_are_noise_unless_the_bootstrap_says_otherwise() {
        // One outlier makes the ranges overlap; the medians still differ
        // clearly: the bootstrap interval excludes zero.
        let base = [100, 101, 99, 100, 102, 100, 101, 130];
        let cand = [120, 121, 119, 120, 122, 120, 121, 95];
        let v = decide(&base, &cand, &NONE, 7, "k");
        assert_eq!(
            (v.status, v.rule),
            (Status::Regression, Rule::Bootstrap),
            "{v:?}"
        );
        assert!(v.interval.0 > 0.0);
        // The same values on both sides but shuffled: the change is noise.
        let v = decide(&[100, 140, 90, 130], &[135, 95, 101, 120], &NONE, 7, "k");
        assert_eq!(
            (v.status, v.rule),
            (Status::WithinTolerance, Rule::Noise),
            "{v:?}"
        );
        assert!(v.interval.0 <= 0.0 && v.interval.1 >= 0.0);
    }

    #[test]
    fn identical_inputs_and_tolerances() {
        let v = decide(&[100, 110, 105], &[100, 110, 105], &NONE, 3, "k");
        assert_eq!(
            (v.status, v.rule),
            (Status::WithinTolerance, Rule::Tolerance)
        );
        assert_eq!(v.interval.0.min(0.0), v.interval.0);
        // A clear change within the tolerance is not flagged.
        let tol = Tolerance {
            absolute: 50,
            relative_bps: 0,
        };
        let v = decide(&[100, 101], &[140, 141], &tol, 3, "k");
        assert_eq!(
            (v.status, v.rule),
            (Status::WithinTolerance, Rule::Tolerance)
        );
    }

    fn run(rows: &[(&str, u64)]) -> Summary {
        use crate::model::Stats;
        use crate::summary::{GroupBy, LeanscopeKey, SummaryKind, SummaryRow};
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
                .map(|&(name, total)| SummaryRow {
                    key: SummaryKey::Leanscope(LeanscopeKey::named(name)),
                    stats: Stats {
                        count: 1,
                        total_ns: total,
                        self_ns: total,
                        ..Stats::default()
                    },
                    share_permille: 0,
                    counters: None,
                })
                .collect(),
        }
    }

    #[test]
    fn runs_compare_by_their_medians_with_a_verdict_per_row() {
        let base = [
            run(&[("slow", 100), ("noisy", 100), ("gone", 5)]),
            run(&[("slow", 102), ("noisy", 140)]),
            run(&[("slow", 98), ("noisy", 90)]),
        ];
        let cand = [
            run(&[("slow", 150), ("noisy", 135), ("fresh", 7)]),
            run(&[("slow", 149), ("noisy", 95)]),
            run(&[("slow", 151), ("noisy", 101)]),
        ];
        let (c, v) = compare_runs(&base, &cand, Metric::TotalNs, NONE, 9).unwrap();
        assert_eq!(c.matched.len(), 2);
        let at = |name: &str| {
            let i = c
                .matched
                .iter()
                .position(|r| r.key.label() == name)
                .unwrap();
            (&c.matched[i], v[i])
        };
        let (slow, sv) = at("slow");
        assert_eq!(
            (slow.baseline, slow.candidate, slow.status),
            (100, 150, Status::Regression)
        );
        assert_eq!(sv.rule, Rule::SpreadsSeparate);
        let (noisy, nv) = at("noisy");
        assert_eq!((noisy.baseline, noisy.candidate), (100, 101));
        assert_eq!(
            (noisy.status, nv.rule),
            (Status::WithinTolerance, Rule::Noise)
        );
        assert_eq!(c.new.len(), 1);
        assert_eq!(c.missing.len(), 1);
        assert_eq!((c.new[0].value, c.missing[0].value), (7, 5));
    }

    #[test]
    fn the_seeded_bootstrap_gives_the_same_answer_twice() {
        let base = [100, 104, 97, 110, 101, 99];
        let cand = [103, 109, 100, 115, 104, 98];
        let a = decide(&base, &cand, &NONE, 42, "decl");
        let b = decide(&base, &cand, &NONE, 42, "decl");
        assert_eq!(a, b);
        // Another seed resamples differently (the interval moves).
        let c = decide(&base, &cand, &NONE, 43, "decl");
        assert_ne!(a.interval, c.interval);
    }
}
