//! The one way to read a finished or interrupted session: its manifest,
//! checked, and the recordings of the files it marks committed. Files a
//! killed writer left under `files/`, and recordings the manifest names
//! outside the session, are never read. Every file is opened as a regular
//! file only (see [`super::regular`]).

use std::path::{Component, Path, PathBuf};

use recording::session::{Manifest, MANIFEST_FILE};
use recording::Recording;

use super::regular;
use super::store::{read_manifest, StoreError};

/// A session opened for reading.
pub struct CommittedSession {
    pub dir: PathBuf,
    pub manifest: Manifest,
}

/// A committed file's recording.
pub struct CommittedRecording<'a> {
    /// The recording's path (inside the session directory).
    pub path: PathBuf,
    /// The path relative to the session directory.
    pub rel: &'a str,
}

#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{session}: the manifest names the recording {rel:?} of {file}, which is not a path inside the session")]
    OutsidePath {
        session: String,
        file: String,
        rel: String,
    },
    #[error("cannot read the recording {path}: {source}")]
    Recording {
        path: String,
        source: recording::RecordingError,
    },
    #[error("cannot read the recording {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
}

impl CommittedSession {
    /// Opens the session in `dir`: the same checks and errors as
    /// `leanscope query` (no manifest, an empty or broken one).
    pub fn open(dir: &Path) -> Result<CommittedSession, StoreError> {
        if !dir.join(MANIFEST_FILE).exists() {
            return Err(StoreError::NotASession(dir.display().to_string()));
        }
        let manifest = read_manifest(dir)?;
        Ok(CommittedSession {
            dir: dir.to_path_buf(),
            manifest,
        })
    }

    /// The recordings of committed files, in the manifest's order; an error
    /// for a recording path that leaves the session.
    pub fn recordings(&self) -> Result<Vec<CommittedRecording<'_>>, ReadError> {
        let mut out = Vec::new();
        for entry in self.manifest.files.iter() {
            if !entry.status.is_committed() {
                continue;
            }
            let Some(rel) = entry.recording.as_deref() else {
                continue;
            };
            if !is_inside(rel) {
                return Err(ReadError::OutsidePath {
                    session: self.dir.display().to_string(),
                    file: entry.path.clone(),
                    rel: rel.to_owned(),
                });
            }
            out.push(CommittedRecording {
                path: self.dir.join(rel),
                rel,
            });
        }
        Ok(out)
    }
}

/// A plain relative path with only normal components.
pub fn is_inside(rel: &str) -> bool {
    let p = Path::new(rel);
    !rel.is_empty() && !p.is_absolute() && p.components().all(|c| matches!(c, Component::Normal(_)))
}

/// Reads a recording that must be a regular file (a FIFO or a device is
/// refused at once).
pub fn read_recording(path: &Path) -> Result<Recording, ReadError> {
    let file = regular::read(path).map_err(|source| ReadError::Io {
        path: path.display().to_string(),
        source,
    })?;
    Recording::from_file(file).map_err(|source| ReadError::Recording {
        path: path.display().to_string(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_relative_paths_are_inside() {
        assert!(is_inside("files/00001-A-1.lsrec"));
        for bad in ["", "/etc/passwd", "../x.lsrec", "files/../../x", "./x"] {
            assert!(!is_inside(bad), "{bad}");
        }
    }
}
