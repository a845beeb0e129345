//! Streaming recording writer with atomic publish.

use std::collections::HashMap;
use std::fs::{self, File};
use std::hash::{BuildHasherDefault, Hasher};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use flatbuffers::FlatBufferBuilder;

use crate::error::{RecordingError, Result};
use crate::generated as fb;
use crate::interner::Interner;
use crate::limits::{
    BATCH_EVENTS, MAX_CHUNK_BYTES, MAX_EVENTS, MAX_SOURCE_BYTES, MAX_THREADS, MAX_TIME_NS,
};
use crate::types::{sha256_hex, Header, RangeKind, SourceRange};
use crate::varint::{put_i64, put_u64};
use crate::{END_MAGIC, MAGIC, SCHEMA_VERSION};

/// One event as a producer hands it to the writer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NewEvent<'a> {
    /// Index of the enclosing event, which must already have been pushed.
    pub parent: Option<u32>,
    /// The trace class, e.g. `Elab.command`.
    pub class: &'a str,
    /// The event's text.
    pub label: &'a str,
    pub start_ns: u64,
    pub duration_ns: u64,
    /// Index into `Header::threads`.
    pub thread: u32,
    pub range: Option<SourceRange>,
    pub range_kind: RangeKind,
}

#[derive(Default)]
struct Batch {
    first_event: u64,
    count: usize,
    /// Id of the first string this batch introduces.
    first_new_string: u32,
    new_ranges: Vec<SourceRange>,
    parent: Vec<u8>,
    class: Vec<u8>,
    label: Vec<u8>,
    start: Vec<u8>,
    duration: Vec<u8>,
    thread: Vec<u8>,
    range: Vec<u8>,
    prev_start: i64,
}

impl Batch {
    fn clear(&mut self, first_event: u64) {
        self.first_event = first_event;
        self.count = 0;
        self.new_ranges.clear();
        for col in [
            &mut self.parent,
            &mut self.class,
            &mut self.label,
            &mut self.start,
            &mut self.duration,
            &mut self.thread,
            &mut self.range,
        ] {
            col.clear();
        }
        self.prev_start = 0;
    }
}

/// The chunk builder's first size, in bytes (it grows as chunks need).
const BUILDER_CAPACITY: usize = 64 * 1024;

/// Bytes of an event batch per event besides its label's text, for sizing the builder: a
/// new string's length, terminator, padding and offset, and the event's column entries.
const BATCH_BYTES_PER_EVENT: usize = 48;

/// A cheap hasher for small keys made of integers (source ranges): one
/// multiply-rotate per word, as in rustc's FxHash. Not DoS-resistant, which
/// the writer does not need (its keys come from the producer, not a peer).
#[derive(Default)]
struct WordHasher(u64);

impl WordHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for WordHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }

    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.add(u64::from(b));
        }
    }

    #[inline]
    fn write_u32(&mut self, v: u32) {
        self.add(u64::from(v));
    }

    #[inline]
    fn write_u64(&mut self, v: u64) {
        self.add(v);
    }

    #[inline]
    fn write_usize(&mut self, v: usize) {
        self.add(v as u64);
    }
}

/// Encodes a recording into any `Write`, streaming: events are buffered in
/// batches of at most [`BATCH_EVENTS`] and flushed as chunks.
pub struct Encoder<W: Write> {
    out: W,
    offset: u64,
    fbb: FlatBufferBuilder<'static>,
    strings: Interner,
    /// The last event's class id: consecutive events mostly share their class, and a
    /// comparison with it is cheaper than a lookup.
    last_class: Option<u32>,
    ranges: HashMap<SourceRange, u32, BuildHasherDefault<WordHasher>>,
    thread_count: u32,
    events: u64,
    batch: Batch,
    chunks: Vec<fb::ChunkRef>,
}

