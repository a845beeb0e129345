//! The folder tree of a session: folder time is the sum of the times of
//! its committed files (DESIGN.md), never read from disk.

use serde::Serialize;

use crate::session::{FileEntry, FileStatus};

/// A folder or a file of the tree.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FolderNode {
    /// The last path component ("" for the root).
    pub name: String,
    /// The project-relative path ("" for the root).
    pub path: String,
    pub parent: Option<u32>,
    /// Sub-folders and files, slowest first, then by name.
    pub children: Vec<u32>,
    /// For a file node, its index in the manifest's file list.
    pub file: Option<u32>,
    /// Sum of the times of the committed files below (or the file's time).
    pub total_ns: u64,
    /// Files below (or 1 for a file node), by status.
    pub files: u32,
    pub committed: u32,
    /// Files whose capture failed.
    pub failed: u32,
    pub skipped: u32,
    pub pending: u32,
}

impl FolderNode {
    pub fn is_file(&self) -> bool {
        self.file.is_some()
    }
}

/// The folder tree of a session's files.
#[derive(Debug, Clone, PartialEq)]
pub struct FolderTree {
    nodes: Vec<FolderNode>,
}

impl FolderTree {
    /// Builds the tree of `files` (project-relative paths, `/`-separated;
    /// a `\` is taken as a separator too). Empty path components are
    /// dropped.
    pub fn build(files: &[FileEntry]) -> FolderTree {
        let mut nodes = vec![FolderNode {
            name: String::new(),
            path: String::new(),
            parent: None,
            children: Vec::new(),
            file: None,
            total_ns: 0,
            files: 0,
            committed: 0,
            failed: 0,
            skipped: 0,
            pending: 0,
        }];
        // Child lookup while building: (parent, name) -> node.
        let mut lookup: std::collections::HashMap<(u32, String), u32> = Default::default();
        for (k, f) in files.iter().enumerate() {
            let parts: Vec<&str> = f
                .path
                .split(['/', '\\'])
                .filter(|p| !p.is_empty())
                .collect();
            let mut at = 0u32;
            let mut path = String::new();
            for (j, part) in parts.iter().enumerate() {
                if !path.is_empty() {
                    path.push('/');
                }
                path.push_str(part);
                let last = j + 1 == parts.len();
                let key = (at, (*part).to_owned());
                // Two manifest entries with the same path stay two nodes.
                let existing = if last {
                    None
                } else {
                    lookup.get(&key).copied()
                };
                at = match existing {
                    Some(n) if !nodes[n as usize].is_file() => n,
                    _ => {
                        let n = nodes.len() as u32;
                        nodes.push(FolderNode {
                            name: (*part).to_owned(),
                            path: path.clone(),
                            parent: Some(at),
                            children: Vec::new(),
                            file: last.then_some(k as u32),
                            total_ns: 0,
                            files: 0,
                            committed: 0,
                            failed: 0,
                            skipped: 0,
                            pending: 0,
                        });
                        nodes[at as usize].children.push(n);
                        if !last {
                            lookup.insert(key, n);
                        }
                        n
                    }
                };
            }
            if parts.is_empty() {
                continue;
            }
            // Add the file to itself and every ancestor.
            let time = f.median_time_ns().unwrap_or(0);
            let mut up = Some(at);
            while let Some(n) = up {
                let node = &mut nodes[n as usize];
                node.files += 1;
                node.total_ns = node.total_ns.saturating_add(time);
                match f.status {
                    s if s.is_committed() => node.committed += 1,
                    FileStatus::Failed => node.failed += 1,
                    FileStatus::Skipped => node.skipped += 1,
                    _ => node.pending += 1,
                }
                up = node.parent;
            }
        }
        let totals: Vec<(u64, String)> =
            nodes.iter().map(|n| (n.total_ns, n.name.clone())).collect();
        for n in &mut nodes {
            n.children.sort_by(|&a, &b| {
                let (ta, na) = &totals[a as usize];
                let (tb, nb) = &totals[b as usize];
                tb.cmp(ta).then_with(|| na.cmp(nb))
            });
        }
        FolderTree { nodes }
    }

    pub const ROOT: u32 = 0;

    pub fn node(&self, n: u32) -> Option<&FolderNode> {
        self.nodes.get(n as usize)
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.len() <= 1
    }

