//! A session directory on disk: the lock that says a leanscope is writing
//! it, the index appends, the journal lines that commit each file and the
//! manifest checkpoints, in the order that keeps the session readable at
//! every moment (see `recording::session` and its `journal`).
//!
//! Commits are grouped: [`SessionStore::append_rows`] and
//! [`SessionStore::commit_file`] only write the index and stage the
//! journal line; [`SessionStore::sync`] makes everything staged durable
//! with one sync of the index and one of the journal, in that order (the
//! index rows a journal line counts are on disk before the line is). A
//! file is committed once `sync` returns; one staged but not synced is
//! lost to a `kill -9`, and `--resume` captures it again.

use std::fs::{File, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use recording::limits::{MAX_JOURNAL_BYTES, MAX_MANIFEST_BYTES};
use recording::session::journal::{change_line, checkpoint_due, header_line, FileChange};
use recording::session::{
    load_manifest, LoadedManifest, Manifest, SessionError, FILES_DIR, INDEX_FILE, JOURNAL_FILE,
    MANIFEST_FILE,
};
use recording::AtomicFile;

use super::regular;

/// Held (with `flock`) by the leanscope that writes the session; released
/// by the kernel when it exits, however it exits.
pub const LOCK_FILE: &str = "session.lock";

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{0} already exists and is not empty; give a new directory")]
    NotEmpty(String),
    #[error("{0} is not a session directory (no session.json)")]
    NotASession(String),
    #[error("another leanscope is writing the session {0}")]
    Busy(String),
    #[error("{path}: {source}")]
    Session { path: String, source: SessionError },
    #[error("{what} {path}: {source}")]
    Io {
        what: &'static str,
        path: String,
        source: std::io::Error,
    },
    #[error("index.jsonl of {0} is shorter than its manifest says ({1} < {2} bytes); the session cannot be resumed safely")]
    IndexTooShort(String, u64, u64),
}

fn io<'a>(what: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> StoreError + 'a {
    move |source| StoreError::Io {
        what,
        path: path.display().to_string(),
        source,
    }
}

/// An open session being written.
pub struct SessionStore {
    pub dir: PathBuf,
    pub manifest: Manifest,
    index: File,
    /// The journal being appended to; `None` until the first checkpoint of
    /// this writer (a reopened session's journal is folded, not extended).
    journal: Option<File>,
    /// Length of the journal, and of the checkpoint it extends.
    journal_bytes: u64,
    checkpoint_bytes: u64,
    /// How many times the Lake environment had been taken as of the last
    /// checkpoint or journal line: a manifest whose `lakeEnv` was taken
    /// more often since journals it with the next file.
    lake_env_taken: u64,
    /// Journal lines staged by `commit_file`, written by `sync`.
    staged: Vec<u8>,
    /// Recordings (relative to the session) that the staged entries no
    /// longer name, removed once those entries are committed.
    retired: Vec<String>,
    /// Index rows written (and so recordings published) since the index
    /// was last synced.
    index_dirty: bool,
    _lock: File,
}

impl SessionStore {
    /// Creates a new session in `dir`, which must not exist or be empty.
    pub fn create(dir: &Path, manifest: Manifest) -> Result<SessionStore, StoreError> {
        if let Ok(mut entries) = std::fs::read_dir(dir) {
            if entries.next().is_some() {
                return Err(StoreError::NotEmpty(dir.display().to_string()));
            }
        } else if dir.exists() {
            return Err(StoreError::NotEmpty(dir.display().to_string()));
        }
        std::fs::create_dir_all(dir.join(FILES_DIR)).map_err(io("cannot create", dir))?;
        let lock = take_lock(dir)?;
        let index_path = dir.join(INDEX_FILE);
        let index = OpenOptions::new()
            .create_new(true)
            .append(true)
            .open(&index_path)
            .map_err(io("cannot create", &index_path))?;
        let mut store = SessionStore {
            dir: dir.to_path_buf(),
            manifest,
            index,
            journal: None,
            journal_bytes: 0,
            checkpoint_bytes: 0,
            lake_env_taken: 0,
            staged: Vec::new(),
            retired: Vec::new(),
            index_dirty: false,
            _lock: lock,
        };
        store.checkpoint()?;
        Ok(store)
    }

