//! Hot spots in the viewer: the view models of `recording::hotspots` for one file (its
//! bottom-up table, a key's callers, callees and occurrences, the flame graph's nodes), for
//! a folder's files merged one recording at a time, and for a session's `hotspot` index
//! rows. Every number comes from `recording::hotspots`; this module only picks, filters and
//! writes rows.

use recording::hotspots::{
    HotSpots, HotSpotsBuilder, Key, SessionHotSpots, SessionKeyRow, Tree, Weight, ROOT,
};
use recording::model::{declaration_of_event, Recording};
use recording::session::IndexRow;
use serde_json::{json, Value};

use crate::file::matches_filter;
use crate::limits::{MAX_FLAME_NODES, MAX_HOT_ROWS, MAX_OCCURRENCES, MAX_SANDWICH_NODES};

/// The hot spots of a file or of merged files, with the class the flame graph shows.
pub struct HotView {
    pub all: HotSpots,
    /// The class filter applied to the tree (`HotSpots::only`), and its result.
    only: Option<(String, HotSpots)>,
}

impl HotView {
    pub fn new(all: HotSpots) -> HotView {
        HotView { all, only: None }
    }

    /// The hot spots with only class `class`'s keys ("" for all classes).
    pub fn of_class(&mut self, class: &str) -> &HotSpots {
        if class.is_empty() {
            return &self.all;
        }
        if self.only.as_ref().is_none_or(|(c, _)| c != class) {
            let hot = self.all.only(|k| k.class == class);
            self.only = Some((class.to_owned(), hot));
        }
        match &self.only {
            Some((_, hot)) => hot,
            None => &self.all,
        }
    }

    /// The bottom-up table: rows whose class is `class` ("" for all) and whose key
    /// contains `filter`, by `sort` (self or total), at most `limit`; the classes present
    /// with their self times, for the class filter.
    pub fn rows(&self, filter: &str, class: &str, sort: &str, limit: usize) -> Value {
        let hot = &self.all;
        let mut found: Vec<_> = hot
            .rows
            .iter()
            .filter(|r| {
                let k = hot.keys.get(r.key);
                (class.is_empty() || k.class == class) && matches_filter(filter, &[&k.label()])
            })
            .collect();
        if sort == "total" {
            found.sort_by(|a, b| {
                (b.total, b.self_time)
                    .cmp(&(a.total, a.self_time))
                    .then(hot.keys.get(a.key).cmp(hot.keys.get(b.key)))
            });
        }
        let matched = found.len();
        let rows: Vec<Value> = found
            .into_iter()
            .take(limit.clamp(1, MAX_HOT_ROWS))
            .map(|r| {
                let k = hot.keys.get(r.key);
                json!({
                    "key": r.key, "class": k.class, "name": k.name, "label": k.label(),
                    "totalNs": r.total, "selfNs": r.self_time, "count": r.count, "files": r.files,
                })
            })
            .collect();
        json!({
            "matched": matched,
            "keys": hot.rows.len(),
            "files": hot.files,
            "rows": rows,
            "classes": classes(hot.rows.iter().map(|r| (hot.keys.get(r.key), r.self_time))),
            "allNs": hot.tree.total(),
            "otherHolds": hot.keys.other_holds(),
        })
    }

    /// Key `key`'s sandwich: its row, its callers (weighted by total, or by self for the
    /// bottom-up tree) and its callees, each a tree of at most [`MAX_SANDWICH_NODES`].
    pub fn sandwich(&self, key: u32, weight: Weight) -> Option<Value> {
        let hot = &self.all;
        let row = hot.row(key)?;
        let k = hot.keys.get(key);
        Some(json!({
            "key": key, "class": k.class, "name": k.name, "label": k.label(),
            "totalNs": row.total, "selfNs": row.self_time, "count": row.count, "files": row.files,
            "allNs": hot.tree.total(),
            "callers": tree_json(hot, &hot.callers_weighted(key, weight)),
            "callees": tree_json(hot, &hot.callees(key)),
        }))
    }

