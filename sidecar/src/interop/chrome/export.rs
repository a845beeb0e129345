//! Chrome/Perfetto trace-event JSON export.
//!
//! One `X` (complete) event per event. Times are microseconds in steps of
//! 1/1024 µs (0.977 ns): a time of `n` ns is written as `floor(n * 1.024)`
//! such steps, in decimal, exactly (`12.0009765625`). Each written time is
//! a double exactly (a multiple of 2^-10 below 2^43 µs, 101 days), and so
//! is the sum of two of them, so a reader that adds `ts + dur` in binary
//! floating point (JavaScript, Python) gets exactly the written end. The
//! step is finer than a nanosecond, so the mapping is strictly increasing:
//! every order and every tie between the recording's times is kept, so a
//! child never ends after its parent, siblings never overlap, and only an
//! event of zero nanoseconds has `dur` 0. (Thousandths of a microsecond,
//! as leanscope wrote before, are not exact in a double, and the rounded
//! sum of two can land past a parent's end of equal exact value; whole
//! microseconds would keep the nesting but make short events last zero,
//! which readers order wrongly against their parents.) The exact
//! nanoseconds ride along in the event's own `ns` (`[start, duration]`),
//! which leanscope's import reads back, so a round trip is exact. They are
//! not in `args`: speedscope names a frame by its event's name and `args`,
//! so there they made every event its own frame; `args` holds only the
//! source location, and calls of one step at one place are one frame.
//!
//! A thread of more than [`super::lanes::LANE_EVENTS`] events is
//! written as several trace threads, its lanes (see `lanes`), which
//! keeps speedscope's import linear; leanscope's import merges them back.
//!
//! File-level data (leanscope's header: source text, declarations,
//! diagnostics, ...) is written after the events as metadata events
//! (`ph: "M"`) named `leanscope_header`, `leanscope_source`,
//! `leanscope_declarations` and `leanscope_diagnostics`, each at most
//! [`HEADER_CHUNK_BYTES`] of text before escaping, so that no event grows
//! with the recording: the importer's limit on one event
//! (`MAX_CHROME_EVENT_BYTES`) holds for any size.

use std::io::Write;

use recording::{Header, Recording};

use super::lanes::{Lanes, LANE_EVENT};
use crate::interop::json_write::{flush_when_full, string, uint};

/// Most bytes of source text, or of serialized declarations or
/// diagnostics, in one metadata event. Escaping makes JSON text at most six
/// times longer (`\u00XX`), so an event stays well under the importer's
/// `MAX_CHROME_EVENT_BYTES` (16 MiB).
pub const HEADER_CHUNK_BYTES: usize = 1 << 20;

/// Metadata event with the header's small fields (`args.header`).
pub const HEADER_EVENT: &str = "leanscope_header";
/// Metadata event with a piece of the source text (`args.text`).
pub const SOURCE_EVENT: &str = "leanscope_source";
/// Metadata event with some of the declarations (`args.declarations`).
pub const DECLARATIONS_EVENT: &str = "leanscope_declarations";
/// Metadata event with some of the diagnostics (`args.diagnostics`).
pub const DIAGNOSTICS_EVENT: &str = "leanscope_diagnostics";

/// Steps of a written time per microsecond (a power of two).
pub const STEPS_PER_MICRO: u64 = 1024;

/// A time in nanoseconds as steps of 1/[`STEPS_PER_MICRO`] µs, rounded
/// down (strictly increasing: a step is shorter than a nanosecond).
pub fn steps(ns: u64) -> u64 {
    // ns * 1024 / 1000 without overflow: MAX_TIME_NS * 128 fits in u128.
    (u128::from(ns) * 128 / 125) as u64
}

/// Appends `steps` steps as microseconds in exact decimal.
fn micros(b: &mut Vec<u8>, steps: u64) {
    uint(b, steps / STEPS_PER_MICRO);
    let frac = steps % STEPS_PER_MICRO;
    if frac > 0 {
        // frac / 1024 = frac * 9765625 / 10^10: ten digits, trailing zeros cut.
        let mut digits = frac * 9_765_625;
        let mut len = 10;
        while digits.is_multiple_of(10) {
            digits /= 10;
            len -= 1;
        }
        b.push(b'.');
        let text = itoa::Buffer::new().format(digits).to_owned();
        b.resize(b.len() + (len - text.len()), b'0');
        b.extend_from_slice(text.as_bytes());
    }
}

