//! One recording in the viewer: streamed in chunk by chunk, then answering
//! the view queries of a file (declarations, tactics, lines, events,
//! timeline). Every number comes from `recording::model`.

use recording::model::{
    ancestors, children_slowest_first, declaration_of_event, declaration_operations,
    declaration_times, file_time, kind_of, line_operations, line_rows, reservation_hint,
    tactic_rows, EventKind, LineRow, LineRowsBuilder, Recording, RecordingBuilder, TacticRow,
    TimeRow,
};
use recording::reader::{Columns, Step, StreamDecoder};
use recording::repeats::{FileRuns, RunTimes, RunsError};
use recording::source_check::check_source_digest;
use recording::{Declaration, RecordingError, SourceRange};
use serde::Serialize;
use serde_json::{json, Value};

use std::cell::OnceCell;

use crate::limits::{MAX_LANE_POINTS, MAX_LISTED_OPERATIONS, MAX_READ_BYTES};
use crate::timeline::{timeline_rows, RowInfo, TimelineIndex};

/// A recording arriving in chunks.
pub struct RecordingLoad {
    decoder: StreamDecoder,
    /// The event columns, reserved for the claimed event count before the
    /// header arrives (see [`RecordingLoad::prefault`]); they hold no
    /// events.
    reserved: Option<Columns>,
    builder: Option<RecordingBuilder>,
    done: Option<Recording>,
    hint: usize,
    bytes: u64,
    /// The header arrived and its source text was not handed out yet.
    source_waiting: bool,
    /// Bytes of room [`RecordingLoad::space`] gave and not yet taken in.
    room: usize,
    /// How far [`RecordingLoad::prefault`] got in each reserved column.
    touched: [usize; 8],
}

impl RecordingLoad {
    /// `claimed_events` (from the session manifest) and `byte_length` (from
    /// the response) size the columns once; the claim is capped by what
    /// the bytes can hold, so a wrong manifest cannot make us allocate.
    pub fn new(claimed_events: u64, byte_length: u64) -> Self {
        RecordingLoad {
            // The source text is checked against its SHA-256 in `finish`,
            // with a digest the caller may compute while events decode.
            decoder: StreamDecoder::leaving_source_check_to_caller(),
            reserved: None,
            builder: None,
            done: None,
            hint: if byte_length > 0 {
                reservation_hint(claimed_events, byte_length)
            } else {
                0
            },
            bytes: 0,
            source_waiting: false,
            room: 0,
            touched: [0; 8],
        }
    }

    pub fn push(&mut self, bytes: &[u8]) -> Result<(), RecordingError> {
        self.room = 0;
        self.bytes += bytes.len() as u64;
        self.decoder.feed(bytes);
        self.decode()
    }

    /// Room for the next `n` bytes (at most [`MAX_READ_BYTES`]), which the
    /// caller writes in place and takes in with [`RecordingLoad::push_space`]:
    /// the browser copies a response body's piece straight there.
    pub fn space(&mut self, n: usize) -> Result<&mut [u8], RecordingError> {
        if n > MAX_READ_BYTES {
            return Err(RecordingError::Invalid(format!(
                "a read of {n} bytes is more than the {MAX_READ_BYTES} taken at once"
            )));
        }
        self.room = n;
        Ok(self.decoder.space(n))
    }

    /// Takes in the first `n` bytes of the room [`RecordingLoad::space`]
    /// gave, and decodes what they complete.
    pub fn push_space(&mut self, n: usize) -> Result<(), RecordingError> {
        if n > self.room {
            return Err(RecordingError::Invalid(format!(
                "{n} bytes were written but room was made for {}",
                self.room
            )));
        }
        self.room = 0;
        self.bytes += n as u64;
        self.decoder.commit(n);
        self.decode()
    }

    /// Decodes what the bytes so far complete.
    fn decode(&mut self) -> Result<(), RecordingError> {
        // Batches decode straight into the builder's columns; none comes
        // before the header, which makes the builder.
        let mut before_header = Columns::default();
        loop {
            let out = match &mut self.builder {
                Some(b) => b.columns_mut(),
                None => &mut before_header,
            };
            let Some(step) = self.decoder.next_into(out)? else {
                break;
            };
            match step {
                Step::Header(h) => {
                    self.source_waiting = true;
                    self.builder = Some(match self.reserved.take() {
                        Some(columns) => RecordingBuilder::with_columns(*h, columns),
                        None => RecordingBuilder::with_capacity(*h, self.hint),
                    });
                }
                Step::Batch { .. } => {
                    if let Some(b) = &mut self.builder {
                        b.take_in();
                    }
                }
                Step::End(footer) => {
                    if let Some(builder) = self.builder.take() {
                        if builder.event_count() as u64 != footer.event_count {
                            return Err(RecordingError::Invalid(format!(
                                "the footer counts {} events but the batches hold {}",
                                footer.event_count,
                                builder.event_count()
                            )));
                        }
                        self.done = Some(builder.finish());
                    }
                }
            }
        }
        Ok(())
    }

