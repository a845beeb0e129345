//! `leanscope/open`: a recording's header facts, counts, declarations with
//! their times, and diagnostics.

use std::path::PathBuf;

use recording::model::annotations::declaration_annotations;
use recording::model::file_time;
use recording::{Recording, Severity};
use serde::{Deserialize, Serialize};

use super::recordings::Loaded;
use super::wire::{DeclarationJson, DiagnosticJson, FileTimeJson};

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OpenParams {
    /// An absolute path or a `file://` URI.
    pub recording: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OpenAnswer {
    pub recording: PathBuf,
    pub schema_version: u16,
    pub module: String,
    /// Project-relative path of the captured file.
    pub source_path: String,
    pub source_sha256: String,
    pub source_lines: usize,
    pub lean_version: String,
    pub toolchain: String,
    pub capture_mode: &'static str,
    pub threshold_ns: u64,
    pub clock: &'static str,
    pub clock_description: String,
    /// `ok`, or `error` when Lean reported errors for the file.
    pub status: &'static str,
    pub created_unix_ms: u64,
    pub producer: String,
    /// Lean's elapsed time for the file, imports included (`null` if unknown).
    pub elapsed_ns: Option<u64>,
    /// The union of the top-level events' intervals.
    pub traced_ns: u64,
    #[serde(flatten)]
    pub file: FileTimeJson,
    pub counts: Counts,
    pub declarations: Vec<DeclarationJson>,
    pub diagnostics: Vec<DiagnosticJson>,
    pub notes: Vec<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Counts {
    pub events: usize,
    pub threads: usize,
    pub threads_with_events: usize,
    pub max_depth: u32,
    pub declarations: usize,
    pub declarations_with_time: usize,
    pub diagnostics: usize,
    pub errors: usize,
    pub warnings: usize,
    pub validation_issues: u64,
}

pub fn answer(path: PathBuf, loaded: &Loaded) -> OpenAnswer {
    let rec: &Recording = &loaded.recording;
    let h = &rec.header;
    let file = loaded.annotations().file;
    let declarations = declaration_annotations(rec, &file);
    let severity = |s| h.diagnostics.iter().filter(|d| d.severity == s).count();
    OpenAnswer {
        recording: path,
        schema_version: h.schema_version,
        module: h.module_name.clone(),
        source_path: h.source_path.clone(),
        source_sha256: h.source_sha256.clone(),
        source_lines: h.source_text.lines().count(),
        lean_version: h.lean_version.clone(),
        toolchain: h.toolchain.clone(),
        capture_mode: h.capture_mode.as_str(),
        threshold_ns: h.threshold_ns,
        clock: h.clock.as_str(),
        clock_description: h.clock_description.clone(),
        status: h.status.as_str(),
        created_unix_ms: h.created_unix_ms,
        producer: h.producer.clone(),
        elapsed_ns: h.elapsed_ns,
        traced_ns: file_time(rec).traced_ns,
        file: FileTimeJson::from(&file),
        counts: Counts {
            events: rec.len(),
            threads: h.threads.len(),
            threads_with_events: rec.active_thread_count(),
            max_depth: rec.max_depth(),
            declarations: h.declarations.len(),
            declarations_with_time: declarations.iter().filter(|d| d.time.is_some()).count(),
            diagnostics: h.diagnostics.len(),
            errors: severity(Severity::Error),
            warnings: severity(Severity::Warning),
            validation_issues: rec.issue_count,
        },
        declarations: declarations
            .iter()
            .map(|d| DeclarationJson::from(d).with_run_facts(h))
            .collect(),
        diagnostics: h.diagnostics.iter().map(DiagnosticJson::from).collect(),
        notes: h.notes.clone(),
    }
}
