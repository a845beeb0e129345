//! The event columns: where decoding writes and what the model reads. Below
//! both the reader and the model, so that neither imports the other for them.

use crate::types::{RangeKind, SourceRange};

/// Marks "no parent" in [`crate::DecodedBatch::parent`] and the model.
pub const NO_PARENT: u32 = u32::MAX;
/// Marks "no range" in [`crate::DecodedBatch::range`] and the model.
pub const NO_RANGE: u32 = u32::MAX;

/// The events of a recording as columns; event `i` is the `i`-th entry of
/// each column. Parents always precede their children.
#[derive(Debug, Default, Clone)]
pub struct Events {
    pub parent: Vec<u32>,
    pub class: Vec<u32>,
    pub label: Vec<u32>,
    pub start: Vec<u64>,
    pub duration: Vec<u64>,
    pub thread: Vec<u16>,
    pub range: Vec<u32>,
    pub range_kind: Vec<RangeKind>,
}

impl Events {
    pub(crate) fn with_capacity(n: usize) -> Self {
        Events {
            parent: Vec::with_capacity(n),
            class: Vec::with_capacity(n),
            label: Vec::with_capacity(n),
            start: Vec::with_capacity(n),
            duration: Vec::with_capacity(n),
            thread: Vec::with_capacity(n),
            range: Vec::with_capacity(n),
            range_kind: Vec::with_capacity(n),
        }
    }

    /// Removes all events, keeping the columns' memory.
    pub fn clear(&mut self) {
        self.parent.clear();
        self.class.clear();
        self.label.clear();
        self.start.clear();
        self.duration.clear();
        self.thread.clear();
        self.range.clear();
        self.range_kind.clear();
    }

    pub fn len(&self) -> usize {
        self.parent.len()
    }

    /// Pages in up to `budget` bytes of the columns' reserved, still
    /// unused room, a write in each page; `touched` keeps each column's
    /// progress between calls. Returns whether room is left to page in.
    pub fn page_in_room(&mut self, touched: &mut [usize; 8], budget: &mut usize) -> bool {
        let [a, b, c, d, e, f, g, h] = touched;
        // Not short-circuiting: each column gets its turn once the ones
        // before it are done.
        touch_room(&mut self.parent, a, budget)
            | touch_room(&mut self.class, b, budget)
            | touch_room(&mut self.label, c, budget)
            | touch_room(&mut self.start, d, budget)
            | touch_room(&mut self.duration, e, budget)
            | touch_room(&mut self.thread, f, budget)
            | touch_room(&mut self.range, g, budget)
            | touch_room(&mut self.range_kind, h, budget)
    }

    pub fn is_empty(&self) -> bool {
        self.parent.is_empty()
    }
}

/// Where batches decode to: the event columns and the string and range
/// tables of every batch so far. Decoding straight into them spares a copy
/// per batch (the viewer and [`crate::Recording::from_bytes`] do).
#[derive(Debug, Default, Clone)]
pub struct Columns {
    pub events: Events,
    pub strings: crate::strings::StringTable,
    pub ranges: Vec<SourceRange>,
}

impl Columns {
    pub fn with_capacity(events: usize) -> Self {
        Columns {
            events: Events::with_capacity(events),
            ..Columns::default()
        }
    }
}

/// The unit in which the operating system gives a process memory: the
/// first write to each page of fresh memory is a page fault.
const PAGE_BYTES: usize = 4096;

/// Writes one value into each memory page of `v`'s reserved room past its
/// length and past element `*touched`, while `*budget` (bytes) lasts, so
/// that those pages' first touch (a page fault each, a good part of
/// decoding into fresh memory) happens now: a viewer does this while it
/// waits for the network. The length stays; values written later replace
/// these. Returns whether room is left.
pub(crate) fn touch_room<T: Copy + Default>(
    v: &mut Vec<T>,
    touched: &mut usize,
    budget: &mut usize,
) -> bool {
    // One element in each page-sized stretch touches every page.
    let step = (PAGE_BYTES / std::mem::size_of::<T>().max(1)).max(1);
    let len = v.len();
    let room = v.spare_capacity_mut();
    let mut i = (*touched).max(len);
    while i - len < room.len() && *budget >= PAGE_BYTES {
        room[i - len].write(T::default());
        i += step;
        *budget -= PAGE_BYTES;
    }
    *touched = i.min(len + room.len());
    *touched < len + room.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn touching_room_pages_in_past_the_length_and_changes_no_value() {
        let mut v: Vec<u64> = Vec::with_capacity(10_000);
        v.extend([7, 8, 9]);
        let mut touched = 0;
        // Less than a page of budget touches nothing.
        let mut budget = PAGE_BYTES - 1;
        assert!(touch_room(&mut v, &mut touched, &mut budget));
        assert_eq!((touched, budget), (3, PAGE_BYTES - 1));
        // Two pages: two writes, 512 u64s apart, after the values.
        let mut budget = 2 * PAGE_BYTES + 10;
        assert!(touch_room(&mut v, &mut touched, &mut budget));
        assert_eq!((touched, budget), (3 + 2 * 512, 10));
        // The rest: 10,000 u64s are 20 pages (rounded up) in all.
        let mut budget = usize::MAX;
        assert!(!touch_room(&mut v, &mut touched, &mut budget));
        assert_eq!(touched, v.capacity());
        let pages = (v.capacity() - 3).div_ceil(512);
        assert_eq!(usize::MAX - budget, (pages - 2) * PAGE_BYTES);
        assert_eq!(v, [7, 8, 9]);
        // Values pushed later are the values read.
        v.extend(0..100);
        assert_eq!(v[3..], (0..100).collect::<Vec<u64>>());
        // No room: nothing to do.
        let mut full = vec![1u8; 5];
        full.shrink_to_fit();
        let (mut t, mut b) = (0, usize::MAX);
        assert!(!touch_room(&mut full, &mut t, &mut b));
        assert_eq!(b, usize::MAX);
    }
}