    /// While the worker waits for the network, pages in up to `budget`
    /// more bytes of the memory the events will fill: their columns,
    /// reserved for the claimed event count (bounded by what the bytes can
    /// hold) before the header arrives, and after it the builder's room
    /// for the events still to come. The first touch of that memory (a
    /// page fault each 4 KiB, a good part of a big load) then happens
    /// while the worker would otherwise wait, not while decoding. Returns
    /// whether there is more to page in.
    pub fn prefault(&mut self, mut budget: usize) -> bool {
        if self.done.is_some() || self.hint == 0 {
            return false;
        }
        if let Some(b) = &mut self.builder {
            return b.page_in_room(budget);
        }
        let columns = self
            .reserved
            .get_or_insert_with(|| Columns::with_capacity(self.hint));
        columns.events.page_in_room(&mut self.touched, &mut budget)
    }

    pub fn event_count(&self) -> usize {
        match (&self.done, &self.builder) {
            (Some(r), _) => r.len(),
            (None, Some(b)) => b.event_count(),
            _ => 0,
        }
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The embedded source text, once, as soon as the header arrived: the
    /// caller may hash it (SHA-256) while the events decode and give the
    /// digest to [`RecordingLoad::finish`].
    pub fn source_to_check(&mut self) -> Option<&str> {
        if !std::mem::take(&mut self.source_waiting) {
            return None;
        }
        let header = match (&self.done, &self.builder) {
            (Some(r), _) => &r.header,
            (None, Some(b)) => b.header(),
            _ => return None,
        };
        Some(&header.source_text)
    }

    /// The finished recording; fails when the input ended early or the
    /// source text does not match its SHA-256. `source_digest` is the
    /// source text's SHA-256 (hex) when the caller computed it; without
    /// it, it is computed here.
    pub fn finish(self, source_digest: Option<&str>) -> Result<Recording, RecordingError> {
        self.decoder.finish()?;
        let rec = self
            .done
            .ok_or_else(|| RecordingError::Invalid("the recording has no end".into()))?;
        check_source_digest(&rec.header, source_digest)?;
        Ok(rec)
    }
}

/// A loaded recording and what the views computed from it so far.
pub struct FileModel {
    pub rec: Recording,
    /// Built when the timeline is first drawn, not at load.
    timeline: OnceCell<TimelineIndex>,
    /// The timeline's rows and window, known without the index.
    timeline_rows: Vec<RowInfo>,
    window_ns: (u64, u64),
    declarations: Option<Vec<Option<TimeRow>>>,
    tactics: Option<Vec<TacticRow>>,
    lines: Option<Vec<LineRow>>,
    /// The line rows being timed a slice at a time (`line_bars_step`), until `lines`.
    lines_building: Option<LineRowsBuilder>,
    /// A repeated capture: this recording is the file's median run
    /// (`repeat`, 0-based), and `runs` its times taken together with the
    /// other runs' (every time shown is then their median).
    runs: Option<FileRuns>,
    repeat: Option<u32>,
    /// The other runs' times, while they arrive.
    pending_runs: Vec<RunTimes>,
}

/// A declaration of [`FileModel::declarations`].
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DeclarationRow<'a> {
    index: usize,
    name: &'a str,
    kind: &'a str,
    generated: bool,
    range: RangeJson,
    total_ns: Option<u64>,
    self_ns: Option<u64>,
    events: u64,
    share_of_file: Option<f64>,
    /// Over the runs of a repeated capture: the totals are then medians.
    #[serde(skip_serializing_if = "Option::is_none")]
    spread: Option<Value>,
}

/// A source range as the views write it (as `range_json`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RangeJson {
    start_line: u32,
    start_col: u32,
    end_line: u32,
    end_col: u32,
}

impl From<SourceRange> for RangeJson {
    fn from(r: SourceRange) -> Self {
        RangeJson {
            start_line: r.start_line,
            start_col: r.start_col,
            end_line: r.end_line,
            end_col: r.end_col,
        }
    }
}

fn range_json(r: Option<SourceRange>) -> Value {
    match r {
        Some(r) => json!({"startLine": r.start_line, "startCol": r.start_col,
                          "endLine": r.end_line, "endCol": r.end_col}),
        None => Value::Null,
    }
}

fn kind_name(k: EventKind) -> &'static str {
    match k {
        EventKind::Command => "command",
        EventKind::Tactic => "tactic",
        EventKind::Term => "term",
        EventKind::Other => "other",
    }
}

