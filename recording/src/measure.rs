//! What a recording's numbers count: time (nanoseconds), Lean's heartbeats, or, for a trace
//! Lean printed without `trace.profiler` (no times at all), trace nodes.
//!
//! Lean's `trace.profiler.useHeartbeats=true` makes the trace profiler measure each node by the
//! heartbeats it used (`IO.getNumHeartbeats` before and after, `withStartStop` in
//! `src/Lean/Util/Trace.lean`) instead of the monotonic clock. A recording of such a run keeps
//! the integers in the same columns (`start`, `duration`, `threshold_ns`, `elapsed_ns`) and says
//! so in [`Header::measure`](crate::Header::measure); everything shown to a user is formatted
//! through [`Measure::format`], so a heartbeat count is never printed as a time.

use serde::{Deserialize, Serialize};

/// What the event columns, the threshold and the elapsed value of a recording count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Measure {
    /// Nanoseconds of time (every recording written before the field existed).
    #[default]
    Time,
    /// Lean's heartbeats (small allocations counted by its runtime).
    Heartbeats,
    /// No measurement: a trace printed without `trace.profiler` has no times. Each event's
    /// duration is the number of trace nodes in its subtree (itself and its descendants, laid
    /// out back to back), so self values are occurrences and totals count nodes; no value of
    /// such a recording is a time, and none is ever written as one.
    Untimed,
}

impl Measure {
    /// Every measure, in the order of their schema values.
    pub const ALL: [Measure; 3] = [Measure::Time, Measure::Heartbeats, Measure::Untimed];

    /// What a capture or an import can be asked to measure (`--measure`): an untimed
    /// recording is what Lean's output says, never a choice.
    pub const MEASURABLE: [Measure; 2] = [Measure::Time, Measure::Heartbeats];

    /// The name used on the command line and in JSON (`time`, `heartbeats`, `untimed`).
    pub fn as_str(self) -> &'static str {
        match self {
            Measure::Time => "time",
            Measure::Heartbeats => "heartbeats",
            Measure::Untimed => "untimed",
        }
    }

    /// Whether the values are times (or heartbeats): false for an untimed recording, whose
    /// views show counts.
    pub fn is_measured(self) -> bool {
        self != Measure::Untimed
    }

    /// The measure named `name` (see [`Measure::as_str`]).
    pub fn parse(name: &str) -> Option<Measure> {
        Measure::ALL.into_iter().find(|m| m.as_str() == name)
    }

    /// The unit of the raw integers, as JSON outputs name it (`ns`, `heartbeats`, `nodes`).
    pub fn unit(self) -> &'static str {
        match self {
            Measure::Time => "ns",
            Measure::Heartbeats => "heartbeats",
            Measure::Untimed => "nodes",
        }
    }

    /// The unit in words, for messages (`nanoseconds`, `heartbeats`, trace nodes).
    pub fn unit_name(self) -> &'static str {
        match self {
            Measure::Time => "time (nanoseconds)",
            Measure::Heartbeats => "heartbeats",
            Measure::Untimed => "no timings (counts of trace nodes)",
        }
    }

    /// A value of this measure for people: `1.234 s`, `12.3 ms`, `850 µs`, `12 ns`; or
    /// `12.4 k hb`, `3.21 M hb`, `1.50 G hb`, `850 hb`; or `1 node`, `12 nodes`. The rule is written once, here, and
    /// pinned by `fixtures/format/values.json` to the viewer's and the editor's
    /// (`viewer-wasm/www/format.js`), which must print the same text for the same number.
    pub fn format(self, value: u64) -> String {
        self.format_in_unit_of(i128::from(value), u128::from(value))
    }

    /// `value` in the unit a value of magnitude `scale` is written in, so that values shown
    /// together share one unit (`0.310 s` beside `1.240 s`); a negative value (a timeline
    /// window before the clock's zero) keeps its sign.
    ///
    /// Time: seconds with 3 decimals from 1 s, milliseconds with 1 from 1 ms, microseconds
    /// with none from 1 µs, else whole nanoseconds. Heartbeats: `T`, `G`, `M` or `k hb` from
    /// 10¹², 10⁹, 10⁶, 10³, with three significant digits (0, 1 or 2 decimals as the value is
    /// at least 100, 10 or neither in that unit), else whole heartbeats. Untimed: the whole
    /// count of trace nodes, whatever the scale. Rounding is half away from zero, in integers,
    /// so no binary fraction moves a digit.
    pub fn format_in_unit_of(self, value: i128, scale: u128) -> String {
        let magnitude = value.unsigned_abs();
        match self {
            Measure::Time => {
                const UNITS: [(u128, &str, u32); 3] = [
                    (1_000_000_000, "s", 3),
                    (1_000_000, "ms", 1),
                    (1_000, "µs", 0),
                ];
                match UNITS.iter().find(|(unit, _, _)| scale >= *unit) {
                    Some(&(unit, name, decimals)) => {
                        format!("{} {name}", fixed(value, unit, decimals))
                    }
                    None => format!("{value} ns"),
                }
            }
            Measure::Heartbeats => {
                const UNITS: [(u128, &str); 4] = [
                    (1_000_000_000_000, "T hb"),
                    (1_000_000_000, "G hb"),
                    (1_000_000, "M hb"),
                    (1_000, "k hb"),
                ];
                match UNITS.iter().find(|(unit, _)| scale >= *unit) {
                    Some(&(unit, name)) => {
                        let decimals = if magnitude >= 100 * unit {
                            0
                        } else if magnitude >= 10 * unit {
                            1
                        } else {
                            2
                        };
                        format!("{} {name}", fixed(value, unit, decimals))
                    }
                    None => format!("{value} hb"),
                }
            }
            Measure::Untimed => {
                let plural = if magnitude == 1 { "" } else { "s" };
                format!("{value} node{plural}")
            }
        }
    }

    pub(crate) fn to_u8(self) -> u8 {
        match self {
            Measure::Time => 0,
            Measure::Heartbeats => 1,
            Measure::Untimed => 2,
        }
    }

    pub(crate) fn from_u8(v: u8) -> Option<Measure> {
        match v {
            0 => Some(Measure::Time),
            1 => Some(Measure::Heartbeats),
            2 => Some(Measure::Untimed),
            _ => None,
        }
    }
}

