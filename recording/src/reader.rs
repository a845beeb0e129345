//! Reading recordings: chunk by chunk from any `Read` or pushed byte
//! slices (the viewer's `fetch()` stream), or with random access from a
//! byte slice that holds the whole file.

use std::io::Read;

use flatbuffers::VerifierOptions;

pub use crate::columns::{Columns, NO_PARENT, NO_RANGE};
use crate::error::{RecordingError, Result};
use crate::generated as fb;
use crate::limits::*;
use crate::measure::Measure;
use crate::memory::{CommandMemory, MemoryTrack};
use crate::source_check::{source_mismatch, SourceCheck};
use crate::types::*;
use crate::varint::{Column, ColumnError};
use crate::{END_MAGIC, MAGIC, SCHEMA_VERSION, TRAILER_LEN};

/// One event batch, decoded into columns. Ids refer to the whole file.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct DecodedBatch {
    pub first_event: u64,
    pub new_strings: crate::strings::StringTable,
    pub new_ranges: Vec<SourceRange>,
    pub parent: Vec<u32>,
    pub class: Vec<u32>,
    pub label: Vec<u32>,
    pub start: Vec<u64>,
    pub duration: Vec<u64>,
    pub thread: Vec<u32>,
    pub range: Vec<u32>,
    pub range_kind: Vec<RangeKind>,
}

impl DecodedBatch {
    fn from_columns(first_event: u64, c: Columns) -> Self {
        let e = c.events;
        DecodedBatch {
            first_event,
            new_strings: c.strings,
            new_ranges: c.ranges,
            parent: e.parent,
            class: e.class,
            label: e.label,
            start: e.start,
            duration: e.duration,
            thread: e.thread.into_iter().map(u32::from).collect(),
            range: e.range,
            range_kind: e.range_kind,
        }
    }

    pub fn len(&self) -> usize {
        self.parent.len()
    }

    pub fn is_empty(&self) -> bool {
        self.parent.is_empty()
    }
}

/// One decoded piece of a recording, when batches are appended to
/// [`Columns`] (see [`StreamDecoder::next_into`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    Header(Box<Header>),
    /// `count` events from `first_event` on were appended.
    Batch {
        first_event: u64,
        count: u32,
    },
    End(FooterInfo),
}

/// What the footer says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FooterInfo {
    pub event_count: u64,
    pub string_count: u64,
    pub range_count: u64,
    pub chunks: Vec<ChunkInfo>,
}

/// Where one chunk lies in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkInfo {
    pub offset: u64,
    pub length: u32,
    pub first_event: u64,
    pub event_count: u32,
    pub is_header: bool,
}

/// One decoded piece of a recording, in file order (a batch boxed: its
/// string arena makes it far larger than the footer).
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    Header(Box<Header>),
    Batch(Box<DecodedBatch>),
    /// The footer and trailer were read and agree with what came before.
    End(FooterInfo),
}

fn verifier_options(chunk_len: usize) -> VerifierOptions {
    VerifierOptions {
        max_depth: MAX_TABLE_DEPTH,
        max_tables: MAX_TABLES_PER_CHUNK,
        max_apparent_size: chunk_len.saturating_mul(2).max(1024),
        ignore_missing_null_terminator: false,
    }
}

fn verify(prefixed: &[u8], index: usize, offset: u64) -> Result<fb::Chunk<'_>> {
    fb::size_prefixed_root_as_chunk_with_opts(&verifier_options(prefixed.len()), prefixed).map_err(
        |e| RecordingError::InvalidChunk {
            index,
            offset,
            detail: e.to_string(),
        },
    )
}

/// The part of decoding that carries state from chunk to chunk: string and
/// range counts, the next event index, the thread count.
#[derive(Debug, Default, Clone)]
struct Tables {
    threads: u32,
    strings: u64,
    ranges: u64,
    events: u64,
}

