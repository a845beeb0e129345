//! The index rows of one recording: one row for the file, one per
//! declaration and one per tactic span, with the times of
//! [`crate::model`] in milliseconds.

use serde::{Deserialize, Serialize};

use super::{ms_to_ns, ns_to_ms};
use crate::hotspots::{file_rows, FileKeyRow, HotSpots, Key};
use crate::limits::MAX_TACTIC_NAME_CHARS;
use crate::model::{declaration_times, file_time, tactic_rows, union_ns, DeclarationIndex};
use crate::types::RangeKind;
use crate::Recording;

/// What an index row describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RowKind {
    File,
    Declaration,
    Tactic,
    /// One hot-spot key of the file ([`crate::hotspots::file_rows`]).
    #[serde(rename = "hotspot")]
    HotSpot,
}

impl RowKind {
    pub fn as_str(self) -> &'static str {
        match self {
            RowKind::File => "file",
            RowKind::Declaration => "declaration",
            RowKind::Tactic => "tactic",
            RowKind::HotSpot => "hotspot",
        }
    }
}

/// One line of `index.jsonl`.
///
/// - `file`: `name` is the module, `durationMs` Lean's elapsed time for the
///   file (imports included; the union of the recorded top-level intervals
///   when Lean did not say), `selfMs` the part of it outside every
///   declaration's time.
/// - `declaration`: the declaration's time and self time (outside its
///   tactics) as in [`crate::model::declaration_times`]; both `null` when
///   nothing was recorded inside it. `attribution` is the weakest range kind
///   among the events counted (`exact` only when Lean placed them all).
/// - `tactic`: one exact or matched source span, its time and self time
///   ([`crate::model::tactic_rows`]), the declaration it lies in, and how its
///   span was obtained.
///
/// - `hotspot`: one key of the file's hot spots ([`crate::hotspots`]): `class`
///   and `name` (the key), `durationMs` its total (each stack once), `selfMs` its self
///   time, `count` its events, `declaration` and `declarationMs` the declaration holding
///   most of its total; the `(other)` key's row says in `holds` how many keys it sums.
///
/// Lines are 1-based (as Lean prints them); `endLine` is the line of the
/// range's end.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IndexRow {
    pub capture: u64,
    pub file: u32,
    pub kind: RowKind,
    pub path: String,
    pub name: String,
    pub duration_ms: Option<f64>,
    pub self_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_line: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declaration: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attribution: Option<RangeKind>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declaration_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub holds: Option<u64>,
    /// declaration rows: the resident memory Lean's process tree gained while it ran
    /// (`recording::memory`), when memory was sampled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_growth_bytes: Option<u64>,
    /// file rows: the peak resident memory of Lean's process tree over the capture, when
    /// memory was sampled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_peak_bytes: Option<u64>,
}

impl IndexRow {
    /// A row of no kind's fields but the common ones.
    pub fn new(kind: RowKind, file: u32, capture: u64, path: &str, name: String) -> IndexRow {
        IndexRow {
            capture,
            file,
            kind,
            path: path.to_string(),
            name,
            duration_ms: None,
            self_ms: None,
            line: None,
            end_line: None,
            declaration: None,
            attribution: None,
            class: None,
            count: None,
            declaration_ms: None,
            holds: None,
            memory_growth_bytes: None,
            memory_peak_bytes: None,
        }
    }

    /// A `hotspot` row read back as the file's key row (values in the recording's unit:
    /// nanoseconds, or heartbeats when `heartbeats`) and how many keys it holds; `None`
    /// for other kinds or a row without its values.
    pub fn hot_spot(&self, heartbeats: bool) -> Option<(FileKeyRow, u64)> {
        if self.kind != RowKind::HotSpot {
            return None;
        }
        let value = |ms: f64| {
            if heartbeats {
                (ms >= 0.0 && ms.is_finite()).then(|| ms.round() as u64)
            } else {
                ms_to_ns(ms)
            }
        };
        let row = FileKeyRow {
            key: Key::new(self.class.clone()?, self.name.clone()),
            total: value(self.duration_ms?)?,
            self_time: value(self.self_ms?)?,
            count: self.count.unwrap_or(0),
            declaration: match (&self.declaration, self.declaration_ms) {
                (Some(d), Some(ms)) => Some((d.clone(), value(ms)?)),
                _ => None,
            },
        };
        Some((row, self.holds.unwrap_or(0)))
    }
}

/// Appends `row` as one JSON line to `out`.
pub fn write_row(row: &IndexRow, out: &mut Vec<u8>) {
    // Serializing plain data into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, row);
    out.push(b'\n');
}

/// A tactic's name for the index: its text with runs of whitespace folded
/// to one space, at most [`MAX_TACTIC_NAME_CHARS`] characters.
pub fn tactic_name(text: &str) -> String {
    let folded = text.split_whitespace().collect::<Vec<_>>().join(" ");
    crate::text::cap_chars(&folded, MAX_TACTIC_NAME_CHARS)
}

