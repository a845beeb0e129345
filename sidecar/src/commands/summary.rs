//! `leanscope summary`: rows of statistics per name, declaration, tactic,
//! file or class, as a table or as summary JSON.

use std::path::PathBuf;

use anyhow::{Context, Result};
use leanscope::interop::{summary_json, Format, ImportOptions};
use recording::summary::repeated::repeated_rows;
use recording::summary::{GroupBy, Summary};
use recording::AtomicFile;
use serde_json::json;

use super::export::parse_group_by;
use super::inputs::{repeated_session, run_summaries, summarize, Input};
use crate::session::committed::CommittedSession;

#[derive(clap::Args)]
pub struct Args {
    /// A recording, a session folder, an importable file, or summary JSON.
    input: PathBuf,
    /// Write summary JSON to this file (`-` for standard output); of a
    /// repeated capture, its medians and spreads
    /// (`schemas/summary-repeated.schema.json`).
    #[arg(long)]
    json: Option<PathBuf>,
    /// What rows are keyed by: name, declaration, tactic, file, class or key
    /// (the hot-spot key: docs/hot-spots.md).
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
    if input.is_session() {
        if let Some(session) = repeated_session(&a.input) {
            return repeated(&session, &a);
        }
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
            recording::Measure::Untimed => "trace nodes (no timings)",
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

/// `summary` of a repeated capture: one summary per run (run r: every
/// file's r-th run), then per row the medians over the runs with their
/// spread (`recording::summary::repeated`), as a table.
fn repeated(session: &CommittedSession, a: &Args) -> Result<u8> {
    let group_by = a.group_by.unwrap_or(GroupBy::Name);
    let runs = session.manifest.repeats.map_or(0, |r| r.runs);
    let summaries = run_summaries(session, group_by)?;
    let measure = summaries.first().map(|s| s.measure);
    let measure = measure.unwrap_or_default();
    let rows = repeated_rows(&summaries);
    let doc = || {
        json!({
            "format": "leanscope-summary-repeated",
            "schema_version": REPEATED_SUMMARY_SCHEMA_VERSION,
            "measure": measure.as_str(),
            "group_by": group_by.to_string(),
            "runs": summaries.len(),
            "planned_runs": runs,
            "rows": rows.iter().map(|r| json!({
                "key": r.key, "calls": r.calls, "total_ns": r.total_ns, "self_ns": r.self_ns,
            })).collect::<Vec<_>>(),
        })
    };
    match a.json.as_deref() {
        Some(p) if p.as_os_str() == "-" => {
            println!("{}", serde_json::to_string_pretty(&doc())?);
            return Ok(crate::exit::OK);
        }
        Some(p) => {
            let (file, mut w) =
                AtomicFile::create(p).with_context(|| format!("cannot create {}", p.display()))?;
            serde_json::to_writer_pretty(&mut w, &doc())?;
            std::io::Write::write_all(&mut w, b"\n")?;
            file.publish(w)?;
        }
        None => {}
    }
    let human = |v: f64| measure.format(v.round() as u64);
    println!(
        "repeated capture: {} runs with rows ({} per file planned); medians over the runs, grouped by {group_by}; {} rows",
        summaries.len(),
        runs,
        rows.len()
    );
    println!(
        "{:>10} {:>21} {:>21} {:>10} {:>8}  key",
        "self", "self min-max", "self q1-q3", "total", "calls"
    );
    for r in rows.iter().take(a.limit) {
        let range = |x: f64, y: f64| format!("{}-{}", human(x), human(y));
        println!(
            "{:>10} {:>21} {:>21} {:>10} {:>8}  {}",
            human(r.self_ns.median),
            range(r.self_ns.min, r.self_ns.max),
            match (r.self_ns.q1, r.self_ns.q3) {
                (Some(q1), Some(q3)) => range(q1, q3),
                _ => "-".to_string(),
            },
            human(r.total_ns.median),
            r.calls.median,
            r.key.label()
        );
    }
    if rows.len() > a.limit {
        println!("… and {} more rows", rows.len() - a.limit);
    }
    if let Some(p) = &a.json {
        println!("summary JSON: {}", p.display());
    }
    Ok(crate::exit::OK)
}

/// The version of `leanscope-summary-repeated` documents
/// (`schemas/summary-repeated.schema.json`).
pub const REPEATED_SUMMARY_SCHEMA_VERSION: u32 = 1;
