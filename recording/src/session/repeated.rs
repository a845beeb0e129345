//! Queries over a repeated capture (`profile --repeat N`): every file,
//! declaration and tactic row is the **median** of its runs' rows, with
//! the spread ([`crate::repeats::Spread`]: min–max, quartiles from four
//! runs) of its time and self time. Rows are the same across runs when
//! they name the same file, kind, name, lines and declaration; a row some
//! runs lack has the spread of the runs that have it (`runs` says how
//! many). Folder rows sum the files' medians.
//!
//! The index is read once; the rows of the asked kind are grouped in
//! memory, at most [`MAX_REPEATED_ROWS`] of them.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read};

use super::query::{query_rows, QueryOutcome, QuerySpec};
use super::rows::IndexRow;
use super::SessionError;
use crate::limits::{MAX_INDEX_LINE_BYTES, MAX_REPEATED_ROWS, MAX_REPORTED_WARNINGS};
use crate::repeats::Spread;

/// What makes two runs' rows the same row.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct RowKey {
    file: u32,
    name: String,
    line: Option<u32>,
    end_line: Option<u32>,
    declaration: Option<String>,
}

impl RowKey {
    fn of(r: &IndexRow) -> RowKey {
        RowKey {
            file: r.file,
            name: r.name.clone(),
            line: r.line,
            end_line: r.end_line,
            declaration: r.declaration.clone(),
        }
    }
}

/// One row over the runs: the first run's row and every run's values.
struct Group {
    row: IndexRow,
    durations: Vec<f64>,
    selfs: Vec<f64>,
    /// The row's memory figure in each run that sampled it ([`memory_of`]).
    memory: Vec<f64>,
}

/// A row's memory figure: a declaration's growth, a file's peak.
fn memory_of(r: &IndexRow) -> Option<u64> {
    r.memory_growth_bytes.or(r.memory_peak_bytes)
}

/// A row of a repeated capture: the median of its runs' rows (in
/// `row.duration_ms` and `row.self_ms`) with the spreads.
#[derive(Debug, Clone, PartialEq)]
pub struct MedianRow {
    pub row: IndexRow,
    pub duration: Option<Spread>,
    pub self_: Option<Spread>,
    /// The memory figure (a declaration's growth, a file's peak) over the runs that sampled
    /// it; the row holds its median, rounded to a byte.
    pub memory: Option<Spread>,
}

/// Index rows of the runs of a repeated capture, grouped into one row per
/// [`RowKey`] (the same file, name, lines and declaration) as they come.
#[derive(Default)]
pub struct RunGroups {
    groups: HashMap<RowKey, usize>,
    list: Vec<Group>,
}

impl RunGroups {
    /// Adds one run's row to its group.
    pub fn add(&mut self, r: IndexRow) {
        let key = RowKey::of(&r);
        let list = &mut self.list;
        let at = *self.groups.entry(key).or_insert_with(|| {
            list.push(Group {
                row: r.clone(),
                durations: Vec::new(),
                selfs: Vec::new(),
                memory: Vec::new(),
            });
            list.len() - 1
        });
        let g = &mut self.list[at];
        g.durations.extend(r.duration_ms);
        g.selfs.extend(r.self_ms);
        g.memory.extend(memory_of(&r).map(|b| b as f64));
    }

    /// How many distinct rows there are.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The median rows, in the order their first run's row came.
    pub fn into_medians(self) -> Vec<MedianRow> {
        self.list
            .into_iter()
            .map(|g| {
                let (d, s) = (Spread::of(&g.durations), Spread::of(&g.selfs));
                let memory = Spread::of(&g.memory);
                let median_bytes = memory.map(|m| m.whole().median);
                let is_file = g.row.kind == super::rows::RowKind::File;
                MedianRow {
                    row: IndexRow {
                        duration_ms: d.map(|x| x.median),
                        self_ms: s.map(|x| x.median),
                        memory_growth_bytes: median_bytes.filter(|_| !is_file),
                        memory_peak_bytes: median_bytes.filter(|_| is_file),
                        ..g.row
                    },
                    duration: d,
                    self_: s,
                    memory,
                }
            })
            .collect()
    }
}

