//! Deterministic synthetic sessions (manifest and index, no recordings),
//! for benchmarks of queries over large sessions.

use std::io::Write;
use std::path::Path;

use super::rows::{IndexRow, RowKind};
use super::{
    write_row, FileEntry, FileStatus, Manifest, NewSession, SessionError, SessionStatus, Target,
    TargetKind, FILES_DIR, INDEX_FILE, MANIFEST_FILE,
};
use crate::types::RangeKind;
use crate::writer::AtomicFile;

#[derive(Debug, Clone)]
pub struct SessionSynthParams {
    pub seed: u64,
    pub files: u32,
    /// Index rows in all (at least one per file), besides the hot-spot rows.
    pub rows: u64,
    /// `hotspot` rows per file (0: none, as in a session written before them): keys drawn
    /// from a fixed vocabulary of Lean's classes, a tenth of them goals of the file alone.
    pub hot_spots: u32,
}

/// The note every synthetic manifest carries.
pub const SYNTHETIC_NOTE: &str =
    "synthetic session: manifest and index only; the recordings it names do not exist";

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A duration in nanoseconds with a heavy tail (most are short).
    fn duration_ns(&mut self) -> u64 {
        let base = self.next() % 2_000_000 + 10_000;
        match self.next() % 100 {
            0 => base * 500,
            1..=4 => base * 40,
            5..=20 => base * 5,
            _ => base,
        }
    }
}

const TACTICS: [&str; 6] = [
    "simp",
    "omega",
    "decide",
    "exact h",
    "rfl",
    "simp only [foo]",
];

/// Writes a complete session into `dir` (which must exist and be empty).
pub fn write_synthetic_session(
    p: &SessionSynthParams,
    dir: &Path,
) -> Result<Manifest, SessionError> {
    let files = p.files.max(1);
    let per_file = (p.rows / u64::from(files)).max(1);
    let extra = p.rows.saturating_sub(per_file * u64::from(files));
    let mut rng = Rng(p.seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    std::fs::create_dir_all(dir.join(FILES_DIR))?;
    let mut index =
        std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(dir.join(INDEX_FILE))?);
    let mut entries = Vec::with_capacity(files as usize);
    let mut line = Vec::with_capacity(512);
    let mut bytes = 0u64;
    for f in 0..files {
        let folder = format!("Lib{}/Part{}", f % 17, f % 101);
        let path = format!("{folder}/File{f}.lean");
        let module = format!("Lib{}.Part{}.File{f}", f % 17, f % 101);
        let capture = u64::from(f) + 1;
        let n = per_file + u64::from(u64::from(f) < extra);
        let decls = ((n - 1) * 2 / 5).max(u64::from(n > 1));
        let tactics = n - 1 - decls;
        let mut rows = Vec::with_capacity(n as usize);
        let mut file_ns = 0u64;
        let mut decl_name = String::new();
        for d in 0..decls {
            let ns = rng.duration_ns();
            file_ns += ns;
            decl_name = format!("{module}.theorem_{d}");
            rows.push(IndexRow {
                capture,
                file: f,
                kind: RowKind::Declaration,
                path: path.clone(),
                name: decl_name.clone(),
                duration_ms: Some(super::ns_to_ms(ns)),
                self_ms: Some(super::ns_to_ms(ns / 3)),
                line: Some(d as u32 * 10 + 1),
                end_line: Some(d as u32 * 10 + 8),
                declaration: None,
                attribution: Some(RangeKind::Exact),
                class: None,
                count: None,
                declaration_ms: None,
                holds: None,
                memory_growth_bytes: None,
                memory_peak_bytes: None,
            });
        }
        for t in 0..tactics {
            let ns = rng.duration_ns() / 2;
            rows.push(IndexRow {
                capture,
                file: f,
                kind: RowKind::Tactic,
                path: path.clone(),
                name: TACTICS[(rng.next() % TACTICS.len() as u64) as usize].to_string(),
                duration_ms: Some(super::ns_to_ms(ns)),
                self_ms: Some(super::ns_to_ms(ns / 2)),
                line: Some(t as u32 + 2),
                end_line: Some(t as u32 + 2),
                declaration: (!decl_name.is_empty()).then(|| decl_name.clone()),
                attribution: Some(RangeKind::Matched),
                class: None,
                count: None,
                declaration_ms: None,
                holds: None,
                memory_growth_bytes: None,
                memory_peak_bytes: None,
            });
        }
        rows.extend(hot_spot_rows(
            &mut rng,
            p.hot_spots,
            f,
            capture,
            &path,
            &decl_name,
        ));
        let elapsed = file_ns + 150_000_000;
        rows.insert(
            0,
            IndexRow {
                capture,
                file: f,
                kind: RowKind::File,
                path: path.clone(),
                name: module.clone(),
                duration_ms: Some(super::ns_to_ms(elapsed)),
                self_ms: Some(super::ns_to_ms(elapsed - file_ns)),
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
            },
        );
        for r in &rows {
            line.clear();
            write_row(r, &mut line);
            index.write_all(&line)?;
            bytes += line.len() as u64;
        }
        entries.push(FileEntry {
            status: FileStatus::Ok,
            capture: Some(capture),
            recording: Some(format!("{FILES_DIR}/{f:05}-{module}-{capture}.lsrec")),
            elapsed_ms: Some(super::ns_to_ms(elapsed)),
            capture_wall_ms: Some(elapsed / 1_000_000 + 40),
            events: Some(n * 3),
            declarations: Some(decls),
            lean_errors: Some(0),
            source_sha256: Some(format!("{:064x}", u128::from(f) * 0x1_0000_0001)),
            ..FileEntry::planned(f, path, module)
        });
    }
    let file = index.into_inner().map_err(|e| e.into_error())?;
    file.sync_all()?;
    let m = Manifest {
        toolchains: vec!["leanprover/lean4:v4.31.0".into()],
        lean_versions: vec!["4.31.0".into()],
        completed_unix_ms: Some(1_780_000_600_000),
        status: SessionStatus::Complete,
        index_bytes: bytes,
        next_capture: u64::from(files) + 1,
        notes: vec![SYNTHETIC_NOTE.into()],
        ..Manifest::new(NewSession {
            producer: concat!("recording ", env!("CARGO_PKG_VERSION"), " (synthetic)").into(),
            project_root: "/synthetic".into(),
            target: Target {
                kind: TargetKind::Project,
                path: String::new(),
            },
            threshold_ms: 10,
            measure: crate::Measure::Time,
            started_unix_ms: 1_780_000_000_000,
            files: entries,
        })
    };
    let (guard, mut out) = AtomicFile::create(dir.join(MANIFEST_FILE)).map_err(io_of)?;
    out.write_all(&m.to_json())?;
    guard.publish(out).map_err(io_of)?;
    Ok(m)
}

