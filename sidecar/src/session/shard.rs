//! `profile --shard K/N`: cutting a plan into shards (the partition itself
//! is `recording::session::shard`), and the `plan.json` a shard's session
//! keeps so that a merge can check where every file went.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::Path;

use recording::limits::MAX_PLAN_BYTES;
use recording::session::shard::{Balance, ShardInfo, ShardPlan, ShardSpec, Weighted, PLAN_FILE};
use recording::AtomicFile;

use super::discover::PlannedFile;
use super::engine::{Plan, SessionFailure, ShardCut};
use super::regular;
use super::store::{read_manifest, StoreError};

/// Cuts `plan` into `spec.count` shards and keeps shard `spec.index`'s
/// files. Weights are source sizes, or with `balance_from` the per-file
/// times of that session.
pub fn cut(
    mut plan: Plan,
    spec: ShardSpec,
    threshold_ms: u64,
    balance_from: Option<&Path>,
) -> Result<Plan, SessionFailure> {
    let sizes: Vec<u64> = plan
        .files
        .iter()
        .map(|f| {
            std::fs::metadata(plan.project.root.join(&f.path))
                .map(|m| m.len())
                .map_err(|e| SessionFailure::Io(format!("cannot read {}: {e}", f.path)))
        })
        .collect::<Result<_, _>>()?;
    let (balance, weights) = match balance_from {
        None => (Balance::Size, sizes),
        Some(dir) => (Balance::Session, session_weights(dir, &plan.files, &sizes)?),
    };
    let files: Vec<Weighted> = plan
        .files
        .iter()
        .zip(weights)
        .map(|(f, weight)| Weighted {
            path: f.path.clone(),
            module: f.module.clone(),
            weight,
        })
        .collect();
    let whole = ShardPlan::cut(
        plan.target.clone(),
        threshold_ms,
        spec.count,
        balance,
        files,
    );
    plan.files = whole
        .files_of(spec.index)
        .map(|f| PlannedFile {
            path: f.path.clone(),
            module: f.module.clone(),
        })
        .collect();
    let info = ShardInfo {
        index: spec.index,
        count: spec.count,
        plan_digest: whole.digest.clone(),
        plan_files: whole.files.len() as u64,
        balance,
        git_commit: git_commit(&plan.project.root),
    };
    plan.shard = Some(ShardCut { info, plan: whole });
    Ok(plan)
}

/// Per planned file, its time in nanoseconds in the session `dir`; files
/// it has no time for are weighed by their size at the session's average
/// nanoseconds per byte (1 when it has none).
fn session_weights(
    dir: &Path,
    files: &[PlannedFile],
    sizes: &[u64],
) -> Result<Vec<u64>, SessionFailure> {
    let m = read_manifest(dir)
        .map_err(|e| SessionFailure::Usage(format!("--balance-from {}: {e}", dir.display())))?;
    let times: HashMap<&str, u64> = m
        .files
        .iter()
        .filter_map(|f| Some((f.path.as_str(), f.time_ns()?)))
        .collect();
    let (mut known_ns, mut known_bytes) = (0u128, 0u128);
    for (f, &size) in files.iter().zip(sizes) {
        if let Some(&t) = times.get(f.path.as_str()) {
            known_ns += u128::from(t);
            known_bytes += u128::from(size);
        }
    }
    let per_byte = |size: u64| -> u64 {
        (u128::from(size) * known_ns)
            .checked_div(known_bytes)
            .map_or(size, |w| u64::try_from(w).unwrap_or(u64::MAX))
    };
    Ok(files
        .iter()
        .zip(sizes)
        .map(|(f, &size)| {
            times
                .get(f.path.as_str())
                .copied()
                .unwrap_or_else(|| per_byte(size))
        })
        .collect())
}

/// The commit `HEAD` names in the project's Git checkout, if it is one.
pub fn git_commit(root: &Path) -> Option<String> {
    let repo = crate::revisions::git::Repo::open(root).ok()?;
    repo.resolve_commit("HEAD").ok()
}

/// Writes `plan.json` into the session directory (temp file + rename).
pub fn write_plan(dir: &Path, plan: &ShardPlan) -> Result<(), StoreError> {
    let path = dir.join(PLAN_FILE);
    let err = |e: String| StoreError::Io {
        what: "cannot write",
        path: path.display().to_string(),
        source: std::io::Error::other(e),
    };
    let (guard, mut out) = AtomicFile::create(&path).map_err(|e| err(e.to_string()))?;
    out.write_all(&plan.to_json())
        .map_err(|e| err(e.to_string()))?;
    guard.publish(out).map_err(|e| err(e.to_string()))?;
    Ok(())
}

#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    #[error("{0}: no {PLAN_FILE} (the session was not captured with --shard)")]
    Missing(String),
    #[error("{path}: {what}")]
    Bad { path: String, what: String },
}

/// Reads and checks a session's `plan.json`.
pub fn read_plan(dir: &Path) -> Result<ShardPlan, PlanError> {
    let path = dir.join(PLAN_FILE);
    let bad = |what: String| PlanError::Bad {
        path: path.display().to_string(),
        what,
    };
    let f = regular::read(&path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            PlanError::Missing(dir.display().to_string())
        } else {
            bad(format!("cannot read: {e}"))
        }
    })?;
    let mut bytes = Vec::new();
    f.take(MAX_PLAN_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| bad(format!("cannot read: {e}")))?;
    if bytes.len() as u64 > MAX_PLAN_BYTES {
        return Err(bad(format!(
            "larger than the limit of {MAX_PLAN_BYTES} bytes"
        )));
    }
    ShardPlan::from_json(&bytes).map_err(|e| bad(format!("not a valid plan: {e}")))
}
