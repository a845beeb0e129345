//! `leanscope revisions run`: measure both sides of a plan, file by file.
//!
//! The workspace is new (never resumed or overwritten) and holds
//! `plan.json`, `base/` (the merge base's tree) and `head/` (the head's),
//! both written from Git blobs; `raw/` (GNU time's counters and Lean's
//! output per command); `report.json` and `report.md`. Each side is first
//! built (`lake build` of the selected modules, which builds their
//! dependency cone), then each selected file is elaborated directly
//! (`lake env lean -j1 FILE`, which elaborates the file whatever `.olean`
//! is cached), base and head alternating, and with `--repeat N` the order
//! rotates so neither side always runs first. Every Lean process runs in
//! the bubblewrap sandbox of `sandbox.rs`, under GNU time (`measure.rs`).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::materialize::materialize;
use super::measure::{measure, Job, MeasureError};
use super::plan::{plan, Plan, PlanRequest};
use super::profile;
use super::report::{check_samples, compare, markdown, Report, Sample, Side, State, Thresholds};
use super::report::{MEASURE_NOTE, PROFILE_MEASURE_NOTE};
use super::sandbox::Sandbox;
use crate::capture::RunTag;

/// Per file, per build and in all, in seconds: the editor's and the MCP tool's defaults (as
/// `revisions run`'s flags).
pub const DEFAULT_TIMEOUTS_S: (u64, u64, u64) = (300, 900, 1800);

impl<'a> RunRequest<'a> {
    /// A profiled run of `head` against `base` in `repo` (the default roots and file limit,
    /// the default flagging rule): what the editor's Compare Revisions and the MCP
    /// `revisions` tool start. `timeouts`: per file, per build, in all.
    #[allow(clippy::too_many_arguments)]
    pub fn profiled(
        repo: &'a Path,
        base: &'a str,
        head: &'a str,
        workspace: &'a Path,
        lake: PathBuf,
        repeat: u64,
        timeouts: (Duration, Duration, Duration),
        cancel: crate::capture::CancelToken,
    ) -> RunRequest<'a> {
        RunRequest {
            plan: super::plan::PlanRequest {
                repo,
                base,
                head,
                roots: None,
                max_files: super::plan::DEFAULT_MAX_FILES,
            },
            workspace,
            lake,
            repeat,
            profile: true,
            timeout_file: timeouts.0,
            timeout_build: timeouts.1,
            timeout_total: timeouts.2,
            thresholds: Thresholds::default(),
            cancel,
            shard: None,
            unsandboxed: false,
        }
    }
}

/// What to run.
pub struct RunRequest<'a> {
    pub plan: PlanRequest<'a>,
    pub workspace: &'a Path,
    pub lake: PathBuf,
    pub repeat: u64,
    /// Each sample is a leanscope capture; the report adds the
    /// per-declaration diff (`profile.rs`).
    pub profile: bool,
    pub timeout_file: Duration,
    pub timeout_build: Duration,
    pub timeout_total: Duration,
    pub thresholds: Thresholds,
    /// Set to stop the run: the running sample is stopped and the report
    /// says `error` (cancelled).
    pub cancel: crate::capture::CancelToken,
    /// Measure only this shard of the plan's files (`--shard K/N`).
    pub shard: Option<recording::session::shard::ShardSpec>,
    /// Run Lean without the sandbox, with the counters from leanscope's own accounting
    /// (`--unsandboxed`): the way to run where bubblewrap and GNU time are missing (macOS,
    /// Windows).
    pub unsandboxed: bool,
}