/// The classes of the synthetic keys and the names each takes.
const VOCABULARY: [(&str, &[&str]); 8] = [
    (
        "Elab.command",
        &["theorem", "def", "instance", "structure", "lemma"],
    ),
    (
        "Elab.step",
        &[
            "simp", "omega", "rw", "exact", "term by", "apply", "norm_num", "<;>",
        ],
    ),
    ("Elab.async", &["", "elaborating proof of …"]),
    ("Kernel", &["", "typechecking declarations [Nat.add_comm]"]),
    ("Elab.definition.value", &[""]),
    (
        "Meta.synthInstance",
        &[
            "Inhabited Nat",
            "Decidable (a = b)",
            "Add ℕ",
            "Ring R",
            "Module R M",
            "Fintype α",
        ],
    ),
    (
        "Meta.isDefEq",
        &["?m =?= ?u + x", "Nat.succ ?n =?= n + 1", "f a =?= g b"],
    ),
    (
        "Meta.Tactic.simp.rewrite",
        &["Nat.add_comm:1000", "List.length_append:1000"],
    ),
];

/// A file's `hotspot` rows: `n` keys, by descending total as the capture writes them.
fn hot_spot_rows(
    rng: &mut Rng,
    n: u32,
    file: u32,
    capture: u64,
    path: &str,
    declaration: &str,
) -> Vec<IndexRow> {
    let keys: Vec<(&str, String)> = VOCABULARY
        .iter()
        .flat_map(|(class, names)| names.iter().map(move |name| (*class, (*name).to_owned())))
        .collect();
    let mut out = Vec::with_capacity(n as usize);
    let mut used = std::collections::HashSet::new();
    // Draws of a key already taken are drawn again (a bounded number of times).
    for _ in 0..u64::from(n) * 10 {
        if out.len() >= n as usize {
            break;
        }
        let i = out.len();
        let (class, name) = if i % 10 == 9 {
            ("Meta.isDefEq", format!("goal_{file}_{i} =?= x"))
        } else {
            // Numbered variants of the goals make the shared vocabulary about two hundred keys.
            let (class, name) = &keys[(rng.next() % keys.len() as u64) as usize];
            let variant = rng.next() % 16;
            match class.starts_with("Meta.") {
                true => (*class, format!("{name} #{variant}")),
                false => (*class, name.clone()),
            }
        };
        if !used.insert((class, name.clone())) {
            continue;
        }
        let total = rng.duration_ns();
        let self_ns = total / (1 + rng.next() % 4);
        out.push(IndexRow {
            duration_ms: Some(super::ns_to_ms(total)),
            self_ms: Some(super::ns_to_ms(self_ns)),
            class: Some(class.to_owned()),
            count: Some(1 + rng.next() % 50),
            declaration: (!declaration.is_empty()).then(|| declaration.to_owned()),
            declaration_ms: (!declaration.is_empty()).then(|| super::ns_to_ms(total / 2)),
            ..IndexRow::new(RowKind::HotSpot, file, capture, path, name)
        });
    }
    out.sort_by(|a, b| {
        let t = |r: &IndexRow| r.duration_ms.unwrap_or(0.0);
        t(b).total_cmp(&t(a))
    });
    out
}

fn io_of(e: crate::RecordingError) -> SessionError {
    match e {
        crate::RecordingError::Io(e) => SessionError::Io(e),
        other => SessionError::Io(std::io::Error::other(other.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hot_spot_rows_are_distinct_keys_by_descending_total() {
        let rows = hot_spot_rows(&mut Rng(7), 100, 3, 4, "A.lean", "A.x");
        assert_eq!(rows.len(), 100);
        let keys: std::collections::HashSet<_> = rows
            .iter()
            .map(|r| (r.class.clone(), r.name.clone()))
            .collect();
        assert_eq!(keys.len(), 100);
        assert!(rows
            .windows(2)
            .all(|w| w[0].duration_ms >= w[1].duration_ms));
        assert!(rows.iter().all(|r| r
            .hot_spot(false)
            .is_some_and(|(k, _)| k.self_time <= k.total)));
        assert_eq!(
            rows.iter()
                .filter(|r| r.name.starts_with("goal_3_"))
                .count(),
            10
        );
    }
}