impl<W: Write> Encoder<W> {
    /// Writes the magic and the header chunk. The header's `schema_version`
    /// and `source_sha256` are filled in by the writer.
    pub fn new(mut out: W, header: &Header) -> Result<Self> {
        if header.source_text.len() > MAX_SOURCE_BYTES {
            return Err(RecordingError::limit(
                "source text size",
                header.source_text.len() as u64,
                MAX_SOURCE_BYTES as u64,
            ));
        }
        if header.threads.len() > MAX_THREADS {
            return Err(RecordingError::limit(
                "thread count",
                header.threads.len() as u64,
                MAX_THREADS as u64,
            ));
        }
        out.write_all(&MAGIC)?;
        let mut enc = Encoder {
            out,
            offset: MAGIC.len() as u64,
            fbb: FlatBufferBuilder::with_capacity(BUILDER_CAPACITY),
            strings: Interner::default(),
            last_class: None,
            ranges: HashMap::default(),
            thread_count: header.threads.len() as u32,
            events: 0,
            batch: Batch::default(),
            chunks: Vec::new(),
        };
        enc.write_header(header)?;
        Ok(enc)
    }

    /// Number of events pushed so far.
    pub fn event_count(&self) -> u64 {
        self.events
    }

    /// Makes room for about `strings` more distinct strings of `string_bytes` bytes in all,
    /// so that a writer that knows its input's size does not grow its tables step by step.
    pub fn reserve(&mut self, strings: usize, string_bytes: usize) {
        self.strings.reserve(strings, string_bytes);
        // The builder holds one batch at a time; left to itself it starts small and doubles
        // (copying) for the first large batch. A batch of such strings is sized at once
        // instead: the header is written already, and the space of a new builder is not
        // touched until it is used.
        let batch = strings.min(BATCH_EVENTS);
        let per_event = string_bytes / strings.max(1) + BATCH_BYTES_PER_EVENT;
        let wanted = batch.saturating_mul(per_event).min(MAX_CHUNK_BYTES);
        if wanted > BUILDER_CAPACITY {
            self.fbb = FlatBufferBuilder::with_capacity(wanted);
        }
    }

    /// Tells the encoder that a string (an event's label) will be pushed soon, so that it can
    /// start fetching what looking it up will need. Only a hint: it changes no output.
    pub fn upcoming(&self, s: &str) {
        self.strings.prefetch(s);
    }

    /// Appends one event and returns its index.
    pub fn push(&mut self, ev: &NewEvent<'_>) -> Result<u32> {
        self.check(ev)?;
        let class = match self.last_class {
            Some(id) if self.strings.get(id) == ev.class => id,
            _ => {
                let id = self.strings.intern(ev.class);
                self.last_class = Some(id);
                id
            }
        };
        let label = self.strings.intern(ev.label);
        self.append(ev, class, label)
    }

    /// The id of a string in this recording, for [`Encoder::push_interned`]
    /// (ids count distinct strings in the order they are first interned or
    /// pushed).
    pub fn intern(&mut self, s: &str) -> u32 {
        self.strings.intern(s)
    }

    /// Like [`Encoder::push`], with the class and label given as ids from
    /// [`Encoder::intern`] (its `class` and `label` strings are not read),
    /// which saves looking strings up when the caller has its own ids.
    pub fn push_interned(&mut self, ev: &NewEvent<'_>, class: u32, label: u32) -> Result<u32> {
        self.check(ev)?;
        let known = self.strings.len() as u64;
        for id in [class, label] {
            if u64::from(id) >= known {
                return Err(RecordingError::InvalidEvent {
                    event: self.events,
                    detail: format!("string {id} has not been interned"),
                });
            }
        }
        self.append(ev, class, label)
    }

    fn check(&self, ev: &NewEvent<'_>) -> Result<()> {
        let index = self.events;
        if index >= MAX_EVENTS {
            return Err(RecordingError::limit("event count", index + 1, MAX_EVENTS));
        }
        let invalid = |detail: String| RecordingError::InvalidEvent {
            event: index,
            detail,
        };
        if let Some(p) = ev.parent {
            if u64::from(p) >= index {
                return Err(invalid(format!("parent {p} has not been pushed yet")));
            }
        }
        if ev.thread >= self.thread_count {
            return Err(invalid(format!(
                "thread {} is not one of the header's {} threads",
                ev.thread, self.thread_count
            )));
        }
        let end = ev.start_ns.checked_add(ev.duration_ns);
        if end.is_none_or(|e| e > MAX_TIME_NS) {
            return Err(invalid("interval ends past the largest time".into()));
        }
        if ev.range.is_none() != (ev.range_kind == RangeKind::None) {
            return Err(invalid("a range needs a range kind and vice versa".into()));
        }
        Ok(())
    }

