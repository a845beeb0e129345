//! Bad input: every way a recording can be broken gets its own error, and
//! none makes the reader panic or allocate what the file merely claims.

use super::*;
use crate::model::Recording;
use crate::varint::put_u64;
use crate::writer::{encode_to_vec, NewEvent};

fn header() -> Header {
    Header {
        source_text: "theorem a : True := by\n  trivial\n".into(),
        threads: vec![Thread {
            id: 1,
            name: "main".into(),
        }],
        ..Header::default()
    }
}

fn ev(parent: Option<u32>, start: u64, dur: u64) -> NewEvent<'static> {
    NewEvent {
        parent,
        class: "Elab.step",
        label: "trivial",
        start_ns: start,
        duration_ns: dur,
        thread: 0,
        range: Some(SourceRange::new(1, 2, 1, 9)),
        range_kind: RangeKind::Exact,
    }
}

fn good() -> Vec<u8> {
    encode_to_vec(&header(), [ev(None, 0, 100), ev(Some(0), 10, 50)]).unwrap()
}

/// Reads with all three readers; they must agree on the error text.
fn read_err(bytes: &[u8]) -> String {
    let streamed = Recording::read(bytes).unwrap_err().to_string();
    let mut dec = StreamDecoder::new();
    let mut pushed = None;
    for b in bytes {
        dec.feed(std::slice::from_ref(b));
        loop {
            match dec.next_item() {
                Ok(Some(_)) => continue,
                Ok(None) => break,
                Err(e) => {
                    pushed = Some(e.to_string());
                    break;
                }
            }
        }
        if pushed.is_some() {
            break;
        }
    }
    let pushed = pushed.unwrap_or_else(|| dec.finish().unwrap_err().to_string());
    assert_eq!(streamed, pushed, "ChunkReader and StreamDecoder disagree");
    streamed
}

/// Byte offsets of the chunks of a well-formed file (header first).
fn chunk_offsets(bytes: &[u8]) -> Vec<(u64, u32)> {
    let f = RecordingFile::from_bytes(bytes).unwrap();
    f.footer()
        .chunks
        .iter()
        .map(|c| (c.offset, c.length))
        .collect()
}

/// Assembles a file from the good header and a hand-made batch chunk.
fn with_batch(
    build: impl FnOnce(
        &mut flatbuffers::FlatBufferBuilder<'static>,
    ) -> flatbuffers::WIPOffset<fb::EventBatch<'static>>,
) -> Vec<u8> {
    let good = good();
    let (hoff, hlen) = chunk_offsets(&good)[0];
    let mut out = good[..(hoff + 4 + u64::from(hlen)) as usize].to_vec();
    let mut fbb = flatbuffers::FlatBufferBuilder::new();
    let batch = build(&mut fbb);
    let root = fb::Chunk::create(
        &mut fbb,
        &fb::ChunkArgs {
            body_type: fb::ChunkBody::EventBatch,
            body: Some(batch.as_union_value()),
        },
    );
    fb::finish_size_prefixed_chunk_buffer(&mut fbb, root);
    out.extend_from_slice(fbb.finished_data());
    out
}

struct Cols {
    parent: Vec<u64>,
    start: Vec<u64>,
    duration: Vec<u64>,
}

fn batch_of(cols: Cols) -> Vec<u8> {
    with_batch(|fbb| {
        let n = cols.parent.len();
        let enc = |vals: &[u64]| {
            let mut v = Vec::new();
            for &x in vals {
                put_u64(&mut v, x);
            }
            v
        };
        let strings = [fbb.create_string("Elab.step")];
        let new_strings = Some(fbb.create_vector(&strings));
        let zeros = vec![0u64; n];
        let args = fb::EventBatchArgs {
            first_event: 0,
            count: n as u32,
            new_strings,
            new_ranges: None,
            parent: Some(fbb.create_vector(&enc(&cols.parent))),
            class: Some(fbb.create_vector(&enc(&zeros))),
            label: Some(fbb.create_vector(&enc(&zeros))),
            start: Some(fbb.create_vector(&enc(&cols.start))),
            duration: Some(fbb.create_vector(&enc(&cols.duration))),
            thread: Some(fbb.create_vector(&enc(&zeros))),
            range: Some(fbb.create_vector(&enc(&zeros))),
        };
        fb::EventBatch::create(fbb, &args)
    })
}

