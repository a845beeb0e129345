//! Hot spots: *what kind of work* a file or a session spends its time on, and who causes it.
//!
//! Every event gets a [`Key`] (its class and normalised label, see [`key`]). Events merge by
//! their path of keys into a [`Tree`] (the merged call tree a flame graph draws); per key, a
//! [`KeyRow`] says its total, self and count (the bottom-up table), and
//! [`HotSpots::callers`] and [`HotSpots::callees`] expand a key through the tree (the
//! bottom-up tree and the sandwich).
//!
//! The rules, which `docs/hot-spots.md` says for users:
//!
//! - A node's self is its events' self times; its total is its self plus its children's
//!   totals (see [`tree`]): thread time, with other threads' work under the node that
//!   started it (an `Elab.async` proof under its command, a kernel check on a worker under
//!   its `Lean.addDecl`).
//! - A key's **total** counts each stack once: the totals of its *outermost* nodes, those
//!   with no node of the same key above them. Recursion and a key nested in itself (an
//!   `Elab.step` inside an `Elab.step`) are never added twice.
//! - A key's **self** is the sum of its nodes' self times; self times never overlap, so
//!   the keys' selves add up to the tree's total.
//! - A key's **count** is the number of its events, nested ones included.
//! - Heartbeat recordings work the same, in heartbeats.
//! - Folders and sessions merge their files' trees ([`HotSpotsBuilder`]), one file at a
//!   time; a key also counts the files it occurs in.

pub mod file_rows;
pub mod key;
pub mod pair_map;
pub mod session;
pub mod table;
pub mod tree;

pub use file_rows::{file_rows, file_rows_with_limit, FileHotSpots, FileKeyRow};
pub use key::{Key, OTHER_CLASS};
pub use session::{SessionHotSpots, SessionKeyRow};
pub use table::{KeyTable, OTHER};
pub use tree::{Node, Tree, TreeBuilder, ROOT};

use crate::model::Recording;
use crate::Measure;

/// One key's line of the bottom-up table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyRow {
    pub key: u32,
    pub total: u64,
    pub self_time: u64,
    pub count: u64,
    /// Files the key occurs in (1 for one recording's).
    pub files: u64,
}

/// What a [`HotSpots::callers`] tree weighs a stack by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Weight {
    /// The key's self time in each of its nodes: the bottom-up (inverted) tree.
    Self_,
    /// The key's total in its outermost nodes: the callers half of a sandwich.
    Total,
}

/// What a key is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum By {
    /// The class and the normalised label ([`Key::of`]).
    #[default]
    Key,
    /// The class alone: what kind of work, coarsely (`Meta.synthInstance`, `Kernel`).
    Class,
}

impl By {
    pub fn as_str(self) -> &'static str {
        match self {
            By::Key => "key",
            By::Class => "class",
        }
    }

    pub fn parse(s: &str) -> Option<By> {
        [By::Key, By::Class].into_iter().find(|b| b.as_str() == s)
    }

    /// The key of an event of class `class` labelled `label`.
    pub fn key(self, class: &str, label: &str) -> Key {
        match self {
            By::Key => Key::of(class, label),
            By::Class => Key::of(class, ""),
        }
    }
}

/// The hot spots of a recording, a folder or a session.
#[derive(Debug, Clone)]
pub struct HotSpots {
    pub keys: KeyTable,
    pub tree: Tree,
    pub measure: Measure,
    /// Recordings merged in.
    pub files: u64,
    /// One per key (by id) that occurs, sorted by descending self, then total, then key.
    pub rows: Vec<KeyRow>,
    outermost: Vec<bool>,
    /// Nodes by key: `key_nodes[key_offsets[k]..key_offsets[k + 1]]`.
    key_offsets: Vec<u32>,
    key_nodes: Vec<u32>,
    /// For one recording: each event's node.
    event_node: Vec<u32>,
}

impl HotSpots {
    /// The hot spots of one recording, by key.
    pub fn of(rec: &Recording) -> HotSpots {
        Self::of_by(rec, By::Key)
    }

    /// The hot spots of one recording, keyed as `by` says.
    pub fn of_by(rec: &Recording, by: By) -> HotSpots {
        let mut inc = Incremental::new(by);
        inc.take_in(&rec.events, &rec.strings);
        inc.finish(rec)
    }

