//! LeanProfiler's summary JSON, schema version 1, read strictly: every
//! field its writer emits is required, unknown fields are rejected, numbers
//! must be JSON integers, the units must be `nanoseconds` on a `monotonic`
//! clock, and the invariants LeanProfiler itself checks must hold (row
//! statistics, unique keys, retained event timings forming the prefix
//! `0..n`, rows adding up to the timings, shares, event limits). Errors
//! name the JSON path of the offending value.

use recording::summary::{
    LeanProfilerCounters, LeanProfilerKey, Summary, SummaryIssue, SummaryKey, SummaryKind,
    SummaryRow,
};
use serde_json::Value;

use super::error::{InteropError, Result};
use super::summary_json::Strict;

const FORMAT: &str = "LeanProfiler summary";

const TOP: [&str; 16] = [
    "schema_version",
    "clock",
    "time_unit",
    "event_count",
    "thread_count",
    "max_depth",
    "trace_origin_ns",
    "trace_window_ns",
    "recorded_thread_time_ns",
    "recorded_heartbeats",
    "event_limit",
    "dropped_events",
    "process_resources",
    "validation_issues",
    "event_timings",
    "rows",
];

const ROW: [&str; 15] = [
    "key",
    "calls",
    "self_ns",
    "total_ns",
    "self_heartbeats",
    "total_heartbeats",
    "min_ns",
    "mean_ns",
    "median_ns",
    "p95_ns",
    "max_ns",
    "share_permille",
    "alloc_bytes",
    "peak_live_bytes",
    "alloc_delta_bytes",
];

const KEY: [&str; 7] = [
    "name", "phase", "activity", "backend", "dtype", "device", "module",
];

const TIMING: [&str; 5] = [
    "event_index",
    "inclusive_ns",
    "self_ns",
    "inclusive_heartbeats",
    "self_heartbeats",
];

const PROCESS: [&str; 10] = [
    "user_cpu_ms",
    "system_cpu_ms",
    "peak_resident_set_size_kb",
    "peak_resident_set_increase_kb",
    "minor_page_faults",
    "major_page_faults",
    "block_input_ops",
    "block_output_ops",
    "voluntary_context_switches",
    "involuntary_context_switches",
];