fn zz(v: i64) -> u64 {
    crate::varint::zigzag(v)
}

#[test]
fn empty_file() {
    assert_eq!(
        read_err(&[]),
        "the file is empty, not a leanscope recording"
    );
    assert!(matches!(
        RecordingFile::from_bytes(&[]),
        Err(RecordingError::Empty)
    ));
}

#[test]
fn wrong_magic() {
    let mut b = good();
    b[1] = b'X';
    assert!(read_err(&b).contains("wrong magic"));
    assert!(matches!(
        RecordingFile::from_bytes(&b),
        Err(RecordingError::WrongMagic)
    ));
    assert!(read_err(b"{\"traceEvents\": []}").contains("wrong magic"));
}

#[test]
fn truncated_inside_magic_header_batch_footer_and_trailer() {
    let b = good();
    let chunks = chunk_offsets(&b);
    let (hoff, hlen) = chunks[0];
    let (boff, blen) = chunks[1];
    let footer_at = RecordingFile::from_bytes(&b).map(|_| ()).ok();
    assert!(footer_at.is_some());
    let trailer_at = b.len() - TRAILER_LEN;
    let footer_off = u64::from_le_bytes(b[trailer_at..trailer_at + 8].try_into().unwrap()) as usize;
    let cases = [
        (4, "inside the magic bytes"),
        ((hoff + 10) as usize, "inside the header chunk"),
        (
            (boff + u64::from(blen) / 2) as usize,
            "inside event batch chunk 1",
        ),
        ((boff + 4 + u64::from(blen)) as usize, "before the footer"),
        (footer_off + 6, "inside the footer"),
        (trailer_at + 3, "inside the trailer"),
    ];
    assert!(hoff + 4 + u64::from(hlen) <= boff);
    for (cut, want) in cases {
        let msg = read_err(&b[..cut]);
        assert!(
            msg.contains("truncated") && msg.contains(want),
            "cut at {cut}: {msg}"
        );
        assert!(RecordingFile::from_bytes(&b[..cut]).is_err());
    }
}

#[test]
fn unsupported_schema_version() {
    let mut fbb = flatbuffers::FlatBufferBuilder::new();
    let h = fb::Header::create(
        &mut fbb,
        &fb::HeaderArgs {
            schema_version: SCHEMA_VERSION + 1,
            ..Default::default()
        },
    );
    let root = fb::Chunk::create(
        &mut fbb,
        &fb::ChunkArgs {
            body_type: fb::ChunkBody::Header,
            body: Some(h.as_union_value()),
        },
    );
    fb::finish_size_prefixed_chunk_buffer(&mut fbb, root);
    let mut b = MAGIC.to_vec();
    b.extend_from_slice(fbb.finished_data());
    let msg = read_err(&b);
    assert_eq!(
        msg,
        "unsupported schema version 2 (this leanscope reads up to version 1)"
    );
}

#[test]
fn a_time_header_is_written_as_before_the_measure_existed() {
    // `Time` is the schema's default, so a time recording's header has no `measure` slot: the
    // bytes a writer from before the field wrote, and they read back as time.
    let bytes = good();
    let (offset, _) = chunk_offsets(&bytes)[0];
    let chunk = fb::size_prefixed_root_as_chunk(&bytes[offset as usize..]).unwrap();
    let h = chunk.body_as_header().unwrap();
    assert_eq!(
        h._tab.vtable().get(fb::Header::VT_MEASURE),
        0,
        "no measure slot"
    );
    assert_eq!(
        Recording::read(&bytes[..]).unwrap().header.measure,
        Measure::Time
    );
    let heartbeats = Header {
        measure: Measure::Heartbeats,
        ..header()
    };
    let bytes = encode_to_vec(&heartbeats, [ev(None, 0, 100)]).unwrap();
    assert_eq!(
        Recording::read(&bytes[..]).unwrap().header.measure,
        Measure::Heartbeats
    );
}