    fn finish(
        keys: KeyTable,
        tree: Tree,
        measure: Measure,
        files: u64,
        key_files: Vec<u64>,
    ) -> HotSpots {
        let n_keys = keys.len();
        let mut rows: Vec<KeyRow> = (0..n_keys as u32)
            .map(|key| KeyRow {
                key,
                total: 0,
                self_time: 0,
                count: 0,
                files: key_files.get(key as usize).copied().unwrap_or(0),
            })
            .collect();
        let mut outermost = vec![false; tree.len()];
        let mut active = vec![0u32; n_keys];
        let mut seen = vec![false; n_keys];
        // Depth-first, with each key's count of open nodes on the stack.
        let mut stack: Vec<(u32, bool)> = vec![(ROOT, false)];
        while let Some((n, leaving)) = stack.pop() {
            let node = *tree.node(n);
            if n == ROOT {
                stack.extend(tree.children(n).iter().map(|&c| (c, false)));
                continue;
            }
            let k = node.key as usize;
            if leaving {
                active[k] -= 1;
                continue;
            }
            seen[k] = true;
            let row = &mut rows[k];
            if active[k] == 0 {
                outermost[n as usize] = true;
                row.total = row.total.saturating_add(node.total);
            }
            row.self_time = row.self_time.saturating_add(node.self_time);
            row.count = row.count.saturating_add(node.count);
            active[k] += 1;
            stack.push((n, true));
            stack.extend(tree.children(n).iter().map(|&c| (c, false)));
        }
        rows.retain(|r| seen[r.key as usize]);
        rows.sort_unstable_by(|a, b| {
            (b.self_time, b.total)
                .cmp(&(a.self_time, a.total))
                .then(keys.get(a.key).cmp(keys.get(b.key)))
        });
        let mut key_offsets = vec![0u32; n_keys + 1];
        for node in &tree.nodes()[1..] {
            key_offsets[node.key as usize + 1] += 1;
        }
        for i in 1..key_offsets.len() {
            key_offsets[i] += key_offsets[i - 1];
        }
        let mut fill = key_offsets.clone();
        let mut key_nodes = vec![0u32; tree.len().saturating_sub(1)];
        for (n, node) in tree.nodes().iter().enumerate().skip(1) {
            let at = &mut fill[node.key as usize];
            key_nodes[*at as usize] = n as u32;
            *at += 1;
        }
        HotSpots {
            keys,
            tree,
            measure,
            files,
            rows,
            outermost,
            key_offsets,
            key_nodes,
            event_node: Vec::new(),
        }
    }

    /// The nodes of key `key`.
    pub fn nodes_of(&self, key: u32) -> &[u32] {
        match (
            self.key_offsets.get(key as usize),
            self.key_offsets.get(key as usize + 1),
        ) {
            (Some(&a), Some(&b)) => &self.key_nodes[a as usize..b as usize],
            _ => &[],
        }
    }

    /// Is node `n` the outermost of its key on its path?
    pub fn is_outermost(&self, n: u32) -> bool {
        self.outermost.get(n as usize).copied().unwrap_or(false)
    }

    /// Key `key`'s row, if it occurs.
    pub fn row(&self, key: u32) -> Option<&KeyRow> {
        self.rows.iter().find(|r| r.key == key)
    }

    /// The callers of `key`, as a tree whose root's child is `key` and whose deeper nodes
    /// are its callers, then theirs, up to the roots, weighted by `weight`. Each node's
    /// count is the key's calls through it.
    pub fn callers(&self, key: u32) -> Tree {
        self.callers_weighted(key, Weight::Total)
    }

    /// [`Self::callers`] with a chosen weight: [`Weight::Self_`] is the bottom-up tree of
    /// `key` (every node of the key, by self time).
    pub fn callers_weighted(&self, key: u32, weight: Weight) -> Tree {
        let mut b = TreeBuilder::new(OTHER);
        for &n in self.nodes_of(key) {
            let node = self.tree.node(n);
            let w = match weight {
                Weight::Total if self.is_outermost(n) => node.total,
                Weight::Total => continue,
                Weight::Self_ => node.self_time,
            };
            let mut at = b.child(ROOT, key);
            b.add(at, 0, node.count);
            let mut up = node.parent;
            while up != ROOT {
                let caller = self.tree.node(up);
                at = b.child(at, caller.key);
                b.add(at, 0, node.count);
                up = caller.parent;
            }
            b.add(at, w, 0);
        }
        b.finish()
    }

    /// What `key` calls: a tree whose root's child is `key`, beneath which the subtrees of
    /// its outermost nodes are merged (the callees half of a sandwich).
    pub fn callees(&self, key: u32) -> Tree {
        let mut b = TreeBuilder::new(OTHER);
        let mut stack: Vec<(u32, u32)> = Vec::new();
        for &n in self.nodes_of(key) {
            if !self.is_outermost(n) {
                continue;
            }
            stack.push((n, ROOT));
            while let Some((n, to_parent)) = stack.pop() {
                let node = self.tree.node(n);
                let to = b.child(to_parent, node.key);
                b.add(to, node.self_time, node.count);
                stack.extend(self.tree.children(n).iter().map(|&c| (c, to)));
            }
        }
        b.finish()
    }

