//! speedscope's file format, evented profiles: one profile per thread,
//! with `O` (open) and `C` (close) events in nanoseconds and each frame's
//! source file and 1-based line.
//!
//! Evented profiles must nest strictly. Events of a thread are placed by
//! time (start, then longer first); an event that runs past the one it
//! starts in is cut at that one's end, and one that starts before a
//! sibling's end begins at that end, so the written profile always nests.
//! Recordings without validation issues are written unchanged.
//!
//! The file is streamed: the profiles come first and the frames they
//! name after them (`shared.frames`), as JSON's members may come in any
//! order.

use std::io::Write;

use recording::Recording;

use super::json_write::{flush_when_full, string, uint, FLUSH_BYTES};

/// speedscope's schema URL, which identifies the format.
pub const SCHEMA_URL: &str = "https://www.speedscope.app/file-format-schema.json";

/// Writes `rec` as a speedscope file, streaming: besides the output
/// buffer it holds two numbers per event (its frame, and its place in its
/// thread's order) and one per distinct frame, never the document.
pub fn export<W: Write>(rec: &Recording, mut out: W) -> std::io::Result<W> {
    let h = &rec.header;
    let mut b: Vec<u8> = Vec::with_capacity(2 * FLUSH_BYTES);
    b.extend_from_slice(b"{\"$schema\":");
    string(&mut b, SCHEMA_URL);
    b.extend_from_slice(b",\"exporter\":");
    string(&mut b, &format!("leanscope {}", env!("CARGO_PKG_VERSION")));
    b.extend_from_slice(b",\"name\":");
    string(
        &mut b,
        if h.source_path.is_empty() {
            "leanscope recording"
        } else {
            &h.source_path
        },
    );
    b.extend_from_slice(b",\"activeProfileIndex\":0,\"profiles\":[");
    let (frame_of, frames) = frames_of(rec);
    let mut by_thread: Vec<Vec<u32>> = vec![Vec::new(); h.threads.len().max(1)];
    for i in 0..rec.len() as u32 {
        by_thread[rec.thread(i) as usize].push(i);
    }
    let mut first_profile = true;
    for (t, events) in by_thread.iter_mut().enumerate() {
        if events.is_empty() {
            continue;
        }
        events.sort_unstable_by_key(|&i| (rec.start(i), std::cmp::Reverse(rec.inclusive_ns(i)), i));
        if !first_profile {
            b.push(b',');
        }
        first_profile = false;
        b.extend_from_slice(b"{\"type\":\"evented\",\"name\":");
        string(&mut b, h.threads.get(t).map_or("", |th| th.name.as_str()));
        // speedscope's units are times, bytes or `none`: heartbeats are counts without a unit.
        b.extend_from_slice(match h.measure {
            recording::Measure::Time => b",\"unit\":\"nanoseconds\",\"events\":[",
            recording::Measure::Heartbeats | recording::Measure::Untimed => {
                b",\"unit\":\"none\",\"events\":["
            }
        });
        let mut first_event = true;
        let mut event = |b: &mut Vec<u8>, kind: u8, frame: u32, at: u64| {
            if !first_event {
                b.push(b',');
            }
            first_event = false;
            b.extend_from_slice(b"{\"type\":\"");
            b.push(kind);
            b.extend_from_slice(b"\",\"frame\":");
            uint(b, u64::from(frame));
            b.extend_from_slice(b",\"at\":");
            uint(b, at);
            b.push(b'}');
        };
        // Open events: (end, frame).
        let mut open: Vec<(u64, u32)> = Vec::new();
        let mut last = 0u64;
        let (mut first, mut end_all) = (u64::MAX, 0u64);
        for &i in events.iter() {
            let mut start = rec.start(i).max(last);
            let mut end = rec.end(i);
            while let Some(&(e, f)) = open.last() {
                if start < e {
                    break;
                }
                event(&mut b, b'C', f, e);
                last = e;
                open.pop();
            }
            start = start.max(last);
            if let Some(&(e, _)) = open.last() {
                end = end.min(e);
            }
            end = end.max(start);
            let frame = frame_of[i as usize];
            event(&mut b, b'O', frame, start);
            open.push((end, frame));
            last = start;
            first = first.min(start);
            end_all = end_all.max(end);
            flush_when_full(&mut out, &mut b)?;
        }
        while let Some((e, f)) = open.pop() {
            event(&mut b, b'C', f, e);
        }
        b.extend_from_slice(b"],\"startValue\":");
        uint(&mut b, first);
        b.extend_from_slice(b",\"endValue\":");
        uint(&mut b, end_all);
        b.push(b'}');
        flush_when_full(&mut out, &mut b)?;
    }
    drop(by_thread);
    drop(frame_of);
    b.extend_from_slice(b"],\"shared\":{\"frames\":[");
    for (k, &i) in frames.iter().enumerate() {
        if k > 0 {
            b.push(b',');
        }
        b.extend_from_slice(b"{\"name\":");
        if rec.label(i).is_empty() {
            string(&mut b, rec.class(i));
        } else {
            string(&mut b, &format!("{}: {}", rec.class(i), rec.label(i)));
        }
        if let Some(r) = rec.range(i) {
            b.extend_from_slice(b",\"file\":");
            string(&mut b, &h.source_path);
            b.extend_from_slice(b",\"line\":");
            uint(&mut b, u64::from(r.start_line) + 1);
            b.extend_from_slice(b",\"col\":");
            uint(&mut b, u64::from(r.start_col) + 1);
        }
        b.push(b'}');
        flush_when_full(&mut out, &mut b)?;
    }
    b.extend_from_slice(b"]}}\n");
    out.write_all(&b)?;
    out.flush()?;
    Ok(out)
}

/// Each event's frame, and each frame's first event: frames are the
/// distinct (class, label, line), numbered in the order of their keys
/// (strings by their index in the recording's table), found by sorting
/// the events rather than hashing them (12 bytes an event at most).
fn frames_of(rec: &Recording) -> (Vec<u32>, Vec<u32>) {
    let key = |i: u32| {
        let line = rec.range(i).map_or(0, |r| u64::from(r.start_line) + 1);
        (
            rec.events.class[i as usize],
            rec.events.label[i as usize],
            line,
        )
    };
    let mut order: Vec<u32> = (0..rec.len() as u32).collect();
    order.sort_unstable_by_key(|&i| (key(i), i));
    let mut frame_of = vec![0u32; rec.len()];
    let mut frames: Vec<u32> = Vec::new();
    let mut last = None;
    for &i in &order {
        let k = key(i);
        if last != Some(k) {
            frames.push(i);
            last = Some(k);
        }
        frame_of[i as usize] = frames.len() as u32 - 1;
    }
    (frame_of, frames)
}
