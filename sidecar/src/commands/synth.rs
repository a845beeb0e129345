//! `leanscope synth`: deterministic synthetic recordings (and sessions) for
//! tests and benchmarks.

use std::path::PathBuf;

use anyhow::{Context, Result};
use recording::synth::{write_synthetic, SynthParams};

#[derive(clap::Args)]
pub struct Args {
    /// Seed of the generator.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Number of events.
    #[arg(long, required_unless_present = "session")]
    events: Option<u64>,
    /// Number of threads (the main thread plus workers for async proofs).
    #[arg(long, default_value_t = 2)]
    threads: u32,
    /// Output file (default: synth-<seed>-<events>.lsrec in the current directory).
    #[arg(long, short)]
    out: Option<PathBuf>,
    /// Write a synthetic session (manifest and index, no recordings) into this new directory
    /// instead of a recording; --files and --rows size it. Written beside it and renamed into
    /// place: a failure leaves no session; an existing non-empty directory is refused.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["events", "out"])]
    session: Option<PathBuf>,
    /// Files of a synthetic session.
    #[arg(long, default_value_t = 10_000, requires = "session")]
    files: u32,
    /// Index rows of a synthetic session.
    #[arg(long, default_value_t = 1_000_000, requires = "session")]
    rows: u64,
    /// `hotspot` index rows per file of a synthetic session, besides --rows (0: none, as
    /// in sessions written before them).
    #[arg(long, default_value_t = 0, requires = "session")]
    hot_spots: u32,
}

pub fn run(a: Args) -> Result<u8> {
    if let Some(dir) = &a.session {
        crate::session::staged_dir::refuse_non_empty(dir)?;
        let staged = crate::session::staged_dir::stage_beside(dir)?;
        let p = recording::session::synth::SessionSynthParams {
            seed: a.seed,
            files: a.files,
            rows: a.rows,
            hot_spots: a.hot_spots,
        };
        recording::session::synth::write_synthetic_session(&p, staged.path())
            .with_context(|| format!("cannot write the synthetic session {}", dir.display()))?;
        crate::session::staged_dir::publish(staged, dir)?;
        println!("{}", dir.display());
        return Ok(crate::exit::OK);
    }
    let events = a.events.unwrap_or_default();
    let out = a
        .out
        .unwrap_or_else(|| PathBuf::from(format!("synth-{}-{}.lsrec", a.seed, events)));
    let params = SynthParams {
        seed: a.seed,
        events,
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
