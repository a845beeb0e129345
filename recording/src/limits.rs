//! Every limit the reader and writer enforce, in one place.
//!
//! A reader checks each of these before it allocates for what a file claims,
//! so hostile input cannot make it allocate more than these bounds.

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

/// Largest timestamp or end time, in nanoseconds (about 292 years).
pub const MAX_TIME_NS: u64 = i64::MAX as u64;
