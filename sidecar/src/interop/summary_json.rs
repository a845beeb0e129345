//! leanscope's summary JSON (schema `schemas/summary.schema.json`): writing,
//! and strict reading (every field required, no unknown fields, integers
//! only, invariants checked; errors name the JSON path).

use std::io::{Read, Write};

use recording::model::Stats;
use recording::summary::{
    GroupBy, LeanscopeKey, Summary, SummaryIssue, SummaryKey, SummaryKind, SummaryRow,
    SUMMARY_FORMAT, SUMMARY_SCHEMA_VERSION,
};
use recording::Measure;
use serde_json::{json, Map, Value};

use super::error::{InteropError, Result};
use crate::json_stream::LimitedStrings;
use crate::limit;
use crate::limits::{MAX_JSON_STRING_BYTES, MAX_SUMMARY_BYTES};

const FORMAT: &str = "leanscope summary";

/// One row as summary JSON (fields in the order JSON objects sort them).
fn row_json(r: &SummaryRow) -> Value {
    let st = &r.stats;
    json!({
        "key": r.key,
        "calls": st.count,
        "total_ns": st.total_ns,
        "self_ns": st.self_ns,
        "min_ns": st.min_ns,
        "mean_ns": st.mean_ns,
        "median_ns": st.median_ns,
        "p95_ns": st.p95_ns,
        "max_ns": st.max_ns,
        "share_permille": r.share_permille,
    })
}

/// The rows, serialized one at a time: only one row's JSON exists at once.
struct RowsOut<'a>(&'a [SummaryRow]);

impl serde::Serialize for RowsOut<'_> {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = ser.serialize_seq(Some(self.0.len()))?;
        for r in self.0 {
            seq.serialize_element(&row_json(r))?;
        }
        seq.end()
    }
}

/// The document, its fields in sorted order (as `serde_json` writes a JSON
/// object's), with the rows streamed.
#[derive(serde::Serialize)]
struct SummaryOut<'a> {
    dropped_events: u64,
    event_count: u64,
    format: &'static str,
    group_by: Option<&'static str>,
    max_depth: u64,
    recorded_thread_time_ns: u64,
    rows: RowsOut<'a>,
    schema_version: u64,
    thread_count: u64,
    time_unit: &'static str,
    trace_origin_ns: u64,
    trace_window_ns: u64,
    validation_issue_count: u64,
    /// At most `MAX_SUMMARY_ISSUES`, as JSON objects (sorted fields).
    validation_issues: Value,
}

/// The summary's `time_unit`: `nanoseconds`, or `heartbeats` for a heartbeat recording.
fn time_unit(m: Measure) -> &'static str {
    match m {
        Measure::Time => "nanoseconds",
        Measure::Heartbeats => "heartbeats",
        Measure::Untimed => "nodes",
    }
}

fn document(s: &Summary) -> SummaryOut<'_> {
    SummaryOut {
        dropped_events: s.dropped_events,
        event_count: s.event_count,
        format: SUMMARY_FORMAT,
        group_by: s.group_by.map(GroupBy::as_str),
        max_depth: s.max_depth,
        recorded_thread_time_ns: s.recorded_thread_time_ns,
        rows: RowsOut(&s.rows),
        schema_version: SUMMARY_SCHEMA_VERSION,
        thread_count: s.thread_count,
        time_unit: time_unit(s.measure),
        trace_origin_ns: s.trace_origin_ns,
        trace_window_ns: s.trace_window_ns,
        validation_issue_count: s.validation_issue_count,
        validation_issues: json!(s.validation_issues),
    }
}

/// A summary as leanscope's summary JSON, as one tree ([`write()`] streams).
pub fn to_json(s: &Summary) -> Value {
    serde_json::to_value(document(s)).unwrap_or(Value::Null)
}

/// Writes a summary as pretty JSON, row by row: beyond the summary itself,
/// memory stays that of one row however many rows there are.
pub fn write<W: Write>(s: &Summary, out: W) -> std::io::Result<W> {
    let mut out = std::io::BufWriter::with_capacity(1 << 16, out);
    serde_json::to_writer_pretty(&mut out, &document(s)).map_err(std::io::Error::other)?;
    out.write_all(b"\n")?;
    out.flush()?;
    out.into_inner().map_err(|e| e.into_error())
}

