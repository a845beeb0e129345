//! The reader of Firefox Profiler JSON ("processed profiles"), which both Lean's
//! `trace.profiler.output` file (read by the capture, see
//! [`crate::capture::lean_output::lean_profile`]) and `leanscope import` of any producer's
//! profile (`interop/firefox.rs`) go through.
//!
//! The reader reads a profile by its schema with the streaming JSON layer ([`crate::json_stream`]):
//! only the columns leanscope uses are converted (`columns.rs`: `meta.startTime/interval/product/
//! categories/preprocessedProfileVersion`; per thread `name`, `processName`, `isMainThread`,
//! `samples.stack/time/timeDeltas/weight/weightType`, `stackTable.frame/prefix/category`,
//! `frameTable.func/category`, `funcTable.name`, `stringArray`; `shared`), everything else is
//! skipped with its syntax checked. Keys may come in any order (Lean's key order changed between
//! versions). Times are converted from their decimal text exactly, without floating point. Each
//! thread is handed to the caller as soon as it has been read, so a caller that turns it into
//! something smaller (as the capture does) never holds more than one thread's raw columns.
//! Input size, table lengths, string sizes and the thread count are bounded by the caller's
//! [`ProfileLimits`].

mod columns;
mod reader;

use std::io::Read;

pub use columns::{
    FrameColumns, ProfileColumns, ProfileMeta, SampleColumns, StackColumns, StringTable,
    TableColumns, ThreadColumns, TimeValue, Times, NO_STACK,
};

use crate::limits::Limit;

/// What a profile failed on.
#[derive(Debug, thiserror::Error)]
pub enum FirefoxProfileError {
    #[error("profile JSON is malformed at line {line}, column {column}: {reason}")]
    Json {
        line: usize,
        column: usize,
        reason: String,
    },
    #[error("reading the profile failed: {0}")]
    Io(#[source] std::io::Error),
    #[error("the profile is larger than {} bytes ({})", .limit.value, .limit.name)]
    TooLarge { limit: Limit },
    /// A limit other than the size: [`Limit`]'s text names it.
    #[error("{0}")]
    LimitExceeded(Limit),
    #[error("thread {thread}: {reason}")]
    Invalid { thread: usize, reason: String },
    #[error("the profile has no `{0}` field")]
    Missing(&'static str),
}

/// The limits a read is held to, each with the name its error gives.
#[derive(Debug, Clone, Copy)]
pub struct ProfileLimits {
    /// Bytes of the whole profile.
    pub bytes: Limit,
    /// Threads.
    pub threads: Limit,
    /// Entries of one table column.
    pub table: Limit,
    /// Bytes of one string.
    pub string: Limit,
}

/// What a number in a profile's time columns counts. Lean writes milliseconds
/// (`Lean.Firefox.Milliseconds`: seconds × 1000); with `trace.profiler.useHeartbeats=true` the
/// "seconds" it multiplies are heartbeats, so each value is heartbeats × 1000.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProfileUnit {
    /// Milliseconds, read as nanoseconds.
    Nanoseconds,
    /// Heartbeats × 1000, read as heartbeats.
    Heartbeats,
}

impl ProfileUnit {
    /// The power of ten that turns a value as written into this unit.
    fn pow10(self) -> i32 {
        match self {
            ProfileUnit::Nanoseconds => 6,
            ProfileUnit::Heartbeats => -3,
        }
    }
}

/// Which profiles the reader takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// As Lean's `Profile.export` writes them: each thread holds its tables, every sample has a
    /// stack and a `time`, `meta.startTime` is given; other fields of other producers are skipped.
    Lean,
    /// Any processed profile: tables may be `shared`, times may be `timeDeltas`, samples may have
    /// no stack, and the fields other producers use are read too.
    Any,
}

/// How to read a profile.
#[derive(Debug, Clone, Copy)]
pub struct ReadOptions {
    pub layout: Layout,
    pub unit: ProfileUnit,
    pub limits: ProfileLimits,
}

/// Reads a profile's columns, handing each thread to `each` as soon as it has been read (with
/// its index); returns `meta` and `shared`, which may come after the threads. `each` takes what
/// it keeps out of the thread (`std::mem::take`); the buffers it leaves are reused for the
/// next thread's columns, which saves allocating (and the kernel zeroing, page by page) fresh
/// memory for every thread of a large profile.
pub fn read_profile_columns<R: Read>(
    input: R,
    options: ReadOptions,
    each: &mut dyn FnMut(usize, &mut ThreadColumns) -> Result<(), FirefoxProfileError>,
) -> Result<ProfileColumns, FirefoxProfileError> {
    let (meta, shared) = reader::ProfileReader::new(input, options).read(each)?;
    Ok(ProfileColumns { meta, shared })
}
