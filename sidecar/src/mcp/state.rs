//! What the server keeps between calls: the work running now (stopped when the client
//! goes away), the folder relative paths are resolved against, and the recordings and
//! sessions its tools wrote (listed as resources beside those found on disk).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use crate::capture::CancelToken;
use leanscope::limits::MAX_MCP_REMEMBERED;

pub struct State {
    /// Relative paths in arguments are resolved against this folder (the server's working
    /// directory, or `--root`).
    pub root: PathBuf,
    pub running: Running,
    /// The lake captures use when a call names none (`--lake`).
    pub lake: Option<PathBuf>,
    written: Mutex<Vec<PathBuf>>,
}

impl State {
    pub fn new(root: PathBuf) -> State {
        State {
            root,
            running: Running::default(),
            lake: None,
            written: Mutex::new(Vec::new()),
        }
    }

    /// `given` as an absolute path: relative paths are under [`State::root`].
    pub fn path(&self, given: &str) -> PathBuf {
        let p = Path::new(given);
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.root.join(p)
        }
    }

    /// Remembers a recording or session a tool wrote.
    pub fn wrote(&self, path: &Path) {
        let mut w = self.written.lock().unwrap_or_else(|e| e.into_inner());
        w.retain(|p| p != path);
        w.push(path.to_path_buf());
        if w.len() > MAX_MCP_REMEMBERED {
            let extra = w.len() - MAX_MCP_REMEMBERED;
            w.drain(..extra);
        }
    }

    pub fn written(&self) -> Vec<PathBuf> {
        self.written
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

/// Work running now, by id.
#[derive(Default)]
pub struct Running {
    next: AtomicU64,
    cancels: Mutex<HashMap<u64, CancelToken>>,
}

impl Running {
    pub fn register(&self, cancel: CancelToken) -> u64 {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        self.lock().insert(id, cancel);
        id
    }

    pub fn remove(&self, id: u64) {
        self.lock().remove(&id);
    }

    /// Stops everything (the client went away).
    pub fn cancel_all(&self) {
        self.lock().values().for_each(CancelToken::cancel);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, CancelToken>> {
        self.cancels.lock().unwrap_or_else(|e| e.into_inner())
    }
}