    /// Writes a checked event.
    fn append(&mut self, ev: &NewEvent<'_>, class: u32, label: u32) -> Result<u32> {
        let index = self.events;
        let range = match ev.range {
            Some(r) => {
                let id = self.intern_range(r);
                (u64::from(id) + 1) << 2 | ev.range_kind as u64
            }
            None => 0,
        };
        let b = &mut self.batch;
        if b.count == 0 {
            b.first_event = index;
        }
        put_u64(
            &mut b.parent,
            ev.parent.map_or(0, |p| (index - u64::from(p)) << 1),
        );
        put_u64(&mut b.class, u64::from(class));
        put_u64(&mut b.label, u64::from(label));
        let start = ev.start_ns as i64;
        put_i64(&mut b.start, start - b.prev_start);
        b.prev_start = start;
        put_i64(&mut b.duration, ev.duration_ns as i64);
        put_u64(&mut b.thread, u64::from(ev.thread));
        put_u64(&mut b.range, range);
        b.count += 1;
        self.events += 1;
        if self.batch.count >= BATCH_EVENTS {
            self.flush_batch()?;
        }
        Ok(index as u32)
    }

    /// Writes the last batch, the footer and the trailer; returns the sink.
    pub fn finish(mut self) -> Result<W> {
        self.flush_batch()?;
        // A zero size marks the end of the event batches; the footer follows.
        self.out.write_all(&0u32.to_le_bytes())?;
        self.offset += 4;
        let footer_offset = self.offset;
        let fbb = &mut self.fbb;
        fbb.reset();
        let chunks = fbb.create_vector(&self.chunks);
        let footer = fb::Footer::create(
            fbb,
            &fb::FooterArgs {
                chunks: Some(chunks),
                event_count: self.events,
                string_count: self.strings.len() as u64,
                range_count: self.ranges.len() as u64,
            },
        );
        let root = fb::Chunk::create(
            fbb,
            &fb::ChunkArgs {
                body_type: fb::ChunkBody::Footer,
                body: Some(footer.as_union_value()),
            },
        );
        fb::finish_size_prefixed_chunk_buffer(fbb, root);
        self.out.write_all(self.fbb.finished_data())?;
        self.out.write_all(&footer_offset.to_le_bytes())?;
        self.out.write_all(&END_MAGIC)?;
        self.out.flush()?;
        Ok(self.out)
    }

    fn intern_range(&mut self, r: SourceRange) -> u32 {
        if let Some(&id) = self.ranges.get(&r) {
            return id;
        }
        let id = self.ranges.len() as u32;
        self.ranges.insert(r, id);
        self.batch.new_ranges.push(r);
        id
    }

