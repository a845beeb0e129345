//! The library side of the `leanscope` binary: what its subcommands share
//! with tests, benchmarks and fuzz targets.

pub mod interop;
#[doc(hidden)]
pub mod swar;
