//! The viewer's page, `index.html` with its configuration, and the
//! session's manifest as readers see it. A session's page carries its first
//! view, computed from the manifest as it is now (a capture may be
//! running): `session.json` with its journal replayed (an interrupted
//! session's last checkpoint alone would miss the files committed since).
//! Both are built once per version of the manifest and the journal (length,
//! modification time and inode of each) and shared by every request; while
//! one request builds them the others wait for that build instead of
//! parsing the manifest themselves.

use crate::file_stamp::FileStamp;
use std::io::Read;
use std::sync::Mutex;

use bytes::Bytes;
use recording::limits::{MAX_JOURNAL_BYTES, MAX_MANIFEST_BYTES};
use recording::session::{load_manifest, JOURNAL_FILE, MANIFEST_FILE};

use crate::viewer::confined::Beneath;
use crate::viewer::site::{index_html_with, Target};

/// A version of a file of the session (`session.json`, `session.journal`).
type FileVersion = FileStamp;

fn version_of(file: &std::fs::File) -> Option<FileVersion> {
    file.metadata().ok().map(|m| FileStamp::of(&m))
}

/// The manifest's version: `session.json`'s and the journal's (none when
/// there is no journal: a finished session).
type ManifestVersion = (FileVersion, Option<FileVersion>);

/// What one version of the manifest gives.
#[derive(Clone)]
struct Snapshot {
    page: Bytes,
    /// The replayed manifest, when a journal changed it (else the file is
    /// served as it is).
    replayed: Option<Bytes>,
}

pub struct Page {
    /// The page built at start (the page of lone recordings, and what a
    /// session's page falls back to if it cannot be rebuilt).
    initial: Bytes,
    cached: Mutex<Option<(ManifestVersion, Snapshot)>>,
    /// Times the session's page was built (for tests and the bench).
    builds: std::sync::atomic::AtomicUsize,
}

