//! What a session commits for one captured file: its manifest entry and
//! its index rows, both read from the file's recording. Shared by the
//! session capture (`profile DIR`) and the per-side sessions of a profiled
//! revision run (`revisions run --profile`).

use recording::model::file_time;
use recording::session::{index_rows, ns_to_ms, write_row, FileEntry, FileStatus};
use recording::{CaptureStatus, Recording, Severity};

/// A file ready to commit: its entry (status, numbers, recording) and its
/// index rows as index.jsonl lines.
pub struct Committed {
    pub entry: FileEntry,
    pub rows: Vec<u8>,
}

/// The entry and rows of `planned` (the file's id, path and module)
/// captured as capture number `capture` into `recording` (its path in the
/// session) whose contents are `rec`; `capture_wall_ms` is how long the
/// capture took, when it ran here.
pub fn committed(
    rec: &Recording,
    planned: FileEntry,
    capture: u64,
    recording: String,
    capture_wall_ms: Option<u64>,
) -> Committed {
    let mut rows = Vec::new();
    for r in index_rows(rec, planned.id, capture, &planned.path) {
        write_row(&r, &mut rows);
    }
    let h = &rec.header;
    let entry = FileEntry {
        status: match h.status {
            CaptureStatus::Ok => FileStatus::Ok,
            CaptureStatus::Error => FileStatus::Error,
            CaptureStatus::Stopped => FileStatus::Stopped,
        },
        capture: Some(capture),
        recording: Some(recording),
        elapsed_ms: h.elapsed_ns.map(ns_to_ms),
        traced_ms: Some(ns_to_ms(file_time(rec).traced_ns)),
        time_account: Some(recording::model::time_account(rec)),
        capture_wall_ms,
        events: Some(rec.len() as u64),
        declarations: Some(h.declarations.len() as u64),
        lean_errors: Some(
            h.diagnostics
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .count() as u64,
        ),
        source_sha256: Some(h.source_sha256.clone()),
        error: h.stop.as_ref().map(|s| s.detail.clone()),
        ..planned
    };
    Committed { entry, rows }
}
