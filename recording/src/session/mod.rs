//! Sessions: the captures of a folder or a project, as a directory.
//!
//! ```text
//! SESSION/
//!   session.json     the manifest as of its last checkpoint (rewritten atomically)
//!   session.journal  append-only changes since that checkpoint (see [`journal`])
//!   index.jsonl      append-only query rows, one JSON object per line
//!   files/*.lsrec    one recording per captured file
//! ```
//!
//! The write order makes a session readable at any moment, even after the
//! writer was killed: a recording is published first, then its index rows
//! are appended and synced, then a journal line is appended and synced to
//! mark the file committed (with the new length of the index). The manifest
//! is checkpointed (the journal folded into `session.json`, then a new
//! journal started) once the journal is as long as the manifest, and when
//! the run ends, so a finished session is `session.json` alone and the
//! bytes written for the manifest are O(files). [`load_manifest`] is the
//! one reader of `session.json` and its journal. Readers therefore trust an
//! index row only when the manifest marks its file committed *with the same
//! capture number* and the row lies within the committed length of the
//! index; everything else (rows of an unfinished or superseded capture, a
//! half-written last line) is ignored, with a warning where it is damage.
//!
//! This module holds the formats and the pure computations (index rows of a
//! recording, queries, folder totals); the sidecar does the capturing.

pub mod journal;
mod query;
mod repeated;
mod rows;
pub mod shard;
pub mod synth;

use serde::{Deserialize, Serialize};

pub use journal::{load_manifest, FileChange, JournalReport, LoadedManifest, JOURNAL_FILE};
pub use query::hot_spots::{index_hot_spots, median_rows, under_folder, IndexHotSpots, RunKeyRows};
pub use query::{
    query_index, query_index_parallel, query_rows, Committed, QueryKind, QueryOutcome, QueryRow,
    QuerySpec, SortBy,
};
pub use repeated::{query_repeated, MedianRow, RunGroups};
pub use rows::{index_rows, tactic_name, write_row, IndexRow, RowKind};

/// The version of `session.json` and of the index rows this build writes
/// and reads.
pub const SESSION_SCHEMA_VERSION: u32 = 1;

/// The manifest's file name inside a session directory.
pub const MANIFEST_FILE: &str = "session.json";

/// The index's file name inside a session directory.
pub const INDEX_FILE: &str = "index.jsonl";

/// The directory of the recordings inside a session directory.
pub const FILES_DIR: &str = "files";

/// Where a session stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SessionStatus {
    /// Files are being captured, or the writer was killed (then readers
    /// report the session as interrupted).
    Running,
    /// Every planned file was captured (some may have Lean errors).
    Complete,
    /// The run finished but some files failed to capture.
    Partial,
    /// Stopped by the user; the files captured before are kept.
    Cancelled,
}

impl SessionStatus {
    /// How readers name the state: `running` on disk is `interrupted` for
    /// anyone reading it, since the writer may be gone.
    pub fn reader_label(self) -> &'static str {
        match self {
            SessionStatus::Running => "interrupted",
            other => other.as_str(),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            SessionStatus::Running => "running",
            SessionStatus::Complete => "complete",
            SessionStatus::Partial => "partial",
            SessionStatus::Cancelled => "cancelled",
        }
    }
}

/// Where one file of a session stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FileStatus {
    /// Planned, not captured yet.
    Pending,
    /// Captured; Lean reported no errors.
    Ok,
    /// Captured; Lean reported errors, which the recording keeps.
    Error,
    /// The capture failed (Lean crashed, the source is unreadable, ...);
    /// `error` says why. No recording.
    Failed,
    /// Not captured because the session was cancelled (or the file
    /// disappeared before its turn).
    Skipped,
    /// Captured in part: Lean was stopped (a timeout, the memory limit, a
    /// signal) and the recording keeps what it had reported; `error` says
    /// why. Committed, and captured again by `--resume`.
    Stopped,
}

impl FileStatus {
    /// Committed files have a published recording and index rows.
    pub fn is_committed(self) -> bool {
        matches!(
            self,
            FileStatus::Ok | FileStatus::Error | FileStatus::Stopped
        )
    }

    pub fn as_str(self) -> &'static str {
        match self {
            FileStatus::Pending => "pending",
            FileStatus::Ok => "ok",
            FileStatus::Error => "error",
            FileStatus::Failed => "failed",
            FileStatus::Skipped => "skipped",
            FileStatus::Stopped => "stopped",
        }
    }
}