/// The index rows of a recording captured as file `file` of a session by
/// capture number `capture`; `path` is the file's project-relative path.
pub fn index_rows(rec: &Recording, file: u32, capture: u64, path: &str) -> Vec<IndexRow> {
    let decls = &rec.header.declarations;
    let times = declaration_times(rec);
    let owner = DeclarationIndex::new(rec);
    // Per declaration: the weakest range kind of its events; and all
    // intervals inside any declaration (for the file's self time).
    let mut weakest: Vec<Option<RangeKind>> = vec![None; decls.len()];
    let mut inside = Vec::new();
    for i in 0..rec.len() as u32 {
        if let Some(d) = rec.range(i).and_then(|r| owner.find(&r)) {
            let k = rec.range_kind(i);
            weakest[d] = Some(match weakest[d] {
                None => k,
                Some(w) => weaker(w, k),
            });
            inside.push(rec.interval(i));
        }
    }
    let ft = file_time(rec);
    let file_ns = ft.elapsed_ns.unwrap_or(ft.traced_ns);
    // A heartbeat recording's rows hold heartbeats in the same fields (the session's
    // `measure` says so), an untimed one's counts of trace nodes; a time recording's,
    // milliseconds.
    let ns_to_ms = |v: u64| match rec.header.measure {
        crate::Measure::Time => ns_to_ms(v),
        crate::Measure::Heartbeats | crate::Measure::Untimed => v as f64,
    };
    let in_decls = union_ns(&mut inside);
    let mut rows = Vec::with_capacity(1 + decls.len());
    let row = |kind, name: String| IndexRow::new(kind, file, capture, path, name);
    rows.push(IndexRow {
        duration_ms: Some(ns_to_ms(file_ns)),
        self_ms: Some(ns_to_ms(file_ns.saturating_sub(in_decls))),
        memory_peak_bytes: rec.header.memory.as_ref().map(|m| m.peak_bytes),
        ..row(RowKind::File, rec.header.module_name.clone())
    });
    for (di, (d, t)) in decls.iter().zip(&times).enumerate() {
        rows.push(IndexRow {
            duration_ms: t.map(|t| ns_to_ms(t.total_ns)),
            self_ms: t.map(|t| ns_to_ms(t.self_ns)),
            line: Some(d.range.start_line + 1),
            end_line: Some(d.range.end_line + 1),
            attribution: t.and(weakest[di]),
            memory_growth_bytes: rec
                .header
                .memory
                .as_ref()
                .and_then(|m| m.growth_of(&d.name)),
            ..row(RowKind::Declaration, d.name.clone())
        });
    }
    for t in tactic_rows(rec) {
        rows.push(IndexRow {
            duration_ms: Some(ns_to_ms(t.time.total_ns)),
            self_ms: Some(ns_to_ms(t.time.self_ns)),
            line: Some(t.range.start_line + 1),
            end_line: Some(t.range.end_line + 1),
            declaration: t
                .declaration
                .and_then(|d| decls.get(d))
                .map(|d| d.name.clone()),
            attribution: Some(t.range_kind),
            ..row(RowKind::Tactic, tactic_name(&t.label))
        });
    }
    let hot = HotSpots::of(rec);
    let cut = file_rows(rec, &hot);
    for k in cut.rows {
        let holds = k.key.is_other().then_some(cut.other_holds);
        rows.push(IndexRow {
            duration_ms: Some(ns_to_ms(k.total)),
            self_ms: Some(ns_to_ms(k.self_time)),
            class: Some(k.key.class),
            count: Some(k.count),
            declaration_ms: k.declaration.as_ref().map(|d| ns_to_ms(d.1)),
            declaration: k.declaration.map(|d| d.0),
            holds,
            ..row(RowKind::HotSpot, k.key.name)
        });
    }
    rows
}

/// The weaker of two range kinds: exact > matched > inherited > none.
fn weaker(a: RangeKind, b: RangeKind) -> RangeKind {
    let rank = |k| match k {
        RangeKind::Exact => 3,
        RangeKind::Matched => 2,
        RangeKind::Inherited => 1,
        RangeKind::None => 0,
    };
    if rank(b) < rank(a) {
        b
    } else {
        a
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tactic_names_are_folded_and_capped() {
        assert_eq!(
            tactic_name("simp only [a]\n  omega"),
            "simp only [a] omega".to_string()
        );
        let long = "x ".repeat(MAX_TACTIC_NAME_CHARS);
        let name = tactic_name(&long);
        assert_eq!(name.chars().count(), MAX_TACTIC_NAME_CHARS);
        let exact = "y".repeat(MAX_TACTIC_NAME_CHARS);
        assert_eq!(tactic_name(&exact), exact);
    }

    #[test]
    fn weaker_kinds() {
        assert_eq!(
            weaker(RangeKind::Exact, RangeKind::Matched),
            RangeKind::Matched
        );
        assert_eq!(
            weaker(RangeKind::Inherited, RangeKind::Exact),
            RangeKind::Inherited
        );
    }
}
