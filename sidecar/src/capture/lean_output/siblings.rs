//! Walking a tree stored in depth-first pre-order in which each node records where its subtree
//! ends (one past its last descendant's id): a trace message's tree ([`super::trace_text`]) and
//! a thread's tree of Lean's profile ([`super::lean_profile`]).

/// A node that knows where its subtree ends.
pub trait SubtreeEnd {
    /// One past the id of the last node of this node's subtree.
    fn subtree_end(&self) -> usize;
}

/// Iterator over the ids of consecutive siblings.
pub struct Siblings<'a, N> {
    nodes: &'a [N],
    next: usize,
    end: usize,
}

impl<'a, N: SubtreeEnd> Siblings<'a, N> {
    /// The top-level nodes.
    pub fn roots(nodes: &'a [N]) -> Self {
        Siblings {
            nodes,
            next: 0,
            end: nodes.len(),
        }
    }

    /// The children of node `id`.
    pub fn children(nodes: &'a [N], id: usize) -> Self {
        Siblings {
            nodes,
            next: id + 1,
            end: nodes.get(id).map_or(0, N::subtree_end),
        }
    }
}

impl<N: SubtreeEnd> Iterator for Siblings<'_, N> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        if self.next >= self.end {
            return None;
        }
        let id = self.next;
        self.next = self.nodes.get(id).map_or(self.end, N::subtree_end);
        Some(id)
    }
}
