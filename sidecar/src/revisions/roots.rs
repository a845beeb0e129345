//! The library roots a revision plan looks at: the folders whose `.lean`
//! files count as the library's sources.
//!
//! By default they are the source folders of the Lake package's default
//! targets, read from `lakefile.toml` at the merge base (the same file is
//! at the head: a lakefile change is refused). A `lakefile.lean` is a Lean
//! program that only Lean can evaluate, so with one (or with a
//! `lakefile.toml` naming no default target leanscope can find) the roots
//! are the whole repository. Either way `.lean` files under a hidden
//! folder (`.lake`, `.git`, …) or a `build` folder never count.

use serde::Deserialize;

/// Where the roots came from, as the plan reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RootsFrom {
    /// `--roots`.
    Option,
    /// The default targets of `lakefile.toml`.
    LakefileToml,
    /// Every `.lean` file of the repository.
    Repository,
}

#[derive(Debug, thiserror::Error)]
pub enum RootsError {
    #[error("root {0:?} is not a relative path inside the repository (no leading '/', no '..')")]
    BadRoot(String),
    #[error("lakefile.toml at the merge base cannot be read: {0}")]
    Lakefile(String),
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Lakefile {
    #[serde(default)]
    src_dir: Option<String>,
    #[serde(default)]
    default_targets: Vec<String>,
    #[serde(default, rename = "lean_lib")]
    lean_lib: Vec<Target>,
    #[serde(default, rename = "lean_exe")]
    lean_exe: Vec<Target>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Target {
    name: String,
    #[serde(default)]
    src_dir: Option<String>,
}

/// A root folder or file, repository-relative with `/` separators; the
/// empty string is the whole repository.
pub fn normalize(root: &str) -> Result<String, RootsError> {
    if root.starts_with('/') {
        return Err(RootsError::BadRoot(root.to_owned()));
    }
    let mut parts = Vec::new();
    for c in root.split('/') {
        match c {
            "" | "." => {}
            ".." => return Err(RootsError::BadRoot(root.to_owned())),
            c => parts.push(c),
        }
    }
    Ok(parts.join("/"))
}

/// The source folders of `lakefile.toml`'s default targets, or `None` when
/// it names none that it defines.
pub fn from_lakefile_toml(text: &str) -> Result<Option<Vec<String>>, RootsError> {
    let lake: Lakefile = toml::from_str(text).map_err(|e| RootsError::Lakefile(e.to_string()))?;
    let package = lake.src_dir.as_deref().unwrap_or(".");
    let mut roots = Vec::new();
    for name in &lake.default_targets {
        let target = lake
            .lean_lib
            .iter()
            .chain(&lake.lean_exe)
            .find(|t| &t.name == name);
        if let Some(t) = target {
            let dir = format!("{package}/{}", t.src_dir.as_deref().unwrap_or("."));
            let root = normalize(&dir)?;
            if !roots.contains(&root) {
                roots.push(root);
            }
        }
    }
    Ok((!roots.is_empty()).then_some(roots))
}

/// Whether a repository path is a library source under one of `roots`.
pub fn covers(roots: &[String], path: &str) -> bool {
    if path.split('/').any(|c| c.starts_with('.') || c == "build") {
        return false;
    }
    roots.iter().any(|r| {
        r.is_empty()
            || path == r
            || (path.starts_with(r.as_str()) && path[r.len()..].starts_with('/'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_targets_source_dirs() {
        let t = "defaultTargets = [\"A\", \"B\"]\nsrcDir = \"src\"\n[[lean_lib]]\nname = \"A\"\nsrcDir = \"lib\"\n[[lean_lib]]\nname = \"B\"\n[[lean_lib]]\nname = \"C\"\nsrcDir = \"c\"\n";
        assert_eq!(
            from_lakefile_toml(t).unwrap(),
            Some(vec!["src/lib".to_owned(), "src".to_owned()])
        );
        assert_eq!(from_lakefile_toml("name = \"x\"\n").unwrap(), None);
        assert!(from_lakefile_toml("[[lean_lib]]\nsrcDir = 3\n").is_err());
    }

    #[test]
    fn roots_by_whole_components() {
        let roots = vec!["Foo".to_owned()];
        assert!(covers(&roots, "Foo/A.lean"));
        assert!(!covers(&roots, "FooBar/A.lean"));
        assert!(!covers(&roots, "Foo/.lake/A.lean"));
        assert!(!covers(&["".to_owned()], "build/A.lean"));
        assert!(covers(&["".to_owned()], "A.lean"));
        assert!(normalize("../x").is_err());
        assert_eq!(normalize("./a//b/").unwrap(), "a/b");
    }
}
