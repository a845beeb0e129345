//! A session's hot spots from its index: the `hotspot` rows of committed files, streamed
//! line by line and added file by file into a [`SessionHotSpots`]; no recording is opened
//! and memory grows with the distinct keys, not with the index.
//!
//! - Only rows of committed captures count (a repeated capture: every committed run), and
//!   with a folder, only files under it (whole path components, as `query --path`).
//! - A repeated capture: per file and key, the **median** of the runs that have the key
//!   (total, self and count each; [`median_rows`]), as the other repeated queries do.
//! - Committed files without any `hotspot` row (sessions written before them) are listed
//!   in [`IndexHotSpots::missing`]: the caller reads their recordings instead.
//! - A hostile row (a negative, non-finite or out-of-range value, a self over its total, a
//!   count over [`MAX_EVENTS`], no class) is skipped with a warning naming its line.

use std::io::{BufRead, BufReader, Read};

use super::hot_spot_line::HotSpotLine;
use super::line_scanner::quick_prefix;
use crate::hotspots::{FileKeyRow, Key, SessionHotSpots, OTHER_CLASS};
use crate::limits::{MAX_INDEX_LINE_BYTES, MAX_REPEATED_ROWS, MAX_REPORTED_WARNINGS};
use crate::repeats::Spread;
use crate::session::repeated::skip_rest_of_line;
use crate::session::rows::{IndexRow, RowKind};
use crate::session::{Manifest, SessionError};

/// The hot spots of a session's index.
#[derive(Debug, Default)]
pub struct IndexHotSpots {
    pub session: SessionHotSpots,
    /// Committed files (ids) under the folder with no `hotspot` row, in id order.
    pub missing: Vec<u32>,
    pub warnings: Vec<String>,
    /// All warnings, including those beyond [`MAX_REPORTED_WARNINGS`].
    pub warning_count: u64,
}

impl IndexHotSpots {
    fn warn(&mut self, w: String) {
        self.warning_count += 1;
        if self.warnings.len() < MAX_REPORTED_WARNINGS {
            self.warnings.push(w);
        }
    }
}

/// The rows of one run of one file: its key rows and how many keys its `(other)` row holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunKeyRows {
    pub rows: Vec<FileKeyRow>,
    pub other_holds: u64,
}

/// Is `path` the folder `folder` or beneath it (whole components)? No folder: every path.
pub fn under_folder(path: &str, folder: Option<&str>) -> bool {
    let Some(f) = folder
        .map(|f| f.trim_matches('/'))
        .filter(|f| !f.is_empty() && *f != ".")
    else {
        return true;
    };
    let f = f.strip_prefix("./").unwrap_or(f);
    path.starts_with(f) && (path.len() == f.len() || path.as_bytes()[f.len()] == b'/')
}

