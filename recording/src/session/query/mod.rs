//! Queries over a session's index: the top rows of one kind, by total or
//! self time, under a path; folder totals as sums of committed files.
//!
//! The index is streamed line by line and only the best `limit` rows are
//! kept (a bounded heap holding their raw lines), so memory depends on the
//! limit and the longest line, not on the size of the index. Lines are
//! probed with a small scanner for flat JSON objects that reads only the
//! fields a query needs ([`line_scanner`]); only the winning lines are
//! fully parsed.

mod hot_spot_line;
pub(crate) mod hot_spots;
mod line_scanner;

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};
use std::io::{Read, Seek, SeekFrom};

use serde::Serialize;

use super::rows::{IndexRow, RowKind};
use super::{ms_to_ns, ns_to_ms, SessionError};
use crate::limits::{MAX_INDEX_LINE_BYTES, MAX_REPORTED_WARNINGS};
use crate::types::RangeKind;
use line_scanner::{quick_prefix, Probe};

/// Size of the read buffer.
const READ_CHUNK: usize = 1 << 20;

/// What to list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum QueryKind {
    File,
    Folder,
    Declaration,
    Tactic,
}

impl QueryKind {
    pub fn as_str(self) -> &'static str {
        match self {
            QueryKind::File => "file",
            QueryKind::Folder => "folder",
            QueryKind::Declaration => "declaration",
            QueryKind::Tactic => "tactic",
        }
    }

    /// The index rows a query of this kind reads.
    pub(crate) fn row_kind(self) -> RowKind {
        match self {
            QueryKind::File | QueryKind::Folder => RowKind::File,
            QueryKind::Declaration => RowKind::Declaration,
            QueryKind::Tactic => RowKind::Tactic,
        }
    }
}

/// The order of the rows: by total (inclusive) or self time, longest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortBy {
    Total,
    SelfTime,
    /// Declarations: the memory Lean gained while each ran (rows without it last).
    MemoryGrowth,
}

#[derive(Debug, Clone)]
pub struct QuerySpec {
    pub kind: QueryKind,
    pub sort: SortBy,
    /// At most this many rows (`None`: all).
    pub limit: Option<usize>,
    /// Only rows whose path is this project-relative path or lies under it
    /// (whole path components).
    pub path: Option<String>,
}

/// One result row.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QueryRow {
    pub kind: QueryKind,
    pub name: String,
    pub path: String,
    pub duration_ms: Option<f64>,
    pub self_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub declaration: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attribution: Option<RangeKind>,
    /// The session's file id (file, declaration and tactic rows).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<u32>,
    /// How many committed files a folder row sums.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files: Option<u64>,
    /// A repeated capture: `durationMs` over the runs that have the row
    /// (`durationMs` is then its median).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_spread: Option<crate::repeats::Spread>,
    /// A repeated capture: `selfMs` over the runs (`selfMs` is its median).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub self_spread: Option<crate::repeats::Spread>,
    /// Declarations: the resident memory Lean gained while it ran, when it was sampled.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_growth_bytes: Option<u64>,
    /// Files: the peak resident memory of Lean's process tree, when it was sampled.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_peak_bytes: Option<u64>,
    /// A repeated capture: the row's memory figure over the runs that sampled it
    /// (`memoryGrowthBytes` of a declaration, `memoryPeakBytes` of a file, each then the
    /// median, rounded to a byte).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_spread: Option<crate::repeats::Spread>,
}

impl QueryRow {
    /// A row of a query of `kind` (which reads only rows of its [`QueryKind::row_kind`]).
    fn from_index(r: IndexRow, kind: QueryKind) -> QueryRow {
        QueryRow {
            kind,
            name: r.name,
            path: r.path,
            duration_ms: r.duration_ms,
            self_ms: r.self_ms,
            line: r.line,
            end_line: r.end_line,
            declaration: r.declaration,
            attribution: r.attribution,
            file: Some(r.file),
            files: None,
            duration_spread: None,
            self_spread: None,
            memory_growth_bytes: r.memory_growth_bytes,
            memory_peak_bytes: r.memory_peak_bytes,
            memory_spread: None,
        }
    }
}

