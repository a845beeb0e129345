//! Where importers put events: a spill file next to the output, so that
//! what a streaming importer learns only at the end of its input (thread
//! names, the trace's metadata) can still go into the recording's header,
//! which comes first. Memory stays bounded: each event is written to the
//! spill as a fixed-size record; only distinct strings and ranges are kept.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;

use recording::interner::Interner;
use recording::limits::{MAX_EVENTS, MAX_THREADS, MAX_TIME_NS};
use recording::{Encoder, Header, NewEvent, RangeKind, SourceRange, Thread};

use super::error::{InteropError, Result};
use crate::limit;
use crate::limits::{MAX_IMPORT_STRINGS, MAX_IMPORT_STRING_BYTES};

const NONE: u32 = u32::MAX;

/// A fast hasher for interning (names are not attacker-chosen keys of a
/// long-lived table; the limits bound the table): 8 bytes at a time,
/// multiply and rotate.
#[derive(Default, Clone, Copy)]
pub struct QuickHasher(u64);

impl std::hash::Hasher for QuickHasher {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut h = self.0;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
            h = (h.rotate_left(5) ^ w).wrapping_mul(K);
        }
        let mut tail = [0u8; 8];
        let rest = chunks.remainder();
        tail[..rest.len()].copy_from_slice(rest);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(tail) ^ (bytes.len() as u64)).wrapping_mul(K);
        self.0 = h;
    }

    fn finish(&self) -> u64 {
        self.0 ^ (self.0 >> 29)
    }
}

/// Size of [`TraceSink`]'s table of recent names (a power of two).
const RECENT: usize = 256;

/// Where a name goes in the table of recent names: a hash of its length
/// and its first and last 8 bytes.
#[inline]
fn recent_slot(b: &[u8]) -> usize {
    let word = |b: &[u8]| {
        let mut w = [0u8; 8];
        w[..b.len()].copy_from_slice(b);
        u64::from_le_bytes(w)
    };
    let (first, last) = if b.len() >= 8 {
        (word(&b[..8]), word(&b[b.len() - 8..]))
    } else {
        (word(b), 0)
    };
    let h = (first ^ last.rotate_left(32) ^ b.len() as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    (h >> 56) as usize & (RECENT - 1)
}

type QuickMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<QuickHasher>>;
/// parent, class, label, thread, range (u32 each), start, duration (u64),
/// range kind (u8).
const RECORD_BYTES: usize = 5 * 4 + 2 * 8 + 1;

/// One event as an importer hands it over.
#[derive(Debug, Clone, Copy)]
pub struct SinkEvent<'a> {
    pub parent: Option<u32>,
    pub class: &'a str,
    pub label: &'a str,
    pub start_ns: u64,
    pub duration_ns: u64,
    pub thread: u32,
    pub range: Option<(SourceRange, RangeKind)>,
}

/// An event whose names went through [`TraceSink::intern`]; its range is
/// `R`: the range itself, or (in an [`IdEvent`]) the id
/// [`TraceSink::intern_range`] gave it.
#[derive(Debug, Clone, Copy)]
pub struct InternedEvent<R = (SourceRange, RangeKind)> {
    pub parent: Option<u32>,
    pub class: u32,
    pub label: u32,
    pub start_ns: u64,
    pub duration_ns: u64,
    pub thread: u32,
    pub range: Option<R>,
}

/// An event whose names and range were interned.
pub type IdEvent = InternedEvent<(u32, RangeKind)>;

/// Collects an import's events, threads and notes.
pub struct TraceSink {
    format: &'static str,
    spill: BufWriter<File>,
    /// Distinct names, each once, in one arena.
    strings: Interner,
    /// Names interned lately, by a quick hash of their bytes: id + 1, or 0.
    /// Events mostly repeat a few names, and this small table stays in the
    /// cache where the interner's (one slot per distinct name) does not.
    recent: Box<[u32; RECENT]>,
    ranges: QuickMap<SourceRange, u32>,
    range_list: Vec<SourceRange>,
    pub threads: Vec<Thread>,
    count: u64,
    pub notes: Vec<String>,
    /// Each event's start and duration in counts of trace nodes, kept by an importer of text
    /// that may hold no time at all ([`TraceSink::count_nodes`]); `None` once it is not kept.
    node_layout: Option<BufWriter<File>>,
    /// Events laid out in `node_layout`.
    node_count: u64,
    /// The recording is written with `node_layout`'s values ([`TraceSink::use_node_layout`]).
    use_nodes: bool,
    dir: std::path::PathBuf,
}

impl TraceSink {
    /// A sink whose spill file lives in `dir` (removed when done).
    pub fn new(format: &'static str, dir: &Path) -> Result<Self> {
        let file = tempfile::tempfile_in(dir)?;
        Ok(TraceSink {
            format,
            spill: BufWriter::with_capacity(1 << 20, file),
            strings: Interner::default(),
            recent: Box::new([0; RECENT]),
            ranges: QuickMap::default(),
            range_list: Vec::new(),
            threads: Vec::new(),
            count: 0,
            notes: Vec::new(),
            node_layout: None,
            node_count: 0,
            use_nodes: false,
            dir: dir.to_path_buf(),
        })
    }

