//! The limits Lean puts on heartbeats, and one declaration's count against one of them.
//!
//! From Lean's source (docs/heartbeats.md, "Headroom", cites them):
//! - `maxHeartbeats` (`src/Lean/CoreM.lean`) counts **thousands** of heartbeats per command:
//!   `getMaxHeartbeats` multiplies the option by 1000, and `checkMaxHeartbeatsCore` compares the
//!   heartbeats since the command started (`initHeartbeats`) against that. 0 means no limit.
//!   Its default is 200000 in every v4 release; the 2021 sources had 50000.
//! - `synthInstance.maxHeartbeats` (`src/Lean/Meta/SynthInstance.lean`) bounds each instance
//!   search the same way: default 20000, thousands, 0 = no limit.

use serde::Serialize;

/// `maxHeartbeats`'s default in Lean 4 releases (thousands).
pub const DEFAULT_MAX_HEARTBEATS: u64 = 200_000;

/// `maxHeartbeats`'s default in the 2021 milestones (`4.0.0-m1` … `4.0.0-m4`), thousands.
pub const OLD_DEFAULT_MAX_HEARTBEATS: u64 = 50_000;

/// `synthInstance.maxHeartbeats`'s default (thousands).
pub const DEFAULT_SYNTH_INSTANCE_MAX_HEARTBEATS: u64 = 20_000;

/// What a limit of N counts in raw heartbeats (`getMaxHeartbeats`: N × 1000).
pub const HEARTBEATS_PER_UNIT: u64 = 1000;

/// The default share of the default limit under which a `set_option maxHeartbeats N in` is
/// not needed: the declaration would fit under the default with this much room.
pub const DEFAULT_BUMP_NOT_NEEDED_BELOW: f64 = 0.5;

/// `maxHeartbeats`'s default for a Lean version as a recording's header gives it (`4.31.0`,
/// `4.0.0-m4`, `4.0.0-nightly-2023-01-01`); an empty or unknown version gets today's default.
pub fn default_max_heartbeats(lean_version: &str) -> u64 {
    let milestone = lean_version
        .strip_prefix("4.0.0-m")
        .and_then(|m| m.parse::<u32>().ok());
    match milestone {
        Some(m) if m <= 4 => OLD_DEFAULT_MAX_HEARTBEATS,
        _ => DEFAULT_MAX_HEARTBEATS,
    }
}

/// A `set_option` the source makes: its value (thousands, as written) and its 1-based line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Setting {
    pub value: u64,
    pub line: u32,
}

/// Where the limit in force comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LimitFrom {
    /// Lean's default for the toolchain.
    Default,
    /// A command-level `set_option` in force (until the end of its section, namespace or file).
    File,
    /// `set_option … in` attached to the declaration.
    In,
}

impl LimitFrom {
    pub fn as_str(self) -> &'static str {
        match self {
            LimitFrom::Default => "default",
            LimitFrom::File => "file",
            LimitFrom::In => "in",
        }
    }
}

/// One count against one limit.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Check {
    /// The limit in force, in thousands as written (0: no limit).
    pub limit: u64,
    pub from: LimitFrom,
    /// The 1-based line of the `set_option` (`None` for the default).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// Raw heartbeats counted.
    pub heartbeats: u64,
    /// `heartbeats / (limit × 1000)`; `None` when the limit is 0 (no limit).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub share: Option<f64>,
    /// The option's default for the toolchain (thousands).
    pub default: u64,
}

impl Check {
    /// `heartbeats` against the setting in force (`attached` before `in_scope`), else `default`.
    pub fn new(
        heartbeats: u64,
        attached: Option<Setting>,
        in_scope: Option<Setting>,
        default: u64,
    ) -> Check {
        let (limit, from, line) = match (attached, in_scope) {
            (Some(s), _) => (s.value, LimitFrom::In, Some(s.line)),
            (None, Some(s)) => (s.value, LimitFrom::File, Some(s.line)),
            (None, None) => (default, LimitFrom::Default, None),
        };
        Check {
            limit,
            from,
            line,
            heartbeats,
            share: share(heartbeats, limit),
            default,
        }
    }

    /// The share of the default this count is (`None` when the default is 0).
    pub fn share_of_default(&self) -> Option<f64> {
        share(self.heartbeats, self.default)
    }
}

/// `heartbeats` as a share of a limit of `limit` thousands; `None` for no limit (0).
pub fn share(heartbeats: u64, limit: u64) -> Option<f64> {
    (limit > 0).then(|| heartbeats as f64 / (limit as f64 * HEARTBEATS_PER_UNIT as f64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_by_toolchain() {
        assert_eq!(default_max_heartbeats("4.31.0"), 200_000);
        assert_eq!(default_max_heartbeats("4.7.0"), 200_000);
        assert_eq!(default_max_heartbeats(""), 200_000);
        assert_eq!(default_max_heartbeats("4.0.0-m4"), 50_000);
        assert_eq!(default_max_heartbeats("4.0.0-m1"), 50_000);
        assert_eq!(default_max_heartbeats("4.0.0-m5"), 200_000);
        assert_eq!(default_max_heartbeats("4.0.0-nightly-2023-01-01"), 200_000);
    }

    #[test]
    fn shares_count_thousands_and_zero_is_no_limit() {
        let c = Check::new(
            150_000_000,
            None,
            Some(Setting {
                value: 300_000,
                line: 4,
            }),
            200_000,
        );
        assert_eq!(
            (c.limit, c.from, c.line),
            (300_000, LimitFrom::File, Some(4))
        );
        assert_eq!(c.share, Some(0.5));
        assert_eq!(c.share_of_default(), Some(0.75));
        let none = Check::new(9, Some(Setting { value: 0, line: 2 }), None, 200_000);
        assert_eq!(
            (none.limit, none.from, none.share),
            (0, LimitFrom::In, None)
        );
        let d = Check::new(50_000_000, None, None, 200_000);
        assert_eq!(
            (d.from, d.line, d.share),
            (LimitFrom::Default, None, Some(0.25))
        );
    }
}
