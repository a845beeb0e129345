//! Flame-chart layout per thread with level of detail: one row per
//! (thread, depth); inside a row, events narrower than a pixel are merged
//! into slivers, so the work of a layout follows the pixels on screen, not
//! the number of events.
//!
//! Zoomed out, a layout reads a zoom pyramid built once at load: per row
//! and per level `k`, the row's coverage at time buckets of `2^(shift+k)`
//! ns, as runs of touching buckets (merged slivers, with how many events
//! they stand for) and the events long enough to be drawn on their own at
//! that level. A full zoom-out then costs O(pixels × rows), not O(events).
//! Zoomed in past the finest level, the layout walks the row's events.

use crate::limits::MAX_WIDTH_PX;
use recording::model::{depths, Recording};
use serde::Serialize;

/// Events at least this many pixels wide are drawn on their own.
pub const MIN_EVENT_PX: f64 = 1.0;
/// Values per rectangle in a layout: row, x0, x1, event, count, class.
pub const RECT_FIELDS: usize = 6;

/// A row of the timeline.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RowInfo {
    /// Index of the thread in the header.
    pub thread: u16,
    pub depth: u16,
}

/// The finest pyramid level has at least this many buckets across the
/// recording's window, so any layout up to [`MAX_WIDTH_PX`] wide of the
/// whole window reads the pyramid.
pub const PYRAMID_FINEST_BUCKETS: u64 = MAX_WIDTH_PX as u64;

/// One entry of a pyramid level: a run of touching buckets covered by
/// `count` narrow events starting with `first`, or (count 1) one event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Run {
    first: u32,
    count: u32,
    /// Buckets `[start, end)` of the level, from the window's start.
    start: u32,
    end: u32,
}

/// Runs of one level, row by row.
struct Level {
    /// Runs of row `r` are `runs[offsets[r]..offsets[r + 1]]`, by start.
    offsets: Vec<u32>,
    runs: Vec<Run>,
    /// The most buckets one run of the row spans.
    max_span: Vec<u32>,
}

/// Per-row coverage at power-of-two time buckets (see the module docs).
struct Pyramid {
    origin: u64,
    /// log2 of the finest level's bucket width in ns.
    shift: u32,
    levels: Vec<Level>,
}

/// The rows and, per row, its events sorted by start.
pub struct TimelineIndex {
    rows: Vec<RowInfo>,
    /// Events of row `r` are `events[offsets[r]..offsets[r + 1]]`.
    offsets: Vec<u32>,
    events: Vec<u32>,
    /// The longest event of each row.
    max_duration: Vec<u64>,
    pyramid: Pyramid,
    pub start_ns: u64,
    pub end_ns: u64,
}

/// The rows of a recording's timeline (as [`TimelineIndex::rows`]),
/// without building the index.
pub fn timeline_rows(rec: &Recording) -> Vec<RowInfo> {
    rows_of(rec).0
}

