//! The Firefox Profiler JSON that `-Dtrace.profiler.output=FILE` makes Lean write
//! (`Lean.Firefox.Profile.export`, see fixtures/README.md, "Firefox profile").
//!
//! Lean turns every timed trace node into samples of one stack: a pair of samples
//! (`time = [a, b]`, `weight = [0, b - a]`) for the stretch before each child and one for the
//! stretch after the last child. Stacks are shared between identical call paths (same names
//! from the root), so two sibling nodes with the same name have the same stack id; the tree is
//! therefore rebuilt from the order of the samples, not from stack ids alone. Between top-level
//! traces of a thread Lean inserts an idle pair on stack 0 with zero weight.
//!
//! Parsing streams from a reader: each thread is turned into its tree as soon as it has been
//! read and its raw tables are dropped. Input size, table lengths, string sizes, thread and node
//! counts are bounded by the constants below.

use std::cell::Cell;
use std::io::Read;
use std::rc::Rc;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

use super::decimal::ms_f64_to_ns;

/// Largest profile file accepted.
pub const MAX_PROFILE_BYTES: u64 = 2 * 1024 * 1024 * 1024;
/// Most threads accepted in one profile.
pub const MAX_PROFILE_THREADS: usize = 4096;
/// Longest table column accepted (samples, stacks, frames, functions, strings of one thread).
pub const MAX_TABLE_LENGTH: usize = 16_000_000;
/// Longest single string accepted (a node name; with `trace.profiler.output.pp` names include
/// pretty-printed syntax).
pub const MAX_STRING_BYTES: usize = 1024 * 1024;
/// Most trace nodes rebuilt over all threads of one profile.
pub const MAX_PROFILE_NODES: usize = 8_000_000;

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
    #[cfg_attr(not(test), allow(dead_code))] // part of the parser's API; tests use it
    pub fn node_count(&self) -> usize {
        self.threads.iter().map(|t| t.nodes.len()).sum()
    }
}

/// One thread: its name (the module name for Lean's main thread, an OS thread id for the
/// workers that elaborate proofs asynchronously) and its trees.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileThread {
    pub name: String,
    pub is_main_thread: bool,
    names: Vec<String>,
    nodes: Vec<ProfileNode>,
}

/// One trace node: an interval of the monotonic clock, in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProfileNode {
    name: u32,
    /// Index into [`FirefoxProfile::categories`].
    pub category: Option<u32>,
    pub start_ns: u64,
    pub end_ns: u64,
    parent: Option<u32>,
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
            .map_or("", String::as_str)
    }

    pub fn parent(&self, id: usize) -> Option<usize> {
        self.nodes.get(id)?.parent.map(|p| p as usize)
    }

    /// Ids of the top-level nodes.
    #[cfg_attr(not(test), allow(dead_code))] // part of the parser's API; tests use it
    pub fn roots(&self) -> NodeSiblings<'_> {
        NodeSiblings {
            nodes: &self.nodes,
            next: 0,
            end: self.nodes.len(),
        }
    }

    /// Ids of a node's children in time order.
    #[cfg_attr(not(test), allow(dead_code))] // part of the parser's API; tests use it
    pub fn children(&self, id: usize) -> NodeSiblings<'_> {
        NodeSiblings {
            nodes: &self.nodes,
            next: id + 1,
            end: self.nodes.get(id).map_or(0, |n| n.end as usize),
        }
    }
}

/// Iterator over consecutive siblings.
#[cfg_attr(not(test), allow(dead_code))] // part of the parser's API; tests use it
pub struct NodeSiblings<'a> {
    nodes: &'a [ProfileNode],
    next: usize,
    end: usize,
}

