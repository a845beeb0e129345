//! Lean's Firefox profile (the file `-Dtrace.profiler.output=FILE` makes Lean write,
//! `Lean.Firefox.Profile.export`; see fixtures/README.md, "Firefox profile") as Lean's trace
//! trees: the nodes of each thread with their names, times, categories and nesting.
//!
//! The file is read by the Firefox-profile reader ([`crate::firefox_profile`], in Lean's
//! layout) with [`LEAN_PROFILE_LIMITS`]; each thread is rebuilt into its tree (`rebuild.rs`) as
//! soon as it has been read, and its raw columns are dropped. The capture turns the trees into
//! a recording's events (`capture/from_profile.rs`); `leanscope import --heartbeats` reads them
//! too (`interop/firefox.rs`).

mod rebuild;
#[cfg(test)]
mod tests;

use std::io::Read;

use super::siblings::{Siblings, SubtreeEnd};
use crate::firefox_profile::{
    read_profile_columns, FirefoxProfileError, Layout, ProfileLimits, ProfileUnit, ReadOptions,
    StringTable,
};
use crate::limit;
use crate::limits::{
    Limit, MAX_PROFILE_BYTES, MAX_PROFILE_NODES, MAX_PROFILE_STRING_BYTES, MAX_PROFILE_TABLE_ROWS,
    MAX_PROFILE_THREADS,
};

/// The limits a profile Lean wrote is read with.
pub const LEAN_PROFILE_LIMITS: ProfileLimits = ProfileLimits {
    bytes: limit!(MAX_PROFILE_BYTES, "the profile's size"),
    threads: limit!(MAX_PROFILE_THREADS, "the number of threads"),
    table: limit!(MAX_PROFILE_TABLE_ROWS, "a table column's entries"),
    string: limit!(MAX_PROFILE_STRING_BYTES, "a string's bytes"),
};

/// The limit on the nodes rebuilt over all threads.
pub const LEAN_PROFILE_NODES: Limit = limit!(MAX_PROFILE_NODES, "the number of trace nodes");

/// A parsed profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FirefoxProfile {
    /// `meta.startTime`: the monotonic clock when Lean's frontend started, in nanoseconds.
    pub start_ns: u64,
    /// `meta.product` (`"lean"` for Lean's profiles).
    pub product: Option<String>,
    /// `meta.categories[].name`, indexed by [`ProfileNode::category`].
    pub categories: Vec<String>,
    pub threads: Vec<ProfileThread>,
}

impl FirefoxProfile {
    /// Number of nodes over all threads.
    pub fn node_count(&self) -> usize {
        self.threads.iter().map(|t| t.nodes.len()).sum()
    }

    /// Bytes of all node names over all threads.
    pub fn name_bytes(&self) -> usize {
        self.threads.iter().map(|t| t.names.text_bytes()).sum()
    }
}

/// One thread: its name (the module name for Lean's main thread, an OS thread id for the
/// workers that elaborate proofs asynchronously) and its trees.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileThread {
    pub name: String,
    pub is_main_thread: bool,
    names: StringTable,
    nodes: Vec<ProfileNode>,
}

/// [`ProfileNode::parent`] of a top-level node (never a node id: ids are below
/// [`MAX_PROFILE_NODES`]).
pub(super) const NO_PARENT: u32 = u32::MAX;

/// One trace node: an interval of the monotonic clock, in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProfileNode {
    name: u32,
    /// Index into [`FirefoxProfile::categories`].
    pub category: Option<u32>,
    pub start_ns: u64,
    pub end_ns: u64,
    /// The parent's id, or [`NO_PARENT`] for a top-level node: a plain `u32`, as an `Option`
    /// would make every node (of hundreds of thousands) 8 bytes larger.
    parent: u32,
    /// One past the id of the last node of this node's subtree.
    end: u32,
    /// 0 for a top-level node of its thread.
    pub depth: u32,
}

impl ProfileThread {
    /// All nodes in depth-first pre-order (start-time order among siblings).
    pub fn nodes(&self) -> &[ProfileNode] {
        &self.nodes
    }

