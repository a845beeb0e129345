//! Summaries: rows of statistics keyed by a structured key, with the facts
//! a comparison needs to trust them (event and thread counts, window,
//! recorded thread time, dropped events, validation issues).
//!
//! The statistics follow LeanProfiler's summary definitions: per row the
//! number of calls, the summed inclusive (`total_ns`) and self (`self_ns`)
//! times, min, mean (floor of total / calls), median and p95 by nearest rank
//! (rank = ceil(p·n)) and max of the calls' inclusive times, all in integer
//! nanoseconds, and `share_permille`, the row's self time in thousandths of
//! the summed self time of all rows (for grouping by name or class that sum
//! is the recorded thread time, exactly as in LeanProfiler).
//!
//! What a "call" is depends on the grouping:
//!
//! - `name`, `class` and `key`: the row named by an event's label (with its class), by
//!   its class, or by its hot-spot key (the normalised label, with its class); its calls are its *outermost* events, those no event of the same row encloses
//!   on their thread, so a step nested in a step is never added twice; its self time is
//!   the sum of all its events' self times.
//! - `declaration`: a declaration of a file is one call whose duration is
//!   the declaration's time (the union of the intervals of its events, across
//!   threads) and whose self time is the part of it outside tactic spans. A
//!   declaration without recorded time has no row (no time, not zero).
//! - `tactic`: a tactic source span is a row; its calls are its outermost
//!   events (a span's events nested in another event of the same span are
//!   part of that call); its self time is the union of its events' self
//!   pieces.
//! - `file`: a file is one call whose duration is Lean's elapsed time for
//!   it (imports included) when known, else the union of its top-level
//!   intervals; its self time is that same duration.

mod build;
mod check;
pub mod repeated;

pub use build::{summarize, SummaryBuilder};
pub use check::SummaryInvalid;

use serde::{Deserialize, Serialize};

use crate::model::Stats;

/// The version of leanscope's summary JSON this build writes and reads.
pub const SUMMARY_SCHEMA_VERSION: u64 = 1;

/// The value of the `format` field that marks leanscope's summary JSON.
pub const SUMMARY_FORMAT: &str = "leanscope-summary";

/// What rows are keyed by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GroupBy {
    /// The event's label, with its class.
    Name,
    /// File and declaration.
    Declaration,
    /// File, declaration and tactic source span.
    Tactic,
    /// Source file.
    File,
    /// Trace class (`Elab.command`, `Meta.isDefEq`, ...).
    Class,
    /// Hot-spot key: the class and the label normalised so that the same work
    /// merges ([`crate::hotspots::Key`]).
    Key,
}

impl GroupBy {
    pub const ALL: [GroupBy; 6] = [
        GroupBy::Name,
        GroupBy::Declaration,
        GroupBy::Tactic,
        GroupBy::File,
        GroupBy::Class,
        GroupBy::Key,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            GroupBy::Name => "name",
            GroupBy::Declaration => "declaration",
            GroupBy::Tactic => "tactic",
            GroupBy::File => "file",
            GroupBy::Class => "class",
            GroupBy::Key => "key",
        }
    }

    pub fn parse(s: &str) -> Option<GroupBy> {
        GroupBy::ALL.into_iter().find(|g| g.as_str() == s)
    }
}

impl std::fmt::Display for GroupBy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that many rows of a summary carry (a class, a file, a
/// declaration): one allocation for all of them.
pub type SharedName = std::sync::Arc<str>;

/// The key of a row of a leanscope summary. Fields that the grouping does
/// not use are `None`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct LeanscopeKey {
    pub name: String,
    pub class: Option<SharedName>,
    pub file: Option<SharedName>,
    pub declaration: Option<SharedName>,
    /// 1-based line of a tactic span's start.
    pub line: Option<u32>,
    /// 0-based UTF-16 column of a tactic span's start.
    pub column: Option<u32>,
}

impl LeanscopeKey {
    pub fn named(name: impl Into<String>) -> Self {
        LeanscopeKey {
            name: name.into(),
            class: None,
            file: None,
            declaration: None,
            line: None,
            column: None,
        }
    }
}

/// The key of a row of a LeanProfiler summary (schema version 1).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct LeanProfilerKey {
    pub name: String,
    pub phase: Option<String>,
    pub activity: Option<String>,
    pub backend: Option<String>,
    pub dtype: Option<String>,
    pub device: Option<String>,
    pub module: Option<String>,
}

/// A row key: rows of two summaries match when their keys are equal.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(untagged)]
pub enum SummaryKey {
    Leanscope(LeanscopeKey),
    LeanProfiler(Box<LeanProfilerKey>),
}

impl SummaryKey {
    /// A one-line label for people: `name [field=value, ...]`.
    pub fn label(&self) -> String {
        let (name, fields): (&str, Vec<(&str, String)>) = match self {
            SummaryKey::Leanscope(k) => (
                &k.name,
                [
                    ("class", k.class.as_deref().map(str::to_owned)),
                    ("file", k.file.as_deref().map(str::to_owned)),
                    ("declaration", k.declaration.as_deref().map(str::to_owned)),
                    ("line", k.line.map(|l| l.to_string())),
                    ("column", k.column.map(|c| c.to_string())),
                ]
                .into_iter()
                .filter_map(|(f, v)| v.map(|v| (f, v)))
                .collect(),
            ),
            SummaryKey::LeanProfiler(k) => (
                &k.name,
                [
                    ("phase", &k.phase),
                    ("activity", &k.activity),
                    ("backend", &k.backend),
                    ("dtype", &k.dtype),
                    ("device", &k.device),
                    ("module", &k.module),
                ]
                .into_iter()
                .filter_map(|(f, v)| v.clone().map(|v| (f, v)))
                .collect(),
            ),
        };
        let name = one_line(name);
        if fields.is_empty() {
            name
        } else {
            let fields: Vec<String> = fields
                .iter()
                .map(|(f, v)| format!("{f}={}", one_line(v)))
                .collect();
            format!("{name} [{}]", fields.join(", "))
        }
    }