/// Queries the first `committed_bytes` of an index of a repeated capture;
/// `runs[file]` holds the capture numbers of the file's committed runs
/// ([`super::Manifest::committed_runs`]).
pub fn query_repeated(
    index: impl Read,
    committed_bytes: u64,
    runs: &[Vec<u64>],
    spec: &QuerySpec,
) -> Result<QueryOutcome, SessionError> {
    let mut reader = BufReader::new(index.take(committed_bytes));
    let mut groups = RunGroups::default();
    let mut warnings = Vec::new();
    let mut line = Vec::new();
    let mut line_no = 0u64;
    let mut rows = 0u64;
    let kind = spec.kind.row_kind();
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
                warnings.push(format!(
                    "skipped line {line_no} of index.jsonl: longer than {MAX_INDEX_LINE_BYTES} bytes"
                ));
            } else {
                warnings.push(format!(
                    "ignored a partial last line of index.jsonl (line {line_no}, {n} bytes without an end)"
                ));
            }
            continue;
        }
        let r: IndexRow = match serde_json::from_slice(&line) {
            Ok(r) => r,
            Err(e) => {
                warnings.push(format!("skipped line {line_no} of index.jsonl: {e}"));
                continue;
            }
        };
        let trusted = runs
            .get(r.file as usize)
            .is_some_and(|c| c.contains(&r.capture));
        if r.kind != kind || !trusted {
            continue;
        }
        rows += 1;
        if rows > MAX_REPEATED_ROWS {
            return Err(SessionError::LimitExceeded {
                what: "rows of one kind in a repeated capture's index",
                value: rows,
                limit: MAX_REPEATED_ROWS,
            });
        }
        groups.add(r);
    }
    let mut spreads: HashMap<RowKey, MedianRow> = HashMap::new();
    let medians: Vec<IndexRow> = groups
        .into_medians()
        .into_iter()
        .map(|m| {
            let row = m.row.clone();
            spreads.insert(RowKey::of(&m.row), m);
            row
        })
        .collect();
    let mut out = query_rows(medians, spec);
    for q in &mut out.rows {
        let Some(file) = q.file else { continue };
        let key = RowKey {
            file,
            name: q.name.clone(),
            line: q.line,
            end_line: q.end_line,
            declaration: q.declaration.clone(),
        };
        if let Some(m) = spreads.get(&key) {
            q.duration_spread = m.duration;
            q.self_spread = m.self_;
            q.memory_spread = m.memory;
        }
    }
    out.warning_count += warnings.len() as u64;
    warnings.truncate(MAX_REPORTED_WARNINGS);
    out.warnings.splice(0..0, warnings);
    out.warnings.truncate(MAX_REPORTED_WARNINGS);
    Ok(out)
}