/// What a session captures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TargetKind {
    Folder,
    Project,
    /// One file, captured several times (`profile FILE --repeat N`).
    File,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Target {
    pub kind: TargetKind,
    /// The folder (or, for [`TargetKind::File`], the file), relative to the
    /// project root with `/` separators; `""` for the root itself.
    pub path: String,
}

/// How many files are planned, captured and failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Counts {
    pub planned: u64,
    /// Files with a recording (`ok` or `error`).
    pub completed: u64,
    pub failed: u64,
}

impl Counts {
    /// Moves one file from `from` to `to`: what [`Manifest::recount`]
    /// would find after that one change, in O(1) (a capture commits its
    /// files one by one, and recounting each time would be O(files²)).
    pub fn moved(&mut self, from: FileStatus, to: FileStatus) {
        for (status, sign) in [(from, -1i64), (to, 1)] {
            let slot = if status.is_committed() {
                &mut self.completed
            } else if status == FileStatus::Failed {
                &mut self.failed
            } else {
                continue;
            };
            *slot = slot.saturating_add_signed(sign);
        }
    }
}

/// One file of a session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileEntry {
    /// The file's number in the session (its index in `files`).
    pub id: u32,
    /// Project-relative path with `/` separators.
    pub path: String,
    /// Lean's module name.
    pub module: String,
    pub status: FileStatus,
    /// The capture number of the committed capture; index rows carry it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capture: Option<u64>,
    /// The recording, relative to the session directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recording: Option<String>,
    /// Lean's elapsed time for the file (imports included), when it said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elapsed_ms: Option<f64>,
    /// The union of the recording's top-level intervals: the file's time
    /// when Lean gave no elapsed time (a file with errors, no profile).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub traced_ms: Option<f64>,
    /// Where the file's time went: imports, traced elaboration, the
    /// untraced remainder and Lean's cumulative categories
    /// (`recording::model::accounting`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_account: Option<crate::model::TimeAccount>,
    /// How long the whole capture took (Lean and leanscope).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capture_wall_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub events: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declarations: Option<u64>,
    /// Errors Lean reported in the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lean_errors: Option<u64>,
    /// SHA-256 of the captured source, lowercase hex.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_sha256: Option<String>,
    /// Why the capture failed (at most [`MAX_ERROR_CHARS`](crate::limits::MAX_ERROR_CHARS)
    /// characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// A repeated capture's committed runs of the file, by repeat (absent
    /// without `--repeat`). The entry's own fields are those of the run
    /// committed last, so a reader that knows nothing of repeats reads one
    /// real run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub runs: Vec<RunEntry>,
}

/// One committed run of a file in a repeated capture.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunEntry {
    /// 0-based: the round of the capture this run belongs to.
    pub repeat: u32,
    /// `ok` or `error`.
    pub status: FileStatus,
    /// The run's capture number; its index rows carry it.
    pub capture: u64,
    /// The run's recording, relative to the session directory.
    pub recording: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elapsed_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub traced_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capture_wall_ms: Option<u64>,
}

impl RunEntry {
    /// The run's file time in nanoseconds, as [`FileEntry::time_ns`].
    pub fn time_ns(&self) -> Option<u64> {
        self.elapsed_ms.or(self.traced_ms).and_then(ms_to_ns)
    }
}

/// How a repeated capture runs each file (`profile --repeat N --warmup K`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Repeats {
    /// Runs kept per file.
    pub runs: u32,
    /// Discarded warm-up runs of each file before them (never stored).
    pub warmup: u32,
}

impl FileEntry {
    pub fn planned(id: u32, path: String, module: String) -> FileEntry {
        FileEntry {
            id,
            path,
            module,
            status: FileStatus::Pending,
            capture: None,
            recording: None,
            elapsed_ms: None,
            traced_ms: None,
            time_account: None,
            capture_wall_ms: None,
            events: None,
            declarations: None,
            lean_errors: None,
            source_sha256: None,
            error: None,
            runs: Vec::new(),
        }
    }

