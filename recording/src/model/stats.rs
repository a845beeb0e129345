//! Row statistics, with the same definitions as LeanProfiler's summaries.

use serde::{Deserialize, Serialize};

/// count, total, self, min, mean (floor), median and p95 (nearest rank,
/// rank = ceil(p·n)), max; all times in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Stats {
    pub count: u64,
    pub total_ns: u64,
    pub self_ns: u64,
    pub min_ns: u64,
    pub mean_ns: u64,
    pub median_ns: u64,
    pub p95_ns: u64,
    pub max_ns: u64,
}

impl Stats {
    /// Statistics of `durations` (sorted in place); `self_ns` is carried.
    pub fn from_durations(durations: &mut [u64], self_ns: u64) -> Stats {
        durations.sort_unstable();
        let n = durations.len() as u64;
        if n == 0 {
            return Stats {
                self_ns,
                ..Stats::default()
            };
        }
        let total = durations.iter().fold(0u64, |a, &d| a.saturating_add(d));
        Stats {
            count: n,
            total_ns: total,
            self_ns,
            min_ns: durations[0],
            mean_ns: total / n,
            median_ns: durations[nearest_rank(50, n) - 1],
            p95_ns: durations[nearest_rank(95, n) - 1],
            max_ns: durations[n as usize - 1],
        }
    }
}

/// The 1-based nearest rank of the `percent`-th percentile of `n` values:
/// ceil(percent/100 · n), at least 1.
pub fn nearest_rank(percent: u64, n: u64) -> usize {
    (percent * n).div_ceil(100).max(1) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_edges() {
        assert_eq!(nearest_rank(50, 1), 1);
        assert_eq!(nearest_rank(50, 2), 1);
        assert_eq!(nearest_rank(50, 3), 2);
        assert_eq!(nearest_rank(95, 20), 19);
        assert_eq!(nearest_rank(95, 21), 20);
        assert_eq!(nearest_rank(95, 100), 95);
    }

    #[test]
    fn stats_of_small_sample() {
        let mut d = vec![5, 1, 4, 2, 3];
        let s = Stats::from_durations(&mut d, 7);
        assert_eq!(
            s,
            Stats {
                count: 5,
                total_ns: 15,
                self_ns: 7,
                min_ns: 1,
                mean_ns: 3,
                median_ns: 3,
                p95_ns: 5,
                max_ns: 5
            }
        );
        let s = Stats::from_durations(&mut [10, 11], 0);
        assert_eq!((s.mean_ns, s.median_ns, s.p95_ns), (10, 10, 11));
        assert_eq!(Stats::from_durations(&mut [], 0).count, 0);
    }
}
