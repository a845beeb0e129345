//! What `summary`, `compare` and `export` accept: a recording, a session
//! (read through [`crate::session::committed`], the reader `query` uses),
//! a plain folder of recordings, an importable file, or summary JSON.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use leanscope::interop::{self, Format, ImportOptions};
use recording::session::MANIFEST_FILE;
use recording::summary::{GroupBy, Summary, SummaryBuilder};
use recording::Recording;

use crate::session::committed::{read_recording, CommittedSession};
use crate::session::regular;

/// An input, classified.
pub enum Input {
    Recording(PathBuf),
    /// The recordings of a session's committed files (in the manifest's
    /// order) or of a plain folder of recordings (in path order).
    Session(Vec<PathBuf>),
    /// A file of another profiler's format.
    Foreign(PathBuf, Format),
    /// Summary JSON (leanscope's or LeanProfiler's).
    Summary(PathBuf, Format),
}

impl Input {
    pub fn classify(path: &Path, format: Option<Format>) -> Result<Input> {
        if path.is_dir() {
            return Ok(Input::Session(session_recordings(path)?));
        }
        // A FIFO or a device is refused before anything reads it.
        regular::read(path).with_context(|| format!("cannot read {}", path.display()))?;
        let format = match format {
            Some(f) => f,
            None => interop::detect(path)?,
        };
        Ok(match format {
            Format::Recording => Input::Recording(path.to_path_buf()),
            f if f.is_summary() => Input::Summary(path.to_path_buf(), f),
            Format::Speedscope => bail!(
                "{}: speedscope files can be written (export --format speedscope) but not read",
                path.display()
            ),
            f => Input::Foreign(path.to_path_buf(), f),
        })
    }

    pub fn is_session(&self) -> bool {
        matches!(self, Input::Session(_))
    }
}

/// The recordings of a folder: a session's committed files when it has a
/// `session.json` (an empty or broken manifest is an error, as in `query`;
/// recordings of uncommitted files are never read), else the plain folder's
/// `files/*.lsrec` (or `*.lsrec` in the folder itself).
fn session_recordings(dir: &Path) -> Result<Vec<PathBuf>> {
    if dir.join(MANIFEST_FILE).symlink_metadata().is_ok() {
        let session = CommittedSession::open(dir)?;
        let out: Vec<PathBuf> = session.recordings()?.into_iter().map(|r| r.path).collect();
        if out.is_empty() {
            bail!(
                "the session {} has no committed recordings yet",
                dir.display()
            );
        }
        return Ok(out);
    }
    let files = dir.join("files");
    let from = if files.is_dir() {
        files
    } else {
        dir.to_path_buf()
    };
    let mut out = Vec::new();
    for entry in
        std::fs::read_dir(&from).with_context(|| format!("cannot list {}", from.display()))?
    {
        let p = entry?.path();
        if p.extension()
            .is_some_and(|e| e == recording::FILE_EXTENSION)
        {
            out.push(p);
        }
    }
    out.sort();
    if out.is_empty() {
        bail!(
            "{}: a folder given as a session must hold recordings (files/*.{} or *.{})",
            dir.display(),
            recording::FILE_EXTENSION,
            recording::FILE_EXTENSION
        );
    }
    Ok(out)
}

/// The incremental-snapshot flags (`--incr-load`, `--incr-save`, …: [`recording::Header::
/// incremental_flags`]) Lean was run with, over every recording of `input` (read header only);
/// `None` for an input that does not say (another profiler's file, a summary).
pub fn incremental_flags(input: &Input) -> Result<Option<Vec<String>>> {
    let paths: Vec<&Path> = match input {
        Input::Recording(p) => vec![p.as_path()],
        Input::Session(ps) => ps.iter().map(PathBuf::as_path).collect(),
        Input::Foreign(..) | Input::Summary(..) => return Ok(None),
    };
    let mut flags: Vec<String> = Vec::new();
    for p in paths {
        // a regular file only: a FIFO would block the read
        let file = regular::read(p).with_context(|| format!("cannot read {}", p.display()))?;
        let reader = recording::reader::ChunkReader::new(std::io::BufReader::new(file))
            .with_context(|| format!("{} is not a readable recording", p.display()))?;
        flags.extend(
            reader
                .header()
                .incremental_flags()
                .into_iter()
                .map(String::from),
        );
    }
    flags.sort_unstable();
    flags.dedup();
    Ok(Some(flags))
}