    /// The events of `key` that no event of the same key encloses (for one recording;
    /// empty for a merged aggregate), slowest first, at most `limit`.
    pub fn occurrences(&self, rec: &Recording, key: u32, limit: usize) -> Vec<u32> {
        if self.event_node.len() != rec.len() {
            return Vec::new();
        }
        let mut out: Vec<u32> = (0..rec.len() as u32)
            .filter(|&i| {
                let n = self.event_node[i as usize];
                self.tree.node(n).key == key && self.is_outermost(n)
            })
            .collect();
        out.sort_by(|&a, &b| {
            rec.inclusive_ns(b)
                .cmp(&rec.inclusive_ns(a))
                .then(a.cmp(&b))
        });
        out.truncate(limit);
        out
    }

    /// For one recording: each event's node (empty for a merged aggregate).
    pub fn event_nodes(&self) -> &[u32] {
        &self.event_node
    }

    /// Only the keys `keep` accepts (a class filter): their tree (see [`Tree::only`]) and
    /// rows; a merged aggregate without occurrences.
    pub fn only(&self, keep: impl Fn(&Key) -> bool) -> HotSpots {
        let tree = self.tree.only(|k| keep(self.keys.get(k)), OTHER);
        let key_files = self.rows.iter().fold(vec![0; self.keys.len()], |mut v, r| {
            v[r.key as usize] = r.files;
            v
        });
        Self::finish(self.keys.clone(), tree, self.measure, self.files, key_files)
    }

    /// Bytes the aggregate holds (keys, tree, rows, indexes), for the memory report.
    pub fn heap_bytes(&self) -> usize {
        self.keys.heap_bytes()
            + self.tree.heap_bytes()
            + self.rows.capacity() * std::mem::size_of::<KeyRow>()
            + self.outermost.capacity()
            + 4 * (self.key_offsets.capacity()
                + self.key_nodes.capacity()
                + self.event_node.capacity())
    }
}

/// The hot spots of one recording, built a part at a time: a reader hands the events to
/// [`Incremental::take_in`] as they arrive, or a viewer those of a whole recording to
/// [`Incremental::take_in_slice`] a slice at a time while it is idle, self times included
/// (parents come before their children, so each event's node is known at once);
/// [`Incremental::finish`] takes in the rest and adds the self times not yet added (which
/// need the whole recording: every child).
#[derive(Debug)]
pub struct Incremental {
    by: By,
    keys: KeyTable,
    tree: TreeBuilder,
    /// The key of each label string id, with the class id it was made for (most labels
    /// come with one class); other pairs through `pairs`.
    label_key: Vec<(u32, u32)>,
    pairs: pair_map::PairMap<u32>,
    event_node: Vec<u32>,
    /// Events (from the first) whose self times are in the tree.
    timed: usize,
}

impl Incremental {
    pub fn new(by: By) -> Incremental {
        Incremental {
            by,
            keys: KeyTable::new(),
            tree: TreeBuilder::new(OTHER),
            label_key: Vec::new(),
            pairs: pair_map::PairMap::default(),
            event_node: Vec::new(),
            timed: 0,
        }
    }

    /// Events taken in so far.
    pub fn len(&self) -> usize {
        self.event_node.len()
    }

    pub fn is_empty(&self) -> bool {
        self.event_node.is_empty()
    }

    /// Takes in the events of `events` not yet taken in (their strings are in `strings`).
    pub fn take_in(
        &mut self,
        events: &crate::columns::Events,
        strings: &crate::strings::StringTable,
    ) {
        self.take_in_some(events, strings, usize::MAX);
    }

    /// Takes in at most `max` more events of the whole recording `rec`, with their self
    /// times; returns whether some are left. A slice of the work of [`Self::finish`], for a
    /// viewer to do while it is idle.
    pub fn take_in_slice(&mut self, rec: &Recording, max: usize) -> bool {
        let more = self.take_in_some(&rec.events, &rec.strings, max);
        self.add_self_times(rec);
        more
    }

    /// Adds the self times of the events taken in whose self times are not in the tree.
    fn add_self_times(&mut self, rec: &Recording) {
        for (i, &node) in self.event_node.iter().enumerate().skip(self.timed) {
            self.tree.add(node, rec.self_ns(i as u32), 0);
        }
        self.timed = self.event_node.len();
    }