    /// The flame graph beneath node `at` of the tree of class `class` ("" for all): the
    /// node, its ancestors and its descendants at least `min_share` of its total wide (the
    /// widest first, at most [`MAX_FLAME_NODES`]); each node as `[parent (its index in
    /// the list, -1 for the first), node id, key, total, self, count]`, flattened, with
    /// the keys' labels and classes.
    pub fn flame(&mut self, class: &str, at: u32, min_share: f64) -> Value {
        let hot = self.of_class(class);
        let tree = &hot.tree;
        let at = if (at as usize) < tree.len() { at } else { ROOT };
        let zoom_total = tree.node(at).total;
        let min = (zoom_total as f64 * min_share.clamp(0.0, 1.0)).ceil() as u64;
        let mut out: Vec<f64> = Vec::new();
        let mut keys: Vec<u32> = Vec::new();
        let mut push = |parent: i64, n: u32, out: &mut Vec<f64>| {
            let node = tree.node(n);
            if n != ROOT && !keys.contains(&node.key) {
                keys.push(node.key);
            }
            out.extend([
                parent as f64,
                f64::from(n),
                f64::from(node.key),
                node.total as f64,
                node.self_time as f64,
                node.count as f64,
            ]);
        };
        // Breadth first: the widest nodes of each depth come before narrower ones, so the
        // cap cuts the narrowest and deepest.
        let mut queue = std::collections::VecDeque::from([(at, -1i64)]);
        let mut count = 0usize;
        while let Some((n, parent)) = queue.pop_front() {
            if count >= MAX_FLAME_NODES {
                break;
            }
            let me = count as i64;
            push(parent, n, &mut out);
            count += 1;
            for &c in tree.children(n) {
                if tree.node(c).total < min.max(1) {
                    break; // children come widest first
                }
                queue.push_back((c, me));
            }
        }
        let path: Vec<Value> = ancestry(tree, at)
            .into_iter()
            .map(|n| {
                let k = hot.keys.get(tree.node(n).key);
                json!({"node": n, "label": k.label(), "totalNs": tree.node(n).total})
            })
            .collect();
        let labels: serde_json::Map<String, Value> = keys
            .iter()
            .map(|&k| {
                let key = hot.keys.get(k);
                (k.to_string(), json!([key.class, key.label()]))
            })
            .collect();
        json!({
            "at": at,
            "allNs": tree.total(),
            "nodes": out,
            "keys": labels,
            "path": path,
            "cut": count >= MAX_FLAME_NODES,
            "classes": classes(self.all.rows.iter().map(|r| (self.all.keys.get(r.key), r.self_time))),
        })
    }
}

/// The nodes from the first below the root down to `n`.
fn ancestry(tree: &Tree, n: u32) -> Vec<u32> {
    let mut out = Vec::new();
    let mut at = n;
    while at != ROOT {
        out.push(at);
        at = tree.node(at).parent;
    }
    out.reverse();
    out
}

/// The classes of `rows` with their summed self times, largest first.
fn classes<'a>(rows: impl Iterator<Item = (&'a Key, u64)>) -> Value {
    let mut by: Vec<(&str, u64)> = Vec::new();
    for (k, self_time) in rows {
        match by.iter_mut().find(|(c, _)| *c == k.class) {
            Some(e) => e.1 = e.1.saturating_add(self_time),
            None => by.push((&k.class, self_time)),
        }
    }
    by.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    json!(by
        .into_iter()
        .map(|(c, s)| json!({"class": c, "selfNs": s}))
        .collect::<Vec<_>>())
}

/// A callers' or callees' tree as nested rows, the widest first, at most
/// [`MAX_SANDWICH_NODES`] nodes (breadth first); `more` counts the children left out.
fn tree_json(hot: &HotSpots, tree: &Tree) -> Value {
    let mut budget = MAX_SANDWICH_NODES;
    // Breadth first to choose the nodes, then nested.
    let mut kept = vec![false; tree.len()];
    let mut queue = std::collections::VecDeque::from([ROOT]);
    while let Some(n) = queue.pop_front() {
        for &c in tree.children(n) {
            if budget == 0 {
                break;
            }
            budget -= 1;
            kept[c as usize] = true;
            queue.push_back(c);
        }
    }
    fn node(hot: &HotSpots, tree: &Tree, kept: &[bool], n: u32) -> Value {
        let kids = tree.children(n);
        let shown: Vec<Value> = kids
            .iter()
            .filter(|&&c| kept[c as usize])
            .map(|&c| node(hot, tree, kept, c))
            .collect();
        let more = kids.len() - shown.len();
        let x = tree.node(n);
        let k = hot.keys.get(x.key);
        json!({
            "key": x.key, "label": k.label(), "class": k.class,
            "totalNs": x.total, "selfNs": x.self_time, "count": x.count,
            "children": shown, "more": more,
        })
    }
    json!(tree
        .children(ROOT)
        .iter()
        .filter(|&&c| kept[c as usize])
        .map(|&c| node(hot, tree, &kept, c))
        .collect::<Vec<_>>())
}