/// The result of a query.
#[derive(Debug, Clone, Default)]
pub struct QueryOutcome {
    pub rows: Vec<QueryRow>,
    /// Rows that matched kind and path (before the limit).
    pub matched: u64,
    pub warnings: Vec<String>,
    /// All warnings, including those beyond [`MAX_REPORTED_WARNINGS`].
    pub warning_count: u64,
}

/// For each file id, the capture whose rows count (`None`: not committed).
#[derive(Debug, Clone, Default)]
pub struct Committed {
    captures: Vec<Option<u64>>,
}

impl Committed {
    pub fn new(captures: Vec<Option<u64>>) -> Committed {
        Committed { captures }
    }

    /// True when rows of file `file` from capture `capture` are trusted.
    pub fn accepts(&self, file: u64, capture: u64) -> bool {
        usize::try_from(file)
            .ok()
            .and_then(|f| self.captures.get(f).copied().flatten())
            == Some(capture)
    }
}

/// Queries an index. Reads only the first `committed_bytes` of it (the
/// manifest's `indexBytes`); `index_len` is its length on disk, to report
/// what lies beyond.
pub fn query_index(
    index: impl Read,
    index_len: u64,
    committed_bytes: u64,
    committed: &Committed,
    spec: &QuerySpec,
) -> Result<QueryOutcome, SessionError> {
    let mut c = Collector::new(spec);
    c.check_length(index_len, committed_bytes);
    scan_part(index.take(committed_bytes), false, None, &mut c, committed)?;
    Ok(c.finish())
}

/// Indexes smaller than this are read by one thread.
const MIN_PARALLEL_BYTES: u64 = 8 << 20;

/// [`query_index`] over `readers.len()` byte ranges of the index at once, one
/// thread each (a large index is read that many times faster). Each reader is
/// the whole index file, positioned anywhere (it is seeked to its range); the
/// result is the one `query_index` gives, warnings and ties included.
pub fn query_index_parallel<R: Read + Seek + Send>(
    readers: Vec<R>,
    index_len: u64,
    committed_bytes: u64,
    committed: &Committed,
    spec: &QuerySpec,
) -> Result<QueryOutcome, SessionError> {
    query_index_parts(
        readers,
        index_len,
        committed_bytes,
        committed,
        spec,
        MIN_PARALLEL_BYTES,
    )
}

