//! Finding the Lean project of a file and the `lake` that builds it.

use std::path::{Path, PathBuf};

/// Files that mark a project root, in order of preference.
const TOOLCHAIN_FILE: &str = "lean-toolchain";
const LAKEFILES: [&str; 2] = ["lakefile.toml", "lakefile.lean"];

#[derive(Debug, thiserror::Error)]
pub enum ProjectError {
    #[error("{file} is not inside a Lean project: no lean-toolchain, lakefile.toml or lakefile.lean in {searched}")]
    OutsideProject { file: String, searched: String },
    #[error("cannot find lake: looked for {looked}. Install Lean with elan (https://lean-lang.org/install) or pass --lake PATH")]
    NoLake { looked: String },
    #[error("{0} does not exist")]
    Missing(String),
}

/// A Lean project: its root and the toolchain it pins.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Project {
    pub root: PathBuf,
    /// The content of `lean-toolchain`, e.g. `leanprover/lean4:v4.22.0`.
    pub toolchain: Option<String>,
}

impl Project {
    /// The nearest ancestor of `path` holding `lean-toolchain`, else the
    /// nearest holding a lakefile.
    pub fn containing(path: &Path) -> Result<Project, ProjectError> {
        let path = path
            .canonicalize()
            .map_err(|_| ProjectError::Missing(path.display().to_string()))?;
        let start = if path.is_dir() {
            path.as_path()
        } else {
            path.parent().unwrap_or(&path)
        };
        let ancestors: Vec<&Path> = start.ancestors().collect();
        let found = ancestors
            .iter()
            .find(|d| d.join(TOOLCHAIN_FILE).is_file())
            .or_else(|| {
                ancestors
                    .iter()
                    .find(|d| LAKEFILES.iter().any(|f| d.join(f).is_file()))
            });
        match found {
            Some(root) => Ok(Project {
                root: root.to_path_buf(),
                toolchain: std::fs::read_to_string(root.join(TOOLCHAIN_FILE))
                    .ok()
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty()),
            }),
            None => Err(ProjectError::OutsideProject {
                file: path.display().to_string(),
                searched: ancestors
                    .iter()
                    .map(|d| d.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
            }),
        }
    }

    /// The project-relative path of a file, with `/` separators.
    pub fn relative(&self, file: &Path) -> Option<String> {
        let file = file.canonicalize().ok()?;
        let rel = file.strip_prefix(&self.root).ok()?;
        Some(
            rel.components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/"),
        )
    }
}

/// Lean's module name for a project-relative path: `Demo/Clean.lean` →
/// `Demo.Clean`. Components that are not plain identifiers are written in
/// «guillemets», as Lean prints them.
pub fn module_name(relative: &str) -> String {
    let stem = relative.strip_suffix(".lean").unwrap_or(relative);
    stem.split('/')
        .filter(|c| !c.is_empty())
        .map(|c| {
            if is_plain_component(c) {
                c.to_string()
            } else {
                format!("«{c}»")
            }
        })
        .collect::<Vec<_>>()
        .join(".")
}

/// Whether a module name component is a plain Lean identifier (a letter
/// or `_`, then letters, digits, `_`, `'`, `!`, `?`), so that Lean prints
/// it without «guillemets».
pub fn is_plain_component(c: &str) -> bool {
    c.chars()
        .next()
        .is_some_and(|f| f.is_alphabetic() || f == '_')
        && c.chars()
            .all(|ch| ch.is_alphanumeric() || ch == '_' || ch == '\'' || ch == '!' || ch == '?')
}

/// Where to look for `lake`: the explicit path, then `PATH`, then
/// `~/.elan/bin`.
pub fn find_lake(
    explicit: Option<&Path>,
    path_var: Option<&str>,
    home: Option<&Path>,
) -> Result<PathBuf, ProjectError> {
    let mut looked = Vec::new();
    if let Some(p) = explicit {
        if is_executable(p) {
            return Ok(p.to_path_buf());
        }
        looked.push(format!("{} (from --lake or the setting)", p.display()));
        return Err(ProjectError::NoLake {
            looked: looked.join(", "),
        });
    }
    if let Some(path) = path_var {
        for dir in std::env::split_paths(path) {
            let candidate = dir.join("lake");
            if is_executable(&candidate) {
                return Ok(candidate);
            }
        }
        looked.push("lake on PATH".to_string());
    }
    if let Some(home) = home {
        let candidate = home.join(".elan/bin/lake");
        if is_executable(&candidate) {
            return Ok(candidate);
        }
        looked.push(candidate.display().to_string());
    }
    Err(ProjectError::NoLake {
        looked: looked.join(", "),
    })
}

pub(crate) fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    p.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_names_follow_leans_rules() {
        assert_eq!(module_name("Demo/Clean.lean"), "Demo.Clean");
        assert_eq!(module_name("Demo/Unicode𝔽.lean"), "Demo.Unicode𝔽");
        assert_eq!(module_name("My Lib/a-b.lean"), "«My Lib».«a-b»");
        assert_eq!(module_name("1st.lean"), "«1st»");
    }

    #[test]
    fn project_root_prefers_lean_toolchain() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("proj");
        std::fs::create_dir_all(root.join("sub/Deep")).unwrap();
        std::fs::write(root.join("lean-toolchain"), "leanprover/lean4:v4.22.0\n").unwrap();
        std::fs::write(root.join("sub/lakefile.toml"), "").unwrap();
        std::fs::write(root.join("sub/Deep/A.lean"), "").unwrap();
        let p = Project::containing(&root.join("sub/Deep/A.lean")).unwrap();
        assert_eq!(p.root, root.canonicalize().unwrap());
        assert_eq!(p.toolchain.as_deref(), Some("leanprover/lean4:v4.22.0"));
        assert_eq!(
            p.relative(&root.join("sub/Deep/A.lean")).as_deref(),
            Some("sub/Deep/A.lean")
        );
    }

    #[test]
    fn a_file_outside_any_project_says_where_it_looked() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("Lone.lean");
        std::fs::write(&f, "").unwrap();
        let e = Project::containing(&f).unwrap_err().to_string();
        assert!(e.contains("is not inside a Lean project: no lean-toolchain, lakefile.toml or lakefile.lean in"), "{e}");
        assert!(e.contains(&dir.path().canonicalize().unwrap().display().to_string()));
    }

    #[test]
    fn lake_lookup_order_and_error() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        let elan = dir.path().join("home/.elan/bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::create_dir_all(&elan).unwrap();
        let make = |p: &Path| {
            use std::os::unix::fs::PermissionsExt;
            std::fs::write(p, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
        };
        make(&elan.join("lake"));
        let home = dir.path().join("home");
        let path_var = bin.display().to_string();
        assert_eq!(
            find_lake(None, Some(&path_var), Some(&home)).unwrap(),
            elan.join("lake")
        );
        make(&bin.join("lake"));
        assert_eq!(
            find_lake(None, Some(&path_var), Some(&home)).unwrap(),
            bin.join("lake")
        );
        let e = find_lake(Some(&dir.path().join("nope")), Some(&path_var), Some(&home))
            .unwrap_err()
            .to_string();
        assert!(e.contains("nope (from --lake or the setting)"), "{e}");
        let e = find_lake(
            None,
            Some("/nonexistent"),
            Some(Path::new("/nonexistent-home")),
        )
        .unwrap_err()
        .to_string();
        assert_eq!(e, "cannot find lake: looked for lake on PATH, /nonexistent-home/.elan/bin/lake. Install Lean with elan (https://lean-lang.org/install) or pass --lake PATH");
    }
}