/// Rows: thread-major, one per depth in use up to the thread's deepest;
/// and the first row of each thread.
fn rows_of(rec: &Recording) -> (Vec<RowInfo>, Vec<u32>) {
    let deepest = rec.deepest_by_thread();
    let mut first_row = vec![0u32; deepest.len()];
    let mut rows = Vec::new();
    for (t, m) in deepest.iter().enumerate() {
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
    (rows, first_row)
}

impl TimelineIndex {
    pub fn build(rec: &Recording) -> TimelineIndex {
        let depth = depths(rec);
        let (rows, first_row) = rows_of(rec);
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
            // Preorder keeps most rows sorted already; the others sort in
            // place (no scratch memory), ties in event order.
            if !evs.windows(2).all(|w| rec.start(w[0]) <= rec.start(w[1])) {
                evs.sort_unstable_by_key(|&i| (rec.start(i), i));
            }
            max_duration[r] = evs.iter().map(|&i| rec.inclusive_ns(i)).max().unwrap_or(0);
        }
        let window = rec.window();
        let (start_ns, end_ns) = (window.map_or(0, |w| w.start), window.map_or(0, |w| w.end));
        let pyramid = Pyramid::build(rec, rows.len(), &offsets, &events, start_ns, end_ns);
        TimelineIndex {
            rows,
            offsets,
            events,
            max_duration,
            pyramid,
            start_ns,
            end_ns,
        }
    }

    /// Pyramid levels (for tests and the benchmark's notes).
    pub fn pyramid_levels(&self) -> usize {
        self.pyramid.levels.len()
    }

    /// Entries of each pyramid level, finest first.
    pub fn pyramid_entries(&self) -> Vec<usize> {
        self.pyramid.levels.iter().map(|l| l.runs.len()).collect()
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
        if let Some(level) = self.pyramid.level_for(1.0 / px_per_ns) {
            self.layout_level(rec, level, t0, t1, px_per_ns, &mut out);
            return out;
        }
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

    /// A zoomed-out layout from pyramid level `k`, whose buckets are at
    /// most a pixel wide: its merged runs are drawn as slivers standing
    /// for their events, its single events as themselves.
    fn layout_level(
        &self,
        rec: &Recording,
        k: usize,
        t0: f64,
        t1: f64,
        px_per_ns: f64,
        out: &mut Vec<f64>,
    ) {
        let p = &self.pyramid;
        let level = &p.levels[k];
        let shift = p.shift + k as u32;
        let width = (1u64 << shift) as f64;
        let origin = p.origin as f64;
        let px = |t: f64| (t - t0) * px_per_ns;
        let bucket_at = |t: f64| ((t - origin) / width).floor().max(0.0);
        let (b0, b1) = (bucket_at(t0), bucket_at(t1) + 1.0);
        for r in 0..self.rows.len() {
            let runs = &level.runs[level.offsets[r] as usize..level.offsets[r + 1] as usize];
            let from = b0 - f64::from(level.max_span[r]);
            let k0 = runs.partition_point(|run| f64::from(run.start) < from);
            for run in &runs[k0..] {
                if f64::from(run.start) >= b1 {
                    break;
                }
                if run.count == 1 {
                    let e = run.first;
                    let (x0, x1) = (px(rec.start(e) as f64), px(rec.end(e) as f64));
                    if x1 <= 0.0 || x0 >= px(t1) {
                        continue;
                    }
                    let x1 = x1.max(x0 + MIN_EVENT_PX);
                    push(out, r, x0, x1, e, 1, rec.events.class[e as usize]);
                } else {
                    let x0 = px(origin + f64::from(run.start) * width);
                    let x1 = px(origin + f64::from(run.end) * width);
                    if x1 <= 0.0 || x0 >= px(t1) {
                        continue;
                    }
                    let x1 = x1.max(x0 + MIN_EVENT_PX);
                    push(
                        out,
                        r,
                        x0,
                        x1,
                        run.first,
                        u64::from(run.count),
                        rec.events.class[run.first as usize],
                    );
                }
            }
        }
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

impl Pyramid {
    fn build(
        rec: &Recording,
        rows: usize,
        offsets: &[u32],
        events: &[u32],
        origin: u64,
        end: u64,
    ) -> Pyramid {
        let span = end.saturating_sub(origin).max(1);
        // The widest power of two with PYRAMID_FINEST_BUCKETS buckets or more.
        let finest = (span / PYRAMID_FINEST_BUCKETS).max(1);
        let shift = 63 - finest.leading_zeros();
        let mut levels: Vec<Level> = Vec::new();
        loop {
            let k = levels.len();
            let s = shift + k as u32;
            let level = match levels.last() {
                None => Level::from_events(rec, rows, offsets, events, origin, s),
                Some(prev) => prev.coarser(rows),
            };
            levels.push(level);
            // The coarsest level has a single bucket across the window.
            if s >= 63 || (span >> s) == 0 {
                break;
            }
        }
        Pyramid {
            origin,
            shift,
            levels,
        }
    }

    /// The coarsest level whose buckets are at most `ns_per_px` wide, or
    /// `None` when even the finest one is wider (zoomed in).
    fn level_for(&self, ns_per_px: f64) -> Option<usize> {
        if !ns_per_px.is_finite() || self.levels.is_empty() {
            return None;
        }
        let finest = (1u64 << self.shift) as f64;
        if ns_per_px < finest {
            return None;
        }
        let k = (ns_per_px / finest).log2().floor() as usize;
        Some(k.min(self.levels.len() - 1))
    }
}

/// Buckets `[start, end)` of width `2^shift` that an interval touches.
fn buckets(origin: u64, start: u64, end: u64, shift: u32) -> (u32, u32) {
    let b0 = (start - origin) >> shift;
    let b1 = (end.max(start + 1) - 1 - origin) >> shift;
    (b0 as u32, (b1 + 1) as u32)
}

/// An event touching this many buckets of a level is longer than two
/// buckets, so more than a pixel wide wherever the level is read (a
/// pixel spans one to two buckets there).
const WIDE_BUCKETS: u32 = 4;

/// Folds a row's items (by start) into a level.
struct RowBuilder<'a> {
    runs: &'a mut Vec<Run>,
    open: Option<Run>,
    max_span: u32,
}

impl RowBuilder<'_> {
    /// Takes the next item of the row: an event spanning
    /// [`WIDE_BUCKETS`] buckets or more (so wider than a pixel at any zoom
    /// that reads this level) stays on its own; others merge while their
    /// buckets touch.
    fn item(&mut self, run: Run) {
        if run.count == 1 && run.end - run.start >= WIDE_BUCKETS {
            self.flush();
            self.max_span = self.max_span.max(run.end - run.start);
            self.runs.push(run);
            return;
        }
        match &mut self.open {
            Some(o) if run.start <= o.end => {
                o.end = o.end.max(run.end);
                o.count += run.count;
            }
            _ => {
                self.flush();
                self.open = Some(run);
            }
        }
    }

    fn flush(&mut self) {
        if let Some(o) = self.open.take() {
            self.max_span = self.max_span.max(o.end - o.start);
            self.runs.push(o);
        }
    }
}

impl Level {
    fn build_rows(rows: usize, mut row: impl FnMut(usize, &mut RowBuilder)) -> Level {
        let mut offsets = Vec::with_capacity(rows + 1);
        let mut runs = Vec::new();
        let mut max_span = Vec::with_capacity(rows);
        offsets.push(0);
        for r in 0..rows {
            let mut b = RowBuilder {
                runs: &mut runs,
                open: None,
                max_span: 0,
            };
            row(r, &mut b);
            b.flush();
            max_span.push(b.max_span);
            offsets.push(runs.len() as u32);
        }
        runs.shrink_to_fit();
        Level {
            offsets,
            runs,
            max_span,
        }
    }

    fn from_events(
        rec: &Recording,
        rows: usize,
        offsets: &[u32],
        events: &[u32],
        origin: u64,
        shift: u32,
    ) -> Level {
        Level::build_rows(rows, |r, b| {
            for &e in &events[offsets[r] as usize..offsets[r + 1] as usize] {
                let (start, end) = buckets(origin, rec.start(e), rec.end(e), shift);
                b.item(Run {
                    first: e,
                    count: 1,
                    start,
                    end,
                });
            }
        })
    }

    /// The next level, with buckets twice as wide, from this one.
    fn coarser(&self, rows: usize) -> Level {
        Level::build_rows(rows, |r, b| {
            for run in &self.runs[self.offsets[r] as usize..self.offsets[r + 1] as usize] {
                b.item(Run {
                    start: run.start >> 1,
                    end: run.end.div_ceil(2),
                    ..*run
                });
            }
        })
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
    fn zoomed_out_layouts_read_the_pyramid_and_stay_honest() {
        let rec = synth(50_000);
        let tl = TimelineIndex::build(&rec);
        assert!(tl.pyramid_levels() > 1);
        let (t0, t1) = (tl.start_ns as f64, tl.end_ns as f64);
        for width in [200u32, 801, 1390, 4096] {
            let rects = tl.layout(&rec, t0, t1, width);
            let n = rects.len() / RECT_FIELDS;
            // Bounded by the pixels, not the events.
            assert!(n <= 3 * width as usize * tl.rows().len(), "{n} at {width}");
            // Every event is counted once, in a merged sliver or alone.
            let counts: f64 = rects.chunks(RECT_FIELDS).map(|r| r[4]).sum();
            assert_eq!(counts as usize, rec.len(), "at {width}");
            assert!(rects.chunks(RECT_FIELDS).any(|r| r[4] > 1.0));
            for r in rects.chunks(RECT_FIELDS) {
                let e = r[3] as u32;
                assert_eq!(tl.rows()[r[0] as usize].thread, rec.thread(e));
                if r[4] == 1.0 {
                    // A lone event is drawn where it is.
                    let px = f64::from(width) / (t1 - t0);
                    let x0 = (rec.start(e) as f64 - t0) * px;
                    assert!((r[1] - x0).abs() < 1e-6, "{r:?}");
                }
            }
        }
    }

    #[test]
    fn zoomed_in_past_the_finest_level_every_event_is_real() {
        let rec = synth(50_000);
        let tl = TimelineIndex::build(&rec);
        let span = (tl.end_ns - tl.start_ns) as f64;
        // A window a hundred-thousandth of the recording on 1,000 pixels.
        let t0 = tl.start_ns as f64 + span / 3.0;
        let t1 = t0 + span / 100_000.0;
        let rects = tl.layout(&rec, t0, t1, 1000);
        assert!(!rects.is_empty());
        for r in rects.chunks(RECT_FIELDS) {
            let e = r[3] as u32;
            if r[4] == 1.0 {
                assert!((rec.start(e) as f64) < t1 && (rec.end(e) as f64) > t0);
            }
        }
        // The same window through the pyramid would merge; here the
        // events wider than a pixel are on their own.
        assert!(rects
            .chunks(RECT_FIELDS)
            .any(|r| r[4] == 1.0 && r[2] - r[1] >= 1.0));
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