/// [`query_index_parallel`] with parts of at least `min_part` bytes.
fn query_index_parts<R: Read + Seek + Send>(
    mut readers: Vec<R>,
    index_len: u64,
    committed_bytes: u64,
    committed: &Committed,
    spec: &QuerySpec,
    min_part: u64,
) -> Result<QueryOutcome, SessionError> {
    let readable = index_len.min(committed_bytes);
    let parts = (readers.len() as u64)
        .min(readable / min_part.max(1))
        .max(1);
    if parts <= 1 {
        let Some(mut r) = readers.pop() else {
            return query_index(&[][..], index_len, committed_bytes, committed, spec);
        };
        r.seek(SeekFrom::Start(0))?;
        return query_index(r, index_len, committed_bytes, committed, spec);
    }
    readers.truncate(parts as usize);
    // Part k owns the lines that start in [bounds[k], bounds[k + 1]).
    let bounds: Vec<u64> = (0..=parts).map(|k| readable * k / parts).collect();
    let results: Vec<Result<(Collector<'_>, u64), SessionError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = readers
            .into_iter()
            .enumerate()
            .map(|(k, mut r)| {
                let (from, to) = (bounds[k], bounds[k + 1]);
                let last = k + 1 == parts as usize;
                scope.spawn(move || {
                    // Parts after the first start one byte early: the line that byte ends
                    // belongs to the part before.
                    let skip = from > 0;
                    let at = from - u64::from(skip);
                    r.seek(SeekFrom::Start(at))?;
                    let mut c = Collector::new(spec);
                    let own = (!last).then_some(to - from);
                    let lines =
                        scan_part(r.take(committed_bytes - at), skip, own, &mut c, committed)?;
                    Ok((c, lines))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("an index reader panicked"))
            .collect()
    });
    let mut c = Collector::new(spec);
    c.check_length(index_len, committed_bytes);
    let mut line_base = 0;
    for r in results {
        let (part, lines) = r?;
        c.absorb(part, line_base);
        line_base += lines;
    }
    Ok(c.finish())
}

/// Reads lines of the index into `c`. With `skip`, everything through the
/// first newline is passed over (it ends a line of the part before). With
/// `own`, only the lines that start within the first `own` bytes (after the
/// skipped byte) are read, the last of them to its end, wherever that is.
/// Returns the number of lines read; warnings count lines from 1.
fn scan_part(
    mut input: impl Read,
    skip: bool,
    own: Option<u64>,
    c: &mut Collector<'_>,
    committed: &Committed,
) -> Result<u64, SessionError> {
    let mut buf = vec![0u8; READ_CHUNK];
    // Bytes of a line that started in an earlier chunk.
    let mut carry: Vec<u8> = Vec::new();
    let mut skipping_long = false;
    let mut passing_over = skip;
    let mut line_no: u64 = 0;
    // Input offset of `buf[0]`, counted from the part's first owned byte.
    let mut base: i64 = -i64::from(skip);
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e.into()),
        };
        let mut at = 0;
        while let Some(i) = memchr::memchr(b'\n', &buf[at..n]) {
            let nl = at + i;
            let chunk = &buf[at..nl];
            if passing_over {
                passing_over = false;
            } else {
                line_no += 1;
                if skipping_long {
                    skipping_long = false;
                } else if carry.is_empty() {
                    if chunk.len() > MAX_INDEX_LINE_BYTES {
                        c.warn_line(line_no, long_line);
                    } else {
                        c.line(chunk, line_no, committed);
                    }
                } else {
                    carry.extend_from_slice(chunk);
                    if carry.len() > MAX_INDEX_LINE_BYTES {
                        c.warn_line(line_no, long_line);
                    } else {
                        let line = std::mem::take(&mut carry);
                        c.line(&line, line_no, committed);
                        carry = line;
                    }
                    carry.clear();
                }
            }
            at = nl + 1;
            let next_line = base + at as i64;
            if own.is_some_and(|own| next_line >= own as i64) {
                return Ok(line_no);
            }
        }
        let rest = &buf[at..n];
        if !skipping_long && !passing_over {
            if carry.len() + rest.len() > MAX_INDEX_LINE_BYTES {
                c.warn_line(line_no + 1, long_line);
                carry.clear();
                skipping_long = true;
            } else {
                carry.extend_from_slice(rest);
            }
        }
        base += n as i64;
    }
    if !passing_over && (!carry.is_empty() || skipping_long) {
        let bytes = carry.len();
        c.warn_line(line_no + 1, move |line| {
            format!(
                "ignored a partial last line of index.jsonl (line {line}, {bytes} bytes without an end)"
            )
        });
    }
    Ok(line_no)
}

/// Queries rows already in memory (the rows of one recording).
pub fn query_rows(rows: impl IntoIterator<Item = IndexRow>, spec: &QuerySpec) -> QueryOutcome {
    let mut c = Collector::new(spec);
    for r in rows {
        if r.kind != spec.kind.row_kind() || !c.path_matches(r.path.as_bytes()) {
            continue;
        }
        if spec.kind == QueryKind::Folder {
            c.add_to_folders(&r.path, r.duration_ms, r.self_ms);
            continue;
        }
        let key = match spec.sort {
            SortBy::Total => r.duration_ms,
            SortBy::SelfTime => r.self_ms,
            SortBy::MemoryGrowth => r.memory_growth_bytes.map(|b| b as f64),
        };
        c.offer(key, || Payload::Row(Box::new(r)));
    }
    c.finish()
}

fn long_line(line_no: u64) -> String {
    format!("skipped line {line_no} of index.jsonl: longer than {MAX_INDEX_LINE_BYTES} bytes")
}

enum Payload {
    Line(Vec<u8>),
    Row(Box<IndexRow>),
}

struct Entry {
    key: Option<f64>,
    seq: u64,
    payload: Payload,
}

impl Entry {
    /// Greater is better: longer time, then earlier in the index.
    fn rank_cmp(&self, other: &Entry) -> Ordering {
        rank_cmp(self.key, self.seq, other.key, other.seq)
    }
}

