//! Every limit the importers enforce, in one place. An importer checks
//! these before it keeps what its input claims, so hostile input cannot
//! make it hold more than these bounds.

/// Largest single trace event object of a Chrome trace, in bytes (and the
/// largest top-level value kept whole, such as `otherData`).
pub const MAX_CHROME_EVENT_BYTES: usize = 16 << 20;

/// Most declarations and diagnostics (together) the header of a Chrome
/// trace leanscope wrote may carry (in its `leanscope_declarations` and
/// `leanscope_diagnostics` metadata events).
pub const MAX_HEADER_ITEMS: usize = 4_000_000;

/// Most lanes (`leanscope_lane` events: extra `tid`s of one thread) a
/// Chrome trace may declare: enough for 16 billion events in lanes of
/// 16,384.
pub const MAX_CHROME_LANES: usize = 1 << 20;

/// Most completed Chrome events one thread may hold back while waiting for
/// earlier-starting events (the trace's out-of-order reach per thread).
pub const MAX_REORDER_EVENTS: usize = 64 * 1024;

/// Most events all threads together may hold back (reordering, or waiting
/// for an open `B` event to end).
pub const MAX_PENDING_EVENTS: usize = 2_000_000;

/// Deepest nesting of open `B` events on one thread.
pub const MAX_OPEN_SPANS: usize = 65_536;

/// Longest line of a folded-stacks or `lean --profile` text file, in bytes.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// Most distinct call-tree nodes a folded-stacks import builds.
pub const MAX_TREE_NODES: usize = 20_000_000;

/// Deepest stack of a folded-stacks line or a profile's stack table.
pub const MAX_STACK_DEPTH: usize = 10_000;

/// Longest JSON string any importer accepts (names, labels, source text).
pub const MAX_JSON_STRING_BYTES: usize = 64 << 20;

/// Most entries of one table of a Firefox profile (samples, stacks, frames,
/// functions, strings).
pub const MAX_PROFILE_TABLE_ROWS: usize = 50_000_000;

/// Largest summary JSON file (leanscope's or LeanProfiler's), in bytes.
pub const MAX_SUMMARY_BYTES: u64 = 512 << 20;

/// Most distinct strings (names, classes) one import may intern.
pub const MAX_IMPORT_STRINGS: usize = 50_000_000;

/// Total bytes of the distinct strings one import may intern.
pub const MAX_IMPORT_STRING_BYTES: usize = 1 << 30;
