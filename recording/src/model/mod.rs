//! The event model: the forest of events of one recording, its validation,
//! and the timing math everything else uses.

pub mod accounting;
mod aggregate;
pub mod annotations;
mod classify;
mod explore;
mod folders;
mod forest;
mod shape;
mod stats;
mod timing;
mod validate;

pub use accounting::{time_account, AccountBasis, TimeAccount};
pub(crate) use aggregate::DeclarationIndex;
pub use aggregate::{
    declaration_times, events_by_line, file_time, line_rows, tactic_rows, FileTime, LineRow,
    LineRowsBuilder, TacticRow, TimeRow,
};
pub use annotations::{annotations, Annotations};
pub use classify::{is_tactic, kind_of, EventKind, TACTIC_CLASS};
pub use explore::{
    ancestors, children_slowest_first, declaration_of_event, declaration_operations, depths,
    line_operations,
};
pub use folders::{FolderNode, FolderTree};
pub use stats::{nearest_rank, Stats};
pub use timing::{self_pieces, union_ns, Interval};
pub use validate::{IssueKind, ValidationIssue};

use std::io::Read;

pub use crate::columns::Events;
use crate::columns::{touch_room, Columns, NO_PARENT, NO_RANGE};
use crate::error::{RecordingError, Result};
use crate::reader::{ChunkReader, DecodedBatch, RecordingFile};
use crate::types::{Header, RangeKind, SourceRange};

/// A decoded recording with its event forest, self times and validation
/// issues.
#[derive(Debug, Clone)]
pub struct Recording {
    pub header: Header,
    pub strings: crate::strings::StringTable,
    pub ranges: Vec<SourceRange>,
    pub events: Events,
    child_offsets: Vec<u32>,
    children: Vec<u32>,
    thread_depth: Vec<Option<u16>>,
    window: Option<Interval>,
    traced_ns: u64,
    pub issues: Vec<ValidationIssue>,
    /// Issues found, including those beyond [`MAX_REPORTED_ISSUES`](crate::limits::MAX_REPORTED_ISSUES).
    pub issue_count: u64,
}

/// Builds a [`Recording`] from decoded batches as they arrive.
#[derive(Debug)]
pub struct RecordingBuilder {
    header: Header,
    columns: Columns,
    shape: shape::Shape,
    sweep: forest::Sweep,
    /// How far [`Self::page_in_room`] got in each reserved vector.
    touched: [usize; 10],
}

impl RecordingBuilder {
    pub fn new(header: Header) -> Self {
        Self::with_capacity(header, 0)
    }

    /// `events` is a hint from a trusted count (the footer), used to
    /// reserve the columns once.
    pub fn with_capacity(header: Header, events: usize) -> Self {
        Self::with_columns(header, Columns::with_capacity(events))
    }

    /// Like [`Self::with_capacity`], with columns reserved beforehand (a
    /// viewer reserves them while the header is on its way); they must
    /// hold no events yet.
    pub fn with_columns(header: Header, columns: Columns) -> Self {
        debug_assert!(columns.events.is_empty() && columns.strings.is_empty());
        let events = columns.events.parent.capacity();
        RecordingBuilder {
            sweep: forest::Sweep::new(&header.source_text, events),
            shape: shape::Shape::with_capacity(events),
            header,
            columns,
            touched: [0; 10],
        }
    }

    /// Pages in up to `budget` bytes of the memory reserved for the events
    /// still to come (their columns, depths and child links), a write in
    /// each page; returns whether more is left. A viewer calls this
    /// while it waits for the next bytes.
    pub fn page_in_room(&mut self, mut budget: usize) -> bool {
        let [columns @ .., depth, slots] = &mut self.touched;
        self.columns.events.page_in_room(columns, &mut budget)
            | touch_room(&mut self.shape.depth, depth, &mut budget)
            | self.sweep.page_in_room(slots, &mut budget)
    }

    pub fn header(&self) -> &Header {
        &self.header
    }

    pub fn event_count(&self) -> usize {
        self.columns.events.len()
    }

    /// The events and strings taken so far (for a reader that works on them as they
    /// arrive, such as [`crate::hotspots::Incremental`]).
    pub fn columns(&self) -> &Columns {
        &self.columns
    }

    /// Where batches decode to (see [`crate::reader::StreamDecoder::next_into`]).
    /// The reader checks what it appends; events appended any other way
    /// must keep the model's rules too (a parent before its children,
    /// ids within the tables), or [`Self::take_in`] may panic.
    pub fn columns_mut(&mut self) -> &mut Columns {
        &mut self.columns
    }

