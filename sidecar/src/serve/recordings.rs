//! Recordings the server has opened, kept so that the annotations an editor
//! asks for on every change of a buffer cost a hash and a lookup.
//!
//! An entry is valid while the file keeps its size and modification time;
//! the least recently used one goes when more than
//! [`MAX_CACHED_RECORDINGS`] are open.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::SystemTime;

use recording::model::Annotations;
use recording::Recording;
use tower_lsp_server::jsonrpc::Error;

use super::errors;
use leanscope::limits::MAX_CACHED_RECORDINGS;

/// A decoded recording and, once asked for, its annotations.
#[derive(Clone, Debug)]
pub struct Loaded {
    pub recording: Arc<Recording>,
    annotations: Arc<OnceLock<Annotations>>,
}

impl Loaded {
    pub fn annotations(&self) -> &Annotations {
        self.annotations
            .get_or_init(|| recording::model::annotations(&self.recording))
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
struct Stamp {
    len: u64,
    modified: Option<SystemTime>,
}

struct Entry {
    path: PathBuf,
    stamp: Stamp,
    loaded: Loaded,
}

#[derive(Default)]
pub struct Recordings {
    /// Most recently used last.
    entries: Mutex<Vec<Entry>>,
}

impl Recordings {
    /// The recording at `path`, decoded (or from the cache). Blocking: call
    /// it off the async threads.
    pub fn get(&self, path: &Path) -> Result<Loaded, Error> {
        let meta = std::fs::metadata(path).map_err(|e| errors::recording(path, &e.into()))?;
        if !meta.is_file() {
            return Err(errors::no_such_file("the recording", path));
        }
        let stamp = Stamp {
            len: meta.len(),
            modified: meta.modified().ok(),
        };
        if let Some(hit) = self.take(path, stamp) {
            return Ok(hit);
        }
        let rec = Recording::open(path).map_err(|e| errors::recording(path, &e))?;
        let loaded = Loaded {
            recording: Arc::new(rec),
            annotations: Arc::new(OnceLock::new()),
        };
        self.put(path, stamp, loaded.clone());
        Ok(loaded)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Entry>> {
        // A panic while holding the lock leaves a list that is still valid.
        self.entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn take(&self, path: &Path, stamp: Stamp) -> Option<Loaded> {
        let mut entries = self.lock();
        let at = entries.iter().position(|e| e.path == path)?;
        let entry = entries.remove(at);
        if entry.stamp != stamp {
            return None;
        }
        let loaded = entry.loaded.clone();
        entries.push(entry);
        Some(loaded)
    }

    fn put(&self, path: &Path, stamp: Stamp, loaded: Loaded) {
        let mut entries = self.lock();
        entries.retain(|e| e.path != path);
        entries.push(Entry {
            path: path.to_path_buf(),
            stamp,
            loaded,
        });
        let over = entries.len().saturating_sub(MAX_CACHED_RECORDINGS);
        entries.drain(..over);
    }

    #[cfg(test)]
    fn cached(&self) -> Vec<PathBuf> {
        self.lock().iter().map(|e| e.path.clone()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use recording::synth::{synthetic_bytes, SynthParams};

    fn write(dir: &Path, name: &str, seed: u64, events: u64) -> PathBuf {
        let p = dir.join(name);
        let bytes = synthetic_bytes(&SynthParams {
            seed,
            events,
            threads: 2,
        })
        .unwrap();
        std::fs::write(&p, bytes).unwrap();
        p
    }

    #[test]
    fn keeps_at_most_the_limit_and_reloads_changed_files() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Recordings::default();
        let paths: Vec<PathBuf> = (0..=MAX_CACHED_RECORDINGS as u64)
            .map(|k| write(dir.path(), &format!("r{k}.lsrec"), k, 50))
            .collect();
        for p in &paths[..MAX_CACHED_RECORDINGS] {
            cache.get(p).unwrap();
        }
        assert_eq!(cache.cached(), paths[..MAX_CACHED_RECORDINGS]);
        // Using the first again makes the second the oldest, which goes.
        let first = cache.get(&paths[0]).unwrap();
        let again = cache.get(&paths[0]).unwrap();
        assert!(Arc::ptr_eq(&first.recording, &again.recording));
        cache.get(&paths[MAX_CACHED_RECORDINGS]).unwrap();
        let cached = cache.cached();
        assert_eq!(cached.len(), MAX_CACHED_RECORDINGS);
        assert!(!cached.contains(&paths[1]));
        // A rewritten file (another size) is decoded again.
        write(dir.path(), "r0.lsrec", 0, 80);
        let reloaded = cache.get(&paths[0]).unwrap();
        assert!(!Arc::ptr_eq(&first.recording, &reloaded.recording));
        assert_eq!((first.recording.len(), reloaded.recording.len()), (50, 80));
    }

    #[test]
    fn bad_files_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Recordings::default();
        let junk = dir.path().join("junk.lsrec");
        std::fs::write(&junk, b"not a recording at all").unwrap();
        let e = cache.get(&junk).unwrap_err();
        assert_eq!(
            e.code,
            tower_lsp_server::jsonrpc::ErrorCode::ServerError(errors::NOT_A_RECORDING)
        );
        let e = cache.get(&dir.path().join("missing.lsrec")).unwrap_err();
        assert_eq!(
            e.code,
            tower_lsp_server::jsonrpc::ErrorCode::ServerError(errors::NO_SUCH_FILE)
        );
        let e = cache.get(dir.path()).unwrap_err();
        assert_eq!(
            e.code,
            tower_lsp_server::jsonrpc::ErrorCode::ServerError(errors::NO_SUCH_FILE)
        );
    }
}
