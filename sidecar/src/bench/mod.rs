//! `leanscope bench`: what profiling costs, end to end. Per file, plain
//! `lake env lean FILE` against `leanscope profile FILE` in the same Lake
//! environment, measured by the host (`host`). The schedule (`schedule`)
//! discards warm-up runs, interleaves the two modes and rotates the order
//! of the files and of the modes across repeats, so that neither a file
//! nor a mode always runs first (after a cold cache, or beside a noisy
//! neighbour); the report (`report`) gives per-file medians, per-repeat
//! totals and the aggregate overhead.

pub mod host;
pub mod report;
pub mod schedule;

/// The two ways a file is run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// `lake env lean FILE`.
    Plain,
    /// `leanscope profile FILE`.
    Profiled,
}

/// One run's counters.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Sample {
    /// Index of the file in the report's `files`.
    pub file: usize,
    pub mode: Mode,
    /// 0-based repeat; `None` for a warm-up run (discarded).
    pub repeat: Option<u32>,
    pub wall_ns: u64,
    pub cpu_ns: u64,
    /// CPU time leanscope itself spent in a profiled run (reading Lean's
    /// output and writing the recording, as the capture measures it).
    pub leanscope_cpu_ns: Option<u64>,
}
