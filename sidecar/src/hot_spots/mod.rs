//! Hot spots of a recording, an imported file or a session, as `leanscope top` prints them
//! and `leanscope/hotSpots` answers: the bottom-up table by key (`recording::hotspots`),
//! and on request the merged call tree or the bottom-up (callers) tree.
//!
//! A session's table comes from its index (`recording::session::index_hot_spots`, no
//! recording opened); files committed without hot-spot rows, and every file when keys are
//! classes (a class's total is not a sum of its keys' totals), are read from their
//! recordings one at a time. A session's trees merge its recordings' hot spots one at a
//! time (a repeated capture: each file's median run).

pub mod document;
pub mod key_path;
pub mod text;

use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context};
use leanscope::interop::{self, Format, ImportOptions};
use recording::hotspots::{file_rows, file_rows_with_limit, By, HotSpots, HotSpotsBuilder, Key};
use recording::session::{
    index_hot_spots, median_rows, under_folder, FileEntry, Manifest, RunKeyRows, INDEX_FILE,
};
use recording::{Measure, Recording};

use crate::commands::inputs::Input;
use crate::session::committed::{is_inside, read_recording, CommittedSession};
use crate::session::regular;
pub use document::Document;

/// What to compute.
#[derive(Debug, Clone)]
pub struct TopSpec {
    pub by: By,
    /// Class prefixes: only keys whose class starts with one (none: every key).
    pub classes: Vec<String>,
    /// A key path (`key_path` syntax): the subtree under it, or with `inverted` its callers.
    pub path: Option<String>,
    pub inverted: bool,
    /// The merged call tree (or with `inverted` the bottom-up tree) in the answer.
    pub tree: bool,
    /// A session's files under this project-relative folder.
    pub folder: Option<String>,
    /// Rows of the table, and children per node of a tree.
    pub limit: usize,
    /// Levels of a tree below its top.
    pub depth: usize,
    /// Order by total instead of self.
    pub by_total: bool,
    /// The format of a file that is not a recording (detected when `None`).
    pub format: Option<Format>,
    pub import: ImportOptions,
}

impl TopSpec {
    /// Does a key's class start with one of the class prefixes (or are there none)?
    pub fn keeps(&self, key: &Key) -> bool {
        self.classes.is_empty() || self.classes.iter().any(|c| key.class.starts_with(c))
    }

    /// Wants a tree: `--tree`, `--inverted` or `--path`.
    pub fn wants_tree(&self) -> bool {
        self.tree || self.inverted || self.path.is_some()
    }
}

/// Why there is no answer.
#[derive(Debug, thiserror::Error)]
pub enum TopError {
    /// The request does not fit the source (a key path not in the tree, a summary file).
    #[error("{0}")]
    Usage(String),
    /// A file that is not a readable recording.
    #[error("{path} is not a readable recording: {1}", path = .0.display())]
    Recording(PathBuf, recording::RecordingError),
    /// A directory that is not a readable session.
    #[error("{1:#}")]
    Session(PathBuf, anyhow::Error),
    /// Another profiler's file that cannot be imported, or a recording of a session that
    /// cannot be read.
    #[error("{1:#}")]
    Other(PathBuf, anyhow::Error),
}

/// The hot spots of `source` as `spec` asks.
pub fn answer(source: &Path, spec: &TopSpec) -> Result<Document, TopError> {
    if source.is_dir() {
        return session(source, spec);
    }
    let input = Input::classify(source, spec.format).map_err(|e| {
        if source.exists() {
            TopError::Other(source.to_path_buf(), e)
        } else {
            TopError::Recording(
                source.to_path_buf(),
                std::io::Error::new(std::io::ErrorKind::NotFound, "no such file").into(),
            )
        }
    })?;
    let (rec, kind) = match &input {
        Input::Recording(p) => (
            regular::read(p)
                .map_err(recording::RecordingError::from)
                .and_then(Recording::from_file)
                .map_err(|e| TopError::Recording(p.clone(), e))?,
            "recording",
        ),
        Input::Foreign(p, f) => (
            interop::import_recording(p, Some(*f), spec.import)
                .with_context(|| format!("cannot import {}", p.display()))
                .map_err(|e| TopError::Other(p.clone(), e))?,
            "imported",
        ),
        Input::Summary(p, _) => {
            return Err(TopError::Usage(format!(
                "{} is a summary: its rows have no call stacks to find hot spots in; give a recording, a session or a profile",
                p.display()
            )))
        }
        Input::Session(_) => unreachable!("a directory is read as a session above"),
    };
    let hot = HotSpots::of_by(&rec, spec.by);
    let name = if rec.header.source_path.is_empty() {
        source
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
    } else {
        rec.header.source_path.clone()
    };
    let mut table = recording::hotspots::SessionHotSpots::new();
    let rows = file_rows_with_limit(&rec, &hot, usize::MAX);
    table.add_file(&name, &rows.rows, rows.other_holds);
    let tree = spec.wants_tree().then_some(hot);
    let facts = document::Facts {
        source: source.to_path_buf(),
        source_kind: kind,
        measure: rec.header.measure,
        from_recordings: 0,
        // A recording Lean did not finish holds only what it reported before it was stopped.
        warnings: rec
            .header
            .stop
            .iter()
            .map(|s| {
                format!(
                    "the recording is partial ({}): it holds what Lean reported before it was stopped",
                    s.detail
                )
            })
            .collect(),
    };
    document::build(facts, &table, tree.as_ref(), spec).map_err(TopError::Usage)
}