    fn write_header(&mut self, h: &Header) -> Result<()> {
        let fbb = &mut self.fbb;
        fbb.reset();
        let s = |fbb: &mut FlatBufferBuilder<'static>, v: &str| fbb.create_string(v);
        let decls: Vec<_> = h
            .declarations
            .iter()
            .map(|d| {
                let name = s(fbb, &d.name);
                let kind = s(fbb, &d.kind);
                fb::Declaration::create(
                    fbb,
                    &fb::DeclarationArgs {
                        name: Some(name),
                        kind: Some(kind),
                        range: Some(&fb_range(d.range)),
                        selection_range: Some(&fb_range(d.selection_range)),
                        generated: d.generated,
                    },
                )
            })
            .collect();
        let decls = fbb.create_vector(&decls);
        let diags: Vec<_> = h
            .diagnostics
            .iter()
            .map(|d| {
                let text = s(fbb, &d.text);
                fb::Diagnostic::create(
                    fbb,
                    &fb::DiagnosticArgs {
                        severity: fb::Severity(d.severity.to_u8()),
                        range: Some(&fb_range(d.range)),
                        text: Some(text),
                    },
                )
            })
            .collect();
        let diags = fbb.create_vector(&diags);
        let threads: Vec<_> = h
            .threads
            .iter()
            .map(|t| {
                let name = s(fbb, &t.name);
                fb::Thread::create(
                    fbb,
                    &fb::ThreadArgs {
                        id: t.id,
                        name: Some(name),
                    },
                )
            })
            .collect();
        let threads = fbb.create_vector(&threads);
        let notes: Vec<_> = h.notes.iter().map(|n| s(fbb, n)).collect();
        let notes = fbb.create_vector(&notes);
        let lean_args: Vec<_> = h.lean_args.iter().map(|a| s(fbb, a)).collect();
        let lean_args = (!lean_args.is_empty()).then(|| fbb.create_vector(&lean_args));
        let cumulative: Vec<_> = h
            .cumulative_times
            .iter()
            .map(|c| {
                let category = s(fbb, &c.category);
                fb::CumulativeTime::create(
                    fbb,
                    &fb::CumulativeTimeArgs {
                        category: Some(category),
                        ns: c.ns,
                    },
                )
            })
            .collect();
        let cumulative = fbb.create_vector(&cumulative);
        let stop = h.stop.as_ref().map(|st| {
            let in_flight = st.in_flight.as_ref().map(|f| {
                let declaration = s(fbb, &f.declaration);
                let text = s(fbb, &f.text);
                fb::InFlight::create(
                    fbb,
                    &fb::InFlightArgs {
                        declaration: Some(declaration),
                        text: Some(text),
                        range: Some(&fb_range(f.range)),
                        start_ns: f.start_ns,
                        running_ns: f.running_ns,
                        event: f.event.map_or(0, |e| e.saturating_add(1)),
                    },
                )
            });
            let detail = s(fbb, &st.detail);
            fb::Stop::create(
                fbb,
                &fb::StopArgs {
                    reason: fb::StopReason(st.reason.to_u8()),
                    detail: Some(detail),
                    wall_ns: st.wall_ns,
                    signal: st.signal.unwrap_or(0),
                    memory_limit_bytes: st.memory_limit_bytes.unwrap_or(0),
                    memory_reached_bytes: st.memory_reached_bytes.unwrap_or(0),
                    in_flight,
                },
            )
        });
        let memory = h.memory.as_ref().map(|m| {
            let commands: Vec<_> = m
                .commands
                .iter()
                .map(|c| {
                    let label = s(fbb, &c.label);
                    fb::CommandMemory::create(
                        fbb,
                        &fb::CommandMemoryArgs {
                            label: Some(label),
                            range: Some(&fb_range(c.range)),
                            start_ns: c.start_ns,
                            end_ns: c.end_ns,
                            growth_bytes: c.growth_bytes,
                            open: c.open,
                        },
                    )
                })
                .collect();
            let commands = fbb.create_vector(&commands);
            let (times, values) = m.encode();
            let times = fbb.create_vector(&times);
            let values = fbb.create_vector(&values);
            let name = s(fbb, crate::memory::TRACK_NAME);
            let unit = s(fbb, crate::memory::TRACK_UNIT);
            fb::CounterTrack::create(
                fbb,
                &fb::CounterTrackArgs {
                    name: Some(name),
                    unit: Some(unit),
                    interval_ns: m.interval_ns,
                    times: Some(times),
                    values: Some(values),
                    peak: m.peak_bytes,
                    peak_at_ns: m.peak_at_ns,
                    commands: Some(commands),
                },
            )
        });
        let sha = decode_hex_sha(&sha256_hex(h.source_text.as_bytes()));
        let sha = fbb.create_vector(&sha);
        let args = fb::HeaderArgs {
            schema_version: SCHEMA_VERSION,
            lean_version: Some(s(fbb, &h.lean_version)),
            toolchain: Some(s(fbb, &h.toolchain)),
            capture_mode: fb::CaptureMode(h.capture_mode.to_u8()),
            threshold_ns: h.threshold_ns,
            clock: fb::ClockKind(h.clock.to_u8()),
            clock_description: Some(s(fbb, &h.clock_description)),
            source_path: Some(s(fbb, &h.source_path)),
            module_name: Some(s(fbb, &h.module_name)),
            source_sha256: Some(sha),
            source_text: Some(s(fbb, &h.source_text)),
            declarations: Some(decls),
            diagnostics: Some(diags),
            threads: Some(threads),
            elapsed_ns: h.elapsed_ns.unwrap_or(0),
            status: fb::CaptureStatus(h.status.to_u8()),
            created_unix_ms: h.created_unix_ms,
            producer: Some(s(fbb, &h.producer)),
            notes: Some(notes),
            cumulative_times: Some(cumulative),
            measure: fb::Measure(h.measure.to_u8()),
            stop,
            memory,
            lean_args,
        };
        let header = fb::Header::create(fbb, &args);
        let root = fb::Chunk::create(
            fbb,
            &fb::ChunkArgs {
                body_type: fb::ChunkBody::Header,
                body: Some(header.as_union_value()),
            },
        );
        fb::finish_size_prefixed_chunk_buffer(fbb, root);
        self.emit_chunk(fb::ChunkKind::Header, 0, 0)
    }

