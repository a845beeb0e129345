//! `leanscope/annotations` of a session's file: a file captured once is
//! annotated from its recording, exactly as `recording` would; a file of a
//! repeated capture (`profile --repeat`) from its median run
//! ([`recording::session::FileEntry::median_run`]) with every line and
//! declaration time the median over its runs
//! ([`recording::repeats::annotations_over_runs`]).
//!
//! The runs are read one at a time, each decoded, reduced to its times
//! ([`RunTimes`]) and dropped; only the median run stays decoded (in the
//! server's recording cache, for the next request).

use std::path::Path;

use recording::headroom::HeadroomOptions;
use recording::repeats::{annotations_over_runs, FileRuns, RunTimes, RunsError};
use recording::session::{FileEntry, Manifest, RunEntry};
use recording::Recording;
use tower_lsp_server::jsonrpc::Error;

use super::annotations::{self, AnnotationsAnswer};
use super::errors;
use super::recordings::Recordings;
use super::uri::path_or_uri;
use crate::session::store::{read_manifest, StoreError};

/// The annotations of `file` of the session at `dir` for the buffer
/// `text`. Blocking: call it off the async threads.
pub fn answer(
    cache: &Recordings,
    dir: &Path,
    file: &str,
    text: &str,
    opts: HeadroomOptions,
) -> Result<AnnotationsAnswer, Error> {
    if !dir.is_dir() {
        return Err(errors::no_such_directory("the session", dir));
    }
    let manifest = read_manifest(dir).map_err(|e| not_a_session(dir, &e))?;
    let entry = find(&manifest, file).ok_or_else(|| errors::not_in_session(dir, file))?;
    if !entry.status.is_committed() {
        return Err(errors::not_captured(dir, entry));
    }
    let Some(shown) = entry.median_run() else {
        let recording = entry.recording.as_deref().unwrap_or_default();
        let loaded = cache.get(&dir.join(recording))?;
        return Ok(annotations::answer(&loaded, text, opts));
    };
    let path = dir.join(&shown.recording);
    let loaded = cache.get(&path).map_err(|e| run_error(entry, shown, e))?;
    if let Some(stale) = annotations::stale(&loaded, text) {
        return Ok(stale);
    }
    let mut times = Vec::with_capacity(entry.runs.len());
    for run in &entry.runs {
        if run.recording == shown.recording {
            times.push(RunTimes::of(&loaded.recording));
            continue;
        }
        let p = dir.join(&run.recording);
        let rec =
            Recording::open(&p).map_err(|e| run_error(entry, run, errors::recording(&p, &e)))?;
        times.push(RunTimes::of(&rec));
    }
    let runs = FileRuns::of(&times).map_err(|e| other_source(dir, entry, &e))?;
    let over = annotations_over_runs(loaded.annotations(), &runs);
    Ok(annotations::over_runs(&loaded, path, &over, opts))
}

/// The session's entry for `file`: its path as the session lists it, or
/// an absolute path (or file URI) inside the session's project root.
fn find<'m>(m: &'m Manifest, file: &str) -> Option<&'m FileEntry> {
    let listed = |rel: &str| m.files.iter().find(|f| f.path == rel);
    let absolute = Path::new(file).is_absolute()
        || file
            .get(..5)
            .is_some_and(|s| s.eq_ignore_ascii_case("file:"));
    if !absolute {
        return listed(file);
    }
    let path = path_or_uri(file, "file").ok()?;
    let root = Path::new(&m.project_root);
    let relative = |p: &Path, root: &Path| -> Option<String> {
        let rel = p.strip_prefix(root).ok()?;
        Some(
            rel.components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/"),
        )
    };
    if let Some(e) = relative(&path, root).as_deref().and_then(listed) {
        return Some(e);
    }
    // The same file through a symbolic link (or a root recorded resolved).
    let (path, root) = (path.canonicalize().ok()?, root.canonicalize().ok()?);
    relative(&path, &root).as_deref().and_then(listed)
}

fn not_a_session(dir: &Path, e: &StoreError) -> Error {
    errors::not_a_session(dir, &e.to_string())
}

/// `e` (a run's recording that cannot be read) with the run named.
fn run_error(entry: &FileEntry, run: &RunEntry, e: Error) -> Error {
    Error {
        message: format!(
            "run {} of {} ({}): {}",
            run.repeat + 1,
            entry.path,
            run.recording,
            e.message
        )
        .into(),
        ..e
    }
}

/// Runs that recorded different sources: the run that differs named, by
/// its repeat and recording.
fn other_source(dir: &Path, entry: &FileEntry, e: &RunsError) -> Error {
    let RunsError::OtherSource {
        run,
        expected,
        found,
    } = e
    else {
        return errors::internal(format!("{}: {e}", entry.path));
    };
    let (Some(first), Some(other)) = (entry.runs.first(), entry.runs.get(run.saturating_sub(1)))
    else {
        return errors::internal(format!("{}: {e}", entry.path));
    };
    errors::other_source(
        format!(
            "the runs of {} cannot be taken together: run {} ({}) recorded another source \
             (SHA-256 {found}) than run {} ({}, SHA-256 {expected}); the runs of a file must be \
             of one source text",
            entry.path,
            other.repeat + 1,
            other.recording,
            first.repeat + 1,
            first.recording,
        ),
        &dir.join(&other.recording),
    )
}
