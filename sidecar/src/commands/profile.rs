//! `leanscope profile`: capture a Lean file, or a folder or project into a
//! session.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Result;

use recording::Measure;

use super::interrupts::Interrupts;
use crate::capture::{
    capture_file, default_threshold, CaptureRequest, MemoryOptions, Progress, RunOptions,
    DEFAULT_THRESHOLD_HEARTBEATS, DEFAULT_THRESHOLD_MS,
};
use crate::exit;
use leanscope::limits::MAX_JOBS;

#[derive(clap::Args)]
#[command(after_help = "\
A file gives one recording. A folder, or --project, gives a session directory:
session.json (the manifest; session.journal holds the files committed since its
last checkpoint while the run is unfinished), index.jsonl (query rows) and
files/*.lsrec, written so that Ctrl-C or a crash keeps every file captured so far;
--resume completes it.

--repeat N captures each file N times (after --warmup K discarded runs of each
file, default 1 when N > 1; round r of a folder runs its files rotated by r) into
a session, a FILE too: every run is kept as its own recording, and `query` and
`summary` of the session report medians with min-max (and quartiles from 4 runs);
--resume captures the missing runs.

Exit codes: 0 ok; 1 Lean reported errors (recordings were written); 2 usage;
3 toolchain or capture failure (for a session: some file failed); 130 Ctrl-C; 143 SIGTERM.")]
pub struct Args {
    /// The Lean file or folder to capture.
    #[arg(required_unless_present_any = ["project", "resume"], conflicts_with_all = ["project", "resume"])]
    target: Option<PathBuf>,
    /// Capture every .lean file of the project containing DIR (default: the current directory).
    #[arg(long, value_name = "DIR", num_args = 0..=1, default_missing_value = ".", conflicts_with = "resume")]
    project: Option<PathBuf>,
    /// Complete an interrupted, cancelled or partial session: capture the files that are missing,
    /// failed, or whose source changed since.
    #[arg(long, value_name = "SESSION_DIR")]
    resume: Option<PathBuf>,
    /// With --project: run no Lean, read the session from the project's last `lake build`
    /// (every `.hb.json` Lean wrote beside an `.olean` under .lake/build/lib/lean: each
    /// declaration's elab and kernel heartbeats). Exact and deterministic: compare two such
    /// sessions with no tolerance.
    #[arg(long, requires = "project", conflicts_with_all = ["resume", "repeat", "shard", "list", "measure", "threshold"])]
    from_build: bool,
    /// Print the files a folder, project or resume would capture, as JSON, without running Lean.
    #[arg(long)]
    list: bool,
    /// Capture this many files at once. Default 1: parallel captures compete for the CPU and
    /// memory and so disturb each other's timings; use more only to get a quick overview.
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=MAX_JOBS as u64))]
    jobs: u64,
    /// Where to write: the recording for a file (default:
    /// <project>/.leanscope/recordings/<Module>-<time>.lsrec); a new session directory for a
    /// folder or project (default: <project>/.leanscope/sessions/<time>/; an existing non-empty
    /// directory is refused).
    #[arg(long, short)]
    out: Option<PathBuf>,
    /// What Lean measures each step by: `time` (the clock), or `heartbeats` (Lean's count of
    /// small allocations, `trace.profiler.useHeartbeats=true`: the same on every machine and run).
    /// Every view and export of a heartbeat recording prints heartbeats (`12.4 k hb`).
    #[arg(long, default_value = "time", value_parser = parse_measure)]
    measure: Measure,
    /// Profiler threshold: steps below it are not recorded. In milliseconds when measuring time
    /// (default 10), in heartbeats with `--measure heartbeats` (default 1000000).
    #[arg(long, value_name = "MS|HEARTBEATS")]
    threshold: Option<u64>,
    /// The lake to use (default: lake on PATH, then ~/.elan/bin/lake).
    #[arg(long)]
    lake: Option<PathBuf>,
    /// Stop Lean after this many seconds (per file). The recording keeps what Lean reported
    /// until then, with status `stopped` and the command it was running.
    #[arg(long)]
    timeout: Option<u64>,
    /// Stop Lean once the resident memory of its process tree (lake, lean and what they start)
    /// passes SIZE (per file): `200M`, `4G`, `512K` or bytes. The recording keeps what Lean
    /// reported until then, with status `stopped` (reason "memory limit").
    #[arg(long, value_name = "SIZE", value_parser = crate::capture::memory::parse_size)]
    max_memory: Option<u64>,
    /// How often Lean's resident memory is sampled, in milliseconds (default 20; 0: never).
    #[arg(long, value_name = "MS")]
    memory_interval: Option<u64>,
    /// Print the capture's (or session's) headline facts as JSON instead of its path.
    #[arg(long)]
    json: bool,
    /// Capture only shard K of N of the planned files (a deterministic cut, the same on every
    /// machine); `auto` reads JOB_COMPLETION_INDEX (Kubernetes Indexed Job, with --shards) or
    /// SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT (Slurm array). Merge the shards with
    /// `leanscope session merge`.
    #[arg(long, value_name = "K/N|auto", conflicts_with = "resume")]
    shard: Option<String>,
    /// The number of shards, for --shard auto (a Kubernetes Job's completions).
    #[arg(long, value_name = "N", requires = "shard")]
    shards: Option<u32>,
    /// Balance the shards by this earlier session's per-file times (longest first) instead of
    /// by source size.
    #[arg(long, value_name = "SESSION_DIR", requires = "shard")]
    balance_from: Option<PathBuf>,
    /// An argument to pass to `lean` as given, before the file (repeat for several), e.g. Lean
    /// 4.32's `--incr-load=FILE` or `--incr-save=FILE`. Recorded in the recording; `compare`
    /// refuses two captures whose incremental-snapshot flags (`--incr-*`) differ.
    #[arg(
        long,
        value_name = "ARG",
        allow_hyphen_values = true,
        conflicts_with = "from_build"
    )]
    lean_arg: Vec<String>,
    /// Capture each file N times into a session (a single FILE too), each run its own
    /// recording; `query` and `summary` then report per-run medians with their spread.
    #[arg(long, value_name = "N", conflicts_with_all = ["shard", "resume"],
        value_parser = clap::value_parser!(u32).range(1..=recording::limits::MAX_REPEATS as i64))]
    repeat: Option<u32>,
    /// Discarded warm-up runs of each file before its repeats (default 1 when --repeat is over 1,
    /// else 0). Warm-ups are never stored or counted.
    #[arg(long, value_name = "K", requires = "repeat",
        value_parser = clap::value_parser!(u32).range(0..=recording::limits::MAX_REPEATS as i64))]
    warmup: Option<u32>,
}

impl Args {
    /// `--memory-interval` and `--max-memory`.
    fn memory(&self) -> MemoryOptions {
        MemoryOptions {
            interval: self
                .memory_interval
                .map_or(MemoryOptions::default().interval, Duration::from_millis),
            limit: self.max_memory,
        }
    }

    /// `--repeat` and `--warmup` as the session stores them.
    fn repeats(&self) -> Option<recording::session::Repeats> {
        self.repeat.map(|runs| recording::session::Repeats {
            runs,
            warmup: self.warmup.unwrap_or(u32::from(runs > 1)),
        })
    }
}

pub fn run(a: Args) -> Result<u8> {
    if a.from_build {
        let dir = a.project.clone().unwrap_or_else(|| PathBuf::from("."));
        let out = super::from_build::read_build(&dir, a.out)?;
        println!("{}", out.display());
        return Ok(exit::OK);
    }
    let memory = a.memory();
    if a.resume.is_some()
        || a.project.is_some()
        || a.repeat.is_some()
        || a.target.as_deref().is_some_and(Path::is_dir)
    {
        return super::profile_session::run(a.into());
    }
    if a.list || a.jobs != 1 || a.shard.is_some() {
        eprintln!(
            "leanscope: error: --list, --jobs and --shard apply to folders and projects, not to one file"
        );
        return Ok(exit::USAGE);
    }
    let Some(file) = a.target else {
        eprintln!("leanscope: error: give a Lean file or folder, --project or --resume");
        return Ok(exit::USAGE);
    };
    if a.max_memory.is_some() && a.memory_interval == Some(0) {
        eprintln!("leanscope: error: --max-memory needs memory sampling: drop --memory-interval 0");
        return Ok(exit::USAGE);
    }
    let (opts, interrupts) = run_options(a.timeout)?;
    let req = CaptureRequest {
        file,
        output: a.out,
        threshold: a.threshold.unwrap_or(default_threshold(a.measure)),
        measure: a.measure,
        lake: a.lake,
        publish: recording::Publish::Atomic,
        memory,
        lean_args: a.lean_arg,
    };
    let mut last = 0;
    let result = capture_file(&req, &opts, &mut |p| match p {
        Progress::Starting { module, lake } => {
            eprintln!("leanscope: capturing {module} with {}", lake.display())
        }
        Progress::Running { messages } if messages != last => {
            last = messages;
            eprintln!("leanscope: Lean has reported {messages} messages");
        }
        Progress::Running { .. } => {}
        Progress::Reading => eprintln!("leanscope: reading Lean's output"),
        Progress::Writing { path } => eprintln!("leanscope: writing {}", path.display()),
    });
    match result {
        Ok(r) => {
            if a.json {
                println!("{}", serde_json::to_string_pretty(&r)?);
            } else {
                println!("{}", r.recording.display());
            }
            for note in &r.notes {
                eprintln!("leanscope: note: {note}");
            }
            if let Some(peak) = r.peak_memory_bytes {
                eprintln!(
                    "leanscope: Lean's peak resident memory: {}",
                    crate::capture::mebibytes(peak)
                );
            }
            if let Some(stop) = &r.stop {
                eprintln!(
                    "leanscope: {}; the recording is partial: it keeps what Lean reported until then",
                    stop.detail
                );
                if let Some(code) = interrupts.exit_code() {
                    return Ok(code);
                }
                return Ok(exit::CAPTURE_FAILED);
            }
            if r.errors > 0 {
                eprintln!(
                    "leanscope: Lean reported {} errors; the recording keeps them",
                    r.errors
                );
                return Ok(exit::LEAN_ERRORS);
            }
            Ok(exit::OK)
        }
        Err(e) => Ok(capture_failed(&e, &interrupts)),
    }
}

/// The options of one file's capture (`--timeout` seconds), with Ctrl-C and SIGTERM cancelling it.
pub fn run_options(timeout: Option<u64>) -> Result<(RunOptions, Interrupts)> {
    let opts = RunOptions {
        timeout: timeout.map(Duration::from_secs),
        ..RunOptions::default()
    };
    let interrupts = Interrupts::install(&opts.cancel)?;
    Ok((opts, interrupts))
}

/// Says why a file's capture failed, and its exit code: 130 or 143 when a signal stopped it,
/// else 3.
pub fn capture_failed(e: &dyn std::fmt::Display, interrupts: &Interrupts) -> u8 {
    if let Some(code) = interrupts.exit_code() {
        eprintln!("leanscope: interrupted; Lean was stopped and no recording was written");
        return code;
    }
    eprintln!("leanscope: error: {e}");
    exit::CAPTURE_FAILED
}

/// `--measure`'s value.
pub fn parse_measure(s: &str) -> Result<Measure, String> {
    Measure::parse(s)
        .filter(|m| Measure::MEASURABLE.contains(m))
        .ok_or_else(|| format!("unknown measure {s:?}: use time or heartbeats"))
}

// The defaults `--help` states.
const _: () = assert!(DEFAULT_THRESHOLD_MS == 10 && DEFAULT_THRESHOLD_HEARTBEATS == 1_000_000);

impl From<Args> for super::profile_session::Args {
    fn from(a: Args) -> Self {
        let memory = a.memory();
        super::profile_session::Args {
            repeats: a.repeats(),
            target: a.target,
            project: a.project,
            resume: a.resume,
            list: a.list,
            jobs: a.jobs as usize,
            out: a.out,
            threshold: a.threshold.unwrap_or(default_threshold(a.measure)),
            measure: a.measure,
            lake: a.lake,
            timeout: a.timeout,
            memory,
            lean_args: a.lean_arg,
            json: a.json,
            shard: a.shard,
            shards: a.shards,
            balance_from: a.balance_from,
            print_session: true,
        }
    }
}
