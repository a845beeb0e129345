//! The writer's string table: every distinct class and label once, with a
//! stable id in order of first use.
//!
//! All strings live in one arena (no allocation per string). They are found
//! through an open-addressing table of 64-bit slots, each holding a string's
//! id and 32 bits of its hash, probed linearly and kept at most half full:
//! looking up a string that is not there yet (the common case for the unique
//! labels of a large capture) touches one cache line of the table, and
//! inserting it writes to that same line.
//!
//! The writer uses it, and so do importers that collect names before they
//! can write (the sidecar's spill sink).

/// A table slot: 0 when empty, else `hash tag << 32 | (id + 1)`.
type Slot = u64;

#[derive(Default)]
pub struct Interner {
    arena: String,
    /// End offset in the arena of each string; the index is its id, and a string starts where
    /// the one before it ends (one word per string rather than an offset and a length).
    ends: Vec<usize>,
    /// Length a power of two (or 0), at least twice the number of strings.
    slots: Vec<Slot>,
}

impl Interner {
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Bytes of all the strings held.
    pub fn bytes(&self) -> usize {
        self.arena.len()
    }

    pub fn get(&self, id: u32) -> &str {
        &self.arena[self.span(id as usize)]
    }

    /// Where string `id` (which must exist) lies in the arena.
    #[inline]
    fn span(&self, id: usize) -> std::ops::Range<usize> {
        let start = match id {
            0 => 0,
            _ => self.ends[id - 1],
        };
        start..self.ends[id]
    }

    /// Whether string `id` is `s` (comparing lengths first, and bytes).
    #[inline]
    pub fn is(&self, id: u32, s: &str) -> bool {
        let id = id as usize;
        id < self.ends.len() && {
            let span = self.span(id);
            span.len() == s.len() && self.arena.as_bytes().get(span) == Some(s.as_bytes())
        }
    }

    /// The id of `s`, new if it was not interned yet.
    pub fn intern(&mut self, s: &str) -> u32 {
        self.intern_hashed(s, hash_str(s))
    }

    /// Room for `strings` more strings of `bytes` bytes in all.
    pub fn reserve(&mut self, strings: usize, bytes: usize) {
        self.arena.reserve(bytes);
        self.ends.reserve(strings);
        self.grow_to(self.ends.len() + strings);
    }

    /// Asks the CPU to start loading the table slot where `s` would be found, for a string
    /// that will be interned soon: the lookup of a string not seen yet is a cache miss, and a
    /// writer that knows its next strings can overlap those misses with other work.
    pub fn prefetch(&self, s: &str) {
        if self.slots.is_empty() {
            return;
        }
        let slot = &self.slots[hash_str(s) as usize & (self.slots.len() - 1)];
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a prefetch is only a hint to the cache; it never faults and reads or writes
        // nothing the program sees (here it is also given an address inside the table).
        unsafe {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            _mm_prefetch::<_MM_HINT_T0>((slot as *const Slot).cast());
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = slot;
    }

    fn intern_hashed(&mut self, s: &str, hash: u64) -> u32 {
        if (self.ends.len() + 1) * 2 > self.slots.len() {
            self.grow_to(self.ends.len() + 1);
        }
        let mask = self.slots.len() - 1;
        let tag = hash >> 32;
        let mut i = hash as usize & mask;
        loop {
            let slot = self.slots[i];
            if slot == 0 {
                let id = self.ends.len() as u32;
                self.arena.push_str(s);
                self.ends.push(self.arena.len());
                self.slots[i] = tag << 32 | (u64::from(id) + 1);
                return id;
            }
            if slot >> 32 == tag {
                let id = (slot as u32).wrapping_sub(1);
                if self.is(id, s) {
                    return id;
                }
            }
            i = (i + 1) & mask;
        }
    }

    /// Makes the table big enough for `strings` strings, re-placing what it holds.
    fn grow_to(&mut self, strings: usize) {
        let wanted = (strings * 2).next_power_of_two().max(16);
        if wanted <= self.slots.len() {
            return;
        }
        let mut slots = empty_slots(wanted);
        let mask = wanted - 1;
        for id in 0..self.ends.len() as u32 {
            let hash = hash_str(self.get(id));
            let mut i = hash as usize & mask;
            while slots[i] != 0 {
                i = (i + 1) & mask;
            }
            slots[i] = (hash >> 32) << 32 | (u64::from(id) + 1);
        }
        self.slots = slots;
    }
}

/// `n` empty slots, zeroed by writing rather than by `vec![0; n]`: a large zeroed allocation
/// comes as untouched pages, and the first lookup that reads a page of the table maps the
/// shared zero page (one page fault) before the insert that writes it copies it (a second).
/// Writing the zeros here costs one fault per page.
#[allow(clippy::slow_vector_initialization)] // the slow-looking way is the point
fn empty_slots(n: usize) -> Vec<Slot> {
    let mut slots = Vec::with_capacity(n);
    slots.resize(n, 0);
    slots
}

/// A fast, well-mixed 64-bit string hash (8 bytes at a time, then
/// MurmurHash3's avalanche step).
fn hash_str(s: &str) -> u64 {
    let mut h: u64 = 0x9e37_79b9_7f4a_7c15 ^ s.len() as u64;
    let mut chunks = s.as_bytes().chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        h = (h ^ w).wrapping_mul(0xff51_afd7_ed55_8ccd).rotate_left(29);
    }
    let mut last = 0u64;
    for (i, &b) in chunks.remainder().iter().enumerate() {
        last |= u64::from(b) << (8 * i);
    }
    h = (h ^ last).wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_stable_in_order_of_first_use() {
        let mut i = Interner::default();
        assert_eq!((i.intern("a"), i.intern("bb"), i.intern("a")), (0, 1, 0));
        assert_eq!(i.intern(""), 2);
        assert_eq!((i.get(0), i.get(1), i.get(2), i.len()), ("a", "bb", "", 3));
        assert_ne!(hash_str("ab"), hash_str("ba"));
        assert_ne!(hash_str(""), hash_str("\0"));
    }

    #[test]
    fn strings_with_the_same_hash_stay_apart() {
        let mut i = Interner::default();
        // the same full hash: same slot, same tag; only the text tells them apart
        assert_eq!(i.intern_hashed("a", 7), 0);
        assert_eq!(i.intern_hashed("ccc", 7), 1);
        assert_eq!(i.intern_hashed("ccc", 7), 1);
        assert_eq!(i.intern_hashed("a", 7), 0);
        assert_eq!((i.get(0), i.get(1)), ("a", "ccc"));
    }

    #[test]
    fn growing_keeps_every_string_findable() {
        let mut i = Interner::default();
        let words: Vec<String> = (0..10_000).map(|n| format!("label {n}")).collect();
        for (n, w) in words.iter().enumerate() {
            assert_eq!(i.intern(w), n as u32);
        }
        i.reserve(50_000, 1 << 20);
        for (n, w) in words.iter().enumerate().rev() {
            assert_eq!(i.intern(w), n as u32);
        }
        assert_eq!(i.len(), 10_000);
        assert!(i.slots.len() >= 2 * 60_000);
    }
}