/// A tactic span as the views list it; `k` is its index in source order;
/// over runs, its medians and spread.
fn tactic_json(k: usize, t: &TacticRow, decls: &[Declaration], runs: Option<&FileRuns>) -> Value {
    let spread = runs.and_then(|r| r.tactic(t.range, &t.label));
    let time = spread.map_or(t.time, |s| s.median_row(t.time.count));
    json!({
        "index": k,
        "label": t.label,
        "range": range_json(Some(t.range)),
        "rangeKind": t.range_kind.as_str(),
        "declaration": t.declaration.map(|d| decls[d].name.as_str()),
        "declarationIndex": t.declaration,
        "totalNs": time.total_ns,
        "selfNs": time.self_ns,
        "events": time.count,
        "firstEvent": t.events.first(),
        "spread": spread.map(|s| json!(s.whole())),
    })
}

/// Case-insensitive substring match; an empty filter matches everything.
pub fn matches_filter(filter: &str, texts: &[&str]) -> bool {
    filter.is_empty()
        || texts
            .iter()
            .any(|t| t.to_lowercase().contains(&filter.to_lowercase()))
}

impl FileModel {
    pub fn new(rec: Recording) -> Self {
        let window = rec.window();
        FileModel {
            timeline: OnceCell::new(),
            timeline_rows: timeline_rows(&rec),
            window_ns: (window.map_or(0, |w| w.start), window.map_or(0, |w| w.end)),
            rec,
            declarations: None,
            tactics: None,
            lines: None,
            lines_building: None,
            runs: None,
            repeat: None,
            pending_runs: Vec::new(),
        }
    }

    /// Takes in one other run of this file (a repeated capture), read
    /// from its recording; the recording itself is not kept.
    pub fn add_run(&mut self, rec: &Recording) {
        self.pending_runs.push(RunTimes::of(rec));
    }

    /// Every run has arrived: this recording is run `repeat` (the median
    /// run) and every time shown is from now on the median over it and
    /// the runs added. Refused when a run recorded another source.
    pub fn end_runs(&mut self, repeat: u32) -> Result<(), RunsError> {
        let mut all = vec![RunTimes::of(&self.rec)];
        all.append(&mut self.pending_runs);
        self.runs = Some(FileRuns::of(&all)?);
        self.repeat = Some(repeat);
        Ok(())
    }

    /// The timeline index, built on first use (the first timeline drawn).
    pub fn timeline(&self) -> &TimelineIndex {
        self.timeline
            .get_or_init(|| TimelineIndex::build(&self.rec))
    }

    fn declaration_times(&mut self) -> &[Option<TimeRow>] {
        if self.declarations.is_none() {
            self.declarations = Some(declaration_times(&self.rec));
        }
        self.declarations.as_deref().unwrap_or_default()
    }

    /// The tactic spans (found on first use), the declarations they lie
    /// in, and the runs of a repeated capture.
    fn tactic_rows(&mut self) -> (&[TacticRow], &[Declaration], Option<&FileRuns>) {
        let rows = self.tactics.get_or_insert_with(|| tactic_rows(&self.rec));
        (rows, &self.rec.header.declarations, self.runs.as_ref())
    }

    /// The time of declaration `d`: its median over the runs of a repeated
    /// capture (events counted in the run shown), else this recording's.
    fn declaration_time(&mut self, d: usize) -> Option<TimeRow> {
        let own = self.declaration_times().get(d).copied().flatten();
        match &self.runs {
            Some(r) => r
                .declaration(d)
                .map(|s| s.median_row(own.map_or(0, |t| t.count))),
            None => own,
        }
    }

    fn declaration_spread(&self, d: usize) -> Option<Value> {
        self.runs.as_ref()?.declaration(d).map(|s| json!(s.whole()))
    }

    fn line_rows(&mut self) -> &[LineRow] {
        if self.lines.is_none() {
            let rows = match self.lines_building.take() {
                Some(b) => b.finish(&self.rec),
                None => line_rows(&self.rec),
            };
            self.lines = Some(rows);
        }
        self.lines.as_deref().unwrap_or_default()
    }

    /// Sorts by line, then times, up to about `events` more events of the line rows;
    /// returns whether some are left. The line bars a slice at a time, so that a request
    /// arriving meanwhile is answered between two slices.
    pub fn line_bars_step(&mut self, events: usize) -> bool {
        if self.lines.is_some() {
            return false;
        }
        let rec = &self.rec;
        let b = self
            .lines_building
            .get_or_insert_with(|| LineRowsBuilder::new(rec));
        if b.step(rec, events) {
            return true;
        }
        self.lines = self.lines_building.take().map(|b| b.finish(rec));
        false
    }

