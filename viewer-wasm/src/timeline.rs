//! Flame-chart layout per thread with level of detail: one row per
//! (thread, depth); inside a row, events narrower than a pixel are merged
//! into slivers, so the work of a layout follows the pixels on screen, not
//! the number of events.

use recording::model::{depths, Recording};
use serde::Serialize;

/// Events at least this many pixels wide are drawn on their own.
pub const MIN_EVENT_PX: f64 = 1.0;
/// Values per rectangle in a layout: row, x0, x1, event, count, class.
pub const RECT_FIELDS: usize = 6;
/// Widest layout asked for, in pixels.
pub const MAX_WIDTH_PX: u32 = 16_384;

/// A row of the timeline.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RowInfo {
    /// Index of the thread in the header.
    pub thread: u16,
    pub depth: u16,
}

/// The rows and, per row, its events sorted by start.
pub struct TimelineIndex {
    rows: Vec<RowInfo>,
    /// Events of row `r` are `events[offsets[r]..offsets[r + 1]]`.
    offsets: Vec<u32>,
    events: Vec<u32>,
    /// The longest event of each row.
    max_duration: Vec<u64>,
    pub start_ns: u64,
    pub end_ns: u64,
}

impl TimelineIndex {
    pub fn build(rec: &Recording) -> TimelineIndex {
        let depth = depths(rec);
        let threads = rec.header.threads.len().max(1);
        // Rows: thread-major, one per depth in use up to the thread's deepest.
        let mut max_depth: Vec<Option<u16>> = vec![None; threads];
        for (&t, &d) in rec.events.thread.iter().zip(&depth) {
            if let Some(m) = max_depth.get_mut(t as usize) {
                *m = Some(m.map_or(d, |m: u16| m.max(d)));
            }
        }
        let mut first_row = vec![0u32; threads];
        let mut rows = Vec::new();
        for (t, m) in max_depth.iter().enumerate() {
            first_row[t] = rows.len() as u32;
            if let Some(m) = m {
                for d in 0..=*m {
                    rows.push(RowInfo {
                        thread: t as u16,
                        depth: d,
                    });
                }
            }
        }
        let row_of = |i: usize| first_row[rec.events.thread[i] as usize] + u32::from(depth[i]);
        let mut offsets = vec![0u32; rows.len() + 1];
        for i in 0..rec.len() {
            offsets[row_of(i) as usize + 1] += 1;
        }
        for r in 0..rows.len() {
            offsets[r + 1] += offsets[r];
        }
        let mut fill = offsets.clone();
        let mut events = vec![0u32; rec.len()];
        for i in 0..rec.len() {
            let slot = &mut fill[row_of(i) as usize];
            events[*slot as usize] = i as u32;
            *slot += 1;
        }
        drop(fill);
        drop(depth);
        let mut max_duration = vec![0u64; rows.len()];
        for r in 0..rows.len() {
            let evs = &mut events[offsets[r] as usize..offsets[r + 1] as usize];
            // Preorder keeps most rows sorted already.
            if !evs.windows(2).all(|w| rec.start(w[0]) <= rec.start(w[1])) {
                evs.sort_by_key(|&i| rec.start(i));
            }
            max_duration[r] = evs.iter().map(|&i| rec.inclusive_ns(i)).max().unwrap_or(0);
        }
        let window = rec.window();
        TimelineIndex {
            rows,
            offsets,
            events,
            max_duration,
            start_ns: window.map_or(0, |w| w.start),
            end_ns: window.map_or(0, |w| w.end),
        }
    }

    pub fn rows(&self) -> &[RowInfo] {
        &self.rows
    }

    fn row_events(&self, r: usize) -> &[u32] {
        &self.events[self.offsets[r] as usize..self.offsets[r + 1] as usize]
    }

    /// Index of the first event of row `r` that may end after `t`: an
    /// event starting at or before `t - longest` ends by `t`.
    fn first_candidate(&self, rec: &Recording, r: usize, t: f64) -> usize {
        let from = t - self.max_duration[r] as f64;
        self.row_events(r)
            .partition_point(|&i| (rec.start(i) as f64) <= from)
    }

