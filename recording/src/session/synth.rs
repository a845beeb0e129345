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
    /// Index rows in all (at least one per file).
    pub rows: u64,
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
            });
        }
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

fn io_of(e: crate::RecordingError) -> SessionError {
    match e {
        crate::RecordingError::Io(e) => SessionError::Io(e),
        other => SessionError::Io(std::io::Error::other(other.to_string())),
    }
}
