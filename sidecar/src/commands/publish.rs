//! `leanscope publish`: a static copy of the viewer and a session's data
//! that works from any static web server.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use recording::session::{FILES_DIR, INDEX_FILE, MANIFEST_FILE};

use crate::viewer_site::{self, Target, DATA_DIR, DIFF_FILE, VIEWER_ASSETS};

#[derive(clap::Args)]
pub struct Args {
    /// A session directory (with session.json) or a recording (.lsrec).
    target: PathBuf,
    /// The new directory to write (refused when it exists and is not empty).
    #[arg(long, short)]
    out: PathBuf,
    #[command(flatten)]
    diff: super::compare::DiffArgs,
}

pub fn run(a: Args) -> Result<u8> {
    viewer_site::require_built()?;
    let target = Target::open(&a.target)?;
    let diff = a.diff.document(&a.target)?;
    if a.out.exists()
        && std::fs::read_dir(&a.out)
            .map(|mut d| d.next().is_some())
            .unwrap_or(true)
    {
        bail!("{} exists and is not empty", a.out.display());
    }
    let data = a.out.join(DATA_DIR);
    std::fs::create_dir_all(&data).with_context(|| format!("cannot create {}", data.display()))?;
    for (name, bytes) in VIEWER_ASSETS {
        if *name != "index.html" {
            write(&a.out.join(name), bytes)?;
        }
    }
    if let Some(doc) = &diff {
        write(&a.out.join(DIFF_FILE), doc)?;
    }
    let copied = match &target {
        Target::Session { dir } => copy_session(dir, &data)?,
        Target::Recording { file, name, .. } => {
            copy(file, &data.join(name))?;
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
        &a.out.join("index.html"),
        viewer_site::index_html(&page, diff.is_some())?.as_bytes(),
    )?;
    println!(
        "{} ({} recording{}; open index.html through any static web server)",
        a.out.display(),
        copied,
        if copied == 1 { "" } else { "s" }
    );
    Ok(crate::exit::OK)
}

/// Copies the manifest, the index and the recordings of committed files.
fn copy_session(dir: &Path, data: &Path) -> Result<usize> {
    let manifest = crate::session::store::read_manifest(dir)
        .with_context(|| format!("cannot open the session {}", dir.display()))?;
    write(&data.join(MANIFEST_FILE), &manifest.to_json())?;
    if dir.join(INDEX_FILE).is_file() {
        copy(&dir.join(INDEX_FILE), &data.join(INDEX_FILE))?;
    }
    std::fs::create_dir_all(data.join(FILES_DIR))?;
    let mut n = 0;
    for f in manifest.files.iter().filter(|f| f.status.is_committed()) {
        let Some(rel) = &f.recording else { continue };
        // Only plain relative paths inside the session are copied.
        let rel_path = Path::new(rel);
        if rel_path.is_absolute()
            || rel_path
                .components()
                .any(|c| !matches!(c, std::path::Component::Normal(_)))
        {
            eprintln!("leanscope: skipping {rel}: not a path inside the session");
            continue;
        }
        let src = dir.join(rel_path);
        let dst = data.join(rel_path);
        if let Some(parent) = dst.parent() {
            std::fs::create_dir_all(parent)?;
        }
        copy(&src, &dst)?;
        n += 1;
    }
    Ok(n)
}

fn write(path: &Path, bytes: &[u8]) -> Result<()> {
    std::fs::write(path, bytes).with_context(|| format!("cannot write {}", path.display()))
}

fn copy(from: &Path, to: &Path) -> Result<()> {
    std::fs::copy(from, to)
        .map(|_| ())
        .with_context(|| format!("cannot copy {} to {}", from.display(), to.display()))
}