/// The hot spots of the first `manifest.index_bytes` of `index` (a session's
/// `index.jsonl`), for files under `folder`.
pub fn index_hot_spots(
    index: impl Read,
    manifest: &Manifest,
    folder: Option<&str>,
) -> Result<IndexHotSpots, SessionError> {
    let runs = manifest.committed_runs();
    let heartbeats = manifest.measure == crate::Measure::Heartbeats;
    let repeated = manifest.repeats.is_some();
    let mut out = IndexHotSpots::default();
    let mut reader = BufReader::with_capacity(1 << 20, index.take(manifest.index_bytes));
    // The file whose rows are being read, and its runs' rows by capture.
    let mut pending = Pending::default();
    // The file whose rows are being added (not repeated).
    let mut current: Option<u32> = None;
    let mut has_rows = vec![false; manifest.files.len()];
    let mut added = vec![false; manifest.files.len()];
    let mut held: u64 = 0;
    let mut line = Vec::new();
    let mut line_no = 0u64;
    loop {
        line.clear();
        line_no += 1;
        let n = (&mut reader)
            .take(MAX_INDEX_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut line)?;
        if n == 0 {
            break;
        }
        if line.last() != Some(&b'\n') {
            if n > MAX_INDEX_LINE_BYTES {
                skip_rest_of_line(&mut reader)?;
                out.warn(format!(
                    "skipped line {line_no} of index.jsonl: longer than {MAX_INDEX_LINE_BYTES} bytes"
                ));
            } else {
                out.warn(format!(
                    "ignored a partial last line of index.jsonl (line {line_no}, {n} bytes without an end)"
                ));
            }
            continue;
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        // Most rows are of other kinds or of superseded captures: decided from the start.
        if let Some((capture, file, kind)) = quick_prefix(&line) {
            let trusted = runs
                .get(file as usize)
                .is_some_and(|c| c.contains(&capture));
            if kind != RowKind::HotSpot.as_str().as_bytes() || !trusted {
                continue;
            }
        }
        let parsed;
        let r = match HotSpotLine::scan(&line) {
            Some(r) => r,
            None => match serde_json::from_slice::<IndexRow>(&line) {
                Ok(row) => {
                    parsed = row;
                    HotSpotLine::of_row(&parsed)
                }
                Err(e) => {
                    out.warn(format!("skipped line {line_no} of index.jsonl: {e}"));
                    continue;
                }
            },
        };
        let trusted = runs
            .get(r.file as usize)
            .is_some_and(|c| c.contains(&r.capture));
        if !r.hot_spot || !trusted || !under_folder(&r.path, folder) {
            continue;
        }
        let v = match r.values(heartbeats) {
            Ok(v) => v,
            Err(why) => {
                out.warn(format!(
                    "skipped line {line_no} of index.jsonl: a hotspot row {why}"
                ));
                continue;
            }
        };
        let file = r.file as usize;
        has_rows[file] = true;
        if !repeated {
            // Rows go straight into the sum, file after file.
            if current != Some(r.file) {
                if added[file] {
                    out.warn(format!(
                        "skipped line {line_no} of index.jsonl: the hotspot rows of {} are not together in the index; only its first ones count",
                        r.path
                    ));
                    continue;
                }
                current = Some(r.file);
                added[file] = true;
                out.session.start_file(&r.path, 0);
            }
            if r.class == OTHER_CLASS && r.name.is_empty() {
                out.session.add_other_holds(v.holds);
            }
            out.session.add_row(
                &r.class,
                &r.name,
                v.total,
                v.self_time,
                v.count,
                r.declaration.as_deref().zip(v.declaration),
            );
            continue;
        }
        // A repeated capture: a file's runs are held until the end, for their medians.
        if pending.file != Some(r.file) {
            pending.park();
            pending.start(r.file, r.path.to_string());
        }
        held += 1;
        if held > MAX_REPEATED_ROWS {
            return Err(SessionError::LimitExceeded {
                what: "hotspot rows of one file's runs held at once",
                value: held,
                limit: MAX_REPEATED_ROWS,
            });
        }
        let row = FileKeyRow {
            key: Key::new(r.class.as_ref(), r.name.as_ref()),
            total: v.total,
            self_time: v.self_time,
            count: v.count,
            declaration: r
                .declaration
                .as_deref()
                .zip(v.declaration)
                .map(|(d, t)| (d.to_string(), t)),
        };
        pending.add(r.capture, row, v.holds);
    }
    pending.park();
    pending.flush_parked(&mut out.session);
    for (id, f) in manifest.files.iter().enumerate() {
        if !runs[id].is_empty() && !has_rows[id] && under_folder(&f.path, folder) {
            out.missing.push(id as u32);
        }
    }
    Ok(out)
}

/// The rows of the file being read (by run) and, for a repeated capture, of the files read
/// before it.
#[derive(Default)]
struct Pending {
    file: Option<u32>,
    path: String,
    runs: Runs,
    parked: Vec<(u32, String, Runs)>,
}

/// A file's runs' rows, by capture number.
type Runs = Vec<(u64, RunKeyRows)>;

impl Pending {
    fn start(&mut self, file: u32, path: String) {
        // A repeated capture's file seen again: its parked runs come back.
        if let Some(i) = self.parked.iter().position(|p| p.0 == file) {
            let (_, path, runs) = self.parked.swap_remove(i);
            self.file = Some(file);
            self.path = path;
            self.runs = runs;
            return;
        }
        self.file = Some(file);
        self.path = path;
        self.runs.clear();
    }

    fn add(&mut self, capture: u64, row: FileKeyRow, holds: u64) {
        let at = match self.runs.iter().position(|r| r.0 == capture) {
            Some(i) => i,
            None => {
                self.runs.push((capture, RunKeyRows::default()));
                self.runs.len() - 1
            }
        };
        let run = &mut self.runs[at].1;
        if row.key.is_other() {
            run.other_holds = run.other_holds.saturating_add(holds);
        }
        run.rows.push(row);
    }

    /// Sets the current file aside (a repeated capture's runs of a file are apart).
    fn park(&mut self) {
        if let Some(f) = self.file.take() {
            let runs = std::mem::take(&mut self.runs);
            self.parked.push((f, std::mem::take(&mut self.path), runs));
        }
    }

    fn flush_parked(&mut self, into: &mut SessionHotSpots) {
        self.parked.sort_by_key(|p| p.0);
        for (_, path, runs) in self.parked.drain(..) {
            let runs: Vec<RunKeyRows> = runs.into_iter().map(|r| r.1).collect();
            let (rows, holds) = median_rows(&runs);
            into.add_file(&path, &rows, holds);
        }
    }
}

/// One file's rows over its runs: per key, the median total, self and count of the runs
/// that have the key (one run: its rows as they are), and the declaration of the first
/// run that names one; the `(other)` row holds the median of the runs' held keys. Keys in
/// the order they first come.
pub fn median_rows(runs: &[RunKeyRows]) -> (Vec<FileKeyRow>, u64) {
    if let [one] = runs {
        return (one.rows.clone(), one.other_holds);
    }
    let mut order: Vec<Key> = Vec::new();
    let mut by_key: hashbrown::HashMap<Key, Vec<&FileKeyRow>> = hashbrown::HashMap::new();
    for run in runs {
        for r in &run.rows {
            by_key
                .entry(r.key.clone())
                .or_insert_with(|| {
                    order.push(r.key.clone());
                    Vec::new()
                })
                .push(r);
        }
    }
    let median = |v: Vec<u64>| {
        let as_f: Vec<f64> = v.iter().map(|&x| x as f64).collect();
        Spread::of(&as_f).map_or(0, |s| s.median.round() as u64)
    };
    let rows = order
        .into_iter()
        .map(|key| {
            let rs = &by_key[&key];
            FileKeyRow {
                total: median(rs.iter().map(|r| r.total).collect()),
                self_time: median(rs.iter().map(|r| r.self_time).collect()),
                count: median(rs.iter().map(|r| r.count).collect()),
                declaration: rs.iter().find_map(|r| r.declaration.clone()),
                key,
            }
        })
        .collect();
    let holds = median(runs.iter().map(|r| r.other_holds).collect());
    (rows, holds)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{test_manifest, write_row, FileEntry, FileStatus, Repeats, RunEntry};

    fn entry(id: u32, path: &str, capture: u64) -> FileEntry {
        FileEntry {
            status: FileStatus::Ok,
            capture: Some(capture),
            recording: Some(format!("files/{id}.lsrec")),
            ..FileEntry::planned(id, path.into(), path.into())
        }
    }

    fn hot(file: u32, capture: u64, path: &str, class: &str, name: &str, ms: f64) -> IndexRow {
        IndexRow {
            class: Some(class.into()),
            count: Some(2),
            duration_ms: Some(ms),
            self_ms: Some(ms / 2.0),
            declaration: Some("d".into()),
            declaration_ms: Some(ms / 4.0),
            ..IndexRow::new(RowKind::HotSpot, file, capture, path, name.into())
        }
    }

    fn index(rows: &[IndexRow]) -> Vec<u8> {
        let mut v = Vec::new();
        for r in rows {
            write_row(r, &mut v);
        }
        v
    }

    fn run(manifest: &mut Manifest, bytes: &[u8], folder: Option<&str>) -> IndexHotSpots {
        manifest.index_bytes = bytes.len() as u64;
        index_hot_spots(bytes, manifest, folder).unwrap()
    }

    #[test]
    fn committed_rows_add_up_by_key_and_files_without_rows_are_missing() {
        let mut m = test_manifest(vec![
            entry(0, "A/x.lean", 1),
            entry(1, "B/y.lean", 2),
            entry(2, "A/z.lean", 3),
            FileEntry::planned(3, "A/w.lean".into(), "A.w".into()),
        ]);
        let mut file_row = IndexRow::new(RowKind::File, 2, 3, "A/z.lean", "A.z".into());
        file_row.duration_ms = Some(1.0);
        let bytes = index(&[
            hot(0, 1, "A/x.lean", "Meta.synthInstance", "Inhabited Nat", 4.0),
            hot(0, 1, "A/x.lean", "Kernel", "", 2.0),
            // a superseded capture of file 0 and a file never committed
            hot(0, 0, "A/x.lean", "Kernel", "", 100.0),
            hot(3, 4, "A/w.lean", "Kernel", "", 100.0),
            hot(1, 2, "B/y.lean", "Kernel", "", 6.0),
            file_row,
        ]);
        let out = run(&mut m, &bytes, None);
        assert!(out.warnings.is_empty(), "{:?}", out.warnings);
        assert_eq!(out.missing, vec![2]);
        let top = out.session.top(10, true);
        assert_eq!(top[0].key, Key::new("Kernel", ""));
        assert_eq!((top[0].total, top[0].files), (8_000_000, 2));
        assert_eq!(top[1].total, 4_000_000);
        let out = run(&mut m, &bytes, Some("./A/"));
        assert_eq!(out.missing, vec![2]);
        assert_eq!(out.session.files(), 1);
        assert_eq!(out.session.top(10, true)[0].total, 4_000_000);
    }

    #[test]
    fn hostile_rows_are_skipped_naming_their_line() {
        let mut m = test_manifest(vec![entry(0, "x.lean", 1)]);
        let good = hot(0, 1, "x.lean", "Kernel", "", 2.0);
        let mut negative = hot(0, 1, "x.lean", "Meta.a", "", 2.0);
        negative.duration_ms = Some(-1.0);
        let mut no_class = hot(0, 1, "x.lean", "Meta.b", "", 2.0);
        no_class.class = None;
        let mut huge = hot(0, 1, "x.lean", "Meta.c", "", 2.0);
        huge.count = Some(u64::MAX);
        let mut self_over = hot(0, 1, "x.lean", "Meta.d", "", 2.0);
        self_over.self_ms = Some(3.0);
        let mut enormous = hot(0, 1, "x.lean", "Meta.e", "", 1e300);
        enormous.self_ms = Some(1.0);
        let mut bytes = index(&[good, negative, no_class, huge, self_over, enormous]);
        // JSON has no NaN: a row written with one is not a row.
        bytes.extend_from_slice(
            br#"{"capture":1,"file":0,"kind":"hotspot","path":"x.lean","name":"","durationMs":NaN,"selfMs":1,"class":"Meta.f"}"#,
        );
        bytes.push(b'\n');
        let out = run(&mut m, &bytes, None);
        let lines: Vec<bool> = (2..=7)
            .map(|n| {
                out.warnings
                    .iter()
                    .any(|w| w.contains(&format!("line {n} ")))
            })
            .collect();
        assert_eq!(lines, vec![true; 6], "{:#?}", out.warnings);
        assert_eq!(out.warning_count, 6);
        let top = out.session.top(10, true);
        assert_eq!(top.len(), 1);
        assert_eq!(top[0].key.class, "Kernel");
    }

    #[test]
    fn a_repeated_capture_takes_each_keys_median_over_the_runs() {
        let mut f = entry(0, "x.lean", 3);
        f.runs = (0..3)
            .map(|r| RunEntry {
                repeat: r,
                status: FileStatus::Ok,
                capture: u64::from(r) + 1,
                recording: format!("files/x-{r}.lsrec"),
                elapsed_ms: None,
                traced_ms: None,
                capture_wall_ms: None,
            })
            .collect();
        let mut m = test_manifest(vec![f, entry(1, "y.lean", 9)]);
        m.repeats = Some(Repeats { runs: 3, warmup: 0 });
        // Runs of x apart, with y's rows between them; "Meta.a" only in two runs.
        let bytes = index(&[
            hot(0, 1, "x.lean", "Kernel", "", 1.0),
            hot(0, 1, "x.lean", "Meta.a", "", 10.0),
            hot(1, 9, "y.lean", "Kernel", "", 100.0),
            hot(0, 2, "x.lean", "Kernel", "", 7.0),
            hot(0, 3, "x.lean", "Kernel", "", 3.0),
            hot(0, 3, "x.lean", "Meta.a", "", 20.0),
        ]);
        let out = run(&mut m, &bytes, None);
        assert!(out.warnings.is_empty(), "{:?}", out.warnings);
        let top = out.session.top(10, true);
        let kernel = top.iter().find(|r| r.key.class == "Kernel").unwrap();
        // x: median of 1, 7, 3 = 3 ms; y: 100 ms.
        assert_eq!(kernel.total, 103_000_000);
        assert_eq!(kernel.files, 2);
        let a = top.iter().find(|r| r.key.class == "Meta.a").unwrap();
        // median of 10 and 20 (the runs that have it) = 15 ms
        assert_eq!(a.total, 15_000_000);
    }

    #[test]
    fn folders_match_whole_components() {
        assert!(under_folder("A/B/x.lean", Some("A/B")));
        assert!(under_folder("A/B/x.lean", Some("./A/")));
        assert!(!under_folder("A/Bc/x.lean", Some("A/B")));
        assert!(under_folder("A/Bc/x.lean", None));
        assert!(under_folder("A/Bc/x.lean", Some(".")));
    }
}
