//! speedscope's file format, evented profiles: one profile per thread,
//! with `O` (open) and `C` (close) events in nanoseconds and each frame's
//! source file and 1-based line.
//!
//! Evented profiles must nest strictly. Events of a thread are placed by
//! time (start, then longer first); an event that runs past the one it
//! starts in is cut at that one's end, and one that starts before a
//! sibling's end begins at that end, so the written profile always nests.
//! Recordings without validation issues are written unchanged.

use std::collections::HashMap;
use std::io::Write;

use recording::Recording;
use serde_json::json;

/// speedscope's schema URL, which identifies the format.
pub const SCHEMA_URL: &str = "https://www.speedscope.app/file-format-schema.json";

/// Writes `rec` as a speedscope file.
pub fn export<W: Write>(rec: &Recording, mut out: W) -> std::io::Result<W> {
    let h = &rec.header;
    // Frames: distinct (name, line) pairs.
    let mut frame_ids: HashMap<(String, Option<u32>), usize> = HashMap::new();
    let mut frames = Vec::new();
    let mut frame_of = Vec::with_capacity(rec.len());
    for i in 0..rec.len() as u32 {
        let name = if rec.label(i).is_empty() {
            rec.class(i).to_owned()
        } else {
            format!("{}: {}", rec.class(i), rec.label(i))
        };
        let line = rec.range(i).map(|r| r.start_line + 1);
        let next = frame_ids.len();
        let id = *frame_ids.entry((name.clone(), line)).or_insert_with(|| {
            let mut f = json!({ "name": name });
            if let Some(line) = line {
                f["file"] = json!(h.source_path);
                f["line"] = json!(line);
                if let Some(r) = rec.range(i) {
                    f["col"] = json!(r.start_col + 1);
                }
            }
            frames.push(f);
            next
        });
        frame_of.push(id);
    }
    let mut by_thread: Vec<Vec<u32>> = vec![Vec::new(); h.threads.len().max(1)];
    for i in 0..rec.len() as u32 {
        by_thread[rec.thread(i) as usize].push(i);
    }
    let mut profiles = Vec::new();
    for (t, events) in by_thread.iter_mut().enumerate() {
        if events.is_empty() {
            continue;
        }
        events.sort_by_key(|&i| (rec.start(i), std::cmp::Reverse(rec.inclusive_ns(i)), i));
        let mut evs = Vec::with_capacity(events.len() * 2);
        // Open events: (end, frame).
        let mut open: Vec<(u64, usize)> = Vec::new();
        let mut last = 0u64;
        let (mut first, mut end_all) = (u64::MAX, 0u64);
        for &i in events.iter() {
            let mut start = rec.start(i).max(last);
            let mut end = rec.end(i);
            while let Some(&(e, f)) = open.last() {
                if start < e {
                    break;
                }
                evs.push(json!({"type": "C", "frame": f, "at": e}));
                last = e;
                open.pop();
            }
            start = start.max(last);
            if let Some(&(e, _)) = open.last() {
                end = end.min(e);
            }
            end = end.max(start);
            evs.push(json!({"type": "O", "frame": frame_of[i as usize], "at": start}));
            open.push((end, frame_of[i as usize]));
            last = start;
            first = first.min(start);
            end_all = end_all.max(end);
        }
        while let Some((e, f)) = open.pop() {
            evs.push(json!({"type": "C", "frame": f, "at": e}));
        }
        profiles.push(json!({
            "type": "evented",
            "name": h.threads.get(t).map(|th| th.name.clone()).unwrap_or_default(),
            "unit": "nanoseconds",
            "startValue": first,
            "endValue": end_all,
            "events": evs,
        }));
    }
    let doc = json!({
        "$schema": SCHEMA_URL,
        "shared": { "frames": frames },
        "profiles": profiles,
        "name": if h.source_path.is_empty() { "leanscope recording".to_string() } else { h.source_path.clone() },
        "activeProfileIndex": 0,
        "exporter": format!("leanscope {}", env!("CARGO_PKG_VERSION")),
    });
    serde_json::to_writer(&mut out, &doc).map_err(std::io::Error::other)?;
    out.write_all(b"\n")?;
    out.flush()?;
    Ok(out)
}
