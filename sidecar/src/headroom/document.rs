//! The headroom document (`schemas/headroom.schema.json`, `format` `leanscope-headroom`,
//! `version` 1): what `headroom --json` writes. Limits are in thousands as `set_option` writes
//! them, heartbeats raw, shares heartbeats ÷ (limit × 1000).

use std::path::PathBuf;

use recording::headroom::{MaxHeartbeatsHeadroom, SynthInstanceHeadroom};
use serde::Serialize;

use super::{FileHeadroom, Thresholds};

pub const FORMAT: &str = "leanscope-headroom";
pub const VERSION: u32 = 1;

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Document<'a> {
    pub format: &'static str,
    pub version: u32,
    pub warn_percent: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fail_percent: Option<f64>,
    pub bump_not_needed_below: f64,
    pub files: Vec<FileJson<'a>>,
    /// Every declaration with recorded heartbeats, worst share first.
    pub declarations: Vec<Row<'a>>,
    pub counts: Counts,
    /// Some declaration is at or over `failPercent`.
    pub failed: bool,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileJson<'a> {
    pub path: &'a str,
    pub recording: &'a PathBuf,
    pub lean_version: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runs: Option<usize>,
    pub declarations: usize,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Row<'a> {
    pub file: &'a str,
    pub name: &'a str,
    pub kind: &'a str,
    /// 1-based line of the declaration's name.
    pub line: u32,
    pub max_heartbeats: &'a MaxHeartbeatsHeadroom,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub synth_instance: Option<&'a SynthInstanceHeadroom>,
    /// The larger of the two shares (absent when neither has a limit).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worst_share: Option<f64>,
    /// At or over `warnPercent`.
    pub warn: bool,
    /// At or over `failPercent`.
    pub over: bool,
}

#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Counts {
    pub declarations: usize,
    pub warned: usize,
    pub over: usize,
    pub bumps_not_needed: usize,
}

/// The document of `files` under `t`.
pub fn document<'a>(files: &'a [FileHeadroom], t: &Thresholds) -> Document<'a> {
    let mut rows: Vec<Row> = files
        .iter()
        .flat_map(|f| {
            f.declarations.iter().map(move |d| {
                let worst = [
                    d.max_heartbeats.check.share,
                    d.synth_instance.as_ref().and_then(|s| s.check.share),
                ]
                .into_iter()
                .flatten()
                .reduce(f64::max);
                Row {
                    file: &f.path,
                    name: &d.name,
                    kind: &d.kind,
                    line: d.selection_line + 1,
                    max_heartbeats: &d.max_heartbeats,
                    synth_instance: d.synth_instance.as_ref(),
                    worst_share: worst,
                    warn: worst.is_some_and(|w| w >= t.warn),
                    over: t.fail.is_some_and(|f| worst.is_some_and(|w| w >= f)),
                }
            })
        })
        .collect();
    rows.sort_by(|a, b| {
        b.worst_share
            .unwrap_or(-1.0)
            .total_cmp(&a.worst_share.unwrap_or(-1.0))
            .then_with(|| (a.file, a.line).cmp(&(b.file, b.line)))
    });
    let counts = Counts {
        declarations: rows.len(),
        warned: rows.iter().filter(|r| r.warn).count(),
        over: rows.iter().filter(|r| r.over).count(),
        bumps_not_needed: rows
            .iter()
            .filter(|r| r.max_heartbeats.bump_not_needed)
            .count(),
    };
    Document {
        format: FORMAT,
        version: VERSION,
        warn_percent: t.warn * 100.0,
        fail_percent: t.fail.map(|f| f * 100.0),
        bump_not_needed_below: t.headroom.bump_not_needed_below,
        files: files
            .iter()
            .map(|f| FileJson {
                path: &f.path,
                recording: &f.recording,
                lean_version: &f.lean_version,
                runs: f.runs,
                declarations: f.declarations.len(),
            })
            .collect(),
        failed: counts.over > 0,
        declarations: rows,
        counts,
    }
}
