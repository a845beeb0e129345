//! The spread of a number over the runs of a repeated capture
//! (`leanscope profile --repeat N`): median, min, max and, from four runs
//! on, the quartiles and the interquartile range.
//!
//! One quantile definition everywhere: **linear interpolation between
//! order statistics** (Hyndman and Fan's type 7, what R and NumPy use by
//! default). For the `n` values sorted ascending `x[0] ≤ … ≤ x[n-1]` and a
//! probability `p`, let `h = (n - 1) · p`; the quantile is
//! `x[⌊h⌋] + (h - ⌊h⌋) · (x[⌊h⌋ + 1] - x[⌊h⌋])`. The median is `p = 1/2`
//! (for an even `n`, the mean of the two middle values), the quartiles
//! `p = 1/4` and `p = 3/4`.

use serde::Serialize;

pub mod annotations;
pub mod file_runs;
pub use annotations::{
    annotations_over_runs, AnnotationsOverRuns, DeclarationOverRuns, LineOverRuns,
};
pub use file_runs::{
    median_run, FileRuns, RunTimes, RunsError, TacticKey, TimeSpread, WholeTimeSpread,
};

/// Fewest runs for which quartiles (and the interquartile range) are
/// reported; with fewer, min–max is the whole story.
pub const MIN_RUNS_FOR_QUARTILES: usize = 4;

/// A number over the runs that have it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Spread {
    /// How many runs have the number.
    pub runs: usize,
    pub median: f64,
    pub min: f64,
    pub max: f64,
    /// The first quartile, from [`MIN_RUNS_FOR_QUARTILES`] runs on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub q1: Option<f64>,
    /// The third quartile, from [`MIN_RUNS_FOR_QUARTILES`] runs on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub q3: Option<f64>,
}

impl Spread {
    /// The spread of `values` (in any order); `None` when there are none or
    /// one is not finite.
    pub fn of(values: &[f64]) -> Option<Spread> {
        if values.is_empty() || values.iter().any(|v| !v.is_finite()) {
            return None;
        }
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        let quartiles = sorted.len() >= MIN_RUNS_FOR_QUARTILES;
        Some(Spread {
            runs: sorted.len(),
            median: quantile(&sorted, 0.5),
            min: sorted[0],
            max: sorted[sorted.len() - 1],
            q1: quartiles.then(|| quantile(&sorted, 0.25)),
            q3: quartiles.then(|| quantile(&sorted, 0.75)),
        })
    }

    /// `q3 - q1`, from [`MIN_RUNS_FOR_QUARTILES`] runs on.
    pub fn iqr(&self) -> Option<f64> {
        Some(self.q3? - self.q1?)
    }

    /// The spread of a time (nanoseconds or heartbeats) in whole units, as
    /// answers show it: each value rounded to the nearest whole number
    /// (halves away from zero), a negative or non-finite one as 0.
    pub fn whole(&self) -> WholeSpread {
        WholeSpread {
            runs: self.runs,
            median: whole(self.median),
            min: whole(self.min),
            max: whole(self.max),
            q1: self.q1.map(whole),
            q3: self.q3.map(whole),
        }
    }
}

/// A [`Spread`] of a time in whole nanoseconds (or heartbeats).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WholeSpread {
    pub runs: usize,
    pub median: u64,
    pub min: u64,
    pub max: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub q1: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub q3: Option<u64>,
}

/// `v` rounded to a whole nanosecond (or heartbeat); 0 for a negative or
/// non-finite value.
pub fn whole(v: f64) -> u64 {
    if v.is_finite() && v > 0.0 {
        v.round() as u64
    } else {
        0
    }
}

/// The `p`-quantile of ascending, non-empty `sorted` by linear
/// interpolation between order statistics (see the module's text).
pub fn quantile(sorted: &[f64], p: f64) -> f64 {
    let Some(&last) = sorted.last() else {
        return f64::NAN;
    };
    let h = (sorted.len() - 1) as f64 * p.clamp(0.0, 1.0);
    let lo = h.floor() as usize;
    match sorted.get(lo + 1) {
        Some(&hi) => sorted[lo] + (h - lo as f64) * (hi - sorted[lo]),
        None => last,
    }
}