    /// The node's function name: `class`, then `: tag` if Lean had a tag, then `: text` when
    /// the profile was written with `trace.profiler.output.pp=true`.
    pub fn name_of(&self, id: usize) -> &str {
        self.nodes
            .get(id)
            .and_then(|n| self.names.get(n.name as usize))
            .unwrap_or("")
    }

    pub fn parent(&self, id: usize) -> Option<usize> {
        let parent = self.nodes.get(id)?.parent;
        (parent != NO_PARENT).then_some(parent as usize)
    }

    /// Ids of the top-level nodes.
    pub fn roots(&self) -> Siblings<'_, ProfileNode> {
        Siblings::roots(&self.nodes)
    }

    /// Ids of a node's children in time order.
    #[cfg_attr(not(test), allow(dead_code))] // part of the parser's API; tests use it
    pub fn children(&self, id: usize) -> Siblings<'_, ProfileNode> {
        Siblings::children(&self.nodes, id)
    }
}

impl SubtreeEnd for ProfileNode {
    fn subtree_end(&self) -> usize {
        self.end as usize
    }
}

/// The limits of one parse: the reader's and the nodes'.
#[derive(Debug, Clone, Copy)]
struct Limits {
    reader: ProfileLimits,
    nodes: Limit,
}

const LIMITS: Limits = Limits {
    reader: LEAN_PROFILE_LIMITS,
    nodes: LEAN_PROFILE_NODES,
};

/// Parses a profile from a reader.
pub fn parse_firefox_profile<R: Read>(reader: R) -> Result<FirefoxProfile, FirefoxProfileError> {
    parse_with_limits(reader, LIMITS, ProfileUnit::Nanoseconds)
}

/// Parses a profile Lean wrote with `trace.profiler.useHeartbeats=true`: its times are read as
/// heartbeats ([`ProfileUnit::Heartbeats`]).
pub fn parse_firefox_profile_in<R: Read>(
    reader: R,
    unit: ProfileUnit,
) -> Result<FirefoxProfile, FirefoxProfileError> {
    parse_with_limits(reader, LIMITS, unit)
}

/// Parses a profile file; one whose size is over the limit is refused before it is read.
pub fn parse_firefox_profile_file(
    file: std::fs::File,
) -> Result<FirefoxProfile, FirefoxProfileError> {
    check_file_size(&file)?;
    parse_firefox_profile(file)
}

fn check_file_size(file: &std::fs::File) -> Result<(), FirefoxProfileError> {
    let size = file.metadata().map_err(FirefoxProfileError::Io)?.len();
    let limit = LIMITS.reader.bytes;
    if size > limit.value {
        return Err(FirefoxProfileError::TooLarge { limit });
    }
    Ok(())
}

fn parse_with_limits<R: Read>(
    reader: R,
    limits: Limits,
    unit: ProfileUnit,
) -> Result<FirefoxProfile, FirefoxProfileError> {
    let options = ReadOptions {
        layout: Layout::Lean,
        unit,
        limits: limits.reader,
    };
    let mut threads = Vec::new();
    let mut nodes_left = usize::try_from(limits.nodes.value).unwrap_or(usize::MAX);
    let columns = read_profile_columns(reader, options, &mut |index, raw| {
        let nodes = rebuild::thread_nodes(raw, index, &mut nodes_left, limits.nodes)?;
        threads.push(ProfileThread {
            name: raw.name.take().unwrap_or_default(),
            is_main_thread: raw.is_main_thread,
            names: raw.tables.strings.take().unwrap_or_default(),
            nodes,
        });
        Ok(())
    })?;
    let meta = columns.meta;
    let (start_text, start_ns) = meta
        .start_time
        .ok_or(FirefoxProfileError::Missing("startTime"))?;
    let start_ns = start_ns.ok_or_else(|| FirefoxProfileError::Invalid {
        thread: 0,
        reason: format!("meta.startTime {start_text} is not a time"),
    })?;
    Ok(FirefoxProfile {
        start_ns,
        product: meta.product,
        categories: meta.categories,
        threads,
    })
}
