//! What a recording's numbers count: time (nanoseconds) or Lean's heartbeats.
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
}

impl Measure {
    /// Every measure, in the order of their schema values.
    pub const ALL: [Measure; 2] = [Measure::Time, Measure::Heartbeats];

    /// The name used on the command line and in JSON (`time`, `heartbeats`).
    pub fn as_str(self) -> &'static str {
        match self {
            Measure::Time => "time",
            Measure::Heartbeats => "heartbeats",
        }
    }

    /// The measure named `name` (see [`Measure::as_str`]).
    pub fn parse(name: &str) -> Option<Measure> {
        Measure::ALL.into_iter().find(|m| m.as_str() == name)
    }

    /// The unit of the raw integers, as JSON outputs name it (`ns`, `heartbeats`).
    pub fn unit(self) -> &'static str {
        match self {
            Measure::Time => "ns",
            Measure::Heartbeats => "heartbeats",
        }
    }

    /// The unit in words, for messages (`nanoseconds`, `heartbeats`).
    pub fn unit_name(self) -> &'static str {
        match self {
            Measure::Time => "time (nanoseconds)",
            Measure::Heartbeats => "heartbeats",
        }
    }

    /// A value of this measure for people: `1.234 s`, `12.3 ms`, `850 µs`, `12 ns`; or
    /// `12.4 k hb`, `3.21 M hb`, `1.50 G hb`, `850 hb`.
    pub fn format(self, value: u64) -> String {
        match self {
            Measure::Time => format_ns(value),
            Measure::Heartbeats => format_heartbeats(value),
        }
    }

    pub(crate) fn to_u8(self) -> u8 {
        match self {
            Measure::Time => 0,
            Measure::Heartbeats => 1,
        }
    }

    pub(crate) fn from_u8(v: u8) -> Option<Measure> {
        match v {
            0 => Some(Measure::Time),
            1 => Some(Measure::Heartbeats),
            _ => None,
        }
    }
}

impl std::fmt::Display for Measure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

fn format_ns(ns: u64) -> String {
    let s = ns as f64 / 1e9;
    if s >= 1.0 {
        format!("{s:.3} s")
    } else if ns >= 1_000_000 {
        format!("{:.1} ms", ns as f64 / 1e6)
    } else if ns >= 1_000 {
        format!("{:.0} µs", ns as f64 / 1e3)
    } else {
        format!("{ns} ns")
    }
}

fn format_heartbeats(hb: u64) -> String {
    const STEPS: [(f64, &str); 4] = [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")];
    for (scale, prefix) in STEPS {
        let v = hb as f64 / scale;
        if v >= 1.0 {
            // three significant digits: 1.23, 12.3, 123
            return if v >= 100.0 {
                format!("{v:.0} {prefix} hb")
            } else if v >= 10.0 {
                format!("{v:.1} {prefix} hb")
            } else {
                format!("{v:.2} {prefix} hb")
            };
        }
    }
    format!("{hb} hb")
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
        assert_eq!(Measure::from_u8(2), None);
    }
}