    /// Opens an existing session to go on writing it: takes the lock, drops
    /// index bytes after the last committed file and recordings no file
    /// names (what a killed writer left behind).
    pub fn reopen(dir: &Path) -> Result<SessionStore, StoreError> {
        if !dir.join(MANIFEST_FILE).is_file() {
            return Err(StoreError::NotASession(dir.display().to_string()));
        }
        let lock = take_lock(dir)?;
        let manifest = read_manifest(dir)?;
        let index_path = dir.join(INDEX_FILE);
        let mut index = regular::open(
            &index_path,
            OpenOptions::new().create(true).truncate(false).write(true),
        )
        .map_err(io("cannot open", &index_path))?;
        let len = index
            .metadata()
            .map_err(io("cannot read", &index_path))?
            .len();
        if len < manifest.index_bytes {
            return Err(StoreError::IndexTooShort(
                dir.display().to_string(),
                len,
                manifest.index_bytes,
            ));
        }
        if len > manifest.index_bytes {
            index
                .set_len(manifest.index_bytes)
                .map_err(io("cannot truncate", &index_path))?;
            index.sync_all().map_err(io("cannot sync", &index_path))?;
        }
        index
            .seek(SeekFrom::End(0))
            .map_err(io("cannot seek", &index_path))?;
        let store = SessionStore {
            dir: dir.to_path_buf(),
            manifest,
            index,
            journal: None,
            journal_bytes: 0,
            checkpoint_bytes: 0,
            lake_env_taken: 0,
            staged: Vec::new(),
            retired: Vec::new(),
            index_dirty: false,
            _lock: lock,
        };
        store.remove_orphans();
        Ok(store)
    }