    /// Header facts, counts and validation issues.
    pub fn summary(&self) -> Value {
        let rec = &self.rec;
        let h = &rec.header;
        let ft = file_time(rec);
        // Where the file's time went (imports, traced, untraced, Lean's
        // categories): the same account `leanscope info` prints.
        let account = recording::model::time_account(rec);
        json!({
            "sourcePath": h.source_path,
            "module": h.module_name,
            "sourceSha256": h.source_sha256,
            "leanVersion": h.lean_version,
            "toolchain": h.toolchain,
            "captureMode": h.capture_mode.as_str(),
            "thresholdNs": h.threshold_ns,
            "measure": h.measure.as_str(),
            "clock": h.clock.as_str(),
            "clockDescription": h.clock_description,
            "status": h.status.as_str(),
            "producer": h.producer,
            "notes": h.notes,
            "events": rec.len(),
            "declarations": h.declarations.len(),
            "threads": h.threads,
            "diagnostics": h.diagnostics.iter().map(|d| json!({
                "severity": d.severity.as_str(), "range": range_json(Some(d.range)), "text": d.text
            })).collect::<Vec<_>>(),
            "elapsedNs": ft.elapsed_ns,
            "tracedNs": ft.traced_ns,
            "timeAccountText": account.explanation(),
            "timeAccount": account,
            "windowStartNs": self.window_ns.0,
            "windowEndNs": self.window_ns.1,
            "issueCount": rec.issue_count,
            "issues": rec.issues.iter().take(100).map(|i| json!({
                "kind": i.kind, "event": i.event, "detail": i.detail
            })).collect::<Vec<_>>(),
            "timelineRows": self.timeline_rows,
            "classes": rec.strings.len(),
            "runs": self.runs.as_ref().map(|r| json!({
                "runs": r.runs(),
                "shownRepeat": self.repeat,
                "file": r.file().map(|s| s.whole()),
                "traced": r.traced().map(|s| s.whole()),
                "memoryPeak": r.memory_peak().map(|s| s.whole()),
            })),
            // A partial recording: why Lean was stopped, and its command in flight (whose
            // open event the timeline draws as unfinished).
            "stop": h.stop,
            "memory": h.memory.as_ref().map(memory_lane),
        })
    }

    pub fn source(&self) -> &str {
        &self.rec.header.source_text
    }

