//! `leanscope summary`: rows of statistics per name, declaration, tactic,
//! file or class, as a table or as summary JSON.

use std::path::PathBuf;

use anyhow::{Context, Result};
use leanscope::interop::{summary_json, Format, ImportOptions};
use recording::summary::{GroupBy, Summary};
use recording::AtomicFile;

use super::export::parse_group_by;
use super::inputs::{summarize, Input};

#[derive(clap::Args)]
pub struct Args {
    /// A recording, a session folder, an importable file, or summary JSON.
    input: PathBuf,
    /// Write summary JSON to this file (`-` for standard output).
    #[arg(long)]
    json: Option<PathBuf>,
    /// What rows are keyed by: name, declaration, tactic, file or class.
    #[arg(long, value_parser = parse_group_by)]
    group_by: Option<GroupBy>,
    /// Rows shown in the table.
    #[arg(long, default_value_t = 25)]
    limit: usize,
    /// The input's format (detected when omitted).
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Nanoseconds per count of folded stacks.
    #[arg(long, default_value_t = 1)]
    unit_ns: u64,
}

pub fn run(a: Args) -> Result<u8> {
    let input = Input::classify(&a.input, a.format)?;
    if input.is_session() && is_repeated(&a.input) {
        eprintln!(
            "leanscope: note: {} is a repeated capture; this summary reads the run committed last of each file, not the medians (`leanscope query` reports medians with their spread)",
            a.input.display()
        );
    }
    let opts = ImportOptions { unit_ns: a.unit_ns };
    let s = summarize(
        &input,
        a.group_by.unwrap_or(GroupBy::Name),
        a.group_by.is_some(),
        opts,
    )?;
    match a.json.as_deref() {
        Some(p) if p.as_os_str() == "-" => {
            drop(summary_json::write(&s, std::io::stdout().lock())?);
        }
        Some(p) => {
            let (file, w) =
                AtomicFile::create(p).with_context(|| format!("cannot create {}", p.display()))?;
            file.publish(summary_json::write(&s, w)?)?;
            print_table(&s, a.limit);
            println!("summary JSON: {}", p.display());
        }
        None => print_table(&s, a.limit),
    }
    Ok(crate::exit::OK)
}

fn print_table(s: &Summary, limit: usize) {
    let human_ns = |v: u64| s.measure.format(v);
    println!(
        "{} events on {} threads, max depth {}, window {}, recorded thread {} {}",
        s.event_count,
        s.thread_count,
        s.max_depth,
        human_ns(s.trace_window_ns),
        match s.measure {
            recording::Measure::Time => "time",
            recording::Measure::Heartbeats => "heartbeats",
        },
        human_ns(s.recorded_thread_time_ns)
    );
    if let Some(g) = s.group_by {
        println!("grouped by {g}; {} rows", s.rows.len());
    } else {
        println!("{} summary; {} rows", s.kind.as_str(), s.rows.len());
    }
    if s.dropped_events > 0 || s.validation_issue_count > 0 {
        println!(
            "incomplete: {} dropped events, {} validation issues",
            s.dropped_events, s.validation_issue_count
        );
    }
    println!(
        "{:>9} {:>6} {:>10} {:>10} {:>10} {:>10} {:>10}  key",
        "self", "share", "total", "calls", "mean", "p95", "max"
    );
    for r in s.rows.iter().take(limit) {
        let st = &r.stats;
        println!(
            "{:>9} {:>5.1}% {:>10} {:>10} {:>10} {:>10} {:>10}  {}",
            human_ns(st.self_ns),
            r.share_permille as f64 / 10.0,
            human_ns(st.total_ns),
            st.count,
            human_ns(st.mean_ns),
            human_ns(st.p95_ns),
            human_ns(st.max_ns),
            r.key.label()
        );
    }
    if s.rows.len() > limit {
        println!("… and {} more rows (see --json)", s.rows.len() - limit);
    }
}

/// True when `dir` is a session of a repeated capture (`profile --repeat`).
fn is_repeated(dir: &std::path::Path) -> bool {
    crate::session::committed::CommittedSession::open(dir)
        .is_ok_and(|s| s.manifest.repeats.is_some())
}
