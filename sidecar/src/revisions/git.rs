//! Reading Git objects through the `git` command's plumbing.
//!
//! Why the `git` CLI and not a library such as `gix`: every repository a
//! Lean project lives in is already read by the user's `git`, which knows
//! every object format, pack, alternate, SHA-256 repository and extension
//! that repository uses; a second implementation could disagree with it
//! on exactly the repositories where that matters. The plumbing commands
//! used here (`rev-parse`, `merge-base`, `diff-tree`, `ls-tree`,
//! `cat-file`) read objects only: they never touch the working tree or the
//! index, run no hooks, no checkout filters and no textconv, and need no
//! network. Their output formats are stable by Git's own promise for
//! plumbing. Each call's output is read with a size bound, so a hostile
//! repository cannot make leanscope hold an unbounded amount of memory.

use leanscope::limits::{MAX_PATH_BYTES, MAX_SMALL_OUTPUT};
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error("cannot run git ({0}); is git installed and on PATH?")]
    Spawn(std::io::Error),
    #[error("{} is not a Git repository: {stderr}", repo.display())]
    NotARepository { repo: PathBuf, stderr: String },
    #[error("revision {rev:?} does not name a commit in {}: {stderr}", repo.display())]
    UnknownRevision {
        repo: PathBuf,
        rev: String,
        stderr: String,
    },
    #[error("`git {command}` failed: {stderr}")]
    Failed { command: String, stderr: String },
    #[error("`git {command}` printed something unexpected: {what}")]
    Unexpected { command: String, what: String },
    #[error("reading the output of `git {command}`: {source}")]
    Read {
        command: String,
        source: std::io::Error,
    },
}

/// One repository, read through `git -C DIR`.
pub struct Repo {
    dir: PathBuf,
}

/// A changed entry between two trees (`git diff-tree -r --raw`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub old_mode: String,
    pub new_mode: String,
    pub old_blob: String,
    pub new_blob: String,
    /// `M`, `A`, `D`, `T` (type change).
    pub status: char,
    pub path: String,
}

/// Git's mode of a symbolic link.
pub const MODE_SYMLINK: &str = "120000";
/// Git's mode of a submodule (a gitlink).
pub const MODE_GITLINK: &str = "160000";

impl Repo {
    /// Opens `dir` after checking it is inside a Git repository.
    pub fn open(dir: &Path) -> Result<Repo, GitError> {
        let repo = Repo {
            dir: dir.to_path_buf(),
        };
        let out = repo.output(&["rev-parse", "--git-dir"])?;
        if !out.status.success() {
            return Err(GitError::NotARepository {
                repo: repo.dir,
                stderr: stderr_text(&out.stderr),
            });
        }
        Ok(repo)
    }

    fn command(&self) -> Command {
        command(&self.dir)
    }