/// Opens a recording, importing another profiler's file first if needed.
pub fn open_recording(input: &Input, opts: ImportOptions) -> Result<Recording> {
    match input {
        Input::Recording(p) => Ok(read_recording(p)?),
        Input::Foreign(p, f) => interop::import_recording(p, Some(*f), opts)
            .with_context(|| format!("cannot import {}", p.display())),
        Input::Session(_) => bail!("a session holds several recordings; give one of its files"),
        Input::Summary(p, _) => bail!("{} is a summary, not a recording", p.display()),
    }
}

/// The grouping to use when none is given: declarations for sessions and
/// recordings that have them, otherwise names.
pub fn default_grouping(input: &Input, opts: ImportOptions) -> Result<GroupBy> {
    Ok(match input {
        Input::Session(_) => GroupBy::Declaration,
        Input::Recording(_) | Input::Foreign(..) => {
            let rec = open_recording(input, opts)?;
            if rec.header.declarations.is_empty() {
                GroupBy::Name
            } else {
                GroupBy::Declaration
            }
        }
        Input::Summary(..) => GroupBy::Name,
    })
}

/// Summarizes an input (summary JSON is read, strictly).
pub fn summarize(
    input: &Input,
    group_by: GroupBy,
    given: bool,
    opts: ImportOptions,
) -> Result<Summary> {
    match input {
        Input::Summary(p, f) => {
            let s = interop::read_summary(p, *f)
                .with_context(|| format!("invalid summary {}", p.display()))?;
            if given {
                match s.group_by {
                    Some(g) if g != group_by => bail!(
                        "{} is grouped by {g}; it cannot be regrouped by {group_by}",
                        p.display()
                    ),
                    None => bail!(
                        "{} is a LeanProfiler summary; its rows are grouped by LeanProfiler's key and cannot be regrouped",
                        p.display()
                    ),
                    _ => {}
                }
            }
            Ok(s)
        }
        Input::Session(files) => {
            let mut b = SummaryBuilder::new(group_by);
            for f in files {
                let rec = read_recording(f)?;
                let label = if rec.header.source_path.is_empty() {
                    f.file_name().map(|n| n.to_string_lossy().into_owned())
                } else {
                    None
                };
                b.add(&rec, label.as_deref());
            }
            Ok(b.finish())
        }
        _ => {
            let rec = open_recording(input, opts)?;
            Ok(recording::summary::summarize(&rec, group_by))
        }
    }
}

/// The session in `dir` when it is a repeated capture (`profile --repeat`).
pub fn repeated_session(dir: &Path) -> Option<CommittedSession> {
    CommittedSession::open(dir)
        .ok()
        .filter(|s| s.manifest.repeats.is_some())
}

/// A repeated capture as one summary per run (run r: every committed
/// file's r-th run), in run order; runs no file has yet are left out, and
/// no run at all is an error.
pub fn run_summaries(session: &CommittedSession, group_by: GroupBy) -> Result<Vec<Summary>> {
    let runs = session.manifest.repeats.map_or(0, |r| r.runs);
    let mut summaries = Vec::new();
    for r in 0..runs {
        let mut b = SummaryBuilder::new(group_by);
        let mut any = false;
        for f in &session.manifest.files {
            let Some(run) = f.runs.iter().find(|x| x.repeat == r) else {
                continue;
            };
            if !f.status.is_committed() || !crate::session::committed::is_inside(&run.recording) {
                continue;
            }
            let rec = read_recording(&session.dir.join(&run.recording))?;
            b.add(&rec, None);
            any = true;
        }
        if any {
            summaries.push(b.finish());
        }
    }
    if summaries.is_empty() {
        bail!(
            "the session {} has no committed runs yet",
            session.dir.display()
        );
    }
    Ok(summaries)
}
