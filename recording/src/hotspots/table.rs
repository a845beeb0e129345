//! The keys of one aggregate, each once, by id; bounded by [`MAX_KEYS`].

use super::key::Key;
use crate::limits::MAX_KEYS;

/// Keys by id. The `(other)` key is always there, as [`OTHER`]; past the limit
/// ([`MAX_KEYS`]) distinct keys, new keys all get its id, and it counts how many it took
/// in.
#[derive(Debug, Clone)]
pub struct KeyTable {
    keys: Vec<Key>,
    index: hashbrown::HashMap<Key, u32>,
    other_holds: u64,
    limit: usize,
}

/// The id of the `(other)` key in every table.
pub const OTHER: u32 = 0;

impl Default for KeyTable {
    fn default() -> Self {
        Self::with_limit(MAX_KEYS)
    }
}

impl KeyTable {
    pub fn new() -> KeyTable {
        KeyTable::default()
    }

    /// A table that holds at most `limit` keys, `(other)` included.
    pub fn with_limit(limit: usize) -> KeyTable {
        let mut t = KeyTable {
            keys: Vec::new(),
            index: hashbrown::HashMap::new(),
            other_holds: 0,
            limit: limit.max(1),
        };
        t.insert(Key::other());
        t
    }

    /// The id of `key`, added when new; [`OTHER`] past the limit.
    pub fn id(&mut self, key: Key) -> u32 {
        if let Some(&id) = self.index.get(&key) {
            return id;
        }
        if self.keys.len() >= self.limit {
            self.other_holds += 1;
            return OTHER;
        }
        self.insert(key)
    }

    /// [`Self::id`] of the key `class` `name`, which is copied only when new.
    pub fn id_of(&mut self, class: &str, name: &str) -> u32 {
        if let Some(&id) = self.index.get(&KeyRef { class, name }) {
            return id;
        }
        self.id(Key::new(class, name))
    }

    fn insert(&mut self, key: Key) -> u32 {
        let id = self.keys.len() as u32;
        self.index.insert(key.clone(), id);
        self.keys.push(key);
        id
    }

    /// All keys, by id.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &Key> {
        self.keys.iter()
    }

    /// Counts keys folded into `(other)` elsewhere (a file's cut rows).
    pub fn add_other_holds(&mut self, n: u64) {
        self.other_holds = self.other_holds.saturating_add(n);
    }

    pub fn get(&self, id: u32) -> &Key {
        &self.keys[id as usize]
    }

    pub fn find(&self, key: &Key) -> Option<u32> {
        self.index.get(key).copied()
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// How many keys the `(other)` key holds (0 when none went past the limit).
    pub fn other_holds(&self) -> u64 {
        self.other_holds
    }

    /// Bytes the keys take (their text, the table and the index), for the memory report.
    pub fn heap_bytes(&self) -> usize {
        let text: usize = self
            .keys
            .iter()
            .map(|k| k.class.capacity() + k.name.capacity())
            .sum();
        // Each key's text is held twice: in the list and in the index.
        2 * text
            + self.keys.capacity() * std::mem::size_of::<Key>()
            + self.index.capacity() * (std::mem::size_of::<(Key, u32)>() + 1)
    }
}

/// A key's parts, borrowed: looked up without copying them (hashed as [`Key`] hashes).
#[derive(Hash)]
struct KeyRef<'a> {
    class: &'a str,
    name: &'a str,
}

impl hashbrown::Equivalent<Key> for KeyRef<'_> {
    fn equivalent(&self, key: &Key) -> bool {
        self.class == key.class && self.name == key.name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn past_the_limit_keys_go_to_other_which_counts_them() {
        let mut t = KeyTable::with_limit(3);
        assert!(t.get(OTHER).is_other());
        let a = t.id(Key::new("A", ""));
        let b = t.id_of("B", "");
        assert_eq!(t.id(Key::new("A", "")), a);
        assert_eq!(t.id_of("A", ""), a);
        assert_eq!(t.find(&Key::new("B", "")), Some(b));
        let c = t.id(Key::new("C", ""));
        let d = t.id_of("D", "");
        assert_eq!((c, d), (OTHER, OTHER));
        assert_eq!(t.other_holds(), 2);
        assert_eq!(t.len(), 3);
        assert_ne!(a, b);
    }
}