fn decode_header(chunk: fb::Chunk<'_>, index: usize, check: SourceCheck) -> Result<Header> {
    let h = chunk
        .body_as_header()
        .ok_or_else(|| RecordingError::UnexpectedChunk {
            index,
            detail: "the first chunk is not a header".into(),
        })?;
    let version = h.schema_version();
    if version > SCHEMA_VERSION || version == 0 {
        return Err(RecordingError::UnsupportedVersion {
            found: version,
            supported: SCHEMA_VERSION,
        });
    }
    let s = |v: Option<&str>| v.unwrap_or_default().to_owned();
    let range = |r: Option<&fb::SourceRange>| {
        r.map_or_else(SourceRange::default, |r| {
            SourceRange::new(r.start_line(), r.start_col(), r.end_line(), r.end_col())
        })
    };
    let threads = h.threads().map_or(0, |t| t.len());
    if threads > MAX_THREADS {
        return Err(RecordingError::limit(
            "thread count",
            threads as u64,
            MAX_THREADS as u64,
        ));
    }
    // A measure this build does not know would make every number meaningless: refused.
    let measure = Measure::from_u8(h.measure().0).ok_or_else(|| {
        RecordingError::Invalid(format!(
            "the recording counts its times in an unknown measure (value {}); this leanscope knows time, heartbeats and untimed",
            h.measure().0
        ))
    })?;
    let source_text = s(h.source_text());
    if source_text.len() > MAX_SOURCE_BYTES {
        return Err(RecordingError::limit(
            "source text size",
            source_text.len() as u64,
            MAX_SOURCE_BYTES as u64,
        ));
    }
    let sha_bytes = h.source_sha256().map(|v| v.bytes()).unwrap_or_default();
    let source_sha256: String = sha_bytes.iter().map(|b| format!("{b:02x}")).collect();
    if check == SourceCheck::Reader && source_sha256 != sha256_hex(source_text.as_bytes()) {
        return Err(source_mismatch());
    }
    let stop = h.stop().map(|st| Stop {
        reason: StopReason::from_u8(st.reason().0).unwrap_or_default(),
        detail: s(st.detail()),
        wall_ns: st.wall_ns(),
        signal: Some(st.signal()).filter(|&n| n != 0),
        memory_limit_bytes: Some(st.memory_limit_bytes()).filter(|&n| n > 0),
        memory_reached_bytes: Some(st.memory_reached_bytes()).filter(|&n| n > 0),
        in_flight: st.in_flight().map(|f| InFlight {
            declaration: s(f.declaration()),
            text: s(f.text()),
            range: range(f.range()),
            start_ns: f.start_ns(),
            running_ns: f.running_ns(),
            event: f.event().checked_sub(1),
        }),
    });
    let memory = match h.memory() {
        None => None,
        Some(m) => {
            let samples = MemoryTrack::decode(
                m.times().map(|v| v.bytes()).unwrap_or_default(),
                m.values().map(|v| v.bytes()).unwrap_or_default(),
            )?;
            let commands = m.commands().map_or(0, |c| c.len());
            if commands > MAX_COUNTER_COMMANDS {
                return Err(RecordingError::limit(
                    "memory track commands",
                    commands as u64,
                    MAX_COUNTER_COMMANDS as u64,
                ));
            }
            Some(MemoryTrack {
                interval_ns: m.interval_ns(),
                samples,
                peak_bytes: m.peak(),
                peak_at_ns: m.peak_at_ns(),
                commands: m
                    .commands()
                    .map(|v| {
                        v.iter()
                            .map(|c| CommandMemory {
                                label: s(c.label()),
                                range: range(c.range()),
                                start_ns: c.start_ns(),
                                end_ns: c.end_ns(),
                                growth_bytes: c.growth_bytes(),
                                open: c.open(),
                            })
                            .collect()
                    })
                    .unwrap_or_default(),
            })
        }
    };
    Ok(Header {
        stop,
        memory,
        measure,
        schema_version: version,
        lean_version: s(h.lean_version()),
        toolchain: s(h.toolchain()),
        // Enum values added by later compatible versions read as unknown.
        capture_mode: CaptureMode::from_u8(h.capture_mode().0).unwrap_or_default(),
        threshold_ns: h.threshold_ns(),
        clock: ClockKind::from_u8(h.clock().0).unwrap_or_default(),
        clock_description: s(h.clock_description()),
        source_path: s(h.source_path()),
        module_name: s(h.module_name()),
        source_sha256,
        source_text,
        declarations: h
            .declarations()
            .map(|v| {
                v.iter()
                    .map(|d| Declaration {
                        name: s(d.name()),
                        kind: s(d.kind()),
                        range: range(d.range()),
                        selection_range: range(d.selection_range()),
                        generated: d.generated(),
                    })
                    .collect()
            })
            .unwrap_or_default(),
        diagnostics: h
            .diagnostics()
            .map(|v| {
                v.iter()
                    .map(|d| Diagnostic {
                        severity: Severity::from_u8(d.severity().0).unwrap_or(Severity::Error),
                        range: range(d.range()),
                        text: s(d.text()),
                    })
                    .collect()
            })
            .unwrap_or_default(),
        threads: h
            .threads()
            .map(|v| {
                v.iter()
                    .map(|t| Thread {
                        id: t.id(),
                        name: s(t.name()),
                    })
                    .collect()
            })
            .unwrap_or_default(),
        elapsed_ns: Some(h.elapsed_ns()).filter(|&e| e > 0),
        status: CaptureStatus::from_u8(h.status().0).unwrap_or(CaptureStatus::Error),
        created_unix_ms: h.created_unix_ms(),
        producer: s(h.producer()),
        notes: h
            .notes()
            .map(|v| v.iter().map(str::to_owned).collect())
            .unwrap_or_default(),
        lean_args: h
            .lean_args()
            .map(|v| v.iter().map(str::to_owned).collect())
            .unwrap_or_default(),
        cumulative_times: h
            .cumulative_times()
            .map(|v| {
                v.iter()
                    .map(|c| CumulativeTime {
                        category: s(c.category()),
                        ns: c.ns(),
                    })
                    .collect()
            })
            .unwrap_or_default(),
    })
}