#[test]
fn an_unknown_measure_is_refused() {
    let mut fbb = flatbuffers::FlatBufferBuilder::new();
    let h = fb::Header::create(
        &mut fbb,
        &fb::HeaderArgs {
            schema_version: SCHEMA_VERSION,
            measure: fb::Measure(7),
            ..Default::default()
        },
    );
    let root = fb::Chunk::create(
        &mut fbb,
        &fb::ChunkArgs {
            body_type: fb::ChunkBody::Header,
            body: Some(h.as_union_value()),
        },
    );
    fb::finish_size_prefixed_chunk_buffer(&mut fbb, root);
    let mut b = MAGIC.to_vec();
    b.extend_from_slice(fbb.finished_data());
    assert_eq!(
        read_err(&b),
        "invalid recording: the recording counts its times in an unknown measure (value 7); this leanscope knows time, heartbeats and untimed"
    );
}

#[test]
fn chunk_that_fails_verification() {
    let mut b = good();
    let (hoff, _) = chunk_offsets(&b)[0];
    // Point the root table offset far outside the chunk.
    let at = hoff as usize + 4;
    b[at..at + 4].copy_from_slice(&0x00ff_ff00u32.to_le_bytes());
    let msg = read_err(&b);
    assert!(
        msg.starts_with("chunk 0 at byte 8 fails verification"),
        "{msg}"
    );
}

#[test]
fn absurd_chunk_size_is_refused_before_allocating() {
    let mut b = MAGIC.to_vec();
    b.extend_from_slice(&u32::MAX.to_le_bytes());
    b.extend_from_slice(&[0; 16]);
    let msg = read_err(&b);
    assert_eq!(
        msg,
        format!(
            "chunk size is {}, over the limit of {}",
            u32::MAX,
            MAX_CHUNK_BYTES
        )
    );
}

#[test]
fn chunk_size_at_the_limit_is_waited_for_not_allocated() {
    // A claim of exactly the limit is legal; with only a few bytes present the
    // reader waits for more and then reports truncation, without reserving.
    let mut b = MAGIC.to_vec();
    b.extend_from_slice(&(MAX_CHUNK_BYTES as u32).to_le_bytes());
    b.extend_from_slice(&[0; 16]);
    assert!(read_err(&b).contains("truncated inside the header chunk"));
    let mut over = MAGIC.to_vec();
    over.extend_from_slice(&(MAX_CHUNK_BYTES as u32 + 1).to_le_bytes());
    assert!(read_err(&over).contains("over the limit"));
}

#[test]
fn absurd_event_count_in_a_batch() {
    let b = with_batch(|fbb| {
        fb::EventBatch::create(
            fbb,
            &fb::EventBatchArgs {
                count: u32::MAX,
                ..Default::default()
            },
        )
    });
    let msg = read_err(&b);
    assert_eq!(
        msg,
        format!(
            "events in one batch is {}, over the limit of {}",
            u32::MAX,
            MAX_BATCH_EVENTS
        )
    );
}

