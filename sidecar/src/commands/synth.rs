//! `leanscope synth`: deterministic synthetic recordings for tests and benchmarks.

use std::path::PathBuf;

use anyhow::{Context, Result};
use recording::synth::{write_synthetic, SynthParams};

#[derive(clap::Args)]
pub struct Args {
    /// Seed of the generator.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Number of events.
    #[arg(long)]
    events: u64,
    /// Number of threads (the main thread plus workers for async proofs).
    #[arg(long, default_value_t = 2)]
    threads: u32,
    /// Output file (default: synth-<seed>-<events>.lsrec in the current directory).
    #[arg(long, short)]
    out: Option<PathBuf>,
}

pub fn run(a: Args) -> Result<u8> {
    let out = a
        .out
        .unwrap_or_else(|| PathBuf::from(format!("synth-{}-{}.lsrec", a.seed, a.events)));
    let params = SynthParams {
        seed: a.seed,
        events: a.events,
        threads: a.threads,
    };
    let path = write_file(&params, &out)
        .with_context(|| format!("cannot write the synthetic recording {}", out.display()))?;
    println!("{}", path.display());
    Ok(crate::exit::OK)
}

fn write_file(params: &SynthParams, out: &std::path::Path) -> Result<PathBuf> {
    // Stream through an atomic writer so a failure leaves nothing behind.
    let (file, writer) = recording::writer::AtomicFile::create(out)?;
    let writer = write_synthetic(params, writer)?;
    Ok(file.publish(writer)?)
}