/// Decodes one batch, appending its events, strings and ranges to `out`;
/// returns its first event and event count. On error `out` may hold part
/// of the batch: callers give up on the recording.
fn decode_batch(
    chunk: fb::Chunk<'_>,
    index: usize,
    tables: &mut Tables,
    out: &mut Columns,
) -> Result<(u64, u32)> {
    let b = chunk
        .body_as_event_batch()
        .ok_or_else(|| RecordingError::UnexpectedChunk {
            index,
            detail: "expected an event batch".into(),
        })?;
    let count = b.count() as usize;
    if count > MAX_BATCH_EVENTS {
        return Err(RecordingError::limit(
            "events in one batch",
            count as u64,
            MAX_BATCH_EVENTS as u64,
        ));
    }
    if b.first_event() != tables.events {
        return Err(RecordingError::Invalid(format!(
            "batch in chunk {index} starts at event {}, expected {}",
            b.first_event(),
            tables.events
        )));
    }
    let total = tables.events + count as u64;
    if total > MAX_EVENTS {
        return Err(RecordingError::limit("event count", total, MAX_EVENTS));
    }
    let new_strings = b.new_strings().map_or(0, |v| v.len());
    let new_ranges = b.new_ranges().map_or(0, |v| v.len());
    tables.strings += new_strings as u64;
    tables.ranges += new_ranges as u64;
    if tables.strings > MAX_STRINGS {
        return Err(RecordingError::limit(
            "string count",
            tables.strings,
            MAX_STRINGS,
        ));
    }
    if tables.ranges > MAX_RANGES {
        return Err(RecordingError::limit(
            "range count",
            tables.ranges,
            MAX_RANGES,
        ));
    }
    fn col(v: Option<flatbuffers::Vector<'_, u8>>) -> &[u8] {
        v.map(|v| v.bytes()).unwrap_or_default()
    }
    let columns = [
        col(b.parent()),
        col(b.class()),
        col(b.label()),
        col(b.start()),
        col(b.duration()),
        col(b.thread()),
        col(b.range()),
    ];
    // Every value takes at least one byte, so a column's length bounds what
    // the batch may really hold; never reserve for a merely claimed count.
    let shortest = columns.iter().map(|c| c.len()).min().unwrap_or(0);
    let reserve = count.min(shortest);
    let first = tables.events;
    if let Some(v) = b.new_strings() {
        out.strings.extend(v.iter().map(str::to_owned));
    }
    if let Some(v) = b.new_ranges() {
        out.ranges.extend(
            v.iter().map(|r| {
                SourceRange::new(r.start_line(), r.start_col(), r.end_line(), r.end_col())
            }),
        );
    }
    // Column by column: tight loops, each value checked as it is decoded.
    let [parent, class, label, start, duration, thread, range] = columns;
    let e = &mut out.events;
    let base = e.start.len();
    let at = Batch {
        count,
        first,
        chunk: index,
    };
    at.decode(
        "parent",
        parent,
        &mut e.parent,
        |event, v| match crate::varint::unzigzag(v) {
            0 => Ok(NO_PARENT),
            d if d < 0 => Err(format!(
                "its parent lies {} events ahead; a parent must come first",
                d.unsigned_abs()
            )),
            d if d as u64 > event => Err(format!(
                "its parent lies {d} events back, before the first event"
            )),
            d => Ok((event - d as u64) as u32),
        },
    )?;
    let strings = tables.strings;
    let string_id = |_: u64, v: u64| {
        if v < strings {
            Ok(v as u32)
        } else {
            Err(format!(
                "string id {v} is not among the {strings} strings defined so far"
            ))
        }
    };
    at.decode("class", class, &mut e.class, string_id)?;
    at.decode("label", label, &mut e.label, string_id)?;
    let mut prev: i64 = 0;
    at.decode("start", start, &mut e.start, |_, v| {
        prev = prev
            .checked_add(crate::varint::unzigzag(v))
            .filter(|s| *s >= 0)
            .ok_or("its start time is negative or overflows")?;
        Ok(prev as u64)
    })?;
    let starts = &e.start[base..];
    at.decode("duration", duration, &mut e.duration, |event, v| {
        let d = crate::varint::unzigzag(v);
        if d < 0 {
            return Err(format!("it ends before it starts (duration {d} ns)"));
        }
        let s = starts[(event - first) as usize];
        if (s as i64).checked_add(d).is_none() {
            return Err("its end time overflows".into());
        }
        Ok(d as u64)
    })?;
    let threads = tables.threads;
    at.decode("thread", thread, &mut e.thread, |_, v| {
        // At most MAX_THREADS (65,536) threads: an index fits 16 bits.
        if v < u64::from(threads) {
            Ok(v as u16)
        } else {
            Err(format!(
                "thread {v} is not one of the header's {threads} threads"
            ))
        }
    })?;
    let ranges = tables.ranges;
    let kinds = &mut e.range_kind;
    kinds.reserve(reserve);
    at.decode("range", range, &mut e.range, |_, v| match v >> 2 {
        0 if v & 3 == 0 => {
            kinds.push(RangeKind::None);
            Ok(NO_RANGE)
        }
        0 => Err("a range kind without a range".into()),
        id if id - 1 < ranges => {
            kinds.push(RangeKind::from_bits(v as u8));
            if v & 3 == 0 {
                return Err("a range without a range kind".into());
            }
            Ok((id - 1) as u32)
        }
        id => Err(format!(
            "range id {} is not among the {ranges} ranges defined so far",
            id - 1
        )),
    })?;
    tables.events = total;
    Ok((first, count as u32))
}

