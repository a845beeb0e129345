//! A recording's string table (class and label names, by id): every string
//! in one arena with one end offset each, 8 bytes a string beside its text,
//! where a `Vec<String>` costs 24 and an allocation each (3M distinct
//! labels: 24 MB and the text, against about 170 MB).

use std::ops::Index;

#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct StringTable {
    arena: String,
    /// End offset in the arena of each string; a string starts where the
    /// one before it ends.
    ends: Vec<usize>,
}

impl StringTable {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Bytes of text held.
    pub fn bytes(&self) -> usize {
        self.arena.len()
    }

    pub fn get(&self, id: usize) -> Option<&str> {
        let end = *self.ends.get(id)?;
        let start = if id == 0 { 0 } else { self.ends[id - 1] };
        Some(&self.arena[start..end])
    }

    pub fn push(&mut self, s: &str) {
        self.arena.push_str(s);
        self.ends.push(self.arena.len());
    }

    /// Appends the strings of `other`, in order.
    pub fn append(&mut self, other: &StringTable) {
        let base = self.arena.len();
        self.arena.push_str(&other.arena);
        self.ends.extend(other.ends.iter().map(|e| e + base));
    }

    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        (0..self.len()).map(|i| &self[i])
    }
}

impl Index<usize> for StringTable {
    type Output = str;

    /// String `id`; panics when there is none, as a slice index does.
    fn index(&self, id: usize) -> &str {
        match self.get(id) {
            Some(s) => s,
            None => panic!("string {id} of a table of {}", self.len()),
        }
    }
}

impl<S: AsRef<str>> Extend<S> for StringTable {
    fn extend<I: IntoIterator<Item = S>>(&mut self, iter: I) {
        for s in iter {
            self.push(s.as_ref());
        }
    }
}

impl<S: AsRef<str>> FromIterator<S> for StringTable {
    fn from_iter<I: IntoIterator<Item = S>>(iter: I) -> Self {
        let mut t = StringTable::new();
        t.extend(iter);
        t
    }
}

#[cfg(test)]
mod tests {
    use super::StringTable;

    #[test]
    fn strings_come_back_by_id_in_order() {
        let mut t: StringTable = ["", "Elab.command", "é😀"].into_iter().collect();
        t.push("x");
        let more: StringTable = ["y", ""].into_iter().collect();
        t.append(&more);
        let all: Vec<&str> = t.iter().collect();
        assert_eq!(all, ["", "Elab.command", "é😀", "x", "y", ""]);
        assert_eq!(&t[1], "Elab.command");
        assert_eq!(t.get(6), None);
        assert_eq!(t.bytes(), "Elab.commandé😀xy".len());
    }
}
