//! A merged call tree: nodes keyed by their path of keys from a root, each with the total,
//! self and count of the events (or merged nodes) that took that path.
//!
//! A node's **self** is the sum of its events' self times; its **total** is its self plus
//! its children's totals: all the work recorded beneath it, on any thread. On one thread
//! with well-nested events that is the sum of its events' inclusive times; work a node
//! started on other threads (an `Elab.async` proof, a kernel check on a worker) is added
//! to it, so a total is thread time and can exceed the wall-clock time of its events.
//! Children never sum to more than their parent's total, so a flame graph lays out.

use super::pair_map::PairMap;
use crate::limits::MAX_TREE_NODES;

/// The id of the virtual root every tree has (its key is meaningless).
pub const ROOT: u32 = 0;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Node {
    pub parent: u32,
    pub key: u32,
    pub total: u64,
    pub self_time: u64,
    pub count: u64,
}

/// A tree of nodes by key; children in descending total (widest first), then key id.
#[derive(Debug, Clone)]
pub struct Tree {
    nodes: Vec<Node>,
    child_offsets: Vec<u32>,
    children: Vec<u32>,
}

impl Tree {
    pub fn node(&self, n: u32) -> &Node {
        &self.nodes[n as usize]
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.len() <= 1
    }

    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// Children of `n`, widest first.
    pub fn children(&self, n: u32) -> &[u32] {
        let (a, b) = (
            self.child_offsets[n as usize] as usize,
            self.child_offsets[n as usize + 1] as usize,
        );
        &self.children[a..b]
    }

    /// The work of the whole tree: the root's total.
    pub fn total(&self) -> u64 {
        self.nodes[ROOT as usize].total
    }

    /// Bytes the tree holds.
    pub fn heap_bytes(&self) -> usize {
        self.nodes.capacity() * std::mem::size_of::<Node>()
            + 4 * (self.child_offsets.capacity() + self.children.capacity())
    }

    /// The keys from a root down to `n` (not the virtual root's).
    pub fn path(&self, n: u32) -> Vec<u32> {
        let mut out = Vec::new();
        let mut at = n;
        while at != ROOT {
            out.push(self.nodes[at as usize].key);
            at = self.nodes[at as usize].parent;
        }
        out.reverse();
        out
    }

    /// The node reached from the root by `path` of keys, if there is one.
    pub fn find(&self, path: &[u32]) -> Option<u32> {
        let mut at = ROOT;
        for &k in path {
            at = *self.children(at).iter().find(|&&c| self.node(c).key == k)?;
        }
        Some(at)
    }

    /// Depth-first order (parents before children, children widest first), root excluded.
    pub fn preorder(&self) -> Vec<u32> {
        let mut out = Vec::with_capacity(self.len().saturating_sub(1));
        let mut stack: Vec<u32> = self.children(ROOT).iter().rev().copied().collect();
        while let Some(n) = stack.pop() {
            out.push(n);
            stack.extend(self.children(n).iter().rev());
        }
        out
    }

    /// The tree with only the nodes whose key `keep` accepts: a dropped node's kept
    /// descendants move up to its nearest kept ancestor (or a root), and its own self time
    /// goes. A flame graph of one class's work.
    pub fn only(&self, keep: impl Fn(u32) -> bool, other_key: u32) -> Tree {
        let mut b = TreeBuilder::new(other_key);
        let mut to = vec![ROOT; self.len()];
        // Nodes are stored parents first.
        for n in 1..self.len() {
            let node = &self.nodes[n];
            let up = to[node.parent as usize];
            to[n] = if keep(node.key) {
                let m = b.child(up, node.key);
                b.add(m, node.self_time, node.count);
                m
            } else {
                up
            };
        }
        b.finish()
    }
}