    /// Works out what the events added since the last call imply for the
    /// forest's shape (depths, window, child counts), self times and
    /// validation. [`Self::finish`]
    /// does it for whatever is left; calling this after each batch moves
    /// the work to while the next batch is on its way.
    pub fn take_in(&mut self) {
        self.shape
            .extend(&self.columns.events, self.header.threads.len());
        self.sweep.extend(&self.columns);
    }

    pub fn add_batch(&mut self, b: DecodedBatch) {
        self.add_columns(b);
        self.take_in();
    }

    fn add_columns(&mut self, b: DecodedBatch) {
        self.columns.strings.append(&b.new_strings);
        self.columns.ranges.extend(b.new_ranges);
        let e = &mut self.columns.events;
        e.parent.extend_from_slice(&b.parent);
        e.class.extend_from_slice(&b.class);
        e.label.extend_from_slice(&b.label);
        e.start.extend_from_slice(&b.start);
        e.duration.extend_from_slice(&b.duration);
        // Thread indices were checked against the header's threads, of
        // which there are at most MAX_THREADS (65,536).
        e.thread.extend(b.thread.iter().map(|&t| t as u16));
        e.range.extend_from_slice(&b.range);
        e.range_kind.extend_from_slice(&b.range_kind);
    }

    /// Takes in what is left and links the forest.
    pub fn finish(mut self) -> Recording {
        self.take_in();
        let shape = self.shape.finish();
        let Columns {
            events,
            strings,
            ranges,
        } = self.columns;
        let n = events.len();
        let slots = self.sweep.take_slots();
        let (child_offsets, children) = forest::link_children(&events.parent, slots);
        let mut rec = Recording {
            header: self.header,
            strings,
            ranges,
            events,
            child_offsets,
            children,
            thread_depth: shape.thread_depth,
            window: shape.window,
            traced_ns: shape.traced_ns,
            issues: Vec::new(),
            issue_count: 0,
        };
        let issues = self.sweep.finish(&rec);
        rec.issues = issues.kept;
        rec.issue_count = issues.count;
        debug_assert_eq!(rec.child_offsets.len(), n + 1);
        rec
    }
}

impl Recording {
    /// Reads a whole recording from a byte slice, using the footer to
    /// reserve memory once.
    pub fn from_bytes(bytes: &[u8]) -> Result<Recording> {
        let file = RecordingFile::from_bytes(bytes)?;
        let hint = reservation_hint(file.footer().event_count, bytes.len() as u64);
        let mut builder = RecordingBuilder::with_capacity(file.header().clone(), hint);
        file.decode_into(builder.columns_mut())?;
        if builder.event_count() as u64 != file.footer().event_count {
            return Err(RecordingError::Invalid(format!(
                "the footer counts {} events but the batches hold {}",
                file.footer().event_count,
                builder.event_count()
            )));
        }
        Ok(builder.finish())
    }

    /// Reads a recording chunk by chunk from any reader.
    pub fn read(input: impl Read) -> Result<Recording> {
        Self::read_with_hint(input, 0)
    }

    /// Like [`Recording::read`], reserving for `events` events up front.
    pub fn read_with_hint(input: impl Read, events: usize) -> Result<Recording> {
        let mut reader = ChunkReader::new(input)?;
        let mut builder = RecordingBuilder::with_capacity(reader.take_header(), events);
        while let Some(batch) = reader.next_batch()? {
            builder.add_batch(batch);
        }
        Ok(builder.finish())
    }

    /// Opens a recording file, reading it chunk by chunk (the footer is
    /// read first so memory is reserved once).
    pub fn open(path: impl AsRef<std::path::Path>) -> Result<Recording> {
        Self::from_file(std::fs::File::open(path)?)
    }

    /// Reads a recording from a file already opened (for example one
    /// checked to be a regular file), like [`Recording::open`].
    pub fn from_file(mut file: std::fs::File) -> Result<Recording> {
        use std::io::{Seek, SeekFrom};
        let hint = footer_event_count(&mut file).unwrap_or(0);
        file.seek(SeekFrom::Start(0))?;
        Self::read_with_hint(std::io::BufReader::with_capacity(1 << 16, file), hint)
    }

    pub fn len(&self) -> usize {
        self.events.len()
    }

    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    pub fn parent(&self, i: u32) -> Option<u32> {
        Some(self.events.parent[i as usize]).filter(|&p| p != NO_PARENT)
    }

    pub fn children(&self, i: u32) -> &[u32] {
        let (a, b) = (
            self.child_offsets[i as usize] as usize,
            self.child_offsets[i as usize + 1] as usize,
        );
        &self.children[a..b]
    }

