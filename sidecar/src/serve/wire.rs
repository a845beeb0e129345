//! The JSON shapes of answers: recording values converted for editors.
//! Ranges are LSP ranges (0-based lines, UTF-16 columns, end exclusive);
//! times are integer nanoseconds; shares are fractions of the file's time
//! (0 to 1, `null` when the file's time is zero).

use recording::headroom::{DeclarationHeadroom, MaxHeartbeatsHeadroom, SynthInstanceHeadroom};
use recording::model::annotations::{
    DeclarationAnnotation, FileShare, LineAnnotation, Operation, Parallelism,
};
use recording::model::{AccountBasis, TimeAccount};
use recording::repeats::{DeclarationOverRuns, LineOverRuns, WholeSpread, WholeTimeSpread};
use recording::{Diagnostic, SourceRange};
use serde::Serialize;
use tower_lsp_server::ls_types::{Position, Range};

pub fn range(r: &SourceRange) -> Range {
    Range::new(
        Position::new(r.start_line, r.start_col),
        Position::new(r.end_line, r.end_col),
    )
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileTimeJson {
    /// What shares are relative to.
    pub file_ns: u64,
    /// `elapsed` (Lean's elapsed time, imports included) or `traced` (the
    /// union of everything recorded).
    pub share_basis: &'static str,
}

/// Where the file's time went (`recording::model::time_account`): imports,
/// traced elaboration and the untraced rest of `fileNs`, and how the
/// declarations' shares relate to it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileAccountJson {
    /// The time split: Lean's elapsed time, else the sum of its cumulative
    /// categories, else imports plus traced elaboration (`basis`).
    pub file_ns: u64,
    /// `elapsed`, `cumulative` or `traced`.
    pub basis: &'static str,
    /// The import phase, when Lean or the recording said.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub imports_ns: Option<u64>,
    /// The union of every recorded event other than the imports, all threads.
    pub traced_ns: u64,
    /// `fileNs − imports − traced` when not negative.
    pub untraced_ns: u64,
    /// By how much imports plus traced elaboration exceed `fileNs` (work on
    /// several threads at once); 0 when they fit.
    pub overrun_ns: u64,
    /// The sum of the declarations' shares (over 1: they ran in parallel).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub declaration_share_sum: Option<f64>,
    /// The distinct threads the recorded events ran on.
    pub threads: u32,
}

impl FileAccountJson {
    pub fn new(a: &TimeAccount, p: Parallelism) -> Self {
        FileAccountJson {
            file_ns: a.file_ns,
            basis: match a.basis {
                AccountBasis::Elapsed => "elapsed",
                AccountBasis::Cumulative => "cumulative",
                AccountBasis::Traced => "traced",
            },
            imports_ns: a.imports_ns,
            traced_ns: a.traced_ns,
            untraced_ns: a.untraced_ns,
            overrun_ns: a.overrun_ns,
            declaration_share_sum: p.share_sum,
            threads: p.threads,
        }
    }
}

impl From<&FileShare> for FileTimeJson {
    fn from(f: &FileShare) -> Self {
        FileTimeJson {
            file_ns: f.ns,
            share_basis: f.basis.as_str(),
        }
    }
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DeclarationJson {
    pub index: usize,
    pub name: String,
    pub kind: String,
    pub range: Range,
    pub selection_range: Range,
    pub generated: bool,
    /// Events inside the declaration (0 when it has no time).
    pub events: u64,
    /// `null`: no event was recorded inside the declaration (no time, not zero).
    pub total_ns: Option<u64>,
    pub self_ns: Option<u64>,
    pub share: Option<f64>,
    pub self_share: Option<f64>,
    /// Over the runs of a repeated capture: the times' spread (absent
    /// otherwise, and when no run recorded time inside the declaration).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spread: Option<WholeTimeSpread>,
    /// A heartbeat recording's declaration: its count against `maxHeartbeats` and its slowest
    /// instance search against `synthInstance.maxHeartbeats` (absent in a time recording, and
    /// when no heartbeats were recorded inside the declaration).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub headroom: Option<HeadroomJson>,
    /// The resident memory Lean gained while the declaration ran, when it was sampled.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_growth_bytes: Option<u64>,
    /// Over the runs of a repeated capture: the memory growth's spread (`memoryGrowthBytes`
    /// is then its median), absent when no run sampled it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_spread: Option<WholeSpread>,
    /// The declaration Lean was running when it was stopped (absent otherwise).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub in_flight: bool,
}

impl DeclarationJson {
    /// Adds what a recording's header says of the declaration beyond its times: its memory
    /// growth, and whether Lean was running it when it was stopped.
    pub fn with_run_facts(mut self, h: &recording::Header) -> Self {
        self.memory_growth_bytes = h.memory.as_ref().and_then(|m| m.growth_of(&self.name));
        self.in_flight = h
            .stop
            .as_ref()
            .and_then(|s| s.in_flight.as_ref())
            .is_some_and(|f| !f.declaration.is_empty() && f.declaration == self.name);
        self
    }
}

/// A declaration's headroom, as `leanscope/annotations` answers it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HeadroomJson {
    pub max_heartbeats: MaxHeartbeatsHeadroom,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub synth_instance: Option<SynthInstanceHeadroom>,
}