impl Iterator for NodeSiblings<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        if self.next >= self.end {
            return None;
        }
        let id = self.next;
        self.next = self.nodes.get(id).map_or(self.end, |n| n.end as usize);
        Some(id)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum FirefoxProfileError {
    #[error("profile JSON is malformed at line {line}, column {column}: {reason}")]
    Json {
        line: usize,
        column: usize,
        reason: String,
    },
    #[error("reading the profile failed: {0}")]
    Io(#[source] std::io::Error),
    #[error("the profile is larger than {limit} bytes")]
    TooLarge { limit: u64 },
    #[error("the profile exceeds the limit on {what} ({limit})")]
    LimitExceeded { what: &'static str, limit: u64 },
    #[error("thread {thread}: {reason}")]
    Invalid { thread: usize, reason: String },
    #[error("the profile has no `{0}` field")]
    Missing(&'static str),
}

/// The limits in force; the public constants in production, smaller values in tests.
#[derive(Debug, Clone, Copy)]
struct Limits {
    bytes: u64,
    threads: usize,
    table: usize,
    string: usize,
    nodes: usize,
}

const LIMITS: Limits = Limits {
    bytes: MAX_PROFILE_BYTES,
    threads: MAX_PROFILE_THREADS,
    table: MAX_TABLE_LENGTH,
    string: MAX_STRING_BYTES,
    nodes: MAX_PROFILE_NODES,
};

thread_local! {
    /// Limits of the parse running on this thread (serde visitors cannot carry state).
    static ACTIVE_LIMITS: Cell<Limits> = const { Cell::new(LIMITS) };
    /// Set by a visitor that stopped because of a limit, so the error can be reported as such.
    static LIMIT_HIT: Cell<Option<(&'static str, u64)>> = const { Cell::new(None) };
}

fn limit_error<E: de::Error>(what: &'static str, limit: usize) -> E {
    LIMIT_HIT.with(|hit| hit.set(Some((what, limit as u64))));
    E::custom(format!("more than {limit} {what}"))
}

/// Parses a profile from a reader (buffered internally).
pub fn parse_firefox_profile<R: Read>(reader: R) -> Result<FirefoxProfile, FirefoxProfileError> {
    parse_with_limits(reader, LIMITS)
}

fn parse_with_limits<R: Read>(
    reader: R,
    limits: Limits,
) -> Result<FirefoxProfile, FirefoxProfileError> {
    ACTIVE_LIMITS.with(|l| l.set(limits));
    LIMIT_HIT.with(|hit| hit.set(None));
    let over = Rc::new(Cell::new(false));
    let mut limited = LimitedReader {
        inner: reader,
        remaining: limits.bytes,
        over: Rc::clone(&over),
    };
    // Parsing from memory is several times faster than from a reader; the
    // input is bounded by `limits.bytes` before it is held.
    let mut bytes = Vec::new();
    if let Err(e) = limited.read_to_end(&mut bytes) {
        ACTIVE_LIMITS.with(|l| l.set(LIMITS));
        return Err(if over.get() {
            FirefoxProfileError::TooLarge {
                limit: limits.bytes,
            }
        } else {
            FirefoxProfileError::Io(e)
        });
    }
    let mut de = serde_json::Deserializer::from_slice(&bytes);
    let mut state = BuildState {
        threads: Vec::new(),
        nodes_left: limits.nodes,
        error: None,
    };
    let result = (&mut de)
        .deserialize_map(ProfileVisitor { state: &mut state })
        .and_then(|meta| de.end().map(|()| meta));
    let outcome = match result {
        Ok(meta) => {
            let meta = meta.ok_or(FirefoxProfileError::Missing("meta"))?;
            let start_ns =
                ms_f64_to_ns(meta.start_time).ok_or_else(|| FirefoxProfileError::Invalid {
                    thread: 0,
                    reason: format!("meta.startTime {} is not a time", meta.start_time),
                })?;
            Ok(FirefoxProfile {
                start_ns,
                product: meta.product,
                categories: meta.categories.into_iter().map(|c| c.name).collect(),
                threads: state.threads,
            })
        }
        Err(e) => Err(if let Some(error) = state.error.take() {
            error
        } else if let Some((what, limit)) = LIMIT_HIT.with(Cell::take) {
            FirefoxProfileError::LimitExceeded { what, limit }
        } else if over.get() {
            FirefoxProfileError::TooLarge {
                limit: limits.bytes,
            }
        } else if e.is_io() {
            FirefoxProfileError::Io(std::io::Error::other(e.to_string()))
        } else {
            FirefoxProfileError::Json {
                line: e.line(),
                column: e.column(),
                reason: e.to_string(),
            }
        }),
    };
    ACTIVE_LIMITS.with(|l| l.set(LIMITS));
    outcome
}

struct LimitedReader<R> {
    inner: R,
    remaining: u64,
    over: Rc<Cell<bool>>,
}

impl<R: Read> Read for LimitedReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        // allow one byte past the limit to tell "exactly at the limit" from "over it"
        let cap = usize::try_from(self.remaining.saturating_add(1)).unwrap_or(usize::MAX);
        let want = buf.len().min(cap);
        let n = self.inner.read(&mut buf[..want])?;
        if n as u64 > self.remaining {
            self.over.set(true);
            return Err(std::io::Error::other("profile larger than the limit"));
        }
        self.remaining -= n as u64;
        Ok(n)
    }
}

// ------------------------------------------------------------------------------ raw tables

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawMeta {
    start_time: f64,
    #[serde(default)]
    product: Option<String>,
    #[serde(default, deserialize_with = "bounded_vec")]
    categories: Vec<RawCategory>,
}

#[derive(Deserialize)]
struct RawCategory {
    #[serde(deserialize_with = "bounded_string")]
    name: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawThread {
    #[serde(default, deserialize_with = "bounded_string")]
    name: String,
    #[serde(default)]
    is_main_thread: bool,
    samples: RawSamples,
    stack_table: RawStackTable,
    frame_table: RawFrameTable,
    func_table: RawFuncTable,
    #[serde(deserialize_with = "bounded_strings")]
    string_array: Vec<String>,
}

#[derive(Deserialize)]
struct RawSamples {
    #[serde(deserialize_with = "bounded_vec")]
    stack: Vec<u32>,
    #[serde(deserialize_with = "bounded_vec")]
    time: Vec<f64>,
    #[serde(default, deserialize_with = "bounded_opt_vec")]
    weight: Option<Vec<f64>>,
}

#[derive(Deserialize)]
struct RawStackTable {
    #[serde(deserialize_with = "bounded_vec")]
    frame: Vec<u32>,
    #[serde(deserialize_with = "bounded_vec")]
    prefix: Vec<Option<u32>>,
    #[serde(default, deserialize_with = "bounded_opt_vec")]
    category: Option<Vec<Option<u32>>>,
}

#[derive(Deserialize)]
struct RawFrameTable {
    #[serde(deserialize_with = "bounded_vec")]
    func: Vec<u32>,
}

#[derive(Deserialize)]
struct RawFuncTable {
    #[serde(deserialize_with = "bounded_vec")]
    name: Vec<u32>,
}

struct BoundedVecVisitor<T>(std::marker::PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for BoundedVecVisitor<T> {
    type Value = Vec<T>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an array")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
        let limit = ACTIVE_LIMITS.with(Cell::get).table;
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(item) = seq.next_element()? {
            if out.len() >= limit {
                return Err(limit_error("entries in one table column", limit));
            }
            out.push(item);
        }
        Ok(out)
    }
}

fn bounded_vec<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Vec<T>, D::Error> {
    d.deserialize_seq(BoundedVecVisitor(std::marker::PhantomData))
}

fn bounded_opt_vec<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<Vec<T>>, D::Error> {
    bounded_vec(d).map(Some)
}

struct BoundedString(String);

impl<'de> Deserialize<'de> for BoundedString {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        let limit = ACTIVE_LIMITS.with(Cell::get).string;
        if s.len() > limit {
            return Err(limit_error("bytes in one string", limit));
        }
        Ok(BoundedString(s))
    }
}

fn bounded_string<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    BoundedString::deserialize(d).map(|s| s.0)
}

fn bounded_strings<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    let strings: Vec<BoundedString> = bounded_vec(d)?;
    Ok(strings.into_iter().map(|s| s.0).collect())
}

