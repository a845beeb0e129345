//! Round trips and the atomic publish of recordings.

use recording::reader::{Item, StreamDecoder};
use recording::synth::{synthetic_bytes, SynthParams};
use recording::*;

fn params(events: u64) -> SynthParams {
    SynthParams {
        seed: 42,
        events,
        threads: 3,
    }
}

#[test]
fn every_reader_gives_back_what_was_written_across_many_batches() {
    let n = recording::limits::BATCH_EVENTS as u64 * 2 + 17;
    let bytes = synthetic_bytes(&params(n)).unwrap();
    let a = Recording::from_bytes(&bytes).unwrap();
    let b = Recording::read(&bytes[..]).unwrap();
    assert_eq!(a.len() as u64, n);
    assert_eq!(a.header, b.header);
    assert_eq!(a.events.start, b.events.start);
    assert_eq!(a.events.parent, b.events.parent);
    assert_eq!(a.strings, b.strings);
    // Push decoding in odd-sized pieces, as fetch() delivers them.
    let mut dec = StreamDecoder::new();
    let (mut events, mut ended) = (0, false);
    for piece in bytes.chunks(997) {
        dec.feed(piece);
        while let Some(item) = dec.next_item().unwrap() {
            match item {
                Item::Header(h) => assert_eq!(*h, a.header),
                Item::Batch(b) => events += b.len(),
                Item::End(f) => {
                    ended = true;
                    assert_eq!(f.event_count, n);
                    assert_eq!(f.chunks.len(), 4, "header + three batches");
                }
            }
        }
    }
    dec.finish().unwrap();
    assert!(ended);
    assert_eq!(events as u64, n);
    // Re-encoding the decoded model gives the same bytes.
    let again = writer::encode_to_vec(
        &a.header,
        (0..a.len() as u32).map(|i| NewEvent {
            parent: a.parent(i),
            class: a.class(i),
            label: a.label(i),
            start_ns: a.start(i),
            duration_ns: a.inclusive_ns(i),
            thread: u32::from(a.thread(i)),
            range: a.range(i),
            range_kind: a.range_kind(i),
        }),
    )
    .unwrap();
    assert_eq!(again, bytes);
}

#[test]
fn synth_is_deterministic_and_exact() {
    let one = synthetic_bytes(&params(5_000)).unwrap();
    assert_eq!(one, synthetic_bytes(&params(5_000)).unwrap());
    assert_ne!(
        one,
        synthetic_bytes(&SynthParams {
            seed: 43,
            ..params(5_000)
        })
        .unwrap()
    );
    let r = Recording::from_bytes(&one).unwrap();
    assert_eq!(r.len(), 5_000);
    assert_eq!(r.issue_count, 0, "{:?}", r.issues.first());
    assert_eq!(r.active_thread_count(), 3);
    // Every declaration of the synthetic source has time; tactics are found.
    let times = model::declaration_times(&r);
    assert!(times.iter().all(Option::is_some));
    assert!(!model::tactic_rows(&r).is_empty());
    // Async proofs: some worker events start after their command ended.
    let outlived = (0..r.len() as u32)
        .filter(|&i| r.thread(i) != 0)
        .filter(|&i| {
            r.parent(i)
                .is_some_and(|p| r.thread(p) == 0 && r.end(i) > r.end(p))
        })
        .count();
    assert!(outlived > 0);
}

/// A header with one thread, `main`.
fn one_thread_header() -> Header {
    Header {
        threads: vec![Thread {
            id: 1,
            name: "main".into(),
        }],
        ..Header::default()
    }
}

/// One root event of 5 ns on that thread.
fn leaf_event() -> NewEvent<'static> {
    NewEvent {
        parent: None,
        class: "c",
        label: "l",
        start_ns: 0,
        duration_ns: 5,
        thread: 0,
        range: None,
        range_kind: RangeKind::None,
    }
}

#[test]
fn writer_publishes_atomically() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("a.lsrec");
    let header = one_thread_header();
    let mut w = RecordingWriter::create(&target, &header).unwrap();
    w.push(&leaf_event()).unwrap();
    assert!(!target.exists(), "nothing at the target before finish");
    let path = w.finish().unwrap();
    assert_eq!(path, target);
    assert_eq!(Recording::open(&target).unwrap().len(), 1);
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        names,
        vec![std::ffi::OsString::from("a.lsrec")],
        "no temp file left"
    );
}

#[test]
fn an_abandoned_or_failing_writer_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("b.lsrec");
    let header = one_thread_header();
    let mut w = RecordingWriter::create(&target, &header).unwrap();
    let bad = w.push(&NewEvent {
        parent: Some(3),
        class: "c",
        label: "l",
        start_ns: 0,
        duration_ns: 5,
        thread: 0,
        range: None,
        range_kind: RangeKind::None,
    });
    assert_eq!(
        bad.unwrap_err().to_string(),
        "event 0: parent 3 has not been pushed yet"
    );
    drop(w);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    let missing = dir.path().join("no/such/dir/c.lsrec");
    assert!(RecordingWriter::create(&missing, &header).is_err());
}

/// A session's recording: created under its own name, kept when finished,
/// removed when abandoned, and never over an existing file.
#[test]
fn an_in_place_writer_writes_under_the_target_name_and_never_replaces() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("c.lsrec");
    let header = one_thread_header();
    let event = leaf_event();
    let mut w = RecordingWriter::create_as(&target, &header, Publish::InPlace).unwrap();
    w.push(&event).unwrap();
    assert!(target.exists(), "written under its own name");
    drop(w);
    assert!(!target.exists(), "an abandoned in-place file is removed");

    let mut w = RecordingWriter::create_as(&target, &header, Publish::InPlace).unwrap();
    w.push(&event).unwrap();
    assert_eq!(w.finish().unwrap(), target);
    assert_eq!(Recording::open(&target).unwrap().len(), 1);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);

    let again = RecordingWriter::create_as(&target, &header, Publish::InPlace);
    assert!(
        again.is_err(),
        "an existing file is never replaced in place"
    );
    assert_eq!(Recording::open(&target).unwrap().len(), 1);
}

#[test]
fn writer_refuses_events_that_would_corrupt_the_file() {
    let header = one_thread_header();
    let mut enc = Encoder::new(Vec::new(), &header).unwrap();
    let base = NewEvent {
        parent: None,
        class: "c",
        label: "l",
        start_ns: 0,
        duration_ns: 5,
        thread: 0,
        range: None,
        range_kind: RangeKind::None,
    };
    let err = |e: NewEvent, enc: &mut Encoder<Vec<u8>>| enc.push(&e).unwrap_err().to_string();
    assert!(err(NewEvent { thread: 1, ..base }, &mut enc)
        .contains("thread 1 is not one of the header's 1 threads"));
    assert!(err(
        NewEvent {
            start_ns: u64::MAX - 1,
            ..base
        },
        &mut enc
    )
    .contains("interval ends past the largest time"));
    assert!(err(
        NewEvent {
            range_kind: RangeKind::Exact,
            ..base
        },
        &mut enc
    )
    .contains("a range needs a range kind"));
    assert_eq!(enc.push(&base).unwrap(), 0);
}