    /// Events without a parent, in order.
    pub fn roots(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.len() as u32).filter(|&i| self.events.parent[i as usize] == NO_PARENT)
    }

    pub fn start(&self, i: u32) -> u64 {
        self.events.start[i as usize]
    }

    pub fn end(&self, i: u32) -> u64 {
        self.events.start[i as usize] + self.events.duration[i as usize]
    }

    pub fn interval(&self, i: u32) -> Interval {
        Interval::new(self.start(i), self.end(i))
    }

    /// Inclusive time: the event's interval.
    pub fn inclusive_ns(&self, i: u32) -> u64 {
        self.events.duration[i as usize]
    }

    /// Self time: inclusive minus the union of the same-thread children,
    /// each clipped to the event (worked out from them when asked).
    pub fn self_ns(&self, i: u32) -> u64 {
        timing::self_ns(self, i)
    }

    pub fn thread(&self, i: u32) -> u16 {
        self.events.thread[i as usize]
    }

    pub fn class(&self, i: u32) -> &str {
        &self.strings[self.events.class[i as usize] as usize]
    }

    pub fn label(&self, i: u32) -> &str {
        &self.strings[self.events.label[i as usize] as usize]
    }

    pub fn range(&self, i: u32) -> Option<SourceRange> {
        let r = self.events.range[i as usize];
        (r != NO_RANGE).then(|| self.ranges[r as usize])
    }

    pub fn range_kind(&self, i: u32) -> RangeKind {
        self.events.range_kind[i as usize]
    }

    /// Depth of the deepest event (roots have depth 1); 0 when empty.
    pub fn max_depth(&self) -> u32 {
        let mut depth = vec![0u32; self.len()];
        let mut max = 0;
        for i in 0..self.len() {
            let p = self.events.parent[i];
            depth[i] = if p == NO_PARENT {
                1
            } else {
                depth[p as usize] + 1
            };
            max = max.max(depth[i]);
        }
        max
    }

    /// Number of threads that have at least one event.
    pub fn active_thread_count(&self) -> usize {
        let mut seen = vec![false; self.header.threads.len()];
        for &t in &self.events.thread {
            if let Some(s) = seen.get_mut(t as usize) {
                *s = true;
            }
        }
        seen.iter().filter(|&&s| s).count()
    }

    /// The earliest start and latest end over all events.
    pub fn window(&self) -> Option<Interval> {
        self.window
    }

    /// The deepest depth (roots 0) of each thread's events, by thread
    /// index; `None` for a thread without events.
    pub fn deepest_by_thread(&self) -> &[Option<u16>] {
        &self.thread_depth
    }

    /// The union of the top-level intervals.
    pub fn traced_ns(&self) -> u64 {
        self.traced_ns
    }
}

/// How many events to reserve for when a file claims `claimed`: never more
/// than its size can hold (each event takes at least
/// [`MIN_EVENT_BYTES`] bytes), so a lying footer cannot make us allocate.
pub fn reservation_hint(claimed: u64, file_len: u64) -> usize {
    let bound = (file_len / MIN_EVENT_BYTES).min(crate::limits::MAX_EVENTS);
    usize::try_from(claimed.min(bound)).unwrap_or(0)
}

/// Each event takes at least one byte in each of its seven columns.
const MIN_EVENT_BYTES: u64 = 7;

/// Below this size a recording holds few events: growing its columns as
/// they come costs less than reading its footer first for the count.
const HINT_FROM_BYTES: u64 = 1 << 20;

fn footer_event_count(file: &mut std::fs::File) -> Option<usize> {
    use std::io::{Seek, SeekFrom};
    let len = file.seek(SeekFrom::End(0)).ok()?;
    if len < HINT_FROM_BYTES {
        return None;
    }
    let trailer_at = len.checked_sub(crate::TRAILER_LEN as u64)?;
    file.seek(SeekFrom::Start(trailer_at)).ok()?;
    let mut trailer = [0u8; crate::TRAILER_LEN];
    file.read_exact(&mut trailer).ok()?;
    if trailer[8..] != crate::END_MAGIC {
        return None;
    }
    let footer_at = u64::from_le_bytes(trailer[..8].try_into().ok()?);
    let footer_len = trailer_at.checked_sub(footer_at)?;
    if footer_len > crate::limits::MAX_CHUNK_BYTES as u64 {
        return None;
    }
    file.seek(SeekFrom::Start(footer_at)).ok()?;
    let mut footer = vec![0u8; footer_len as usize];
    file.read_exact(&mut footer).ok()?;
    let count = crate::reader::footer_event_count(&footer)?;
    Some(reservation_hint(count, len))
}

/// The event count a recording file's footer claims, capped like any
/// reservation (see [`reservation_hint`]), read without decoding events;
/// `None` when the file cannot be read or has no valid footer.
pub fn footer_event_hint(path: impl AsRef<std::path::Path>) -> Option<usize> {
    let mut file = std::fs::File::open(path).ok()?;
    footer_event_count(&mut file)
}