/// The bytes of `file`, up to `limit`.
fn read_up_to(file: std::fs::File, limit: u64) -> Option<Vec<u8>> {
    let mut bytes = Vec::new();
    file.take(limit).read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

impl Page {
    pub fn new(initial: String) -> Page {
        Page {
            initial: Bytes::from(initial),
            cached: Mutex::new(None),
            builds: Default::default(),
        }
    }

    /// The page for `target`; `dir` is the session directory held open.
    pub fn get(&self, target: &Target, diff: bool, dir: Option<&Beneath>) -> Bytes {
        self.snapshot(target, diff, dir)
            .map_or_else(|| self.initial.clone(), |s| s.page)
    }

    /// `session.json` as readers see it when its journal changed it (the
    /// journal replayed); `None` when the file itself is the manifest.
    pub fn replayed_manifest(
        &self,
        target: &Target,
        diff: bool,
        dir: Option<&Beneath>,
    ) -> Option<Bytes> {
        self.snapshot(target, diff, dir)?.replayed
    }

    fn snapshot(&self, target: &Target, diff: bool, dir: Option<&Beneath>) -> Option<Snapshot> {
        let (Target::Session { .. }, Some(dir)) = (target, dir) else {
            return None;
        };
        let mut cached = self.cached.lock().unwrap_or_else(|p| p.into_inner());
        let file = dir.file(&[MANIFEST_FILE]).ok()?;
        let journal = dir.file(&[JOURNAL_FILE]).ok();
        let version = version_of(&file).map(|m| (m, journal.as_ref().and_then(version_of)));
        if let (Some(v), Some((cv, snapshot))) = (version, cached.as_ref()) {
            if v == *cv {
                return Some(snapshot.clone());
            }
        }
        self.builds
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let base = read_up_to(file, MAX_MANIFEST_BYTES)?;
        let journal = journal.and_then(|j| read_up_to(j, MAX_JOURNAL_BYTES));
        let (text, replayed) = match &journal {
            None => (String::from_utf8(base).ok()?, None),
            Some(j) => {
                let loaded = load_manifest(&base, Some(j)).ok()?;
                let json = loaded.manifest.to_json();
                (
                    String::from_utf8(json.clone()).ok()?,
                    Some(Bytes::from(json)),
                )
            }
        };
        let first = crate::viewer::first_view::of_manifest(&text);
        drop(text);
        let page = Bytes::from(index_html_with(target, diff, first).ok()?);
        let snapshot = Snapshot { page, replayed };
        if let Some(v) = version {
            *cached = Some((v, snapshot.clone()));
        }
        Some(snapshot)
    }

    #[cfg(test)]
    pub fn builds(&self) -> usize {
        self.builds.load(std::sync::atomic::Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn concurrent_requests_share_one_build_per_manifest_version() {
        let tmp = tempfile::tempdir().unwrap();
        let site = super::super::route::tests::site(tmp.path());
        if !crate::viewer::site::VIEWER_BUILT {
            eprintln!("the viewer is not built in; the page cannot be built");
            return;
        }
        let pages: Vec<Bytes> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..16)
                .map(|_| s.spawn(|| site.page.get(&site.target, false, site.files.as_ref())))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert_eq!(site.page.builds(), 1);
        assert!(pages.iter().all(|p| p == &pages[0]));
        assert!(std::str::from_utf8(&pages[0])
            .unwrap()
            .contains("firstView"));
        // A new manifest (written and renamed, as the session store does).
        let text = std::fs::read_to_string(tmp.path().join(MANIFEST_FILE)).unwrap();
        std::fs::write(
            tmp.path().join("m.tmp"),
            text.replace("\"producer\":\"test\"", "\"producer\":\"t2\""),
        )
        .unwrap();
        std::fs::rename(tmp.path().join("m.tmp"), tmp.path().join(MANIFEST_FILE)).unwrap();
        site.page.get(&site.target, false, site.files.as_ref());
        site.page.get(&site.target, false, site.files.as_ref());
        assert_eq!(site.page.builds(), 2);
    }
    #[test]
    fn an_unfinished_sessions_manifest_is_served_with_its_journal_replayed() {
        use super::super::route::{route, Request};
        use recording::session::synth::{write_synthetic_session, SessionSynthParams};
        use recording::session::{FileStatus, Manifest};
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("s");
        let params = SessionSynthParams {
            seed: 3,
            files: 4,
            rows: 8,
            hot_spots: 0,
        };
        write_synthetic_session(&params, &dir).unwrap();
        // An unfinished writer commits a change to the journal only.
        let mut store = crate::session::store::SessionStore::reopen(&dir).unwrap();
        store.checkpoint().unwrap();
        store.manifest.files[2].reset(FileStatus::Failed);
        store.manifest.recount();
        store.commit_file(2, None);
        store.sync().unwrap();
        drop(store);
        assert!(dir.join(JOURNAL_FILE).is_file());
        let on_disk =
            Manifest::from_json(&std::fs::read(dir.join(MANIFEST_FILE)).unwrap()).unwrap();
        assert_ne!(on_disk.files[2].status, FileStatus::Failed);
        let dir = std::fs::canonicalize(&dir).unwrap();
        let site = super::super::Site {
            target: Target::open(&dir).unwrap(),
            files: Some(Beneath::open(&dir).unwrap()),
            token: "abc".into(),
            port: 4000,
            page: Page::new("<html>".into()),
            diff: None,
            imported: None,
        };
        let replayed = site
            .page
            .replayed_manifest(&site.target, false, site.files.as_ref())
            .unwrap();
        let served = Manifest::from_json(&replayed).unwrap();
        assert_eq!(served.files[2].status, FileStatus::Failed);
        assert_eq!(served.counts.failed, on_disk.counts.failed + 1);
        // What `data/session.json` answers is that manifest.
        let r = route(
            &Request {
                method: "GET".into(),
                path: "/abc/data/session.json".into(),
                host: Some("127.0.0.1:4000".into()),
                origin: None,
                conditions: Default::default(),
            },
            &site,
        );
        assert_eq!(r.status, 200);
        match &r.body {
            super::super::route::Body::Memory(b, _) => assert_eq!(b, &replayed),
            _ => panic!("the file on disk was served, not the replayed manifest"),
        }
    }
}
