//! What a trace header's number counts when Lean's text is imported: seconds, or heartbeats
//! (`trace.profiler.useHeartbeats`, `import --measure heartbeats`). The text does not say which
//! (`[0.044870]` and `[79702772.000000]` are both `Float.toString`), so the user names it, and
//! the import warns where the numbers contradict the choice:
//!
//! - read as time, a tree whose every timed header is a whole number and whose largest is at
//!   least a day ([`DAY_SECONDS`]) cannot be seconds: Lean prints six decimals of a measured
//!   duration, so whole values are counts; no elaboration step of a shared profile takes a day;
//! - read as heartbeats, a tree with a fractional value was timed by the clock; its values are
//!   rounded to whole heartbeats.

use recording::Measure;

use crate::capture::lean_output::trace_text::{TraceForest, TraceTiming};

/// A day in seconds: read as time, a whole-valued tree reaching this is taken for heartbeats.
pub const DAY_SECONDS: u64 = 86_400;

const NS_PER_SECOND: u64 = 1_000_000_000;

/// A header's value in the recording's measure.
pub fn value(measure: Measure, t: TraceTiming) -> u64 {
    match measure {
        Measure::Time => t.nanoseconds,
        Measure::Heartbeats => t.whole_units,
        // never asked for: an untimed recording is what a trace without times becomes
        Measure::Untimed => 0,
    }
}

/// Whether the printed number is whole (`[52000.000000]`), or too large to be nanoseconds.
fn is_whole(t: TraceTiming) -> bool {
    t.nanoseconds == u64::MAX || t.whole_units.checked_mul(NS_PER_SECOND) == Some(t.nanoseconds)
}

/// Why the values of the tree of `forest` from node `root` to `end` (exclusive) contradict
/// `measure`, naming the header (its 1-based line in the text) that shows it.
pub fn contradiction(
    measure: Measure,
    forest: &TraceForest,
    root: usize,
    end: usize,
) -> Option<(u32, String)> {
    let timed = (root..end).filter_map(|id| Some((id, forest.node(id)?.timing?)));
    match measure {
        Measure::Untimed => None,
        Measure::Time => {
            let mut largest: Option<(usize, TraceTiming)> = None;
            for (id, t) in timed {
                if !is_whole(t) {
                    return None;
                }
                if largest.is_none_or(|(_, l)| t.whole_units > l.whole_units) {
                    largest = Some((id, t));
                }
            }
            let (id, t) = largest.filter(|(_, t)| t.whole_units >= DAY_SECONDS)?;
            Some((
                forest.node(id)?.line,
                format!(
                    "`[{}.000000]` would be {} days: it reads as a count of heartbeats (trace.profiler.useHeartbeats), not seconds; import with --measure heartbeats",
                    t.whole_units,
                    t.whole_units / DAY_SECONDS
                ),
            ))
        }
        Measure::Heartbeats => {
            let (id, t) = timed.into_iter().find(|&(_, t)| !is_whole(t))?;
            let seconds = t.nanoseconds as f64 / NS_PER_SECOND as f64;
            Some((
                forest.node(id)?.line,
                format!(
                    "`[{seconds:.6}]` is not a whole count of heartbeats: this tree was timed in seconds; its values were rounded to {} heartbeats and less",
                    t.whole_units
                ),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::lean_output::trace_text::parse_trace_text;

    fn check(measure: Measure, text: &str) -> Option<(u32, String)> {
        let f = parse_trace_text(text).unwrap();
        contradiction(measure, &f, 0, f.len())
    }

    #[test]
    fn whole_values_over_a_day_are_heartbeats() {
        let (line, why) = check(
            Measure::Time,
            "[Elab.command] [5761662.000000] x\n  [Elab.step] [86400.000000] y",
        )
        .unwrap();
        assert_eq!(line, 1);
        assert!(why.contains("`[5761662.000000]` would be 66 days"), "{why}");
        assert!(why.contains("--measure heartbeats"), "{why}");
        // a day exactly is the edge
        assert!(check(Measure::Time, "[A] [86400.000000] x").is_some());
        assert!(check(Measure::Time, "[A] [86399.000000] x").is_none());
        // one fractional value: seconds
        assert!(check(Measure::Time, "[A] [90000.000000] x\n  [B] [0.5] y").is_none());
        assert!(check(Measure::Time, "[A] untimed").is_none());
    }

    #[test]
    fn fractions_are_not_heartbeats() {
        assert!(check(Measure::Heartbeats, "[A] [52000.000000] x").is_none());
        let (line, why) = check(
            Measure::Heartbeats,
            "[A] [52000.000000] x\n  [B] [0.044870] y",
        )
        .unwrap();
        assert_eq!(line, 2);
        assert!(why.contains("`[0.044870]` is not a whole count"), "{why}");
    }
}