/// Parses a LeanProfiler summary strictly.
pub fn parse(v: &Value) -> Result<Summary> {
    let s = Strict { format: FORMAT };
    let top = s.object("$", v, &TOP)?;
    let version = s.nat("$", top, "schema_version")?;
    if version != 1 {
        return Err(s.err("$.schema_version", format!("expected 1, found {version}")));
    }
    let clock = s.string("$", top, "clock")?;
    if clock != "monotonic" {
        return Err(s.err("$.clock", format!("expected `monotonic`, found `{clock}`")));
    }
    let unit = s.string("$", top, "time_unit")?;
    if unit != "nanoseconds" {
        return Err(s.err(
            "$.time_unit",
            format!("expected `nanoseconds`, found `{unit}`"),
        ));
    }
    let event_count = s.nat("$", top, "event_count")?;
    // Retained event timings: the prefix 0..n, self within inclusive.
    let timings = s.array("$", top, "event_timings")?;
    if timings.len() as u64 != event_count {
        return Err(s.err(
            "$.event_count",
            format!(
                "found {event_count}, but event_timings has {} entries",
                timings.len()
            ),
        ));
    }
    let (mut t_total, mut t_self, mut t_hb_total, mut t_hb_self) = (0u128, 0u128, 0u128, 0u128);
    for (i, item) in timings.iter().enumerate() {
        let p = format!("$.event_timings[{i}]");
        let o = s.object(&p, item, &TIMING)?;
        let index = s.nat(&p, o, "event_index")?;
        if index != i as u64 {
            return Err(s.err(
                format!("{p}.event_index"),
                format!("expected retained prefix index {i}, found {index}"),
            ));
        }
        let (inc, sel) = (s.nat(&p, o, "inclusive_ns")?, s.nat(&p, o, "self_ns")?);
        let (hinc, hsel) = (
            s.nat(&p, o, "inclusive_heartbeats")?,
            s.nat(&p, o, "self_heartbeats")?,
        );
        if sel > inc {
            return Err(s.err(&p, "self_ns exceeds inclusive_ns"));
        }
        if hsel > hinc {
            return Err(s.err(&p, "self_heartbeats exceeds inclusive_heartbeats"));
        }
        t_total += u128::from(inc);
        t_self += u128::from(sel);
        t_hb_total += u128::from(hinc);
        t_hb_self += u128::from(hsel);
    }
    let mut rows = Vec::new();
    for (i, item) in s.array("$", top, "rows")?.iter().enumerate() {
        let p = format!("$.rows[{i}]");
        let o = s.object(&p, item, &ROW)?;
        let kp = format!("{p}.key");
        let k = s.object(&kp, &o["key"], &KEY)?;
        let key = LeanProfilerKey {
            name: s.string(&kp, k, "name")?,
            phase: s.opt_string(&kp, k, "phase")?,
            activity: s.opt_string(&kp, k, "activity")?,
            backend: s.opt_string(&kp, k, "backend")?,
            dtype: s.opt_string(&kp, k, "dtype")?,
            device: s.opt_string(&kp, k, "device")?,
            module: s.opt_string(&kp, k, "module")?,
        };
        rows.push(SummaryRow {
            key: SummaryKey::LeanProfiler(Box::new(key)),
            stats: s.stats(&p, o)?,
            share_permille: s.nat(&p, o, "share_permille")?,
            counters: Some(Box::new(LeanProfilerCounters {
                total_heartbeats: s.nat(&p, o, "total_heartbeats")?,
                self_heartbeats: s.nat(&p, o, "self_heartbeats")?,
                alloc_bytes: s.nat(&p, o, "alloc_bytes")?,
                peak_live_bytes: s.nat(&p, o, "peak_live_bytes")?,
                alloc_delta_bytes: s.int(&p, o, "alloc_delta_bytes")?,
            })),
        });
    }
    let mut issues = Vec::new();
    for (i, item) in s.array("$", top, "validation_issues")?.iter().enumerate() {
        let p = format!("$.validation_issues[{i}]");
        let o = s.object(&p, item, &["event_index", "message"])?;
        issues.push(SummaryIssue {
            file: None,
            event_index: s.opt_nat(&p, o, "event_index")?,
            kind: None,
            message: s.string(&p, o, "message")?,
        });
    }
    let event_limit = s.opt_nat("$", top, "event_limit")?;
    let dropped = s.nat("$", top, "dropped_events")?;
    match event_limit {
        None if dropped != 0 => {
            return Err(s.err(
                "$.dropped_events",
                "events cannot be dropped when event_limit is null",
            ))
        }
        Some(limit) if event_count > limit => {
            return Err(s.err(
                "$.event_count",
                format!("retained event count {event_count} exceeds event_limit {limit}"),
            ))
        }
        Some(limit) if dropped > 0 && event_count != limit => {
            return Err(s.err(
                "$.dropped_events",
                format!(
                    "a truncated capture must retain exactly event_limit ({limit}) events, found {event_count}"
                ),
            ))
        }
        _ => {}
    }
    let process = &top["process_resources"];
    if !process.is_null() {
        let p = "$.process_resources";
        let o = s.object(p, process, &PROCESS)?;
        for key in PROCESS {
            s.nat(p, o, key)?;
        }
        let (peak, increase) = (
            s.nat(p, o, "peak_resident_set_size_kb")?,
            s.nat(p, o, "peak_resident_set_increase_kb")?,
        );
        if increase > peak {
            return Err(s.err(
                format!("{p}.peak_resident_set_increase_kb"),
                format!("increase {increase} exceeds peak resident set size {peak}"),
            ));
        }
    }
    let recorded = s.nat("$", top, "recorded_thread_time_ns")?;
    let recorded_hb = s.nat("$", top, "recorded_heartbeats")?;
    let sum = |f: fn(&SummaryRow) -> u64| rows.iter().fold(0u128, |a, r| a + u128::from(f(r)));
    let checks = [
        (
            "total_ns",
            sum(|r| r.stats.total_ns),
            t_total,
            "event timing total",
        ),
        (
            "self_ns",
            sum(|r| r.stats.self_ns),
            t_self,
            "event timing self total",
        ),
        (
            "total_heartbeats",
            sum(|r| r.counters.as_ref().map_or(0, |c| c.total_heartbeats)),
            t_hb_total,
            "event timing heartbeat total",
        ),
        (
            "self_heartbeats",
            sum(|r| r.counters.as_ref().map_or(0, |c| c.self_heartbeats)),
            t_hb_self,
            "event timing self heartbeat total",
        ),
    ];
    for (field, rows_sum, timing_sum, what) in checks {
        if rows_sum != timing_sum {
            return Err(s.err(
                "$.rows",
                format!("{field} sum {rows_sum} does not match the {what} {timing_sum}"),
            ));
        }
    }
    if u128::from(recorded) != t_self {
        return Err(s.err(
            "$.recorded_thread_time_ns",
            format!("found {recorded}, expected {t_self} from event self times"),
        ));
    }
    if u128::from(recorded_hb) != t_hb_self {
        return Err(s.err(
            "$.recorded_heartbeats",
            format!("found {recorded_hb}, expected {t_hb_self} from event self heartbeats"),
        ));
    }
    let max_depth = s.nat("$", top, "max_depth")?;
    let thread_count = s.nat("$", top, "thread_count")?;
    let origin = s.nat("$", top, "trace_origin_ns")?;
    let window = s.nat("$", top, "trace_window_ns")?;
    if event_count == 0 && (max_depth != 0 || origin != 0) {
        return Err(s.err(
            "$.max_depth",
            "an empty capture must have depth zero and origin zero",
        ));
    }
    if event_count > 0 && max_depth >= event_count {
        return Err(s.err(
            "$.max_depth",
            format!("depth {max_depth} cannot be reached by {event_count} retained event(s)"),
        ));
    }
    let summary = Summary {
        kind: SummaryKind::LeanProfiler,
        measure: recording::Measure::Time,
        group_by: None,
        event_count,
        thread_count,
        max_depth,
        trace_origin_ns: origin,
        trace_window_ns: window,
        recorded_thread_time_ns: recorded,
        dropped_events: dropped,
        validation_issue_count: issues.len() as u64,
        validation_issues: issues,
        rows,
    };
    summary
        .check()
        .map_err(|e| InteropError::invalid(FORMAT, e.path, e.message))?;
    Ok(summary)
}
