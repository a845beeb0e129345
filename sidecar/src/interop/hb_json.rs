//! Lean's per-declaration heartbeat file, `<module>.hb.json`, which compiling a module with
//! `-o <module>.olean` writes beside the `.olean` (every `lake build` does), with no option.
//!
//! Its shape (Lean's test `tests/misc/lean_heartbeats_output.sh` and the structure
//! `Lean.HeartbeatEntry`, cited in `fixtures/README.md`, "Heartbeat files"):
//! `{"entries": [{"owner": NAME, "decl": NAME, "phase": "elab" | "kernel", "heartbeats": N}]}`.
//! `owner` is the user-written declaration the cost rolls up to (matchers, equation lemmas,
//! generated code and `deriving` instances report the declaration that caused them; a mutual
//! clique's shared work its first declaration), `decl` the declaration the heartbeats were
//! spent on, `heartbeats` raw `IO.getNumHeartbeats` units (`maxHeartbeats` counts thousands of
//! them). The counts are deterministic: the same source and toolchain give the same file.
//!
//! As a recording (measure heartbeats, clock durations-only): one event per owner (class
//! `Elab.command`, labelled with the owner, placed on the owner's declaration in the source
//! when the scanner finds it), and under it one event per entry (class `elab` or `kernel`,
//! the phase; labelled with `decl`), back to back. The owners follow one another in the file's
//! order of first appearance. An owner's total is the sum of its entries, so a declaration's
//! heartbeats in every view are exactly the file's.

use std::collections::HashMap;
use std::io::{Read, Write};

use recording::writer::{Encoder, NewEvent};
use recording::{CaptureMode, CaptureStatus, ClockKind, Header, Measure, RangeKind, SourceRange};
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::Deserialize;

use super::error::{InteropError, Result};
use crate::capture::declarations;
use crate::limit;
use crate::limits::{MAX_HB_ENTRIES, MAX_HB_JSON_BYTES};

pub const FORMAT: &str = "Lean heartbeat file (.hb.json)";

/// The file name's ending.
pub const SUFFIX: &str = ".hb.json";

/// The class of an owner's event.
pub const OWNER_CLASS: &str = "Elab.command";

/// The phases Lean writes (`HeartbeatEntry.phase`).
pub const PHASES: [&str; 2] = ["elab", "kernel"];

/// One entry: heartbeats one phase of one declaration used.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct HeartbeatEntry {
    pub owner: String,
    pub decl: String,
    pub phase: String,
    pub heartbeats: u64,
}

#[derive(Deserialize)]
struct FileJson {
    #[serde(deserialize_with = "bounded_entries")]
    entries: Vec<HeartbeatEntry>,
}

/// The entries, refusing more than [`MAX_HB_ENTRIES`] as they are read.
fn bounded_entries<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<HeartbeatEntry>, D::Error> {
    struct Entries;
    impl<'de> Visitor<'de> for Entries {
        type Value = Vec<HeartbeatEntry>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an array of heartbeat entries")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut v = Vec::new();
            while let Some(e) = seq.next_element::<HeartbeatEntry>()? {
                if v.len() >= MAX_HB_ENTRIES {
                    return Err(de::Error::custom(
                        limit!(MAX_HB_ENTRIES, "the number of entries").to_string(),
                    ));
                }
                v.push(e);
            }
            Ok(v)
        }
    }
    d.deserialize_seq(Entries)
}