#[test]
fn claimed_count_beyond_column_data() {
    // 1000 events claimed, columns hold one: an error, not a 1000-row reservation.
    let b = with_batch(|fbb| {
        let one = fbb.create_vector(&[0u8]);
        fb::EventBatch::create(
            fbb,
            &fb::EventBatchArgs {
                count: 1000,
                parent: Some(one),
                class: Some(one),
                label: Some(one),
                start: Some(one),
                duration: Some(one),
                thread: Some(one),
                range: Some(one),
                ..Default::default()
            },
        )
    });
    let msg = read_err(&b);
    assert!(
        msg.starts_with("event 0: string id 0 is not among the 0 strings")
            || msg.contains("ends early"),
        "{msg}"
    );
}

#[test]
fn parent_pointing_forward() {
    let b = batch_of(Cols {
        parent: vec![zz(-1), 0],
        start: vec![0, 0],
        duration: vec![zz(10), zz(5)],
    });
    assert_eq!(
        read_err(&b),
        "event 0: its parent lies 1 events ahead; a parent must come first"
    );
}

#[test]
fn parent_out_of_range() {
    let b = batch_of(Cols {
        parent: vec![0, zz(5)],
        start: vec![0, 0],
        duration: vec![zz(10), zz(5)],
    });
    assert_eq!(
        read_err(&b),
        "event 1: its parent lies 5 events back, before the first event"
    );
}

#[test]
fn interval_that_ends_before_it_starts() {
    let b = batch_of(Cols {
        parent: vec![0],
        start: vec![zz(100)],
        duration: vec![zz(-7)],
    });
    assert_eq!(
        read_err(&b),
        "event 0: it ends before it starts (duration -7 ns)"
    );
}

#[test]
fn interval_that_overflows() {
    let b = batch_of(Cols {
        parent: vec![0],
        start: vec![zz(i64::MAX - 5)],
        duration: vec![zz(10)],
    });
    assert_eq!(read_err(&b), "event 0: its end time overflows");
    let b = batch_of(Cols {
        parent: vec![0, 0],
        start: vec![zz(i64::MAX), zz(i64::MAX)],
        duration: vec![0, 0],
    });
    assert_eq!(
        read_err(&b),
        "event 1: its start time is negative or overflows"
    );
}

#[test]
fn bytes_after_the_trailer() {
    let mut b = good();
    b.push(0);
    assert_eq!(
        read_err(&b),
        "invalid recording: 1 bytes follow the trailer"
    );
}

#[test]
fn footer_that_lies_about_counts() {
    // Re-encode the footer with a wrong event count.
    let b = good();
    let trailer_at = b.len() - TRAILER_LEN;
    let footer_off = u64::from_le_bytes(b[trailer_at..trailer_at + 8].try_into().unwrap()) as usize;
    let mut fbb = flatbuffers::FlatBufferBuilder::new();
    let f = fb::Footer::create(
        &mut fbb,
        &fb::FooterArgs {
            chunks: None,
            event_count: 1_000_000_000,
            string_count: 0,
            range_count: 0,
        },
    );
    let root = fb::Chunk::create(
        &mut fbb,
        &fb::ChunkArgs {
            body_type: fb::ChunkBody::Footer,
            body: Some(f.as_union_value()),
        },
    );
    fb::finish_size_prefixed_chunk_buffer(&mut fbb, root);
    let mut bad = b[..footer_off].to_vec();
    bad.extend_from_slice(fbb.finished_data());
    bad.extend_from_slice(&(footer_off as u64).to_le_bytes());
    bad.extend_from_slice(&END_MAGIC);
    assert!(read_err(&bad).starts_with("invalid recording: the footer counts 1000000000 events"));
    assert!(Recording::from_bytes(&bad).is_err());
}

#[test]
fn source_text_that_does_not_match_its_hash() {
    let mut b = good();
    let needle = b"trivial";
    let at = b.windows(needle.len()).position(|w| w == needle).unwrap();
    b[at] = b'T';
    assert_eq!(
        read_err(&b),
        "invalid recording: the embedded source text does not match its SHA-256"
    );
}

