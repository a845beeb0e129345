//! Every limit of the `leanscope` binary and library, in one place: what a reader of Lean's
//! output, an importer, the JSON layer, the JSON-RPC server, the view server, a revisions run,
//! a bench or a session accepts at most. A reader checks these before it keeps what its input
//! claims, so hostile or broken input cannot make it hold more than these bounds. The limits of
//! the recording format, its model, sessions and queries are in `recording::limits`.
//!
//! Each limit is a plain number, so a reader compares with it directly. An error that reports a
//! limit names its constant with [`limit!`](crate::limit), which takes the name from the
//! constant itself (`limit!(MAX_LINE_BYTES, "the line's length")`): a [`Limit`] carries the
//! name, what it bounds and the value, and no name is ever recovered from a message. A reader
//! whose limits tests lower takes them as arguments (see
//! [`ProfileLimits`](crate::firefox_profile::ProfileLimits)).

use std::fmt;

/// A limit as an error reports it. Made by [`limit!`](crate::limit) from the constant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    /// The constant's name (`MAX_LINE_BYTES`, or a path for another crate's).
    pub name: &'static str,
    /// What it bounds, as the error says it ("the line's length").
    pub what: &'static str,
    pub value: u64,
}

impl Limit {
    /// The same limit with another value (a test's lowered one, or a caller's own).
    pub const fn with_value(self, value: u64) -> Limit {
        Limit { value, ..self }
    }
}

impl fmt::Display for Limit {
    /// `{what} is over the limit of {value} ({name})`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} is over the limit of {} ({})",
            self.what, self.value, self.name
        )
    }
}

/// A [`Limit`] from a limit constant and what it bounds; the name is the constant's own:
/// `limit!(MAX_LINE_BYTES, "the line's length")`,
/// `limit!(recording::limits::MAX_THREADS, "the number of threads")`.
#[macro_export]
macro_rules! limit {
    ($constant:path, $what:expr) => {
        $crate::limits::Limit {
            name: stringify!($constant),
            what: $what,
            value: $constant as u64,
        }
    };
}

// ---------------------------------------------------------------------------- Lean's output

/// Longest stdout line accepted as one message. A trace message of a few hundred thousand nodes
/// is tens of megabytes; anything longer is refused rather than buffered without bound.
pub const MAX_MESSAGE_LINE_BYTES: usize = 64 * 1024 * 1024;

/// Longest line of a Lean log (`leanscope import` of Lean's output): one JSON message, so the
/// same as [`MAX_MESSAGE_LINE_BYTES`].
pub const MAX_LEAN_LOG_LINE_BYTES: usize = MAX_MESSAGE_LINE_BYTES;

/// Most nodes accepted in one trace message. A message line is at most
/// [`MAX_MESSAGE_LINE_BYTES`] long and a real node header takes a few dozen bytes of it, so this
/// only stops synthetic input.
pub const MAX_TRACE_NODES: usize = 2_000_000;

/// Deepest nesting accepted in one trace message (a node at this depth is indented
/// `2 · MAX_TRACE_DEPTH` spaces).
pub const MAX_TRACE_DEPTH: usize = 10_000;

/// Most entries accepted in one `cumulative profiling times:` block.
pub const MAX_CUMULATIVE_ENTRIES: usize = 10_000;

/// Most bytes of Lean output (stdout and stderr each) kept in memory.
pub const MAX_LEAN_OUTPUT_BYTES: usize = 1 << 30;

/// Most stdout lines of Lean whose arrival time a run keeps (when each command was reported).
pub const MAX_LINE_TIMES: usize = 4_000_000;

/// Most memory samples one capture keeps; past it, every other one is dropped and the
/// interval doubles (at most `recording::limits::MAX_COUNTER_SAMPLES`).
pub const MAX_MEMORY_SAMPLES: usize = 1_000_000;

/// Most processes of Lean's tree a memory sample reads.
pub const MAX_SAMPLED_PROCESSES: usize = 4096;

/// Most bytes of `lake env`'s output read.
pub const MAX_LAKE_ENV_BYTES: usize = 1 << 20;

/// Most variables (lines) `lake env` may print.
pub const MAX_LAKE_ENV_LINES: usize = 4096;

// ---------------------------------------------------------------------------- Firefox profiles

/// Largest Firefox profile read (Lean's `trace.profiler.output` file, or one imported).
pub const MAX_PROFILE_BYTES: u64 = 2 * 1024 * 1024 * 1024;

/// Most threads of one Firefox profile.
pub const MAX_PROFILE_THREADS: usize = 4096;