/// Reads a `.hb.json` (at most [`MAX_HB_JSON_BYTES`]).
pub fn read<R: Read>(input: R) -> Result<Vec<HeartbeatEntry>> {
    let mut bytes = Vec::new();
    input.take(MAX_HB_JSON_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_HB_JSON_BYTES {
        return Err(InteropError::over(
            FORMAT,
            "$",
            limit!(MAX_HB_JSON_BYTES, "the file's size"),
        ));
    }
    parse(&bytes)
}

/// Parses a `.hb.json`'s bytes.
pub fn parse(bytes: &[u8]) -> Result<Vec<HeartbeatEntry>> {
    let text = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let file: FileJson = serde_json::from_slice(text).map_err(|e| {
        let at = format!("line {} column {}", e.line(), e.column());
        match e.classify() {
            serde_json::error::Category::Syntax | serde_json::error::Category::Eof => {
                InteropError::syntax(FORMAT, at, e.to_string())
            }
            _ => InteropError::invalid(
                FORMAT,
                at,
                format!(
                    "{e} (expected {{\"entries\": [{{\"owner\", \"decl\", \"phase\", \"heartbeats\"}}]}})"
                ),
            ),
        }
    })?;
    for (i, e) in file.entries.iter().enumerate() {
        let at = || format!("entries[{i}]");
        if e.owner.is_empty() {
            return Err(InteropError::invalid(
                FORMAT,
                at(),
                "an entry without an owner",
            ));
        }
        if e.phase.is_empty() {
            return Err(InteropError::invalid(
                FORMAT,
                at(),
                "an entry without a phase",
            ));
        }
        if e.heartbeats > recording::limits::MAX_TIME_NS {
            return Err(InteropError::invalid(
                FORMAT,
                at(),
                format!(
                    "{} heartbeats is more than a recording holds ({})",
                    e.heartbeats,
                    recording::limits::MAX_TIME_NS
                ),
            ));
        }
    }
    Ok(file.entries)
}

/// The Lean source of a module, as found beside its build output.
#[derive(Debug, Clone)]
pub struct ModuleSource {
    /// The path the recording names (relative to the project where known).
    pub path: String,
    pub text: String,
}

/// What a heartbeat file's recording says besides its events.
#[derive(Debug, Clone, Default)]
pub struct HbFacts {
    pub module: String,
    pub lean_version: String,
    pub toolchain: String,
    /// Where the `.hb.json` was read from (a note).
    pub from: String,
}

/// Per owner, in order of first appearance: its entries' indices.
fn owners(entries: &[HeartbeatEntry]) -> Vec<(&str, Vec<usize>)> {
    let mut order: Vec<(&str, Vec<usize>)> = Vec::new();
    let mut at: HashMap<&str, usize> = HashMap::new();
    for (i, e) in entries.iter().enumerate() {
        let k = *at.entry(e.owner.as_str()).or_insert_with(|| {
            order.push((e.owner.as_str(), Vec::new()));
            order.len() - 1
        });
        order[k].1.push(i);
    }
    order
}

/// What writing a heartbeat recording placed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HbWritten {
    pub events: u64,
    pub owners: usize,
    /// Owners whose declaration the source scan found.
    pub placed: usize,
    pub notes: Vec<String>,
}