    /// Declarations with their times, written straight to JSON text (a
    /// file may have tens of thousands): those matching `filter`, sorted by
    /// `sort` (`total`, `self` or `source`), the first `limit` of them (all
    /// when `None`), with how many matched and how many there are.
    pub fn declarations(&mut self, filter: &str, sort: &str, limit: Option<usize>) -> String {
        let n = self.rec.header.declarations.len();
        let times: Vec<Option<TimeRow>> = (0..n).map(|d| self.declaration_time(d)).collect();
        let traced = match &self.runs {
            Some(r) => r.traced().map_or(0, |s| s.median.round() as u64),
            None => file_time(&self.rec).traced_ns,
        };
        let decls = &self.rec.header.declarations;
        let mut rows: Vec<(usize, Option<TimeRow>)> = times
            .into_iter()
            .enumerate()
            .filter(|(d, _)| matches_filter(filter, &[&decls[*d].name, &decls[*d].kind]))
            .collect();
        sort_rows(&mut rows, sort, |t| t.map(|t| (t.total_ns, t.self_ns)));
        let out: Vec<DeclarationRow> = rows
            .iter()
            .take(limit.unwrap_or(usize::MAX))
            .map(|&(d, t)| {
                let decl = &decls[d];
                DeclarationRow {
                    index: d,
                    name: &decl.name,
                    kind: &decl.kind,
                    generated: decl.generated,
                    range: RangeJson::from(decl.range),
                    total_ns: t.map(|t| t.total_ns),
                    self_ns: t.map(|t| t.self_ns),
                    events: t.map_or(0, |t| t.count),
                    share_of_file: t.and_then(|t| share(t.total_ns, traced)),
                    spread: self.declaration_spread(d),
                }
            })
            .collect();
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct List<'a> {
            rows: Vec<DeclarationRow<'a>>,
            matched: usize,
            of: usize,
            traced_ns: u64,
        }
        serde_json::to_string(&List {
            rows: out,
            matched: rows.len(),
            of: decls.len(),
            traced_ns: traced,
        })
        .unwrap_or_default()
    }

    /// Tactic spans with their times: those matching `filter` (by their
    /// text or their declaration's name), sorted by `sort`, the first
    /// `limit` of them (all when `None`), with how many matched and how
    /// many there are. A file may have hundreds of thousands; only the rows
    /// asked for are written.
    pub fn tactics(&mut self, filter: &str, sort: &str, limit: Option<usize>) -> Value {
        let (all, decls, runs) = self.tactic_rows();
        let mut rows: Vec<(usize, Option<TimeRow>)> = all
            .iter()
            .enumerate()
            .filter(|(_, t)| {
                let decl = t.declaration.map_or("", |d| decls[d].name.as_str());
                matches_filter(filter, &[&t.label, decl])
            })
            .map(|(k, t)| {
                let median = runs.and_then(|r| r.tactic(t.range, &t.label));
                (
                    k,
                    Some(median.map_or(t.time, |s| s.median_row(t.time.count))),
                )
            })
            .collect();
        sort_rows(&mut rows, sort, |t| t.map(|t| (t.total_ns, t.self_ns)));
        let out: Vec<Value> = rows
            .iter()
            .take(limit.unwrap_or(usize::MAX))
            .map(|&(k, _)| tactic_json(k, &all[k], decls, runs))
            .collect();
        json!({"rows": out, "matched": rows.len(), "of": all.len()})
    }

    /// Tactic span `k` (its index in source order), as `tactics` lists it.
    pub fn tactic(&mut self, k: usize) -> Option<Value> {
        let (all, decls, runs) = self.tactic_rows();
        Some(tactic_json(k, all.get(k)?, decls, runs))
    }

    /// Per-line bars: `[line, totalNs, selfNs, count]` for each line with
    /// events, and the largest total, as JSON text.
    ///
    /// Over the runs of a repeated capture: every line some run recorded,
    /// with its medians (`count` from the run shown, 0 where it has none),
    /// `runs` and, per bar, `[runs, min, max]` of its total in `spreads`.
    pub fn line_bars(&mut self) -> String {
        let own: Vec<(u32, TimeRow)> = self.line_rows().iter().map(|r| (r.line, r.time)).collect();
        let mut spreads = Vec::new();
        let rows: Vec<(u32, TimeRow)> = match &self.runs {
            None => own,
            Some(runs) => runs
                .lines()
                .map(|(line, s)| {
                    let count = own
                        .binary_search_by_key(&line, |r| r.0)
                        .map_or(0, |at| own[at].1.count);
                    spreads.push([s.total.runs as u64, s.total.min as u64, s.total.max as u64]);
                    (line, s.median_row(count))
                })
                .collect(),
        };
        let max = rows.iter().map(|r| r.1.total_ns).max().unwrap_or(0);
        let bars: Vec<[u64; 4]> = rows
            .iter()
            .map(|(line, t)| [u64::from(*line), t.total_ns, t.self_ns, t.count])
            .collect();
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Bars {
            bars: Vec<[u64; 4]>,
            max_ns: u64,
            #[serde(skip_serializing_if = "Option::is_none")]
            runs: Option<usize>,
            #[serde(skip_serializing_if = "Vec::is_empty")]
            spreads: Vec<[u64; 3]>,
        }
        serde_json::to_string(&Bars {
            bars,
            max_ns: max,
            runs: self.runs.as_ref().map(FileRuns::runs),
            spreads,
        })
        .unwrap_or_default()
    }

    fn event_row(&self, i: u32) -> Value {
        let rec = &self.rec;
        json!({
            "event": i,
            "class": rec.class(i),
            "label": first_line(rec.label(i)),
            "kind": kind_name(kind_of(rec, i)),
            "thread": rec.thread(i),
            "startNs": rec.start(i),
            "inclusiveNs": rec.inclusive_ns(i),
            "selfNs": rec.self_ns(i),
            "range": range_json(rec.range(i)),
            "rangeKind": rec.range_kind(i).as_str(),
            "children": rec.children(i).len(),
        })
    }

    fn event_rows(&self, events: &[u32]) -> Vec<Value> {
        events
            .iter()
            .take(MAX_LISTED_OPERATIONS)
            .map(|&i| self.event_row(i))
            .collect()
    }

    /// A declaration: its time and the operations that make it up.
    pub fn declaration(&mut self, d: usize) -> Option<Value> {
        let decl = self.rec.header.declarations.get(d)?.clone();
        let time = self.declaration_time(d);
        let spread = self.declaration_spread(d);
        let ops = declaration_operations(&self.rec, d);
        let (all, decls, runs) = self.tactic_rows();
        let tactics: Vec<Value> = (all.iter().enumerate())
            .filter(|(_, t)| t.declaration == Some(d))
            .map(|(k, t)| tactic_json(k, t, decls, runs))
            .collect();
        Some(json!({
            "index": d,
            "name": decl.name,
            "kind": decl.kind,
            "range": range_json(Some(decl.range)),
            "selectionRange": range_json(Some(decl.selection_range)),
            "totalNs": time.map(|t| t.total_ns),
            "selfNs": time.map(|t| t.self_ns),
            "events": time.map_or(0, |t| t.count),
            "spread": spread,
            "operations": self.event_rows(&ops),
            "operationCount": ops.len(),
            "operationsRepeat": self.repeat,
            "tactics": tactics,
        }))
    }

    /// A source line (0-based): its bar and the operations that make it up.
    pub fn line(&mut self, line: u32) -> Value {
        let own = self
            .line_rows()
            .iter()
            .find(|r| r.line == line)
            .map(|r| r.time);
        let spread = self.runs.as_ref().and_then(|r| r.line(line));
        let bar = match &self.runs {
            Some(_) => spread.map(|s| s.median_row(own.map_or(0, |t| t.count))),
            None => own,
        };
        let ops = line_operations(&self.rec, line);
        let decl = ops
            .first()
            .and_then(|&i| declaration_of_event(&self.rec, i));
        json!({
            "line": line,
            "totalNs": bar.map(|b| b.total_ns),
            "selfNs": bar.map(|b| b.self_ns),
            "events": bar.map_or(0, |b| b.count),
            "declarationIndex": decl,
            "spread": spread.map(|s| json!(s.whole())),
            "operations": self.event_rows(&ops),
            "operationCount": ops.len(),
            "operationsRepeat": self.repeat,
        })
    }

    /// One event: everything the details panel shows.
    pub fn event(&self, i: u32) -> Option<Value> {
        let rec = &self.rec;
        if i as usize >= rec.len() {
            return None;
        }
        let t = rec.thread(i);
        let thread = rec.header.threads.get(t as usize);
        let kids = children_slowest_first(rec, i);
        let chain: Vec<Value> = ancestors(rec, i)
            .into_iter()
            .map(|a| json!({"event": a, "class": rec.class(a), "label": first_line(rec.label(a))}))
            .collect();
        let decl = declaration_of_event(rec, i);
        let row = self
            .timeline_rows
            .iter()
            .position(|r| r.thread == t && usize::from(r.depth) == chain.len());
        let mut v = self.event_row(i);
        if let Value::Object(m) = &mut v {
            m.insert("label".into(), json!(rec.label(i)));
            m.insert("endNs".into(), json!(rec.end(i)));
            m.insert("threadId".into(), json!(thread.map(|t| t.id)));
            m.insert("threadName".into(), json!(thread.map(|t| t.name.clone())));
            m.insert("parent".into(), json!(rec.parent(i)));
            m.insert("ancestors".into(), json!(chain));
            m.insert("childRows".into(), json!(self.event_rows(&kids)));
            m.insert("declarationIndex".into(), json!(decl));
            m.insert(
                "declaration".into(),
                json!(decl.map(|d| rec.header.declarations[d].name.clone())),
            );
            m.insert("timelineRow".into(), json!(row));
        }
        Some(v)
    }
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}