    /// Lays out the window `[t0, t1)` (ns) on `width` pixels. Each
    /// rectangle is [`RECT_FIELDS`] values: row, x0, x1 (pixels), the
    /// event (the first one for a sliver), how many events it stands for
    /// (1 for an event drawn on its own), and the class string id.
    pub fn layout(&self, rec: &Recording, t0: f64, t1: f64, width: u32) -> Vec<f64> {
        let mut out = Vec::new();
        let width = width.clamp(1, MAX_WIDTH_PX);
        if t1.partial_cmp(&t0) != Some(std::cmp::Ordering::Greater)
            || !t0.is_finite()
            || !t1.is_finite()
        {
            return out;
        }
        let px_per_ns = f64::from(width) / (t1 - t0);
        let px = |t: u64| (t as f64 - t0) * px_per_ns;
        let time_at = |x: f64| t0 + x / px_per_ns;
        for r in 0..self.rows.len() {
            let evs = self.row_events(r);
            let n = evs.len();
            let mut k = self.first_candidate(rec, r, t0);
            while k < n && (rec.start(evs[k]) as f64) < t1 {
                let e = evs[k];
                let (x0, x1) = (px(rec.start(e)), px(rec.end(e)));
                if x1 <= 0.0 {
                    k += 1;
                    continue;
                }
                if x1 - x0 >= MIN_EVENT_PX {
                    push(&mut out, r, x0, x1, e, 1, rec.events.class[e as usize]);
                    k += 1;
                    continue;
                }
                // A sliver: absorb every narrow event until a wide one or a
                // gap of a pixel or more.
                let (run_x0, first) = (x0, e);
                let mut run_x1 = x1;
                let mut count = 0u64;
                loop {
                    let boundary = px(rec.start(evs[k])).floor() + 1.0;
                    let tb = time_at(boundary);
                    let j = k + evs[k..].partition_point(|&i| (rec.start(i) as f64) < tb);
                    let j = j.max(k + 1);
                    count += (j - k) as u64;
                    run_x1 = run_x1.max(px(rec.end(evs[j - 1])));
                    k = j;
                    if k >= n || (rec.start(evs[k]) as f64) >= t1 {
                        break;
                    }
                    let (nx0, nx1) = (px(rec.start(evs[k])), px(rec.end(evs[k])));
                    if nx1 - nx0 >= MIN_EVENT_PX || nx0 >= run_x1 + 1.0 {
                        break;
                    }
                }
                let run_x1 = run_x1.max(run_x0 + 1.0);
                push(
                    &mut out,
                    r,
                    run_x0,
                    run_x1,
                    first,
                    count,
                    rec.events.class[first as usize],
                );
            }
        }
        out
    }

    /// The event of row `r` that covers time `t` (ns), if any; `None` for
    /// a row that does not exist.
    pub fn event_at(&self, rec: &Recording, r: usize, t: f64) -> Option<u32> {
        if r >= self.rows.len() {
            return None;
        }
        let evs = self.row_events(r);
        let upto = evs.partition_point(|&i| (rec.start(i) as f64) <= t);
        let from = self.first_candidate(rec, r, t);
        evs[from.min(upto)..upto]
            .iter()
            .rev()
            .copied()
            .find(|&i| (rec.end(i) as f64) > t)
    }
}

fn push(out: &mut Vec<f64>, row: usize, x0: f64, x1: f64, event: u32, count: u64, class: u32) {
    out.extend_from_slice(&[
        row as f64,
        x0,
        x1,
        f64::from(event),
        count as f64,
        f64::from(class),
    ]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use recording::synth::{synthetic_bytes, SynthParams};

    fn synth(events: u64) -> Recording {
        let bytes = synthetic_bytes(&SynthParams {
            seed: 3,
            events,
            threads: 3,
        })
        .unwrap();
        Recording::from_bytes(&bytes).unwrap()
    }

    #[test]
    fn zoomed_in_every_event_is_its_own_rectangle() {
        let rec = synth(300);
        let tl = TimelineIndex::build(&rec);
        let (t0, t1) = (tl.start_ns as f64, tl.end_ns as f64);
        // A huge width: every event is wider than a pixel.
        let rects = tl.layout(&rec, t0, t1, MAX_WIDTH_PX);
        let counts: f64 = rects.chunks(RECT_FIELDS).map(|r| r[4]).sum();
        assert_eq!(counts as usize, rec.len());
    }

    #[test]
    fn zoomed_out_rectangles_follow_the_pixels_and_cover_every_event() {
        let rec = synth(50_000);
        let tl = TimelineIndex::build(&rec);
        let (t0, t1) = (tl.start_ns as f64, tl.end_ns as f64);
        let rects = tl.layout(&rec, t0, t1, 800);
        let n = rects.len() / RECT_FIELDS;
        assert!(n <= 2 * 800 * tl.rows().len(), "{n} rectangles");
        assert!(n < rec.len() / 5, "{n} rectangles for {} events", rec.len());
        let counts: f64 = rects.chunks(RECT_FIELDS).map(|r| r[4]).sum();
        assert_eq!(counts as usize, rec.len());
        for r in rects.chunks(RECT_FIELDS) {
            assert!(r[2] - r[1] >= 1.0 - 1e-9);
            assert!(r[1] >= -1e-6 && r[2] <= 801.0, "{r:?}");
        }
    }

    #[test]
    fn hit_test_finds_the_covering_event() {
        let rec = synth(2_000);
        let tl = TimelineIndex::build(&rec);
        for i in (0..rec.len() as u32).step_by(97) {
            let mid = (rec.start(i) + rec.inclusive_ns(i) / 2) as f64;
            let row = tl
                .rows()
                .iter()
                .position(|r| {
                    r.thread == rec.thread(i)
                        && usize::from(r.depth) == recording::model::ancestors(&rec, i).len()
                })
                .unwrap();
            assert_eq!(tl.event_at(&rec, row, mid), Some(i));
        }
        assert_eq!(tl.event_at(&rec, 0, -5.0), None);
        assert_eq!(tl.event_at(&rec, 10_000, 0.0), None);
    }
}
