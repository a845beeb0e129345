//! `leanscope publish`'s output: a static copy of the viewer (its embedded
//! assets) and of what it shows (a session's committed files, a recording
//! or an imported file) under `data/`, with the page configured for it,
//! that works from any static web server. The command is
//! `commands::publish`.

use std::io::{Read, Write};
use std::path::Path;

use anyhow::{Context, Result};
use recording::session::{FILES_DIR, INDEX_FILE, MANIFEST_FILE};

use crate::session::committed::CommittedSession;
use crate::session::regular;
use crate::session::staged_dir;
use crate::viewer::confined::Beneath;
use crate::viewer::site::{index_html, Target, DATA_DIR, DIFF_FILE, VIEWER_ASSETS};

/// Writes the site of `target` (with the diff document `diff`, if any) as
/// the new directory `out`, whole or not at all; returns how many
/// recordings it holds.
pub fn write_site(target: Target, diff: Option<&[u8]>, out: &Path) -> Result<usize> {
    staged_dir::refuse_non_empty(out)?;
    // The site is written beside its final place and renamed there at the
    // end: a failure part-way leaves no partial site (the temporary
    // directory is removed when `staged` drops).
    let staged = staged_dir::stage_beside(out)?;
    let site = staged.path();
    let data = site.join(DATA_DIR);
    std::fs::create_dir_all(&data).with_context(|| format!("cannot create {}", data.display()))?;
    for (name, bytes) in VIEWER_ASSETS {
        if *name != "index.html" {
            write(&site.join(name), bytes)?;
        }
    }
    if let Some(doc) = diff {
        write(&site.join(DIFF_FILE), doc)?;
    }
    let copied = match &target {
        Target::Session { dir } => copy_session(dir, &data)?,
        Target::Recording { file, name, .. } => {
            copy_limited(file, &data.join(name), u64::MAX)?;
            1
        }
        Target::Imported { name, bytes, .. } => {
            write(&data.join(name), bytes)?;
            1
        }
    };
    // After the copy: a session's page carries the first view of the copy.
    let page = match &target {
        Target::Session { .. } => Target::Session { dir: data.clone() },
        _ => target,
    };
    write(
        &site.join("index.html"),
        index_html(&page, diff.is_some())?.as_bytes(),
    )?;
    staged_dir::publish(staged, out)?;
    Ok(copied)
}

/// Copies the manifest, the index and the recordings of committed files
/// (through the session reader `query` uses; regular files only).
fn copy_session(dir: &Path, data: &Path) -> Result<usize> {
    let session = CommittedSession::open(dir)
        .with_context(|| format!("cannot open the session {}", dir.display()))?;
    write(&data.join(MANIFEST_FILE), &session.manifest.to_json())?;
    let index = dir.join(INDEX_FILE);
    if index.symlink_metadata().is_ok() {
        copy_prefix(&index, &data.join(INDEX_FILE), session.manifest.index_bytes)?;
    }
    std::fs::create_dir_all(data.join(FILES_DIR))?;
    let recordings = session
        .recordings()
        .with_context(|| format!("cannot publish the session {}", dir.display()))?;
    // Recordings are opened beneath the session directory, one component
    // at a time: no symlink swapped in can lead the copy out of it.
    let beneath = Beneath::open(dir).with_context(|| format!("cannot open {}", dir.display()))?;
    for r in &recordings {
        let dst = data.join(r.rel);
        if let Some(parent) = dst.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let segments: Vec<&str> = r.rel.split('/').collect();
        let what = || format!("cannot copy {} to {}", r.path.display(), dst.display());
        let src = beneath.file(&segments).with_context(what)?;
        copy_open(src, &dst, u64::MAX).with_context(what)?;
    }
    Ok(recordings.len())
}

fn write(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut f =
        std::fs::File::create(path).with_context(|| format!("cannot write {}", path.display()))?;
    f.write_all(bytes)
        .and_then(|_| f.sync_all())
        .with_context(|| format!("cannot write {}", path.display()))
}

/// Copies the first `len` bytes of the index: the rows of committed files
/// (what a killed writer appended after them is left out).
fn copy_prefix(from: &Path, to: &Path, len: u64) -> Result<()> {
    copy_limited(from, to, len)
}

fn copy_limited(from: &Path, to: &Path, len: u64) -> Result<()> {
    let what = || format!("cannot copy {} to {}", from.display(), to.display());
    let src = regular::read(from).with_context(what)?;
    copy_open(src, to, len).with_context(what)
}

/// Copies the first `len` bytes of an opened regular file to `to`.
fn copy_open(src: std::fs::File, to: &Path, len: u64) -> Result<()> {
    let mut dst = std::fs::File::create(to)?;
    std::io::copy(&mut src.take(len), &mut dst)?;
    dst.sync_all()?;
    Ok(())
}