    /// Keeps, beside each event's time, a second layout in counts of trace nodes, in a spill
    /// file of its own (16 bytes an event), until [`TraceSink::stop_counting_nodes`]: an
    /// importer that learns only at the end whether its input held any time at all lays
    /// out both. Call before the first event.
    pub fn count_nodes(&mut self) -> Result<()> {
        let file = tempfile::tempfile_in(&self.dir)?;
        self.node_layout = Some(BufWriter::with_capacity(1 << 16, file));
        self.node_count = 0;
        Ok(())
    }

    /// Whether node counts are still kept.
    pub fn is_counting_nodes(&self) -> bool {
        self.node_layout.is_some()
    }

    /// Drops the node layout (the input holds times).
    pub fn stop_counting_nodes(&mut self) {
        self.node_layout = None;
    }

    /// The node layout of the event pushed last: its start and its duration (the nodes in its
    /// subtree).
    pub fn lay_out_nodes(&mut self, start: u64, nodes: u64) -> Result<()> {
        let Some(out) = self.node_layout.as_mut() else {
            return Ok(());
        };
        if self.node_count + 1 != self.count {
            return Err(InteropError::invalid(
                self.format,
                format!("event {}", self.count),
                "trace nodes laid out out of step with the events (a bug of the importer)",
            ));
        }
        let mut rec = [0u8; 16];
        rec[..8].copy_from_slice(&start.to_le_bytes());
        rec[8..].copy_from_slice(&nodes.to_le_bytes());
        out.write_all(&rec)?;
        self.node_count += 1;
        Ok(())
    }

    /// Writes the recording with the node layout in place of the times (the input held none);
    /// false when no node layout was kept for every event.
    pub fn use_node_layout(&mut self) -> bool {
        self.use_nodes = self.node_layout.is_some() && self.node_count == self.count;
        self.use_nodes
    }

    pub fn event_count(&self) -> u64 {
        self.count
    }

    /// Adds a thread and returns its index.
    pub fn add_thread(&mut self, id: u64, name: String) -> Result<u32> {
        if self.threads.len() >= MAX_THREADS {
            return Err(InteropError::over(
                self.format,
                format!("thread {name}"),
                limit!(recording::limits::MAX_THREADS, "the number of threads"),
            ));
        }
        self.threads.push(Thread { id, name });
        Ok(self.threads.len() as u32 - 1)
    }

    /// The id of a name, for [`TraceSink::push_interned`].
    pub fn intern(&mut self, s: &str) -> Result<u32> {
        let slot = recent_slot(s.as_bytes());
        let cached = self.recent[slot];
        if cached != 0 && self.strings.is(cached - 1, s) {
            return Ok(cached - 1);
        }
        let known = self.strings.len();
        let id = self.strings.intern(s);
        self.recent[slot] = id + 1;
        if id as usize == known {
            // A new name: the import ends with an error if it passes a limit
            // (it has been kept, but by at most one name).
            self.check_string_limits()?;
        }
        Ok(id)
    }

    fn check_string_limits(&self) -> Result<()> {
        if self.strings.len() > MAX_IMPORT_STRINGS {
            return Err(InteropError::over(
                self.format,
                format!("event {}", self.count),
                limit!(MAX_IMPORT_STRINGS, "the number of distinct names"),
            ));
        }
        if self.strings.bytes() > MAX_IMPORT_STRING_BYTES {
            return Err(InteropError::over(
                self.format,
                format!("event {}", self.count),
                limit!(MAX_IMPORT_STRING_BYTES, "the total size of distinct names"),
            ));
        }
        Ok(())
    }

    /// The id of a range, for [`TraceSink::push_ids`].
    pub fn intern_range(&mut self, r: SourceRange) -> u32 {
        if let Some(&id) = self.ranges.get(&r) {
            return id;
        }
        let id = self.range_list.len() as u32;
        self.range_list.push(r);
        self.ranges.insert(r, id);
        id
    }

    /// Appends an event; its parent must already have been pushed. Returns
    /// its index.
    pub fn push(&mut self, ev: &SinkEvent<'_>) -> Result<u32> {
        let class = self.intern(ev.class)?;
        let label = self.intern(ev.label)?;
        self.push_interned(&InternedEvent {
            parent: ev.parent,
            class,
            label,
            start_ns: ev.start_ns,
            duration_ns: ev.duration_ns,
            thread: ev.thread,
            range: ev.range,
        })
    }

    /// Like [`TraceSink::push`], with names already interned.
    pub fn push_interned(&mut self, ev: &InternedEvent) -> Result<u32> {
        let range = match ev.range {
            Some((r, k)) if k != RangeKind::None => Some((self.intern_range(r), k)),
            _ => None,
        };
        self.push_ids(&IdEvent {
            parent: ev.parent,
            class: ev.class,
            label: ev.label,
            start_ns: ev.start_ns,
            duration_ns: ev.duration_ns,
            thread: ev.thread,
            range,
        })
    }