impl std::fmt::Display for Measure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `value / unit` with `decimals` decimals, rounded half away from zero; no sign on a zero.
fn fixed(value: i128, unit: u128, decimals: u32) -> String {
    let pow = 10u128.pow(decimals);
    let q = (value.unsigned_abs() * pow + unit / 2) / unit;
    let sign = if value < 0 && q != 0 { "-" } else { "" };
    if decimals == 0 {
        format!("{sign}{q}")
    } else {
        let width = decimals as usize;
        format!("{sign}{}.{:0width$}", q / pow, q % pow)
    }
}

#[cfg(test)]
mod tests {
    use super::Measure;

    #[test]
    fn time_picks_units() {
        assert_eq!(Measure::Time.format(1_234_000_000), "1.234 s");
        assert_eq!(Measure::Time.format(12_340_000), "12.3 ms");
        assert_eq!(Measure::Time.format(850_000), "850 µs");
        assert_eq!(Measure::Time.format(12), "12 ns");
    }

    #[test]
    fn heartbeats_never_look_like_time() {
        assert_eq!(Measure::Heartbeats.format(12_400), "12.4 k hb");
        assert_eq!(Measure::Heartbeats.format(1_234), "1.23 k hb");
        assert_eq!(Measure::Heartbeats.format(999), "999 hb");
        assert_eq!(Measure::Heartbeats.format(0), "0 hb");
        assert_eq!(Measure::Heartbeats.format(3_210_000), "3.21 M hb");
        assert_eq!(Measure::Heartbeats.format(150_000_000), "150 M hb");
        assert_eq!(Measure::Heartbeats.format(2_000_000_000), "2.00 G hb");
        assert!(Measure::Heartbeats.format(u64::MAX).ends_with(" T hb"));
    }

    #[test]
    fn names_round_trip() {
        for m in Measure::ALL {
            assert_eq!(Measure::parse(m.as_str()), Some(m));
            assert_eq!(Measure::from_u8(m.to_u8()), Some(m));
        }
        assert_eq!(Measure::parse("seconds"), None);
        assert_eq!(Measure::from_u8(3), None);
    }

    #[test]
    fn untimed_values_are_counts_never_times() {
        assert_eq!(Measure::Untimed.format(0), "0 nodes");
        assert_eq!(Measure::Untimed.format(1), "1 node");
        assert_eq!(Measure::Untimed.format(1_234_567), "1234567 nodes");
        assert_eq!(Measure::Untimed.format_in_unit_of(3, 5_000_000), "3 nodes");
    }
}