/// The batch whose columns [`Batch::decode`] reads.
struct Batch {
    count: usize,
    first: u64,
    chunk: usize,
}

impl Batch {
    /// Decodes the `count` varints of one column onto `out`, converting and
    /// checking each with `f(event index, value)`.
    fn decode<T: Copy + Default>(
        &self,
        name: &str,
        bytes: &[u8],
        out: &mut Vec<T>,
        mut f: impl FnMut(u64, u64) -> Result<T, String>,
    ) -> Result<()> {
        let short = |event| RecordingError::InvalidEvent {
            event,
            detail: format!("the {name} column ends early"),
        };
        // The values go into slots made beforehand: no capacity check per
        // value. Every value takes at least one byte, so at most as many
        // slots as the column has bytes are made.
        let base = out.len();
        let fits = self.count.min(bytes.len());
        out.resize(base + fits, T::default());
        let mut c = Column::new(bytes);
        for (i, slot) in out[base..].iter_mut().enumerate() {
            let event = self.first + i as u64;
            let v = c.next_u64().map_err(|e| match e {
                ColumnError::Short => short(event),
                ColumnError::Overlong => RecordingError::InvalidEvent {
                    event,
                    detail: format!("the {name} column holds an overlong number"),
                },
            })?;
            *slot = f(event, v).map_err(|detail| RecordingError::InvalidEvent { event, detail })?;
        }
        if fits < self.count {
            // Each of the `fits` values took one byte: none is left.
            return Err(short(self.first + fits as u64));
        }
        if !c.is_done() {
            return Err(RecordingError::Invalid(format!(
                "the {name} column of chunk {} holds more values than its {} events",
                self.chunk, self.count
            )));
        }
        Ok(())
    }
}

fn decode_footer(chunk: fb::Chunk<'_>, index: usize, tables: &Tables) -> Result<FooterInfo> {
    let f = chunk
        .body_as_footer()
        .ok_or_else(|| RecordingError::UnexpectedChunk {
            index,
            detail: "expected the footer after the end-of-batches mark".into(),
        })?;
    let refs = f.chunks().map(|v| v.len()).unwrap_or(0);
    if refs > MAX_CHUNKS {
        return Err(RecordingError::limit(
            "chunks in the footer",
            refs as u64,
            MAX_CHUNKS as u64,
        ));
    }
    let info = FooterInfo {
        event_count: f.event_count(),
        string_count: f.string_count(),
        range_count: f.range_count(),
        chunks: f
            .chunks()
            .map(|v| {
                v.iter()
                    .map(|c| ChunkInfo {
                        offset: c.offset(),
                        length: c.length(),
                        first_event: c.first_event(),
                        event_count: c.event_count(),
                        is_header: c.kind() == fb::ChunkKind::Header,
                    })
                    .collect()
            })
            .unwrap_or_default(),
    };
    if (info.event_count, info.string_count, info.range_count)
        != (tables.events, tables.strings, tables.ranges)
    {
        return Err(RecordingError::Invalid(format!(
            "the footer counts {} events, {} strings and {} ranges, but the file holds {}, {} and {}",
            info.event_count, info.string_count, info.range_count, tables.events, tables.strings, tables.ranges
        )));
    }
    Ok(info)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Magic,
    Header,
    Batches,
    Footer,
    Trailer,
    Done,
}

/// The stream decoder's buffer keeps at least this capacity when it
/// shrinks after a big chunk.
const SHRINK_BELOW_BYTES: usize = 1 << 20;

/// A push decoder: feed it bytes as they arrive and take decoded items out.
/// It holds about one chunk and one read of bytes at a time.
#[derive(Debug)]
pub struct StreamDecoder {
    /// Bytes that arrived: `buf[pos..end]` is not decoded yet; what lies
    /// past `end` is room for the next bytes (see [`Self::space`]).
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    stage: Stage,
    chunk_index: usize,
    offset: u64,
    footer_offset: u64,
    tables: Tables,
    seen_any: bool,
    pending_footer: Option<FooterInfo>,
    /// The chunks read so far, to check the footer's index against.
    seen: Vec<ChunkInfo>,
    source_check: SourceCheck,
    /// Bytes moved to the buffer's front so far (see [`Self::space`]).
    moved: u64,
}