    /// Like [`TraceSink::push`], with names and range already interned.
    pub fn push_ids(&mut self, ev: &IdEvent) -> Result<u32> {
        let at = || format!("event {}", self.count);
        if self.count >= MAX_EVENTS {
            return Err(InteropError::over(
                self.format,
                at(),
                limit!(recording::limits::MAX_EVENTS, "the number of events"),
            ));
        }
        if let Some(p) = ev.parent {
            if u64::from(p) >= self.count {
                return Err(InteropError::invalid(
                    self.format,
                    at(),
                    format!("parent {p} comes after its child"),
                ));
            }
        }
        if ev.thread as usize >= self.threads.len() {
            return Err(InteropError::invalid(
                self.format,
                at(),
                format!("thread {} is unknown", ev.thread),
            ));
        }
        if ev
            .start_ns
            .checked_add(ev.duration_ns)
            .is_none_or(|e| e > MAX_TIME_NS)
        {
            return Err(InteropError::invalid(
                self.format,
                at(),
                format!(
                    "the interval starting at {} ns and lasting {} ns ends past the largest time",
                    ev.start_ns, ev.duration_ns
                ),
            ));
        }
        let (range, kind) = match ev.range {
            Some((r, k)) if k != RangeKind::None => (r, k as u8),
            _ => (NONE, RangeKind::None as u8),
        };
        let mut rec = [0u8; RECORD_BYTES];
        rec[0..4].copy_from_slice(&ev.parent.unwrap_or(NONE).to_le_bytes());
        rec[4..8].copy_from_slice(&ev.class.to_le_bytes());
        rec[8..12].copy_from_slice(&ev.label.to_le_bytes());
        rec[12..16].copy_from_slice(&ev.thread.to_le_bytes());
        rec[16..20].copy_from_slice(&range.to_le_bytes());
        rec[20..28].copy_from_slice(&ev.start_ns.to_le_bytes());
        rec[28..36].copy_from_slice(&ev.duration_ns.to_le_bytes());
        rec[36] = kind;
        self.spill.write_all(&rec)?;
        self.count += 1;
        Ok(self.count as u32 - 1)
    }

    /// Writes the recording: `header` (its threads and notes are replaced
    /// by the sink's) and then every event. Ranges are kept only when the
    /// header carries source text for them to refer to.
    pub fn finish<W: Write>(mut self, mut header: Header, out: W) -> Result<W> {
        header.threads = std::mem::take(&mut self.threads);
        header.notes.append(&mut self.notes);
        let keep_ranges = !header.source_text.is_empty();
        let mut file = self
            .spill
            .into_inner()
            .map_err(|e| InteropError::Io(e.into_error()))?;
        file.seek(SeekFrom::Start(0))?;
        let mut input = BufReader::with_capacity(1 << 20, file);
        let mut nodes = match (self.use_nodes, self.node_layout.take()) {
            (true, Some(layout)) => {
                let mut f = layout
                    .into_inner()
                    .map_err(|e| InteropError::Io(e.into_error()))?;
                f.seek(SeekFrom::Start(0))?;
                Some(BufReader::with_capacity(1 << 16, f))
            }
            _ => None,
        };
        let mut enc = Encoder::new(out, &header)?;
        enc.reserve(self.strings.len(), self.strings.bytes());
        let mut rec = [0u8; RECORD_BYTES];
        let u32_at = |r: &[u8; RECORD_BYTES], o: usize| {
            u32::from_le_bytes([r[o], r[o + 1], r[o + 2], r[o + 3]])
        };
        // The sink's string ids to the recording's, as events first use them.
        let mut ids = vec![NONE; self.strings.len()];
        let mut id_of = |enc: &mut Encoder<W>, sink_id: u32| {
            let id = &mut ids[sink_id as usize];
            if *id == NONE {
                *id = enc.intern(self.strings.get(sink_id));
            }
            *id
        };
        for _ in 0..self.count {
            input.read_exact(&mut rec)?;
            let parent = u32_at(&rec, 0);
            let range = u32_at(&rec, 16);
            let range = (keep_ranges && range != NONE).then(|| self.range_list[range as usize]);
            let mut start = [0u8; 8];
            start.copy_from_slice(&rec[20..28]);
            let mut duration = [0u8; 8];
            duration.copy_from_slice(&rec[28..36]);
            if let Some(n) = nodes.as_mut() {
                n.read_exact(&mut start)?;
                n.read_exact(&mut duration)?;
            }
            let class = id_of(&mut enc, u32_at(&rec, 4));
            let label = id_of(&mut enc, u32_at(&rec, 8));
            let ev = NewEvent {
                parent: (parent != NONE).then_some(parent),
                class: "",
                label: "",
                start_ns: u64::from_le_bytes(start),
                duration_ns: u64::from_le_bytes(duration),
                thread: u32_at(&rec, 12),
                range,
                range_kind: if range.is_some() {
                    RangeKind::from_bits(rec[36])
                } else {
                    RangeKind::None
                },
            };
            enc.push_interned(&ev, class, label)?;
        }
        Ok(enc.finish()?)
    }
}