    fn flush_batch(&mut self) -> Result<()> {
        if self.batch.count == 0 {
            return Ok(());
        }
        let b = &self.batch;
        let fbb = &mut self.fbb;
        fbb.reset();
        let strings: Vec<_> = (b.first_new_string..self.strings.len() as u32)
            .map(|id| fbb.create_string(self.strings.get(id)))
            .collect();
        let new_strings = fbb.create_vector(&strings);
        let ranges: Vec<fb::SourceRange> = b.new_ranges.iter().map(|r| fb_range(*r)).collect();
        let new_ranges = fbb.create_vector(&ranges);
        let args = fb::EventBatchArgs {
            first_event: b.first_event,
            count: b.count as u32,
            new_strings: Some(new_strings),
            new_ranges: Some(new_ranges),
            parent: Some(fbb.create_vector(&b.parent)),
            class: Some(fbb.create_vector(&b.class)),
            label: Some(fbb.create_vector(&b.label)),
            start: Some(fbb.create_vector(&b.start)),
            duration: Some(fbb.create_vector(&b.duration)),
            thread: Some(fbb.create_vector(&b.thread)),
            range: Some(fbb.create_vector(&b.range)),
        };
        let batch = fb::EventBatch::create(fbb, &args);
        let root = fb::Chunk::create(
            fbb,
            &fb::ChunkArgs {
                body_type: fb::ChunkBody::EventBatch,
                body: Some(batch.as_union_value()),
            },
        );
        fb::finish_size_prefixed_chunk_buffer(fbb, root);
        let (first, count) = (self.batch.first_event, self.batch.count as u32);
        self.emit_chunk(fb::ChunkKind::EventBatch, first, count)?;
        self.batch.clear(self.events);
        self.batch.first_new_string = self.strings.len() as u32;
        Ok(())
    }

    fn emit_chunk(&mut self, kind: fb::ChunkKind, first_event: u64, count: u32) -> Result<()> {
        let data = self.fbb.finished_data();
        self.out.write_all(data)?;
        self.chunks.push(fb::ChunkRef::new(
            self.offset,
            first_event,
            (data.len() - 4) as u32,
            count,
            kind,
        ));
        self.offset += data.len() as u64;
        Ok(())
    }
}

fn fb_range(r: SourceRange) -> fb::SourceRange {
    fb::SourceRange::new(r.start_line, r.start_col, r.end_line, r.end_col)
}

fn decode_hex_sha(hex: &str) -> Vec<u8> {
    hex.as_bytes()
        .chunks(2)
        .map(|pair| {
            let digit = |c: u8| (c as char).to_digit(16).unwrap_or(0) as u8;
            digit(pair[0]) << 4 | digit(pair[1])
        })
        .collect()
}

/// A file published atomically: written to a temporary file in the
/// target's directory, then fsynced and renamed over the target by
/// [`AtomicFile::publish`]. If it is dropped unpublished, or publishing
/// fails, the temporary file is removed and nothing appears at the target.
/// [`Publish::InPlace`] writes it under its own name instead (see there).
pub struct AtomicFile {
    /// Where the bytes are written until published; empty once renamed.
    temp: PathBuf,
    target: PathBuf,
    publish: Publish,
}

/// How a file is published.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Publish {
    /// Written to a temporary name, fsynced, renamed over the target, and
    /// the directory fsynced: readers see the old file or the whole new one.
    Atomic,
    /// Created under the target's own name (which must not exist) and
    /// fsynced, without a rename or the directory's fsync. Only for a
    /// writer whose readers ignore the file until it commits it, and which
    /// fsyncs the directory itself before that: a
    /// session, whose readers ignore a recording no committed entry names,
    /// and which commits its files in groups.
    InPlace,
}

