//! The recording's facts as plain Rust values (the header and its parts).

use serde::{Deserialize, Serialize};

pub use crate::source_range::SourceRange;

/// How an event's source range was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[repr(u8)]
pub enum RangeKind {
    /// No range.
    #[default]
    None = 0,
    /// Reported by Lean itself.
    Exact = 1,
    /// Found by leanscope in the enclosing command's source text.
    Matched = 2,
    /// Taken from the enclosing event.
    Inherited = 3,
}

impl RangeKind {
    pub fn from_bits(bits: u8) -> RangeKind {
        match bits & 3 {
            1 => RangeKind::Exact,
            2 => RangeKind::Matched,
            3 => RangeKind::Inherited,
            _ => RangeKind::None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            RangeKind::None => "none",
            RangeKind::Exact => "exact",
            RangeKind::Matched => "matched",
            RangeKind::Inherited => "inherited",
        }
    }
}

macro_rules! string_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $variant:ident = $n:literal => $s:literal),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
        #[serde(rename_all = "kebab-case")]
        pub enum $name {
            #[default]
            $($(#[$vm])* $variant),+
        }
        impl $name {
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $s),+ }
            }
            pub(crate) fn to_u8(self) -> u8 {
                match self { $($name::$variant => $n),+ }
            }
            pub(crate) fn from_u8(v: u8) -> Option<Self> {
                match v { $($n => Some($name::$variant),)+ _ => None }
            }
        }
        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

string_enum!(
    /// How the events were captured.
    CaptureMode {
        Unknown = 0 => "unknown",
        Stock = 1 => "stock",
        Native = 2 => "native",
        Imported = 3 => "imported",
        Synthetic = 4 => "synthetic",
    }
);

string_enum!(
    /// What the event times mean.
    ClockKind {
        Unknown = 0 => "unknown",
        /// Real start and stop times.
        Measured = 1 => "measured",
        /// Only durations were reported; starts are laid out back to back.
        DurationsOnly = 2 => "durations-only",
        Synthetic = 3 => "synthetic",
    }
);

string_enum!(
    /// Whether Lean reported errors for the file.
    CaptureStatus {
        Ok = 0 => "ok",
        Error = 1 => "error",
        /// Lean was stopped before it finished; the recording is partial ([`Header::stop`]).
        Stopped = 2 => "stopped",
    }
);

string_enum!(
    /// Why Lean was stopped before it finished.
    StopReason {
        Unknown = 0 => "unknown",
        Timeout = 1 => "timeout",
        Cancelled = 2 => "cancelled",
        MemoryLimit = 3 => "memory limit",
        Signal = 4 => "signal",
    }
);

/// The command Lean was running when it was stopped: the first command after the last one it
/// reported (commands it finished without printing anything are not told apart).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InFlight {
    /// The declaration's name; empty for a command that declares nothing.
    pub declaration: String,
    /// The command's first line.
    pub text: String,
    pub range: SourceRange,
    /// Where its open event starts, on the events' clock.
    pub start_ns: u64,
    /// How long it had run when Lean was stopped (since Lean's last report).
    pub running_ns: u64,
    /// The index of its open event.
    pub event: Option<u64>,
}

/// Why and when Lean was stopped.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Stop {
    pub reason: StopReason,
    /// For people: `Lean did not finish within 2 s`.
    pub detail: String,
    /// How long Lean had run (wall clock).
    pub wall_ns: u64,
    /// The signal that killed Lean (reason `signal`).
    pub signal: Option<i32>,
    /// The limit and what Lean's process tree reached (reason `memory limit`), in bytes.
    pub memory_limit_bytes: Option<u64>,
    pub memory_reached_bytes: Option<u64>,
    pub in_flight: Option<InFlight>,
}

string_enum!(
    Severity {
        Information = 0 => "information",
        Warning = 1 => "warning",
        Error = 2 => "error",
    }
);

/// A top-level declaration of the captured file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Declaration {
    pub name: String,
    /// `theorem`, `def`, `instance`, ...
    pub kind: String,
    pub range: SourceRange,
    pub selection_range: SourceRange,
    pub generated: bool,
}

/// A message Lean reported for the file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    pub severity: Severity,
    pub range: SourceRange,
    pub text: String,
}

/// A thread that events ran on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Thread {
    /// The id the producer reported.
    pub id: u64,
    pub name: String,
}

/// One line of Lean's `cumulative profiling times:` block (`-Dprofiler=true`): the sum of every
/// measurement of a category, also those under the threshold, as Lean printed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CumulativeTime {
    /// e.g. `import`, `elaboration`, `blocked (unaccounted)`.
    pub category: String,
    pub ns: u64,
}

/// Everything a recording says before its events.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Header {
    pub schema_version: u16,
    pub lean_version: String,
    pub toolchain: String,
    pub capture_mode: CaptureMode,
    pub threshold_ns: u64,
    pub clock: ClockKind,
    pub clock_description: String,
    pub source_path: String,
    pub module_name: String,
    /// SHA-256 of `source_text`, lowercase hex.
    pub source_sha256: String,
    pub source_text: String,
    pub declarations: Vec<Declaration>,
    pub diagnostics: Vec<Diagnostic>,
    pub threads: Vec<Thread>,
    /// Lean's elapsed time for the whole file, imports included.
    pub elapsed_ns: Option<u64>,
    pub status: CaptureStatus,
    pub created_unix_ms: u64,
    pub producer: String,
    pub notes: Vec<String>,
    /// Lean's cumulative profiling times in the order Lean printed them; empty when Lean
    /// printed none (or the recording predates the field).
    #[serde(default)]
    pub cumulative_times: Vec<CumulativeTime>,
    /// What the event times, `threshold_ns` and `elapsed_ns` count (time unless the recording
    /// says otherwise).
    #[serde(default)]
    pub measure: crate::Measure,
    /// Why Lean was stopped, when the status is `stopped`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Stop>,
    /// The resident memory of Lean's process tree over the capture, when it was sampled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<crate::memory::MemoryTrack>,
    /// The arguments the capture passed to Lean besides its own (`profile --lean-arg`), e.g.
    /// Lean 4.32's `--incr-load=FILE`; empty when none (and in older recordings).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lean_args: Vec<String>,
}

impl Header {
    /// Lean's incremental-snapshot flags among [`Header::lean_args`] (`--incr-load`,
    /// `--incr-save`, `--incr-header-save`, by name, without their files): two runs that
    /// differ in them elaborate differently (one resumes from a snapshot), so their times do
    /// not compare.
    pub fn incremental_flags(&self) -> Vec<&str> {
        let mut flags: Vec<&str> = self
            .lean_args
            .iter()
            .filter(|a| a.starts_with("--incr-"))
            .map(|a| a.split_once('=').map_or(a.as_str(), |(name, _)| name))
            .collect();
        flags.sort_unstable();
        flags.dedup();
        flags
    }
}

/// SHA-256 of a text as lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(bytes);
    let mut s = String::with_capacity(64);
    for b in digest {
        s.push(char::from_digit(u32::from(b >> 4), 16).unwrap_or('0'));
        s.push(char::from_digit(u32::from(b & 15), 16).unwrap_or('0'));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_of_empty_text() {
        assert_eq!(
            sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    #[test]
    fn range_containment_is_inclusive() {
        let outer = SourceRange::new(1, 0, 5, 3);
        assert!(outer.contains(&outer));
        assert!(outer.contains(&SourceRange::new(2, 4, 5, 3)));
        assert!(!outer.contains(&SourceRange::new(0, 9, 2, 0)));
        assert!(!outer.contains(&SourceRange::new(5, 0, 5, 4)));
    }
}
