//! `revisions merge`: the workspaces of a sharded revision run (`run
//! --shard K/N`, one per shard) as one run, in a new workspace: the shards
//! must be of one plan (the same digest, revisions, repeat, thresholds and
//! measure), each shard once and none missing. The files and samples are
//! put together; with `--profile`, each sample's recording is copied into
//! the new `raw/`, and the two sides' sessions and their diff are written
//! from them as an unsharded run writes them (`profile.rs`). A shard that
//! failed makes the merged run fail, saying which.

use std::path::{Path, PathBuf};

use leanscope::limits::MAX_REVISIONS_REPORT_BYTES;

use super::plan::Plan;
use super::report::{markdown, Report, State, REPORT_SCHEMA_VERSION};
use super::run::{run_id, write_json, write_text};

#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    #[error("{}: {message}", path.display())]
    Read { path: PathBuf, message: String },
    #[error("{} is not a shard's workspace: its run was made without --shard", .0.display())]
    NotAShard(PathBuf),
    #[error("{} is of another run than {}: its {what} differs", path.display(), first.display())]
    Mismatch {
        path: PathBuf,
        first: PathBuf,
        what: &'static str,
    },
    #[error("shard {index} of {count} is given twice: {} and {}", a.display(), b.display())]
    Twice {
        index: u32,
        count: u32,
        a: PathBuf,
        b: PathBuf,
    },
    #[error("shards missing: {} of {count} (each shard's workspace must be given)", missing.iter().map(u32::to_string).collect::<Vec<_>>().join(", "))]
    Missing { missing: Vec<u32>, count: u32 },
    #[error("no shard workspace given")]
    Empty,
    #[error("the workspace {} already exists; name a new folder", .0.display())]
    WorkspaceExists(PathBuf),
    #[error("writing {}: {message}", path.display())]
    Write { path: PathBuf, message: String },
}