/// Decodes `bytes` with a decoder that leaves the source check to us.
fn header_left_unchecked(bytes: &[u8]) -> Header {
    let mut dec = StreamDecoder::leaving_source_check_to_caller();
    dec.feed(bytes);
    let mut header = None;
    while let Some(item) = dec.next_item().unwrap() {
        if let Item::Header(h) = item {
            header = Some(*h);
        }
    }
    dec.finish().unwrap();
    header.unwrap()
}

#[test]
fn source_check_left_to_the_caller_still_refuses_a_mismatch() {
    use crate::source_check::check_source_digest;
    let mut b = good();
    let h = header_left_unchecked(&b);
    check_source_digest(&h, None).unwrap();
    check_source_digest(&h, Some(&h.source_sha256.to_uppercase())).unwrap();
    let needle = b"trivial";
    let at = b.windows(needle.len()).position(|w| w == needle).unwrap();
    b[at] = b'T';
    let h = header_left_unchecked(&b);
    let computed = sha256_hex(h.source_text.as_bytes());
    for digest in [None, Some(computed.as_str())] {
        assert_eq!(
            check_source_digest(&h, digest).unwrap_err().to_string(),
            "invalid recording: the embedded source text does not match its SHA-256"
        );
    }
}

#[test]
fn footer_whose_chunk_index_lies() {
    // Found by the fuzzer: a footer pointing a batch elsewhere must be
    // refused by every reader, not only the random-access one.
    let b = good();
    let file = RecordingFile::from_bytes(&b).unwrap();
    let trailer_at = b.len() - TRAILER_LEN;
    let footer_off = u64::from_le_bytes(b[trailer_at..trailer_at + 8].try_into().unwrap()) as usize;
    let mut fbb = flatbuffers::FlatBufferBuilder::new();
    let refs: Vec<fb::ChunkRef> = file
        .footer()
        .chunks
        .iter()
        .map(|c| {
            let kind = if c.is_header {
                fb::ChunkKind::Header
            } else {
                fb::ChunkKind::EventBatch
            };
            let offset = if c.is_header {
                c.offset
            } else {
                c.offset + (1 << 35)
            };
            fb::ChunkRef::new(offset, c.first_event, c.length, c.event_count, kind)
        })
        .collect();
    let chunks = fbb.create_vector(&refs);
    let f = fb::Footer::create(
        &mut fbb,
        &fb::FooterArgs {
            chunks: Some(chunks),
            event_count: file.footer().event_count,
            string_count: file.footer().string_count,
            range_count: file.footer().range_count,
        },
    );
    let root = fb::Chunk::create(
        &mut fbb,
        &fb::ChunkArgs {
            body_type: fb::ChunkBody::Footer,
            body: Some(f.as_union_value()),
        },
    );
    fb::finish_size_prefixed_chunk_buffer(&mut fbb, root);
    let mut bad = b[..footer_off].to_vec();
    bad.extend_from_slice(fbb.finished_data());
    bad.extend_from_slice(&(footer_off as u64).to_le_bytes());
    bad.extend_from_slice(&END_MAGIC);
    let want = "invalid recording: the footer's chunk index does not match the chunks in the file";
    assert_eq!(read_err(&bad), want);
    assert_eq!(
        RecordingFile::from_bytes(&bad)
            .err()
            .map(|e| e.to_string())
            .as_deref(),
        Some(want)
    );
}