impl Default for StreamDecoder {
    fn default() -> Self {
        Self::new()
    }
}

impl StreamDecoder {
    pub fn new() -> Self {
        StreamDecoder {
            buf: Vec::new(),
            pos: 0,
            end: 0,
            stage: Stage::Magic,
            chunk_index: 0,
            offset: 0,
            footer_offset: 0,
            tables: Tables::default(),
            seen_any: false,
            pending_footer: None,
            seen: Vec::new(),
            source_check: SourceCheck::Reader,
            moved: 0,
        }
    }

    /// A decoder that leaves the check of the source text against its
    /// SHA-256 to the caller (see [`crate::source_check`]).
    pub fn leaving_source_check_to_caller() -> Self {
        StreamDecoder {
            source_check: SourceCheck::ByCaller,
            ..Self::new()
        }
    }

    /// Appends bytes that arrived.
    pub fn feed(&mut self, data: &[u8]) {
        self.space(data.len()).copy_from_slice(data);
        self.commit(data.len());
    }

    /// Room for the next `n` bytes, for a caller that writes them in place
    /// (a browser copying a response body straight into WebAssembly
    /// memory) and then calls [`Self::commit`]; this saves [`Self::feed`]'s
    /// copy. The buffer stays about one chunk plus one read long: what was
    /// not decoded yet moves to the front only when the buffer is full, and
    /// it grows by doubling, so a big chunk (the header with its source
    /// text) arriving in small pieces is not moved again and again.
    pub fn space(&mut self, n: usize) -> &mut [u8] {
        let want = self.end - self.pos + n;
        // A big chunk (the header) grew the buffer: give that memory back
        // once it was consumed.
        let oversized = self.buf.len() > 4 * want.max(SHRINK_BELOW_BYTES);
        if self.end + n > self.buf.len() || oversized {
            if self.pos > 0 {
                self.buf.copy_within(self.pos..self.end, 0);
                self.moved += (self.end - self.pos) as u64;
                self.end -= self.pos;
                self.pos = 0;
            }
            if oversized {
                self.buf.truncate(2 * want.max(SHRINK_BELOW_BYTES));
                self.buf.shrink_to_fit();
            } else if want > self.buf.len() {
                // Doubling: a big chunk arriving in small pieces is copied
                // a few times in all, and the room never runs far ahead
                // of the bytes that came (a chunk's claimed length does
                // not make room).
                self.buf.reserve(want - self.buf.len());
            }
            // All the room there is, so that the next reads need no move.
            self.buf.resize(self.buf.capacity().max(want), 0);
        }
        &mut self.buf[self.end..self.end + n]
    }

    /// Takes in the first `n` bytes of the room [`Self::space`] gave.
    ///
    /// # Panics
    /// When `n` is more than that room: a bug in the caller, which knows
    /// how much room it asked for.
    pub fn commit(&mut self, n: usize) {
        assert!(
            self.end + n <= self.buf.len(),
            "committed more bytes than the room asked for"
        );
        if n > 0 {
            self.seen_any = true;
        }
        self.end += n;
    }

    /// True after the trailer was read.
    pub fn is_done(&self) -> bool {
        self.stage == Stage::Done
    }

    fn available(&self) -> &[u8] {
        &self.buf[self.pos..self.end]
    }

    fn take(&mut self, n: usize) -> Option<Vec<u8>> {
        if self.available().len() < n {
            return None;
        }
        let v = self.buf[self.pos..self.pos + n].to_vec();
        self.pos += n;
        self.offset += n as u64;
        Some(v)
    }

    /// Returns the next complete item, or `None` if more bytes are needed.
    pub fn next_item(&mut self) -> Result<Option<Item>> {
        let mut batch = Columns::default();
        Ok(self.next_into(&mut batch)?.map(|step| match step {
            Step::Header(h) => Item::Header(h),
            Step::Batch { first_event, .. } => {
                Item::Batch(Box::new(DecodedBatch::from_columns(first_event, batch)))
            }
            Step::End(f) => Item::End(f),
        }))
    }