// ------------------------------------------------------------------------------ streaming

struct BuildState {
    threads: Vec<ProfileThread>,
    nodes_left: usize,
    error: Option<FirefoxProfileError>,
}

struct ProfileVisitor<'a> {
    state: &'a mut BuildState,
}

impl<'de> Visitor<'de> for ProfileVisitor<'_> {
    type Value = Option<RawMeta>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a Firefox profile object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<RawMeta>, A::Error> {
        let mut meta = None;
        let mut saw_threads = false;
        while let Some(key) = map.next_key::<BoundedString>()? {
            match key.0.as_str() {
                "meta" => meta = Some(map.next_value::<RawMeta>()?),
                "threads" => {
                    saw_threads = true;
                    map.next_value_seed(ThreadsSeed {
                        state: &mut *self.state,
                    })?;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        if !saw_threads {
            self.state.error = Some(FirefoxProfileError::Missing("threads"));
            return Err(de::Error::custom("missing threads"));
        }
        Ok(meta)
    }
}

struct ThreadsSeed<'a> {
    state: &'a mut BuildState,
}

impl<'de> DeserializeSeed<'de> for ThreadsSeed<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for ThreadsSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an array of threads")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let limit = ACTIVE_LIMITS.with(Cell::get).threads;
        while let Some(raw) = seq.next_element::<RawThread>()? {
            let index = self.state.threads.len();
            if index >= limit {
                return Err(limit_error("threads", limit));
            }
            match build_thread(raw, index, &mut self.state.nodes_left) {
                Ok(thread) => self.state.threads.push(thread),
                Err(error) => {
                    self.state.error = Some(error);
                    return Err(de::Error::custom("invalid thread"));
                }
            }
        }
        Ok(())
    }
}

