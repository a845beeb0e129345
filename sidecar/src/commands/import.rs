//! `leanscope import`: another profiler's file as a recording.

use std::path::PathBuf;

use anyhow::{Context, Result};
use leanscope::interop::{self, Format, ImportOptions};

#[derive(clap::Args)]
pub struct Args {
    /// A Chrome/Perfetto trace, Firefox profile (Lean's trace.profiler.output),
    /// folded stacks or `lean --profile` output.
    file: PathBuf,
    /// The recording to write.
    #[arg(long, short)]
    out: PathBuf,
    /// The input's format (detected when omitted).
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Nanoseconds per count of folded stacks.
    #[arg(long, default_value_t = 1)]
    unit_ns: u64,
}

pub fn run(a: Args) -> Result<u8> {
    let report = interop::import_file(
        &a.file,
        a.format,
        ImportOptions { unit_ns: a.unit_ns },
        &a.out,
    )
    .with_context(|| format!("cannot import {}", a.file.display()))?;
    println!(
        "{}: {} events on {} threads, imported from a {}",
        a.out.display(),
        report.events,
        report.threads,
        report.format.name()
    );
    Ok(crate::exit::OK)
}