    /// The node at a project-relative path, matching whole components
    /// (`""` is the root).
    pub fn find(&self, path: &str) -> Option<u32> {
        let mut at = Self::ROOT;
        for part in path.split(['/', '\\']).filter(|p| !p.is_empty()) {
            at = *self.nodes[at as usize]
                .children
                .iter()
                .find(|&&c| self.nodes[c as usize].name == part)?;
        }
        Some(at)
    }

    /// The node's share of its parent's time, in `[0, 1]`; `None` for the
    /// root or when the parent has no time.
    pub fn share_of_parent(&self, n: u32) -> Option<f64> {
        let node = self.node(n)?;
        let parent = self.node(node.parent?)?;
        share(node.total_ns, parent.total_ns)
    }

    /// The node's share of the whole session's time.
    pub fn share_of_session(&self, n: u32) -> Option<f64> {
        share(self.node(n)?.total_ns, self.nodes[0].total_ns)
    }

    /// The nodes from the root down to `n`, both included.
    pub fn ancestry(&self, n: u32) -> Vec<u32> {
        let mut out = Vec::new();
        let mut at = Some(n);
        while let Some(k) = at {
            out.push(k);
            at = self.node(k).and_then(|x| x.parent);
        }
        out.reverse();
        out
    }
}

fn share(part: u64, whole: u64) -> Option<f64> {
    (whole > 0).then(|| part as f64 / whole as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(id: u32, path: &str, status: FileStatus, ns: Option<u64>) -> FileEntry {
        FileEntry {
            status,
            elapsed_ms: ns.map(crate::session::ns_to_ms),
            ..FileEntry::planned(id, path.into(), String::new())
        }
    }

    #[test]
    fn folder_time_is_the_sum_of_committed_files() {
        let files = [
            file(0, "A/B/x.lean", FileStatus::Ok, Some(30)),
            file(1, "A/B/y.lean", FileStatus::Error, Some(10)),
            file(2, "A/z.lean", FileStatus::Ok, Some(60)),
            file(3, "A/B/w.lean", FileStatus::Failed, Some(1000)),
            file(4, "C.lean", FileStatus::Pending, None),
        ];
        let t = FolderTree::build(&files);
        let root = t.node(FolderTree::ROOT).unwrap();
        assert_eq!(root.total_ns, 100);
        assert_eq!(
            (root.files, root.committed, root.failed, root.pending),
            (5, 3, 1, 1)
        );
        let a = t.find("A").unwrap();
        let b = t.find("A/B").unwrap();
        assert_eq!(t.node(b).unwrap().total_ns, 40);
        assert_eq!(t.share_of_parent(b), Some(0.4));
        assert_eq!(t.share_of_session(b), Some(0.4));
        assert_eq!(t.share_of_parent(t.find("A/B/x.lean").unwrap()), Some(0.75));
        // Slowest first: z (60) before B (40); in B: x, y, then w (failed, 0).
        let kids: Vec<&str> = t
            .node(a)
            .unwrap()
            .children
            .iter()
            .map(|&c| t.node(c).unwrap().name.as_str())
            .collect();
        assert_eq!(kids, ["z.lean", "B"]);
        let kids: Vec<&str> = t
            .node(b)
            .unwrap()
            .children
            .iter()
            .map(|&c| t.node(c).unwrap().name.as_str())
            .collect();
        assert_eq!(kids, ["x.lean", "y.lean", "w.lean"]);
        assert_eq!(t.node(t.find("A/B/x.lean").unwrap()).unwrap().file, Some(0));
        assert_eq!(t.ancestry(b), vec![0, a, b]);
    }

    #[test]
    fn paths_match_whole_components() {
        let files = [file(0, "Demo/Sub/x.lean", FileStatus::Ok, Some(1))];
        let t = FolderTree::build(&files);
        assert!(t.find("Demo/Sub").is_some());
        assert!(t.find("Demo/Su").is_none());
        assert!(t.find("Dem").is_none());
        assert_eq!(t.find(""), Some(FolderTree::ROOT));
        assert_eq!(t.share_of_parent(FolderTree::ROOT), None);
    }

    #[test]
    fn empty_session_has_no_shares() {
        let t = FolderTree::build(&[]);
        assert!(t.is_empty());
        assert_eq!(t.share_of_session(FolderTree::ROOT), None);
    }
}