// ------------------------------------------------------------------------------ rebuilding

fn build_thread(
    raw: RawThread,
    index: usize,
    nodes_left: &mut usize,
) -> Result<ProfileThread, FirefoxProfileError> {
    let invalid = |reason: String| FirefoxProfileError::Invalid {
        thread: index,
        reason,
    };
    let samples = &raw.samples;
    let n = samples.stack.len();
    if samples.time.len() != n {
        return Err(invalid(format!(
            "samples.stack has {n} entries but samples.time has {}",
            samples.time.len()
        )));
    }
    if let Some(w) = &samples.weight {
        if w.len() != n {
            return Err(invalid(format!(
                "samples.stack has {n} entries but samples.weight has {}",
                w.len()
            )));
        }
    }
    if n % 2 != 0 {
        return Err(invalid(format!(
            "{n} samples: Lean writes samples in pairs, one pair per time slice"
        )));
    }
    let stacks = &raw.stack_table;
    let stack_count = stacks.frame.len();
    if stacks.prefix.len() != stack_count
        || stacks
            .category
            .as_ref()
            .is_some_and(|c| c.len() != stack_count)
    {
        return Err(invalid(
            "stackTable columns have different lengths".to_string(),
        ));
    }
    // resolve each stack's name once, checking every index
    let mut stack_names = Vec::with_capacity(stack_count);
    for s in 0..stack_count {
        if let Some(p) = stacks.prefix[s] {
            if p as usize >= s {
                return Err(invalid(format!(
                    "stack {s} has prefix {p}; Lean only refers to earlier stacks"
                )));
            }
        }
        let frame = stacks.frame[s] as usize;
        let func = *raw
            .frame_table
            .func
            .get(frame)
            .ok_or_else(|| invalid(format!("stack {s} refers to missing frame {frame}")))?;
        let name =
            *raw.func_table.name.get(func as usize).ok_or_else(|| {
                invalid(format!("frame {frame} refers to missing function {func}"))
            })?;
        if name as usize >= raw.string_array.len() {
            return Err(invalid(format!(
                "function {func} refers to missing string {name}"
            )));
        }
        stack_names.push(name);
    }

    let mut nodes: Vec<ProfileNode> = Vec::new();
    // (stack id, node id) of the open path, outermost first
    let mut open: Vec<(u32, usize)> = Vec::new();
    let close_to = |open: &mut Vec<(u32, usize)>, nodes: &mut Vec<ProfileNode>, depth: usize| {
        let end = nodes.len() as u32;
        while open.len() > depth {
            if let Some((_, id)) = open.pop() {
                nodes[id].end = end;
            }
        }
    };
    for pair in 0..n / 2 {
        let i = 2 * pair;
        let stack = samples.stack[i];
        if samples.stack[i + 1] != stack {
            return Err(invalid(format!(
                "samples {i} and {} form a pair but have stacks {stack} and {}",
                i + 1,
                samples.stack[i + 1]
            )));
        }
        if stack as usize >= stack_count {
            return Err(invalid(format!(
                "sample {i} refers to missing stack {stack}"
            )));
        }
        let time = |k: usize| {
            ms_f64_to_ns(samples.time[k])
                .ok_or_else(|| invalid(format!("sample {k} has time {} ms", samples.time[k])))
        };
        let (t0, t1) = (time(i)?, time(i + 1)?);
        let idle = samples
            .weight
            .as_ref()
            .is_some_and(|w| w[i] == 0.0 && w[i + 1] == 0.0)
            && t1 > t0;
        if idle {
            // Lean's "0% CPU" slice between two top-level traces
            close_to(&mut open, &mut nodes, 0);
            continue;
        }
        if let Some(pos) = open.iter().rposition(|&(s, _)| s == stack) {
            // back in an open node: the stretch after one of its children
            close_to(&mut open, &mut nodes, pos + 1);
            let node = &mut nodes[open[pos].1];
            node.end_ns = node.end_ns.max(t1);
            continue;
        }
        let depth = match stacks.prefix[stack as usize] {
            None => 0,
            Some(parent) => match open.iter().rposition(|&(s, _)| s == parent) {
                Some(pos) => pos + 1,
                None => {
                    return Err(invalid(format!(
                        "sample {i} (stack {stack}) starts a node whose parent stack {parent} \
                         is not open"
                    )))
                }
            },
        };
        close_to(&mut open, &mut nodes, depth);
        if *nodes_left == 0 {
            return Err(FirefoxProfileError::LimitExceeded {
                what: "trace nodes",
                limit: ACTIVE_LIMITS.with(Cell::get).nodes as u64,
            });
        }
        *nodes_left -= 1;
        let id = nodes.len();
        nodes.push(ProfileNode {
            name: stack_names[stack as usize],
            category: stacks.category.as_ref().and_then(|c| c[stack as usize]),
            start_ns: t0,
            end_ns: t1.max(t0),
            parent: open.last().map(|&(_, p)| p as u32),
            end: id as u32 + 1,
            depth: depth as u32,
        });
        open.push((stack, id));
    }
    close_to(&mut open, &mut nodes, 0);
    Ok(ProfileThread {
        name: raw.name,
        is_main_thread: raw.is_main_thread,
        names: raw.string_array,
        nodes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn fixture(case: &str) -> std::fs::File {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../fixtures/lean-output")
            .join(case)
            .join("profile.json");
        std::fs::File::open(path).expect("fixture")
    }

    fn find(thread: &ProfileThread, name: &str) -> usize {
        (0..thread.nodes().len())
            .find(|&id| thread.name_of(id) == name)
            .unwrap_or_else(|| panic!("no node named {name:?}"))
    }

    #[test]
    fn clean_profile_threads_and_trees() {
        let profile = parse_firefox_profile(fixture("clean")).expect("parses");
        assert_eq!(profile.start_ns, 259_231_447_812_903);
        assert_eq!(profile.product.as_deref(), Some("lean"));
        assert_eq!(
            profile.categories,
            vec![
                "Other",
                "Elab.async",
                "Elab.block",
                "Elab",
                "Meta",
                "Kernel"
            ]
        );
        let names: Vec<_> = profile.threads.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, vec!["Demo.Clean", "2841977", "2841978"]);
        assert!(profile.threads[0].is_main_thread);
        assert!(!profile.threads[1].is_main_thread);
        assert_eq!(profile.node_count(), 42);

        let main = &profile.threads[0];
        let roots: Vec<_> = main.roots().collect();
        assert_eq!(roots, vec![0]);
        assert_eq!(main.name_of(0), "runFrontend: ");
        let top: Vec<_> = main
            .children(0)
            .map(|id| main.name_of(id).to_string())
            .collect();
        assert_eq!(top.len(), 6);
        assert_eq!(top[0], "Import: importing");
        assert_eq!(
            top[1],
            "Elab.command: Lean.Parser.Command.definition: def double (n : Nat) : Nat := n + n"
        );
        let import = &main.nodes()[1];
        assert_eq!(import.end_ns - import.start_ns, 118_623_000);
        assert_eq!(import.start_ns - profile.start_ns, 874_000);
        assert_eq!(
            profile.categories[import.category.expect("category") as usize],
            "Other"
        );
        let run = &main.nodes()[0];
        assert_eq!(run.start_ns, profile.start_ns);

        let worker = &profile.threads[1];
        assert_eq!(worker.roots().count(), 2);
        let omega = find(worker, "Elab.step: Lean.Parser.Tactic.omega: omega");
        let node = worker.nodes()[omega];
        assert_eq!(node.end_ns - node.start_ns, 6_238_000);
        assert_eq!(node.depth, 3);
        assert_eq!(
            worker.name_of(worker.parent(omega).expect("parent")),
            "Elab.step: Lean.Parser.Tactic.tacticSeq: unfold double\nomega"
        );
        assert_eq!(
            profile.categories[node.category.expect("category") as usize],
            "Elab"
        );
    }

    #[test]
    fn same_name_siblings_are_separate_nodes() {
        // le_double and double_add run on the same worker; within le_double the two
        // `tacticSeq` alternatives share one stack but are two nodes
        let profile = parse_firefox_profile(fixture("clean")).expect("parses");
        let worker = &profile.threads[1];
        let induction = find(
            worker,
            "Elab.step: Lean.Parser.Tactic.induction: induction n with\n| zero => exact Nat.le_refl 0\n| succ k ih =>\n  unfold double at *\n  omega",
        );
        let alternatives: Vec<_> = worker.children(induction).collect();
        assert_eq!(alternatives.len(), 2);
        let (a, b) = (
            worker.nodes()[alternatives[0]],
            worker.nodes()[alternatives[1]],
        );
        assert!(a.end_ns <= b.start_ns);
        assert_eq!(b.start_ns - a.end_ns, 173_000);
        for id in 0..worker.nodes().len() {
            if let Some(p) = worker.parent(id) {
                let (child, parent) = (worker.nodes()[id], worker.nodes()[p]);
                assert!(parent.start_ns <= child.start_ns && child.end_ns <= parent.end_ns);
            }
        }
    }

    #[test]
    fn profile_matches_trace_messages() {
        use crate::capture::lean_output::messages::MessageReader;
        use crate::capture::lean_output::trace_text::parse_trace_text;
        let profile = parse_firefox_profile(fixture("async")).expect("parses");
        assert_eq!(profile.threads.len(), 4);
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../fixtures/lean-output/async/stdout.traces");
        let file = std::fs::File::open(path).expect("fixture");
        let mut checked = 0;
        for message in MessageReader::new(std::io::BufReader::new(file)) {
            let message = message.expect("message");
            if message.kind_is_trace() != Some(true) {
                continue;
            }
            let forest = parse_trace_text(&message.data).expect("trace");
            let root = &forest.nodes()[0];
            if forest.class(0) != "Elab.async" {
                continue;
            }
            let name = format!("Elab.async: {}", root.text);
            let (thread, id) = profile
                .threads
                .iter()
                .find_map(|t| {
                    (0..t.nodes().len())
                        .find(|&id| t.name_of(id) == name)
                        .map(|id| (t, id))
                })
                .expect("async node in profile");
            let node = thread.nodes()[id];
            let printed = root.timing.expect("timed").nanoseconds;
            let exact = node.end_ns - node.start_ns;
            // the message prints microseconds, the profile nanoseconds
            assert!(
                exact.abs_diff(printed) <= 500,
                "{name}: {exact} vs {printed}"
            );
            assert!(!thread.is_main_thread, "proofs run on worker threads");
            checked += 1;
        }
        assert_eq!(checked, 5);
    }

    #[test]
    fn idle_slices_separate_same_named_roots() {
        // two top-level traces named alike on one worker thread (pp off): stack 0 is shared,
        // the zero-weight slice between them ends the first
        let json = r#"{"meta":{"startTime":1000},"threads":[{"name":"7","isMainThread":false,
            "samples":{"stack":[0,0,1,1,0,0,0,0,0,0],"time":[1,2,2,3,3,4,4,6,6,7],
                       "weight":[0,1,0,1,0,1,0,0,0,1]},
            "stackTable":{"frame":[0,1],"prefix":[null,0],"category":[1,3]},
            "frameTable":{"func":[0,1]},"funcTable":{"name":[0,1]},
            "stringArray":["Elab.async","Elab.step"]}]}"#;
        let profile = parse_firefox_profile(json.as_bytes()).expect("parses");
        let t = &profile.threads[0];
        assert_eq!(t.roots().collect::<Vec<_>>(), vec![0, 2]);
        let span = |id: usize| (t.nodes()[id].start_ns, t.nodes()[id].end_ns);
        assert_eq!(span(0), (1_000_000, 4_000_000));
        assert_eq!(span(1), (2_000_000, 3_000_000));
        assert_eq!(span(2), (6_000_000, 7_000_000));
        assert_eq!(t.name_of(1), "Elab.step");
        assert_eq!(t.nodes()[1].category, Some(3));
        assert_eq!(profile.start_ns, 1_000_000_000);
    }

    #[test]
    fn invalid_tables_are_reported_per_thread() {
        let base = |samples: &str, prefix: &str| {
            format!(
                r#"{{"meta":{{"startTime":0}},"threads":[{{"name":"a","samples":{samples},
                "stackTable":{{"frame":[0,0],"prefix":{prefix}}},"frameTable":{{"func":[0]}},
                "funcTable":{{"name":[0]}},"stringArray":["x"]}}]}}"#
            )
        };
        let cases = [
            base(r#"{"stack":[0],"time":[1]}"#, "[null,0]"),
            base(r#"{"stack":[0,1],"time":[1,2]}"#, "[null,0]"),
            base(r#"{"stack":[0,0],"time":[1]}"#, "[null,0]"),
            base(r#"{"stack":[5,5],"time":[1,2]}"#, "[null,0]"),
            base(r#"{"stack":[0,0],"time":[1,2]}"#, "[1,null]"),
            base(r#"{"stack":[1,1],"time":[1,2]}"#, "[null,0]"),
        ];
        for json in &cases {
            match parse_firefox_profile(json.as_bytes()) {
                Err(FirefoxProfileError::Invalid { thread: 0, .. }) => {}
                other => panic!("expected invalid thread for {json}: {other:?}"),
            }
        }
    }

    #[test]
    fn malformed_json_has_position() {
        match parse_firefox_profile(&b"{\"meta\": {\"startTime\": 1},\n \"threads\": [}"[..]) {
            Err(FirefoxProfileError::Json { line: 2, .. }) => {}
            other => panic!("expected JSON error, got {other:?}"),
        }
        assert!(matches!(
            parse_firefox_profile(&b"{\"meta\":{\"startTime\":1}}"[..]),
            Err(FirefoxProfileError::Missing("threads"))
        ));
        assert!(matches!(
            parse_firefox_profile(&b"{\"threads\":[]}"[..]),
            Err(FirefoxProfileError::Missing("meta"))
        ));
        assert!(matches!(
            parse_firefox_profile(&b"{\"meta\":{\"startTime\":1},\"threads\":[]} x"[..]),
            Err(FirefoxProfileError::Json { .. })
        ));
    }

    fn tiny_profile(threads: usize, string: &str) -> String {
        let thread = format!(
            r#"{{"name":"t","samples":{{"stack":[0,0],"time":[1,2]}},"stackTable":{{"frame":[0],"prefix":[null]}},"frameTable":{{"func":[0]}},"funcTable":{{"name":[0]}},"stringArray":[{}]}}"#,
            serde_json::to_string(string).expect("string")
        );
        let threads = vec![thread; threads].join(",");
        format!(r#"{{"meta":{{"startTime":0}},"threads":[{threads}]}}"#)
    }

    #[test]
    fn string_limit_edge() {
        let at = "s".repeat(MAX_STRING_BYTES);
        let profile = parse_firefox_profile(tiny_profile(1, &at).as_bytes()).expect("at the limit");
        assert_eq!(profile.threads[0].name_of(0).len(), MAX_STRING_BYTES);
        let over = "s".repeat(MAX_STRING_BYTES + 1);
        assert!(matches!(
            parse_firefox_profile(tiny_profile(1, &over).as_bytes()),
            Err(FirefoxProfileError::LimitExceeded { what: "bytes in one string", limit })
                if limit == MAX_STRING_BYTES as u64
        ));
    }

    #[test]
    fn thread_limit_edge() {
        let profile = parse_firefox_profile(tiny_profile(MAX_PROFILE_THREADS, "x").as_bytes())
            .expect("at the limit");
        assert_eq!(profile.threads.len(), MAX_PROFILE_THREADS);
        assert!(matches!(
            parse_firefox_profile(tiny_profile(MAX_PROFILE_THREADS + 1, "x").as_bytes()),
            Err(FirefoxProfileError::LimitExceeded {
                what: "threads",
                ..
            })
        ));
    }

    #[test]
    fn table_limit_edge() {
        let column = |n: usize| {
            let mut s = String::with_capacity(2 * n + 2);
            s.push('[');
            for i in 0..n {
                if i > 0 {
                    s.push(',');
                }
                s.push('0');
            }
            s.push(']');
            s
        };
        let profile = |n: usize| {
            format!(
                r#"{{"meta":{{"startTime":0}},"threads":[{{"samples":{{"stack":[],"time":[]}},"stackTable":{{"frame":[],"prefix":[]}},"frameTable":{{"func":{}}},"funcTable":{{"name":[]}},"stringArray":[]}}]}}"#,
                column(n)
            )
        };
        let ok = parse_firefox_profile(profile(MAX_TABLE_LENGTH).as_bytes()).expect("at the limit");
        assert_eq!(ok.threads[0].nodes().len(), 0);
        assert!(matches!(
            parse_firefox_profile(profile(MAX_TABLE_LENGTH + 1).as_bytes()),
            Err(FirefoxProfileError::LimitExceeded {
                what: "entries in one table column",
                ..
            })
        ));
    }

    #[test]
    fn node_and_byte_limit_edges() {
        let json = tiny_profile(3, "x");
        let limits = |nodes, bytes| Limits {
            nodes,
            bytes,
            ..LIMITS
        };
        let at =
            parse_with_limits(json.as_bytes(), limits(3, json.len() as u64)).expect("at limits");
        assert_eq!(at.node_count(), 3);
        assert!(matches!(
            parse_with_limits(json.as_bytes(), limits(2, json.len() as u64)),
            Err(FirefoxProfileError::LimitExceeded {
                what: "trace nodes",
                limit: 2
            })
        ));
        assert!(matches!(
            parse_with_limits(json.as_bytes(), limits(3, json.len() as u64 - 1)),
            Err(FirefoxProfileError::TooLarge { .. })
        ));
        // the defaults come back after a limited parse
        assert_eq!(ACTIVE_LIMITS.with(Cell::get).nodes, MAX_PROFILE_NODES);
    }

    #[derive(Default)]
    struct Samples {
        stack: Vec<u32>,
        time: Vec<String>,
        weight: Vec<String>,
    }

    impl Samples {
        /// A pair of samples the way Lean writes one busy (or idle) time slice, in ms.
        fn pair(&mut self, stack: u32, a: f64, b: f64, busy: bool) {
            self.stack.extend([stack, stack]);
            self.time.extend([format!("{a}"), format!("{b}")]);
            let w = if busy { b - a } else { 0.0 };
            self.weight.extend(["0".to_string(), format!("{w}")]);
        }
    }

    #[test]
    fn large_generated_profile() {
        // 200 000 nodes on one thread: 20 000 top-level nodes with nine children each, separated
        // by idle slices, written the way Lean writes samples
        let mut s = Samples::default();
        let mut t = 1.0f64;
        for _ in 0..20_000 {
            for _ in 0..9 {
                s.pair(0, t, t + 0.25, true);
                s.pair(1, t + 0.25, t + 1.0, true);
                t += 1.0;
            }
            s.pair(0, t, t + 0.5, true);
            s.pair(0, t + 0.5, t + 0.75, false);
            t += 0.75;
        }
        let json = format!(
            r#"{{"meta":{{"startTime":0}},"threads":[{{"name":"main","isMainThread":true,"samples":{{"stack":{},"time":[{}],"weight":[{}]}},"stackTable":{{"frame":[0,1],"prefix":[null,0]}},"frameTable":{{"func":[0,1]}},"funcTable":{{"name":[0,1]}},"stringArray":["Elab.command","Elab.step"]}}]}}"#,
            serde_json::to_string(&s.stack).expect("json"),
            s.time.join(","),
            s.weight.join(",")
        );
        let profile = parse_firefox_profile(json.as_bytes()).expect("parses");
        let thread = &profile.threads[0];
        assert_eq!(thread.nodes().len(), 200_000);
        assert_eq!(thread.roots().count(), 20_000);
        let first = thread.nodes()[0];
        assert_eq!((first.start_ns, first.end_ns), (1_000_000, 10_500_000));
        let leaf = thread.nodes()[1];
        assert_eq!((leaf.start_ns, leaf.end_ns), (1_250_000, 2_000_000));
        let second = thread.roots().nth(1).expect("second root");
        assert_eq!(thread.nodes()[second].start_ns, 10_750_000);
        assert!(thread.roots().all(|r| thread.children(r).count() == 9));
    }
}