    /// Like [`StreamDecoder::next_item`], but a batch is appended to `out`
    /// instead of being returned.
    pub fn next_into(&mut self, out: &mut Columns) -> Result<Option<Step>> {
        loop {
            match self.stage {
                Stage::Magic => {
                    let Some(m) = self.take(MAGIC.len()) else {
                        if !self.available().is_empty() && !MAGIC.starts_with(self.available()) {
                            return Err(RecordingError::WrongMagic);
                        }
                        return Ok(None);
                    };
                    if m != MAGIC {
                        return Err(RecordingError::WrongMagic);
                    }
                    self.stage = Stage::Header;
                }
                Stage::Header | Stage::Batches | Stage::Footer => {
                    let avail = self.available();
                    if avail.len() < 4 {
                        return Ok(None);
                    }
                    let len = u32::from_le_bytes([avail[0], avail[1], avail[2], avail[3]]) as usize;
                    if len == 0 {
                        if self.stage != Stage::Batches {
                            return Err(RecordingError::InvalidChunk {
                                index: self.chunk_index,
                                offset: self.offset,
                                detail: "a chunk of size zero".into(),
                            });
                        }
                        self.take(4);
                        self.stage = Stage::Footer;
                        continue;
                    }
                    if len > MAX_CHUNK_BYTES {
                        return Err(RecordingError::limit(
                            "chunk size",
                            len as u64,
                            MAX_CHUNK_BYTES as u64,
                        ));
                    }
                    if avail.len() < 4 + len {
                        // Reserve for what really arrives, not for the claim.
                        return Ok(None);
                    }
                    let (index, offset) = (self.chunk_index, self.offset);
                    let start = self.pos;
                    self.pos += 4 + len;
                    self.offset += 4 + len as u64;
                    self.chunk_index += 1;
                    let bytes = &self.buf[start..start + 4 + len];
                    let chunk = verify(bytes, index, offset)?;
                    if self.stage != Stage::Footer && self.seen.len() >= MAX_CHUNKS {
                        return Err(RecordingError::limit(
                            "chunk count",
                            self.seen.len() as u64 + 1,
                            MAX_CHUNKS as u64,
                        ));
                    }
                    match self.stage {
                        Stage::Header => {
                            let header = decode_header(chunk, index, self.source_check)?;
                            self.seen.push(ChunkInfo {
                                offset,
                                length: len as u32,
                                first_event: 0,
                                event_count: 0,
                                is_header: true,
                            });
                            self.tables.threads = header.threads.len() as u32;
                            self.stage = Stage::Batches;
                            return Ok(Some(Step::Header(Box::new(header))));
                        }
                        Stage::Batches => {
                            let (first_event, count) =
                                decode_batch(chunk, index, &mut self.tables, out)?;
                            self.seen.push(ChunkInfo {
                                offset,
                                length: len as u32,
                                first_event,
                                event_count: count,
                                is_header: false,
                            });
                            return Ok(Some(Step::Batch { first_event, count }));
                        }
                        _ => {
                            let footer = decode_footer(chunk, index, &self.tables)?;
                            if footer.chunks != self.seen {
                                return Err(RecordingError::Invalid(
                                    "the footer's chunk index does not match the chunks in the file"
                                        .into(),
                                ));
                            }
                            self.footer_offset = offset;
                            self.stage = Stage::Trailer;
                            self.pending_footer = Some(footer);
                        }
                    }
                }
                Stage::Trailer => {
                    let Some(t) = self.take(TRAILER_LEN) else {
                        return Ok(None);
                    };
                    let footer_offset = u64::from_le_bytes(t[..8].try_into().unwrap_or([0; 8]));
                    if t[8..] != END_MAGIC {
                        return Err(RecordingError::Invalid(
                            "the trailer's end mark is wrong".into(),
                        ));
                    }
                    if footer_offset != self.footer_offset {
                        return Err(RecordingError::Invalid(format!(
                            "the trailer points at byte {footer_offset}, but the footer is at byte {}",
                            self.footer_offset
                        )));
                    }
                    self.stage = Stage::Done;
                    let footer = self.pending_footer.take().unwrap_or(FooterInfo {
                        event_count: 0,
                        string_count: 0,
                        range_count: 0,
                        chunks: Vec::new(),
                    });
                    return Ok(Some(Step::End(footer)));
                }
                Stage::Done => {
                    if !self.available().is_empty() {
                        return Err(RecordingError::Invalid(format!(
                            "{} bytes follow the trailer",
                            self.available().len()
                        )));
                    }
                    return Ok(None);
                }
            }
        }
    }

    /// Call when the input ended: an error unless the whole recording was read.
    pub fn finish(&self) -> Result<()> {
        if !self.seen_any {
            return Err(RecordingError::Empty);
        }
        let partial = !self.available().is_empty();
        let context = match self.stage {
            Stage::Done => return Ok(()),
            Stage::Magic => "inside the magic bytes".to_string(),
            Stage::Header => "inside the header chunk".to_string(),
            Stage::Batches if partial => {
                format!(
                    "inside event batch chunk {} at byte {}",
                    self.chunk_index, self.offset
                )
            }
            Stage::Batches => format!(
                "after {} events, before the footer (at byte {})",
                self.tables.events, self.offset
            ),
            Stage::Footer => "inside the footer".to_string(),
            Stage::Trailer => "inside the trailer".to_string(),
        };
        Err(RecordingError::truncated(context))
    }
}

/// Reads a recording chunk by chunk from any `Read`; it never holds more
/// than one chunk (plus one read block) in memory.
pub struct ChunkReader<R: Read> {
    input: R,
    decoder: StreamDecoder,
    header: Header,
    footer: Option<FooterInfo>,
    eof: bool,
    /// The read buffer, kept from read to read: it starts at
    /// [`FIRST_READ_BLOCK`] and doubles whenever a read fills it, up to
    /// [`READ_BLOCK`], so a small recording never zeroes a large buffer.
    block: Vec<u8>,
}