/// Reads JSON of at most [`MAX_SUMMARY_BYTES`] with strings bounded.
pub fn read_json<R: Read>(input: R, format: &'static str) -> Result<Value> {
    let limited = LimitedStrings::new(input.take(MAX_SUMMARY_BYTES + 1), MAX_JSON_STRING_BYTES);
    let mut counting = Counting {
        inner: limited,
        n: 0,
    };
    let v: Value =
        serde_json::from_reader(std::io::BufReader::new(&mut counting)).map_err(|e| {
            if e.is_io() {
                InteropError::over(
                    format,
                    format!("line {} column {}", e.line(), e.column()),
                    limit!(MAX_JSON_STRING_BYTES, "a JSON string"),
                )
            } else {
                InteropError::syntax(
                    format,
                    format!("line {} column {}", e.line(), e.column()),
                    format!("not JSON: {e}"),
                )
            }
        })?;
    if counting.n > MAX_SUMMARY_BYTES {
        return Err(InteropError::over(
            format,
            "$",
            limit!(MAX_SUMMARY_BYTES, "the file size"),
        ));
    }
    Ok(v)
}

struct Counting<R> {
    inner: R,
    n: u64,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(out)?;
        self.n += n as u64;
        Ok(n)
    }
}

/// Path-aware strict accessors for one summary format.
pub struct Strict {
    pub format: &'static str,
}

impl Strict {
    pub fn err(&self, path: impl Into<String>, detail: impl Into<String>) -> InteropError {
        InteropError::invalid(self.format, path, detail)
    }

    /// The object at `path`, which must have exactly the `expected` fields.
    pub fn object<'v>(
        &self,
        path: &str,
        v: &'v Value,
        expected: &[&str],
    ) -> Result<&'v Map<String, Value>> {
        let obj = v
            .as_object()
            .ok_or_else(|| self.err(path, format!("expected an object, found {}", kind(v))))?;
        for key in expected {
            if !obj.contains_key(*key) {
                return Err(self.err(path, format!("required field `{key}` is missing")));
            }
        }
        for key in obj.keys() {
            if !expected.contains(&key.as_str()) {
                return Err(self.err(
                    path,
                    format!(
                        "field `{key}` is not part of {} schema version 1",
                        self.format
                    ),
                ));
            }
        }
        Ok(obj)
    }

    pub fn nat(&self, path: &str, obj: &Map<String, Value>, key: &str) -> Result<u64> {
        let v = &obj[key];
        v.as_u64().ok_or_else(|| {
            self.err(
                format!("{path}.{key}"),
                format!("expected a non-negative integer, found {}", kind(v)),
            )
        })
    }

    /// A row's statistics, the same fields in both summary formats.
    pub fn stats(&self, path: &str, obj: &Map<String, Value>) -> Result<Stats> {
        Ok(Stats {
            count: self.nat(path, obj, "calls")?,
            total_ns: self.nat(path, obj, "total_ns")?,
            self_ns: self.nat(path, obj, "self_ns")?,
            min_ns: self.nat(path, obj, "min_ns")?,
            mean_ns: self.nat(path, obj, "mean_ns")?,
            median_ns: self.nat(path, obj, "median_ns")?,
            p95_ns: self.nat(path, obj, "p95_ns")?,
            max_ns: self.nat(path, obj, "max_ns")?,
        })
    }

    pub fn int(&self, path: &str, obj: &Map<String, Value>, key: &str) -> Result<i64> {
        let v = &obj[key];
        v.as_i64().ok_or_else(|| {
            self.err(
                format!("{path}.{key}"),
                format!("expected an integer, found {}", kind(v)),
            )
        })
    }

    pub fn opt_nat(&self, path: &str, obj: &Map<String, Value>, key: &str) -> Result<Option<u64>> {
        if obj[key].is_null() {
            Ok(None)
        } else {
            self.nat(path, obj, key).map(Some)
        }
    }

    pub fn string(&self, path: &str, obj: &Map<String, Value>, key: &str) -> Result<String> {
        let v = &obj[key];
        v.as_str().map(str::to_owned).ok_or_else(|| {
            self.err(
                format!("{path}.{key}"),
                format!("expected a string, found {}", kind(v)),
            )
        })
    }

    pub fn opt_string(
        &self,
        path: &str,
        obj: &Map<String, Value>,
        key: &str,
    ) -> Result<Option<String>> {
        if obj[key].is_null() {
            Ok(None)
        } else {
            self.string(path, obj, key).map(Some)
        }
    }

    pub fn array<'v>(
        &self,
        path: &str,
        obj: &'v Map<String, Value>,
        key: &str,
    ) -> Result<&'v Vec<Value>> {
        let v = &obj[key];
        v.as_array().ok_or_else(|| {
            self.err(
                format!("{path}.{key}"),
                format!("expected an array, found {}", kind(v)),
            )
        })
    }
}