/// Writes `entries` as a heartbeat recording to `out`.
pub fn write_recording<W: Write>(
    entries: &[HeartbeatEntry],
    source: Option<&ModuleSource>,
    facts: &HbFacts,
    out: W,
) -> Result<(W, HbWritten)> {
    let owners = owners(entries);
    let decls = source
        .map(|s| declarations::scan(&s.text))
        .unwrap_or_default();
    // A declaration by its full name, and by its public name (Lean's `_private.M.0.X`).
    let mut by_name: HashMap<&str, SourceRange> = HashMap::new();
    for d in &decls {
        by_name.entry(d.name.as_str()).or_insert(d.range);
    }
    let range_of = |owner: &str| -> Option<SourceRange> {
        by_name
            .get(owner)
            .or_else(|| by_name.get(declarations::public_name(owner)))
            .copied()
    };
    let mut notes = vec![format!(
        "read from Lean's heartbeat file {} (per declaration and phase; no times)",
        facts.from
    )];
    let placed = owners.iter().filter(|(o, _)| range_of(o).is_some()).count();
    match source {
        None => notes.push(
            "the module's .lean file was not found: declarations are not placed in the source"
                .into(),
        ),
        Some(_) if placed < owners.len() => notes.push(format!(
            "{} of {} declarations were not found in the source by name (made by macros, \
             indented, in `mutual` blocks or anonymous): they have no source range",
            owners.len() - placed,
            owners.len()
        )),
        Some(_) => {}
    }
    let unknown: Vec<&str> = {
        let mut v: Vec<&str> = entries
            .iter()
            .map(|e| e.phase.as_str())
            .filter(|p| !PHASES.contains(p))
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    if !unknown.is_empty() {
        notes.push(format!(
            "phases other than elab and kernel kept as they are: {}",
            unknown.join(", ")
        ));
    }
    let mut header = Header {
        schema_version: recording::SCHEMA_VERSION,
        lean_version: facts.lean_version.clone(),
        toolchain: facts.toolchain.clone(),
        capture_mode: CaptureMode::Imported,
        threshold_ns: 0,
        clock: ClockKind::DurationsOnly,
        clock_description: "heartbeats per declaration and phase from Lean's .hb.json, laid \
                            end to end"
            .into(),
        source_path: source.map(|s| s.path.clone()).unwrap_or_default(),
        module_name: facts.module.clone(),
        source_text: source.map(|s| s.text.clone()).unwrap_or_default(),
        declarations: decls.clone(),
        status: CaptureStatus::Ok,
        created_unix_ms: super::unix_ms(),
        producer: format!("leanscope {} import", env!("CARGO_PKG_VERSION")),
        notes: notes.clone(),
        measure: Measure::Heartbeats,
        ..Header::default()
    };
    header.source_sha256 = if header.source_text.is_empty() {
        String::new()
    } else {
        recording::sha256_hex(header.source_text.as_bytes())
    };
    header.threads = vec![recording::Thread {
        id: 0,
        name: "heartbeats".into(),
    }];
    let mut enc = Encoder::new(out, &header)?;
    let mut start = 0u64;
    let mut events = 0u64;
    let too_many = || {
        InteropError::invalid(
            FORMAT,
            "$",
            format!(
                "the heartbeats of all entries add up past what a recording holds ({})",
                recording::limits::MAX_TIME_NS
            ),
        )
    };
    for (owner, items) in &owners {
        let total = items
            .iter()
            .try_fold(0u64, |t, &i| t.checked_add(entries[i].heartbeats))
            .filter(|&t| {
                start
                    .checked_add(t)
                    .is_some_and(|e| e <= recording::limits::MAX_TIME_NS)
            })
            .ok_or_else(too_many)?;
        let range = range_of(owner);
        let kind = if range.is_some() {
            RangeKind::Matched
        } else {
            RangeKind::None
        };
        let parent = enc.push(&NewEvent {
            parent: None,
            class: OWNER_CLASS,
            label: owner,
            start_ns: start,
            duration_ns: total,
            thread: 0,
            range,
            range_kind: kind,
        })?;
        events += 1;
        let mut at = start;
        for &i in items {
            let e = &entries[i];
            enc.push(&NewEvent {
                parent: Some(parent),
                class: &e.phase,
                label: &e.decl,
                start_ns: at,
                duration_ns: e.heartbeats,
                thread: 0,
                range,
                range_kind: kind,
            })?;
            events += 1;
            at += e.heartbeats;
        }
        start += total;
    }
    let out = enc.finish()?;
    Ok((
        out,
        HbWritten {
            events,
            owners: owners.len(),
            placed,
            notes,
        },
    ))
}

/// The module a `.hb.json` under a build's `lib/lean` folder stands for: `A/B/C.hb.json` is
/// `A.B.C`. `None` when the name does not end with `.hb.json`.
pub fn module_of(relative: &std::path::Path) -> Option<String> {
    let mut parts: Vec<String> = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let last = parts.pop()?;
    let stem = last.strip_suffix(SUFFIX)?;
    if stem.is_empty() {
        return None;
    }
    parts.push(stem.to_owned());
    Some(parts.join("."))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_shape_of_leans_test() {
        let text =
            br#"{"entries":[{"owner":"hbCheap","decl":"hbCheap","phase":"elab","heartbeats":120},
            {"owner":"hbCheap","decl":"hbCheap","phase":"kernel","heartbeats":30}]}"#;
        let e = parse(text).unwrap();
        assert_eq!(e.len(), 2);
        assert_eq!(e[1].phase, "kernel");
        assert_eq!(e[1].heartbeats, 30);
    }

    #[test]
    fn refuses_what_is_not_one_by_name() {
        let err = parse(br#"{"traceEvents":[]}"#).unwrap_err().to_string();
        assert!(err.contains("entries"), "{err}");
        let err =
            parse(br#"{"entries":[{"owner":"a","decl":"a","phase":"elab","heartbeats":-1}]}"#)
                .unwrap_err()
                .to_string();
        assert!(
            err.contains("entries") || err.contains("heartbeats"),
            "{err}"
        );
        let err =
            parse(br#"{"entries":[{"owner":"a","decl":"a","phase":"elab","heartbeats":1e3}]}"#)
                .unwrap_err()
                .to_string();
        assert!(err.contains(FORMAT), "{err}");
        let err = parse(br#"{"entries":[{"owner":"","decl":"a","phase":"elab","heartbeats":1}]}"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains("without an owner"), "{err}");
        let big = format!(
            r#"{{"entries":[{{"owner":"a","decl":"a","phase":"elab","heartbeats":{}}}]}}"#,
            u64::MAX
        );
        let err = parse(big.as_bytes()).unwrap_err().to_string();
        assert!(err.contains("more than a recording holds"), "{err}");
    }

    #[test]
    fn a_module_is_its_path_under_lib_lean() {
        let p = std::path::Path::new("Demo").join("Basic.hb.json");
        assert_eq!(module_of(&p).as_deref(), Some("Demo.Basic"));
        assert_eq!(module_of(std::path::Path::new("Demo.olean")), None);
    }
}
