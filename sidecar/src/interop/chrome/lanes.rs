//! Lanes of the Chrome export: a thread's events written as several trace
//! threads (`tid`s) of at most [`LANE_EVENTS`] events each, so that a
//! reader's cost per thread stays bounded.
//!
//! speedscope (1.25.0) imports trace events per thread from two queues
//! (begins and ends) that it consumes with `Array.prototype.shift`; in V8,
//! once an array holds more than about 30,000 elements its storage is a
//! large object that cannot be trimmed in place, and every `shift` copies
//! the whole rest of it. Its import is quadratic in the events of one
//! thread: 0.6 s for 20,000 flat events, 7.5 s for 40,000, 17.5 s for
//! 80,000, and 80,000 in lanes of 16,384 take 0.95 s.
//!
//! A lane holds whole subtrees: a thread's events are grouped by their
//! topmost ancestor on the same thread (a *root*), and roots fill a lane in
//! order until the next would take it past [`LANE_EVENTS`]; a root with a
//! bigger subtree gets a lane of its own. Any subset of a nested thread is
//! nested, so every lane nests. Lane 0 of thread `t` is `tid` `t` itself;
//! further lanes get `tid`s after the last thread's, each announced before
//! the events by a `leanscope_lane` metadata event naming its thread
//! (`args.thread`), which leanscope's import reads to merge the lanes back.

use recording::Recording;

/// Most events in one lane: well under the ~30,000 at which V8's
/// `Array.prototype.shift` stops being constant time.
pub const LANE_EVENTS: u32 = 16_384;

/// Metadata event that makes a `tid` a lane of a thread (`args.thread`).
pub const LANE_EVENT: &str = "leanscope_lane";

/// The lane of every event, as the `tid` it is written with.
pub struct Lanes {
    tid: Vec<u32>,
    /// Per thread: the `tid`s of its lanes after lane 0, in order.
    extra: Vec<Vec<u32>>,
}

impl Lanes {
    pub fn of(rec: &Recording) -> Lanes {
        let n = rec.len();
        let threads = rec.header.threads.len().max(1);
        let same_thread_parent = |i: u32| rec.parent(i).filter(|&p| rec.thread(p) == rec.thread(i));
        // The root of each event; then, at roots, the size of their subtree.
        let mut root = vec![0u32; n];
        let mut size = vec![0u32; n];
        for i in 0..n as u32 {
            let r = match same_thread_parent(i) {
                None => i,
                Some(p) if p < i => root[p as usize],
                Some(mut p) => {
                    while let Some(q) = same_thread_parent(p) {
                        p = q;
                    }
                    p
                }
            };
            root[i as usize] = r;
            size[r as usize] += 1;
        }
        // Roots in order fill their thread's lanes; `size` becomes the lane.
        let mut lane = vec![(0u32, 0u32); threads];
        for i in 0..n as u32 {
            if root[i as usize] != i {
                continue;
            }
            let (k, used) = &mut lane[rec.thread(i) as usize];
            let s = size[i as usize];
            if *used > 0 && used.saturating_add(s) > LANE_EVENTS {
                *k += 1;
                *used = 0;
            }
            *used = used.saturating_add(s);
            size[i as usize] = *k;
        }
        let mut next = threads as u32;
        let extra: Vec<Vec<u32>> = lane
            .iter()
            .map(|&(k, _)| {
                let tids = (next..next + k).collect();
                next += k;
                tids
            })
            .collect();
        let tid = (0..n)
            .map(|i| {
                let k = size[root[i] as usize];
                let t = rec.thread(i as u32);
                if k == 0 {
                    u32::from(t)
                } else {
                    extra[t as usize][k as usize - 1]
                }
            })
            .collect();
        Lanes { tid, extra }
    }

    /// The `tid` event `i` is written with.
    pub fn tid(&self, i: u32) -> u32 {
        self.tid[i as usize]
    }

    /// The `tid`s of thread `t`'s lanes after its first.
    pub fn extra(&self, t: usize) -> &[u32] {
        self.extra.get(t).map_or(&[], Vec::as_slice)
    }
}
