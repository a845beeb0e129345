//! The hot-spots document (`schemas/hot-spots.schema.json`, `format`
//! `leanscope-hot-spots`, `version` 1): what `top --json` writes and `leanscope/hotSpots`
//! answers. Values are integers of the measure's unit (`ns`, or `heartbeats`).

use std::path::PathBuf;

use recording::hotspots::{HotSpots, Key, SessionHotSpots, SessionKeyRow, Tree, Weight, ROOT};
use recording::Measure;
use serde::Serialize;

use super::key_path;
use super::TopSpec;
use leanscope::limits::MAX_HOT_SPOT_DEPTH_SHOWN;

pub const FORMAT: &str = "leanscope-hot-spots";
pub const VERSION: u32 = 1;

/// What the source said about itself.
pub struct Facts {
    pub source: PathBuf,
    /// `recording`, `imported` or `session`.
    pub source_kind: &'static str,
    pub measure: Measure,
    /// Files read from their recordings instead of the index.
    pub from_recordings: u64,
    pub warnings: Vec<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Document {
    pub format: &'static str,
    pub version: u32,
    pub source: PathBuf,
    pub source_kind: &'static str,
    pub measure: Measure,
    pub unit: &'static str,
    pub by: &'static str,
    pub sort: &'static str,
    pub limit: usize,
    pub classes: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub folder: Option<String>,
    /// Files added up.
    pub files: u64,
    /// Of them, files read from their recordings (not from index rows).
    pub from_recordings: u64,
    /// Keys the class filter keeps (the `(other)` key aside).
    pub keys: u64,
    /// All the work: the sum of every key's self (before the class filter).
    pub work: u64,
    pub rows: Vec<Row>,
    /// Kept keys past `limit`, not in `rows`.
    pub more: u64,
    /// The `(other)` key: keys past the limits of distinct keys, summed.
    pub other: Option<OtherRow>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tree: Option<TreeDoc>,
    pub warnings: Vec<String>,
}

#[derive(Debug, Serialize, PartialEq, Eq)]
pub struct KeyDoc {
    pub class: String,
    pub name: String,
    pub label: String,
}

impl KeyDoc {
    fn of(k: &Key) -> KeyDoc {
        KeyDoc {
            class: k.class.clone(),
            name: k.name.clone(),
            label: k.label(),
        }
    }
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Row {
    pub key: KeyDoc,
    pub total: u64,
    #[serde(rename = "self")]
    pub self_time: u64,
    /// `self` over `work`.
    pub share: f64,
    pub count: u64,
    pub files: u64,
    pub top_files: Vec<TopFile>,
    pub top_declarations: Vec<TopDeclaration>,
}

#[derive(Debug, Serialize)]
pub struct TopFile {
    pub path: String,
    pub total: u64,
}

#[derive(Debug, Serialize)]
pub struct TopDeclaration {
    pub path: String,
    pub declaration: String,
    pub total: u64,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OtherRow {
    pub total: u64,
    #[serde(rename = "self")]
    pub self_time: u64,
    pub count: u64,
    pub files: u64,
    /// How many keys it sums.
    pub holds: u64,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TreeDoc {
    /// The bottom-up tree (a key, then its callers) instead of the call tree.
    pub inverted: bool,
    /// The keys of `--path`, resolved (empty: from the top).
    pub path: Vec<KeyDoc>,
    /// The whole tree's work.
    pub total: u64,
    pub nodes: Vec<NodeDoc>,
    /// Top nodes past `limit`, not shown.
    pub hidden: u64,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeDoc {
    pub key: KeyDoc,
    pub total: u64,
    #[serde(rename = "self")]
    pub self_time: u64,
    pub count: u64,
    pub children: Vec<NodeDoc>,
    /// Children past `limit` or below `depth`, not shown.
    pub hidden: u64,
}

/// The document of `table` (and of `hot`'s trees when asked).
pub fn build(
    facts: Facts,
    table: &SessionHotSpots,
    hot: Option<&HotSpots>,
    spec: &TopSpec,
) -> Result<Document, String> {
    let keep = |k: &Key| spec.keeps(k) && !k.is_other();
    let rows = table.top_matching(spec.limit, spec.by_total, keep);
    let keys = table.count_matching(keep) as u64;
    let work = table.self_sum();
    let other = table
        .other()
        .filter(|_| spec.classes.is_empty())
        .map(|o| OtherRow {
            total: o.total,
            self_time: o.self_time,
            count: o.count,
            files: o.files,
            holds: table.other_holds(),
        });
    let tree = match hot {
        Some(hot) => Some(tree_doc(hot, &rows, spec)?),
        None => None,
    };
    Ok(Document {
        format: FORMAT,
        version: VERSION,
        source: facts.source,
        source_kind: facts.source_kind,
        measure: facts.measure,
        unit: facts.measure.unit(),
        by: spec.by.as_str(),
        sort: if spec.by_total { "total" } else { "self" },
        limit: spec.limit,
        classes: spec.classes.clone(),
        folder: spec.folder.clone(),
        files: table.files(),
        from_recordings: facts.from_recordings,
        keys,
        work,
        more: keys.saturating_sub(rows.len() as u64),
        rows: rows.into_iter().map(|r| row(r, work)).collect(),
        other,
        tree,
        warnings: facts.warnings,
    })
}

fn row(r: SessionKeyRow, work: u64) -> Row {
    Row {
        key: KeyDoc::of(&r.key),
        total: r.total,
        self_time: r.self_time,
        share: if work == 0 {
            0.0
        } else {
            r.self_time as f64 / work as f64
        },
        count: r.count,
        files: r.files,
        top_files: r
            .top_files
            .into_iter()
            .map(|(path, total)| TopFile { path, total })
            .collect(),
        top_declarations: r
            .top_declarations
            .into_iter()
            .map(|(path, declaration, total)| TopDeclaration {
                path,
                declaration,
                total,
            })
            .collect(),
    }
}

/// The call tree (or the bottom-up tree of the table's keys), from `--path` down.
fn tree_doc(hot: &HotSpots, rows: &[SessionKeyRow], spec: &TopSpec) -> Result<TreeDoc, String> {
    let filtered;
    let hot = if spec.classes.is_empty() {
        hot
    } else {
        filtered = hot.only(|k| spec.keeps(k));
        &filtered
    };
    let total = hot.tree.total();
    if !spec.inverted {
        let (tops, path): (Vec<u32>, Vec<KeyDoc>) = match &spec.path {
            None => (hot.tree.children(ROOT).to_vec(), Vec::new()),
            Some(p) => {
                let n = key_path::find(&hot.tree, &hot.keys, ROOT, p)?;
                let path = hot.tree.path(n);
                (vec![n], keys_doc(hot, &path))
            }
        };
        return Ok(forest(hot, &hot.tree, &tops, path, false, total, spec));
    }
    // Bottom-up: each key's callers, weighted by its self time.
    match &spec.path {
        None => {
            let mut nodes = Vec::new();
            for r in rows {
                let Some(k) = hot.keys.find(&r.key) else {
                    continue;
                };
                let callers = hot.callers_weighted(k, Weight::Self_);
                let tops = callers.children(ROOT).to_vec();
                nodes.extend(forest(hot, &callers, &tops, Vec::new(), true, total, spec).nodes);
            }
            let hidden = (hot
                .rows
                .iter()
                .filter(|r| spec.keeps(hot.keys.get(r.key)))
                .count() as u64)
                .saturating_sub(nodes.len() as u64);
            Ok(TreeDoc {
                inverted: true,
                path: Vec::new(),
                total,
                nodes,
                hidden,
            })
        }
        Some(p) => {
            let (k, rest) = key_path::first_key(&hot.keys, p)?;
            if hot.row(k).is_none() {
                return Err(format!(
                    "{} does not occur in the tree",
                    hot.keys.get(k).label()
                ));
            }
            let callers = hot.callers_weighted(k, Weight::Self_);
            let top = callers.children(ROOT)[0];
            let n = if rest.is_empty() {
                top
            } else {
                key_path::find(&callers, &hot.keys, top, rest)?
            };
            let path = callers.path(n);
            Ok(forest(
                hot,
                &callers,
                &[n],
                keys_doc(hot, &path),
                true,
                total,
                spec,
            ))
        }
    }
}

fn keys_doc(hot: &HotSpots, path: &[u32]) -> Vec<KeyDoc> {
    path.iter().map(|&k| KeyDoc::of(hot.keys.get(k))).collect()
}

/// The nodes `tops` of `tree` and beneath them, at most `limit` children per node and
/// `depth` levels.
fn forest(
    hot: &HotSpots,
    tree: &Tree,
    tops: &[u32],
    path: Vec<KeyDoc>,
    inverted: bool,
    total: u64,
    spec: &TopSpec,
) -> TreeDoc {
    let shown = &tops[..tops.len().min(spec.limit)];
    let depth = spec.depth.min(MAX_HOT_SPOT_DEPTH_SHOWN);
    TreeDoc {
        inverted,
        path,
        total,
        nodes: shown
            .iter()
            .map(|&n| node(hot, tree, n, depth, spec.limit))
            .collect(),
        hidden: (tops.len() - shown.len()) as u64,
    }
}

fn node(hot: &HotSpots, tree: &Tree, n: u32, depth: usize, limit: usize) -> NodeDoc {
    let x = tree.node(n);
    let kids = tree.children(n);
    let shown = if depth == 0 {
        &[][..]
    } else {
        &kids[..kids.len().min(limit)]
    };
    NodeDoc {
        key: KeyDoc::of(hot.keys.get(x.key)),
        total: x.total,
        self_time: x.self_time,
        count: x.count,
        children: shown
            .iter()
            .map(|&c| node(hot, tree, c, depth - 1, limit))
            .collect(),
        hidden: (kids.len() - shown.len()) as u64,
    }
}