fn rank_cmp(ka: Option<f64>, sa: u64, kb: Option<f64>, sb: u64) -> Ordering {
    let by_key = match (ka, kb) {
        (Some(a), Some(b)) => a.total_cmp(&b),
        (a, b) => a.is_some().cmp(&b.is_some()),
    };
    by_key.then(sb.cmp(&sa))
}

/// Heap order: the worst entry on top.
struct Worst(Entry);

impl PartialEq for Worst {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Worst {}
impl PartialOrd for Worst {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Worst {
    fn cmp(&self, other: &Self) -> Ordering {
        other.0.rank_cmp(&self.0)
    }
}

#[derive(Default)]
struct FolderSum {
    total_ns: u64,
    self_ns: u64,
    files: u64,
    timed: bool,
}

struct Collector<'s> {
    spec: &'s QuerySpec,
    filter: Option<Vec<u8>>,
    heap: BinaryHeap<Worst>,
    all: Vec<Entry>,
    folders: HashMap<String, FolderSum>,
    matched: u64,
    seq: u64,
    warnings: Vec<Warning>,
    warning_count: u64,
}

/// A warning; one about a line is worded once the line's number in the whole
/// index is known (a part of the index counts its lines from 1).
enum Warning {
    Text(String),
    Line(u64, Box<dyn Fn(u64) -> String + Send>),
}

impl Warning {
    fn render(self, line_base: u64) -> String {
        match self {
            Warning::Text(t) => t,
            Warning::Line(n, text) => text(line_base + n),
        }
    }
}

impl<'s> Collector<'s> {
    fn new(spec: &'s QuerySpec) -> Self {
        Collector {
            spec,
            filter: spec.path.as_deref().and_then(normalize_filter),
            heap: BinaryHeap::new(),
            all: Vec::new(),
            folders: HashMap::new(),
            matched: 0,
            seq: 0,
            warnings: Vec::new(),
            warning_count: 0,
        }
    }

    fn warn(&mut self, w: String) {
        self.push_warning(Warning::Text(w));
    }

    /// A warning about the line `line_no`, worded by `text` from its number.
    fn warn_line(&mut self, line_no: u64, text: impl Fn(u64) -> String + Send + 'static) {
        self.push_warning(Warning::Line(line_no, Box::new(text)));
    }

    fn push_warning(&mut self, w: Warning) {
        self.warning_count += 1;
        if self.warnings.len() < MAX_REPORTED_WARNINGS {
            self.warnings.push(w);
        }
    }

    /// Warns when the index on disk is longer or shorter than what the
    /// manifest committed.
    fn check_length(&mut self, index_len: u64, committed_bytes: u64) {
        if index_len > committed_bytes {
            self.warn(format!(
                "ignored the last {} bytes of index.jsonl: they follow the last committed file (an unfinished capture or a damaged tail)",
                index_len - committed_bytes
            ));
        } else if index_len < committed_bytes {
            self.warn(format!(
                "index.jsonl has {index_len} bytes but the manifest committed {committed_bytes}; rows of the missing part are lost"
            ));
        }
    }

    /// Takes over what a collector of the next part of the index found, as if
    /// its lines had come after this one's; its lines are numbered from
    /// `line_base + 1`.
    fn absorb(&mut self, part: Collector<'_>, line_base: u64) {
        let seq_base = self.seq;
        self.matched += part.matched;
        self.seq += part.seq;
        self.warning_count += part.warning_count;
        for w in part.warnings {
            if self.warnings.len() < MAX_REPORTED_WARNINGS {
                self.warnings.push(Warning::Text(w.render(line_base)));
            }
        }
        for (name, sum) in part.folders {
            let s = self.folders.entry(name).or_default();
            s.total_ns = s.total_ns.saturating_add(sum.total_ns);
            s.self_ns = s.self_ns.saturating_add(sum.self_ns);
            s.files += sum.files;
            s.timed |= sum.timed;
        }
        let entries = part
            .all
            .into_iter()
            .chain(part.heap.into_iter().map(|w| w.0));
        for mut e in entries {
            e.seq += seq_base;
            self.keep(e);
        }
    }