/// Most entries of one table column of a Firefox profile (samples, stacks, frames, functions,
/// strings of one thread), for the capture and the import alike; the import also bounds the
/// calls it rebuilds from one thread's samples by it.
///
/// The capture had 16M (twice [`MAX_PROFILE_NODES`]: Lean writes two samples per node), the
/// import 50M. One limit for one reader takes the larger: every profile either accepted before
/// is still accepted, and what bounds the capture's memory is [`MAX_PROFILE_NODES`] and
/// [`MAX_PROFILE_BYTES`], which are unchanged.
pub const MAX_PROFILE_TABLE_ROWS: usize = 50_000_000;

/// Longest single string of a profile Lean wrote (a node name; with `trace.profiler.output.pp`
/// names include pretty-printed syntax). An imported profile's strings are bounded by
/// [`MAX_JSON_STRING_BYTES`] instead, as every importer's are.
pub const MAX_PROFILE_STRING_BYTES: usize = 1024 * 1024;

/// Most trace nodes rebuilt over all threads of one profile Lean wrote.
pub const MAX_PROFILE_NODES: usize = 8_000_000;

// ---------------------------------------------------------------------------- JSON

/// Deepest nesting of arrays and objects the streaming JSON layer accepts below the value being
/// skipped.
pub const MAX_JSON_DEPTH: usize = 128;

/// Longest JSON string (key or value) read into memory: the streaming JSON layer's default
/// ([`JsonCursor::with_max_string`](crate::json_stream::JsonCursor::with_max_string) sets
/// another) and every importer's (names, labels, source text). Strings that are skipped may be
/// of any length.
pub const MAX_JSON_STRING_BYTES: usize = 64 << 20;

// ---------------------------------------------------------------------------- importers

/// Largest single trace event object of a Chrome trace, in bytes (and the largest string in a
/// trace).
pub const MAX_CHROME_EVENT_BYTES: usize = 16 << 20;

/// Most declarations and diagnostics (together) the header of a Chrome trace leanscope wrote
/// may carry (in its `leanscope_declarations` and `leanscope_diagnostics` metadata events).
pub const MAX_HEADER_ITEMS: usize = 4_000_000;

/// Most lanes (`leanscope_lane` events: extra `tid`s of one thread) a Chrome trace may declare:
/// enough for 16 billion events in lanes of 16,384.
pub const MAX_CHROME_LANES: usize = 1 << 20;

/// Most completed Chrome events one thread may hold back while waiting for earlier-starting
/// events (the trace's out-of-order reach per thread).
pub const MAX_REORDER_EVENTS: usize = 64 * 1024;

/// Most events all threads together may hold back (reordering, or waiting for an open `B` event
/// to end).
pub const MAX_PENDING_EVENTS: usize = 2_000_000;

/// Deepest nesting of open `B` events on one thread.
pub const MAX_OPEN_SPANS: usize = 65_536;

/// Longest line of a folded-stacks or `lean --profile` text file, in bytes.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// Most distinct call-tree nodes a folded-stacks import builds.
pub const MAX_TREE_NODES: usize = 20_000_000;

/// Deepest stack of a folded-stacks line, of a profile's stack table, or of the events nested
/// on one thread of a Chrome trace.
pub const MAX_STACK_DEPTH: usize = 10_000;

/// Largest summary JSON file (leanscope's or LeanProfiler's), in bytes.
pub const MAX_SUMMARY_BYTES: u64 = 512 << 20;

/// Most distinct strings (names, classes) one import may intern.
pub const MAX_IMPORT_STRINGS: usize = 50_000_000;

/// Total bytes of the distinct strings one import may intern.
pub const MAX_IMPORT_STRING_BYTES: usize = 1 << 30;

/// Most skipped or unreadable lines of a Lean log named one by one in the notes (all are
/// counted).
pub const MAX_NAMED_LINES: usize = 5;

// ---------------------------------------------------------------------------- JSON-RPC server

/// The largest message body read (a Lean buffer sent with `leanscope/annotations` is the
/// largest thing a client sends).
pub const MAX_MESSAGE_BYTES: u64 = 16 * 1024 * 1024;

/// The largest header block of a message (all header lines together).
pub const MAX_HEADER_BYTES: usize = 8 * 1024;

/// Requests handled at once (a long capture does not hold up annotations).
pub const MAX_CONCURRENT_REQUESTS: usize = 8;

/// Requests waiting for a slot; one more is refused with the server's `SERVER_BUSY` error.
pub const MAX_WAITING_REQUESTS: usize = 64;

/// Most recordings the server keeps decoded at once.
pub const MAX_CACHED_RECORDINGS: usize = 4;

// ---------------------------------------------------------------------------- view server

/// Longest request head `leanscope view` reads; a longer one gets 431.
pub const MAX_REQUEST_HEAD_BYTES: usize = 16 * 1024;

/// Connections `leanscope view` serves at once (each an idle task until its head is in); more
/// are answered 503 at once and closed.
pub const MAX_CONNECTIONS: usize = 4096;