    /// Removes files under `files/` that the manifest does not name.
    fn remove_orphans(&self) {
        let named: std::collections::HashSet<&str> = self
            .manifest
            .files
            .iter()
            .flat_map(|f| {
                f.recording
                    .as_deref()
                    .into_iter()
                    .chain(f.runs.iter().map(|r| r.recording.as_str()))
            })
            .collect();
        let Ok(entries) = std::fs::read_dir(self.dir.join(FILES_DIR)) else {
            return;
        };
        for e in entries.flatten() {
            let name = e.file_name();
            let rel = format!("{FILES_DIR}/{}", name.to_string_lossy());
            if !named.contains(rel.as_str()) {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }

    /// Writes the manifest as a new checkpoint (atomically), then starts a
    /// new journal over it (atomically: a header naming the checkpoint).
    /// A kill between the two leaves the old journal, which readers then
    /// ignore as stale: the checkpoint holds all of it. The checkpoint
    /// commits every staged file too (after syncing their index rows).
    pub fn checkpoint(&mut self) -> Result<(), StoreError> {
        self.sync_index()?;
        self.staged.clear();
        let base = self.write_manifest()?;
        self.remove_retired();
        let path = self.dir.join(JOURNAL_FILE);
        let header = header_line(&base);
        // The old journal is closed before the new one replaces it:
        // Windows refuses to rename over a file that is open.
        self.journal = None;
        publish(&path, &header)?;
        let journal = regular::open(&path, OpenOptions::new().append(true))
            .map_err(io("cannot open", &path))?;
        self.journal = Some(journal);
        self.journal_bytes = header.len() as u64;
        self.checkpoint_bytes = base.len() as u64;
        self.lake_env_taken = self.taken();
        Ok(())
    }

    /// The last checkpoint, when the run ends: `session.json` alone holds
    /// the session, and the journal is removed (a kill before its removal
    /// leaves it stale, ignored by readers).
    pub fn finish(&mut self) -> Result<(), StoreError> {
        self.sync_index()?;
        self.staged.clear();
        self.write_manifest()?;
        self.remove_retired();
        self.journal = None;
        let path = self.dir.join(JOURNAL_FILE);
        match std::fs::remove_file(&path) {
            Ok(()) => sync_dir(&self.dir),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io("cannot remove", &path)(e)),
        }
        Ok(())
    }

    /// How many times the manifest's Lake environment was taken (0: none).
    fn taken(&self) -> u64 {
        self.manifest.lake_env.as_ref().map_or(0, |e| e.taken)
    }

    fn write_manifest(&self) -> Result<Vec<u8>, StoreError> {
        let bytes = self.manifest.to_json();
        publish(&self.dir.join(MANIFEST_FILE), &bytes)?;
        Ok(bytes)
    }

    /// Stages file `id`'s state in the manifest for commit: one journal
    /// line, written by the next [`SessionStore::sync`] (its recording must
    /// already be published and its index rows written). The line carries
    /// the Lake environment when it was taken again since the last line or
    /// checkpoint.
    pub fn commit_file(&mut self, id: u32, lean_version: Option<String>) {
        let change = FileChange {
            file: self.manifest.files[id as usize].clone(),
            index_bytes: self.manifest.index_bytes,
            next_capture: self.manifest.next_capture,
            lean_version,
            lake_env: (self.taken() != self.lake_env_taken)
                .then(|| self.manifest.lake_env.clone())
                .flatten(),
        };
        self.staged.extend(change_line(&change));
        self.lake_env_taken = self.taken();
    }

    /// Removes `recordings` (relative to the session) once the entries
    /// staged so far, which no longer name them, are committed.
    pub fn retire(&mut self, recordings: Vec<String>) {
        self.retired.extend(recordings);
    }

    fn remove_retired(&mut self) {
        for rel in self.retired.drain(..) {
            let _ = std::fs::remove_file(self.dir.join(rel));
        }
    }

    /// True when files are staged and not yet committed.
    pub fn has_staged(&self) -> bool {
        !self.staged.is_empty()
    }

    /// Commits the staged files: the index synced, then their journal
    /// lines appended and synced (a checkpoint instead when there is no
    /// journal yet, or after them when the journal has outgrown the last
    /// checkpoint).
    pub fn sync(&mut self) -> Result<(), StoreError> {
        if self.staged.is_empty() {
            return Ok(());
        }
        if self.journal.is_none() {
            return self.checkpoint();
        }
        // The index first: a line must never count rows a crash could lose.
        self.sync_index()?;
        let path = self.dir.join(JOURNAL_FILE);
        if let Some(journal) = self.journal.as_mut() {
            journal
                .write_all(&self.staged)
                .map_err(io("cannot append to", &path))?;
            journal.sync_data().map_err(io("cannot sync", &path))?;
        }
        self.journal_bytes += self.staged.len() as u64;
        self.staged.clear();
        self.remove_retired();
        if checkpoint_due(self.journal_bytes, self.checkpoint_bytes) {
            self.checkpoint()?;
        }
        Ok(())
    }

    /// Appends a file's index rows (synced by the next [`SessionStore::sync`]
    /// or checkpoint); returns the new length.
    pub fn append_rows(&mut self, rows: &[u8]) -> Result<u64, StoreError> {
        let path = self.dir.join(INDEX_FILE);
        self.index
            .write_all(rows)
            .map_err(io("cannot append to", &path))?;
        self.index_dirty = true;
        Ok(self.manifest.index_bytes + rows.len() as u64)
    }

    /// Makes the rows appended since the last sync durable, and the
    /// recordings published with them (the capture leaves the fsync of
    /// `files/`, which makes their renames durable, to this one per group).
    fn sync_index(&mut self) -> Result<(), StoreError> {
        if self.index_dirty {
            sync_dir(&self.dir.join(FILES_DIR));
            let path = self.dir.join(INDEX_FILE);
            self.index.sync_data().map_err(io("cannot sync", &path))?;
            self.index_dirty = false;
        }
        Ok(())
    }
}

/// Writes `bytes` to `path` through a temporary file renamed into place.
fn publish(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    let failed = |e: recording::RecordingError| StoreError::Session {
        path: path.display().to_string(),
        source: SessionError::Io(std::io::Error::other(e.to_string())),
    };
    let (guard, mut out) = AtomicFile::create(path).map_err(failed)?;
    out.write_all(bytes).map_err(io("cannot write", path))?;
    guard.publish(out).map_err(failed)?;
    Ok(())
}

/// Makes a removal in `dir` durable (where the platform allows it).
fn sync_dir(dir: &Path) {
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

fn take_lock(dir: &Path) -> Result<File, StoreError> {
    let path = dir.join(LOCK_FILE);
    let f = regular::open(
        &path,
        OpenOptions::new().create(true).truncate(false).write(true),
    )
    .map_err(io("cannot create", &path))?;
    // An advisory lock (flock on Unix, LockFileEx on Windows), released
    // when the file is closed, also by a crash.
    if f.try_lock().is_err() {
        return Err(StoreError::Busy(dir.display().to_string()));
    }
    Ok(f)
}

/// True when a leanscope holds the session's lock (it is really running).
pub fn is_being_written(dir: &Path) -> bool {
    let Ok(f) = regular::read(&dir.join(LOCK_FILE)) else {
        return false;
    };
    // Closing the file releases the shared lock.
    f.try_lock_shared().is_err()
}

/// Reads and checks a session's manifest: `session.json` with its journal
/// replayed.
pub fn read_manifest(dir: &Path) -> Result<Manifest, StoreError> {
    Ok(read_loaded(dir)?.manifest)
}

/// [`read_manifest`], with what replaying the journal found.
pub fn read_loaded(dir: &Path) -> Result<LoadedManifest, StoreError> {
    let path = dir.join(MANIFEST_FILE);
    let base = match read_limited(&path, "session.json", MAX_MANIFEST_BYTES)? {
        Some(b) => b,
        None => return Err(StoreError::NotASession(dir.display().to_string())),
    };
    let journal_path = dir.join(JOURNAL_FILE);
    let journal = read_limited(&journal_path, "session.journal", MAX_JOURNAL_BYTES)?;
    load_manifest(&base, journal.as_deref()).map_err(|source| StoreError::Session {
        path: match source {
            SessionError::BadJournal(_) => journal_path.display().to_string(),
            _ => path.display().to_string(),
        },
        source,
    })
}

/// The bytes of a regular file of at most `limit` bytes; `None` when it
/// does not exist.
fn read_limited(
    path: &Path,
    what: &'static str,
    limit: u64,
) -> Result<Option<Vec<u8>>, StoreError> {
    let f = match regular::read(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io("cannot read", path)(e)),
    };
    let len = f.metadata().map_err(io("cannot read", path))?.len();
    if len > limit {
        return Err(StoreError::Session {
            path: path.display().to_string(),
            source: SessionError::LimitExceeded {
                what,
                value: len,
                limit,
            },
        });
    }
    let mut bytes = Vec::with_capacity(len as usize);
    use std::io::Read;
    f.take(limit)
        .read_to_end(&mut bytes)
        .map_err(io("cannot read", path))?;
    Ok(Some(bytes))
}
