//! The viewer's page, `index.html` with its configuration. A session's page
//! carries its first view, computed from `session.json` as it is now (a
//! capture may be running); it is built once per version of the manifest
//! (its length, modification time and inode) and shared by every request,
//! and while one request builds it the others wait for that build instead
//! of parsing the manifest themselves.

use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::sync::Mutex;

use bytes::Bytes;
use recording::session::{MANIFEST_FILE, MAX_MANIFEST_BYTES};

use crate::session::confined::Beneath;
use crate::viewer_site::{self, Target};

/// A version of `session.json`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ManifestVersion {
    len: u64,
    mtime_ns: i128,
    ino: u64,
}

pub struct Page {
    /// The page built at start (the page of lone recordings, and what a
    /// session's page falls back to if it cannot be rebuilt).
    initial: Bytes,
    cached: Mutex<Option<(ManifestVersion, Bytes)>>,
    /// Times the session's page was built (for tests and the bench).
    builds: std::sync::atomic::AtomicUsize,
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
        let (Target::Session { .. }, Some(dir)) = (target, dir) else {
            return self.initial.clone();
        };
        let mut cached = self.cached.lock().unwrap_or_else(|p| p.into_inner());
        let Ok(file) = dir.file(&[MANIFEST_FILE]) else {
            return self.initial.clone();
        };
        let version = file.metadata().ok().map(|m| ManifestVersion {
            len: m.len(),
            mtime_ns: m.mtime() as i128 * 1_000_000_000 + m.mtime_nsec() as i128,
            ino: m.ino(),
        });
        if let (Some(v), Some((cv, page))) = (version, cached.as_ref()) {
            if v == *cv {
                return page.clone();
            }
        }
        self.builds
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut text = String::new();
        let first = file
            .take(MAX_MANIFEST_BYTES)
            .read_to_string(&mut text)
            .ok()
            .and_then(|_| crate::first_view::of_manifest(&text));
        drop(text);
        let page = match viewer_site::index_html_with(target, diff, first) {
            Ok(p) => Bytes::from(p),
            Err(_) => return self.initial.clone(),
        };
        if let Some(v) = version {
            *cached = Some((v, page.clone()));
        }
        page
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
        if !crate::viewer_site::VIEWER_BUILT {
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
}