    /// The file's time for readers (folder totals, the viewer), in
    /// nanoseconds: Lean's elapsed time, else the traced time — the same
    /// number as the file's index row. `None` for a file that is not
    /// committed or has neither.
    pub fn time_ns(&self) -> Option<u64> {
        if !self.status.is_committed() {
            return None;
        }
        self.elapsed_ms.or(self.traced_ms).and_then(ms_to_ns)
    }

    /// The file's time over its runs (a repeated capture): the spread of
    /// the runs' times ([`RunEntry::time_ns`]). `None` for a file that is
    /// not committed or has no timed run.
    pub fn run_spread(&self) -> Option<crate::repeats::Spread> {
        if !self.status.is_committed() {
            return None;
        }
        let times: Vec<f64> = self
            .runs
            .iter()
            .filter_map(|r| r.time_ns())
            .map(|t| t as f64)
            .collect();
        crate::repeats::Spread::of(&times)
    }

    /// The file's time as readers show it: the median of its runs' times
    /// for a repeated capture (rounded to a nanosecond), else
    /// [`Self::time_ns`].
    pub fn median_time_ns(&self) -> Option<u64> {
        match self.run_spread() {
            Some(s) => Some(crate::repeats::whole(s.median)),
            None => self.time_ns(),
        }
    }

    /// The run whose recording the viewer and the editor show events of:
    /// the median run by file time ([`crate::repeats::median_run`]), else
    /// the run committed last.
    pub fn median_run(&self) -> Option<&RunEntry> {
        let times: Vec<Option<u64>> = self.runs.iter().map(|r| r.time_ns()).collect();
        crate::repeats::median_run(&times)
            .and_then(|k| self.runs.get(k))
            .or(self.runs.last())
    }

    /// Forgets the outcome of an earlier capture.
    pub fn reset(&mut self, status: FileStatus) {
        *self = FileEntry {
            status,
            ..FileEntry::planned(self.id, self.path.clone(), self.module.clone())
        };
    }
}

/// `session.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Manifest {
    pub schema_version: u32,
    pub producer: String,
    /// Absolute path of the project root.
    pub project_root: String,
    pub target: Target,
    /// The capture threshold: milliseconds, or heartbeats when `measure` is heartbeats.
    pub threshold_ms: u64,
    /// What the session's recordings count (absent in older sessions: time).
    #[serde(default)]
    pub measure: crate::Measure,
    /// The toolchains (`lean-toolchain`) the files were captured with.
    pub toolchains: Vec<String>,
    /// Lean versions the files were captured with.
    pub lean_versions: Vec<String>,
    pub started_unix_ms: u64,
    #[serde(default)]
    pub completed_unix_ms: Option<u64>,
    pub status: SessionStatus,
    pub counts: Counts,
    /// Length of `index.jsonl` up to the last committed file's rows.
    pub index_bytes: u64,
    /// The next capture number to hand out.
    pub next_capture: u64,
    #[serde(default)]
    pub notes: Vec<String>,
    /// The shard of a plan this session captures (`profile --shard`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<shard::ShardInfo>,
    /// The shards this session was merged from (`session merge`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merge: Option<shard::MergeInfo>,
    /// A repeated capture: how many runs of each file (absent: one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeats: Option<Repeats>,
    /// The Lake environment the files were captured in (absent in older
    /// sessions, and in merged and synthetic ones).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lake_env: Option<LakeEnvRecord>,
    pub files: Vec<FileEntry>,
}

/// The environment `lake env` set for a session's captures: Lean ran with
/// the caller's environment overlaid with these variables.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LakeEnvRecord {
    /// The variables as `lake env` printed them (an empty value: Lake
    /// unsets the variable), by name.
    pub variables: std::collections::BTreeMap<String, String>,
    /// SHA-256 (lowercase hex) of what `lake env` printed.
    pub sha256: String,
    /// The `lean` the captures ran (found on the environment's `PATH`).
    pub lean: String,
    /// How many times the session's runs took the environment: once per
    /// run, and again after each change of the lakefile or the manifest.
    pub taken: u64,
}

/// What every new session's manifest names: who wrote it, for which
/// project and target, how it was captured, when it started, and its
/// planned files.
#[derive(Debug, Clone)]
pub struct NewSession {
    pub producer: String,
    pub project_root: String,
    pub target: Target,
    pub threshold_ms: u64,
    pub measure: crate::Measure,
    pub started_unix_ms: u64,
    pub files: Vec<FileEntry>,
}

