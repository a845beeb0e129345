//! A revision plan: which `.lean` files differ between the merge base of
//! two revisions and the head, read from Git objects only, and the checks
//! that decide whether a per-file measurement of the change is meaningful.
//!
//! The measured base is the merge base (what the head branched from), not
//! the base's tip: the change under test is the head's own. Files are
//! compared tree to tree without rename detection, so a rename is a
//! removal plus an addition: two differently named modules are never
//! given a cost ratio.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::git::{self, Change, GitError, Repo};
use super::roots::{self, RootsError, RootsFrom};
use crate::capture::project::{is_plain_component, module_name};
use leanscope::limits::MAX_LAKEFILE_BYTES;

/// `--max-files` by default.
pub const DEFAULT_MAX_FILES: usize = 32;
/// Files whose difference makes a per-file comparison meaningless: the
/// build configuration, the dependencies and the toolchain.
pub const BUILD_CONFIGURATION: [&str; 4] = [
    "lakefile.lean",
    "lakefile.toml",
    "lake-manifest.json",
    "lean-toolchain",
];
/// The plan format's version (`schema_version`).
pub const PLAN_SCHEMA_VERSION: u64 = 1;

/// One side of the plan: the revision as given and the commit it names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Revision {
    pub rev: String,
    pub commit: String,
}

/// How a file differs between the merge base and the head.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileStatus {
    Modified,
    Added,
    Removed,
}

impl FileStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            FileStatus::Modified => "modified",
            FileStatus::Added => "added",
            FileStatus::Removed => "removed",
        }
    }
}

/// One selected file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlannedChange {
    /// Repository-relative path with `/` separators.
    pub path: String,
    /// Lean's module name: the path from its Lake source folder (from the
    /// repository's root with `--roots` or without a `lakefile.toml`).
    pub module: String,
    pub status: FileStatus,
    /// The blob at the merge base (`null` for an added file).
    pub base_blob: Option<String>,
    /// The blob at the head (`null` for a removed file).
    pub head_blob: Option<String>,
}

/// What `leanscope revisions plan` prints (`schemas/revisions-plan.schema.json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    pub schema_version: u64,
    /// The base as given and its tip.
    pub base: Revision,
    pub head: Revision,
    /// The commit measured as the base side.
    pub merge_base: String,
    pub roots: Vec<String>,
    pub roots_from: RootsFrom,
    pub max_files: usize,
    /// Sorted by path.
    pub files: Vec<PlannedChange>,
    /// Changed entries that are not library `.lean` files (documentation,
    /// scripts, files outside the roots): not measured.
    pub ignored_changes: u64,
    /// SHA-256 (hex) of the plan's canonical form; see [`Plan::digest`].
    pub plan_digest: String,
}

/// Why there is no plan. Every refusal names the path or revision.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    #[error(transparent)]
    Git(#[from] GitError),
    #[error(transparent)]
    Roots(#[from] RootsError),
    #[error("{base} ({base_commit}) and {head} ({head_commit}) have no merge base: they share no history, so there is no base to measure the change against")]
    NoMergeBase {
        base: String,
        base_commit: String,
        head: String,
        head_commit: String,
    },
    #[error("{base} and {head} have {} merge bases ({}); the measured base must be unique: merge one into the other or pass a merge base as --base", ids.len(), ids.join(", "))]
    SeveralMergeBases {
        base: String,
        head: String,
        ids: Vec<String>,
    },
    #[error("{path} differs between the merge base and the head: a toolchain or dependency change needs a different measurement (each side in its own prepared project), not a per-file revision comparison")]
    BuildConfiguration { path: String },
    #[error("{path} is a symbolic link that changed between the merge base and the head; revision plans measure regular files only")]
    Symlink { path: String },
    #[error("{path} is a submodule (gitlink) that changed between the merge base and the head; revision plans do not follow submodules")]
    Submodule { path: String },
    #[error("{path} is not a valid Lean module name: {component:?} is not an identifier (a letter or '_', then letters, digits, '_', '\\'', '!', '?')")]
    NotAModuleName { path: String, component: String },
    #[error("{count} .lean files differ, more than --max-files {limit} (the first over the limit: {path}); narrow --roots or raise --max-files")]
    TooManyFiles {
        count: usize,
        limit: usize,
        path: String,
    },
}

/// What to plan.
pub struct PlanRequest<'a> {
    pub repo: &'a Path,
    pub base: &'a str,
    pub head: &'a str,
    /// `--roots`, or `None` for the default.
    pub roots: Option<Vec<String>>,
    pub max_files: usize,
}