    fn path_matches(&self, path: &[u8]) -> bool {
        match &self.filter {
            None => true,
            Some(f) => path.starts_with(f) && (path.len() == f.len() || path[f.len()] == b'/'),
        }
    }

    /// Considers one index line.
    fn line(&mut self, line: &[u8], line_no: u64, committed: &Committed) {
        if line.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        // Most rows are of another kind or of an uncounted capture: decide
        // from the start of the line when it allows.
        if let Some((capture, file, kind)) = quick_prefix(line) {
            if kind != self.spec.kind.row_kind().as_str().as_bytes()
                || !committed.accepts(file, capture)
            {
                return;
            }
        }
        let probe = match Probe::scan(line) {
            Some(p) => p,
            None => match serde_json::from_slice::<IndexRow>(line) {
                Ok(r) => Probe::from_row(&r),
                Err(e) => {
                    let e = e.to_string();
                    self.warn_line(line_no, move |n| {
                        format!("skipped line {n} of index.jsonl: not an index row ({e})")
                    });
                    return;
                }
            },
        };
        let Some(p) = probe.resolve() else {
            self.warn_line(line_no, |n| format!(
                "skipped line {n} of index.jsonl: not an index row (missing or invalid capture, file, kind, path or times)"
            ));
            return;
        };
        if !committed.accepts(p.file, p.capture) {
            return;
        }
        if p.kind != self.spec.kind.row_kind().as_str().as_bytes() {
            return;
        }
        if !self.path_matches(&p.path) {
            return;
        }
        if self.spec.kind == QueryKind::Folder {
            match std::str::from_utf8(&p.path) {
                Ok(path) => {
                    let path = path.to_string();
                    self.add_to_folders(&path, p.duration, p.self_time);
                }
                Err(_) => self.warn_line(line_no, |n| {
                    format!("skipped line {n} of index.jsonl: its path is not UTF-8")
                }),
            }
            return;
        }
        let key = match self.spec.sort {
            SortBy::Total => p.duration,
            SortBy::SelfTime => p.self_time,
            SortBy::MemoryGrowth => p.memory,
        };
        self.offer(key, || Payload::Line(line.to_vec()));
    }

    /// Keeps a row if it ranks among the best `limit`.
    fn offer(&mut self, key: Option<f64>, payload: impl FnOnce() -> Payload) {
        self.matched += 1;
        let seq = self.seq;
        self.seq += 1;
        let Some(limit) = self.spec.limit else {
            self.all.push(Entry {
                key,
                seq,
                payload: payload(),
            });
            return;
        };
        if limit == 0 {
            return;
        }
        if self.heap.len() == limit {
            let worst = &self.heap.peek().expect("a full heap has a top").0;
            if rank_cmp(key, seq, worst.key, worst.seq) != Ordering::Greater {
                return;
            }
            self.heap.pop();
        }
        self.heap.push(Worst(Entry {
            key,
            seq,
            payload: payload(),
        }));
    }

    /// Keeps an entry already counted (by another collector) if it ranks
    /// among the best `limit`.
    fn keep(&mut self, e: Entry) {
        let Some(limit) = self.spec.limit else {
            self.all.push(e);
            return;
        };
        if limit == 0 {
            return;
        }
        if self.heap.len() == limit {
            let worst = &self.heap.peek().expect("a full heap has a top").0;
            if e.rank_cmp(worst) != Ordering::Greater {
                return;
            }
            self.heap.pop();
        }
        self.heap.push(Worst(e));
    }

    /// Adds a file's times to each of its folders (and the root, `.`, when
    /// no path filter is given).
    fn add_to_folders(&mut self, path: &str, duration: Option<f64>, self_time: Option<f64>) {
        let mut folders: Vec<&str> = path
            .match_indices('/')
            .map(|(i, _)| &path[..i])
            .filter(|f| self.path_matches(f.as_bytes()))
            .collect();
        if self.filter.is_none() {
            folders.push(".");
        }
        for f in folders {
            let s = self.folders.entry(f.to_string()).or_default();
            s.files += 1;
            // A negative or non-finite time (not written by leanscope) adds nothing.
            if let Some(d) = duration {
                s.total_ns = s.total_ns.saturating_add(ms_to_ns(d).unwrap_or(0));
                s.timed = true;
            }
            if let Some(d) = self_time {
                s.self_ns = s.self_ns.saturating_add(ms_to_ns(d).unwrap_or(0));
            }
        }
    }

