//! A directory written whole or not at all: staged in a temporary
//! directory beside its final place (same file system), then renamed there.
//! A failure part-way removes the stage; readers never see half a site or
//! half a session. `publish` (a site), `synth --session`, `synth-session`
//! and `session merge` (a session) write through it.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

/// Refuses an output directory that exists and is not empty (an empty one
/// is replaced by the new site in one rename).
pub fn refuse_non_empty(out: &Path) -> Result<()> {
    match std::fs::symlink_metadata(out) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e).with_context(|| format!("cannot inspect {}", out.display())),
        Ok(m) if m.is_dir() => {
            let empty = std::fs::read_dir(out)
                .with_context(|| format!("cannot list {}", out.display()))?
                .next()
                .is_none();
            if empty {
                Ok(())
            } else {
                bail!("{} exists and is not empty", out.display())
            }
        }
        Ok(_) => bail!("{} exists and is not a directory", out.display()),
    }
}

/// A new temporary directory in the directory that will hold `out` (so the
/// final rename stays on one file system).
pub fn stage_beside(out: &Path) -> Result<tempfile::TempDir> {
    let name = out
        .file_name()
        .with_context(|| format!("{} does not name a directory", out.display()))?;
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent)
        .with_context(|| format!("cannot create {}", parent.display()))?;
    tempfile::Builder::new()
        .prefix(&format!(".{}.partial-", name.to_string_lossy()))
        .tempdir_in(&parent)
        .with_context(|| {
            format!(
                "cannot create a temporary directory in {}",
                parent.display()
            )
        })
}

/// Renames the finished staging directory to `out`: it appears whole or
/// not at all. An empty directory at `out` is replaced; one that filled up
/// meanwhile makes the rename fail, and nothing is left behind.
pub fn publish(staged: tempfile::TempDir, out: &Path) -> Result<()> {
    let from = staged.path().to_path_buf();
    // Windows renames no directory onto another, even an empty one.
    #[cfg(windows)]
    let _ = std::fs::remove_dir(out);
    // Not yet `into_path`: on failure, `staged` still removes the stage.
    std::fs::rename(&from, out).map_err(|e| {
        let occupied = matches!(
            e.kind(),
            std::io::ErrorKind::DirectoryNotEmpty | std::io::ErrorKind::AlreadyExists
        ) || std::fs::read_dir(out).is_ok_and(|mut d| d.next().is_some());
        if occupied {
            anyhow::anyhow!("{} exists and is not empty", out.display())
        } else {
            anyhow::anyhow!("cannot rename {} to {}: {e}", from.display(), out.display())
        }
    })?;
    // The files are in place; do not let the guard remove them.
    let _ = staged.keep();
    let _ = sync_dir(out.parent().unwrap_or(Path::new(".")));
    Ok(())
}

fn sync_dir(dir: &Path) -> std::io::Result<()> {
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    std::fs::File::open(dir)?.sync_all()
}
