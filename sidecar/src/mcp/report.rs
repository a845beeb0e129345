//! A recording as tools report it: the file's time account, its slowest declarations,
//! tactics and lines, and its errors, each list bounded with the count left out. The
//! numbers come from `recording`'s model (the time account, the index rows `query` reads,
//! the line rows the editor shows); this file only picks and shapes them.

use std::path::Path;

use recording::model::{line_rows, time_account, LineRow};
use recording::session::{index_rows, query_rows, QueryKind, QuerySpec, SortBy};
use recording::{Measure, Recording, Severity};
use serde_json::{json, Value};

use super::resources::uri_of_recording;
use super::ToolError;
use crate::session::regular;

/// Reads a recording, or says why it cannot be read and what to do.
pub fn open(path: &Path) -> Result<Recording, ToolError> {
    if !path.is_file() {
        return Err(ToolError::new(format!(
            "{} does not exist or is not a file. Give a recording (.lsrec) that profile_file wrote, or list the resources for the ones that exist.",
            path.display()
        )));
    }
    regular::read(path)
        .map_err(recording::RecordingError::from)
        .and_then(Recording::from_file)
        .map_err(|e| {
            ToolError::new(format!(
                "{} is not a readable recording: {e}. Profile the Lean file again with profile_file.",
                path.display()
            ))
        })
}

/// The unit of the numbers in a report of `m`.
pub fn unit(m: Measure) -> &'static str {
    match m {
        Measure::Time => "ms",
        Measure::Heartbeats => "heartbeats",
        Measure::Untimed => "nodes",
    }
}

/// A raw value of `m` (nanoseconds or heartbeats) in the report's unit.
pub fn amount(m: Measure, raw: u64) -> Value {
    match m {
        Measure::Time => json!((raw as f64 / 1e3).round() / 1e3),
        Measure::Heartbeats | Measure::Untimed => json!(raw),
    }
}

/// `rows` cut to `limit`, with how many matched.
pub fn bounded(mut rows: Vec<Value>, limit: usize) -> Value {
    let matched = rows.len();
    rows.truncate(limit);
    json!({"rows": rows, "matched": matched, "leftOut": matched - rows.len()})
}

/// The whole report of a recording at `path`.
pub fn file_report(rec: &Recording, path: &Path, limit: usize) -> Value {
    let m = rec.header.measure;
    let account = time_account(rec);
    let mut categories: Vec<Value> = account
        .categories
        .iter()
        .map(|c| json!({"category": c.category, "time": amount(m, c.ns)}))
        .collect();
    categories.sort_by(|a, b| b["time"].as_f64().partial_cmp(&a["time"].as_f64()).unwrap());
    let rows = index_rows(rec, 0, 0, &rec.header.source_path);
    let query = |kind| {
        let outcome = query_rows(
            rows.iter().cloned(),
            &QuerySpec {
                kind,
                sort: SortBy::Total,
                limit: Some(limit),
                path: None,
            },
        );
        let rows: Vec<Value> = outcome
            .rows
            .iter()
            .map(|r| {
                json!({
                    "name": r.name, "declaration": r.declaration, "total": r.duration_ms,
                    "self": r.self_ms, "line": r.line, "endLine": r.end_line,
                    "attribution": r.attribution,
                })
            })
            .collect();
        json!({"rows": rows, "matched": outcome.matched,
               "leftOut": outcome.matched.saturating_sub(rows.len() as u64)})
    };
    let mut report = json!({
        "recording": path,
        "resource": uri_of_recording(path),
        "source": rec.header.source_path,
        "module": rec.header.module_name,
        "leanVersion": rec.header.lean_version,
        "status": rec.header.status,
        "measure": m.as_str(),
        "unit": unit(m),
        "account": {
            "file": amount(m, account.file_ns),
            "basis": account.basis,
            "imports": account.imports_ns.map(|v| amount(m, v)),
            "traced": amount(m, account.traced_ns),
            "untraced": amount(m, account.untraced_ns),
            "categories": bounded(categories, limit),
        },
        "declarations": query(QueryKind::Declaration),
        "tactics": query(QueryKind::Tactic),
        "lines": lines(rec, |_| true, limit),
        "errors": errors(rec, limit),
    });
    // A recording Lean did not finish, and the memory it used: only when there is something.
    if let Some(stop) = &rec.header.stop {
        report["partial"] = json!(stop);
    }
    if let Some(mem) = &rec.header.memory {
        report["memory"] = json!({
            "peakBytes": mem.peak_bytes,
            "topGrowers": mem.top_growers(limit.min(10)).iter().map(|c| json!({
                "declaration": c.label, "growthBytes": c.growth_bytes, "inFlight": c.open,
            })).collect::<Vec<_>>(),
        });
    }
    report
}