/// Builds a [`Tree`] node by node, parents before children; bounded by
/// [`MAX_TREE_NODES`].
///
/// A node's children are found by scanning its list of children while it has few (keys merge,
/// so most nodes have a handful), and through a hash table once it has more.
#[derive(Debug)]
pub struct TreeBuilder {
    nodes: Vec<Node>,
    first_child: Vec<u32>,
    next_sibling: Vec<u32>,
    /// Children per node, saturating.
    kids: Vec<u8>,
    /// Per node: the child found last (key, node). The same call repeats under a parent
    /// far more often than not, and this spares the search.
    last_child: Vec<(u32, u32)>,
    /// `(parent, key)` → child, for parents with more than [`SCAN_CHILDREN`] children.
    lookup: PairMap<u32>,
    other_key: u32,
    limit: usize,
}

/// Most children of a node found by scanning them.
const SCAN_CHILDREN: u8 = 16;

const NONE: u32 = u32::MAX;

impl TreeBuilder {
    /// `other_key` is the key of the node that takes the paths past the limit.
    pub fn new(other_key: u32) -> TreeBuilder {
        Self::with_limit(other_key, MAX_TREE_NODES)
    }

    pub fn with_limit(other_key: u32, limit: usize) -> TreeBuilder {
        TreeBuilder {
            nodes: vec![Node {
                parent: ROOT,
                key: other_key,
                total: 0,
                self_time: 0,
                count: 0,
            }],
            first_child: vec![NONE],
            next_sibling: vec![NONE],
            kids: vec![0],
            last_child: vec![(NONE, ROOT)],
            lookup: PairMap::default(),
            other_key,
            limit: limit.max(2),
        }
    }

    fn find(&self, parent: u32, key: u32) -> Option<u32> {
        if self.kids[parent as usize] > SCAN_CHILDREN {
            return self.lookup.get(&(parent, key)).copied();
        }
        let mut at = self.first_child[parent as usize];
        while at != NONE {
            if self.nodes[at as usize].key == key {
                return Some(at);
            }
            at = self.next_sibling[at as usize];
        }
        None
    }

    /// The child of `parent` keyed `key`, made when new; past the limit, `parent`'s
    /// `(other)` child (which is made even then).
    pub fn child(&mut self, parent: u32, key: u32) -> u32 {
        let (k, n) = self.last_child[parent as usize];
        if k == key {
            return n;
        }
        let n = self.find_or_make(parent, key);
        self.last_child[parent as usize] = (key, n);
        n
    }

    fn find_or_make(&mut self, parent: u32, key: u32) -> u32 {
        if let Some(n) = self.find(parent, key) {
            return n;
        }
        let key = if self.nodes.len() >= self.limit {
            if let Some(n) = self.find(parent, self.other_key) {
                return n;
            }
            self.other_key
        } else {
            key
        };
        let n = self.nodes.len() as u32;
        let p = parent as usize;
        self.nodes.push(Node {
            parent,
            key,
            total: 0,
            self_time: 0,
            count: 0,
        });
        self.first_child.push(NONE);
        self.kids.push(0);
        self.last_child.push((NONE, ROOT));
        self.next_sibling.push(self.first_child[p]);
        self.first_child[p] = n;
        self.kids[p] = self.kids[p].saturating_add(1);
        if self.kids[p] == SCAN_CHILDREN + 1 {
            // From now on, through the table: every child goes in.
            let mut at = n;
            while at != NONE {
                self.lookup
                    .insert((parent, self.nodes[at as usize].key), at);
                at = self.next_sibling[at as usize];
            }
        } else if self.kids[p] > SCAN_CHILDREN {
            self.lookup.insert((parent, key), n);
        }
        n
    }

    /// Adds self time and calls to node `n`.
    pub fn add(&mut self, n: u32, self_time: u64, count: u64) {
        let node = &mut self.nodes[n as usize];
        node.self_time = node.self_time.saturating_add(self_time);
        node.count = node.count.saturating_add(count);
    }

    /// Node `n`'s key.
    pub fn key(&self, n: u32) -> u32 {
        self.nodes[n as usize].key
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.len() <= 1
    }