fn share(part: u64, whole: u64) -> Option<f64> {
    (whole > 0).then(|| part as f64 / whole as f64)
}

/// Sorts `(index, time)` rows: by total or self time (slowest first, rows
/// without time last) or by index (`source`).
fn sort_rows<T>(rows: &mut [(usize, T)], sort: &str, key: impl Fn(&T) -> Option<(u64, u64)>) {
    match sort {
        "source" => rows.sort_by_key(|r| r.0),
        "self" => rows.sort_by(|a, b| {
            let (ka, kb) = (key(&a.1).map(|k| k.1), key(&b.1).map(|k| k.1));
            kb.cmp(&ka).then(a.0.cmp(&b.0))
        }),
        _ => rows.sort_by(|a, b| {
            let (ka, kb) = (key(&a.1).map(|k| k.0), key(&b.1).map(|k| k.0));
            kb.cmp(&ka).then(a.0.cmp(&b.0))
        }),
    }
}

/// The memory lane of a recording's track: at most [`MAX_LANE_POINTS`] points (each the
/// highest sample of its stretch of time, so no peak is lost), the commands with their growth,
/// and the peak. Times are the track's: nanoseconds since Lean started.
fn memory_lane(m: &recording::memory::MemoryTrack) -> Value {
    let end = m.samples.last().map_or(0, |s| s.0);
    let buckets = MAX_LANE_POINTS.max(1);
    let mut points: Vec<(u64, u64)> = Vec::with_capacity(m.samples.len().min(buckets));
    let width = end / buckets as u64 + 1;
    for &(t, b) in &m.samples {
        match points.last_mut() {
            Some(last) if last.0 / width == t / width => {
                if b > last.1 {
                    *last = (t, b);
                }
            }
            _ => points.push((t, b)),
        }
    }
    json!({
        "peakBytes": m.peak_bytes,
        "peakAtNs": m.peak_at_ns,
        "intervalNs": m.interval_ns,
        "endNs": end,
        "samples": m.samples.len(),
        "points": points,
        "commands": m.commands.iter().map(|c| json!({
            "label": c.label, "startNs": c.start_ns, "endNs": c.end_ns,
            "growthBytes": c.growth_bytes, "open": c.open, "range": range_json(Some(c.range)),
        })).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use recording::sha256_hex;
    use recording::synth::{synthetic_bytes, SynthParams};

    const MISMATCH: &str = "invalid recording: the embedded source text does not match its SHA-256";

    fn synth() -> Vec<u8> {
        synthetic_bytes(&SynthParams {
            seed: 5,
            events: 500,
            threads: 2,
        })
        .unwrap()
    }

    /// Streams `bytes` in small chunks; returns the load and the source
    /// text it handed out for checking.
    fn stream(bytes: &[u8]) -> (RecordingLoad, String) {
        let mut load = RecordingLoad::new(0, bytes.len() as u64);
        let mut handed = Vec::new();
        for c in bytes.chunks(997) {
            load.push(c).unwrap();
            if let Some(s) = load.source_to_check() {
                handed.push(s.to_owned());
            }
        }
        assert_eq!(handed.len(), 1, "the source text is handed out once");
        (load, handed.remove(0))
    }

    #[test]
    fn bytes_written_in_place_load_like_bytes_pushed() {
        let bytes = synth();
        let (pushed, _) = stream(&bytes);
        let pushed = pushed.finish(None).unwrap();
        let mut load = RecordingLoad::new(0, bytes.len() as u64);
        // Pieces of every size from 1 byte, so that chunks end anywhere.
        let (mut at, mut n) = (0, 1);
        while at < bytes.len() {
            let piece = &bytes[at..(at + n).min(bytes.len())];
            // Room for more than is written: only what is committed counts.
            load.space(piece.len() + 7).unwrap()[..piece.len()].copy_from_slice(piece);
            load.push_space(piece.len()).unwrap();
            at += piece.len();
            n = n % 4093 + 1;
        }
        let _ = load.source_to_check();
        let placed = load.finish(None).unwrap();
        assert_eq!(placed.len(), pushed.len());
        assert_eq!(placed.header.source_text, pushed.header.source_text);
        for i in 0..placed.len() as u32 {
            assert_eq!(placed.interval(i), pushed.interval(i));
            assert_eq!(placed.self_ns(i), pushed.self_ns(i));
            assert_eq!(placed.label(i), pushed.label(i));
        }
    }

    #[test]
    fn memory_paged_in_while_waiting_leaves_the_events_as_they_are() {
        // Enough events for the room to take many pages.
        let bytes = synthetic_bytes(&SynthParams {
            seed: 5,
            events: 20_000,
            threads: 2,
        })
        .unwrap();
        let (plain, _) = stream(&bytes);
        let plain = plain.finish(None).unwrap();
        let mut load = RecordingLoad::new(plain.len() as u64, bytes.len() as u64);
        // Some of the memory before any byte arrived, then a little
        // between pieces, before and after the header, until all is done.
        assert!(load.prefault(10_000));
        let mut calls_after_header = 0;
        let mut more = true;
        for c in bytes.chunks(997) {
            load.push(c).unwrap();
            if more {
                more = load.prefault(4096);
                calls_after_header += usize::from(load.builder.is_some());
            }
        }
        assert!(!more, "the room was all paged in");
        assert!(
            calls_after_header > 0,
            "the room was paged in after the header too"
        );
        assert!(
            !load.prefault(1 << 20),
            "a finished load has nothing to page in"
        );
        let _ = load.source_to_check();
        let rec = load.finish(None).unwrap();
        assert_eq!(rec.len(), plain.len());
        for i in 0..rec.len() as u32 {
            assert_eq!(rec.interval(i), plain.interval(i));
            assert_eq!(rec.parent(i), plain.parent(i));
            assert_eq!(rec.label(i), plain.label(i));
            assert_eq!(rec.range(i), plain.range(i));
            assert_eq!(rec.children(i), plain.children(i));
        }
        assert_eq!(rec.issue_count, plain.issue_count);
        // Without a claimed count there is nothing to reserve.
        assert!(!RecordingLoad::new(0, bytes.len() as u64).prefault(1 << 20));
    }

    #[test]
    fn more_bytes_than_room_or_too_big_a_read_is_an_error() {
        let mut load = RecordingLoad::new(0, 0);
        load.space(8).unwrap();
        let err = load.push_space(9).unwrap_err().to_string();
        assert!(
            err.contains("9 bytes were written but room was made for 8"),
            "{err}"
        );
        let err = load.space(MAX_READ_BYTES + 1).unwrap_err().to_string();
        assert!(
            err.contains("more than the 16777216 taken at once"),
            "{err}"
        );
        // Committing twice what one room was made for is refused too.
        let bytes = synth();
        load.space(4).unwrap().copy_from_slice(&bytes[..4]);
        load.push_space(4).unwrap();
        assert!(load.push_space(1).is_err());
    }

    /// The recording with one byte of its source text changed.
    fn tampered() -> Vec<u8> {
        let mut b = synth();
        let text = Recording::from_bytes(&b).unwrap().header.source_text;
        let line = text.lines().find(|l| l.len() >= 12).unwrap().as_bytes();
        let at = b.windows(line.len()).position(|w| w == line).unwrap();
        b[at] = if b[at] == b'x' { b'y' } else { b'x' };
        b
    }

    #[test]
    fn source_checked_with_the_callers_digest_or_here() {
        let bytes = synth();
        let (load, text) = stream(&bytes);
        let rec = load.finish(Some(&sha256_hex(text.as_bytes()))).unwrap();
        assert_eq!(rec.header.source_text, text);
        let (load, _) = stream(&bytes);
        assert!(load.finish(None).is_ok());
    }

    #[test]
    fn tampered_source_is_refused_with_or_without_the_callers_digest() {
        let bytes = tampered();
        let (load, text) = stream(&bytes);
        let err = load.finish(Some(&sha256_hex(text.as_bytes())));
        assert_eq!(err.unwrap_err().to_string(), MISMATCH);
        let (load, _) = stream(&bytes);
        assert_eq!(load.finish(None).unwrap_err().to_string(), MISMATCH);
        // A digest that does not match the text it claims to be of is
        // refused too (the check compares with the recorded SHA-256).
        let (load, _) = stream(&synth());
        assert_eq!(
            load.finish(Some(&sha256_hex(b"other")))
                .unwrap_err()
                .to_string(),
            MISMATCH
        );
    }

    fn rows(v: &Value) -> &Vec<Value> {
        v["rows"].as_array().unwrap()
    }

    #[test]
    fn lists_give_the_first_rows_asked_for_and_how_many_matched() {
        let mut m = FileModel::new(Recording::from_bytes(&synth()).unwrap());
        let all: Value = serde_json::from_str(&m.declarations("", "total", None)).unwrap();
        let first: Value = serde_json::from_str(&m.declarations("", "total", Some(3))).unwrap();
        let count = m.rec.header.declarations.len();
        assert!(count > 3);
        assert_eq!(
            (all["matched"].as_u64(), all["of"].as_u64()),
            (Some(count as u64), Some(count as u64))
        );
        assert_eq!(first["matched"], all["matched"]);
        assert_eq!(rows(&first)[..], rows(&all)[..3]);
        let totals: Vec<u64> = rows(&all)
            .iter()
            .filter_map(|r| r["totalNs"].as_u64())
            .collect();
        assert!(totals.windows(2).all(|w| w[0] >= w[1]), "slowest first");

        let all = m.tactics("", "total", None);
        let first = m.tactics("", "total", Some(2));
        let spans = rows(&all).len();
        assert!(spans > 2);
        assert_eq!(
            (all["matched"].as_u64(), all["of"].as_u64()),
            (Some(spans as u64), Some(spans as u64))
        );
        assert_eq!(rows(&first)[..], rows(&all)[..2]);
        // One span by its index, as the lists give it; past the end, none.
        let row = &rows(&all)[1];
        let k = row["index"].as_u64().unwrap() as usize;
        assert_eq!(m.tactic(k).as_ref(), Some(row));
        assert_eq!(m.tactic(spans), None);
        // A filter narrows what matched, not what there is.
        let label = row["label"].as_str().unwrap().to_owned();
        let some = m.tactics(&label, "source", Some(1));
        let matched = some["matched"].as_u64().unwrap() as usize;
        assert!((1..=spans).contains(&matched));
        assert_eq!(some["of"].as_u64(), Some(spans as u64));
        assert_eq!(rows(&some).len(), 1);
        assert!(rows(&m.tactics(&label, "source", None))
            .iter()
            .any(|r| r == row));
    }

    #[test]
    fn a_file_over_runs_shows_medians_and_spreads_and_refuses_another_source() {
        let rec = || Recording::from_bytes(&synth()).unwrap();
        let mut m = FileModel::new(rec());
        let one: Value = serde_json::from_str(&m.declarations("", "total", None)).unwrap();
        // Three runs of the same recording: every median is its own time,
        // every spread is one point wide.
        m.add_run(&rec());
        m.add_run(&rec());
        m.end_runs(1).unwrap();
        let three: Value = serde_json::from_str(&m.declarations("", "total", None)).unwrap();
        for (a, b) in rows(&one).iter().zip(rows(&three)) {
            assert_eq!(a["totalNs"], b["totalNs"]);
            if b["totalNs"].is_u64() {
                let sp = &b["spread"]["total"];
                assert_eq!(sp["runs"], 3);
                assert_eq!((&sp["min"], &sp["max"]), (&b["totalNs"], &b["totalNs"]));
            } else {
                assert!(b.get("spread").is_none());
            }
        }
        assert_eq!(m.summary()["runs"]["runs"], 3);
        assert_eq!(m.summary()["runs"]["shownRepeat"], 1);
        // Synthetic runs sample no memory: no peak over the runs, not a zero.
        assert!(m.summary()["runs"]["memoryPeak"].is_null());
        let bars: Value = serde_json::from_str(&m.line_bars()).unwrap();
        assert_eq!(bars["runs"], 3);
        assert_eq!(
            bars["spreads"].as_array().unwrap().len(),
            bars["bars"].as_array().unwrap().len()
        );
        let top = m.tactics("", "total", Some(1));
        assert_eq!(rows(&top)[0]["spread"]["self"]["runs"], 3);

        // A run of another source is refused, naming it.
        let other = synthetic_bytes(&SynthParams {
            seed: 6,
            events: 500,
            threads: 2,
        })
        .unwrap();
        let mut m = FileModel::new(rec());
        m.add_run(&Recording::from_bytes(&other).unwrap());
        let e = m.end_runs(0).unwrap_err();
        assert!(
            e.to_string().contains("run 2 recorded another source"),
            "{e}"
        );
    }
}