impl AtomicFile {
    /// Creates the temporary file; returns the guard and a buffered writer.
    pub fn create(target: impl AsRef<Path>) -> Result<(AtomicFile, BufWriter<File>)> {
        Self::create_as(target, Publish::Atomic)
    }

    /// [`AtomicFile::create`], published as `publish` says.
    pub fn create_as(
        target: impl AsRef<Path>,
        publish: Publish,
    ) -> Result<(AtomicFile, BufWriter<File>)> {
        let target = target.as_ref().to_path_buf();
        let (temp, file) = match publish {
            Publish::Atomic => {
                let temp = temp_path_for(&target);
                let file = File::create(&temp)?;
                (temp, file)
            }
            Publish::InPlace => {
                let file = File::options().write(true).create_new(true).open(&target)?;
                (target.clone(), file)
            }
        };
        Ok((
            AtomicFile {
                temp,
                target,
                publish,
            },
            BufWriter::with_capacity(1 << 20, file),
        ))
    }

    /// Flushes and fsyncs the file, then (when [`Publish::Atomic`]) renames
    /// it to the target and fsyncs the directory. Returns the target path.
    pub fn publish(mut self, out: BufWriter<File>) -> Result<PathBuf> {
        let file = out
            .into_inner()
            .map_err(|e| RecordingError::Io(e.into_error()))?;
        file.sync_all()?;
        drop(file);
        if self.publish == Publish::Atomic {
            fs::rename(&self.temp, &self.target)?;
            sync_folder_of(&self.target);
        }
        // Published: nothing is left for `drop` to remove.
        self.temp = PathBuf::new();
        Ok(std::mem::take(&mut self.target))
    }
}

/// Fsyncs the directory that holds `path` (where the platform allows it).
fn sync_folder_of(path: &Path) {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        // Removes what an unfinished or failed writer left behind (after a
        // successful publish the temp file was renamed away or is the
        // published file itself).
        if !self.temp.as_os_str().is_empty() {
            let _ = fs::remove_file(&self.temp);
        }
    }
}

/// Writes a recording file, streaming, and publishes it atomically (see
/// [`AtomicFile`]).
pub struct RecordingWriter {
    encoder: Encoder<BufWriter<File>>,
    file: AtomicFile,
}

impl RecordingWriter {
    pub fn create(target: impl AsRef<Path>, header: &Header) -> Result<Self> {
        Self::create_as(target, header, Publish::Atomic)
    }

    /// [`RecordingWriter::create`], published as `publish` says.
    pub fn create_as(target: impl AsRef<Path>, header: &Header, publish: Publish) -> Result<Self> {
        let (file, out) = AtomicFile::create_as(target, publish)?;
        Ok(RecordingWriter {
            encoder: Encoder::new(out, header)?,
            file,
        })
    }

    pub fn push(&mut self, ev: &NewEvent<'_>) -> Result<u32> {
        self.encoder.push(ev)
    }

    pub fn event_count(&self) -> u64 {
        self.encoder.event_count()
    }

    /// See [`Encoder::upcoming`].
    pub fn upcoming(&self, s: &str) {
        self.encoder.upcoming(s);
    }

    /// See [`Encoder::reserve`].
    pub fn reserve(&mut self, strings: usize, string_bytes: usize) {
        self.encoder.reserve(strings, string_bytes);
    }

    /// Finishes and publishes the file; returns the target path.
    pub fn finish(self) -> Result<PathBuf> {
        let out = self.encoder.finish()?;
        self.file.publish(out)
    }
}

fn temp_path_for(target: &Path) -> PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "recording".into());
    target.with_file_name(format!(".{name}.tmp-{}-{n}", std::process::id()))
}

/// Encodes a whole recording into memory.
pub fn encode_to_vec<'a>(
    header: &Header,
    events: impl IntoIterator<Item = NewEvent<'a>>,
) -> Result<Vec<u8>> {
    let mut enc = Encoder::new(Vec::new(), header)?;
    for ev in events {
        enc.push(&ev)?;
    }
    enc.finish()
}
