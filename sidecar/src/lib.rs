//! The library side of the `leanscope` binary: what its subcommands share
//! with tests, benchmarks and fuzz targets.

// The Lean output parsers name this crate `leanscope::…` (as the binary does).
extern crate self as leanscope;

/// The parsers of what Lean prints (`capture/lean_output/`) and the scan of a
/// source's declarations (`capture/declarations.rs`), in the library so
/// that the capture (in the binary) and `interop`'s importers share one reader
/// per format; the binary's `capture` module re-exports them.
pub mod capture {
    pub mod declarations;
    pub mod lean_output;
    pub mod memory;
}
pub mod cpu_clock;
mod decimal;
pub mod firefox_profile;
pub mod interop;
pub mod json_stream;
pub mod limits;
#[cfg(unix)]
pub mod process_tree;
pub mod protocol;