/// Key `key`'s occurrences in the file: its outermost events, slowest first, at most
/// [`MAX_OCCURRENCES`], with their declaration, line and raw label.
pub fn occurrences(view: &HotView, rec: &Recording, key: u32) -> Value {
    let events = view.all.occurrences(rec, key, MAX_OCCURRENCES);
    let total = view
        .all
        .nodes_of(key)
        .iter()
        .filter(|&&n| view.all.is_outermost(n))
        .map(|&n| view.all.tree.node(n).count)
        .sum::<u64>();
    let rows: Vec<Value> = events
        .iter()
        .map(|&i| {
            let decl = declaration_of_event(rec, i);
            json!({
                "event": i,
                "label": rec.label(i).lines().next().unwrap_or(""),
                "declaration": decl.map(|d| rec.header.declarations[d].name.as_str()),
                "line": rec.range(i).map(|r| r.start_line),
                "inclusiveNs": rec.inclusive_ns(i),
                "selfNs": rec.self_ns(i),
            })
        })
        .collect();
    json!({"rows": rows, "outermostCalls": total})
}

/// A folder's files merged into one aggregate, one recording at a time.
#[derive(Default)]
pub struct Merge {
    builder: HotSpotsBuilder,
    /// The folder (path prefix) the merge is of.
    pub under: String,
}

impl Merge {
    pub fn new(under: &str) -> Merge {
        Merge {
            builder: HotSpotsBuilder::new(),
            under: under.to_owned(),
        }
    }

    /// Adds one recording's hot spots; the recording can then be dropped.
    pub fn add(&mut self, rec: &Recording) -> Result<(), String> {
        self.builder
            .add(&HotSpots::of(rec))
            .map_err(|e| e.to_string())
    }

    pub fn finish(self) -> HotView {
        HotView::new(self.builder.finish())
    }
}

/// The `hotspot` rows of a session's index, by file, for session-wide key rows.
#[derive(Default)]
pub struct SessionRows {
    rows: Vec<IndexRow>,
    /// The last aggregate asked for: its folder and its sum.
    cached: Option<(String, SessionHotSpots)>,
}

