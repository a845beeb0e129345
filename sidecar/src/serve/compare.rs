//! `leanscope/compare`: the diff view's document for a baseline and a
//! candidate (the editor's *Compare with Baseline…*), computed exactly as
//! `leanscope view --baseline` computes it.

use std::path::PathBuf;

use recording::compare::{Metric, Tolerance};
use recording::summary::GroupBy;
use serde::Deserialize;
use serde_json::Value;
use tower_lsp_server::jsonrpc::Result;

use super::errors;
use super::uri::path_or_uri;
use crate::commands::compare::diff_document;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CompareParams {
    /// A recording, session folder, importable file or summary JSON: an
    /// absolute path or a `file://` URI.
    pub baseline: String,
    /// The same kinds as the baseline.
    pub candidate: String,
    /// `compare --metric` (default `total_ns`).
    #[serde(default)]
    pub metric: Option<String>,
    #[serde(default)]
    pub absolute_tolerance: u64,
    #[serde(default)]
    pub relative_tolerance_bps: u64,
    /// `compare --group-by` (default: declaration for sessions and
    /// recordings with declarations, else name).
    #[serde(default)]
    pub group_by: Option<String>,
}

/// The parameters, checked: paths that exist, a known metric and grouping.
pub struct Checked {
    baseline: PathBuf,
    candidate: PathBuf,
    metric: Metric,
    tolerance: Tolerance,
    group_by: Option<GroupBy>,
}

pub fn check(p: CompareParams) -> Result<Checked> {
    let path = |text: &str, what: &str| -> Result<PathBuf> {
        let path = path_or_uri(text, what).map_err(errors::invalid_params)?;
        if !path.exists() {
            return Err(errors::no_such_file(what, &path));
        }
        Ok(path)
    };
    let metric = match p.metric.as_deref() {
        None => Metric::TotalNs,
        Some(m) => Metric::parse(m).ok_or_else(|| {
            let names: Vec<&str> = Metric::ALL.iter().map(|m| m.as_str()).collect();
            errors::invalid_params(format!(
                "unknown metric `{m}`; expected one of {}",
                names.join(", ")
            ))
        })?,
    };
    let group_by = match p.group_by.as_deref() {
        None => None,
        Some(g) => Some(GroupBy::parse(g).ok_or_else(|| {
            let names: Vec<&str> = GroupBy::ALL.iter().map(|g| g.as_str()).collect();
            errors::invalid_params(format!(
                "unknown grouping `{g}`; expected one of {}",
                names.join(", ")
            ))
        })?),
    };
    Ok(Checked {
        baseline: path(&p.baseline, "the baseline")?,
        candidate: path(&p.candidate, "the candidate")?,
        metric,
        tolerance: Tolerance {
            absolute: p.absolute_tolerance,
            relative_bps: p.relative_tolerance_bps,
        },
        group_by,
    })
}

/// The document (`baseline`, `candidate`, `warnings`, `comparison`), or an
/// error naming the input that cannot be compared.
pub fn answer(c: Checked) -> Result<Value> {
    diff_document(&c.baseline, &c.candidate, c.metric, c.tolerance, c.group_by)
        .map_err(|e| errors::cannot_compare(format!("{e:#}")))
}
