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

/// Where `lake` may be, besides an explicit path: the `PATH`, and elan's
/// home (`ELAN_HOME`, else `.elan` in the user's home: `HOME`, or
/// `USERPROFILE` on Windows) with the toolchain the project pins.
#[derive(Debug, Clone, Default)]
pub struct LakeSearch {
    pub path_var: Option<String>,
    pub elan_home: Option<PathBuf>,
    /// The project's `lean-toolchain`, e.g. `leanprover/lean4:v4.22.0`.
    pub toolchain: Option<String>,
}

impl LakeSearch {
    /// From this process's environment, for a project pinning `toolchain`.
    pub fn from_env(toolchain: Option<&str>) -> LakeSearch {
        let home = std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .or_else(|| std::env::var_os("USERPROFILE").filter(|h| !h.is_empty()));
        let elan_home = std::env::var_os("ELAN_HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from)
            .or_else(|| home.map(|h| PathBuf::from(h).join(".elan")));
        LakeSearch {
            path_var: std::env::var("PATH").ok(),
            elan_home,
            toolchain: toolchain.map(str::to_string),
        }
    }
}

/// The name of a program on this platform: `lake`, or `lake.exe` on
/// Windows.
pub fn program_name(name: &str) -> String {
    format!("{name}{}", std::env::consts::EXE_SUFFIX)
}

/// The folder elan keeps a toolchain in, under its home's `toolchains`:
/// `leanprover/lean4:v4.22.0` is `leanprover--lean4---v4.22.0` (elan's
/// names: `/` as `--`, `:` as `---`). `None` for a name that would not be
/// one folder.
pub fn elan_toolchain_dir(toolchain: &str) -> Option<String> {
    let name = toolchain.trim().replace(':', "---").replace('/', "--");
    let plain = !name.is_empty()
        && name != "."
        && name != ".."
        && !name.contains(['\\', '\0'])
        && !name.chars().any(char::is_whitespace);
    plain.then_some(name)
}

/// `lake` for a project pinning `toolchain`, found as Lean users have it:
/// the explicit path (`--lake`, the editor's setting), then `PATH`, then
/// elan's proxy in `ELAN_HOME/bin` (which runs the toolchain the project's
/// `lean-toolchain` names), then that toolchain's own `lake` in elan's
/// `toolchains` folder.
pub fn find_lake(
    explicit: Option<&Path>,
    toolchain: Option<&str>,
) -> Result<PathBuf, ProjectError> {
    search_lake(explicit, &LakeSearch::from_env(toolchain))
}

/// [`find_lake`] over the places `search` names.
pub fn search_lake(explicit: Option<&Path>, search: &LakeSearch) -> Result<PathBuf, ProjectError> {
    let lake = program_name("lake");
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
    if let Some(path) = &search.path_var {
        for dir in std::env::split_paths(path) {
            let candidate = dir.join(&lake);
            if is_executable(&candidate) {
                return Ok(candidate);
            }
        }
        looked.push(format!("{lake} on PATH"));
    }
    if let Some(elan) = &search.elan_home {
        let mut candidates = vec![elan.join("bin").join(&lake)];
        if let Some(dir) = search.toolchain.as_deref().and_then(elan_toolchain_dir) {
            candidates.push(elan.join("toolchains").join(dir).join("bin").join(&lake));
        }
        for candidate in candidates {
            if is_executable(&candidate) {
                return Ok(candidate);
            }
            looked.push(candidate.display().to_string());
        }
    }
    Err(ProjectError::NoLake {
        looked: looked.join(", "),
    })
}

/// Whether `p` is a file this platform runs: executable by someone on
/// Unix; on Windows, any file (the name says what it is).
pub(crate) fn is_executable(p: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        p.metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        p.metadata().is_ok_and(|m| m.is_file())
    }
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

    #[cfg(unix)]
    fn make_executable(p: &Path) {
        use std::os::unix::fs::PermissionsExt;
        std::fs::write(p, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[cfg(not(unix))]
    fn make_executable(p: &Path) {
        std::fs::write(p, "").unwrap();
    }

    #[test]
    fn lake_lookup_order_and_error() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        let elan = dir.path().join("home/.elan");
        let pinned = elan.join("toolchains/leanprover--lean4---v4.22.0/bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::create_dir_all(elan.join("bin")).unwrap();
        std::fs::create_dir_all(&pinned).unwrap();
        let lake = program_name("lake");
        let search = LakeSearch {
            path_var: Some(bin.display().to_string()),
            elan_home: Some(elan.clone()),
            toolchain: Some("leanprover/lean4:v4.22.0\n".into()),
        };
        // The pinned toolchain's own lake, when elan has no proxy.
        make_executable(&pinned.join(&lake));
        assert_eq!(search_lake(None, &search).unwrap(), pinned.join(&lake));
        // elan's proxy before it.
        make_executable(&elan.join("bin").join(&lake));
        assert_eq!(
            search_lake(None, &search).unwrap(),
            elan.join("bin").join(&lake)
        );
        // PATH before both.
        make_executable(&bin.join(&lake));
        assert_eq!(search_lake(None, &search).unwrap(), bin.join(&lake));
        let e = search_lake(Some(&dir.path().join("nope")), &search)
            .unwrap_err()
            .to_string();
        assert!(e.contains("nope (from --lake or the setting)"), "{e}");
        let nowhere = LakeSearch {
            path_var: Some("/nonexistent".into()),
            elan_home: Some(PathBuf::from("/nonexistent-home/.elan")),
            toolchain: None,
        };
        let e = search_lake(None, &nowhere).unwrap_err().to_string();
        let proxy = PathBuf::from("/nonexistent-home/.elan/bin").join(&lake);
        assert_eq!(e, format!("cannot find lake: looked for {lake} on PATH, {}. Install Lean with elan (https://lean-lang.org/install) or pass --lake PATH", proxy.display()));
    }

    #[test]
    fn elans_toolchain_folders() {
        assert_eq!(
            elan_toolchain_dir("leanprover/lean4:v4.22.0").as_deref(),
            Some("leanprover--lean4---v4.22.0")
        );
        assert_eq!(
            elan_toolchain_dir("leanprover/lean4:nightly-2025-06-01\n").as_deref(),
            Some("leanprover--lean4---nightly-2025-06-01")
        );
        assert_eq!(elan_toolchain_dir(".."), None);
        assert_eq!(elan_toolchain_dir("a b"), None);
        assert_eq!(elan_toolchain_dir(""), None);
    }
}