    pub fn kind(&self) -> SummaryKind {
        match self {
            SummaryKey::Leanscope(_) => SummaryKind::Leanscope,
            SummaryKey::LeanProfiler(_) => SummaryKind::LeanProfiler,
        }
    }
}

fn one_line(s: &str) -> String {
    let mut out: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if out.chars().count() > 80 {
        out = out.chars().take(79).collect();
        out.push('…');
    }
    out
}

/// Whose summary format a summary came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SummaryKind {
    Leanscope,
    LeanProfiler,
}

impl SummaryKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SummaryKind::Leanscope => "leanscope",
            SummaryKind::LeanProfiler => "LeanProfiler",
        }
    }
}

/// Counters only LeanProfiler summaries carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct LeanProfilerCounters {
    pub total_heartbeats: u64,
    pub self_heartbeats: u64,
    pub alloc_bytes: u64,
    pub peak_live_bytes: u64,
    pub alloc_delta_bytes: i64,
}

/// One row: its key, statistics (with `count` = calls) and share.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SummaryRow {
    pub key: SummaryKey,
    pub stats: Stats,
    pub share_permille: u64,
    /// Boxed: only LeanProfiler summaries have them, and a summary may hold
    /// millions of rows.
    pub counters: Option<Box<LeanProfilerCounters>>,
}

/// A validation issue of the summarized input.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SummaryIssue {
    /// The file the issue is in (sessions), when known.
    pub file: Option<String>,
    pub event_index: Option<u64>,
    /// `child-outside-parent`, `overlapping-siblings`, ... (leanscope), or
    /// `None` for LeanProfiler issues.
    pub kind: Option<String>,
    pub message: String,
}

/// A summary of a recording, a session or an imported file, or a summary
/// read back from JSON (leanscope's or LeanProfiler's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    pub kind: SummaryKind,
    /// What every `_ns` value counts: nanoseconds, or heartbeats.
    pub measure: crate::Measure,
    /// How rows are keyed (leanscope summaries).
    pub group_by: Option<GroupBy>,
    pub event_count: u64,
    pub thread_count: u64,
    pub max_depth: u64,
    pub trace_origin_ns: u64,
    pub trace_window_ns: u64,
    /// Sum of all events' self times (not wall time: threads overlap).
    pub recorded_thread_time_ns: u64,
    pub dropped_events: u64,
    /// All issues found, including those beyond the kept details.
    pub validation_issue_count: u64,
    pub validation_issues: Vec<SummaryIssue>,
    /// Sorted by descending self time, then key.
    pub rows: Vec<SummaryRow>,
}

impl Summary {
    /// Why a comparison should not trust this summary, if it should not:
    /// dropped events, validation issues.
    pub fn incomplete_reasons(&self) -> Vec<String> {
        let mut reasons = Vec::new();
        if self.dropped_events > 0 {
            reasons.push(format!("{} dropped event(s)", self.dropped_events));
        }
        if self.validation_issue_count > 0 {
            reasons.push(format!(
                "{} validation issue(s)",
                self.validation_issue_count
            ));
        }
        reasons
    }

    /// Sum of the rows' self times: the denominator of their shares.
    pub fn rows_self_ns(&self) -> u64 {
        self.rows
            .iter()
            .fold(0u64, |a, r| a.saturating_add(r.stats.self_ns))
    }
}

/// `share_permille` of `self_ns` out of `of`: floor(self · 1000 / of), 0
/// when `of` is 0.
pub fn share_permille(self_ns: u64, of: u64) -> u64 {
    if of == 0 {
        0
    } else {
        (u128::from(self_ns) * 1000 / u128::from(of)) as u64
    }
}

/// Sorts rows by descending self time, then by key (LeanProfiler's order).
pub fn sort_rows(rows: &mut [SummaryRow]) {
    // Row keys are unique, so the order is total and an unstable sort (no
    // buffer of half the rows) gives the same order as a stable one.
    rows.sort_unstable_by(|a, b| {
        b.stats
            .self_ns
            .cmp(&a.stats.self_ns)
            .then_with(|| a.key.cmp(&b.key))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn share_is_floored_permille() {
        assert_eq!(share_permille(114_825, 18_552_832), 6);
        assert_eq!(share_permille(12_223_861, 18_552_832), 658);
        assert_eq!(share_permille(5, 0), 0);
        assert_eq!(share_permille(u64::MAX, u64::MAX), 1000);
    }

    #[test]
    fn key_labels_name_their_fields() {
        let mut k = LeanscopeKey::named("simp\n  [foo]");
        k.file = Some("A.lean".into());
        k.line = Some(3);
        assert_eq!(
            SummaryKey::Leanscope(k).label(),
            "simp [foo] [file=A.lean, line=3]"
        );
        let k = LeanProfilerKey {
            name: "source.read".into(),
            phase: Some("read".into()),
            activity: Some("filesystem".into()),
            backend: None,
            dtype: None,
            device: None,
            module: None,
        };
        assert_eq!(
            SummaryKey::LeanProfiler(Box::new(k)).label(),
            "source.read [phase=read, activity=filesystem]"
        );
    }

    #[test]
    fn group_by_names_round_trip() {
        for g in GroupBy::ALL {
            assert_eq!(GroupBy::parse(g.as_str()), Some(g));
        }
        assert_eq!(GroupBy::parse("module"), None);
    }
}
