//! `leanscope headroom`: every declaration's heartbeats against the limits in force
//! (`recording::headroom` has the rules), read from heartbeat recordings or a session of them,
//! with the thresholds a CI sets: `--warn` marks rows, `--fail` fails the run.
//!
//! `document.rs` is the JSON document (`schemas/headroom.schema.json`), `text.rs` the table.

pub mod document;
pub mod text;

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use recording::headroom::{headroom_with_counts, DeclarationHeadroom, HeadroomOptions};
use recording::model::declaration_times;
use recording::repeats::{annotations_over_runs, FileRuns, RunTimes};
use recording::session::FileEntry;
use recording::Recording;

use crate::session::committed::{is_inside, read_recording, CommittedSession};

/// The thresholds of a report, as shares (0.8 for 80 %).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Thresholds {
    pub warn: f64,
    pub fail: Option<f64>,
    pub headroom: HeadroomOptions,
}

/// One file's headroom.
pub struct FileHeadroom {
    /// The source's path (project-relative in a session, as recorded otherwise).
    pub path: String,
    pub recording: PathBuf,
    pub lean_version: String,
    /// Runs the counts are medians of (a repeated capture), else `None`.
    pub runs: Option<usize>,
    pub declarations: Vec<DeclarationHeadroom>,
}

/// The headroom of one recording.
pub fn of_recording(path: &Path, opts: HeadroomOptions) -> Result<FileHeadroom> {
    let rec = read_recording(path)?;
    let counts: Vec<Option<u64>> = declaration_times(&rec)
        .iter()
        .map(|t| t.map(|t| t.total_ns))
        .collect();
    file(
        &rec,
        path,
        rec.header.source_path.clone(),
        None,
        &counts,
        opts,
    )
}

/// The headroom of every committed file of the session in `dir` (a repeated capture's file:
/// its median run, with the median heartbeats over its runs).
pub fn of_session(dir: &Path, opts: HeadroomOptions) -> Result<Vec<FileHeadroom>> {
    let s = CommittedSession::open(dir)?;
    let mut out = Vec::new();
    for entry in s.manifest.files.iter().filter(|f| f.status.is_committed()) {
        out.push(
            session_file(dir, entry, opts)
                .with_context(|| format!("{} of the session {}", entry.path, dir.display()))?,
        );
    }
    Ok(out)
}

fn session_file(dir: &Path, entry: &FileEntry, opts: HeadroomOptions) -> Result<FileHeadroom> {
    let inside = |rel: &str| -> Result<PathBuf> {
        if !is_inside(rel) {
            bail!(
                "the manifest names the recording {rel:?}, which is not a path inside the session"
            );
        }
        Ok(dir.join(rel))
    };
    let Some(shown) = entry.median_run() else {
        let rel = entry.recording.as_deref().unwrap_or_default();
        let mut f = of_recording(&inside(rel)?, opts)?;
        f.path = entry.path.clone();
        return Ok(f);
    };
    let path = inside(&shown.recording)?;
    let rec = read_recording(&path)?;
    let mut times = Vec::with_capacity(entry.runs.len());
    for run in &entry.runs {
        if run.recording == shown.recording {
            times.push(RunTimes::of(&rec));
        } else {
            times.push(RunTimes::of(&read_recording(&inside(&run.recording)?)?));
        }
    }
    let runs = FileRuns::of(&times).map_err(|e| anyhow::anyhow!("{e}"))?;
    let over = annotations_over_runs(&recording::model::annotations(&rec), &runs);
    let counts: Vec<Option<u64>> = over
        .declarations
        .iter()
        .map(|d| d.annotation.time.map(|t| t.total_ns))
        .collect();
    file(
        &rec,
        &path,
        entry.path.clone(),
        Some(runs.runs()),
        &counts,
        opts,
    )
}

fn file(
    rec: &Recording,
    path: &Path,
    source: String,
    runs: Option<usize>,
    counts: &[Option<u64>],
    opts: HeadroomOptions,
) -> Result<FileHeadroom> {
    let rows =
        headroom_with_counts(rec, counts, opts).with_context(|| format!("{}", path.display()))?;
    Ok(FileHeadroom {
        path: source,
        recording: path.to_path_buf(),
        lean_version: rec.header.lean_version.clone(),
        runs,
        declarations: rows.into_iter().flatten().collect(),
    })
}