/// A session's hot spots.
fn session(dir: &Path, spec: &TopSpec) -> Result<Document, TopError> {
    let session_err = |e: anyhow::Error| TopError::Session(dir.to_path_buf(), e);
    let s = CommittedSession::open(dir).map_err(|e| session_err(e.into()))?;
    let m = &s.manifest;
    let folder = spec.folder.as_deref();
    let mut warnings = Vec::new();
    let (mut table, missing): (_, Vec<u32>) = if spec.by == By::Key {
        let index_path = dir.join(INDEX_FILE);
        let out = match regular::read(&index_path) {
            Ok(f) => index_hot_spots(f, m, folder),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && m.index_bytes == 0 => {
                index_hot_spots(&[][..], m, folder)
            }
            Err(e) => {
                return Err(session_err(anyhow!(
                    "cannot read {}: {e}",
                    index_path.display()
                )))
            }
        }
        .map_err(|e| session_err(anyhow!("cannot read {}: {e}", index_path.display())))?;
        warnings.extend(out.warnings);
        if out.warning_count > warnings.len() as u64 {
            warnings.push(format!(
                "and {} more warnings",
                out.warning_count - warnings.len() as u64
            ));
        }
        (out.session, out.missing)
    } else {
        let all = committed(m, folder).map(|(id, _)| id).collect();
        (recording::hotspots::SessionHotSpots::new(), all)
    };
    // Files without index rows (or every file, by class): their recordings, one at a time.
    for &id in &missing {
        let f = &m.files[id as usize];
        let mut runs = Vec::new();
        for rel in recordings_of(f) {
            let rec = session_recording(&s, f, rel)?;
            check_measure(&rec, m.measure, &s.dir.join(rel))?;
            let hot = HotSpots::of_by(&rec, spec.by);
            let cut = file_rows(&rec, &hot);
            runs.push(RunKeyRows {
                rows: cut.rows,
                other_holds: cut.other_holds,
            });
        }
        if !runs.is_empty() {
            let (rows, holds) = median_rows(&runs);
            table.add_file(&f.path, &rows, holds);
        }
    }
    if spec.by == By::Key && !missing.is_empty() {
        warnings.push(format!(
            "{} committed without hot-spot rows in the index (a session written before them): read from {}",
            files_were(missing.len()),
            if missing.len() == 1 { "its recording" } else { "their recordings" }
        ));
    }
    let tree = if spec.wants_tree() {
        let mut b = HotSpotsBuilder::new();
        for (_, f) in committed(m, folder) {
            let rel = match f.median_run() {
                Some(run) => run.recording.as_str(),
                None => match f.recording.as_deref() {
                    Some(r) => r,
                    None => continue,
                },
            };
            let rec = session_recording(&s, f, rel)?;
            b.add(&HotSpots::of_by(&rec, spec.by))
                .map_err(|e| TopError::Other(s.dir.join(rel), e.into()))?;
        }
        let mut hot = b.finish();
        hot.measure = m.measure;
        Some(hot)
    } else {
        None
    };
    let facts = document::Facts {
        source: dir.to_path_buf(),
        source_kind: "session",
        measure: m.measure,
        from_recordings: missing.len() as u64,
        warnings,
    };
    document::build(facts, &table, tree.as_ref(), spec).map_err(TopError::Usage)
}

/// The committed files under `folder`, with their ids.
fn committed<'m>(
    m: &'m Manifest,
    folder: Option<&'m str>,
) -> impl Iterator<Item = (u32, &'m FileEntry)> + 'm {
    m.files
        .iter()
        .filter(move |f| f.status.is_committed() && under_folder(&f.path, folder))
        .map(|f| (f.id, f))
}

/// A committed file's recordings: each run's, or its one.
fn recordings_of(f: &FileEntry) -> Vec<&str> {
    if f.runs.is_empty() {
        f.recording.as_deref().into_iter().collect()
    } else {
        f.runs.iter().map(|r| r.recording.as_str()).collect()
    }
}

/// Reads a committed file's recording `rel` (which must lie inside the session).
fn session_recording(
    s: &CommittedSession,
    f: &FileEntry,
    rel: &str,
) -> Result<Recording, TopError> {
    if !is_inside(rel) {
        return Err(TopError::Session(
            s.dir.clone(),
            anyhow!(
                "{}: the manifest names the recording {rel:?} of {}, which is not a path inside the session",
                s.dir.display(),
                f.path
            ),
        ));
    }
    let path = s.dir.join(rel);
    read_recording(&path).map_err(|e| TopError::Other(path, e.into()))
}

/// A recording in another measure than its session's cannot be added to it.
fn check_measure(rec: &Recording, session: Measure, path: &Path) -> Result<(), TopError> {
    if rec.header.measure != session {
        return Err(TopError::Other(
            path.to_path_buf(),
            anyhow!(
                "{} is measured in {} but its session in {}",
                path.display(),
                rec.header.measure.unit_name(),
                session.unit_name()
            ),
        ));
    }
    Ok(())
}

fn files_were(n: usize) -> String {
    if n == 1 {
        "1 file was".into()
    } else {
        format!("{n} files were")
    }
}