    fn finish(mut self) -> QueryOutcome {
        if self.spec.kind == QueryKind::Folder {
            let folders = std::mem::take(&mut self.folders);
            let mut names: Vec<_> = folders.into_iter().collect();
            names.sort_by(|a, b| a.0.cmp(&b.0));
            for (name, s) in names {
                let total = s.timed.then(|| ns_to_ms(s.total_ns));
                let self_time = s.timed.then(|| ns_to_ms(s.self_ns));
                let key = match self.spec.sort {
                    SortBy::Total | SortBy::MemoryGrowth => total,
                    SortBy::SelfTime => self_time,
                };
                self.offer(key, || {
                    Payload::Row(Box::new(IndexRow {
                        duration_ms: total,
                        self_ms: self_time,
                        ..IndexRow::new(RowKind::File, 0, s.files, &name.clone(), name)
                    }))
                });
            }
        }
        let mut entries: Vec<Entry> = std::mem::take(&mut self.all);
        entries.extend(std::mem::take(&mut self.heap).into_iter().map(|w| w.0));
        entries.sort_by(|a, b| b.rank_cmp(a));
        let mut rows = Vec::with_capacity(entries.len());
        for e in entries {
            match e.payload {
                Payload::Row(r) if self.spec.kind == QueryKind::Folder => rows.push(QueryRow {
                    kind: QueryKind::Folder,
                    files: Some(r.capture),
                    file: None,
                    ..QueryRow::from_index(*r, QueryKind::Folder)
                }),
                Payload::Row(r) => rows.push(QueryRow::from_index(*r, self.spec.kind)),
                Payload::Line(l) => match serde_json::from_slice::<IndexRow>(&l) {
                    Ok(r) => rows.push(QueryRow::from_index(r, self.spec.kind)),
                    Err(e) => self.warn(format!("skipped an index row: {e}")),
                },
            }
        }
        QueryOutcome {
            rows,
            matched: self.matched,
            warnings: self.warnings.into_iter().map(|w| w.render(0)).collect(),
            warning_count: self.warning_count,
        }
    }
}

/// `./A/B/` → `A/B`; `.` or empty → no filter.
fn normalize_filter(p: &str) -> Option<Vec<u8>> {
    let parts: Vec<&str> = p
        .split(['/', '\\'])
        .filter(|c| !c.is_empty() && *c != ".")
        .collect();
    (!parts.is_empty()).then(|| parts.join("/").into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(file: u32, capture: u64, kind: RowKind, path: &str, name: &str, ms: f64) -> IndexRow {
        IndexRow {
            capture,
            file,
            kind,
            path: path.into(),
            name: name.into(),
            duration_ms: Some(ms),
            self_ms: Some(ms / 2.0),
            line: Some(1),
            end_line: Some(2),
            declaration: None,
            attribution: Some(RangeKind::Exact),
            class: None,
            count: None,
            declaration_ms: None,
            holds: None,
            memory_growth_bytes: None,
            memory_peak_bytes: None,
        }
    }

    fn index(rows: &[IndexRow]) -> Vec<u8> {
        let mut v = Vec::new();
        for r in rows {
            super::super::write_row(r, &mut v);
        }
        v
    }

    fn spec(kind: QueryKind, limit: Option<usize>, path: Option<&str>) -> QuerySpec {
        QuerySpec {
            kind,
            sort: SortBy::Total,
            limit,
            path: path.map(String::from),
        }
    }

    fn run(bytes: &[u8], committed: &Committed, s: &QuerySpec) -> QueryOutcome {
        query_index(bytes, bytes.len() as u64, bytes.len() as u64, committed, s).unwrap()
    }

    #[test]
    fn declarations_sort_by_memory_growth_streamed_and_in_memory() {
        let grew = |name: &str, ms: f64, bytes: Option<u64>| IndexRow {
            memory_growth_bytes: bytes,
            ..row(0, 1, RowKind::Declaration, "A.lean", name, ms)
        };
        let rows = [
            grew("slow", 90.0, Some(1 << 20)),
            grew("big", 10.0, Some(300 << 20)),
            grew("unsampled", 50.0, None),
            grew("mid", 20.0, Some(40 << 20)),
        ];
        let bytes = index(&rows);
        let committed = Committed::new(vec![Some(1)]);
        let s = QuerySpec {
            sort: SortBy::MemoryGrowth,
            ..spec(QueryKind::Declaration, Some(3), None)
        };
        let streamed = run(&bytes, &committed, &s);
        let names: Vec<&str> = streamed.rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["big", "mid", "slow"]);
        assert_eq!(streamed.rows[0].memory_growth_bytes, Some(300 << 20));
        let held = query_rows(rows.iter().cloned(), &s);
        assert_eq!(held.rows, streamed.rows);
    }

    #[test]
    fn top_rows_only_committed_and_under_the_path() {
        let rows = [
            row(0, 1, RowKind::Declaration, "A/B/x.lean", "a", 5.0),
            row(0, 1, RowKind::Declaration, "A/B/x.lean", "b", 9.0),
            row(1, 2, RowKind::Declaration, "A/Bc/y.lean", "c", 7.0),
            // superseded capture of file 0
            row(0, 0, RowKind::Declaration, "A/B/x.lean", "old", 99.0),
            // uncommitted file 2
            row(2, 3, RowKind::Declaration, "A/B/z.lean", "z", 50.0),
            row(1, 2, RowKind::Tactic, "A/Bc/y.lean", "t", 70.0),
        ];
        let bytes = index(&rows);
        let committed = Committed::new(vec![Some(1), Some(2), None]);
        let out = run(
            &bytes,
            &committed,
            &spec(QueryKind::Declaration, Some(2), None),
        );
        let names: Vec<_> = out.rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["b", "c"]);
        assert_eq!(out.matched, 3);
        let out = run(
            &bytes,
            &committed,
            &spec(QueryKind::Declaration, None, Some("./A/B/")),
        );
        let names: Vec<_> = out.rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["b", "a"]);
        assert!(out.warnings.is_empty());
    }

    #[test]
    fn folders_sum_committed_files() {
        let rows = [
            row(0, 1, RowKind::File, "A/B/x.lean", "A.B.x", 1.5),
            row(1, 2, RowKind::File, "A/y.lean", "A.y", 2.25),
            row(2, 3, RowKind::File, "A/B/z.lean", "A.B.z", 100.0),
        ];
        let bytes = index(&rows);
        let committed = Committed::new(vec![Some(1), Some(2), None]);
        let out = run(&bytes, &committed, &spec(QueryKind::Folder, None, None));
        let got: Vec<_> = out
            .rows
            .iter()
            .map(|r| (r.path.as_str(), r.duration_ms.unwrap(), r.files.unwrap()))
            .collect();
        assert_eq!(got, [(".", 3.75, 2), ("A", 3.75, 2), ("A/B", 1.5, 1)]);
        let out = run(
            &bytes,
            &committed,
            &spec(QueryKind::Folder, None, Some("A/B")),
        );
        assert_eq!(out.rows.len(), 1);
    }

    #[test]
    fn damaged_lines_are_skipped_with_warnings() {
        let rows = [row(0, 1, RowKind::File, "x.lean", "x", 1.0)];
        let mut bytes = index(&rows);
        bytes.extend_from_slice(b"not json\n");
        let full = bytes.len() as u64;
        bytes.extend_from_slice(br#"{"capture":1,"file":0,"kind":"fi"#);
        let committed = Committed::new(vec![Some(1)]);
        let s = spec(QueryKind::File, Some(5), None);
        // The manifest committed everything: the half line is read and reported.
        let out = query_index(
            &bytes[..],
            bytes.len() as u64,
            bytes.len() as u64,
            &committed,
            &s,
        )
        .unwrap();
        assert_eq!(out.rows.len(), 1);
        assert_eq!(out.warning_count, 2, "{:?}", out.warnings);
        assert!(out.warnings[0].contains("line 2"), "{:?}", out.warnings);
        assert!(
            out.warnings[1].contains("partial last line"),
            "{:?}",
            out.warnings
        );
        // The manifest committed less: the tail is not read, but reported.
        let out = query_index(&bytes[..], bytes.len() as u64, full, &committed, &s).unwrap();
        assert_eq!(out.rows.len(), 1);
        assert!(
            out.warnings
                .iter()
                .any(|w| w.contains("ignored the last 32 bytes")),
            "{:?}",
            out.warnings
        );
    }

    #[test]
    fn a_line_at_the_length_limit_is_read_and_one_over_is_skipped() {
        let base = row(0, 1, RowKind::File, "x.lean", "", 1.0);
        let empty_len = index(std::slice::from_ref(&base)).len() - 1;
        let fits = IndexRow {
            name: "n".repeat(MAX_INDEX_LINE_BYTES - empty_len),
            ..base.clone()
        };
        let over = IndexRow {
            name: "n".repeat(MAX_INDEX_LINE_BYTES - empty_len + 1),
            ..base
        };
        let committed = Committed::new(vec![Some(1)]);
        let s = spec(QueryKind::File, Some(5), None);
        let out = run(&index(&[fits]), &committed, &s);
        assert_eq!((out.rows.len(), out.warning_count), (1, 0));
        let out = run(&index(&[over]), &committed, &s);
        assert_eq!(out.rows.len(), 0);
        assert!(
            out.warnings[0].contains("longer than"),
            "{:?}",
            out.warnings
        );
    }

    #[test]
    fn parallel_parts_give_what_one_reader_gives() {
        let mut rows = Vec::new();
        for i in 0..40u32 {
            let kind = [RowKind::File, RowKind::Declaration, RowKind::Tactic][i as usize % 3];
            let path = format!("A/{}/F{}.lean", i % 4, i % 7);
            // repeated times make ties, which index order breaks
            rows.push(row(
                i % 5,
                1,
                kind,
                &path,
                &format!("n{i}"),
                f64::from(i % 6),
            ));
        }
        let mut bytes = index(&rows[..20]);
        bytes.extend_from_slice(b"not json\n\n");
        bytes.extend_from_slice(&index(&rows[20..]));
        bytes.extend_from_slice(br#"{"capture":1,"file":0,"kind":"fi"#);
        let committed = Committed::new(vec![Some(1), Some(1), None, Some(1), Some(1)]);
        let len = bytes.len() as u64;
        for s in [
            spec(QueryKind::Declaration, Some(3), None),
            spec(QueryKind::Tactic, Some(50), Some("A/1")),
            spec(QueryKind::File, None, None),
            spec(QueryKind::Folder, Some(4), None),
        ] {
            for committed_bytes in [len, len - 40, len + 5] {
                let one = query_index(&bytes[..], len, committed_bytes, &committed, &s).unwrap();
                for parts in 1..=9 {
                    let readers: Vec<_> =
                        (0..parts).map(|_| std::io::Cursor::new(&bytes)).collect();
                    let many = query_index_parts(readers, len, committed_bytes, &committed, &s, 1)
                        .unwrap();
                    assert_eq!(many.rows, one.rows, "{parts} parts, {committed_bytes}");
                    assert_eq!(many.matched, one.matched);
                    assert_eq!(many.warnings, one.warnings, "{parts} parts");
                    assert_eq!(many.warning_count, one.warning_count);
                }
            }
        }
    }

    #[test]
    fn ties_keep_index_order_and_untimed_rows_come_last() {
        let mut rows = vec![
            row(0, 1, RowKind::Declaration, "x.lean", "first", 3.0),
            row(0, 1, RowKind::Declaration, "x.lean", "second", 3.0),
            row(0, 1, RowKind::Declaration, "x.lean", "none", 0.0),
        ];
        rows[2].duration_ms = None;
        let committed = Committed::new(vec![Some(1)]);
        let out = run(
            &index(&rows),
            &committed,
            &spec(QueryKind::Declaration, None, None),
        );
        let names: Vec<_> = out.rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["first", "second", "none"]);
        let out = run(
            &index(&rows),
            &committed,
            &spec(QueryKind::Declaration, Some(1), None),
        );
        assert_eq!(out.rows[0].name, "first");
    }
}