/// Most bytes read from the input at a time.
const READ_BLOCK: usize = 256 * 1024;

/// Bytes of the first read.
const FIRST_READ_BLOCK: usize = 16 * 1024;

impl<R: Read> ChunkReader<R> {
    /// Reads the magic and the header.
    pub fn new(input: R) -> Result<Self> {
        let mut reader = ChunkReader {
            input,
            decoder: StreamDecoder::new(),
            header: Header::default(),
            footer: None,
            eof: false,
            block: Vec::new(),
        };
        match reader.next_raw()? {
            Some(Item::Header(h)) => reader.header = *h,
            _ => {
                return Err(RecordingError::Invalid(
                    "the recording has no header".into(),
                ))
            }
        }
        Ok(reader)
    }

    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Moves the header out (leaving an empty one), for callers that keep it.
    pub fn take_header(&mut self) -> Header {
        std::mem::take(&mut self.header)
    }

    /// The footer, once [`ChunkReader::next_batch`] returned `None`.
    pub fn footer(&self) -> Option<&FooterInfo> {
        self.footer.as_ref()
    }

    /// The next event batch, or `None` after the footer and trailer were
    /// read and checked.
    pub fn next_batch(&mut self) -> Result<Option<DecodedBatch>> {
        match self.next_raw()? {
            Some(Item::Batch(b)) => Ok(Some(*b)),
            Some(Item::End(f)) => {
                self.footer = Some(f);
                // Nothing may follow the trailer.
                match self.next_raw()? {
                    None => Ok(None),
                    Some(_) => Err(RecordingError::Invalid("data follows the trailer".into())),
                }
            }
            Some(Item::Header(_)) => Err(RecordingError::Invalid("a second header".into())),
            None => Ok(None),
        }
    }

    fn next_raw(&mut self) -> Result<Option<Item>> {
        loop {
            if let Some(item) = self.decoder.next_item()? {
                return Ok(Some(item));
            }
            if self.eof {
                self.decoder.finish()?;
                return Ok(None);
            }
            if self.decoder.is_done() && self.footer.is_none() {
                return Ok(None);
            }
            if self.block.is_empty() {
                self.block = vec![0u8; FIRST_READ_BLOCK];
            }
            let n = loop {
                match self.input.read(&mut self.block) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e.into()),
                }
            };
            if n == 0 {
                self.eof = true;
            } else {
                self.decoder.feed(&self.block[..n]);
                if n == self.block.len() && n < READ_BLOCK {
                    self.block = vec![0u8; (2 * n).min(READ_BLOCK)];
                }
            }
        }
    }
}

/// A whole recording held in a byte slice (read or memory-mapped by the
/// caller), with random access to its batches through the footer.
pub struct RecordingFile<'a> {
    bytes: &'a [u8],
    header: Header,
    footer: FooterInfo,
}

impl<'a> RecordingFile<'a> {
    /// Checks the magic and trailer, reads the footer and the header.
    pub fn from_bytes(bytes: &'a [u8]) -> Result<Self> {
        if bytes.is_empty() {
            return Err(RecordingError::Empty);
        }
        if bytes.len() < MAGIC.len() || bytes[..MAGIC.len()] != MAGIC {
            return Err(if MAGIC.starts_with(bytes) {
                RecordingError::truncated("inside the magic bytes")
            } else {
                RecordingError::WrongMagic
            });
        }
        let tail = bytes
            .len()
            .checked_sub(TRAILER_LEN)
            .filter(|&t| t >= MAGIC.len());
        let trailer = tail.map(|t| &bytes[t..]);
        let Some(trailer) = trailer.filter(|t| t[8..] == END_MAGIC) else {
            return Err(RecordingError::truncated(
                "somewhere: the trailer is missing",
            ));
        };
        let tail = bytes.len() - TRAILER_LEN;
        let footer_offset = u64::from_le_bytes(trailer[..8].try_into().unwrap_or([0; 8]));
        let footer_bytes = chunk_at(bytes, footer_offset, tail, usize::MAX)?;
        let chunk = verify(footer_bytes, usize::MAX, footer_offset)?;
        // The footer's counts are checked against the batches when they are read.
        let f = chunk
            .body_as_footer()
            .ok_or_else(|| RecordingError::UnexpectedChunk {
                index: usize::MAX,
                detail: "the trailer does not point at the footer".into(),
            })?;
        let tables = Tables {
            threads: 0,
            strings: f.string_count(),
            ranges: f.range_count(),
            events: f.event_count(),
        };
        let footer = decode_footer(chunk, usize::MAX, &tables)?;
        check_chunk_index(&footer, bytes, footer_offset)?;
        let first = footer
            .chunks
            .first()
            .filter(|c| c.is_header)
            .ok_or_else(|| RecordingError::Invalid("the footer lists no header chunk".into()))?;
        let header_bytes = chunk_at(bytes, first.offset, tail, 0)?;
        let header = decode_header(
            verify(header_bytes, 0, first.offset)?,
            0,
            SourceCheck::Reader,
        )?;
        Ok(RecordingFile {
            bytes,
            header,
            footer,
        })
    }

