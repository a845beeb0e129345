//! Which `.lean` files a folder or project capture covers.

use std::path::{Path, PathBuf};

use crate::capture::project::{module_name, Project};

/// Directory names never descended into (besides hidden entries).
pub const SKIPPED_DIRS: [&str; 2] = ["build", "node_modules"];

/// File names never captured.
pub const SKIPPED_FILES: [&str; 1] = ["lakefile.lean"];

/// One file of a plan.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlannedFile {
    /// Project-relative path with `/` separators.
    pub path: String,
    pub module: String,
}

/// The files of `dir` (inside `project`), sorted by path. Skips hidden
/// entries (so `.lake`, `.git`, `.leanscope`), [`SKIPPED_DIRS`],
/// [`SKIPPED_FILES`], symbolic links and names that are not UTF-8 (each
/// such name is reported in the returned notes).
pub fn discover(project: &Project, dir: &Path) -> std::io::Result<(Vec<PlannedFile>, Vec<String>)> {
    let mut files = Vec::new();
    let mut notes = Vec::new();
    let mut stack: Vec<PathBuf> = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d).map_err(|e| {
            std::io::Error::new(e.kind(), format!("cannot list {}: {e}", d.display()))
        })?;
        for entry in entries {
            let entry = entry?;
            let name = entry.file_name();
            let Some(name) = name.to_str() else {
                notes.push(format!(
                    "skipped {}: its name is not UTF-8",
                    entry.path().display()
                ));
                continue;
            };
            if name.starts_with('.') {
                continue;
            }
            let kind = entry.file_type()?;
            if kind.is_symlink() {
                continue;
            }
            if kind.is_dir() {
                if !SKIPPED_DIRS.contains(&name) {
                    stack.push(entry.path());
                }
            } else if kind.is_file() && name.ends_with(".lean") && !SKIPPED_FILES.contains(&name) {
                let path = entry.path();
                let rel = path
                    .strip_prefix(&project.root)
                    .ok()
                    .and_then(|r| {
                        r.components()
                            .map(|c| c.as_os_str().to_str())
                            .collect::<Option<Vec<_>>>()
                    })
                    .map(|parts| parts.join("/"));
                match rel {
                    Some(rel) => files.push(PlannedFile {
                        module: module_name(&rel),
                        path: rel,
                    }),
                    None => notes.push(format!(
                        "skipped {}: not inside the project root {}",
                        path.display(),
                        project.root.display()
                    )),
                }
            }
        }
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok((files, notes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skips_what_lean_users_expect() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("p");
        for d in [
            "A/B",
            ".lake/packages/x",
            ".git",
            "build/lib",
            "node_modules/m",
            ".hidden",
        ] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        std::fs::write(root.join("lean-toolchain"), "leanprover/lean4:v4.31.0\n").unwrap();
        for f in [
            "Top.lean",
            "lakefile.lean",
            "A/One.lean",
            "A/B/Two.lean",
            "A/B/notes.md",
            ".lake/packages/x/X.lean",
            "build/lib/Y.lean",
            "node_modules/m/Z.lean",
            ".hidden/H.lean",
            "A/.Dot.lean",
        ] {
            std::fs::write(root.join(f), "").unwrap();
        }
        std::os::unix::fs::symlink(root.join("A/One.lean"), root.join("A/Link.lean")).unwrap();
        std::os::unix::fs::symlink(root.join("A"), root.join("LinkDir")).unwrap();
        let project = Project::containing(&root).unwrap();
        let (files, notes) = discover(&project, &project.root).unwrap();
        let paths: Vec<_> = files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["A/B/Two.lean", "A/One.lean", "Top.lean"]);
        assert_eq!(files[0].module, "A.B.Two");
        assert!(notes.is_empty());
        let (files, _) = discover(&project, &project.root.join("A/B")).unwrap();
        assert_eq!(files.len(), 1);
    }
}
