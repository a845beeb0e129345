//! Writing one commit's tree into a fresh folder from Git blobs: `git
//! ls-tree -r` lists the entries, `git cat-file --batch` streams each blob
//! to its file. No checkout: no filters, no hooks, no `.gitattributes`
//! rewriting, nothing from the user's working tree or index.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::Stdio;

use super::git::{self, is_object_id, MODE_GITLINK, MODE_SYMLINK};
use leanscope::limits::{MAX_PATH_BYTES, MAX_SYMLINK_TARGET};

#[derive(Debug, thiserror::Error)]
pub enum MaterializeError {
    #[error("cannot run git: {0}")]
    Spawn(std::io::Error),
    #[error("`git {command}` failed: {detail}")]
    Git { command: String, detail: String },
    #[error("the tree of {commit} holds a path leanscope will not write: {path:?}")]
    BadPath { commit: String, path: String },
    #[error("writing {path}: {source}")]
    Write {
        path: String,
        source: std::io::Error,
    },
}

struct Entry {
    mode: String,
    id: String,
    path: String,
}

/// Writes the tree of `commit` of the repository at `repo` into `dest`
/// (which exists and is empty); returns the number of files written.
pub fn materialize(repo: &Path, commit: &str, dest: &Path) -> Result<u64, MaterializeError> {
    let entries = list(repo, commit)?;
    let mut batch = git::command(repo)
        .args(["cat-file", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(MaterializeError::Spawn)?;
    let result = (|| {
        let mut input = batch
            .stdin
            .take()
            .ok_or_else(|| git_err("cat-file --batch", "no stdin"))?;
        let mut output = BufReader::new(
            batch
                .stdout
                .take()
                .ok_or_else(|| git_err("cat-file --batch", "no stdout"))?,
        );
        let mut files = 0u64;
        for e in &entries {
            let target = dest.join(&e.path);
            let parent = target.parent().unwrap_or(dest);
            std::fs::create_dir_all(parent).map_err(|source| MaterializeError::Write {
                path: e.path.clone(),
                source,
            })?;
            if e.mode == MODE_GITLINK {
                // A submodule: an empty folder, as a checkout without
                // `--recurse-submodules` leaves it.
                std::fs::create_dir_all(&target).map_err(|source| MaterializeError::Write {
                    path: e.path.clone(),
                    source,
                })?;
                continue;
            }
            writeln!(input, "{}", e.id)
                .and_then(|()| input.flush())
                .map_err(|d| git_err("cat-file --batch", &d.to_string()))?;
            let mut header = String::new();
            output
                .read_line(&mut header)
                .map_err(|d| git_err("cat-file --batch", &d.to_string()))?;
            let size = parse_header(&header, &e.id)
                .ok_or_else(|| git_err("cat-file --batch", &format!("header {header:?}")))?;
            let write_err = |source| MaterializeError::Write {
                path: e.path.clone(),
                source,
            };
            if e.mode == MODE_SYMLINK {
                if size > MAX_SYMLINK_TARGET {
                    return Err(MaterializeError::BadPath {
                        commit: commit.to_owned(),
                        path: e.path.clone(),
                    });
                }
                let mut link = Vec::new();
                (&mut output)
                    .take(size)
                    .read_to_end(&mut link)
                    .map_err(write_err)?;
                let link = String::from_utf8(link).map_err(|_| MaterializeError::BadPath {
                    commit: commit.to_owned(),
                    path: e.path.clone(),
                })?;
                // Git's own checkout on Windows writes a link as a file
                // holding its target, unless links are enabled there.
                #[cfg(unix)]
                std::os::unix::fs::symlink(link, &target).map_err(write_err)?;
                #[cfg(not(unix))]
                std::fs::write(&target, link).map_err(write_err)?;
            } else {
                let mut f = std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(&target)
                    .map_err(write_err)?;
                let copied =
                    std::io::copy(&mut (&mut output).take(size), &mut f).map_err(write_err)?;
                if copied != size {
                    return Err(git_err("cat-file --batch", "a blob was cut off"));
                }
                #[cfg(unix)]
                if e.mode == "100755" {
                    use std::os::unix::fs::PermissionsExt;
                    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o755))
                        .map_err(write_err)?;
                }
                files += 1;
            }
            let mut nl = [0u8; 1];
            output
                .read_exact(&mut nl)
                .map_err(|d| git_err("cat-file --batch", &d.to_string()))?;
        }
        Ok(files)
    })();
    let _ = batch.kill();
    let _ = batch.wait();
    result
}

fn git_err(command: &str, detail: &str) -> MaterializeError {
    MaterializeError::Git {
        command: command.to_owned(),
        detail: detail.to_owned(),
    }
}

/// `<id> blob <size>` for the id asked.
fn parse_header(header: &str, id: &str) -> Option<u64> {
    let mut f = header.trim_end().split(' ');
    let (got, kind, size) = (f.next()?, f.next()?, f.next()?);
    (got == id && kind == "blob").then_some(())?;
    size.parse().ok()
}

fn list(repo: &Path, commit: &str) -> Result<Vec<Entry>, MaterializeError> {
    let out = git::command(repo)
        .args(["ls-tree", "-r", "-z", "--full-tree", commit])
        .output()
        .map_err(MaterializeError::Spawn)?;
    if !out.status.success() {
        return Err(git_err(
            &format!("ls-tree -r {commit}"),
            String::from_utf8_lossy(&out.stderr).trim(),
        ));
    }
    let mut entries = Vec::new();
    for raw in out.stdout.split(|&b| b == 0).filter(|r| !r.is_empty()) {
        let text = std::str::from_utf8(raw).map_err(|_| MaterializeError::BadPath {
            commit: commit.to_owned(),
            path: String::from_utf8_lossy(raw).into_owned(),
        })?;
        let (meta, path) = text
            .split_once('\t')
            .ok_or_else(|| git_err("ls-tree", &format!("entry {text:?}")))?;
        let m: Vec<&str> = meta.split(' ').collect();
        let [mode, _kind, id] = m.as_slice() else {
            return Err(git_err("ls-tree", &format!("entry {text:?}")));
        };
        let safe = !path.is_empty()
            && path.len() <= MAX_PATH_BYTES
            && !path.starts_with('/')
            && path
                .split('/')
                .all(|c| !c.is_empty() && c != "." && c != ".." && c != ".git");
        if !safe || !is_object_id(id) {
            return Err(MaterializeError::BadPath {
                commit: commit.to_owned(),
                path: path.to_owned(),
            });
        }
        entries.push(Entry {
            mode: (*mode).to_owned(),
            id: (*id).to_owned(),
            path: path.to_owned(),
        });
    }
    Ok(entries)
}
