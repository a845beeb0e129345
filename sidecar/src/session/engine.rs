//! Running a session: capture each planned file, publish its recording,
//! append its index rows, commit it with a journal line (checkpointing the
//! manifest now and then, and at the end); survive failures,
//! cancellation and crashes; resume.
//!
//! The API is blocking, reports through a callback and stops through a
//! [`CancelToken`], so the CLI and `leanscope serve` drive it alike.

use std::collections::{BTreeSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use recording::limits::MAX_ERROR_CHARS;
use recording::session::{
    Counts, FileEntry, FileStatus, Manifest, NewSession, Repeats, RunEntry, SessionStatus, Target,
    TargetKind, FILES_DIR,
};
use recording::text::cap_chars;
use recording::{CaptureStatus, Recording};

use super::discover::{discover, PlannedFile};
use super::group_commit::{GroupCommit, SYNC_INTERVAL};
use super::store::{SessionStore, StoreError};
use crate::capture::lake_env::SharedLakeEnv;
use crate::capture::process::RunError;
use crate::capture::project::{find_lake, Project, ProjectError};
use crate::capture::{
    capture_file_in, CancelToken, CaptureError, CaptureRequest, ProfileScratch, RunOptions,
};
use leanscope::limits::MAX_JOBS;
use recording::session::shard::{ShardInfo, ShardPlan};

/// What a new session captures.
#[derive(Debug, Clone)]
pub struct Plan {
    pub project: Project,
    pub target: Target,
    pub files: Vec<PlannedFile>,
    pub notes: Vec<String>,
    /// When the plan is one shard of a larger plan: which, and the whole
    /// plan (written to `plan.json`); `files` are then the shard's.
    pub shard: Option<ShardCut>,
}

/// One shard of a plan (see [`super::shard`]).
#[derive(Debug, Clone)]
pub struct ShardCut {
    pub info: ShardInfo,
    pub plan: ShardPlan,
}

#[derive(Debug, thiserror::Error)]
pub enum SessionFailure {
    #[error(transparent)]
    Project(#[from] ProjectError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{0}")]
    Usage(String),
    #[error("{0}")]
    Io(String),
    #[error("cannot take the Lake environment: {0}")]
    LakeEnv(CaptureError),
}

/// Plans a capture of `dir` (a folder) or, with `whole_project`, of the
/// project containing `dir`.
pub fn plan(dir: &Path, whole_project: bool) -> Result<Plan, SessionFailure> {
    if !dir.is_dir() {
        return Err(SessionFailure::Usage(format!(
            "{} is not a directory",
            dir.display()
        )));
    }
    let project = Project::containing(dir)?;
    let dir = dir
        .canonicalize()
        .map_err(|e| SessionFailure::Io(format!("cannot resolve {}: {e}", dir.display())))?;
    let (kind, scan) = if whole_project {
        (TargetKind::Project, project.root.clone())
    } else {
        (TargetKind::Folder, dir)
    };
    let rel = scan
        .strip_prefix(&project.root)
        .map(|r| {
            r.components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/")
        })
        .unwrap_or_default();
    let (files, notes) =
        discover(&project, &scan).map_err(|e| SessionFailure::Io(e.to_string()))?;
    Ok(Plan {
        project,
        target: Target { kind, path: rel },
        files,
        notes,
        shard: None,
    })
}

/// Plans a session of the one Lean file `file` (`profile FILE --repeat N`).
pub fn plan_file(file: &Path) -> Result<Plan, SessionFailure> {
    if !file.is_file() {
        return Err(SessionFailure::Usage(format!(
            "{} is not a file",
            file.display()
        )));
    }
    let file = file
        .canonicalize()
        .map_err(|e| SessionFailure::Io(format!("cannot resolve {}: {e}", file.display())))?;
    let project = Project::containing(file.parent().unwrap_or(Path::new("/")))?;
    let Some(rel) = project.relative(&file) else {
        return Err(SessionFailure::Usage(format!(
            "{} is not inside the project root {}",
            file.display(),
            project.root.display()
        )));
    };
    Ok(Plan {
        target: Target {
            kind: TargetKind::File,
            path: rel.clone(),
        },
        files: vec![PlannedFile {
            module: crate::capture::project::module_name(&rel),
            path: rel,
        }],
        project,
        notes: Vec::new(),
        shard: None,
    })
}

/// How files are captured.
#[derive(Debug, Clone)]
pub struct SessionOptions {
    /// Milliseconds, or heartbeats when `measure` is heartbeats.
    pub threshold: u64,
    pub measure: recording::Measure,
    pub lake: Option<PathBuf>,
    /// Per-file limit.
    pub timeout: Option<Duration>,
    pub jobs: usize,
    /// Capture each file this many times (`--repeat`, `--warmup`); `None`: once.
    pub repeats: Option<Repeats>,
    /// Memory sampling and limit (`--memory-interval`, `--max-memory`).
    pub memory: crate::capture::MemoryOptions,
    /// Extra arguments to `lean` for every file (`--lean-arg`).
    pub lean_args: Vec<String>,
}

/// Which run of a file a capture is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunKind {
    /// The one capture of a session without repeats.
    Single,
    /// A discarded warm-up run of a repeated capture (never stored).
    WarmUp,
    /// Run `r` (0-based) of a repeated capture.
    Repeat(u32),
}

impl RunKind {
    /// How progress names the run: `None` for a single capture.
    fn label(self, repeats: Option<Repeats>) -> Option<String> {
        match self {
            RunKind::Single => None,
            RunKind::WarmUp => Some("warm-up".to_string()),
            RunKind::Repeat(r) => Some(format!(
                "run {}/{}",
                r + 1,
                repeats.map_or(r + 1, |x| x.runs)
            )),
        }
    }
}

/// What happens, as the session goes (serializable for progress
/// notifications).
#[derive(Debug, Clone, serde::Serialize)]
#[serde(tag = "event", rename_all = "camelCase")]
pub enum SessionEvent {
    /// The session directory is ready; `to_capture` files will be captured.
    Started {
        dir: PathBuf,
        planned: usize,
        to_capture: usize,
    },
    FileStarted {
        id: u32,
        path: String,
        /// In a repeated capture: `warm-up` or `run K/N`.
        #[serde(skip_serializing_if = "Option::is_none")]
        run: Option<String>,
    },
    FileDone {
        id: u32,
        path: String,
        /// In a repeated capture: `warm-up` or `run K/N`.
        #[serde(skip_serializing_if = "Option::is_none")]
        run: Option<String>,
        status: FileStatus,
        /// Files finished so far in this run, and how many this run captures.
        done: usize,
        total: usize,
        error: Option<String>,
    },
}

/// How a run ended.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionSummary {
    pub session: PathBuf,
    pub status: SessionStatus,
    pub counts: Counts,
    /// Files captured by this run.
    pub captured: u64,
    /// Committed files with Lean errors.
    pub with_errors: u64,
    pub notes: Vec<String>,
    /// A repeated capture's runs per file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repeats: Option<Repeats>,
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Creates a new session for `plan` in `dir` and runs it.
pub fn run_new(
    plan: Plan,
    dir: &Path,
    opts: &SessionOptions,
    cancel: &CancelToken,
    progress: &mut dyn FnMut(SessionEvent),
) -> Result<SessionSummary, SessionFailure> {
    let lake = check_lake(opts)?;
    let lake_env = SharedLakeEnv::new(lake, plan.project.root.clone());
    take_first(&lake_env, cancel)?;
    let manifest = Manifest {
        toolchains: plan.project.toolchain.iter().cloned().collect(),
        notes: plan.notes,
        shard: plan.shard.as_ref().map(|c| c.info.clone()),
        repeats: opts.repeats,
        lake_env: lake_env.record(0),
        ..Manifest::new(NewSession {
            producer: super::PRODUCER.into(),
            project_root: plan.project.root.display().to_string(),
            target: plan.target,
            threshold_ms: opts.threshold,
            measure: opts.measure,
            started_unix_ms: now_ms(),
            files: plan
                .files
                .into_iter()
                .enumerate()
                .map(|(i, f)| FileEntry::planned(i as u32, f.path, f.module))
                .collect(),
        })
    };
    let mut store = SessionStore::create(dir, manifest)?;
    if let Some(cut) = &plan.shard {
        super::shard::write_plan(&store.dir, &cut.plan)?;
    }
    store.manifest.recount();
    store.checkpoint()?;
    let files = store.manifest.files.len();
    let todo = match opts.repeats {
        None => (0..files as u32).map(|id| (id, RunKind::Single)).collect(),
        Some(rep) => repeated_order(files, rep, &|_, _| true),
    };
    run(store, todo, opts, &lake_env, 0, cancel, progress)
}

/// Takes the session's Lake environment before any file is captured, so
/// that a `lake` that cannot give one stops the session at once.
fn take_first(lake_env: &SharedLakeEnv, cancel: &CancelToken) -> Result<(), SessionFailure> {
    let opts = RunOptions {
        cancel: cancel.clone(),
        ..RunOptions::default()
    };
    lake_env
        .current(&opts)
        .map(drop)
        .map_err(SessionFailure::LakeEnv)
}

/// The runs of a repeated capture in order ([`recording::repeats::run_order`]:
/// warm-ups, then rounds of rotated files), keeping the repeats `wanted`
/// names (file id, `None` for a file's warm-ups) — a file's warm-ups are
/// kept when any of its repeats is.
fn repeated_order(
    files: usize,
    rep: Repeats,
    wanted: &dyn Fn(u32, u32) -> bool,
) -> Vec<(u32, RunKind)> {
    recording::repeats::run_order(files, rep.runs, rep.warmup)
        .into_iter()
        .filter_map(|(f, r)| {
            let id = f as u32;
            match r {
                Some(r) => wanted(id, r).then_some((id, RunKind::Repeat(r))),
                None => (0..rep.runs)
                    .any(|r| wanted(id, r))
                    .then_some((id, RunKind::WarmUp)),
            }
        })
        .collect()
}

/// True when a committed file of a repeated capture lacks some of its runs.
fn missing_runs(m: &Manifest) -> bool {
    m.repeats.is_some_and(|rep| {
        m.files
            .iter()
            .any(|f| f.status.is_committed() && (f.runs.len() as u32) < rep.runs)
    })
}

/// What a resume would capture: files missing, failed, skipped, whose
/// source changed or whose recording is gone, and files of the target
/// that are new since; in a repeated capture, each file's missing runs
/// (all of them when its source changed). Adds the new files to the
/// manifest.
fn resume_plan(store: &mut SessionStore) -> Result<Vec<(u32, RunKind)>, SessionFailure> {
    let root = PathBuf::from(&store.manifest.project_root);
    let project = Project::containing(&root)?;
    let scan = if store.manifest.target.path.is_empty() {
        project.root.clone()
    } else {
        project.root.join(&store.manifest.target.path)
    };
    // A shard's files are fixed by its plan: new files belong to no shard;
    // a file's session holds that file alone.
    if scan.is_dir()
        && store.manifest.shard.is_none()
        && store.manifest.target.kind != TargetKind::File
    {
        let (files, _) =
            discover(&project, &scan).map_err(|e| SessionFailure::Io(e.to_string()))?;
        let known: BTreeSet<String> = store
            .manifest
            .files
            .iter()
            .map(|f| f.path.clone())
            .collect();
        for f in files {
            if !known.contains(&f.path) {
                let id = store.manifest.files.len() as u32;
                store
                    .manifest
                    .files
                    .push(FileEntry::planned(id, f.path, f.module));
            }
        }
    }
    let mut todo = Vec::new();
    let mut missing: Vec<Vec<u32>> = Vec::new();
    for f in &store.manifest.files {
        let source = project.root.join(&f.path);
        // Not committed, or its source changed: every run of it again.
        let (again, gone) = match f.status {
            FileStatus::Pending | FileStatus::Failed | FileStatus::Skipped => (true, true),
            // A partial recording is kept until a complete one replaces it.
            FileStatus::Stopped => (true, false),
            FileStatus::Ok | FileStatus::Error => {
                let changed = std::fs::read(&source)
                    .map(|b| Some(recording::sha256_hex(&b)) != f.source_sha256)
                    .unwrap_or(false);
                let gone = f
                    .recording
                    .as_ref()
                    .is_none_or(|r| !store.dir.join(r).is_file());
                (changed, gone)
            }
        };
        if let Some(rep) = store.manifest.repeats {
            // A repeated capture's runs are checked one by one.
            missing.push(
                (0..rep.runs)
                    .filter(|&r| {
                        again
                            || !f
                                .runs
                                .iter()
                                .any(|x| x.repeat == r && store.dir.join(&x.recording).is_file())
                    })
                    .collect(),
            );
        } else if again || gone {
            todo.push((f.id, RunKind::Single));
        }
    }
    if let Some(rep) = store.manifest.repeats {
        todo = repeated_order(store.manifest.files.len(), rep, &|id, r| {
            missing[id as usize].contains(&r)
        });
    }
    Ok(todo)
}

/// Reopens the session in `dir` and captures what [`resume_plan`] finds.
pub fn resume(
    dir: &Path,
    opts: &SessionOptions,
    cancel: &CancelToken,
    progress: &mut dyn FnMut(SessionEvent),
) -> Result<SessionSummary, SessionFailure> {
    let mut store = SessionStore::reopen(dir)?;
    let opts = SessionOptions {
        threshold: store.manifest.threshold_ms,
        measure: store.manifest.measure,
        repeats: store.manifest.repeats,
        ..opts.clone()
    };
    let todo = resume_plan(&mut store)?;
    let root = PathBuf::from(&store.manifest.project_root);
    let earlier = store.manifest.lake_env.as_ref().map_or(0, |e| e.taken);
    let lake_env = if todo.is_empty() {
        SharedLakeEnv::new(PathBuf::new(), root)
    } else {
        let lake_env = SharedLakeEnv::new(check_lake(&opts)?, root);
        take_first(&lake_env, cancel)?;
        store.manifest.lake_env = lake_env.record(earlier);
        lake_env
    };
    store.manifest.status = SessionStatus::Running;
    store.manifest.completed_unix_ms = None;
    store.manifest.recount();
    store.checkpoint()?;
    run(store, todo, &opts, &lake_env, earlier, cancel, progress)
}

/// The files `--resume --list` would capture.
pub fn resume_preview(dir: &Path) -> Result<Vec<PlannedFile>, SessionFailure> {
    let mut store = SessionStore::reopen(dir)?;
    let todo = resume_plan(&mut store)?;
    let mut ids: Vec<u32> = todo.into_iter().map(|(id, _)| id).collect();
    let mut seen = BTreeSet::new();
    ids.retain(|id| seen.insert(*id));
    Ok(ids
        .into_iter()
        .map(|id| {
            let f = &store.manifest.files[id as usize];
            PlannedFile {
                path: f.path.clone(),
                module: f.module.clone(),
            }
        })
        .collect())
}

fn check_lake(opts: &SessionOptions) -> Result<PathBuf, SessionFailure> {
    Ok(find_lake(opts.lake.as_deref(), None)?)
}

/// One capture's outcome, computed on a worker.
enum Outcome {
    Committed {
        entry: Box<FileEntry>,
        rows: Vec<u8>,
        lean_version: String,
    },
    Failed(String),
    Vanished,
    Cancelled,
    /// A warm-up run finished (its recording is removed, never counted).
    WarmedUp(FileStatus),
}

struct Job {
    id: u32,
    path: String,
    module: String,
    capture: u64,
    run: RunKind,
}

/// A recording's path in a session: file id, module and capture number.
pub fn recording_name(id: u32, module: &str, capture: u64) -> String {
    let safe: String = module
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '.' || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(100)
        .collect();
    format!("{FILES_DIR}/{id:05}-{safe}-{capture}.lsrec")
}

fn capture_one(
    job: &Job,
    root: &Path,
    dir: &Path,
    opts: &SessionOptions,
    lake_env: &SharedLakeEnv,
    scratch: &mut ProfileScratch,
    cancel: &CancelToken,
) -> Outcome {
    let source = root.join(&job.path);
    if !source.is_file() {
        return Outcome::Vanished;
    }
    let rel = recording_name(job.id, &job.module, job.capture);
    let out = dir.join(&rel);
    let req = CaptureRequest {
        file: source,
        output: Some(out.clone()),
        threshold: opts.threshold,
        measure: opts.measure,
        lake: opts.lake.clone(),
        // Readers ignore it until its file is committed, and the group
        // commit fsyncs `files/` before that.
        publish: recording::Publish::InPlace,
        memory: opts.memory,
        lean_args: opts.lean_args.clone(),
    };
    let run_opts = RunOptions {
        timeout: opts.timeout,
        cancel: cancel.clone(),
        ..RunOptions::default()
    };
    let started = Instant::now();
    let env = match lake_env.current(&run_opts) {
        Ok(env) => env,
        Err(CaptureError::Run(RunError::Cancelled)) => return Outcome::Cancelled,
        Err(e) => {
            let e = SessionFailure::LakeEnv(e).to_string();
            return Outcome::Failed(cap_chars(&e, MAX_ERROR_CHARS));
        }
    };
    let result = match capture_file_in(&req, &env, scratch, &run_opts, &mut |_| {}) {
        Ok(r) => r,
        Err(CaptureError::Run(RunError::Cancelled)) => return Outcome::Cancelled,
        Err(e) => return Outcome::Failed(cap_chars(&e.to_string(), MAX_ERROR_CHARS)),
    };
    // The session's own cancel keeps nothing of the file; a timeout or the memory limit keeps
    // the partial recording.
    if result
        .stop
        .as_ref()
        .is_some_and(|s| s.reason == recording::StopReason::Cancelled)
    {
        let _ = std::fs::remove_file(&out);
        return Outcome::Cancelled;
    }
    if job.run == RunKind::WarmUp {
        let _ = std::fs::remove_file(&out);
        return Outcome::WarmedUp(match result.status {
            CaptureStatus::Ok => FileStatus::Ok,
            CaptureStatus::Error => FileStatus::Error,
            CaptureStatus::Stopped => FileStatus::Stopped,
        });
    }
    let rec = match Recording::open(&out) {
        Ok(r) => r,
        Err(e) => {
            let _ = std::fs::remove_file(&out);
            return Outcome::Failed(format!("cannot read back the recording: {e}"));
        }
    };
    let wall = started.elapsed().as_millis() as u64;
    let planned = FileEntry::planned(job.id, job.path.clone(), job.module.clone());
    let super::entry::Committed { entry, rows } =
        super::entry::committed(&rec, planned, job.capture, rel, Some(wall));
    Outcome::Committed {
        entry: Box::new(entry),
        rows,
        lean_version: result.lean_version,
    }
}

/// Captures the files `todo` names. `lake_env` is the run's Lake
/// environment; the session's earlier runs took theirs `earlier` times.
#[allow(clippy::too_many_arguments)]
fn run(
    mut store: SessionStore,
    todo: Vec<(u32, RunKind)>,
    opts: &SessionOptions,
    lake_env: &SharedLakeEnv,
    earlier: u64,
    cancel: &CancelToken,
    progress: &mut dyn FnMut(SessionEvent),
) -> Result<SessionSummary, SessionFailure> {
    let jobs = opts.jobs.clamp(1, MAX_JOBS).min(todo.len().max(1));
    let total = todo.len();
    progress(SessionEvent::Started {
        dir: store.dir.clone(),
        planned: store.manifest.files.len(),
        to_capture: total,
    });
    let root = PathBuf::from(&store.manifest.project_root);
    let dir = store.dir.clone();
    let mut next_capture = store.manifest.next_capture;
    let queue: VecDeque<Job> = todo
        .iter()
        .map(|&(id, run)| {
            let f = &store.manifest.files[id as usize];
            let job = Job {
                id,
                path: f.path.clone(),
                module: f.module.clone(),
                capture: next_capture,
                run,
            };
            next_capture += 1;
            job
        })
        .collect();
    let queue = Mutex::new(queue);
    let (tx, rx) = mpsc::channel::<(Job, Option<Outcome>)>();
    let mut captured = 0u64;
    let mut done = 0usize;
    let mut cancelled = false;
    let mut first_error: Option<SessionFailure> = None;
    std::thread::scope(|s| {
        for _ in 0..jobs {
            let tx = tx.clone();
            let queue = &queue;
            let (root, dir) = (&root, &dir);
            s.spawn(move || {
                // Lean's profile file, reused by this worker's captures.
                let mut scratch = ProfileScratch::default();
                loop {
                    let job = match queue.lock() {
                        Ok(mut q) => q.pop_front(),
                        Err(_) => None,
                    };
                    let Some(job) = job else { break };
                    if cancel.is_cancelled() {
                        let _ = tx.send((job, Some(Outcome::Cancelled)));
                        continue;
                    }
                    // Tell the main thread the file started.
                    let start = Job {
                        id: job.id,
                        path: job.path.clone(),
                        module: String::new(),
                        capture: job.capture,
                        run: job.run,
                    };
                    let _ = tx.send((start, None));
                    let outcome =
                        capture_one(&job, root, dir, opts, lake_env, &mut scratch, cancel);
                    let _ = tx.send((job, Some(outcome)));
                }
            });
        }
        drop(tx);
        let mut group = GroupCommit::new(SYNC_INTERVAL);
        loop {
            let received = match group.wait(&store) {
                None => rx.recv().ok(),
                Some(wait) => match rx.recv_timeout(wait) {
                    Ok(message) => Some(message),
                    Err(mpsc::RecvTimeoutError::Timeout) => {
                        if first_error.is_none() {
                            if let Err(e) = group.sync(&mut store, progress) {
                                first_error = Some(e.into());
                                cancel.cancel();
                            }
                        }
                        continue;
                    }
                    Err(mpsc::RecvTimeoutError::Disconnected) => None,
                },
            };
            let Some((job, outcome)) = received else {
                break;
            };
            let Some(outcome) = outcome else {
                let started = SessionEvent::FileStarted {
                    id: job.id,
                    path: job.path,
                    run: job.run.label(opts.repeats),
                };
                group.report(started, progress);
                continue;
            };
            if first_error.is_some() {
                // The session can no longer be written; let the workers drain.
                cancel.cancel();
                continue;
            }
            // A new environment (the lakefile changed) goes with the next file's journal line.
            if lake_env.taken() + earlier != store.manifest.lake_env.as_ref().map_or(0, |e| e.taken)
            {
                store.manifest.lake_env =
                    lake_env.record(earlier).or(store.manifest.lake_env.take());
            }
            let (status, error) = match commit(&mut store, &job, outcome, &mut captured) {
                Ok(x) => x,
                Err(e) => {
                    first_error = Some(e.into());
                    cancel.cancel();
                    continue;
                }
            };
            if status == FileStatus::Skipped && cancel.is_cancelled() {
                cancelled = true;
                continue;
            }
            done += 1;
            group.hold(SessionEvent::FileDone {
                id: job.id,
                path: job.path,
                run: job.run.label(opts.repeats),
                status,
                done,
                total,
                error,
            });
            if let Err(e) = group.sync_if_due(&mut store, progress) {
                first_error = Some(e.into());
                cancel.cancel();
            }
        }
        if first_error.is_none() {
            if let Err(e) = group.sync(&mut store, progress) {
                first_error = Some(e.into());
            }
        }
    });
    if let Some(e) = first_error {
        return Err(e);
    }
    cancelled |= cancel.is_cancelled()
        && store
            .manifest
            .files
            .iter()
            .any(|f| !f.status.is_committed() && f.status != FileStatus::Failed)
        || cancel.is_cancelled() && missing_runs(&store.manifest);
    let m = &mut store.manifest;
    m.next_capture = m.next_capture.max(next_capture);
    if cancelled {
        for f in m.files.iter_mut() {
            if f.status == FileStatus::Pending {
                f.status = FileStatus::Skipped;
            }
        }
    }
    m.recount();
    // A merged session's list of missing files shrinks as --resume captures them.
    if let Some(merge) = &mut m.merge {
        let committed: BTreeSet<&str> = m
            .files
            .iter()
            .filter(|f| f.status.is_committed())
            .map(|f| f.path.as_str())
            .collect();
        merge.missing.retain(|p| !committed.contains(p.as_str()));
    }
    m.status = if cancelled {
        SessionStatus::Cancelled
    } else if m.counts.failed > 0
        || m.files
            .iter()
            .any(|f| !f.status.is_committed() || f.status == FileStatus::Stopped)
        || missing_runs(m)
    {
        SessionStatus::Partial
    } else {
        SessionStatus::Complete
    };
    m.completed_unix_ms = Some(now_ms());
    store.finish()?;
    let m = &store.manifest;
    Ok(SessionSummary {
        session: store.dir.clone(),
        status: m.status,
        counts: m.counts,
        captured,
        with_errors: m
            .files
            .iter()
            .filter(|f| f.status == FileStatus::Error)
            .count() as u64,
        notes: m.notes.clone(),
        repeats: m.repeats,
    })
}

/// Records one outcome: rows appended after the recording was published
/// (by the capture), then the file staged for the next group commit.
fn commit(
    store: &mut SessionStore,
    job: &Job,
    outcome: Outcome,
    captured: &mut u64,
) -> Result<(FileStatus, Option<String>), StoreError> {
    let id = job.id as usize;
    let (status, error) = match outcome {
        Outcome::Committed {
            entry,
            rows,
            lean_version,
        } => {
            let len = store.append_rows(&rows)?;
            let m = &mut store.manifest;
            m.index_bytes = len;
            if !m.lean_versions.contains(&lean_version) {
                m.lean_versions.push(lean_version.clone());
            }
            let status = entry.status;
            let old = std::mem::replace(&mut m.files[id], *entry);
            if let RunKind::Repeat(r) = job.run {
                add_run(&old, &mut m.files[id], r);
            }
            m.next_capture = m.next_capture.max(job.capture + 1);
            m.counts.moved(old.status, status);
            store.commit_file(job.id, Some(lean_version));
            *captured += 1;
            let now = &store.manifest.files[id];
            let named: BTreeSet<&String> = now
                .recording
                .iter()
                .chain(now.runs.iter().map(|x| &x.recording))
                .collect();
            let gone: Vec<String> = old
                .recording
                .iter()
                .chain(old.runs.iter().map(|x| &x.recording))
                .filter(|o| !named.contains(o))
                .cloned()
                .collect();
            // Removed once the new entry is committed: until then the
            // committed one still names them.
            store.retire(gone);
            return Ok((status, None));
        }
        Outcome::WarmedUp(status) => return Ok((status, None)),
        Outcome::Failed(e) => (FileStatus::Failed, Some(e)),
        Outcome::Vanished => (
            FileStatus::Skipped,
            Some("the source file no longer exists".to_string()),
        ),
        Outcome::Cancelled => {
            // A committed file keeps its earlier capture.
            let m = &mut store.manifest;
            let was = m.files[id].status;
            if !was.is_committed() {
                m.files[id].reset(FileStatus::Skipped);
                m.counts.moved(was, FileStatus::Skipped);
                store.commit_file(job.id, None);
            }
            return Ok((FileStatus::Skipped, None));
        }
    };
    let m = &mut store.manifest;
    let f = &mut m.files[id];
    // A failed re-capture of a committed file keeps the earlier capture.
    if !f.status.is_committed() {
        let was = f.status;
        f.reset(status);
        f.error = error.clone();
        m.counts.moved(was, status);
        store.commit_file(job.id, None);
    }
    Ok((status, error))
}

/// Puts run `r`, just captured into `now`, beside the earlier runs of
/// `old` (the same source's: a changed source starts the runs again),
/// replacing an earlier run `r`.
fn add_run(old: &FileEntry, now: &mut FileEntry, r: u32) {
    let same_source = old.status.is_committed() && old.source_sha256 == now.source_sha256;
    let mut runs: Vec<RunEntry> = if same_source {
        old.runs.iter().filter(|x| x.repeat != r).cloned().collect()
    } else {
        Vec::new()
    };
    if let (Some(capture), Some(recording)) = (now.capture, now.recording.clone()) {
        runs.push(RunEntry {
            repeat: r,
            status: now.status,
            capture,
            recording,
            elapsed_ms: now.elapsed_ms,
            traced_ms: now.traced_ms,
            capture_wall_ms: now.capture_wall_ms,
        });
    }
    runs.sort_by_key(|x| x.repeat);
    now.runs = runs;
}