/// Why a run could not start (nothing measured; the workspace may hold
/// `plan.json` only).
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("the revision run's sandbox is Linux only: each sample runs in a bubblewrap sandbox under GNU time, which {0} does not have. Pass --unsandboxed to run Lean without it (with your environment, files and network; counters from leanscope's own accounting), or run on Linux (on Windows, in WSL)")]
    Unsupported(&'static str),
    #[error(transparent)]
    Plan(#[from] super::plan::PlanError),
    #[error("the workspace {} already exists; a revision run never resumes or overwrites one, name a new folder", .0.display())]
    WorkspaceExists(PathBuf),
    #[error("cannot create the workspace {}: {source}", path.display())]
    Workspace {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("writing {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// What the report's note adds for an unsandboxed run (`--unsandboxed`).
pub const UNSANDBOXED_NOTE: &str = " Unsandboxed (--unsandboxed): Lean ran with the user's environment, files and network, not in bubblewrap; CPU time, wall time and peak memory are leanscope's own accounting of each command's process group (wait4 on Unix, the Job Object on Windows; peak committed memory there), not GNU time's.";

/// Runs the measurement; the report says `complete`, `no_changes` or
/// `error` (a failed step is an `error` report, not an `Err`).
pub fn run(req: &RunRequest, progress: &mut dyn FnMut(&str)) -> Result<Report, RunError> {
    if !cfg!(target_os = "linux") && !req.unsandboxed {
        return Err(RunError::Unsupported(std::env::consts::OS));
    }
    let plan = plan(&req.plan)?;
    match std::fs::create_dir(req.workspace) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            return Err(RunError::WorkspaceExists(req.workspace.to_path_buf()))
        }
        Err(source) => {
            return Err(RunError::Workspace {
                path: req.workspace.to_path_buf(),
                source,
            })
        }
    }
    let ws = req
        .workspace
        .canonicalize()
        .map_err(|source| RunError::Workspace {
            path: req.workspace.to_path_buf(),
            source,
        })?;
    write_json(&ws.join("plan.json"), &plan)?;
    let mut note = format!(
        "{} {}.",
        if req.profile {
            PROFILE_MEASURE_NOTE
        } else {
            MEASURE_NOTE
        },
        super::measure::instructions_note()
    );
    if req.unsandboxed {
        note.push_str(UNSANDBOXED_NOTE);
    }
    let mut report = Report::start(&plan, run_id(&plan), note, req.repeat, req.thresholds);
    report.shard = req.shard;
    // A shard measures its files of the plan; plan.json is the whole plan.
    let plan = match req.shard {
        Some(spec) => super::shard::files_of(&plan, spec),
        None => plan,
    };
    if plan.files.is_empty() {
        report.state = State::NoChanges;
    } else if let Err(e) = measure_all(req, &plan, &ws, &mut report, progress)
        .and_then(|()| check_samples(&report.run_id, &plan, report.repeat, &report.samples))
    {
        report.state = State::Error;
        report.error = Some(e);
    } else {
        report.files = compare(&plan, &report.samples, &req.thresholds);
        report.flagged = report.files.iter().filter(|f| f.flagged).count() as u64;
        if req.profile {
            progress("writing the two sides' sessions and their diff");
            report.add_profile(&ws, &plan);
        }
    }
    write_json(&ws.join("report.json"), &report)?;
    write_text(&ws.join("report.md"), &markdown(&report))?;
    Ok(report)
}

fn measure_all(
    req: &RunRequest,
    plan: &Plan,
    ws: &Path,
    report: &mut Report,
    progress: &mut dyn FnMut(&str),
) -> Result<(), String> {
    let raw = ws.join("raw");
    std::fs::create_dir(&raw).map_err(|e| format!("creating {}: {e}", raw.display()))?;
    // The user's prepared dependencies, at the repository's top folder
    // (where the trees' paths, and the lakefile, start).
    let top = super::git::Repo::open(req.plan.repo)
        .and_then(|r| r.toplevel())
        .map_err(|e| e.to_string())?;
    let packages = Some(top.join(".lake/packages")).filter(|p| p.is_dir());
    let lake = absolute(&req.lake)?;
    let sandbox = |side: Side, lake: &Path, packages: &Option<PathBuf>, tag: &RunTag| Sandbox {
        tree: ws.join(side.as_str()),
        lake: lake.to_path_buf(),
        packages: packages.clone(),
        tag: tag.clone(),
        confined: !req.unsandboxed,
    };
    for (side, commit) in [
        (Side::Base, &plan.merge_base),
        (Side::Head, &plan.head.commit),
    ] {
        let dir = ws.join(side.as_str());
        std::fs::create_dir(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
        progress(&format!(
            "writing {} ({}) from Git objects",
            side.as_str(),
            &commit[..7]
        ));
        materialize(req.plan.repo, commit, &dir).map_err(|e| e.to_string())?;
        let modules: Vec<String> = plan
            .files
            .iter()
            .filter(|f| match side {
                Side::Base => f.base_blob.is_some(),
                Side::Head => f.head_blob.is_some(),
            })
            .map(|f| f.module.clone())
            .collect();
        if modules.is_empty() {
            continue;
        }
        progress(&format!(
            "building {} ({} modules)",
            side.as_str(),
            modules.len()
        ));
        let mut args = vec!["build".to_owned()];
        args.extend(modules);
        let tag = RunTag::new();
        let (program, args) = sandbox(side, &lake, &packages, &tag)
            .wrap(&args)
            .map_err(|e| e.to_string())?;
        measure(&Job {
            what: format!("prebuild of {} (lake build)", side.as_str()),
            dir: &dir,
            program: &program,
            args,
            raw: raw.join(format!("build-{}", side.as_str())),
            timeout: req.timeout_build,
            cancel: req.cancel.clone(),
            tag,
            own_counters: req.unsandboxed,
        })
        .map_err(|e| e.to_string())?;
    }
    let leanscope = match req.profile {
        true => Some(profile::leanscope_exe()?),
        false => None,
    };
    let started = Instant::now();
    let mut index = 0u64;
    for r in 0..req.repeat {
        for (i, f) in plan.files.iter().enumerate() {
            let order = if (r as usize + i).is_multiple_of(2) {
                [Side::Base, Side::Head]
            } else {
                [Side::Head, Side::Base]
            };
            for side in order {
                let (present, commit) = match side {
                    Side::Base => (f.base_blob.is_some(), &plan.merge_base),
                    Side::Head => (f.head_blob.is_some(), &plan.head.commit),
                };
                if !present {
                    continue;
                }
                let left = req.timeout_total.saturating_sub(started.elapsed());
                if left.is_zero() {
                    return Err(format!(
                        "the elaboration phase ran out of its {} s (--timeout-total) before {} {}",
                        req.timeout_total.as_secs(),
                        side.as_str(),
                        f.path
                    ));
                }
                let what = format!("{} {}", side.as_str(), f.path);
                progress(&format!("[{}/{}] {what}", r + 1, req.repeat));
                let timeout = req.timeout_file.min(left);
                let tree = ws.join(side.as_str());
                let name = format!(
                    "{index:04}-{}-{}",
                    side.as_str(),
                    f.module.replace(['«', '»'], "_")
                );
                let tree_out = format!("{}/{index:04}.lsrec", profile::TREE_OUT_DIR);
                let tag = RunTag::new();
                let wrapped = if let Some(exe) = &leanscope {
                    std::fs::create_dir_all(tree.join(profile::TREE_OUT_DIR))
                        .map_err(|e| format!("creating {}: {e}", profile::TREE_OUT_DIR))?;
                    sandbox(side, &lake, &packages, &tag)
                        .wrap_program(exe, &profile::sample_args(&lake, &f.path, &tree_out))
                } else {
                    let lean = ["env", "lean", "-j1", &f.path].map(str::to_owned);
                    sandbox(side, &lake, &packages, &tag).wrap(&lean)
                };
                let (program, args) = wrapped.map_err(|e| e.to_string())?;
                let counters = measure(&Job {
                    what: what.clone(),
                    dir: &tree,
                    program: &program,
                    args,
                    raw: raw.join(&name),
                    timeout,
                    cancel: req.cancel.clone(),
                    tag,
                    own_counters: req.unsandboxed,
                })
                .map_err(|e| match e {
                    MeasureError::TimedOut { .. } if timeout < req.timeout_file => format!(
                        "{what} was stopped when the elaboration phase reached its {} s (--timeout-total)",
                        req.timeout_total.as_secs()
                    ),
                    e => e.to_string(),
                })?;
                let recording = match leanscope {
                    Some(_) => Some(profile::collect(
                        &tree.join(&tree_out),
                        &raw.join(format!("{name}.lsrec")),
                        &f.path,
                    )?),
                    None => None,
                };
                report.samples.push(Sample {
                    run_id: report.run_id.clone(),
                    index,
                    repeat: r,
                    side,
                    commit: commit.clone(),
                    path: f.path.clone(),
                    counters,
                    recording,
                });
                index += 1;
            }
        }
    }
    Ok(())
}

/// `lake` as an absolute path (the sandbox runs it from another folder).
fn absolute(lake: &Path) -> Result<PathBuf, String> {
    let name = lake
        .file_name()
        .ok_or_else(|| format!("{} names no program", lake.display()))?;
    let dir = lake
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let dir = dir
        .canonicalize()
        .map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(dir.join(name))
}

/// A fresh id: SHA-256 of the plan digest, the time and the process id,
/// 16 hex digits.
pub(super) fn run_id(plan: &Plan) -> String {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let seed = format!("{} {now} {}", plan.plan_digest, std::process::id());
    recording::sha256_hex(seed.as_bytes())[..16].to_owned()
}

pub(super) fn write_json(path: &Path, v: &impl serde::Serialize) -> Result<(), RunError> {
    let text = serde_json::to_string_pretty(v).map_err(|e| RunError::Write {
        path: path.to_path_buf(),
        source: std::io::Error::other(e),
    })?;
    write_text(path, &(text + "\n"))
}

pub(super) fn write_text(path: &Path, text: &str) -> Result<(), RunError> {
    use std::io::Write;
    let err = |source| RunError::Write {
        path: path.to_path_buf(),
        source,
    };
    let (file, mut out) = recording::AtomicFile::create(path)
        .map_err(|e| err(std::io::Error::other(e.to_string())))?;
    out.write_all(text.as_bytes()).map_err(err)?;
    file.publish(out)
        .map_err(|e| err(std::io::Error::other(e.to_string())))?;
    Ok(())
}