/// Writes `rec` as a Chrome trace.
pub fn export<W: Write>(rec: &Recording, mut out: W) -> std::io::Result<W> {
    let h = &rec.header;
    let mut b: Vec<u8> = Vec::with_capacity(2 * crate::interop::json_write::FLUSH_BYTES);
    b.extend_from_slice(b"{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
    let process = if h.source_path.is_empty() {
        "lean".to_string()
    } else {
        format!("lean {}", h.source_path)
    };
    b.extend_from_slice(
        b"{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"tid\":0,\"args\":{\"name\":",
    );
    string(&mut b, &process);
    b.extend_from_slice(b"}}");
    let lanes = Lanes::of(rec);
    let mut sort_index = 0u64;
    for (t, thread) in h.threads.iter().enumerate() {
        thread_metadata(&mut b, u64::from(t as u32), &thread.name, sort_index);
        sort_index += 1;
        for (k, &tid) in lanes.extra(t).iter().enumerate() {
            let name = format!("{} (part {})", thread.name, k + 2);
            thread_metadata(&mut b, u64::from(tid), &name, sort_index);
            sort_index += 1;
            b.extend_from_slice(b",\n{\"ph\":\"M\",\"name\":");
            string(&mut b, LANE_EVENT);
            b.extend_from_slice(b",\"pid\":1,\"tid\":");
            uint(&mut b, u64::from(tid));
            b.extend_from_slice(b",\"args\":{\"thread\":");
            uint(&mut b, t as u64);
            b.extend_from_slice(b"}}");
            flush_when_full(&mut out, &mut b)?;
        }
    }
    let mut file = Vec::new();
    string(&mut file, &h.source_path);
    for i in 0..rec.len() as u32 {
        let (start, dur) = (rec.start(i), rec.inclusive_ns(i));
        let (ts, end) = (steps(start), steps(start + dur));
        b.extend_from_slice(b",\n{\"ph\":\"X\",\"name\":");
        string(&mut b, rec.label(i));
        b.extend_from_slice(b",\"cat\":");
        string(&mut b, rec.class(i));
        b.extend_from_slice(b",\"ts\":");
        micros(&mut b, ts);
        b.extend_from_slice(b",\"dur\":");
        micros(&mut b, end - ts);
        b.extend_from_slice(b",\"pid\":1,\"tid\":");
        uint(&mut b, u64::from(lanes.tid(i)));
        b.extend_from_slice(b",\"ns\":[");
        uint(&mut b, start);
        b.push(b',');
        uint(&mut b, dur);
        b.push(b']');
        if let Some(r) = rec.range(i) {
            b.extend_from_slice(b",\"args\":{\"file\":");
            b.extend_from_slice(&file);
            b.extend_from_slice(b",\"line\":");
            uint(&mut b, u64::from(r.start_line) + 1);
            b.extend_from_slice(b",\"column\":");
            uint(&mut b, u64::from(r.start_col));
            b.extend_from_slice(b",\"range\":[");
            for (k, v) in [r.start_line, r.start_col, r.end_line, r.end_col]
                .into_iter()
                .enumerate()
            {
                if k > 0 {
                    b.push(b',');
                }
                uint(&mut b, u64::from(v));
            }
            b.extend_from_slice(b"],\"range_kind\":\"");
            b.extend_from_slice(rec.range_kind(i).as_str().as_bytes());
            b.extend_from_slice(b"\"}");
        }
        b.push(b'}');
        flush_when_full(&mut out, &mut b)?;
    }
    write_header(h, &mut out, &mut b)?;
    b.extend_from_slice(b"\n]}\n");
    out.write_all(&b)?;
    out.flush()?;
    Ok(out)
}

/// The metadata events naming `tid` and placing it (`thread_sort_index`).
fn thread_metadata(b: &mut Vec<u8>, tid: u64, name: &str, sort_index: u64) {
    b.extend_from_slice(b",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":");
    uint(b, tid);
    b.extend_from_slice(b",\"args\":{\"name\":");
    string(b, name);
    b.extend_from_slice(b"}},\n{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":1,\"tid\":");
    uint(b, tid);
    b.extend_from_slice(b",\"args\":{\"sort_index\":");
    uint(b, sort_index);
    b.extend_from_slice(b"}}");
}

/// One metadata event named `name` whose `args` has the one member `key`
/// with the JSON text `value`.
fn metadata_event(b: &mut Vec<u8>, name: &str, key: &str, value: &[u8]) {
    b.extend_from_slice(b",\n{\"ph\":\"M\",\"name\":");
    string(b, name);
    b.extend_from_slice(b",\"pid\":1,\"tid\":0,\"args\":{");
    string(b, key);
    b.push(b':');
    b.extend_from_slice(value);
    b.extend_from_slice(b"}}");
}

/// leanscope's header as metadata events of bounded size.
fn write_header<W: Write>(h: &Header, out: &mut W, b: &mut Vec<u8>) -> std::io::Result<()> {
    let small = Header {
        source_text: String::new(),
        declarations: Vec::new(),
        diagnostics: Vec::new(),
        threads: Vec::new(),
        ..h.clone()
    };
    let json = serde_json::to_vec(&small).map_err(std::io::Error::other)?;
    metadata_event(b, HEADER_EVENT, "header", &json);
    let mut text = h.source_text.as_str();
    while !text.is_empty() {
        let mut cut = text.len().min(HEADER_CHUNK_BYTES);
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        let mut piece = Vec::with_capacity(cut + 2);
        string(&mut piece, &text[..cut]);
        metadata_event(b, SOURCE_EVENT, "text", &piece);
        flush_when_full(out, b)?;
        text = &text[cut..];
    }
    chunked_list(&h.declarations, DECLARATIONS_EVENT, "declarations", out, b)?;
    chunked_list(&h.diagnostics, DIAGNOSTICS_EVENT, "diagnostics", out, b)
}

/// `items` as metadata events of about [`HEADER_CHUNK_BYTES`] each.
fn chunked_list<T: serde::Serialize, W: Write>(
    items: &[T],
    name: &str,
    key: &str,
    out: &mut W,
    b: &mut Vec<u8>,
) -> std::io::Result<()> {
    let mut list = Vec::new();
    let mut end = |list: &mut Vec<u8>, b: &mut Vec<u8>| -> std::io::Result<()> {
        if !list.is_empty() {
            list.push(b']');
            metadata_event(b, name, key, list);
            list.clear();
            flush_when_full(out, b)?;
        }
        Ok(())
    };
    for item in items {
        list.push(if list.is_empty() { b'[' } else { b',' });
        serde_json::to_writer(&mut list, item).map_err(std::io::Error::other)?;
        if list.len() >= HEADER_CHUNK_BYTES {
            end(&mut list, b)?;
        }
    }
    end(&mut list, b)
}

#[cfg(test)]
mod tests {
    use super::{micros, steps};

    #[test]
    fn times_are_exact_binary_fractions_of_a_microsecond_in_decimal() {
        let text = |n: u64| {
            let mut b = Vec::new();
            micros(&mut b, n);
            String::from_utf8(b).unwrap()
        };
        assert_eq!(text(0), "0");
        assert_eq!(text(1024 * 12), "12");
        assert_eq!(text(1024 * 12 + 1), "12.0009765625");
        assert_eq!(text(512), "0.5");
        assert_eq!(text(1023), "0.9990234375");
        for n in [
            0u64,
            1,
            7,
            999,
            1000,
            1001,
            123_456_789,
            35_902_027_578,
            1 << 52,
        ] {
            let t = text(n);
            let d: f64 = t.parse().unwrap();
            assert_eq!(d * 1024.0, n as f64, "{t}");
        }
        // Strictly increasing in nanoseconds, never ahead of the time.
        for ns in 0..5000u64 {
            assert!(steps(ns + 1) > steps(ns));
            assert!(steps(ns) as f64 / 1.024 <= ns as f64);
        }
        assert_eq!(
            steps(recording::limits::MAX_TIME_NS),
            (u128::from(recording::limits::MAX_TIME_NS) * 128 / 125) as u64
        );
    }
}
