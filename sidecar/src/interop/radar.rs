//! radar's measurements (`leanprover/radar`, the benchmark service of Lean and Mathlib): JSON
//! lines `{"metric": NAME, "value": NUMBER, "unit": UNIT}`, as a bench script writes them to its
//! output file, or behind `radar::measurement=` on a line of its stdout or stderr. Its README
//! (cited in `fixtures/README.md`, "radar"): a metric measured more than once is summed, the
//! last unit wins, `unit` is optional, and names follow `metric//submetric` with `/` for levels
//! of the first part.
//!
//! Export writes a recording's (or each recording of a session's) file figure and each
//! declaration's total: `leanscope/file/PATH//time` (seconds, unit `s`) or `//heartbeats` (unit
//! `heartbeats`), and `leanscope/decl/PATH/NAME//…`. The file figure is Lean's elapsed time
//! where the recording has it, else its traced total. Import reads such lines (ours or any
//! bench script's with units `s` or `heartbeats`) as a summary of one row per metric, so
//! `compare` takes two runs' files.

use std::collections::BTreeMap;
use std::io::{BufRead, Write};

use recording::model::{declaration_times, file_time};
use recording::summary::{LeanscopeKey, Summary, SummaryKey, SummaryKind, SummaryRow};
use recording::{Measure, Recording};
use serde::Deserialize;

use super::error::{InteropError, Result};
use super::read_line_bounded;
use crate::limit;
use crate::limits::{MAX_LINE_BYTES, MAX_RADAR_METRICS};

pub const FORMAT: &str = "radar measurements";

/// What radar looks for on a line of a bench script's output.
pub const STDOUT_MARKER: &str = "radar::measurement=";

/// radar's unit for seconds.
pub const UNIT_SECONDS: &str = "s";
/// The unit leanscope writes for heartbeats.
pub const UNIT_HEARTBEATS: &str = "heartbeats";
/// The unit leanscope writes for the trace nodes of an untimed trace (no timings: `compare`
/// does not read it back).
pub const UNIT_NODES: &str = "nodes";

#[derive(Deserialize)]
struct Line {
    metric: String,
    value: f64,
    #[serde(default)]
    unit: Option<String>,
}

/// One metric, its repeated measurements summed.
#[derive(Debug, Clone, PartialEq)]
pub struct Measurement {
    pub metric: String,
    pub value: f64,
    pub unit: Option<String>,
}

/// Reads radar lines (JSON lines, or `radar::measurement=` lines among other output), summing
/// repeated metrics; the last unit wins. Lines that are neither a JSON object nor carry the
/// marker (a bench script's other output) are skipped.
pub fn read<R: BufRead>(mut input: R) -> Result<Vec<Measurement>> {
    let mut by: BTreeMap<String, (f64, Option<String>)> = BTreeMap::new();
    let mut buf = Vec::new();
    let mut number = 0u64;
    let limit = limit!(MAX_LINE_BYTES, "the line's length");
    while read_line_bounded(&mut input, &mut buf, limit, FORMAT, number + 1)? {
        number += 1;
        let text = String::from_utf8_lossy(&buf);
        let text = text.trim();
        let json = match text.find(STDOUT_MARKER) {
            Some(at) => &text[at + STDOUT_MARKER.len()..],
            None if text.starts_with('{') => text,
            None => continue,
        };
        let line: Line = serde_json::from_str(json).map_err(|e| {
            InteropError::invalid(
                FORMAT,
                format!("line {number}"),
                format!("{e} (expected {{\"metric\", \"value\", \"unit\"}})"),
            )
        })?;
        if !line.value.is_finite() {
            return Err(InteropError::invalid(
                FORMAT,
                format!("line {number}"),
                "the value is not a finite number",
            ));
        }
        if !by.contains_key(&line.metric) && by.len() >= MAX_RADAR_METRICS {
            return Err(InteropError::over(
                FORMAT,
                format!("line {number}"),
                limit!(MAX_RADAR_METRICS, "the number of metrics"),
            ));
        }
        let e = by.entry(line.metric).or_insert((0.0, None));
        e.0 += line.value;
        if line.unit.is_some() {
            e.1 = line.unit;
        }
    }
    if by.is_empty() {
        return Err(InteropError::invalid(
            FORMAT,
            "$",
            "no measurements (JSON lines {\"metric\", \"value\", \"unit\"})",
        ));
    }
    Ok(by
        .into_iter()
        .map(|(metric, (value, unit))| Measurement {
            metric,
            value,
            unit,
        })
        .collect())
}

