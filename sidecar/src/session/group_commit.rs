//! Group commit: a capture's finished files are committed together, at
//! most once every [`SYNC_INTERVAL`], so a stream of fast files pays two
//! syncs per group instead of two per file. A file that finishes after a
//! quiet spell is committed at once; one that finishes within the interval
//! of the last sync waits for the rest of it. A file is reported done
//! (its [`SessionEvent::FileDone`]) only once it is committed, and events
//! after a held one wait behind it, so progress stays in order.

use std::time::{Duration, Instant};

use super::engine::SessionEvent;
use super::store::{SessionStore, StoreError};

/// Shortest time between two commits of a running capture.
pub const SYNC_INTERVAL: Duration = Duration::from_millis(50);

/// The files staged since the last commit, and when that was.
pub struct GroupCommit {
    interval: Duration,
    last_sync: Option<Instant>,
    /// `FileDone` events of the staged files, and any events after them,
    /// sent in order when those files are committed.
    held: Vec<SessionEvent>,
}

impl GroupCommit {
    pub fn new(interval: Duration) -> GroupCommit {
        GroupCommit {
            interval,
            last_sync: None,
            held: Vec::new(),
        }
    }

    /// Holds a staged file's `FileDone` until its commit.
    pub fn hold(&mut self, event: SessionEvent) {
        self.held.push(event);
    }

    /// Reports `event` now, or after the held events when there are any.
    pub fn report(&mut self, event: SessionEvent, progress: &mut dyn FnMut(SessionEvent)) {
        if self.held.is_empty() {
            progress(event);
        } else {
            self.held.push(event);
        }
    }

    /// How long the caller may wait for more files before committing what
    /// `store` has staged; `None` when nothing is staged.
    pub fn wait(&self, store: &SessionStore) -> Option<Duration> {
        if !store.has_staged() && self.held.is_empty() {
            return None;
        }
        Some(match self.last_sync {
            Some(t) => self.interval.saturating_sub(t.elapsed()),
            None => Duration::ZERO,
        })
    }

    /// Commits now when the interval since the last commit has passed.
    pub fn sync_if_due(
        &mut self,
        store: &mut SessionStore,
        progress: &mut dyn FnMut(SessionEvent),
    ) -> Result<(), StoreError> {
        if self.wait(store) == Some(Duration::ZERO) {
            self.sync(store, progress)?;
        }
        Ok(())
    }

    /// Commits what `store` has staged, then reports those files done.
    pub fn sync(
        &mut self,
        store: &mut SessionStore,
        progress: &mut dyn FnMut(SessionEvent),
    ) -> Result<(), StoreError> {
        store.sync()?;
        self.last_sync = Some(Instant::now());
        for event in self.held.drain(..) {
            progress(event);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::store::read_manifest;
    use recording::session::{FileEntry, FileStatus, Manifest, NewSession, Target, TargetKind};

    fn new_store(dir: &std::path::Path) -> SessionStore {
        let manifest = Manifest::new(NewSession {
            producer: "test".into(),
            project_root: "/p".into(),
            target: Target {
                kind: TargetKind::Project,
                path: String::new(),
            },
            threshold_ms: 10,
            measure: recording::Measure::Time,
            started_unix_ms: 1,
            files: (0..2)
                .map(|i| FileEntry::planned(i, format!("F{i}.lean"), format!("F{i}")))
                .collect(),
        });
        SessionStore::create(dir, manifest).unwrap()
    }

    /// Stages file `id` as failed (a change with no recording or rows).
    fn fail(store: &mut SessionStore, id: u32) -> SessionEvent {
        let m = &mut store.manifest;
        let was = m.files[id as usize].status;
        m.files[id as usize].reset(FileStatus::Failed);
        m.counts.moved(was, FileStatus::Failed);
        store.commit_file(id, None);
        SessionEvent::FileDone {
            id,
            path: format!("F{id}.lean"),
            run: None,
            status: FileStatus::Failed,
            done: id as usize + 1,
            total: 2,
            error: None,
        }
    }

    fn on_disk(dir: &std::path::Path, id: usize) -> FileStatus {
        read_manifest(dir).unwrap().files[id].status
    }

    #[test]
    fn a_file_is_reported_done_once_committed_and_files_within_the_interval_wait() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("s");
        let mut store = new_store(&dir);
        let mut group = GroupCommit::new(Duration::from_secs(3600));
        let mut reported = Vec::new();
        assert_eq!(group.wait(&store), None, "nothing staged");

        // The first file is committed at once.
        let event = fail(&mut store, 0);
        group.hold(event);
        assert_eq!(group.wait(&store), Some(Duration::ZERO));
        group
            .sync_if_due(&mut store, &mut |e| reported.push(e))
            .unwrap();
        assert_eq!(reported.len(), 1);
        assert_eq!(on_disk(&dir, 0), FileStatus::Failed);

        // The next, within the interval, waits: neither on disk nor reported,
        // and a recording it no longer names stays until it is committed.
        let old = dir.join("files/00001-F1-1.lsrec");
        std::fs::write(&old, b"a recording the committed entry still names").unwrap();
        let event = fail(&mut store, 1);
        store.retire(vec!["files/00001-F1-1.lsrec".into()]);
        group.hold(event);
        assert!(group.wait(&store).unwrap() > Duration::from_secs(3500));
        group
            .sync_if_due(&mut store, &mut |e| reported.push(e))
            .unwrap();
        assert_eq!(reported.len(), 1);
        assert_eq!(on_disk(&dir, 1), FileStatus::Pending);
        assert!(old.exists());
        // A later event waits behind the held one.
        group.report(
            SessionEvent::FileStarted {
                id: 0,
                path: "F0.lean".into(),
                run: None,
            },
            &mut |e| reported.push(e),
        );
        assert_eq!(reported.len(), 1);

        // Until the group is committed.
        group.sync(&mut store, &mut |e| reported.push(e)).unwrap();
        assert_eq!(reported.len(), 3);
        assert!(matches!(reported[1], SessionEvent::FileDone { id: 1, .. }));
        assert!(matches!(
            reported[2],
            SessionEvent::FileStarted { id: 0, .. }
        ));
        assert_eq!(on_disk(&dir, 1), FileStatus::Failed);
        assert!(!old.exists(), "removed once the new entry is committed");
        assert_eq!(read_manifest(&dir).unwrap().counts.failed, 2);
        assert_eq!(group.wait(&store), None);
    }
}