// ---------------------------------------------------------------------------- sessions

/// Most parallel captures of a session.
pub const MAX_JOBS: usize = 64;

/// Most shards one merge reads: as many as a plan can be cut into.
pub const MAX_MERGE_INPUTS: usize = recording::limits::MAX_SHARDS as usize;

/// Most threads of `leanscope query` that read a session's index at once.
pub const MAX_QUERY_READERS: usize = 8;

// ---------------------------------------------------------------------------- revisions

/// The largest `--repeat` of `leanscope revisions`.
pub const MAX_REVISIONS_REPEAT: u64 = 100;

/// The longest path accepted from `git diff-tree` (bytes).
pub const MAX_PATH_BYTES: usize = 4096;

/// The largest small output (a SHA list, `cat-file -s`) read from git.
pub const MAX_SMALL_OUTPUT: u64 = 64 * 1024;

/// The largest `lakefile.toml` read (bytes).
pub const MAX_LAKEFILE_BYTES: u64 = 1024 * 1024;

/// The largest `report.json` or `plan.json` `revisions merge` reads (bytes): a run's samples
/// are at most 100 repeats × 2 sides of a plan's files.
pub const MAX_REVISIONS_REPORT_BYTES: u64 = 256 * 1024 * 1024;

/// Rows listed per list of a revisions diff; the others are only counted.
pub const MAX_LISTED: usize = 200;

/// The longest symbolic link target written (bytes).
pub const MAX_SYMLINK_TARGET: u64 = 4096;

// ---------------------------------------------------------------------------- build outputs

/// Largest `.hb.json` read (Lean writes one entry of four short fields per declaration and
/// phase: a module of a hundred thousand declarations is a few megabytes).
pub const MAX_HB_JSON_BYTES: u64 = 256 << 20;

/// Most entries of one `.hb.json`.
pub const MAX_HB_ENTRIES: usize = 4_000_000;

/// Most `.hb.json` files of one build read as a session (Mathlib has about 8,000 modules).
pub const MAX_BUILD_MODULES: usize = 200_000;

/// Most jobs read from one `lake build` log (Mathlib's build has about 8,000 modules, a few
/// jobs each).
pub const MAX_LAKE_JOBS: usize = 1_000_000;

/// Most distinct metrics read from one file of radar measurements.
pub const MAX_RADAR_METRICS: usize = 10_000_000;

/// Deepest folder nesting walked under a build's output directory.
pub const MAX_BUILD_DEPTH: usize = 64;

// ---------------------------------------------------------------------------- bench
// (its repeats and warm-ups are bounded as a capture's: `recording::limits::MAX_REPEATS`)

/// Most bytes of a bench run's stdout kept (leanscope's `--json` facts are far smaller; the
/// rest is read and dropped so the child never blocks).
pub const MAX_KEPT_STDOUT: usize = 1 << 20;

// ---------------------------------------------------------------------------- agents (MCP)

/// Most rows of each list a tool returns (its `limit` argument at most).
pub const MAX_MCP_ROWS: usize = 200;

/// A tool's structured result, in bytes of compact JSON, at most (the text summary is separate).
pub const MAX_MCP_REPLY_BYTES: usize = 32 * 1024;

/// The text summary beside a tool's structured result, at most (cut at a line's end).
pub const MAX_MCP_SUMMARY_BYTES: usize = 2048;

/// A string of a tool's result (a tactic's text, a message) longer than this many characters is
/// cut, with `…`.
pub const MAX_MCP_STRING_CHARS: usize = 300;

/// The largest `timeoutSeconds` a capture tool takes.
pub const MAX_MCP_TIMEOUT_SECONDS: u64 = 24 * 3600;

/// Paths of recordings and sessions the MCP server remembers having written; the oldest go
/// first.
pub const MAX_MCP_REMEMBERED: usize = 1000;

/// Resources listed at most (`resources/list`).
pub const MAX_MCP_RESOURCES_LISTED: usize = 200;

// ---------------------------------------------------------------------------- hot spots

/// Tree levels a hot-spots document holds at most, whatever the depth asked.
pub const MAX_HOT_SPOT_DEPTH_SHOWN: usize = 256;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_limit_names_its_constant() {
        let l = crate::limit!(MAX_LINE_BYTES, "the line's length");
        assert_eq!(l.name, "MAX_LINE_BYTES");
        assert_eq!(l.value, 1 << 20);
        assert_eq!(
            l.to_string(),
            "the line's length is over the limit of 1048576 (MAX_LINE_BYTES)"
        );
        let r = crate::limit!(recording::limits::MAX_THREADS, "the number of threads");
        assert_eq!(r.name, "recording::limits::MAX_THREADS");
    }
}
