//! A session directory on disk: the lock that says a leanscope is writing
//! it, the manifest checkpoints and the index appends, in the order that
//! keeps the session readable at every moment (see `recording::session`).

use std::fs::{File, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

use recording::session::{
    Manifest, SessionError, FILES_DIR, INDEX_FILE, MANIFEST_FILE, MAX_MANIFEST_BYTES,
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
        let store = SessionStore {
            dir: dir.to_path_buf(),
            manifest,
            index,
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
            .filter_map(|f| f.recording.as_deref())
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

    /// Rewrites the manifest atomically.
    pub fn checkpoint(&self) -> Result<(), StoreError> {
        let path = self.dir.join(MANIFEST_FILE);
        let (guard, mut out) = AtomicFile::create(&path).map_err(|e| StoreError::Session {
            path: path.display().to_string(),
            source: SessionError::Io(std::io::Error::other(e.to_string())),
        })?;
        out.write_all(&self.manifest.to_json())
            .map_err(io("cannot write", &path))?;
        guard.publish(out).map_err(|e| StoreError::Session {
            path: path.display().to_string(),
            source: SessionError::Io(std::io::Error::other(e.to_string())),
        })?;
        Ok(())
    }

    /// Appends a file's index rows and syncs them; returns the new length.
    pub fn append_rows(&mut self, rows: &[u8]) -> Result<u64, StoreError> {
        let path = self.dir.join(INDEX_FILE);
        self.index
            .write_all(rows)
            .map_err(io("cannot append to", &path))?;
        self.index.sync_data().map_err(io("cannot sync", &path))?;
        Ok(self.manifest.index_bytes + rows.len() as u64)
    }
}

fn take_lock(dir: &Path) -> Result<File, StoreError> {
    let path = dir.join(LOCK_FILE);
    let f = regular::open(
        &path,
        OpenOptions::new().create(true).truncate(false).write(true),
    )
    .map_err(io("cannot create", &path))?;
    // SAFETY: flock on a descriptor we own.
    let r = unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if r != 0 {
        return Err(StoreError::Busy(dir.display().to_string()));
    }
    Ok(f)
}

/// True when a leanscope holds the session's lock (it is really running).
pub fn is_being_written(dir: &Path) -> bool {
    let Ok(f) = regular::read(&dir.join(LOCK_FILE)) else {
        return false;
    };
    // SAFETY: flock on a descriptor we own; closing it releases the lock.
    let r = unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_SH | libc::LOCK_NB) };
    r != 0
}

/// Reads and checks a session's manifest.
pub fn read_manifest(dir: &Path) -> Result<Manifest, StoreError> {
    let path = dir.join(MANIFEST_FILE);
    let f = regular::read(&path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            StoreError::NotASession(dir.display().to_string())
        } else {
            StoreError::Io {
                what: "cannot read",
                path: path.display().to_string(),
                source: e,
            }
        }
    })?;
    let len = f.metadata().map_err(io("cannot read", &path))?.len();
    if len > MAX_MANIFEST_BYTES {
        return Err(StoreError::Session {
            path: path.display().to_string(),
            source: SessionError::LimitExceeded {
                what: "session.json",
                value: len,
                limit: MAX_MANIFEST_BYTES,
            },
        });
    }
    let mut bytes = Vec::with_capacity(len as usize);
    use std::io::Read;
    f.take(MAX_MANIFEST_BYTES)
        .read_to_end(&mut bytes)
        .map_err(io("cannot read", &path))?;
    Manifest::from_json(&bytes).map_err(|source| StoreError::Session {
        path: path.display().to_string(),
        source,
    })
}