    fn output(&self, args: &[&str]) -> Result<std::process::Output, GitError> {
        let mut child = self
            .command()
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(GitError::Spawn)?;
        let mut stdout = Vec::new();
        let mut stderr = Vec::new();
        let command = args.join(" ");
        let read = |r: &mut dyn Read, buf: &mut Vec<u8>| {
            r.take(MAX_SMALL_OUTPUT + 1).read_to_end(buf).map(|_| ())
        };
        if let Some(mut o) = child.stdout.take() {
            read(&mut o, &mut stdout).map_err(|source| GitError::Read {
                command: command.clone(),
                source,
            })?;
        }
        if stdout.len() as u64 > MAX_SMALL_OUTPUT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(GitError::Unexpected {
                command,
                what: format!("more than {MAX_SMALL_OUTPUT} bytes"),
            });
        }
        if let Some(mut e) = child.stderr.take() {
            read(&mut e, &mut stderr).map_err(|source| GitError::Read {
                command: command.clone(),
                source,
            })?;
        }
        let status = child.wait().map_err(|source| GitError::Read {
            command: command.clone(),
            source,
        })?;
        Ok(std::process::Output {
            status,
            stdout,
            stderr,
        })
    }

    /// The repository's top folder (where tree paths start).
    pub fn toplevel(&self) -> Result<PathBuf, GitError> {
        let out = self.output(&["rev-parse", "--show-toplevel"])?;
        let text = String::from_utf8_lossy(&out.stdout).trim().to_owned();
        if !out.status.success() || text.is_empty() {
            return Err(GitError::Failed {
                command: "rev-parse --show-toplevel".into(),
                stderr: stderr_text(&out.stderr),
            });
        }
        Ok(PathBuf::from(text))
    }

    /// The full object id of the commit `rev` names.
    pub fn resolve_commit(&self, rev: &str) -> Result<String, GitError> {
        let spec = format!("{rev}^{{commit}}");
        let out = self.output(&[
            "rev-parse",
            "--verify",
            "--quiet",
            "--end-of-options",
            &spec,
        ])?;
        let text = String::from_utf8_lossy(&out.stdout).trim().to_owned();
        if !out.status.success() || !is_object_id(&text) {
            return Err(GitError::UnknownRevision {
                repo: self.dir.clone(),
                rev: rev.to_owned(),
                stderr: stderr_text(&out.stderr),
            });
        }
        Ok(text)
    }

    /// Every merge base of two commits (`git merge-base --all`); empty when
    /// they share no history.
    pub fn merge_bases(&self, a: &str, b: &str) -> Result<Vec<String>, GitError> {
        let out = self.output(&["merge-base", "--all", a, b])?;
        // Exit 1 with no output: no common ancestor.
        let no_ancestor = out.status.code() == Some(1) && out.stdout.is_empty();
        if !out.status.success() && !no_ancestor {
            return Err(GitError::Failed {
                command: format!("merge-base --all {a} {b}"),
                stderr: stderr_text(&out.stderr),
            });
        }
        let text = String::from_utf8_lossy(&out.stdout);
        let ids: Vec<String> = text.lines().map(str::to_owned).collect();
        if let Some(bad) = ids.iter().find(|l| !is_object_id(l)) {
            return Err(GitError::Unexpected {
                command: "merge-base --all".into(),
                what: format!("{bad:?} is not an object id"),
            });
        }
        Ok(ids)
    }

    /// The changed entries between the trees of two commits, recursively,
    /// without rename detection, handed to `each` as they are read.
    pub fn diff_trees(
        &self,
        from: &str,
        to: &str,
        mut each: impl FnMut(Change) -> Result<(), GitError>,
    ) -> Result<(), GitError> {
        let command = format!("diff-tree -r -z --raw --no-renames --no-abbrev {from} {to}");
        let mut child = self
            .command()
            .args([
                "diff-tree",
                "-r",
                "-z",
                "--raw",
                "--no-renames",
                "--no-abbrev",
                "--no-textconv",
                "--no-ext-diff",
                "--end-of-options",
                from,
                to,
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(GitError::Spawn)?;
        let stdout = child.stdout.take();
        let result = (|| {
            let Some(stdout) = stdout else {
                return Ok(());
            };
            let mut r = BufReader::new(stdout);
            loop {
                let Some(meta) = read_field(&mut r, &command)? else {
                    return Ok(());
                };
                let Some(path) = read_field(&mut r, &command)? else {
                    return Err(GitError::Unexpected {
                        command: command.clone(),
                        what: "an entry without a path".into(),
                    });
                };
                let change = parse_change(&meta, path).ok_or_else(|| GitError::Unexpected {
                    command: command.clone(),
                    what: format!("the entry {meta:?}"),
                })?;
                each(change)?;
            }
        })();
        if result.is_err() {
            let _ = child.kill();
        }
        let mut stderr = Vec::new();
        if let Some(e) = child.stderr.take() {
            let _ = e.take(MAX_SMALL_OUTPUT).read_to_end(&mut stderr);
        }
        let status = child.wait().map_err(|source| GitError::Read {
            command: command.clone(),
            source,
        })?;
        result?;
        if !status.success() {
            return Err(GitError::Failed {
                command,
                stderr: stderr_text(&stderr),
            });
        }
        Ok(())
    }

    /// The blob id of `path` in `commit`'s tree, if it is a regular file.
    pub fn blob_at(&self, commit: &str, path: &str) -> Result<Option<String>, GitError> {
        let out = self.output(&["ls-tree", "-z", "--full-tree", commit, "--", path])?;
        if !out.status.success() {
            return Err(GitError::Failed {
                command: format!("ls-tree {commit} -- {path}"),
                stderr: stderr_text(&out.stderr),
            });
        }
        let text = String::from_utf8_lossy(&out.stdout);
        let Some(entry) = text.split('\0').next().filter(|e| !e.is_empty()) else {
            return Ok(None);
        };
        // "<mode> SP <type> SP <id> TAB <path>"
        let mut parts = entry.splitn(2, '\t');
        let meta: Vec<&str> = parts.next().unwrap_or("").split(' ').collect();
        match meta.as_slice() {
            [mode, "blob", id] if mode.starts_with("100") && is_object_id(id) => {
                Ok(Some((*id).to_owned()))
            }
            _ => Ok(None),
        }
    }

    /// The bytes of a blob of at most `limit` bytes; a larger blob is an
    /// error naming `what`.
    pub fn read_blob(&self, blob: &str, limit: u64, what: &str) -> Result<Vec<u8>, GitError> {
        let size = self.output(&["cat-file", "-s", blob])?;
        let size: u64 = String::from_utf8_lossy(&size.stdout)
            .trim()
            .parse()
            .map_err(|_| GitError::Unexpected {
                command: format!("cat-file -s {blob}"),
                what: "not a size".into(),
            })?;
        if size > limit {
            return Err(GitError::Unexpected {
                command: format!("cat-file blob {blob}"),
                what: format!("{what} is {size} bytes, more than the {limit} read"),
            });
        }
        let mut child = self
            .command()
            .args(["cat-file", "blob", blob])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(GitError::Spawn)?;
        let mut bytes = Vec::new();
        if let Some(o) = child.stdout.take() {
            o.take(limit + 1)
                .read_to_end(&mut bytes)
                .map_err(|source| GitError::Read {
                    command: format!("cat-file blob {blob}"),
                    source,
                })?;
        }
        let status = child.wait().map_err(|source| GitError::Read {
            command: format!("cat-file blob {blob}"),
            source,
        })?;
        if !status.success() || bytes.len() as u64 != size {
            return Err(GitError::Failed {
                command: format!("cat-file blob {blob}"),
                stderr: format!("expected {size} bytes, read {}", bytes.len()),
            });
        }
        Ok(bytes)
    }
}

fn read_field(r: &mut impl BufRead, command: &str) -> Result<Option<String>, GitError> {
    let mut buf = Vec::new();
    let n = r
        .take(MAX_PATH_BYTES as u64 + 200)
        .read_until(0, &mut buf)
        .map_err(|source| GitError::Read {
            command: command.to_owned(),
            source,
        })?;
    if n == 0 {
        return Ok(None);
    }
    if buf.last() != Some(&0) {
        return Err(GitError::Unexpected {
            command: command.to_owned(),
            what: format!("a field longer than {MAX_PATH_BYTES} bytes or cut off"),
        });
    }
    buf.pop();
    String::from_utf8(buf)
        .map(Some)
        .map_err(|e| GitError::Unexpected {
            command: command.to_owned(),
            what: format!(
                "a path that is not UTF-8 ({:?})",
                String::from_utf8_lossy(e.as_bytes())
            ),
        })
}

/// `:OLDMODE NEWMODE OLDID NEWID STATUS` and its path.
fn parse_change(meta: &str, path: String) -> Option<Change> {
    let meta = meta.strip_prefix(':')?;
    let f: Vec<&str> = meta.split(' ').collect();
    let [old_mode, new_mode, old_blob, new_blob, status] = f.as_slice() else {
        return None;
    };
    let status = status.chars().next()?;
    if !is_object_id(old_blob) || !is_object_id(new_blob) {
        return None;
    }
    Some(Change {
        old_mode: (*old_mode).to_owned(),
        new_mode: (*new_mode).to_owned(),
        old_blob: (*old_blob).to_owned(),
        new_blob: (*new_blob).to_owned(),
        status,
        path,
    })
}

/// A full SHA-1 (40) or SHA-256 (64) object id in lower-case hex.
/// `git -C DIR` as every git run here starts: no pager, no prompts, no
/// replace refs (objects as stored), stdin closed.
pub fn command(dir: &Path) -> Command {
    let mut c = Command::new("git");
    c.arg("-C")
        .arg(dir)
        .env("GIT_PAGER", "cat")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_NO_REPLACE_OBJECTS", "1")
        .stdin(Stdio::null());
    c
}

pub fn is_object_id(s: &str) -> bool {
    (s.len() == 40 || s.len() == 64) && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// The all-zero id git prints for an absent side.
pub fn is_null_id(s: &str) -> bool {
    s.bytes().all(|b| b == b'0')
}

fn stderr_text(bytes: &[u8]) -> String {
    let s = String::from_utf8_lossy(bytes).trim().to_owned();
    if s.is_empty() {
        "(git printed nothing)".into()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_raw_entry() {
        let z = "0".repeat(40);
        let a = "a".repeat(40);
        let c = parse_change(&format!(":000000 100644 {z} {a} A"), "X.lean".into()).unwrap();
        assert_eq!(c.status, 'A');
        assert!(is_null_id(&c.old_blob));
        assert!(parse_change("000000 100644 x y A", "X".into()).is_none());
    }
}
