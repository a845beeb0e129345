//! Every limit of the fake toolchain, in one place: what a test's directives may ask for and
//! what its small JSON reader accepts.

use std::time::Duration;

/// The largest cost one directive may ask for.
pub const MAX_COST: Duration = Duration::from_secs(3600);

/// Most counts a `heartbeats-runs` directive may list.
pub const MAX_HEARTBEATS_RUNS: usize = 1000;

/// The largest `profiling-cost`, in percent.
pub const MAX_PROFILING_COST_PERCENT: u32 = 1000;

/// Deepest nesting the fake toolchain's JSON reader (`RawJson::parse` in `dialect.rs`) accepts
/// (a profile nests 4 levels).
pub const MAX_RAW_DEPTH: usize = 64;

/// The most one `alloc` directive may allocate, in MiB.
pub const MAX_ALLOC_MIB: u64 = 16_384;

/// How long a `hang` directive sleeps at most before the command goes on.
pub const MAX_HANG: Duration = Duration::from_secs(3600);