/// The order of a repeated capture's runs over a plan of `files` files:
/// `warmup` discarded runs of each file first (in plan order), then
/// `repeats` rounds, round `r` (0-based) taking the files rotated by `r`
/// (round 1 starts at the second file, ...). Each item is the file's
/// index in the plan and its 0-based repeat, `None` for a warm-up.
pub fn run_order(files: usize, repeats: u32, warmup: u32) -> Vec<(usize, Option<u32>)> {
    let mut runs = Vec::new();
    for file in 0..files {
        for _ in 0..warmup {
            runs.push((file, None));
        }
    }
    for r in 0..repeats {
        for k in 0..files {
            runs.push(((k + r as usize) % files, Some(r)));
        }
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_run_is_its_own_median_without_quartiles() {
        let s = Spread::of(&[7.5]).unwrap();
        assert_eq!((s.runs, s.median, s.min, s.max), (1, 7.5, 7.5, 7.5));
        assert_eq!((s.q1, s.q3, s.iqr()), (None, None, None));
    }

    #[test]
    fn medians_by_hand() {
        // Odd: the middle value, whatever the order.
        let s = Spread::of(&[30.0, 10.0, 20.0]).unwrap();
        assert_eq!((s.median, s.min, s.max), (20.0, 10.0, 30.0));
        assert_eq!(s.q1, None);
        // Even: the mean of the two middle ones.
        let s = Spread::of(&[10.0, 40.0]).unwrap();
        assert_eq!(s.median, 25.0);
    }

    #[test]
    fn quartiles_from_four_runs_by_hand() {
        // 10 20 30 40: h(1/4) = 0.75 → 10 + 0.75·10 = 17.5;
        // h(1/2) = 1.5 → 25; h(3/4) = 2.25 → 30 + 0.25·10 = 32.5.
        let s = Spread::of(&[40.0, 10.0, 30.0, 20.0]).unwrap();
        assert_eq!(s.median, 25.0);
        assert_eq!((s.q1, s.q3), (Some(17.5), Some(32.5)));
        assert_eq!(s.iqr(), Some(15.0));
        // 1 2 3 4 100: h(1/4) = 1 → 2; h(3/4) = 3 → 4; median 3.
        let s = Spread::of(&[100.0, 3.0, 1.0, 4.0, 2.0]).unwrap();
        assert_eq!((s.median, s.q1, s.q3), (3.0, Some(2.0), Some(4.0)));
        assert_eq!((s.min, s.max), (1.0, 100.0));
    }

    #[test]
    fn three_runs_have_no_quartiles_four_do() {
        assert_eq!(Spread::of(&[1.0, 2.0, 3.0]).unwrap().q1, None);
        assert!(Spread::of(&[1.0, 2.0, 3.0, 4.0]).unwrap().q1.is_some());
    }

    #[test]
    fn nothing_or_a_non_finite_value_has_no_spread() {
        assert_eq!(Spread::of(&[]), None);
        assert_eq!(Spread::of(&[1.0, f64::NAN]), None);
        assert_eq!(Spread::of(&[f64::INFINITY]), None);
    }

    #[test]
    fn whole_spreads_round_halves_up() {
        // 10000 20000 30000 50000 → median 25000, q1 17500, q3 35000.
        let s = Spread::of(&[30000.0, 10000.0, 50000.0, 20000.0]).unwrap();
        let w = s.whole();
        assert_eq!(
            (w.runs, w.median, w.min, w.max, w.q1, w.q3),
            (4, 25000, 10000, 50000, Some(17500), Some(35000))
        );
        // 122.5 → 123; three runs have no quartiles.
        let w = Spread::of(&[122.5, 100.0, 130.0]).unwrap().whole();
        assert_eq!((w.median, w.q1), (123, None));
        assert_eq!(
            serde_json::to_value(w).unwrap(),
            serde_json::json!({"runs": 3, "median": 123, "min": 100, "max": 130})
        );
        assert_eq!((whole(-1.0), whole(f64::NAN), whole(0.5)), (0, 0, 1));
    }

    #[test]
    fn quantile_edges() {
        let x = [1.0, 2.0, 4.0];
        assert_eq!(quantile(&x, 0.0), 1.0);
        assert_eq!(quantile(&x, 1.0), 4.0);
        assert_eq!(quantile(&x, 0.75), 3.0);
        assert!(quantile(&[], 0.5).is_nan());
    }

    #[test]
    fn warm_ups_first_then_rotated_rounds() {
        assert_eq!(
            run_order(3, 3, 1),
            vec![
                (0, None),
                (1, None),
                (2, None),
                (0, Some(0)),
                (1, Some(0)),
                (2, Some(0)),
                (1, Some(1)),
                (2, Some(1)),
                (0, Some(1)),
                (2, Some(2)),
                (0, Some(2)),
                (1, Some(2)),
            ]
        );
        assert_eq!(run_order(1, 2, 0), vec![(0, Some(0)), (0, Some(1))]);
        assert!(run_order(0, 5, 2).is_empty());
    }
}