/// Reads past the end of an over-long line (index readers share it).
pub(crate) fn skip_rest_of_line(r: &mut impl BufRead) -> std::io::Result<()> {
    loop {
        let buf = r.fill_buf()?;
        if buf.is_empty() {
            return Ok(());
        }
        match buf.iter().position(|&b| b == b'\n') {
            Some(i) => {
                r.consume(i + 1);
                return Ok(());
            }
            None => {
                let n = buf.len();
                r.consume(n);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::query::{QueryKind, SortBy};
    use crate::session::rows::{write_row, RowKind};

    fn row(file: u32, capture: u64, name: &str, d: f64, s: f64) -> IndexRow {
        IndexRow {
            capture,
            file,
            kind: RowKind::Declaration,
            path: format!("F{file}.lean"),
            name: name.into(),
            duration_ms: Some(d),
            self_ms: Some(s),
            line: Some(1),
            end_line: Some(2),
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

    fn spec() -> QuerySpec {
        QuerySpec {
            kind: QueryKind::Declaration,
            sort: SortBy::Total,
            limit: None,
            path: None,
        }
    }

    #[test]
    fn medians_and_spreads_by_hand() {
        let mut index = Vec::new();
        // File 0, declaration a over 4 runs: 10 40 30 20 → median 25, q1 17.5, q3 32.5.
        // Declaration b over 3 runs: 5 9 7 → median 7, no quartiles.
        for (c, d) in [(1, 10.0), (2, 40.0), (3, 30.0), (4, 20.0)] {
            write_row(&row(0, c, "a", d, d / 2.0), &mut index);
        }
        for (c, d) in [(1, 5.0), (2, 9.0), (3, 7.0)] {
            write_row(&row(0, c, "b", d, 1.0), &mut index);
        }
        // A run that is not committed (capture 9) never counts.
        write_row(&row(0, 9, "a", 1000.0, 1000.0), &mut index);
        let runs = vec![vec![1, 2, 3, 4]];
        let out = query_repeated(&index[..], index.len() as u64, &runs, &spec()).unwrap();
        assert_eq!(out.rows.len(), 2);
        let a = &out.rows[0];
        assert_eq!(a.name, "a");
        assert_eq!(a.duration_ms, Some(25.0));
        assert_eq!(a.self_ms, Some(12.5));
        let d = a.duration_spread.unwrap();
        assert_eq!((d.runs, d.min, d.max), (4, 10.0, 40.0));
        assert_eq!((d.q1, d.q3), (Some(17.5), Some(32.5)));
        let b = &out.rows[1];
        assert_eq!(b.duration_ms, Some(7.0));
        let d = b.duration_spread.unwrap();
        assert_eq!((d.runs, d.min, d.max, d.q1), (3, 5.0, 9.0, None));
        assert!(out.warnings.is_empty());
    }

    #[test]
    fn memory_gets_medians_and_spreads_like_time() {
        let mut index = Vec::new();
        // Declaration a grew 10, 40, 30 and 20 MiB in four runs, and nothing was sampled in
        // a fifth: the median of the four (25 MiB), their spread, and the runs that have it.
        let mib = 1u64 << 20;
        for (c, g) in [
            (1, Some(10)),
            (2, Some(40)),
            (3, Some(30)),
            (4, Some(20)),
            (5, None),
        ] {
            let r = IndexRow {
                memory_growth_bytes: g.map(|g| g * mib),
                ..row(0, c, "a", 1.0, 1.0)
            };
            write_row(&r, &mut index);
        }
        // The file's peak: 100, 300, 200 MiB → 200 MiB.
        for (c, p) in [(1, 100), (2, 300), (3, 200)] {
            let r = IndexRow {
                kind: RowKind::File,
                memory_peak_bytes: Some(p * mib),
                ..row(0, c, "F0", 5.0, 1.0)
            };
            write_row(&r, &mut index);
        }
        let runs = vec![vec![1, 2, 3, 4, 5]];
        let out = query_repeated(&index[..], index.len() as u64, &runs, &spec()).unwrap();
        let a = &out.rows[0];
        assert_eq!(a.memory_growth_bytes, Some(25 * mib));
        assert_eq!(a.memory_peak_bytes, None);
        let m = a.memory_spread.unwrap();
        assert_eq!(
            (m.runs, m.min, m.max),
            (4, (10 * mib) as f64, (40 * mib) as f64)
        );
        assert_eq!(m.q1, Some(17.5 * mib as f64));
        assert_eq!(a.duration_spread.unwrap().runs, 5);
        let files = QuerySpec {
            kind: QueryKind::File,
            ..spec()
        };
        let out = query_repeated(&index[..], index.len() as u64, &runs, &files).unwrap();
        let f = &out.rows[0];
        assert_eq!(f.memory_peak_bytes, Some(200 * mib));
        assert_eq!(f.memory_growth_bytes, None);
        assert_eq!(f.memory_spread.unwrap().runs, 3);
        // A row no run sampled has no memory figure, not a zero.
        let mut bare = Vec::new();
        write_row(&row(0, 1, "b", 1.0, 1.0), &mut bare);
        let out = query_repeated(&bare[..], bare.len() as u64, &runs, &spec()).unwrap();
        assert_eq!(out.rows[0].memory_growth_bytes, None);
        assert_eq!(out.rows[0].memory_spread, None);
    }

    #[test]
    fn rows_past_the_committed_length_and_damaged_lines() {
        let mut index = Vec::new();
        write_row(&row(0, 1, "a", 10.0, 1.0), &mut index);
        index.extend_from_slice(b"not json\n");
        write_row(&row(0, 2, "a", 30.0, 1.0), &mut index);
        let committed = index.len() as u64;
        write_row(&row(0, 3, "a", 1000.0, 1.0), &mut index);
        let runs = vec![vec![1, 2, 3]];
        let out = query_repeated(&index[..], committed, &runs, &spec()).unwrap();
        assert_eq!(out.rows[0].duration_ms, Some(20.0));
        assert_eq!(out.rows[0].duration_spread.unwrap().runs, 2);
        assert_eq!(out.warning_count, 1);
        assert!(out.warnings[0].contains("line 2"), "{:?}", out.warnings);
    }

    #[test]
    fn an_over_long_line_is_skipped() {
        let mut index = vec![b'x'; MAX_INDEX_LINE_BYTES + 10];
        index.push(b'\n');
        write_row(&row(0, 1, "a", 10.0, 1.0), &mut index);
        let out = query_repeated(&index[..], index.len() as u64, &[vec![1]], &spec()).unwrap();
        assert_eq!(out.rows.len(), 1);
        assert!(
            out.warnings[0].contains("longer than"),
            "{:?}",
            out.warnings
        );
    }
}
