//! A hash map keyed by pairs of ids (`(parent, key)`, `(class, label)`), with a hash made for
//! them: one 64-bit multiply, where the map's default hash takes a 128-bit one, which
//! WebAssembly does in several steps (building a 3M-event file's hot spots in the viewer
//! took about twice as long with it).

use std::hash::{BuildHasherDefault, Hasher};

/// A map from a pair of `u32` ids.
pub type PairMap<V> = hashbrown::HashMap<(u32, u32), V, BuildHasherDefault<PairHasher>>;

/// Multiplies the words in: the multiply spreads every input bit into the high bits (the
/// table's tag) and the rotation brings them into the low ones (the bucket).
#[derive(Debug, Default, Clone, Copy)]
pub struct PairHasher(u64);

const SPREAD: u64 = 0x9e37_79b9_7f4a_7c15;

impl Hasher for PairHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(26) ^ n).wrapping_mul(SPREAD);
    }

    fn finish(&self) -> u64 {
        self.0 ^ (self.0 >> 29)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_map_to_their_values_and_differ_in_hash() {
        let mut m: PairMap<u32> = PairMap::default();
        for a in 0..300u32 {
            for b in 0..30u32 {
                m.insert((a, b), a * 1000 + b);
            }
        }
        assert_eq!(m.len(), 9000);
        assert_eq!(m.get(&(217, 13)), Some(&217_013));
        assert_eq!(m.get(&(13, 217)), None);
        let hash = |p: (u32, u32)| {
            let mut h = PairHasher::default();
            h.write_u32(p.0);
            h.write_u32(p.1);
            h.finish()
        };
        assert_ne!(hash((1, 2)), hash((2, 1)));
    }
}