/// The measurements as a summary: one row per metric, its value in nanoseconds (unit `s`) or
/// heartbeats (unit `heartbeats`). Other units, and a mix of the two, are refused.
pub fn to_summary(ms: &[Measurement]) -> Result<Summary> {
    let mut measure: Option<Measure> = None;
    let mut rows = Vec::with_capacity(ms.len());
    for m in ms {
        let (this, n) = match m.unit.as_deref() {
            Some(UNIT_SECONDS) => (Measure::Time, (m.value * 1e9).round()),
            Some(UNIT_HEARTBEATS) => (Measure::Heartbeats, m.value.round()),
            other => {
                return Err(InteropError::invalid(
                    FORMAT,
                    m.metric.clone(),
                    format!(
                        "unit {other:?}: compare reads seconds (`s`) and heartbeats (`heartbeats`)"
                    ),
                ))
            }
        };
        if *measure.get_or_insert(this) != this {
            return Err(InteropError::invalid(
                FORMAT,
                m.metric.clone(),
                "the file mixes seconds and heartbeats: compare one measure at a time",
            ));
        }
        if n < 0.0 || n > recording::limits::MAX_TIME_NS as f64 {
            return Err(InteropError::invalid(
                FORMAT,
                m.metric.clone(),
                format!("{} is negative or too large", m.value),
            ));
        }
        let v = n as u64;
        rows.push(SummaryRow {
            key: SummaryKey::Leanscope(LeanscopeKey::named(m.metric.clone())),
            stats: recording::model::Stats {
                count: 1,
                total_ns: v,
                self_ns: v,
                min_ns: v,
                mean_ns: v,
                median_ns: v,
                p95_ns: v,
                max_ns: v,
            },
            share_permille: 0,
            counters: None,
        });
    }
    rows.sort_by(|a, b| {
        b.stats
            .self_ns
            .cmp(&a.stats.self_ns)
            .then_with(|| a.key.label().cmp(&b.key.label()))
    });
    Ok(Summary {
        kind: SummaryKind::Leanscope,
        measure: measure.unwrap_or(Measure::Time),
        group_by: Some(recording::summary::GroupBy::Name),
        event_count: rows.len() as u64,
        thread_count: 0,
        max_depth: 0,
        trace_origin_ns: 0,
        trace_window_ns: 0,
        recorded_thread_time_ns: rows
            .iter()
            .map(|r| r.stats.self_ns)
            .fold(0, u64::saturating_add),
        dropped_events: 0,
        validation_issue_count: 0,
        validation_issues: Vec::new(),
        rows,
    })
}

/// A metric name's part: `//` cannot appear inside one (radar splits on it).
fn part(s: &str) -> String {
    s.replace("//", "/")
}

fn line<W: Write>(out: &mut W, metric: &str, value: u64, measure: Measure) -> std::io::Result<()> {
    let (sub, unit) = match measure {
        Measure::Time => ("time", UNIT_SECONDS),
        Measure::Heartbeats => ("heartbeats", UNIT_HEARTBEATS),
        Measure::Untimed => ("nodes", UNIT_NODES),
    };
    let v = serde_json::json!({
        "metric": format!("{metric}//{sub}"),
        // Seconds as a decimal of the exact nanoseconds; heartbeats as counted.
        "value": match measure {
            Measure::Time => serde_json::Value::from(value as f64 / 1e9),
            Measure::Heartbeats | Measure::Untimed => serde_json::Value::from(value),
        },
        "unit": unit,
    });
    serde_json::to_writer(&mut *out, &v)?;
    out.write_all(b"\n")
}

/// Writes one recording's radar lines: its file figure and each declaration's total.
pub fn export<W: Write>(rec: &Recording, mut out: W) -> std::io::Result<W> {
    let measure = rec.header.measure;
    let path = if rec.header.source_path.is_empty() {
        rec.header.module_name.clone()
    } else {
        rec.header.source_path.clone()
    };
    let path = part(&path);
    let ft = file_time(rec);
    line(
        &mut out,
        &format!("leanscope/file/{path}"),
        ft.elapsed_ns.unwrap_or(ft.traced_ns),
        measure,
    )?;
    for (d, t) in rec.header.declarations.iter().zip(declaration_times(rec)) {
        if let Some(t) = t {
            line(
                &mut out,
                &format!("leanscope/decl/{path}/{}", part(&d.name)),
                t.total_ns,
                measure,
            )?;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_metrics_are_summed_and_the_last_unit_wins() {
        let text = b"{\"metric\":\"a//x\",\"value\":1.5,\"unit\":\"s\"}\n\
            build ok radar::measurement={\"metric\":\"a//x\",\"value\":0.5}\n\
            noise\n{\"metric\":\"b//y\",\"value\":2}\n";
        let m = read(&text[..]).unwrap();
        assert_eq!(
            m,
            [
                Measurement {
                    metric: "a//x".into(),
                    value: 2.0,
                    unit: Some("s".into())
                },
                Measurement {
                    metric: "b//y".into(),
                    value: 2.0,
                    unit: None
                }
            ]
        );
        let e = to_summary(&m).unwrap_err().to_string();
        assert!(e.contains("b//y") && e.contains("unit None"), "{e}");
        let s = to_summary(&m[..1]).unwrap();
        assert_eq!(s.rows[0].stats.total_ns, 2_000_000_000);
    }

    #[test]
    fn bad_lines_are_named() {
        let e = read(&b"{\"metric\":\"a\"}\n"[..]).unwrap_err().to_string();
        assert!(e.contains("line 1"), "{e}");
        let e = read(&b"\n\n"[..]).unwrap_err().to_string();
        assert!(e.contains("no measurements"), "{e}");
    }
}