impl Manifest {
    /// A new session's manifest: `running`, at this build's schema version,
    /// nothing committed and no capture handed out yet, with no toolchain,
    /// Lean version, note, shard, merge, repeats or Lake environment. A
    /// writer sets what its session has with struct update syntax.
    pub fn new(s: NewSession) -> Manifest {
        let mut m = Manifest {
            schema_version: SESSION_SCHEMA_VERSION,
            producer: s.producer,
            project_root: s.project_root,
            target: s.target,
            threshold_ms: s.threshold_ms,
            measure: s.measure,
            toolchains: Vec::new(),
            lean_versions: Vec::new(),
            started_unix_ms: s.started_unix_ms,
            completed_unix_ms: None,
            status: SessionStatus::Running,
            counts: Counts::default(),
            index_bytes: 0,
            next_capture: 1,
            notes: Vec::new(),
            shard: None,
            merge: None,
            repeats: None,
            lake_env: None,
            files: s.files,
        };
        m.recount();
        m
    }

    /// Recomputes `counts` from the files.
    pub fn recount(&mut self) {
        let mut c = Counts {
            planned: self.files.len() as u64,
            ..Counts::default()
        };
        for f in &self.files {
            if f.status.is_committed() {
                c.completed += 1;
            } else if f.status == FileStatus::Failed {
                c.failed += 1;
            }
        }
        self.counts = c;
    }

    /// Parses and checks a manifest.
    pub fn from_json(bytes: &[u8]) -> Result<Manifest, SessionError> {
        let m: Manifest =
            serde_json::from_slice(bytes).map_err(|e| SessionError::BadManifest(e.to_string()))?;
        if m.schema_version > SESSION_SCHEMA_VERSION || m.schema_version == 0 {
            return Err(SessionError::UnsupportedVersion {
                found: m.schema_version,
                supported: SESSION_SCHEMA_VERSION,
            });
        }
        for (i, f) in m.files.iter().enumerate() {
            if f.id as usize != i {
                return Err(SessionError::BadManifest(format!(
                    "file {} ({}) has id {}",
                    i, f.path, f.id
                )));
            }
            for r in &f.runs {
                if !r.status.is_committed() {
                    return Err(SessionError::BadManifest(format!(
                        "file {} ({}) has a run {} that is {}, not ok or error",
                        i,
                        f.path,
                        r.repeat,
                        r.status.as_str()
                    )));
                }
            }
            if f.status.is_committed() && (f.capture.is_none() || f.recording.is_none()) {
                return Err(SessionError::BadManifest(format!(
                    "file {} ({}) is {} but names no capture or recording",
                    i,
                    f.path,
                    f.status.as_str()
                )));
            }
        }
        Ok(m)
    }

    /// Serializes the manifest (pretty, newline-terminated).
    pub fn to_json(&self) -> Vec<u8> {
        // Serializing plain data into a Vec cannot fail.
        let mut v = serde_json::to_vec_pretty(self).unwrap_or_default();
        v.push(b'\n');
        v
    }

    /// For each file id, the capture numbers of its committed runs (a
    /// repeated capture), or of its one committed capture.
    pub fn committed_runs(&self) -> Vec<Vec<u64>> {
        self.files
            .iter()
            .map(|f| {
                if !f.status.is_committed() {
                    Vec::new()
                } else if f.runs.is_empty() {
                    f.capture.into_iter().collect()
                } else {
                    f.runs.iter().map(|r| r.capture).collect()
                }
            })
            .collect()
    }

    /// For each file id, the capture number whose index rows count.
    pub fn committed(&self) -> Committed {
        Committed::new(
            self.files
                .iter()
                .map(|f| f.status.is_committed().then_some(f.capture).flatten())
                .collect(),
        )
    }
}

/// What can be wrong with a session on disk.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
    #[error("session.json is not a valid session manifest: {0}")]
    BadManifest(String),
    #[error("session.journal is damaged: {0}")]
    BadJournal(String),
    #[error("unsupported session schema version {found} (this leanscope reads up to version {supported})")]
    UnsupportedVersion { found: u32, supported: u32 },
    #[error("{what} is {value}, over the limit of {limit}")]
    LimitExceeded {
        what: &'static str,
        value: u64,
        limit: u64,
    },
}

/// Nanoseconds as fractional milliseconds (exact to the nanosecond for
/// any time below 2^53 ns, about 104 days).
pub fn ns_to_ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}

