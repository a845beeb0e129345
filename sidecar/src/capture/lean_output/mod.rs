//! Parsers for what a stock Lean toolchain prints when asked to profile a file.
//!
//! One module per format; `fixtures/README.md` documents each format and the Lean source it was
//! derived from:
//!
//! - [`messages`]: the JSON lines of `lean --json` (one `SerialMessage` per line), plus the
//!   conversion of Lean positions (1-based line, 0-based codepoint column) to LSP UTF-16.
//! - [`trace_text`]: the text of a trace message (`[class] [seconds] text` with nested children).
//! - [`profiler_lines`]: `-Dprofiler=true` output (`… took …` lines and the
//!   `cumulative profiling times:` block).
//! - [`lean_profile`]: the Firefox Profiler JSON written by `-Dtrace.profiler.output=FILE`, as
//!   Lean's trace trees (the JSON itself is read by [`crate::firefox_profile`]).
//! - [`siblings`]: walking the trees of both, stored in pre-order.
//! - [`prefixes`], [`infoview`]: what shared copies put around that text (`-- `, `lake`'s and
//!   `lean`'s message heads, the infoview's fold markers and panel headers).
//!
//! Everything here is pure parsing: no processes, no files except what a caller hands in. Times
//! are integer nanoseconds throughout.

pub mod infoview;
pub mod lean_profile;
pub mod messages;
pub mod prefixes;
pub mod profiler_lines;
pub mod siblings;
pub mod trace_text;
