//! `leanscope info`: what a recording holds.

use std::path::PathBuf;

use anyhow::{Context, Result};
use recording::model::{declaration_times, file_time, time_account, TimeAccount};
use recording::{Recording, Severity};
use serde_json::json;

#[derive(clap::Args)]
pub struct Args {
    /// The recording (.lsrec).
    file: PathBuf,
    /// Print JSON for scripts.
    #[arg(long)]
    json: bool,
    /// Also print the event tree: inclusive and self time, thread, source range and how it was found.
    #[arg(long)]
    tree: bool,
}

/// Declarations listed as the ones whose run grew memory most.
const TOP_GROWERS: usize = 5;

/// Validation issues printed in the text output; `--json` lists all kept.
const ISSUES_SHOWN: usize = 20;

pub fn run(a: Args) -> Result<u8> {
    let rec = Recording::open(&a.file)
        .with_context(|| format!("cannot read the recording {}", a.file.display()))?;
    let info = Info::of(&rec);
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&info.json(&rec, &a.file))?
        );
    } else {
        info.print(&rec, &a.file);
    }
    if a.tree && !a.json {
        print_tree(&rec);
    }
    Ok(crate::exit::OK)
}

/// One line per event, indented by depth, children under their parents
/// (cross-thread children too).
fn print_tree(rec: &Recording) {
    let human_ns = |v: u64| rec.header.measure.format(v);
    let roots: Vec<u32> = rec.roots().collect();
    let mut stack: Vec<(u32, usize)> = roots.into_iter().rev().map(|r| (r, 0)).collect();
    while let Some((i, d)) = stack.pop() {
        let label: String = rec
            .label(i)
            .lines()
            .next()
            .unwrap_or("")
            .chars()
            .take(60)
            .collect();
        let range = match rec.range(i) {
            Some(r) => format!(
                "{}:{}-{}:{} {}",
                r.start_line + 1,
                r.start_col,
                r.end_line + 1,
                r.end_col,
                rec.range_kind(i).as_str()
            ),
            None => "-".to_string(),
        };
        println!(
            "{:indent$}{} [{}] {} (self {}) t{} {}",
            "",
            rec.class(i),
            label,
            human_ns(rec.inclusive_ns(i)),
            human_ns(rec.self_ns(i)),
            rec.thread(i),
            range,
            indent = d * 2
        );
        stack.extend(rec.children(i).iter().rev().map(|&c| (c, d + 1)));
    }
}

impl Info {
    /// Where the file's time went, with what does not add up said.
    fn print_account(&self) {
        let a = &self.account;
        let human_ns = |v: u64| a.measure.format(v);
        if a.measure == recording::Measure::Untimed {
            // nothing to split: no time at all
            println!("timings       none: the trace was printed without `trace.profiler`; views count its trace nodes");
            for line in a.explanation() {
                println!("  {line}");
            }
            return;
        }
        let known = |ns: Option<u64>| ns.map_or_else(|| "unknown".to_string(), human_ns);
        let what = match a.measure {
            recording::Measure::Time | recording::Measure::Untimed => "time split   ",
            recording::Measure::Heartbeats => "heartbeats   ",
        };
        let total = match a.measure {
            recording::Measure::Time | recording::Measure::Untimed => "file time",
            recording::Measure::Heartbeats => "in the file",
        };
        println!(
            "{what} {} {total}: imports {}, traced elaboration {}, untraced {}{}",
            human_ns(a.file_ns),
            known(a.imports_ns),
            human_ns(a.traced_ns),
            human_ns(a.untraced_ns),
            if a.overrun_ns > 0 {
                format!(", {} over the file time", human_ns(a.overrun_ns))
            } else {
                String::new()
            }
        );
        if !a.categories.is_empty() {
            println!("  Lean's cumulative profiling times:");
        }
        for c in &a.categories {
            println!("    {:<32} {}", c.category, human_ns(c.ns));
        }
        for line in a.explanation() {
            println!("  {line}");
        }
    }
}

struct Info {
    threads_used: usize,
    max_depth: u32,
    timed_declarations: usize,
    errors: usize,
    warnings: usize,
    traced_ns: u64,
    account: TimeAccount,
}

impl Info {
    fn of(rec: &Recording) -> Info {
        let count = |s| {
            rec.header
                .diagnostics
                .iter()
                .filter(|d| d.severity == s)
                .count()
        };
        Info {
            threads_used: rec.active_thread_count(),
            max_depth: rec.max_depth(),
            timed_declarations: declaration_times(rec).iter().flatten().count(),
            errors: count(Severity::Error),
            warnings: count(Severity::Warning),
            traced_ns: file_time(rec).traced_ns,
            account: time_account(rec),
        }
    }