/// Fractional milliseconds (as the manifest and the index rows store them,
/// written by [`ns_to_ms`]) back to whole nanoseconds; `None` for a negative
/// or non-finite value.
pub fn ms_to_ns(ms: f64) -> Option<u64> {
    (ms.is_finite() && ms >= 0.0).then(|| (ms * 1e6).round() as u64)
}

/// A new session's manifest over `files`, of a project at `/p`, for tests.
#[cfg(test)]
pub(crate) fn test_manifest(files: Vec<FileEntry>) -> Manifest {
    Manifest::new(NewSession {
        producer: "test".into(),
        project_root: "/p".into(),
        target: Target {
            kind: TargetKind::Project,
            path: String::new(),
        },
        threshold_ms: 10,
        measure: crate::Measure::Time,
        started_unix_ms: 1,
        files,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_moved_agrees_with_a_recount() {
        use FileStatus::*;
        let all = [Pending, Ok, Error, Failed, Skipped];
        for from in all {
            for to in all {
                let mut m = test_manifest(
                    [Ok, Failed, Pending, from]
                        .into_iter()
                        .enumerate()
                        .map(|(i, status)| FileEntry {
                            status,
                            ..FileEntry::planned(i as u32, format!("F{i}.lean"), format!("F{i}"))
                        })
                        .collect(),
                );
                let mut counts = m.counts;
                m.files[3].status = to;
                counts.moved(from, to);
                m.recount();
                assert_eq!(counts, m.counts, "{from:?} -> {to:?}");
            }
        }
    }

    #[test]
    fn file_time_is_the_elapsed_time_of_a_committed_file() {
        let mut f = FileEntry::planned(0, "A.lean".into(), "A".into());
        f.elapsed_ms = Some(ns_to_ms(123_456_789));
        assert_eq!(f.time_ns(), None);
        f.status = FileStatus::Error;
        assert_eq!(f.time_ns(), Some(123_456_789));
        f.elapsed_ms = None;
        assert_eq!(f.time_ns(), None);
        // Without Lean's elapsed time, the traced time (as the index row).
        f.traced_ms = Some(ns_to_ms(7_000_000));
        assert_eq!(f.time_ns(), Some(7_000_000));
        f.elapsed_ms = Some(ns_to_ms(9_000_000));
        assert_eq!(f.time_ns(), Some(9_000_000));
        assert_eq!(ms_to_ns(-1.0), None);
        assert_eq!(ms_to_ns(f64::NAN), None);
        assert_eq!(SessionStatus::Running.reader_label(), "interrupted");
        assert_eq!(SessionStatus::Partial.reader_label(), "partial");
    }

    #[test]
    fn manifest_round_trip_and_checks() {
        let mut m = test_manifest(vec![
            FileEntry::planned(0, "A.lean".into(), "A".into()),
            FileEntry::planned(1, "B.lean".into(), "B".into()),
        ]);
        m.counts = Counts::default();
        m.files[1].status = FileStatus::Failed;
        m.recount();
        assert_eq!(
            m.counts,
            Counts {
                planned: 2,
                completed: 0,
                failed: 1
            }
        );
        let back = Manifest::from_json(&m.to_json()).unwrap();
        assert_eq!(back, m);
        // Without a Lake environment the field is left out; with one it round-trips.
        assert!(!String::from_utf8(m.to_json()).unwrap().contains("lakeEnv"));
        m.lake_env = Some(LakeEnvRecord {
            variables: [("LEAN_PATH".to_string(), "/p/.lake".to_string())].into(),
            sha256: "0".repeat(64),
            lean: "/t/bin/lean".into(),
            taken: 2,
        });
        let back = Manifest::from_json(&m.to_json()).unwrap();
        assert_eq!(back, m);
        m.lake_env = None;
        m.files[0].status = FileStatus::Ok;
        let e = Manifest::from_json(&m.to_json()).unwrap_err().to_string();
        assert!(e.contains("is ok but names no capture"), "{e}");
        m.files[0].status = FileStatus::Pending;
        m.schema_version = SESSION_SCHEMA_VERSION + 1;
        let e = Manifest::from_json(&m.to_json()).unwrap_err().to_string();
        assert!(e.contains("unsupported session schema version 2"), "{e}");
    }
}
