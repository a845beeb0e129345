//! Capturing a Lean file: finding its project and toolchain, running Lean
//! with profiling on, and joining what it prints into a recording.

use leanscope::capture::declarations;
mod events;
mod from_messages;
mod from_profile;
pub mod lake_env;
pub use leanscope::capture::lean_output;
pub use leanscope::capture::memory;
mod partial;
mod placer;
pub mod process;
pub mod project;
pub mod source;
mod status_emoji;
mod stock;
mod text_match;
mod toolchain;

use std::path::PathBuf;

use recording::{CaptureStatus, ClockKind, Measure};

pub use crate::process_group::run_tag::RunTag;
pub use partial::mebibytes;
pub use process::{CancelToken, RunOptions};
pub use stock::{timestamp, ProfileScratch, PROJECT_DIR};

/// What to capture and how.
#[derive(Debug, Clone)]
pub struct CaptureRequest {
    pub file: PathBuf,
    /// Where to write the recording (default: under the project's `.leanscope/recordings/`).
    pub output: Option<PathBuf>,
    /// `trace.profiler.threshold` (and `profiler.threshold` when timing): milliseconds when
    /// `measure` is time, heartbeats when it is heartbeats.
    pub threshold: u64,
    /// What Lean measures each trace node by (`trace.profiler.useHeartbeats`).
    pub measure: Measure,
    /// An explicit `lake` (else `PATH`, then `~/.elan/bin`).
    pub lake: Option<PathBuf>,
    /// How the recording is published: atomically, or in place for a
    /// session, which commits it later ([`recording::Publish`]).
    pub publish: recording::Publish,
    /// Sampling Lean's memory, and the limit that stops it.
    pub memory: MemoryOptions,
    /// Arguments passed to `lean` before the file, after leanscope's own (`profile
    /// --lean-arg`), e.g. Lean 4.32's `--incr-load=FILE`; recorded in the header.
    pub lean_args: Vec<String>,
}

/// How a capture watches Lean's memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryOptions {
    /// How often the resident memory of Lean's process tree is sampled; zero: never.
    pub interval: std::time::Duration,
    /// Lean is stopped once its tree's resident memory passes this many bytes.
    pub limit: Option<u64>,
}

impl Default for MemoryOptions {
    fn default() -> Self {
        MemoryOptions {
            interval: memory::DEFAULT_INTERVAL,
            limit: None,
        }
    }
}

/// How Lean is run for a capture: the `backend` of `leanscope serve`'s
/// captures; a capture that names none runs with [`Backend::Stock`]. The compiled native driver of
/// the design does not exist yet, so stock is the only one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// `lean --json -D…` in the Lake environment, on any recent Lean.
    Stock,
}

impl Backend {
    /// Every backend, in the order they are listed to users.
    pub const ALL: [Backend; 1] = [Backend::Stock];

    pub fn name(self) -> &'static str {
        match self {
            Backend::Stock => "stock",
        }
    }

    /// The backend called `name`, if there is one.
    pub fn from_name(name: &str) -> Option<Backend> {
        Backend::ALL.into_iter().find(|b| b.name() == name)
    }
}

/// Default threshold, in milliseconds (Lean's own default for trace.profiler).
pub const DEFAULT_THRESHOLD_MS: u64 = 10;

/// Default threshold of a heartbeat capture, in heartbeats. Lean's own default (10) would be
/// read as 10 heartbeats and keep nearly every node; this is leanscope's choice: half a percent
/// of the budget a declaration gets by default (`maxHeartbeats` 200000, counted in thousands,
/// i.e. 2·10⁸ heartbeats).
pub const DEFAULT_THRESHOLD_HEARTBEATS: u64 = 1_000_000;

/// The threshold a capture of `measure` uses when none is given.
pub fn default_threshold(measure: Measure) -> u64 {
    match measure {
        Measure::Time | Measure::Untimed => DEFAULT_THRESHOLD_MS,
        Measure::Heartbeats => DEFAULT_THRESHOLD_HEARTBEATS,
    }
}

/// What happened, as the capture goes.
#[derive(Debug, Clone)]
pub enum Progress {
    Starting {
        module: String,
        lake: PathBuf,
    },
    /// Lean is running and has printed this many messages.
    Running {
        messages: u64,
    },
    Reading,
    Writing {
        path: PathBuf,
    },
}

/// The headline facts of a finished capture.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CaptureResult {
    pub recording: PathBuf,
    pub status: CaptureStatus,
    pub module: String,
    pub lean_version: String,
    pub events: u64,
    pub declarations: usize,
    pub errors: usize,
    pub elapsed_ns: Option<u64>,
    pub clock: ClockKind,
    pub notes: Vec<String>,
    pub lean_wall_ms: u64,
    /// CPU time leanscope itself spent on this capture (Lean not included).
    pub overhead_cpu_ms: f64,
    /// Bytes of Lean output read: stdout, stderr and the profile file.
    pub ingested_bytes: u64,
    /// Why Lean was stopped, when the recording is partial (status `stopped`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop: Option<recording::Stop>,
    /// The peak resident memory of Lean's process tree, when it was sampled.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peak_memory_bytes: Option<u64>,
    /// CPU time leanscope spent sampling memory (included in `overhead_cpu_ms`).
    pub sampling_cpu_ms: f64,
}

#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    #[error("{0} does not exist or is not a file")]
    NoSuchFile(String),
    #[error(transparent)]
    Project(#[from] project::ProjectError),
    #[error(transparent)]
    Run(#[from] process::RunError),
    #[error("Lean {status}; it wrote no usable output. Its last words on stderr:\n{stderr}")]
    LeanFailed { status: String, stderr: String },
    #[error("cannot understand {0}")]
    BadOutput(String),
    #[error("{0}")]
    BadSource(String),
    #[error("{0}")]
    Io(String),
    #[error("cannot write the recording {0}: {1}")]
    Write(String, recording::RecordingError),
}

/// Captures one file with the stock backend, in a Lake environment taken
/// for it (`lake env`, then `lean --version` and `lean --json` in it).
pub fn capture_file(
    req: &CaptureRequest,
    opts: &RunOptions,
    progress: &mut dyn FnMut(Progress),
) -> Result<CaptureResult, CaptureError> {
    stock::capture(req, None, None, opts, progress)
}

/// Captures one file with the stock backend in `env`, a Lake environment a
/// session took (one taken for the file instead when `env` is another
/// project's); Lean writes its profile into the worker's `scratch` file.
pub fn capture_file_in(
    req: &CaptureRequest,
    env: &lake_env::LakeEnvironment,
    scratch: &mut ProfileScratch,
    opts: &RunOptions,
    progress: &mut dyn FnMut(Progress),
) -> Result<CaptureResult, CaptureError> {
    stock::capture(req, Some(env), Some(scratch), opts, progress)
}
