//! Every limit of the `recording` crate, in one place: the recording format's (what the reader
//! and writer accept), the model's and summaries' (issues kept, rows), sessions' (manifest,
//! journal, shards, plans) and queries' (index lines, rows, warnings).
//!
//! A reader checks each of these before it allocates for what a file claims,
//! so hostile input cannot make it allocate more than these bounds. The limits of the
//! `leanscope` binary (capture, importers, servers) are in its own `limits` module.

// ---------------------------------------------------------------------------- recording format

/// Largest chunk (header, event batch or footer) a reader accepts, in bytes.
pub const MAX_CHUNK_BYTES: usize = 96 << 20;

/// Largest embedded source text, in bytes.
pub const MAX_SOURCE_BYTES: usize = 64 << 20;

/// Events a writer puts in one batch before it flushes.
pub const BATCH_EVENTS: usize = 16 * 1024;

/// Most events one batch may claim.
pub const MAX_BATCH_EVENTS: usize = 1 << 20;

/// Most events one recording may hold (event indices are `u32`).
pub const MAX_EVENTS: u64 = 200_000_000;

/// Most distinct interned strings in one recording.
pub const MAX_STRINGS: u64 = 50_000_000;

/// Most distinct interned source ranges in one recording.
pub const MAX_RANGES: u64 = 50_000_000;

/// Most threads one recording may name.
pub const MAX_THREADS: usize = 65_536;

/// Most chunks a footer may list.
pub const MAX_CHUNKS: usize = 1 << 20;

/// Most tables in one chunk (FlatBuffers verifier limit).
pub const MAX_TABLES_PER_CHUNK: usize = 4_000_000;

/// Deepest table nesting in one chunk (FlatBuffers verifier limit).
pub const MAX_TABLE_DEPTH: usize = 8;

/// Most samples a counter track (the memory track) may hold; a capture thins its samples to
/// stay under it.
pub const MAX_COUNTER_SAMPLES: usize = 4_000_000;

/// Most commands a memory track may attribute growth to.
pub const MAX_COUNTER_COMMANDS: usize = 1_000_000;

/// Largest timestamp or end time, in nanoseconds (about 292 years).
pub const MAX_TIME_NS: u64 = i64::MAX as u64;

// ---------------------------------------------------------------------------- model and summaries

/// Validation issues of a recording kept with their details; further ones are only counted.
pub const MAX_REPORTED_ISSUES: usize = 1000;

/// Validation issues a summary keeps with their details (the count keeps counting past it).
pub const MAX_SUMMARY_ISSUES: usize = 1000;

/// Rows a summary can hold (row numbers are `u32`).
pub const MAX_SUMMARY_ROWS: usize = u32::MAX as usize;

/// Most runs a repeated capture (or a bench) may ask for (`--repeat`, `--warmup`).
pub const MAX_REPEATS: u32 = 1000;

// ---------------------------------------------------------------------------- sessions

/// Largest manifest (`session.json`) a reader accepts, in bytes.
pub const MAX_MANIFEST_BYTES: u64 = 256 << 20;

/// Largest journal a reader accepts, in bytes. Writers checkpoint long before (see
/// [`checkpoint_due`](crate::session::journal::checkpoint_due)).
pub const MAX_JOURNAL_BYTES: u64 = 256 << 20;

/// Longest journal line a reader accepts, in bytes (a file entry holds at most
/// [`MAX_ERROR_CHARS`] characters of error and Lean's categories).
pub const MAX_JOURNAL_LINE_BYTES: usize = 1 << 20;

/// Most characters of a failed file's error text kept in the manifest.
pub const MAX_ERROR_CHARS: usize = 4000;

/// Most shards a plan can be cut into.
pub const MAX_SHARDS: u32 = 4096;

/// Largest plan file a reader accepts, in bytes.
pub const MAX_PLAN_BYTES: u64 = 64 << 20;

// ---------------------------------------------------------------------------- queries

/// Longest index line a reader accepts, in bytes; longer lines are skipped with a warning.
pub const MAX_INDEX_LINE_BYTES: usize = 1 << 20;

/// Most warnings a query reports one by one (the rest are counted).
pub const MAX_REPORTED_WARNINGS: usize = 20;

/// Most index rows of one kind a query of a repeated capture groups.
pub const MAX_REPEATED_ROWS: u64 = 20_000_000;

/// Longest tactic name in an index row, in characters.
pub const MAX_TACTIC_NAME_CHARS: usize = 120;

// ---------------------------------------------------------------------------- hot spots

/// Longest hot-spot key text, in characters; longer ones are cut and end in `…` (the full
/// label stays in the recording, once).
pub const MAX_KEY_CHARS: usize = 200;

/// Most distinct keys one hot-spot aggregate holds (a file's or a session's); the work of
/// further keys goes to one `(other)` key that counts how many it holds.
pub const MAX_KEYS: usize = 100_000;

/// Most nodes of a merged call tree; further paths end in an `(other)` node under their
/// caller.
pub const MAX_TREE_NODES: usize = 2_000_000;

/// Most keys a file's hot-spot rows keep in a session's index (by total); the rest are
/// summed in one `(other)` row that says how many keys it holds.
pub const MAX_FILE_HOT_SPOTS: usize = 100;
