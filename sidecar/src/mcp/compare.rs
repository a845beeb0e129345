//! `compare`: a candidate against a baseline (recordings, sessions, profiles or summary
//! JSON) with tolerances, by the noise-aware rule when both sides are repeated captures:
//! the document `leanscope view --baseline` and the editor's diff view show
//! (`commands::compare::diff_document`), its rows ordered by the size of the change.

use std::collections::BTreeMap;

use recording::compare::{Metric, Tolerance};
use recording::summary::GroupBy;
use serde_json::{json, Value};

use super::call::Call;
use super::resources::source;
use super::{bounds, Reply, ToolError};
use crate::commands::compare::diff_document;
pub use leanscope::protocol::mcp_tools::compare::{Params, NAME};

pub fn tool() -> rmcp::model::Tool {
    super::tool::<Params>(
        NAME,
        "Compare a candidate with a baseline (two recordings or two sessions) with tolerances: \
         regressions, improvements, new and missing rows, largest changes first. When both are \
         repeated captures (profile_file with repeat), a change counts only when it is beyond \
         the noise (spreads that separate, or a bootstrap interval of the difference of medians).",
    )
}

fn names<T>(all: &[T], name: impl Fn(&T) -> &'static str) -> String {
    all.iter().map(name).collect::<Vec<_>>().join(", ")
}

pub async fn call(call: &Call, p: Params) -> Result<Reply, ToolError> {
    let limit = bounds::limit(p.limit).map_err(ToolError::new)?;
    let metric = match p.metric.as_deref() {
        None => Metric::TotalNs,
        Some(m) => Metric::parse(m).ok_or_else(|| {
            ToolError::new(format!(
                "unknown metric {m:?}: give one of {}",
                names(&Metric::ALL, |m| m.as_str())
            ))
        })?,
    };
    let group_by = match p.group_by.as_deref() {
        None => None,
        Some(g) => Some(GroupBy::parse(g).ok_or_else(|| {
            ToolError::new(format!(
                "unknown groupBy {g:?}: give one of {}",
                names(&GroupBy::ALL, |g| g.as_str())
            ))
        })?),
    };
    let pct = p.relative_tolerance_percent;
    if !(pct.is_finite() && (0.0..=10_000.0).contains(&pct)) {
        return Err(ToolError::new(format!(
            "relativeTolerancePercent {pct} is out of range: give 0 to 10000"
        )));
    }
    let tolerance = Tolerance {
        absolute: p.absolute_tolerance,
        relative_bps: (pct * 100.0).round() as u64,
    };
    let baseline = source(&call.state, &p.baseline)?;
    let candidate = source(&call.state, &p.candidate)?;
    for (what, path) in [("baseline", &baseline), ("candidate", &candidate)] {
        if !path.exists() {
            return Err(ToolError::new(format!(
                "the {what} {} does not exist: give a recording or session that profile_file wrote (see the resource list)",
                path.display()
            )));
        }
    }
    let mut doc = tokio::task::spawn_blocking(move || {
        diff_document(&baseline, &candidate, metric, tolerance, group_by)
    })
    .await
    .map_err(|e| ToolError::new(format!("the comparison failed: {e}")))?
    .map_err(|e| ToolError::new(format!("cannot compare: {e:#}")))?;
    let summary = shorten(&mut doc["comparison"], limit);
    Ok(Reply { summary, data: doc })
}

/// Counts the matched rows by status, keeps the `limit` largest changes, and says so.
fn shorten(c: &mut Value, limit: usize) -> String {
    let mut rows = match c.get_mut("matched").map(Value::take) {
        Some(Value::Array(rows)) => rows,
        _ => Vec::new(),
    };
    let mut by_status: BTreeMap<String, u64> = BTreeMap::new();
    for r in &rows {
        *by_status
            .entry(r["status"].as_str().unwrap_or("?").to_string())
            .or_default() += 1;
    }
    let size = |r: &Value| r["delta"].as_i64().map_or(u64::MAX, i64::unsigned_abs);
    rows.sort_by_key(|r| std::cmp::Reverse(size(r)));
    let matched = rows.len();
    rows.truncate(limit);
    let mut text = format!(
        "{matched} matched rows ({}), {} new, {} missing; regression: {}.",
        by_status
            .iter()
            .map(|(s, n)| format!("{n} {s}"))
            .collect::<Vec<_>>()
            .join(", "),
        c["new"].as_array().map_or(0, Vec::len),
        c["missing"].as_array().map_or(0, Vec::len),
        c["has_regression"],
    );
    for r in rows.iter().take(5) {
        let key = super::report::one_line(r["key"].as_str().unwrap_or(""), 80);
        text.push_str(&format!(
            "\n  {} {key}: {} → {} ({})",
            r["status"].as_str().unwrap_or(""),
            r["baseline"],
            r["candidate"],
            r["delta"]
        ));
    }
    c["matched"] = json!(rows);
    c["matchedCount"] = json!(matched);
    c["statusCounts"] = json!(by_status);
    c["matchedLeftOut"] = json!(matched - c["matched"].as_array().map_or(0, Vec::len));
    text
}