#[test]
fn a_big_header_in_small_pieces_is_not_moved_again_and_again() {
    // A header carrying 4 MB of source text, arriving 64 KiB at a time
    // (as a browser's first reads do), written in place.
    let mut h = header();
    h.source_text = "theorem a : True := by\n  trivial\n".repeat(1 << 17);
    let events: Vec<_> = (0..50_000).map(|i| ev(None, i * 10, 5)).collect();
    let bytes = encode_to_vec(&h, events).unwrap();
    let mut dec = StreamDecoder::leaving_source_check_to_caller();
    let mut out = Columns::default();
    let mut most_room = 0;
    for piece in bytes.chunks(64 << 10) {
        dec.space(piece.len()).copy_from_slice(piece);
        dec.commit(piece.len());
        most_room = most_room.max(dec.buf.len());
        while dec.next_into(&mut out).unwrap().is_some() {}
    }
    dec.finish().unwrap();
    assert_eq!(out.events.len(), 50_000);
    // What moves to the front is the tail of a piece each time, not the
    // header so far; the room grew by doubling.
    assert!(dec.moved < 4 << 20, "moved {} bytes", dec.moved);
    assert!(
        most_room < 2 * h.source_text.len() + (1 << 20),
        "{most_room}"
    );
    // And given back once the header was decoded.
    assert!(dec.buf.len() <= 2 << 20, "{}", dec.buf.len());
}

#[test]
fn a_claimed_chunk_length_makes_no_room() {
    // A header claiming the largest chunk allowed, then a trickle: the
    // decoder waits, holding about what came.
    let mut dec = StreamDecoder::new();
    dec.feed(&MAGIC);
    dec.feed(&(MAX_CHUNK_BYTES as u32).to_le_bytes());
    for _ in 0..100 {
        dec.feed(&[0; 1000]);
        assert_eq!(dec.next_item().unwrap(), None);
    }
    assert!(
        dec.buf.capacity() < 1 << 20,
        "{} bytes of room",
        dec.buf.capacity()
    );
}

#[test]
fn a_stop_and_a_memory_track_round_trip_and_are_absent_from_complete_recordings() {
    use crate::memory::MemoryTrack;
    let plain = Recording::read(&good()[..]).unwrap();
    assert_eq!(plain.header.stop, None);
    assert_eq!(plain.header.memory, None);
    let mut memory = MemoryTrack::new(20_000_000, vec![(0, 5 << 20), (20_000_000, 305 << 20)]);
    memory.attribute(
        "a".into(),
        SourceRange::new(0, 0, 1, 9),
        0,
        20_000_000,
        true,
    );
    let h = Header {
        status: CaptureStatus::Stopped,
        stop: Some(Stop {
            reason: StopReason::MemoryLimit,
            detail: "over".into(),
            wall_ns: 21_000_000,
            signal: None,
            memory_limit_bytes: Some(200 << 20),
            memory_reached_bytes: Some(305 << 20),
            in_flight: Some(InFlight {
                declaration: "a".into(),
                text: "theorem a : True := by".into(),
                range: SourceRange::new(0, 0, 1, 9),
                start_ns: 100,
                running_ns: 20_000_000,
                event: Some(0),
            }),
        }),
        memory: Some(memory.clone()),
        ..header()
    };
    let bytes = encode_to_vec(&h, [ev(None, 0, 100)]).unwrap();
    let rec = Recording::read(&bytes[..]).unwrap();
    assert_eq!(rec.header.status, CaptureStatus::Stopped);
    assert_eq!(rec.header.stop, h.stop);
    assert_eq!(rec.header.memory, Some(memory));
    assert_eq!(
        rec.header.memory.unwrap().commands[0].growth_bytes,
        300 << 20
    );
}

#[test]
fn a_corrupt_memory_track_is_an_error() {
    use crate::memory::MemoryTrack;
    let mut memory = MemoryTrack::new(1, vec![(0, 1), (5, 2)]);
    memory.peak_bytes = 2;
    let h = Header {
        memory: Some(memory),
        ..header()
    };
    let mut bytes = encode_to_vec(&h, [ev(None, 0, 100)]).unwrap();
    // The values column `[2, 2]` (zigzag 1, 1): make its last byte a varint that never ends.
    let at = bytes
        .windows(6)
        .position(|w| w == [2, 0, 0, 0, 2, 2])
        .expect("the values column");
    bytes[at + 5] = 0x80;
    let e = read_err(&bytes);
    assert!(e.contains("memory track"), "{e}");
}