/// A shard's workspace, read.
struct Shard {
    dir: PathBuf,
    report: Report,
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, MergeError> {
    let fail = |message: String| MergeError::Read {
        path: path.to_path_buf(),
        message,
    };
    let len = std::fs::metadata(path)
        .map_err(|e| fail(e.to_string()))?
        .len();
    if len > MAX_REVISIONS_REPORT_BYTES {
        let limit = leanscope::limit!(MAX_REVISIONS_REPORT_BYTES, "the file's size");
        return Err(fail(format!("{len} bytes: {limit}")));
    }
    let bytes = std::fs::read(path).map_err(|e| fail(e.to_string()))?;
    serde_json::from_slice(&bytes).map_err(|e| fail(format!("not a revision run's file: {e}")))
}

/// Reads and checks the shards; returns them in shard order and the plan.
fn read_shards(dirs: &[PathBuf]) -> Result<(Vec<Shard>, Plan), MergeError> {
    let first_dir = dirs.first().ok_or(MergeError::Empty)?;
    let plan: Plan = read_json(&first_dir.join("plan.json"))?;
    let mut shards: Vec<Shard> = Vec::new();
    for dir in dirs {
        let report: Report = read_json(&dir.join("report.json"))?;
        let spec = report
            .shard
            .ok_or_else(|| MergeError::NotAShard(dir.clone()))?;
        let mismatch = |what| MergeError::Mismatch {
            path: dir.clone(),
            first: first_dir.clone(),
            what,
        };
        if report.schema_version != REPORT_SCHEMA_VERSION {
            return Err(mismatch("schema version"));
        }
        if report.plan_digest != plan.plan_digest {
            return Err(mismatch("plan digest"));
        }
        if let Some(s) = shards.first() {
            let f = &s.report;
            if report.revisions != f.revisions {
                return Err(mismatch("revisions"));
            }
            if report.repeat != f.repeat {
                return Err(mismatch("repeat"));
            }
            if report.thresholds != f.thresholds {
                return Err(mismatch("thresholds"));
            }
            if report.measure != f.measure || report.measure_note != f.measure_note {
                return Err(mismatch("measure"));
            }
            if f.shard.map(|s| s.count) != Some(spec.count) {
                return Err(mismatch("shard count"));
            }
        }
        if let Some(s) = shards.iter().find(|s| s.report.shard == Some(spec)) {
            return Err(MergeError::Twice {
                index: spec.index,
                count: spec.count,
                a: s.dir.clone(),
                b: dir.clone(),
            });
        }
        shards.push(Shard {
            dir: dir.clone(),
            report,
        });
    }
    let count = shards[0].report.shard.map_or(1, |s| s.count);
    let missing: Vec<u32> = (1..=count)
        .filter(|k| {
            !shards
                .iter()
                .any(|s| s.report.shard.map(|s| s.index) == Some(*k))
        })
        .collect();
    if !missing.is_empty() {
        return Err(MergeError::Missing { missing, count });
    }
    shards.sort_by_key(|s| s.report.shard.map(|s| s.index));
    Ok((shards, plan))
}

/// Merges the shard workspaces `dirs` into the new `workspace`.
pub fn merge(dirs: &[PathBuf], workspace: &Path) -> Result<Report, MergeError> {
    let (shards, plan) = read_shards(dirs)?;
    let write_err = |path: &Path, e: &dyn std::fmt::Display| MergeError::Write {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    match std::fs::create_dir(workspace) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            return Err(MergeError::WorkspaceExists(workspace.to_path_buf()))
        }
        Err(e) => return Err(write_err(workspace, &e)),
    }
    let run_err = |e: super::run::RunError| MergeError::Write {
        path: workspace.to_path_buf(),
        message: e.to_string(),
    };
    write_json(&workspace.join("plan.json"), &plan).map_err(run_err)?;
    let first = &shards[0].report;
    let mut report = Report::start(
        &plan,
        run_id(&plan),
        first.measure_note.clone(),
        first.repeat,
        first.thresholds,
    );
    report.merged_runs = shards.iter().map(|s| s.report.run_id.clone()).collect();
    let failed: Vec<String> = shards
        .iter()
        .filter(|s| s.report.state == State::Error)
        .map(|s| {
            format!(
                "shard {}: {}",
                s.report.shard.map_or(String::new(), |x| x.label()),
                s.report.error.as_deref().unwrap_or("failed")
            )
        })
        .collect();
    for s in &shards {
        report.samples.extend(s.report.samples.iter().cloned());
    }
    if !failed.is_empty() {
        report.state = State::Error;
        report.error = Some(failed.join("; "));
    } else if plan.files.is_empty() {
        report.state = State::NoChanges;
    } else {
        for s in &shards {
            report.files.extend(s.report.files.iter().cloned());
        }
        report.files.sort_by(|a, b| a.path.cmp(&b.path));
        report.flagged = report.files.iter().filter(|f| f.flagged).count() as u64;
        if shards.iter().any(|s| s.report.profile.is_some()) {
            copy_recordings(&shards, workspace)?;
            report.add_profile(workspace, &plan);
        }
    }
    write_json(&workspace.join("report.json"), &report).map_err(run_err)?;
    write_text(&workspace.join("report.md"), &markdown(&report)).map_err(run_err)?;
    Ok(report)
}

/// Every sample's recording, from its shard's `raw/` into the new one.
fn copy_recordings(shards: &[Shard], workspace: &Path) -> Result<(), MergeError> {
    let raw = workspace.join("raw");
    std::fs::create_dir_all(&raw).map_err(|e| MergeError::Write {
        path: raw.clone(),
        message: e.to_string(),
    })?;
    for s in shards {
        for name in s
            .report
            .samples
            .iter()
            .filter_map(|x| x.recording.as_deref())
        {
            // A name, never a path out of `raw/`.
            if name.contains('/') || name.starts_with('.') {
                return Err(MergeError::Read {
                    path: s.dir.join("report.json"),
                    message: format!("the recording name {name:?} is not a file name"),
                });
            }
            let from = s.dir.join("raw").join(name);
            std::fs::copy(&from, raw.join(name)).map_err(|e| MergeError::Read {
                path: from.clone(),
                message: format!("the shard's recording is missing or unreadable: {e}"),
            })?;
        }
    }
    Ok(())
}
