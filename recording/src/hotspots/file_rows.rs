//! A file's hot spots as rows for a session's index: per key its total, self and count,
//! and the declaration where most of its total lies. Written at capture time so that a
//! session aggregates by key without opening its recordings.

use super::{HotSpots, Key, OTHER};
use crate::limits::MAX_FILE_HOT_SPOTS;
use crate::model::{DeclarationIndex, Recording};

/// One key of one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileKeyRow {
    pub key: Key,
    pub total: u64,
    pub self_time: u64,
    pub count: u64,
    /// The declaration holding most of the key's total in this file, and that part of it.
    pub declaration: Option<(String, u64)>,
}

/// A file's rows, at most [`MAX_FILE_HOT_SPOTS`] keys by descending total; the rest are
/// summed in one `(other)` row.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FileHotSpots {
    pub rows: Vec<FileKeyRow>,
    /// How many keys the `(other)` row holds (0 when there is none).
    pub other_holds: u64,
}

/// The index rows of recording `rec`, whose hot spots are `hot`.
pub fn file_rows(rec: &Recording, hot: &HotSpots) -> FileHotSpots {
    file_rows_with_limit(rec, hot, MAX_FILE_HOT_SPOTS)
}

/// [`file_rows`] with another limit of rows (`usize::MAX`: every key, no `(other)` row
/// but the table's own).
pub fn file_rows_with_limit(rec: &Recording, hot: &HotSpots, limit: usize) -> FileHotSpots {
    // Each event's total (self plus its children's totals), children after parents.
    let n = rec.len();
    let mut event_total: Vec<u64> = (0..n as u32).map(|i| rec.self_ns(i)).collect();
    for i in (0..n).rev() {
        if let Some(p) = rec.parent(i as u32) {
            event_total[p as usize] = event_total[p as usize].saturating_add(event_total[i]);
        }
    }
    let decls = DeclarationIndex::new(rec);
    let mut by_decl: hashbrown::HashMap<(u32, Option<usize>), u64> = hashbrown::HashMap::new();
    let nodes = hot.event_nodes();
    for i in 0..n.min(nodes.len()) {
        let node = nodes[i];
        if hot.is_outermost(node) {
            let key = hot.tree.node(node).key;
            *by_decl
                .entry((key, decls.find_event(i as u32)))
                .or_default() += event_total[i];
        }
    }
    let mut best: hashbrown::HashMap<u32, (usize, u64)> = hashbrown::HashMap::new();
    for (&(key, decl), &t) in &by_decl {
        if let Some(d) = decl {
            let b = best.entry(key).or_insert((d, t));
            if (t, std::cmp::Reverse(d)) > (b.1, std::cmp::Reverse(b.0)) {
                *b = (d, t);
            }
        }
    }
    let mut rows: Vec<FileKeyRow> = hot
        .rows
        .iter()
        .map(|r| FileKeyRow {
            key: hot.keys.get(r.key).clone(),
            total: r.total,
            self_time: r.self_time,
            count: r.count,
            declaration: best
                .get(&r.key)
                .map(|&(d, t)| (rec.header.declarations[d].name.clone(), t)),
        })
        .collect();
    rows.sort_by(|a, b| {
        b.total
            .cmp(&a.total)
            .then(b.self_time.cmp(&a.self_time))
            .then(a.key.cmp(&b.key))
    });
    let mut other_holds = hot.keys.other_holds();
    if rows.len() > limit {
        let cut = rows.split_off(limit.saturating_sub(1));
        other_holds += cut.iter().filter(|r| !r.key.is_other()).count() as u64;
        let mut other = FileKeyRow {
            key: hot.keys.get(OTHER).clone(),
            total: 0,
            self_time: 0,
            count: 0,
            declaration: None,
        };
        for r in cut.iter().chain(rows.iter().filter(|r| r.key.is_other())) {
            other.total = other.total.saturating_add(r.total);
            other.self_time = other.self_time.saturating_add(r.self_time);
            other.count = other.count.saturating_add(r.count);
        }
        rows.retain(|r| !r.key.is_other());
        rows.push(other);
    }
    FileHotSpots { rows, other_holds }
}