/// What a JSON value is, for messages.
pub fn kind(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(_) => "a boolean".into(),
        Value::Number(n) if n.is_f64() => format!("the number {n} (not an integer)"),
        Value::Number(n) if n.as_i64().is_some_and(|i| i < 0) => format!("the negative number {n}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!("the string {:?}", s.chars().take(40).collect::<String>()),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

const TOP: [&str; 14] = [
    "format",
    "schema_version",
    "time_unit",
    "group_by",
    "event_count",
    "thread_count",
    "max_depth",
    "trace_origin_ns",
    "trace_window_ns",
    "recorded_thread_time_ns",
    "dropped_events",
    "validation_issue_count",
    "validation_issues",
    "rows",
];

const ROW: [&str; 10] = [
    "key",
    "calls",
    "total_ns",
    "self_ns",
    "min_ns",
    "mean_ns",
    "median_ns",
    "p95_ns",
    "max_ns",
    "share_permille",
];

/// Parses leanscope summary JSON strictly.
pub fn parse(v: &Value) -> Result<Summary> {
    let s = Strict { format: FORMAT };
    let top = s.object("$", v, &TOP)?;
    let format = s.string("$", top, "format")?;
    if format != SUMMARY_FORMAT {
        return Err(s.err(
            "$.format",
            format!("expected `{SUMMARY_FORMAT}`, found `{format}`"),
        ));
    }
    let version = s.nat("$", top, "schema_version")?;
    if version != SUMMARY_SCHEMA_VERSION {
        return Err(s.err(
            "$.schema_version",
            format!("expected {SUMMARY_SCHEMA_VERSION}, found {version}"),
        ));
    }
    let unit = s.string("$", top, "time_unit")?;
    let Some(measure) = Measure::ALL.into_iter().find(|&m| time_unit(m) == unit) else {
        return Err(s.err(
            "$.time_unit",
            format!("expected `nanoseconds`, `heartbeats` or `nodes`, found `{unit}`"),
        ));
    };
    let group_by = match s.opt_string("$", top, "group_by")? {
        None => None,
        Some(g) => Some(GroupBy::parse(&g).ok_or_else(|| {
            s.err(
                "$.group_by",
                format!("unknown grouping `{g}` (name, declaration, tactic, file, class or key)"),
            )
        })?),
    };
    let mut issues = Vec::new();
    for (i, item) in s.array("$", top, "validation_issues")?.iter().enumerate() {
        let p = format!("$.validation_issues[{i}]");
        let o = s.object(&p, item, &["file", "event_index", "kind", "message"])?;
        issues.push(SummaryIssue {
            file: s.opt_string(&p, o, "file")?,
            event_index: s.opt_nat(&p, o, "event_index")?,
            kind: s.opt_string(&p, o, "kind")?,
            message: s.string(&p, o, "message")?,
        });
    }
    let mut rows = Vec::new();
    for (i, item) in s.array("$", top, "rows")?.iter().enumerate() {
        let p = format!("$.rows[{i}]");
        let o = s.object(&p, item, &ROW)?;
        let kp = format!("{p}.key");
        let k = s.object(
            &kp,
            &o["key"],
            &["name", "class", "file", "declaration", "line", "column"],
        )?;
        let narrow = |key: &str| -> Result<Option<u32>> {
            s.opt_nat(&kp, k, key)?
                .map(|n| u32::try_from(n).map_err(|_| s.err(format!("{kp}.{key}"), "too large")))
                .transpose()
        };
        let key = LeanscopeKey {
            name: s.string(&kp, k, "name")?,
            class: s.opt_string(&kp, k, "class")?.map(Into::into),
            file: s.opt_string(&kp, k, "file")?.map(Into::into),
            declaration: s.opt_string(&kp, k, "declaration")?.map(Into::into),
            line: narrow("line")?,
            column: narrow("column")?,
        };
        rows.push(SummaryRow {
            key: SummaryKey::Leanscope(key),
            stats: s.stats(&p, o)?,
            share_permille: s.nat(&p, o, "share_permille")?,
            counters: None,
        });
    }
    let summary = Summary {
        kind: SummaryKind::Leanscope,
        measure,
        group_by,
        event_count: s.nat("$", top, "event_count")?,
        thread_count: s.nat("$", top, "thread_count")?,
        max_depth: s.nat("$", top, "max_depth")?,
        trace_origin_ns: s.nat("$", top, "trace_origin_ns")?,
        trace_window_ns: s.nat("$", top, "trace_window_ns")?,
        recorded_thread_time_ns: s.nat("$", top, "recorded_thread_time_ns")?,
        dropped_events: s.nat("$", top, "dropped_events")?,
        validation_issue_count: s.nat("$", top, "validation_issue_count")?,
        validation_issues: issues,
        rows,
    };
    summary
        .check()
        .map_err(|e| InteropError::invalid(FORMAT, e.path, e.message))?;
    Ok(summary)
}
