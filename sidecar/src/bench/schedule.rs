//! The order of a bench's runs: for each file, `warmup` discarded runs of
//! each mode first; then `repeats` rounds, round `r` taking the files
//! rotated by `r` (round 1 starts at the second file, ...) and, per file,
//! plain then profiled in even rounds and profiled then plain in odd ones.

use super::Mode;

/// One run of the schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Run {
    pub file: usize,
    pub mode: Mode,
    /// 0-based repeat; `None` for a warm-up.
    pub repeat: Option<u32>,
}

/// Every run of a bench of `files` files, in order.
pub fn schedule(files: usize, repeats: u32, warmup: u32) -> Vec<Run> {
    let mut runs = Vec::new();
    for file in 0..files {
        for _ in 0..warmup {
            for mode in [Mode::Plain, Mode::Profiled] {
                runs.push(Run {
                    file,
                    mode,
                    repeat: None,
                });
            }
        }
    }
    for r in 0..repeats {
        let modes = if r % 2 == 0 {
            [Mode::Plain, Mode::Profiled]
        } else {
            [Mode::Profiled, Mode::Plain]
        };
        for k in 0..files {
            let file = (k + r as usize) % files;
            for mode in modes {
                runs.push(Run {
                    file,
                    mode,
                    repeat: Some(r),
                });
            }
        }
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warm_ups_first_then_interleaved_and_rotated() {
        let runs = schedule(3, 2, 1);
        let short: Vec<(usize, char, Option<u32>)> = runs
            .iter()
            .map(|r| {
                let m = if r.mode == Mode::Plain { 'p' } else { 'P' };
                (r.file, m, r.repeat)
            })
            .collect();
        assert_eq!(
            short,
            vec![
                (0, 'p', None),
                (0, 'P', None),
                (1, 'p', None),
                (1, 'P', None),
                (2, 'p', None),
                (2, 'P', None),
                (0, 'p', Some(0)),
                (0, 'P', Some(0)),
                (1, 'p', Some(0)),
                (1, 'P', Some(0)),
                (2, 'p', Some(0)),
                (2, 'P', Some(0)),
                (1, 'P', Some(1)),
                (1, 'p', Some(1)),
                (2, 'P', Some(1)),
                (2, 'p', Some(1)),
                (0, 'P', Some(1)),
                (0, 'p', Some(1)),
            ]
        );
    }

    #[test]
    fn every_file_and_mode_once_per_repeat() {
        for (files, repeats, warmup) in [(1, 4, 0), (5, 7, 2), (2, 1, 1)] {
            let runs = schedule(files, repeats, warmup);
            assert_eq!(runs.len(), files * 2 * (repeats + warmup) as usize);
            for r in 0..repeats {
                for f in 0..files {
                    for m in [Mode::Plain, Mode::Profiled] {
                        let n = runs
                            .iter()
                            .filter(|x| x.repeat == Some(r) && x.file == f && x.mode == m)
                            .count();
                        assert_eq!(n, 1);
                    }
                }
            }
        }
    }
}
