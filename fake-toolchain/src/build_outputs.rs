//! What the fake `lake build` leaves under `.lake/build/lib/lean/`, in the layout Lake uses
//! (`<root>/A/B.lean` is module `A.B`, built to `lib/lean/A/B.olean`):
//!
//! - `A/B.olean`: a stand-in (a line of text saying so; nothing reads its content);
//! - `A/B.hb.json`, only with `LEANSCOPE_FAKE_HB_JSON=1` (acting as a Lean that writes it: Lean
//!   does so when compiling with `-o X.olean`, from a toolchain newer than v4.35.0, see
//!   `fixtures/README.md`, "Heartbeat files"): `{"entries":[…]}` with one entry per
//!   `-- leanscope-fake: hb-entry OWNER DECL PHASE N` directive of the source, in source order,
//!   the shape of Lean's test `tests/misc/lean_heartbeats_output.sh` (`owner`, `decl`, `phase`,
//!   `heartbeats`). A source without such directives gets `{"entries":[]}`. Keys are written in
//!   ascending order, as `Json.compress` of a derived `ToJson` object does (a modelled detail:
//!   no real `.hb.json` was available to us).

use std::io::Write;
use std::path::{Path, PathBuf};

/// Environment variable that makes `lake build` write `.hb.json` files.
pub const ENV_HB_JSON: &str = "LEANSCOPE_FAKE_HB_JSON";

/// One `hb-entry` directive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HbEntry {
    pub owner: String,
    pub decl: String,
    pub phase: String,
    pub heartbeats: u64,
}

impl HbEntry {
    /// `OWNER DECL PHASE N`.
    pub fn parse(text: &str) -> Option<HbEntry> {
        let mut w = text.split_whitespace();
        let e = HbEntry {
            owner: w.next()?.to_owned(),
            decl: w.next()?.to_owned(),
            phase: w.next()?.to_owned(),
            heartbeats: w.next()?.parse().ok()?,
        };
        w.next().is_none().then_some(e)
    }
}

/// Every `.lean` file below `root` (hidden folders and `build` skipped), relative, sorted.
fn sources(root: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        for e in std::fs::read_dir(root.join(&rel))? {
            let e = e?;
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') || name == "build" {
                continue;
            }
            let kind = e.file_type()?;
            if kind.is_dir() {
                stack.push(rel.join(&name));
            } else if kind.is_file() && name.ends_with(".lean") && name != "lakefile.lean" {
                out.push(rel.join(&name));
            }
        }
    }
    out.sort();
    Ok(out)
}

fn json_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The `.hb.json` text of `entries`.
pub fn hb_json(entries: &[HbEntry]) -> String {
    let mut s = String::from("{\"entries\":[");
    for (i, e) in entries.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push_str("{\"decl\":");
        json_string(&e.decl, &mut s);
        s.push_str(&format!(",\"heartbeats\":{},\"owner\":", e.heartbeats));
        json_string(&e.owner, &mut s);
        s.push_str(",\"phase\":");
        json_string(&e.phase, &mut s);
        s.push('}');
    }
    s.push_str("]}");
    s
}

/// Writes `path` whole or not at all (a temporary file renamed into place).
fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    let tmp = path.with_extension("tmp-fake");
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all(text.as_bytes())?;
    f.sync_all()?;
    std::fs::rename(&tmp, path)
}

/// Writes the build outputs of every source below `root`.
pub fn write_build_outputs(root: &Path) -> Result<(), String> {
    let hb = std::env::var(ENV_HB_JSON).is_ok_and(|v| v == "1");
    let lib = root.join(".lake").join("build").join("lib").join("lean");
    let files = sources(root).map_err(|e| format!("cannot list the sources: {e}"))?;
    for rel in files {
        let text = std::fs::read_to_string(root.join(&rel))
            .map_err(|e| format!("cannot read {}: {e}", rel.display()))?;
        let entries: Vec<HbEntry> = crate::elaborate::directives(&text)
            .map_err(|e| format!("{}: {e}", rel.display()))?
            .into_iter()
            .filter_map(|(_, d)| match d {
                crate::elaborate::Directive::HbEntry(e) => Some(e),
                _ => None,
            })
            .collect();
        let stem = lib.join(rel.with_extension(""));
        if let Some(dir) = stem.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        let olean = stem.with_extension("olean");
        write_atomically(&olean, "leanscope-fake: a stand-in for an .olean\n")
            .map_err(|e| format!("cannot write {}: {e}", olean.display()))?;
        if hb {
            let path = stem.with_extension("hb.json");
            write_atomically(&path, &hb_json(&entries))
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_and_its_json() {
        let e = HbEntry::parse("Demo.t Demo.t.match_1 kernel 1200").unwrap();
        assert_eq!(e.phase, "kernel");
        assert!(HbEntry::parse("a b elab").is_none());
        assert!(HbEntry::parse("a b elab 1 extra").is_none());
        assert_eq!(
            hb_json(&[e]),
            r#"{"entries":[{"decl":"Demo.t.match_1","heartbeats":1200,"owner":"Demo.t","phase":"kernel"}]}"#
        );
    }
}