impl SessionRows {
    pub fn push(&mut self, row: IndexRow) {
        self.cached = None;
        self.rows.push(row);
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The session's keys for the files under `under` (whole path components; "" for all)
    /// whose class is `class` and whose key contains `filter`, by `sort`, at most `limit`.
    pub fn rank(
        &mut self,
        under: &str,
        filter: &str,
        class: &str,
        sort: &str,
        limit: usize,
        heartbeats: bool,
    ) -> Value {
        let under = under.trim_matches('/');
        if self.cached.as_ref().is_none_or(|(u, _)| u != under) {
            self.cached = Some((under.to_owned(), self.sum(under, heartbeats)));
        }
        let Some((_, sum)) = &self.cached else {
            return Value::Null;
        };
        let all = sum.top(sum.key_count(), sort == "total");
        let classes = classes(all.iter().map(|r| (&r.key, r.self_time)));
        let found: Vec<&SessionKeyRow> = all
            .iter()
            .filter(|r| {
                (class.is_empty() || r.key.class == class)
                    && matches_filter(filter, &[&r.key.label()])
            })
            .collect();
        let rows: Vec<Value> = found
            .iter()
            .take(limit.clamp(1, MAX_HOT_ROWS))
            .map(|r| {
                json!({
                    "class": r.key.class, "name": r.key.name, "label": r.key.label(),
                    "totalNs": r.total, "selfNs": r.self_time, "count": r.count, "files": r.files,
                    "topFiles": r.top_files.iter().map(|(p, t)| json!({"path": p, "totalNs": t})).collect::<Vec<_>>(),
                    "topDeclarations": r.top_declarations.iter().map(|(p, d, t)| json!({"path": p, "declaration": d, "totalNs": t})).collect::<Vec<_>>(),
                })
            })
            .collect();
        json!({
            "matched": found.len(),
            "keys": all.len(),
            "files": sum.files(),
            "rows": rows,
            "classes": classes,
            "otherHolds": sum.other_holds(),
        })
    }

    fn sum(&self, under: &str, heartbeats: bool) -> SessionHotSpots {
        let inside = |path: &str| {
            under.is_empty()
                || path == under
                || (path.starts_with(under) && path[under.len()..].starts_with('/'))
        };
        let mut sum = SessionHotSpots::new();
        // A file's rows were written together: each run of rows of one file is its rows.
        let mut at = 0;
        while at < self.rows.len() {
            let first = &self.rows[at];
            let end = self.rows[at..]
                .iter()
                .position(|r| r.file != first.file || r.capture != first.capture)
                .map_or(self.rows.len(), |n| at + n);
            if inside(&first.path) {
                let mut holds = 0;
                let rows: Vec<_> = self.rows[at..end]
                    .iter()
                    .filter_map(|r| r.hot_spot(heartbeats))
                    .map(|(row, h)| {
                        holds += h;
                        row
                    })
                    .collect();
                sum.add_file(&first.path, &rows, holds);
            }
            at = end;
        }
        sum
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use recording::session::index_rows;
    use recording::synth::{synthetic_bytes, SynthParams};

    fn rec(seed: u64) -> Recording {
        let bytes = synthetic_bytes(&SynthParams {
            events: 3000,
            threads: 2,
            seed,
        })
        .unwrap();
        let mut load = crate::file::RecordingLoad::new(0, bytes.len() as u64);
        load.push(&bytes).unwrap();
        load.finish(None).unwrap()
    }

    #[test]
    fn the_table_is_the_models_rows_filtered_by_class() {
        let r = rec(3);
        let hot = HotSpots::of(&r);
        let view = HotView::new(hot.clone());
        let all = view.rows("", "", "self", 10_000);
        assert_eq!(all["matched"].as_u64().unwrap() as usize, hot.rows.len());
        let first = &all["rows"][0];
        assert_eq!(first["selfNs"].as_u64().unwrap(), hot.rows[0].self_time);
        let class = all["classes"][0]["class"].as_str().unwrap().to_owned();
        let some = view.rows("", &class, "total", 10_000);
        let n = hot
            .rows
            .iter()
            .filter(|r| hot.keys.get(r.key).class == class)
            .count();
        assert_eq!(some["matched"].as_u64().unwrap() as usize, n);
        assert!(some["rows"]
            .as_array()
            .unwrap()
            .windows(2)
            .all(|w| w[0]["totalNs"].as_u64() >= w[1]["totalNs"].as_u64()));
    }

    #[test]
    fn the_flame_graph_lists_the_zoomed_node_first_and_cuts_narrow_nodes() {
        let r = rec(4);
        let mut view = HotView::new(HotSpots::of(&r));
        let f = view.flame("", ROOT, 0.0);
        let nodes = f["nodes"].as_array().unwrap();
        assert_eq!(nodes.len() / 6, view.all.tree.len());
        assert_eq!(nodes[3].as_f64().unwrap() as u64, view.all.tree.total());
        let narrow = view.flame("", ROOT, 0.2);
        assert!(narrow["nodes"].as_array().unwrap().len() < nodes.len());
        let top = view.all.tree.children(ROOT)[0];
        let zoomed = view.flame("", top, 0.0);
        assert_eq!(zoomed["nodes"][1].as_f64().unwrap() as u32, top);
        assert_eq!(zoomed["path"].as_array().unwrap().len(), 1);
    }

    #[test]
    fn session_rows_sum_the_files_under_a_folder() {
        let (a, b) = (rec(5), rec(6));
        let mut s = SessionRows::default();
        for row in index_rows(&a, 0, 1, "A/x.lean")
            .into_iter()
            .chain(index_rows(&b, 1, 1, "B/y.lean"))
        {
            if row.kind == recording::session::RowKind::HotSpot {
                s.push(row);
            }
        }
        let both = s.rank("", "", "", "self", 100_000, false);
        let only_a = s.rank("A", "", "", "self", 100_000, false);
        assert_eq!(both["files"], 2);
        assert_eq!(only_a["files"], 1);
        let hot = HotSpots::of(&a);
        let top = hot
            .rows
            .iter()
            .max_by_key(|r| (r.total, r.self_time))
            .unwrap();
        let label = hot.keys.get(top.key).label();
        let row = only_a["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["label"] == label.as_str())
            .unwrap();
        // Index rows hold milliseconds: within a nanosecond of the model's.
        assert!(row["totalNs"].as_u64().unwrap().abs_diff(top.total) <= 1);
    }
}