impl From<DeclarationHeadroom> for HeadroomJson {
    fn from(h: DeclarationHeadroom) -> Self {
        HeadroomJson {
            max_heartbeats: h.max_heartbeats,
            synth_instance: h.synth_instance,
        }
    }
}

impl From<&DeclarationOverRuns> for DeclarationJson {
    fn from(d: &DeclarationOverRuns) -> Self {
        let memory = d.memory.map(|m| m.whole());
        DeclarationJson {
            spread: d.spread.map(|s| s.whole()),
            memory_growth_bytes: memory.map(|m| m.median),
            memory_spread: memory,
            ..DeclarationJson::from(&d.annotation)
        }
    }
}

impl From<&DeclarationAnnotation> for DeclarationJson {
    fn from(d: &DeclarationAnnotation) -> Self {
        DeclarationJson {
            index: d.index,
            name: d.name.clone(),
            kind: d.kind.clone(),
            range: range(&d.range),
            selection_range: range(&d.selection_range),
            generated: d.generated,
            events: d.time.map_or(0, |t| t.count),
            total_ns: d.time.map(|t| t.total_ns),
            self_ns: d.time.map(|t| t.self_ns),
            share: d.share,
            self_share: d.self_share,
            spread: None,
            headroom: None,
            memory_growth_bytes: None,
            memory_spread: None,
            in_flight: false,
        }
    }
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OperationJson {
    pub event: u32,
    pub class: String,
    pub label: String,
    pub kind: &'static str,
    pub inclusive_ns: u64,
    pub self_ns: u64,
    pub thread: u16,
    pub range: Option<Range>,
    /// How the range was obtained: `exact`, `matched`, `inherited` or `none`.
    pub range_kind: &'static str,
}

impl From<&Operation> for OperationJson {
    fn from(o: &Operation) -> Self {
        OperationJson {
            event: o.event,
            class: o.class.clone(),
            label: o.label.clone(),
            kind: o.kind,
            inclusive_ns: o.inclusive_ns,
            self_ns: o.self_ns,
            thread: o.thread,
            range: o.range.as_ref().map(range),
            range_kind: o.range_kind.as_str(),
        }
    }
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LineJson {
    /// 0-based line.
    pub line: u32,
    /// Events whose range starts on the line.
    pub events: u64,
    /// The union of those events' intervals.
    pub total_ns: u64,
    /// The union of their self pieces.
    pub self_ns: u64,
    pub share: Option<f64>,
    pub self_share: Option<f64>,
    pub top: Vec<OperationJson>,
    /// Over the runs of a repeated capture: the times' spread (absent
    /// otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spread: Option<WholeTimeSpread>,
}

impl From<&LineOverRuns> for LineJson {
    fn from(l: &LineOverRuns) -> Self {
        LineJson {
            spread: Some(l.spread.whole()),
            ..LineJson::from(&l.annotation)
        }
    }
}

impl From<&LineAnnotation> for LineJson {
    fn from(l: &LineAnnotation) -> Self {
        LineJson {
            line: l.line,
            events: l.time.count,
            total_ns: l.time.total_ns,
            self_ns: l.time.self_ns,
            share: l.share,
            self_share: l.self_share,
            top: l.top.iter().map(OperationJson::from).collect(),
            spread: None,
        }
    }
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DiagnosticJson {
    /// `error`, `warning` or `information`.
    pub severity: &'static str,
    pub range: Range,
    pub message: String,
}

impl From<&Diagnostic> for DiagnosticJson {
    fn from(d: &Diagnostic) -> Self {
        DiagnosticJson {
            severity: d.severity.as_str(),
            range: range(&d.range),
            message: d.text.clone(),
        }
    }
}