    pub fn header(&self) -> &Header {
        &self.header
    }

    pub fn footer(&self) -> &FooterInfo {
        &self.footer
    }

    /// Decodes every batch in order onto `out`, checking the counts the
    /// footer claims.
    pub fn decode_into(&self, out: &mut Columns) -> Result<()> {
        let mut tables = Tables {
            threads: self.header.threads.len() as u32,
            ..Tables::default()
        };
        let tail = self.bytes.len() - TRAILER_LEN;
        let mut left = self.footer.event_count;
        for (index, c) in self.footer.chunks.iter().enumerate() {
            if c.is_header {
                continue;
            }
            let chunk = verify(
                chunk_at(self.bytes, c.offset, tail, index)?,
                index,
                c.offset,
            )?;
            let (_, count) = decode_batch(chunk, index, &mut tables, out)?;
            left = left
                .checked_sub(u64::from(count))
                .ok_or_else(too_many_events)?;
        }
        Ok(())
    }

    /// Decodes every batch in order, checking the counts the footer claims.
    pub fn batches(&self) -> impl Iterator<Item = Result<DecodedBatch>> + '_ {
        let mut tables = Tables {
            threads: self.header.threads.len() as u32,
            ..Tables::default()
        };
        let tail = self.bytes.len() - TRAILER_LEN;
        let mut failed = false;
        let mut left = self.footer.event_count;
        self.footer
            .chunks
            .iter()
            .enumerate()
            .filter(|(_, c)| !c.is_header)
            .map_while(move |(index, c)| {
                if failed {
                    return None;
                }
                let r = chunk_at(self.bytes, c.offset, tail, index)
                    .and_then(|b| verify(b, index, c.offset))
                    .and_then(|chunk| {
                        let mut batch = Columns::default();
                        let (first, _) = decode_batch(chunk, index, &mut tables, &mut batch)?;
                        Ok(DecodedBatch::from_columns(first, batch))
                    })
                    .and_then(|b| {
                        left = left
                            .checked_sub(b.len() as u64)
                            .ok_or_else(too_many_events)?;
                        Ok(b)
                    });
                failed = r.is_err();
                Some(r)
            })
    }
}

fn too_many_events() -> RecordingError {
    RecordingError::Invalid("more events than the footer counts".into())
}

/// The footer's chunk index must describe the file exactly: the header
/// right after the magic, then batches back to back with consecutive
/// events, then the end-of-batches mark right before the footer.
fn check_chunk_index(footer: &FooterInfo, bytes: &[u8], footer_offset: u64) -> Result<()> {
    let bad = || {
        RecordingError::Invalid(
            "the footer's chunk index does not match the chunks in the file".into(),
        )
    };
    let mut at = MAGIC.len() as u64;
    let mut events = 0u64;
    for (i, c) in footer.chunks.iter().enumerate() {
        let expected_kind = i == 0;
        if c.offset != at || c.is_header != expected_kind || c.first_event != events {
            return Err(bad());
        }
        if c.is_header && c.event_count != 0 {
            return Err(bad());
        }
        at += 4 + u64::from(c.length);
        events += u64::from(c.event_count);
    }
    let mark = usize::try_from(at).ok().and_then(|a| bytes.get(a..a + 4));
    if footer.chunks.is_empty() || at + 4 != footer_offset || mark != Some(&[0u8; 4][..]) {
        return Err(bad());
    }
    Ok(())
}

fn chunk_at(bytes: &[u8], offset: u64, limit: usize, index: usize) -> Result<&[u8]> {
    let start = usize::try_from(offset).unwrap_or(usize::MAX);
    let out_of_file = || {
        RecordingError::Invalid(format!(
            "chunk {index} at byte {offset} lies outside the file"
        ))
    };
    let len_bytes = bytes
        .get(start..start.saturating_add(4))
        .filter(|_| start.saturating_add(4) <= limit)
        .ok_or_else(out_of_file)?;
    let len = u32::from_le_bytes([len_bytes[0], len_bytes[1], len_bytes[2], len_bytes[3]]) as usize;
    if len > MAX_CHUNK_BYTES {
        return Err(RecordingError::limit(
            "chunk size",
            len as u64,
            MAX_CHUNK_BYTES as u64,
        ));
    }
    let end = start + 4 + len;
    if end > limit {
        return Err(out_of_file());
    }
    Ok(&bytes[start..end])
}

/// The event count a footer chunk (with its size prefix) claims, if it
/// verifies. Used only as a memory reservation hint.
pub(crate) fn footer_event_count(prefixed: &[u8]) -> Option<u64> {
    let chunk = verify(prefixed, usize::MAX, 0).ok()?;
    chunk.body_as_footer().map(|f| f.event_count())
}

#[cfg(test)]
#[path = "reader_tests.rs"]
mod tests;