    /// Totals worked out (each node's self plus its children's totals), children linked
    /// widest first.
    pub fn finish(self) -> Tree {
        let mut nodes = self.nodes;
        drop((
            self.lookup,
            self.first_child,
            self.next_sibling,
            self.kids,
            self.last_child,
        ));
        for n in &mut nodes {
            n.total = n.self_time;
        }
        // Children come after their parents: in reverse, every node is complete before it
        // is added to its parent.
        for n in (1..nodes.len()).rev() {
            let (total, parent) = (nodes[n].total, nodes[n].parent as usize);
            nodes[parent].total = nodes[parent].total.saturating_add(total);
        }
        let mut child_offsets = vec![0u32; nodes.len() + 1];
        for n in &nodes[1..] {
            child_offsets[n.parent as usize + 1] += 1;
        }
        for i in 1..child_offsets.len() {
            child_offsets[i] += child_offsets[i - 1];
        }
        let mut fill = child_offsets.clone();
        let mut children = vec![0u32; nodes.len().saturating_sub(1)];
        for (i, n) in nodes.iter().enumerate().skip(1) {
            let at = &mut fill[n.parent as usize];
            children[*at as usize] = i as u32;
            *at += 1;
        }
        for p in 0..nodes.len() {
            let kids = &mut children[child_offsets[p] as usize..child_offsets[p + 1] as usize];
            kids.sort_unstable_by(|&a, &b| {
                let (a, b) = (&nodes[a as usize], &nodes[b as usize]);
                b.total.cmp(&a.total).then(a.key.cmp(&b.key))
            });
        }
        Tree {
            nodes,
            child_offsets,
            children,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn totals_add_children_and_children_come_widest_first() {
        let mut b = TreeBuilder::new(99);
        let a = b.child(ROOT, 1);
        let x = b.child(a, 2);
        let y = b.child(a, 3);
        b.add(a, 5, 1);
        b.add(x, 2, 1);
        b.add(y, 7, 2);
        assert_eq!(b.child(a, 3), y);
        let t = b.finish();
        assert_eq!(t.node(a).total, 14);
        assert_eq!(t.total(), 14);
        assert_eq!(t.children(a), &[y, x]);
        assert_eq!(t.path(x), vec![1, 2]);
        assert_eq!(t.find(&[1, 3]), Some(y));
        assert_eq!(t.preorder(), vec![a, y, x]);
    }

    #[test]
    fn many_children_are_found_through_the_table() {
        let mut b = TreeBuilder::new(99);
        let kids: Vec<u32> = (0..100).map(|k| b.child(ROOT, k)).collect();
        for k in 0..100 {
            assert_eq!(b.child(ROOT, k), kids[k as usize]);
        }
        assert_eq!(b.len(), 101);
    }

    #[test]
    fn past_the_limit_paths_end_in_other() {
        let mut b = TreeBuilder::with_limit(99, 3);
        let a = b.child(ROOT, 1);
        let x = b.child(a, 2);
        let y = b.child(a, 3);
        let z = b.child(a, 4);
        assert_eq!(y, z);
        assert_eq!(b.key(y), 99);
        assert_ne!(x, y);
    }

    #[test]
    fn only_keeps_a_class_and_lifts_its_nodes() {
        // 1 → 2 → 1 → 3: keeping 1 and 3 drops node 2 and its self time.
        let mut b = TreeBuilder::new(99);
        let n1 = b.child(ROOT, 1);
        let n2 = b.child(n1, 2);
        let n3 = b.child(n2, 1);
        let n4 = b.child(n3, 3);
        for n in [n1, n2, n3, n4] {
            b.add(n, 10, 1);
        }
        let t = b.finish();
        assert_eq!(t.total(), 40);
        let kept = t.only(|k| k != 2, 99);
        assert_eq!(kept.total(), 30);
        let top = kept.children(ROOT)[0];
        assert_eq!(kept.path(kept.children(top)[0]), vec![1, 1]);
    }
}
