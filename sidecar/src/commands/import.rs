//! `leanscope import`: another profiler's file as a recording.

use std::path::PathBuf;

use anyhow::{Context, Result};
use leanscope::interop::{self, Format, ImportOptions};

#[derive(clap::Args)]
pub struct Args {
    /// A Chrome/Perfetto trace, Firefox profile (Lean's trace.profiler.output), Lean's
    /// per-declaration heartbeat file (`X.hb.json`, beside the `.olean`),
    /// folded stacks, or Lean's output: a `lake env lean --profile [--json]` log
    /// (stdout and stderr merged, or stdout alone) or `trace.profiler` text, also as users
    /// share it (infoview copies, comments, `lake build` logs).
    file: PathBuf,
    /// The recording to write (a session directory for `--format lake-log`).
    #[arg(long, short)]
    out: PathBuf,
    /// The input's format (detected when omitted).
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Nanoseconds per count of folded stacks.
    #[arg(long, default_value_t = 1)]
    unit_ns: u64,
    /// The Lean file a Lean log was made from: the recording embeds it and
    /// the log's positions become exact ranges in it.
    #[arg(long)]
    source: Option<PathBuf>,
    /// What the input's times count: `time`, or `heartbeats` for Lean's output of a
    /// `trace.profiler.useHeartbeats=true` run: its Firefox profile (whose "milliseconds" are
    /// heartbeats × 1000) or its trace trees as text (`[79702772.000000]`).
    #[arg(long, default_value = "time", value_parser = super::profile::parse_measure)]
    measure: recording::Measure,
}

pub fn run(a: Args) -> Result<u8> {
    let named_hb = a.file.to_string_lossy().ends_with(interop::hb_json::SUFFIX);
    if a.format == Some(Format::LakeLog) {
        let r = super::from_build::import_lake_log(&a.file, &a.out)?;
        let actions: Vec<String> = r
            .by_action
            .iter()
            .map(|(a, n)| format!("{n} {a}"))
            .collect();
        println!(
            "{}: a session of {} modules ({}){}, imported from a {}",
            a.out.display(),
            r.modules,
            actions.join(", "),
            if r.has_times { "" } else { ", with no times" },
            Format::LakeLog.name()
        );
        if r.other_jobs > 0 {
            eprintln!(
                "note: {} jobs that are not a module's were left out",
                r.other_jobs
            );
        }
        return Ok(crate::exit::OK);
    }
    if a.format == Some(Format::HbJson) || (a.format.is_none() && named_hb) {
        let w = super::from_build::import_one(&a.file, a.source.as_deref(), &a.out)
            .with_context(|| format!("cannot import {}", a.file.display()))?;
        for note in w.notes.iter().skip(1) {
            eprintln!("note: {note}");
        }
        println!(
            "{}: {} declarations ({} placed in the source), {} events, in heartbeats, imported from a {}",
            a.out.display(),
            w.owners,
            w.placed,
            w.events,
            Format::HbJson.name()
        );
        return Ok(crate::exit::OK);
    }
    let source = match &a.source {
        Some(p) => Some(
            interop::LeanSource::read(p)
                .with_context(|| format!("cannot read the source {}", p.display()))?,
        ),
        None => None,
    };
    let report = interop::import_file_measured(
        &a.file,
        a.format,
        ImportOptions { unit_ns: a.unit_ns },
        source.as_ref(),
        a.measure,
        &a.out,
    )
    .with_context(|| format!("cannot import {}", a.file.display()))?;
    for w in &report.warnings {
        eprintln!("warning: {w}");
    }
    println!(
        "{}: {} events on {} threads, imported from a {}",
        a.out.display(),
        report.events,
        report.threads,
        report.format.name()
    );
    Ok(crate::exit::OK)
}