/// Reads the plan from Git objects.
pub fn plan(req: &PlanRequest) -> Result<Plan, PlanError> {
    let repo = Repo::open(req.repo)?;
    let base_commit = repo.resolve_commit(req.base)?;
    let head_commit = repo.resolve_commit(req.head)?;
    let mut bases = repo.merge_bases(&base_commit, &head_commit)?;
    let merge_base = match bases.len() {
        0 => {
            return Err(PlanError::NoMergeBase {
                base: req.base.to_owned(),
                base_commit,
                head: req.head.to_owned(),
                head_commit,
            })
        }
        1 => bases.remove(0),
        _ => {
            bases.sort();
            return Err(PlanError::SeveralMergeBases {
                base: req.base.to_owned(),
                head: req.head.to_owned(),
                ids: bases,
            });
        }
    };
    let (roots, roots_from) = match &req.roots {
        Some(given) => {
            let mut r = Vec::new();
            for g in given {
                let n = roots::normalize(g)?;
                if !r.contains(&n) {
                    r.push(n);
                }
            }
            (r, RootsFrom::Option)
        }
        None => default_roots(&repo, &merge_base)?,
    };

    let mut files = Vec::new();
    let mut count = 0usize;
    let mut first_over: Option<String> = None;
    let mut ignored = 0u64;
    let mut refusal: Option<PlanError> = None;
    repo.diff_trees(&merge_base, &head_commit, |c| {
        if refusal.is_some() {
            return Ok(());
        }
        match classify(&c, &roots, roots_from) {
            Err(e) => refusal = Some(e),
            Ok(None) => ignored += 1,
            Ok(Some(f)) => {
                count += 1;
                if files.len() < req.max_files {
                    files.push(f);
                } else if first_over.is_none() {
                    first_over = Some(f.path);
                }
            }
        }
        Ok(())
    })?;
    if let Some(e) = refusal {
        return Err(e);
    }
    if let Some(path) = first_over {
        return Err(PlanError::TooManyFiles {
            count,
            limit: req.max_files,
            path,
        });
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let mut plan = Plan {
        schema_version: PLAN_SCHEMA_VERSION,
        base: Revision {
            rev: req.base.to_owned(),
            commit: base_commit,
        },
        head: Revision {
            rev: req.head.to_owned(),
            commit: head_commit,
        },
        merge_base,
        roots,
        roots_from,
        max_files: req.max_files,
        files,
        ignored_changes: ignored,
        plan_digest: String::new(),
    };
    plan.plan_digest = plan.digest();
    Ok(plan)
}

fn default_roots(repo: &Repo, merge_base: &str) -> Result<(Vec<String>, RootsFrom), PlanError> {
    if let Some(blob) = repo.blob_at(merge_base, "lakefile.toml")? {
        let bytes = repo.read_blob(&blob, MAX_LAKEFILE_BYTES, "lakefile.toml")?;
        let text =
            String::from_utf8(bytes).map_err(|_| RootsError::Lakefile("it is not UTF-8".into()))?;
        if let Some(r) = roots::from_lakefile_toml(&text)? {
            return Ok((r, RootsFrom::LakefileToml));
        }
    }
    Ok((vec![String::new()], RootsFrom::Repository))
}

/// A changed entry: refused, ignored (`None`) or a selected file.
fn classify(
    c: &Change,
    roots: &[String],
    roots_from: RootsFrom,
) -> Result<Option<PlannedChange>, PlanError> {
    if BUILD_CONFIGURATION.contains(&c.path.as_str()) {
        return Err(PlanError::BuildConfiguration {
            path: c.path.clone(),
        });
    }
    let modes = [c.old_mode.as_str(), c.new_mode.as_str()];
    if modes.contains(&git::MODE_GITLINK) {
        return Err(PlanError::Submodule {
            path: c.path.clone(),
        });
    }
    if modes.contains(&git::MODE_SYMLINK) {
        return Err(PlanError::Symlink {
            path: c.path.clone(),
        });
    }
    if !c.path.ends_with(".lean") || !roots::covers(roots, &c.path) {
        return Ok(None);
    }
    // Module names start at a Lake source folder; with `--roots` or the
    // whole repository, at the repository's root.
    let from_source_dir = match roots_from {
        RootsFrom::LakefileToml => roots
            .iter()
            .filter(|r| !r.is_empty() && c.path.starts_with(&format!("{r}/")))
            .map(|r| &c.path[r.len() + 1..])
            .min_by_key(|rest| rest.len())
            .unwrap_or(&c.path),
        _ => &c.path,
    };
    let stem = from_source_dir
        .strip_suffix(".lean")
        .unwrap_or(from_source_dir);
    if let Some(bad) = stem.split('/').find(|p| !is_plain_component(p)) {
        return Err(PlanError::NotAModuleName {
            path: c.path.clone(),
            component: bad.to_owned(),
        });
    }
    let blob = |id: &str| (!git::is_null_id(id)).then(|| id.to_owned());
    let (base_blob, head_blob) = (blob(&c.old_blob), blob(&c.new_blob));
    let status = match (&base_blob, &head_blob) {
        (None, Some(_)) => FileStatus::Added,
        (Some(_), None) => FileStatus::Removed,
        _ => FileStatus::Modified,
    };
    Ok(Some(PlannedChange {
        module: module_name(from_source_dir),
        path: c.path.clone(),
        status,
        base_blob,
        head_blob,
    }))
}

impl Plan {
    /// SHA-256 (hex) of the canonical form: the plan without
    /// `plan_digest`, as JSON with every object's keys sorted by their
    /// UTF-8 bytes, no whitespace, strings escaped minimally (RFC 8259).
    pub fn digest(&self) -> String {
        let mut v = serde_json::to_value(self).unwrap_or_default();
        if let Some(o) = v.as_object_mut() {
            o.remove("plan_digest");
        }
        let mut out = String::new();
        canonical(&v, &mut out);
        recording::sha256_hex(out.as_bytes())
    }
}

fn canonical(v: &serde_json::Value, out: &mut String) {
    use serde_json::Value;
    match v {
        Value::Object(o) => {
            let mut keys: Vec<&String> = o.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                canonical(&o[k], out);
            }
            out.push('}');
        }
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(x, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}