    /// Takes in at most `max` of the events of `events` not yet taken in; returns whether
    /// some are left.
    fn take_in_some(
        &mut self,
        events: &crate::columns::Events,
        strings: &crate::strings::StringTable,
        max: usize,
    ) -> bool {
        let from = self.event_node.len();
        let to = events.len().min(from.saturating_add(max));
        // Room for every event there is: slices of a whole recording then never copy
        // what they built (and batches arriving grow it as a Vec grows).
        self.event_node.reserve(events.len().saturating_sub(from));
        for i in from..to {
            let (class, label) = (events.class[i], events.label[i]);
            let key = self.key(class, label, strings);
            let p = events.parent[i];
            let up = match self.event_node.get(p as usize) {
                Some(&n) if p != crate::columns::NO_PARENT => n,
                _ => ROOT,
            };
            let node = self.tree.child(up, key);
            self.tree.add(node, 0, 1);
            self.event_node.push(node);
        }
        to < events.len()
    }

    fn key(&mut self, class: u32, label: u32, strings: &crate::strings::StringTable) -> u32 {
        const UNSET: (u32, u32) = (u32::MAX, 0);
        if self.label_key.len() <= label as usize {
            self.label_key.resize(label as usize + 1, UNSET);
        }
        let slot = self.label_key[label as usize];
        if slot.0 == class {
            return slot.1;
        }
        let (by, keys) = (self.by, &mut self.keys);
        let key = *self
            .pairs
            .entry((class, label))
            .or_insert_with(|| keys.id(by.key(&strings[class as usize], &strings[label as usize])));
        if slot == UNSET {
            self.label_key[label as usize] = (class, key);
        }
        key
    }

    /// The hot spots, once every event of `rec` was taken in (the rest is taken in now).
    pub fn finish(mut self, rec: &Recording) -> HotSpots {
        self.take_in(&rec.events, &rec.strings);
        self.add_self_times(rec);
        let key_files = vec![1; self.keys.len()];
        let mut hot = HotSpots::finish(
            self.keys,
            self.tree.finish(),
            rec.header.measure,
            1,
            key_files,
        );
        hot.event_node = self.event_node;
        hot
    }
}

/// Merges the hot spots of many recordings (a folder, a session) one at a time.
#[derive(Debug)]
pub struct HotSpotsBuilder {
    keys: KeyTable,
    tree: TreeBuilder,
    key_files: Vec<u64>,
    files: u64,
    measure: Option<Measure>,
}

impl Default for HotSpotsBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl HotSpotsBuilder {
    pub fn new() -> HotSpotsBuilder {
        HotSpotsBuilder {
            keys: KeyTable::new(),
            tree: TreeBuilder::new(OTHER),
            key_files: Vec::new(),
            files: 0,
            measure: None,
        }
    }

    /// Merges one recording's (or aggregate's) hot spots in. Counts of two measures never
    /// add up: a recording in another measure than the first is refused.
    pub fn add(&mut self, hot: &HotSpots) -> Result<(), MixedMeasures> {
        let measure = *self.measure.get_or_insert(hot.measure);
        if hot.measure != measure {
            return Err(MixedMeasures {
                first: measure,
                this: hot.measure,
            });
        }
        let map: Vec<u32> = hot.keys.iter().map(|k| self.keys.id(k.clone())).collect();
        self.key_files.resize(self.keys.len(), 0);
        let mut counted = vec![false; self.keys.len()];
        for r in &hot.rows {
            let k = map[r.key as usize] as usize;
            if !counted[k] {
                counted[k] = true;
                self.key_files[k] += r.files;
            }
        }
        let mut to = vec![ROOT; hot.tree.len()];
        for (n, node) in hot.tree.nodes().iter().enumerate().skip(1) {
            let m = self
                .tree
                .child(to[node.parent as usize], map[node.key as usize]);
            self.tree.add(m, node.self_time, node.count);
            to[n] = m;
        }
        self.files += hot.files;
        Ok(())
    }

    pub fn files(&self) -> u64 {
        self.files
    }

    pub fn finish(self) -> HotSpots {
        HotSpots::finish(
            self.keys,
            self.tree.finish(),
            self.measure.unwrap_or_default(),
            self.files,
            self.key_files,
        )
    }
}

/// A recording measured in another unit than the ones merged before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("this recording is measured in {} and the ones before it in {}: their counts never add up", .this.unit_name(), .first.unit_name())]
pub struct MixedMeasures {
    pub first: Measure,
    pub this: Measure,
}