/// The slowest lines for which `keep` holds (0-based lines), with their source text.
pub fn lines(rec: &Recording, keep: impl Fn(u32) -> bool, limit: usize) -> Value {
    let m = rec.header.measure;
    let mut rows: Vec<LineRow> = line_rows(rec)
        .into_iter()
        .filter(|r| keep(r.line))
        .collect();
    rows.sort_by(|a, b| {
        b.time
            .total_ns
            .cmp(&a.time.total_ns)
            .then(a.line.cmp(&b.line))
    });
    let text: Vec<&str> = rec.header.source_text.lines().collect();
    let rows = rows
        .iter()
        .map(|r| {
            json!({
                "line": r.line + 1,
                "total": amount(m, r.time.total_ns),
                "self": amount(m, r.time.self_ns),
                "text": text.get(r.line as usize).map(|t| t.trim()),
            })
        })
        .collect();
    bounded(rows, limit)
}

/// Lean's error messages, with their lines.
pub fn errors(rec: &Recording, limit: usize) -> Value {
    let rows = rec
        .header
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| json!({"line": d.range.start_line + 1, "message": d.text}))
        .collect();
    bounded(rows, limit)
}

/// The first lines of the text summary: what was profiled and where the time went.
pub fn headline(rec: &Recording, report: &Value) -> String {
    let m = rec.header.measure;
    let account = time_account(rec);
    let mut s = format!(
        "{} ({}): {} in all, {} traced elaboration",
        rec.header.source_path,
        rec.header.lean_version,
        m.format(account.file_ns),
        m.format(account.traced_ns),
    );
    if let Some(i) = account.imports_ns {
        s.push_str(&format!(", {} imports", m.format(i)));
    }
    s.push('.');
    if let Some(stop) = &rec.header.stop {
        s.push_str(&format!(
            "\nPARTIAL: {}; the numbers are what Lean reported until then.",
            stop.detail
        ));
        if let Some(f) = &stop.in_flight {
            s.push_str(&format!(
                " In flight (unfinished): {} (line {}), running for {:.2} s.",
                if f.declaration.is_empty() {
                    &f.text
                } else {
                    &f.declaration
                },
                f.range.start_line + 1,
                f.running_ns as f64 / 1e9
            ));
        }
    }
    if let Some(mem) = &rec.header.memory {
        s.push_str(&format!(
            "\nPeak resident memory {}",
            recording::memory::format_bytes(mem.peak_bytes)
        ));
        if let Some(top) = mem.top_growers(1).first() {
            s.push_str(&format!(
                "; {} grew it most (+{})",
                top.label,
                recording::memory::format_bytes(top.growth_bytes)
            ));
        }
        s.push('.');
    }
    for (what, key) in [("declarations", "declarations"), ("tactics", "tactics")] {
        let rows = report[key]["rows"]
            .as_array()
            .map_or(&[][..], Vec::as_slice);
        let names: Vec<String> = rows
            .iter()
            .take(3)
            .map(|r| {
                format!(
                    "{} ({}, line {})",
                    one_line(r["name"].as_str().unwrap_or("?"), 80),
                    for_people(m, &r["total"]),
                    r["line"]
                )
            })
            .collect();
        if !names.is_empty() {
            s.push_str(&format!("\nSlowest {what}: {}", names.join("; ")));
        }
    }
    s
}

/// `text` on one line, at most `max` characters.
pub fn one_line(text: &str, max: usize) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &flat[..at]),
        None => flat,
    }
}

/// A value of a report (in its unit) as people read it: `14.1 ms`, `9.00 M hb`.
pub fn for_people(m: Measure, v: &Value) -> String {
    let Some(x) = v.as_f64() else {
        return "no time".into();
    };
    match m {
        Measure::Time => m.format((x * 1e6).round() as u64),
        Measure::Heartbeats | Measure::Untimed => m.format(x.round() as u64),
    }
}
