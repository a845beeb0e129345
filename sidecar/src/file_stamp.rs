//! A version of a file, as its metadata tells it: size, modification time
//! and identity. Files leanscope watches are rewritten whole (published by
//! rename), so a new version is a new file, and its identity changes even
//! when its size and time do not.
//!
//! The identity is the inode number on Unix and the creation time on
//! Windows (a renamed-in file keeps the creation time it was made with,
//! which a rewrite in place would not change: neither happens to the files
//! watched here).

use std::time::UNIX_EPOCH;

/// A file's size, modification time and identity at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FileStamp {
    pub len: u64,
    /// Nanoseconds since the Unix epoch (0 before it or when unknown).
    pub mtime_ns: u128,
    /// The inode number (Unix) or creation time (Windows).
    pub id: u64,
}

impl FileStamp {
    pub fn of(meta: &std::fs::Metadata) -> FileStamp {
        let mtime_ns = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        FileStamp {
            len: meta.len(),
            mtime_ns,
            id: identity(meta),
        }
    }
}

#[cfg(unix)]
fn identity(meta: &std::fs::Metadata) -> u64 {
    std::os::unix::fs::MetadataExt::ino(meta)
}

#[cfg(windows)]
fn identity(meta: &std::fs::Metadata) -> u64 {
    std::os::windows::fs::MetadataExt::creation_time(meta)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_published_by_rename_gets_a_new_stamp() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::write(&a, "same").unwrap();
        let before = FileStamp::of(&std::fs::metadata(&a).unwrap());
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(&b, "same").unwrap();
        std::fs::rename(&b, &a).unwrap();
        let after = FileStamp::of(&std::fs::metadata(&a).unwrap());
        assert_eq!(before.len, after.len);
        assert_ne!(before, after);
        assert_eq!(after, FileStamp::of(&std::fs::metadata(&a).unwrap()));
    }
}