    fn json(&self, rec: &Recording, path: &std::path::Path) -> serde_json::Value {
        let h = &rec.header;
        json!({
            "path": path,
            "schemaVersion": h.schema_version,
            "source": {"path": h.source_path, "module": h.module_name, "sha256": h.source_sha256,
                       "lines": h.source_text.lines().count()},
            "lean": {"version": h.lean_version, "toolchain": h.toolchain},
            "measure": h.measure,
            "unit": h.measure.unit(),
            "capture": {"mode": h.capture_mode, "thresholdNs": h.threshold_ns,
                        "clock": h.clock, "clockDescription": h.clock_description,
                        "status": h.status, "createdUnixMs": h.created_unix_ms, "producer": h.producer},
            "events": rec.len(),
            "threads": h.threads,
            "threadsWithEvents": self.threads_used,
            "maxDepth": self.max_depth,
            "strings": rec.strings.len(),
            "ranges": rec.ranges.len(),
            "declarations": h.declarations.len(),
            "declarationsWithTime": self.timed_declarations,
            "diagnostics": {"total": h.diagnostics.len(), "errors": self.errors, "warnings": self.warnings},
            "elapsedNs": h.elapsed_ns,
            "tracedNs": self.traced_ns,
            "timeAccount": self.account,
            "timeAccountExplained": self.account.explanation(),
            "notes": h.notes,
            "leanArgs": h.lean_args,
            "validation": {"issueCount": rec.issue_count, "issues": rec.issues},
            "partial": h.status == recording::CaptureStatus::Stopped,
            "stop": h.stop,
            "memory": h.memory.as_ref().map(|m| json!({
                "peakBytes": m.peak_bytes,
                "peakAtNs": m.peak_at_ns,
                "samples": m.samples.len(),
                "intervalNs": m.interval_ns,
                "topGrowers": m.top_growers(TOP_GROWERS).iter().map(|c| json!({
                    "label": c.label, "range": c.range, "growthBytes": c.growth_bytes, "open": c.open,
                })).collect::<Vec<_>>(),
            })),
        })
    }

    fn print(&self, rec: &Recording, path: &std::path::Path) {
        let h = &rec.header;
        let human_ns = |v: u64| h.measure.format(v);
        let or_unknown = |s: &str| {
            if s.is_empty() {
                "unknown".to_string()
            } else {
                s.to_string()
            }
        };
        println!("recording     {}", path.display());
        println!(
            "source        {} (module {}, {} lines)",
            h.source_path,
            h.module_name,
            h.source_text.lines().count()
        );
        println!("source sha256 {}", h.source_sha256);
        println!(
            "lean          {} (toolchain {})",
            or_unknown(&h.lean_version),
            or_unknown(&h.toolchain)
        );
        println!(
            "capture       {}, threshold {}, clock {} ({})",
            h.capture_mode,
            if h.measure.is_measured() {
                human_ns(h.threshold_ns)
            } else {
                "none".to_string()
            },
            h.clock,
            h.clock_description
        );
        println!("measure       {}", h.measure.unit_name());
        if !h.lean_args.is_empty() {
            println!("lean args     {}", h.lean_args.join(" "));
        }
        println!("status        {}", h.status);
        if let Some(stop) = &h.stop {
            println!("partial       {} ({})", stop.detail, stop.reason);
            println!(
                "              the recording keeps what Lean reported in its first {:.2} s",
                stop.wall_ns as f64 / 1e9
            );
            if let Some(f) = &stop.in_flight {
                println!(
                    "in flight     {} (lines {}-{}), running for {:.2} s when Lean was stopped (unfinished)",
                    if f.declaration.is_empty() { &f.text } else { &f.declaration },
                    f.range.start_line + 1,
                    f.range.end_line + 1,
                    f.running_ns as f64 / 1e9
                );
            }
        }
        if let Some(m) = &h.memory {
            println!(
                "memory        peak {} resident at {:.2} s ({} samples every {} ms)",
                crate::capture::mebibytes(m.peak_bytes),
                m.peak_at_ns as f64 / 1e9,
                m.samples.len(),
                m.interval_ns / 1_000_000
            );
            for c in m.top_growers(TOP_GROWERS) {
                println!(
                    "  grew       +{} during {}{}",
                    crate::capture::mebibytes(c.growth_bytes),
                    c.label,
                    if c.open { " (in flight)" } else { "" }
                );
            }
        }
        println!(
            "events        {} on {} of {} threads, max depth {}",
            rec.len(),
            self.threads_used,
            h.threads.len(),
            self.max_depth
        );
        println!(
            "interned      {} strings, {} ranges",
            rec.strings.len(),
            rec.ranges.len()
        );
        println!(
            "declarations  {} ({} with recorded time)",
            h.declarations.len(),
            self.timed_declarations
        );
        println!(
            "diagnostics   {} ({} errors, {} warnings)",
            h.diagnostics.len(),
            self.errors,
            self.warnings
        );
        match h.elapsed_ns {
            _ if h.measure == recording::Measure::Untimed => println!(
                "trace nodes   {} (no timings: counted, not timed)",
                rec.len()
            ),
            _ if h.measure == recording::Measure::Heartbeats => println!(
                "heartbeats    {} traced (Lean reports no heartbeat total for a file)",
                human_ns(self.traced_ns)
            ),
            Some(e) => println!(
                "file time     {} elapsed (imports included), {} traced",
                human_ns(e),
                human_ns(self.traced_ns)
            ),
            None => println!(
                "file time     elapsed unknown, {} traced",
                human_ns(self.traced_ns)
            ),
        }
        self.print_account();
        for note in &h.notes {
            println!("note          {note}");
        }
        if rec.issue_count == 0 {
            println!("validation    no issues");
        } else {
            println!("validation    {} issues", rec.issue_count);
            for issue in rec.issues.iter().take(ISSUES_SHOWN) {
                println!("  {issue}");
            }
            if rec.issue_count > ISSUES_SHOWN as u64 {
                println!(
                    "  … and {} more (see --json)",
                    rec.issue_count - ISSUES_SHOWN as u64
                );
            }
        }
    }
}
