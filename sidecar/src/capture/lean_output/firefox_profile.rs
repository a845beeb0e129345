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
//! The file is read into memory (bounded by [`MAX_PROFILE_BYTES`]) and read by its schema with
//! the streaming JSON layer ([`crate::json_stream`]): only the columns the rebuild needs are converted
//! (`meta.startTime/product/categories`; per thread `name`, `isMainThread`,
//! `samples.stack/time/weight`, `stackTable.frame/prefix/category`, `frameTable.func`,
//! `funcTable.name`, `stringArray`), everything else is skipped with its syntax checked. Keys may
//! come in any order (Lean's key order changed between versions). Times are converted from
//! their decimal text to nanoseconds exactly, without floating point. Each thread is turned
//! into its tree as soon as it has been read and its raw tables are dropped. Input size, table
//! lengths, string sizes, thread and node counts are bounded by the constants below.

use std::cell::Cell;
use std::io::Read;

use super::decimal::decimal_to_ns;
use crate::json_stream::{JsonCursor, JsonError, Number, Scalar};

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
    pub fn node_count(&self) -> usize {
        self.threads.iter().map(|t| t.nodes.len()).sum()
    }

    /// Bytes of all node names over all threads.
    pub fn name_bytes(&self) -> usize {
        self.threads.iter().map(|t| t.names.text.len()).sum()
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
const NO_PARENT: u32 = u32::MAX;

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

/// The name of the constant behind a [`FirefoxProfileError::LimitExceeded`]'s `what`.
pub fn limit_constant(what: &str) -> &'static str {
    match what {
        "threads" => "MAX_PROFILE_THREADS",
        "entries in one table column" => "MAX_TABLE_LENGTH",
        "bytes in one string" => "MAX_STRING_BYTES",
        "trace nodes" => "MAX_PROFILE_NODES",
        _ => "a Firefox profile limit",
    }
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
    /// Limits of the parse running on this thread (the defaults when none is running).
    static ACTIVE_LIMITS: Cell<Limits> = const { Cell::new(LIMITS) };
}

/// Puts a parse's limits in force for as long as it lives; the defaults come back on drop.
struct ActiveLimits;

impl ActiveLimits {
    fn set(limits: Limits) -> Self {
        ACTIVE_LIMITS.with(|l| l.set(limits));
        ActiveLimits
    }
}

impl Drop for ActiveLimits {
    fn drop(&mut self) {
        ACTIVE_LIMITS.with(|l| l.set(LIMITS));
    }
}

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
    if size > LIMITS.bytes {
        return Err(FirefoxProfileError::TooLarge {
            limit: LIMITS.bytes,
        });
    }
    Ok(())
}

/// What a number in a profile's time columns counts. Lean writes milliseconds
/// (`Lean.Firefox.Milliseconds`: seconds × 1000); with `trace.profiler.useHeartbeats=true` the
/// "seconds" it multiplies are heartbeats, so each value is heartbeats × 1000.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProfileUnit {
    /// Milliseconds, read as nanoseconds.
    Nanoseconds,
    /// Heartbeats × 1000, read as heartbeats.
    Heartbeats,
}

impl ProfileUnit {
    /// The power of ten that turns a value as written into this unit.
    fn pow10(self) -> i32 {
        match self {
            ProfileUnit::Nanoseconds => 6,
            ProfileUnit::Heartbeats => -3,
        }
    }
}

/// Which profiles the reader takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// As Lean's `Profile.export` writes them: each thread holds its tables, every sample has a
    /// stack and a `time`, `meta.startTime` is given; other fields of other producers are skipped.
    Lean,
    /// Any processed profile: tables may be `shared`, times may be `timeDeltas`, samples may have
    /// no stack, and the fields other producers use are read too.
    Any,
}

/// The columns of a processed profile of any producer, as [`read_profile_columns`] reads them.
#[derive(Debug, Default)]
pub struct ProfileColumns {
    pub meta: ProfileMeta,
    /// `shared`: the tables of every thread that has none of its own (newer layouts).
    pub shared: TableColumns,
}

/// Reads any processed Firefox profile's columns (for `leanscope import`), handing each thread
/// to `each` as soon as it has been read (with its index); returns `meta` and `shared`, which
/// may come after the threads. Times are nanoseconds. `max_string` and `max_table` bound a
/// string's bytes and a column's entries (the other limits are this module's).
pub fn read_profile_columns<R: Read>(
    reader: R,
    max_string: usize,
    max_table: usize,
    each: &mut dyn FnMut(usize, ThreadColumns) -> Result<(), FirefoxProfileError>,
) -> Result<ProfileColumns, FirefoxProfileError> {
    let limits = Limits {
        string: max_string,
        table: max_table,
        ..LIMITS
    };
    let _active = ActiveLimits::set(limits);
    let mut reader = ProfileReader::new(reader, limits, Layout::Any, ProfileUnit::Nanoseconds);
    let mut threads = Threads::Each(each);
    let result = reader.profile(&mut threads);
    let (meta, shared) = reader.finish(result)?;
    Ok(ProfileColumns { meta, shared })
}

fn parse_with_limits<R: Read>(
    reader: R,
    limits: Limits,
    unit: ProfileUnit,
) -> Result<FirefoxProfile, FirefoxProfileError> {
    let _active = ActiveLimits::set(limits);
    let mut reader = ProfileReader::new(reader, limits, Layout::Lean, unit);
    let mut threads = Threads::Rebuilt {
        threads: Vec::new(),
        nodes_left: limits.nodes,
    };
    let result = reader.profile(&mut threads);
    let (meta, _) = reader.finish(result)?;
    let Threads::Rebuilt { threads, .. } = threads else {
        unreachable!("built as Rebuilt above")
    };
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

struct LimitedReader<R> {
    inner: R,
    remaining: u64,
    over: bool,
}

impl<R: Read> Read for LimitedReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        // allow one byte past the limit to tell "exactly at the limit" from "over it"
        let cap = usize::try_from(self.remaining.saturating_add(1)).unwrap_or(usize::MAX);
        let want = buf.len().min(cap);
        let n = self.inner.read(&mut buf[..want])?;
        if n as u64 > self.remaining {
            self.over = true;
            return Err(std::io::Error::other("profile larger than the limit"));
        }
        self.remaining -= n as u64;
        Ok(n)
    }
}

// ------------------------------------------------------------------------------ reading

/// Why reading stopped.
enum Fail {
    Json(Box<JsonError>),
    Limit { what: &'static str, limit: usize },
    Profile(FirefoxProfileError),
}

impl From<Box<JsonError>> for Fail {
    fn from(e: Box<JsonError>) -> Self {
        Fail::Json(e)
    }
}

type Parse<T> = Result<T, Fail>;

/// The strings of one thread (`stringArray`), in one buffer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StringTable {
    text: String,
    /// End offset in `text` of each string; a string starts where the previous one ends.
    ends: Vec<usize>,
}

impl StringTable {
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    pub fn get(&self, index: usize) -> Option<&str> {
        let end = *self.ends.get(index)?;
        let start = match index {
            0 => 0,
            _ => self.ends[index - 1],
        };
        self.text.get(start..end)
    }
}

/// A time column (`samples.time` or `samples.timeDeltas`) in the reader's unit. A value that is
/// not one (negative, too large) is kept as `u64::MAX` with its text in `bad`, so that it is
/// reported only if a reader of the column reaches it.
#[derive(Debug, Default)]
pub struct Times {
    ns: Vec<u64>,
    bad: Vec<(usize, String)>,
}

impl Times {
    pub fn len(&self) -> usize {
        self.ns.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ns.is_empty()
    }

    /// The `k`th value, or its text when it is not a time.
    pub fn get(&self, k: usize) -> Result<u64, &str> {
        let ns = self.ns[k];
        if ns == u64::MAX {
            if let Ok(i) = self.bad.binary_search_by_key(&k, |&(j, _)| j) {
                return Err(&self.bad[i].1);
            }
        }
        Ok(ns)
    }
}

/// A number as written and, when it is a time, in the reader's unit.
pub type TimeValue = (String, Option<u64>);

/// The parts of `meta` the readers need.
#[derive(Debug, Default)]
pub struct ProfileMeta {
    /// `startTime`.
    pub start_time: Option<TimeValue>,
    /// `interval`: the sampling interval.
    pub interval: Option<TimeValue>,
    /// `product` (`"lean"` for Lean's profiles).
    pub product: Option<String>,
    /// `preprocessedProfileVersion`: only processed profiles have it.
    pub processed_version: Option<u64>,
    /// `categories[].name`.
    pub categories: Vec<String>,
}

/// [`SampleColumns::stack`] of a sample without a stack (`null`): never a stack index, as
/// tables are shorter than [`MAX_TABLE_LENGTH`].
pub const NO_STACK: u32 = u32::MAX;

/// The columns of one thread.
#[derive(Debug, Default)]
pub struct ThreadColumns {
    pub name: Option<String>,
    pub process_name: Option<String>,
    pub is_main_thread: bool,
    pub samples: SampleColumns,
    pub tables: TableColumns,
}

/// `samples`.
#[derive(Debug, Default)]
pub struct SampleColumns {
    /// Stack of each sample, [`NO_STACK`] for none.
    pub stack: Vec<u32>,
    pub time: Option<Times>,
    pub time_deltas: Option<Times>,
    /// Whether each `weight` is zero (`null` is not).
    pub weight_zero: Option<Vec<bool>>,
    pub weight_type: Option<String>,
}

/// The tables a thread's samples refer to (in the thread, or `shared`).
#[derive(Debug, Default)]
pub struct TableColumns {
    pub stack_table: Option<StackColumns>,
    pub frame_table: Option<FrameColumns>,
    /// `funcTable.name`
    pub func_name: Option<Vec<u32>>,
    pub strings: Option<StringTable>,
}

/// `stackTable`.
#[derive(Debug, Default)]
pub struct StackColumns {
    pub frame: Vec<u32>,
    pub prefix: Option<Vec<Option<u32>>>,
    pub category: Option<Vec<Option<u32>>>,
    /// Stacks are stored as `prefixOffset` (a newer layout, not read).
    pub prefix_offset: bool,
}

/// `frameTable`.
#[derive(Debug, Default)]
pub struct FrameColumns {
    pub func: Vec<u32>,
    pub category: Option<Vec<Option<u32>>>,
}

/// What becomes of each thread once it has been read.
enum Threads<'a> {
    /// Rebuilt into its trace nodes at once (Lean's layout).
    Rebuilt {
        threads: Vec<ProfileThread>,
        nodes_left: usize,
    },
    /// Handed over whole.
    Each(&'a mut dyn FnMut(usize, ThreadColumns) -> Result<(), FirefoxProfileError>),
}

/// The column buffers of the thread rebuilt last, emptied, for the next thread's columns:
/// reusing them saves allocating (and the kernel zeroing, page by page) fresh memory for
/// every thread of a large profile.
#[derive(Default)]
struct SpareColumns {
    stack: Vec<u32>,
    time: Vec<u64>,
    weight_zero: Vec<bool>,
    frame: Vec<u32>,
    prefix: Vec<Option<u32>>,
    category: Vec<Option<u32>>,
    frame_func: Vec<u32>,
    func_name: Vec<u32>,
}

impl SpareColumns {
    /// Keeps the buffers of a thread's columns (their contents are dropped when they are
    /// filled again).
    fn recycle(samples: SampleColumns, tables: TableColumns) -> Self {
        let stack_table = tables.stack_table.unwrap_or_default();
        SpareColumns {
            stack: samples.stack,
            time: samples.time.map(|t| t.ns).unwrap_or_default(),
            weight_zero: samples.weight_zero.unwrap_or_default(),
            frame: stack_table.frame,
            prefix: stack_table.prefix.unwrap_or_default(),
            category: stack_table.category.unwrap_or_default(),
            frame_func: tables.frame_table.map(|f| f.func).unwrap_or_default(),
            func_name: tables.func_name.unwrap_or_default(),
        }
    }
}

/// A time as written (milliseconds, or heartbeats × 1000) to `10^pow10` of it, exactly;
/// `None` if it is not a time.
fn ms_to_unit(n: Number<'_>, pow10: i32) -> Option<u64> {
    let ns = match n.digits {
        // the usual spelling (`259231447.812903`) in nanoseconds: the digits are the value in
        // units of 10^-fraction_digits ms
        Some(digits) if pow10 == 6 && !n.exponent && n.fraction_digits <= 6 => {
            digits.checked_mul(10u64.pow(6 - n.fraction_digits as u32))?
        }
        _ => decimal_to_ns(n.unsigned_text(), pow10)?,
    };
    // "-0" (and a negative value that rounds to 0) is the time 0
    (!n.negative || ns == 0).then_some(ns)
}

/// Reads the profile's JSON by its schema: only what the rebuild needs is converted, every
/// other value is skipped (its syntax still checked). Keys may come in any order; unknown keys
/// are ignored; a field given twice is an error.
struct ProfileReader<R> {
    json: JsonCursor<LimitedReader<R>>,
    limits: Limits,
    layout: Layout,
    /// [`ProfileUnit::pow10`] of the times.
    pow10: i32,
    /// Length of the last column read in the current table: the columns of one table have
    /// the same length, so the next one is allocated at that size (0 at a table's start).
    length_hint: usize,
    spare: SpareColumns,
}

/// Fails if a field was already read (reported just after its key).
fn first_time<T, R: Read>(slot: &Option<T>, field: &str, json: &JsonCursor<R>) -> Parse<()> {
    match slot {
        Some(_) => Err(Fail::Json(
            json.error_here(format!("duplicate field `{field}`")),
        )),
        None => Ok(()),
    }
}

/// The value of a required field (reported just after the object).
fn required<T, R: Read>(slot: Option<T>, field: &str, json: &JsonCursor<R>) -> Parse<T> {
    match slot {
        Some(v) => Ok(v),
        None => Err(Fail::Json(
            json.error_here(format!("missing field `{field}`")),
        )),
    }
}

impl<R: Read> ProfileReader<R> {
    fn new(reader: R, limits: Limits, layout: Layout, unit: ProfileUnit) -> Self {
        // Streamed through one buffer; the limit applies to what is read.
        ProfileReader {
            json: JsonCursor::new(LimitedReader {
                inner: reader,
                remaining: limits.bytes,
                over: false,
            })
            .with_max_string(limits.string),
            limits,
            layout,
            pow10: unit.pow10(),
            length_hint: 0,
            spare: SpareColumns::default(),
        }
    }

    /// The outcome of [`ProfileReader::profile`] as the reader's error.
    fn finish<T>(&self, result: Parse<T>) -> Result<T, FirefoxProfileError> {
        let limit_bytes = self.limits.bytes;
        result.map_err(|fail| match fail {
            Fail::Json(e) => match *e {
                JsonError::Syntax(e) => FirefoxProfileError::Json {
                    line: e.line,
                    column: e.column,
                    reason: e.reason.into_owned(),
                },
                JsonError::TooLong { max, .. } => FirefoxProfileError::LimitExceeded {
                    what: "bytes in one string",
                    limit: max as u64,
                },
                // (the reader takes no value whole)
                JsonError::ValueTooLarge { max, .. } => FirefoxProfileError::LimitExceeded {
                    what: "bytes in one value",
                    limit: max as u64,
                },
                JsonError::Io(_) if self.json.reader().over => {
                    FirefoxProfileError::TooLarge { limit: limit_bytes }
                }
                JsonError::Io(e) => FirefoxProfileError::Io(e),
            },
            Fail::Limit { what, limit } => FirefoxProfileError::LimitExceeded {
                what,
                limit: limit as u64,
            },
            Fail::Profile(e) => e,
        })
    }

    fn profile(&mut self, threads: &mut Threads<'_>) -> Parse<(ProfileMeta, TableColumns)> {
        self.json.begin_object()?;
        let mut meta = None;
        let mut shared = None;
        let mut saw_threads = false;
        let mut first = true;
        while let Some(key) = self.json.next_key(&mut first)? {
            self.check_string(&key)?;
            match key.as_str() {
                "meta" => meta = Some(self.meta()?),
                "threads" => {
                    saw_threads = true;
                    self.threads(threads)?;
                }
                "shared" if self.layout == Layout::Any => {
                    first_time(&shared, "shared", &self.json)?;
                    shared = Some(self.shared()?);
                }
                _ => self.json.skip_value()?,
            }
        }
        if !saw_threads {
            return Err(Fail::Profile(FirefoxProfileError::Missing("threads")));
        }
        self.json.end()?;
        let meta = meta.ok_or(Fail::Profile(FirefoxProfileError::Missing("meta")))?;
        Ok((meta, shared.unwrap_or_default()))
    }

    fn check_string(&self, s: &str) -> Parse<()> {
        if s.len() > self.limits.string {
            return Err(Fail::Limit {
                what: "bytes in one string",
                limit: self.limits.string,
            });
        }
        Ok(())
    }

    fn bounded_string(&mut self) -> Parse<String> {
        let s = self.json.string()?;
        self.check_string(&s)?;
        Ok(s)
    }

    /// A string or `null`.
    fn optional_string(&mut self) -> Parse<Option<String>> {
        if self.json.null()? {
            return Ok(None);
        }
        self.bounded_string().map(Some)
    }

    /// A time as written and in the reader's unit.
    fn time_value(&mut self) -> Parse<TimeValue> {
        let pow10 = self.pow10;
        let n = self.json.number()?;
        Ok((n.text().to_string(), ms_to_unit(n, pow10)))
    }

    fn meta(&mut self) -> Parse<ProfileMeta> {
        self.json.begin_object()?;
        let (mut start_time, mut product, mut categories) = (None, None, None);
        let (mut interval, mut version) = (None, None);
        let mut first = true;
        while let Some(key) = self.json.next_key(&mut first)? {
            match key.as_str() {
                "startTime" => {
                    first_time(&start_time, "startTime", &self.json)?;
                    start_time = Some(self.time_value()?);
                }
                "product" => {
                    first_time(&product, "product", &self.json)?;
                    product = Some(self.optional_string()?);
                }
                "categories" => {
                    first_time(&categories, "categories", &self.json)?;
                    categories = Some(self.categories()?);
                }
                "interval" if self.layout == Layout::Any => {
                    first_time(&interval, "interval", &self.json)?;
                    interval = Some(self.time_value()?);
                }
                "preprocessedProfileVersion" if self.layout == Layout::Any => {
                    first_time(&version, "preprocessedProfileVersion", &self.json)?;
                    version = Some(self.json.u32()?);
                }
                _ => self.json.skip_value()?,
            }
        }
        let end = &self.json;
        Ok(ProfileMeta {
            start_time: match self.layout {
                Layout::Lean => Some(required(start_time, "startTime", end)?),
                Layout::Any => start_time,
            },
            interval,
            product: product.flatten(),
            processed_version: version.map(u64::from),
            categories: categories.unwrap_or_default(),
        })
    }

    /// Reads an array within the table length limit: runs of compact scalars that `fast`
    /// converts in one tight loop, anything else (and what `fast` declines, errors included)
    /// one element at a time by `element`, which gets the element's index. The column is read
    /// into `out` (emptied first), a spare buffer or a new one.
    fn column<T>(
        &mut self,
        mut out: Vec<T>,
        mut fast: impl FnMut(Scalar<'_>) -> Option<T>,
        mut element: impl FnMut(&mut Self, usize) -> Parse<T>,
    ) -> Parse<Vec<T>> {
        self.json.begin_array()?;
        let limit = self.limits.table;
        out.clear();
        out.reserve(self.length_hint.min(limit));
        let mut first = true;
        loop {
            let closed = self.json.compact_scalars(&mut first, |scalar| {
                if out.len() >= limit {
                    return false;
                }
                match fast(scalar) {
                    Some(v) => {
                        out.push(v);
                        true
                    }
                    None => false,
                }
            });
            if closed || !self.json.next_element(&mut first)? {
                break;
            }
            if out.len() >= limit {
                return Err(self.table_limit());
            }
            let index = out.len();
            out.push(element(self, index)?);
        }
        self.length_hint = out.len();
        Ok(out)
    }

    fn table_limit(&self) -> Fail {
        Fail::Limit {
            what: "entries in one table column",
            limit: self.limits.table,
        }
    }

    fn categories(&mut self) -> Parse<Vec<String>> {
        self.length_hint = 0;
        self.column(
            Vec::new(),
            |_| None,
            |r, _| {
                r.json.begin_object()?;
                let mut name = None;
                let mut first = true;
                while let Some(key) = r.json.next_key(&mut first)? {
                    if key == "name" {
                        first_time(&name, "name", &r.json)?;
                        name = Some(r.bounded_string()?);
                    } else {
                        r.json.skip_value()?;
                    }
                }
                required(name, "name", &r.json)
            },
        )
    }

    fn u32_column(&mut self, out: Vec<u32>) -> Parse<Vec<u32>> {
        self.column(out, fast_u32, |r, _| Ok(r.json.u32()?))
    }

    fn optional_u32_column(&mut self, out: Vec<Option<u32>>) -> Parse<Vec<Option<u32>>> {
        self.column(
            out,
            |scalar| match scalar {
                Scalar::Null => Some(None),
                other => fast_u32(other).map(Some),
            },
            |r, _| {
                Ok(if r.json.null()? {
                    None
                } else {
                    Some(r.json.u32()?)
                })
            },
        )
    }

    /// `samples.stack`: in Lean's layout every sample has one; otherwise `null` is
    /// [`NO_STACK`].
    fn stack_column(&mut self, out: Vec<u32>) -> Parse<Vec<u32>> {
        if self.layout == Layout::Lean {
            return self.u32_column(out);
        }
        self.column(
            out,
            |scalar| match scalar {
                Scalar::Null => Some(NO_STACK),
                other => fast_u32(other).filter(|&s| s != NO_STACK),
            },
            |r, _| {
                if r.json.null()? {
                    return Ok(NO_STACK);
                }
                match r.json.u32()? {
                    NO_STACK => Err(Fail::Json(
                        r.json
                            .error_here("invalid value: a stack index out of range"),
                    )),
                    s => Ok(s),
                }
            },
        )
    }

    fn threads(&mut self, threads: &mut Threads<'_>) -> Parse<()> {
        self.json.begin_array()?;
        let mut first = true;
        let mut index = 0;
        while self.json.next_element(&mut first)? {
            let mut raw = self.thread()?;
            if index >= self.limits.threads {
                return Err(Fail::Limit {
                    what: "threads",
                    limit: self.limits.threads,
                });
            }
            match threads {
                Threads::Rebuilt {
                    threads,
                    nodes_left,
                } => {
                    let nodes = thread_nodes(&raw, index, nodes_left).map_err(Fail::Profile)?;
                    threads.push(ProfileThread {
                        name: raw.name.take().unwrap_or_default(),
                        is_main_thread: raw.is_main_thread,
                        names: raw.tables.strings.take().unwrap_or_default(),
                        nodes,
                    });
                    self.spare = SpareColumns::recycle(raw.samples, raw.tables);
                }
                Threads::Each(each) => each(index, raw).map_err(Fail::Profile)?,
            }
            index += 1;
        }
        Ok(())
    }

    fn thread(&mut self) -> Parse<ThreadColumns> {
        self.json.begin_object()?;
        let (mut name, mut is_main_thread, mut samples) = (None, None, None);
        let mut process_name = None;
        let mut tables = TableColumns::default();
        let mut first = true;
        while let Some(key) = self.json.next_key(&mut first)? {
            match key.as_str() {
                "name" => {
                    first_time(&name, "name", &self.json)?;
                    name = Some(match self.layout {
                        Layout::Lean => Some(self.bounded_string()?),
                        Layout::Any => self.optional_string()?,
                    });
                }
                "processName" if self.layout == Layout::Any => {
                    first_time(&process_name, "processName", &self.json)?;
                    process_name = Some(self.optional_string()?);
                }
                "isMainThread" => {
                    first_time(&is_main_thread, "isMainThread", &self.json)?;
                    is_main_thread = Some(self.json.boolean()?);
                }
                "samples" => {
                    first_time(&samples, "samples", &self.json)?;
                    samples = Some(self.samples()?);
                }
                _ => {
                    if !self.table(&key, &mut tables)? {
                        self.json.skip_value()?;
                    }
                }
            }
        }
        let end = &self.json;
        if self.layout == Layout::Lean {
            required(tables.stack_table.as_ref(), "stackTable", end)?;
            required(tables.frame_table.as_ref(), "frameTable", end)?;
            required(tables.func_name.as_ref(), "funcTable", end)?;
            required(tables.strings.as_ref(), "stringArray", end)?;
        }
        Ok(ThreadColumns {
            name: name.flatten(),
            process_name: process_name.flatten(),
            is_main_thread: is_main_thread.unwrap_or(false),
            samples: required(samples, "samples", end)?,
            tables,
        })
    }

    /// `shared`: the tables threads without their own use.
    fn shared(&mut self) -> Parse<TableColumns> {
        self.json.begin_object()?;
        let mut tables = TableColumns::default();
        let mut first = true;
        while let Some(key) = self.json.next_key(&mut first)? {
            if !self.table(&key, &mut tables)? {
                self.json.skip_value()?;
            }
        }
        Ok(tables)
    }

    /// Reads the value of `key` into `tables` if it is one of the tables; returns whether it
    /// was.
    fn table(&mut self, key: &str, tables: &mut TableColumns) -> Parse<bool> {
        match key {
            "stackTable" => {
                first_time(&tables.stack_table, "stackTable", &self.json)?;
                tables.stack_table = Some(self.stack_table()?);
            }
            "frameTable" => {
                first_time(&tables.frame_table, "frameTable", &self.json)?;
                tables.frame_table = Some(self.frame_table()?);
            }
            "funcTable" => {
                first_time(&tables.func_name, "funcTable", &self.json)?;
                let out = std::mem::take(&mut self.spare.func_name);
                tables.func_name = Some(self.one_column("name", out)?);
            }
            "stringArray" => {
                first_time(&tables.strings, "stringArray", &self.json)?;
                // one string per function, as Lean writes them
                let count = tables.func_name.as_ref().map_or(0, Vec::len);
                tables.strings = Some(self.string_array(count)?);
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    fn samples(&mut self) -> Parse<SampleColumns> {
        self.json.begin_object()?;
        self.length_hint = 0;
        let (mut stack, mut time, mut weight) = (None, None, None);
        let (mut deltas, mut weight_type) = (None, None);
        let any = self.layout == Layout::Any;
        let mut first = true;
        while let Some(key) = self.json.next_key(&mut first)? {
            match key.as_str() {
                "stack" => {
                    first_time(&stack, "stack", &self.json)?;
                    let out = std::mem::take(&mut self.spare.stack);
                    stack = Some(self.stack_column(out)?);
                }
                "time" => {
                    first_time(&time, "time", &self.json)?;
                    time = Some(self.times()?);
                }
                "timeDeltas" if any => {
                    first_time(&deltas, "timeDeltas", &self.json)?;
                    deltas = Some(self.times()?);
                }
                "weightType" if any => {
                    first_time(&weight_type, "weightType", &self.json)?;
                    weight_type = Some(self.optional_string()?);
                }
                "weight" => {
                    first_time(&weight, "weight", &self.json)?;
                    if any && self.json.null()? {
                        weight = Some(None);
                        continue;
                    }
                    let out = std::mem::take(&mut self.spare.weight_zero);
                    weight = Some(Some(self.column(
                        out,
                        |scalar| match scalar {
                            Scalar::Number(n) => Some(n.is_zero()),
                            Scalar::Null if any => Some(false),
                            _ => None,
                        },
                        |r, _| {
                            if any && r.json.null()? {
                                return Ok(false);
                            }
                            Ok(r.json.number()?.is_zero())
                        },
                    )?));
                }
                _ => self.json.skip_value()?,
            }
        }
        let end = &self.json;
        Ok(SampleColumns {
            stack: required(stack, "stack", end)?,
            time: match self.layout {
                Layout::Lean => Some(required(time, "time", end)?),
                Layout::Any => time,
            },
            time_deltas: deltas,
            weight_zero: weight.flatten(),
            weight_type: weight_type.flatten(),
        })
    }

    fn times(&mut self) -> Parse<Times> {
        let mut bad = Vec::new();
        let out = std::mem::take(&mut self.spare.time);
        let pow10 = self.pow10;
        let ns = self.column(
            out,
            |scalar| match scalar {
                // a time that is not one goes the general way, to be kept in `bad`
                Scalar::Number(n) => ms_to_unit(n, pow10),
                _ => None,
            },
            |r, k| {
                let n = r.json.number()?;
                let ns = ms_to_unit(n, pow10).unwrap_or_else(|| {
                    bad.push((k, n.text().to_string()));
                    u64::MAX
                });
                Ok(ns)
            },
        )?;
        Ok(Times { ns, bad })
    }

    fn stack_table(&mut self) -> Parse<StackColumns> {
        self.json.begin_object()?;
        self.length_hint = 0;
        let (mut frame, mut prefix, mut category) = (None, None, None);
        let mut prefix_offset = false;
        let mut first = true;
        while let Some(key) = self.json.next_key(&mut first)? {
            match key.as_str() {
                "frame" => {
                    first_time(&frame, "frame", &self.json)?;
                    let out = std::mem::take(&mut self.spare.frame);
                    frame = Some(self.u32_column(out)?);
                }
                "prefix" => {
                    first_time(&prefix, "prefix", &self.json)?;
                    let out = std::mem::take(&mut self.spare.prefix);
                    prefix = Some(self.optional_u32_column(out)?);
                }
                "category" => {
                    first_time(&category, "category", &self.json)?;
                    let out = std::mem::take(&mut self.spare.category);
                    category = Some(self.optional_u32_column(out)?);
                }
                "prefixOffset" => {
                    prefix_offset = true;
                    self.json.skip_value()?;
                }
                _ => self.json.skip_value()?,
            }
        }
        let end = &self.json;
        Ok(StackColumns {
            frame: required(frame, "frame", end)?,
            prefix: match self.layout {
                Layout::Lean => Some(required(prefix, "prefix", end)?),
                Layout::Any => prefix,
            },
            category,
            prefix_offset,
        })
    }

    fn frame_table(&mut self) -> Parse<FrameColumns> {
        self.json.begin_object()?;
        self.length_hint = 0;
        let (mut func, mut category) = (None, None);
        let mut first = true;
        while let Some(key) = self.json.next_key(&mut first)? {
            match key.as_str() {
                "func" => {
                    first_time(&func, "func", &self.json)?;
                    let out = std::mem::take(&mut self.spare.frame_func);
                    func = Some(self.u32_column(out)?);
                }
                // Lean's frames have their stack's category; other producers' frames carry it
                "category" if self.layout == Layout::Any => {
                    first_time(&category, "category", &self.json)?;
                    category = Some(self.optional_u32_column(Vec::new())?);
                }
                _ => self.json.skip_value()?,
            }
        }
        Ok(FrameColumns {
            func: required(func, "func", &self.json)?,
            category,
        })
    }

    /// An object of which one `u32` column is needed (`funcTable.name`).
    fn one_column(&mut self, field: &'static str, mut out: Vec<u32>) -> Parse<Vec<u32>> {
        self.json.begin_object()?;
        self.length_hint = 0;
        let mut column = None;
        let mut first = true;
        while let Some(key) = self.json.next_key(&mut first)? {
            if key == field {
                first_time(&column, field, &self.json)?;
                column = Some(self.u32_column(std::mem::take(&mut out))?);
            } else {
                self.json.skip_value()?;
            }
        }
        required(column, field, &self.json)
    }

    /// `stringArray`, expected to hold about `count` strings (a hint, within the table limit).
    fn string_array(&mut self, count: usize) -> Parse<StringTable> {
        self.json.begin_array()?;
        let mut table = StringTable::default();
        table.ends.reserve(count.min(self.limits.table));
        let mut first = true;
        while self.json.next_element(&mut first)? {
            if table.ends.len() >= self.limits.table {
                return Err(self.table_limit());
            }
            let len = self.json.string_into(&mut table.text)?;
            if len > self.limits.string {
                return Err(Fail::Limit {
                    what: "bytes in one string",
                    limit: self.limits.string,
                });
            }
            table.ends.push(table.text.len());
        }
        Ok(table)
    }
}

/// A compact array element that is a `u32` as [`JsonCursor::u32`] reads it; `None` for
/// anything else, which the general path reads (and reports).
#[inline]
fn fast_u32(scalar: Scalar<'_>) -> Option<u32> {
    match scalar {
        Scalar::Number(n) if n.is_integer() => match n.digits? {
            0 => Some(0),
            v if !n.negative => u32::try_from(v).ok(),
            _ => None,
        },
        _ => None,
    }
}

// ------------------------------------------------------------------------------ rebuilding

/// The trace nodes of a thread, rebuilt from its columns.
fn thread_nodes(
    raw: &ThreadColumns,
    index: usize,
    nodes_left: &mut usize,
) -> Result<Vec<ProfileNode>, FirefoxProfileError> {
    let invalid = |reason: String| FirefoxProfileError::Invalid {
        thread: index,
        reason,
    };
    let missing = |what: &str| invalid(format!("no `{what}`"));
    let samples = &raw.samples;
    let times = samples
        .time
        .as_ref()
        .ok_or_else(|| missing("samples.time"))?;
    let tables = &raw.tables;
    let stacks = tables
        .stack_table
        .as_ref()
        .ok_or_else(|| missing("stackTable"))?;
    let prefixes = stacks
        .prefix
        .as_ref()
        .ok_or_else(|| missing("stackTable.prefix"))?;
    let frame_func = &tables
        .frame_table
        .as_ref()
        .ok_or_else(|| missing("frameTable"))?
        .func;
    let func_name = tables
        .func_name
        .as_ref()
        .ok_or_else(|| missing("funcTable"))?;
    let strings = tables
        .strings
        .as_ref()
        .ok_or_else(|| missing("stringArray"))?;
    let n = samples.stack.len();
    if times.len() != n {
        return Err(invalid(format!(
            "samples.stack has {n} entries but samples.time has {}",
            times.len()
        )));
    }
    if let Some(w) = &samples.weight_zero {
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
    let stack_count = stacks.frame.len();
    if prefixes.len() != stack_count
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
    for (s, &prefix) in prefixes.iter().enumerate() {
        if let Some(p) = prefix {
            if p as usize >= s {
                return Err(invalid(format!(
                    "stack {s} has prefix {p}; Lean only refers to earlier stacks"
                )));
            }
        }
        let frame = stacks.frame[s] as usize;
        let func = *frame_func
            .get(frame)
            .ok_or_else(|| invalid(format!("stack {s} refers to missing frame {frame}")))?;
        let name = *func_name
            .get(func as usize)
            .ok_or_else(|| invalid(format!("frame {frame} refers to missing function {func}")))?;
        if name as usize >= strings.len() {
            return Err(invalid(format!(
                "function {func} refers to missing string {name}"
            )));
        }
        stack_names.push(name);
    }

    // A node starts at a pair of samples, so there are at most `n / 2`: allocated once (within
    // the node limit) rather than grown by copying, and trimmed to size at the end.
    let mut nodes: Vec<ProfileNode> = Vec::with_capacity((n / 2).min(*nodes_left));
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
            times
                .get(k)
                .map_err(|text| invalid(format!("sample {k} has time {text} ms")))
        };
        let (t0, t1) = (time(i)?, time(i + 1)?);
        let idle = samples
            .weight_zero
            .as_ref()
            .is_some_and(|w| w[i] && w[i + 1])
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
        let depth = match prefixes[stack as usize] {
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
            parent: open.last().map_or(NO_PARENT, |&(_, p)| p as u32),
            end: id as u32 + 1,
            depth: depth as u32,
        });
        open.push((stack, id));
    }
    close_to(&mut open, &mut nodes, 0);
    nodes.shrink_to_fit();
    Ok(nodes)
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
        let at = parse_with_limits(
            json.as_bytes(),
            limits(3, json.len() as u64),
            ProfileUnit::Nanoseconds,
        )
        .expect("at limits");
        assert_eq!(at.node_count(), 3);
        assert!(matches!(
            parse_with_limits(
                json.as_bytes(),
                limits(2, json.len() as u64),
                ProfileUnit::Nanoseconds
            ),
            Err(FirefoxProfileError::LimitExceeded {
                what: "trace nodes",
                limit: 2
            })
        ));
        assert!(matches!(
            parse_with_limits(
                json.as_bytes(),
                limits(3, json.len() as u64 - 1),
                ProfileUnit::Nanoseconds
            ),
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

    /// A small valid profile whose thread object is `thread`.
    fn with_thread(thread: &str) -> String {
        format!(r#"{{"meta":{{"startTime":1000}},"threads":[{thread}]}}"#)
    }

    const THREAD: &str = r#"{"name":"m","samples":{"stack":[0,0],"time":[1,2]},"stackTable":{"frame":[0],"prefix":[null]},"frameTable":{"func":[0]},"funcTable":{"name":[0]},"stringArray":["x"]}"#;

    #[test]
    fn any_key_order_whitespace_and_unknown_keys() {
        let json = r#"
        { "threads" : [ {
              "stringArray" : [ "Elab.command: \u0074heorem \ud835\udd3d : True", "b" ] ,
              "unknown" : { "deep" : [ [ 1 , { "x" : [ null , true , "s\"" ] } ] ] , "n" : -1.5e-3 } ,
              "funcTable" : { "name" : [ 0 , 1 ] , "fileName" : [ null , null ] } ,
              "frameTable" : { "func" : [ 0 , 1 ] , "address" : [ -1 , -1 ] } ,
              "stackTable" : { "prefix" : [ null , 0 ] , "frame" : [ 0 , 1 ] , "category" : [ 3 , null ] } ,
              "samples" : { "weight" : [ 0 , 1e+03 , 0 , 2E0 , 0 , 0.5 ] , "time" : [ 1e+03 , 1.5e3 , 1500 , 1750 , 1750 , 2000 ] ,
                            "stack" : [ 0 , 0 , 1 , 1 , 0 , 0 ] , "threadCPUDelta" : [ 0 , 1.5 , 0 , 2 , 0 , 3 ] } ,
              "isMainThread" : true , "name" : "Demo"
            } ] ,
          "libs" : [ ] ,
          "meta" : { "product" : "lean" , "startTime" : 1e+03 , "categories" : [ { "color" : "x" , "name" : "Other" } ] }
        }
        "#;
        let profile = parse_firefox_profile(json.as_bytes()).expect("parses");
        assert_eq!(profile.start_ns, 1_000_000_000);
        assert_eq!(profile.categories, vec!["Other"]);
        let t = &profile.threads[0];
        assert!(t.is_main_thread);
        assert_eq!(t.name, "Demo");
        assert_eq!(t.name_of(0), "Elab.command: theorem 𝔽 : True");
        assert_eq!(t.name_of(1), "b");
        let span = |id: usize| (t.nodes()[id].start_ns, t.nodes()[id].end_ns);
        assert_eq!(span(0), (1_000_000_000, 2_000_000_000));
        assert_eq!(span(1), (1_500_000_000, 1_750_000_000));
        assert_eq!(t.nodes()[0].category, Some(3));
        assert_eq!(t.nodes()[1].category, None);
    }

    #[test]
    fn times_are_exact_decimals() {
        // no binary floating point: 0.1 + 0.2 style values come out exact, and large
        // monotonic clock values keep every digit
        let json = with_thread(
            r#"{"samples":{"stack":[0,0],"time":[0.1,1099511627775.123456]},"stackTable":{"frame":[0],"prefix":[null]},"frameTable":{"func":[0]},"funcTable":{"name":[0]},"stringArray":["x"]}"#,
        );
        let profile = parse_firefox_profile(json.as_bytes()).expect("parses");
        let node = profile.threads[0].nodes()[0];
        assert_eq!(node.start_ns, 100_000);
        assert_eq!(node.end_ns, 1_099_511_627_775_123_456);
        // a time that is not one is reported when the rebuild reaches it
        let json = with_thread(
            r#"{"samples":{"stack":[0,0],"time":[1,-2.5]},"stackTable":{"frame":[0],"prefix":[null]},"frameTable":{"func":[0]},"funcTable":{"name":[0]},"stringArray":["x"]}"#,
        );
        match parse_firefox_profile(json.as_bytes()) {
            Err(FirefoxProfileError::Invalid { thread: 0, reason }) => {
                assert_eq!(reason, "sample 1 has time -2.5 ms")
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn schema_errors_are_json_errors() {
        let cases = [
            // a missing required column, a duplicated one, a wrong type
            with_thread(&THREAD.replace(r#","stringArray":["x"]"#, "")),
            with_thread(&THREAD.replace(r#""name":"m","#, r#""name":"m","name":"n","#)),
            with_thread(&THREAD.replace(r#""stack":[0,0]"#, r#""stack":[0,0.5]"#)),
            with_thread(&THREAD.replace(r#""stack":[0,0]"#, r#""stack":[0,-1]"#)),
            with_thread(&THREAD.replace(r#""stack":[0,0]"#, r#""stack":[0,4294967296]"#)),
            with_thread(&THREAD.replace(r#""time":[1,2]"#, r#""time":[1,null]"#)),
            with_thread(&THREAD.replace(r#""prefix":[null]"#, r#""prefix":null"#)),
            with_thread(&THREAD.replace(r#""name":"m""#, r#""isMainThread":1"#)),
            with_thread(&THREAD.replace(r#""x""#, r#""\ud800""#)),
            with_thread(THREAD).replace("1000", "1000,\"startTime\":2"),
            with_thread(THREAD).replace(r#""startTime":1000"#, r#""product":"lean""#),
        ];
        for json in &cases {
            match parse_firefox_profile(json.as_bytes()) {
                Err(FirefoxProfileError::Json { line: 1, .. }) => {}
                other => panic!("expected a JSON error for {json}: {other:?}"),
            }
        }
        assert!(parse_firefox_profile(with_thread(THREAD).as_bytes()).is_ok());
    }

    #[test]
    fn truncated_profiles_are_errors() {
        let json = with_thread(THREAD);
        for cut in 0..json.len() {
            assert!(
                parse_firefox_profile(&json.as_bytes()[..cut]).is_err(),
                "{}",
                &json[..cut]
            );
        }
        match parse_firefox_profile(&json.as_bytes()[..json.len() - 10]) {
            Err(FirefoxProfileError::Json { reason, .. }) => {
                assert!(reason.contains("EOF"), "{reason}")
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn invalid_utf8_is_a_json_error() {
        let mut json = with_thread(THREAD).into_bytes();
        let at = json.iter().position(|&b| b == b'x').expect("x");
        json[at] = 0xff;
        assert!(matches!(
            parse_firefox_profile(&json[..]),
            Err(FirefoxProfileError::Json { .. })
        ));
    }

    #[test]
    fn a_file_over_the_byte_limit_is_refused_unread() {
        // a sparse file that claims more than MAX_PROFILE_BYTES
        let file = tempfile::tempfile().expect("temp file");
        file.set_len(MAX_PROFILE_BYTES + 1).expect("sparse");
        assert!(matches!(
            parse_firefox_profile_file(file),
            Err(FirefoxProfileError::TooLarge { limit }) if limit == MAX_PROFILE_BYTES
        ));
        // a reader that goes on past the limit is stopped there, without holding the input
        let endless = std::io::repeat(b' ');
        let json = with_thread(THREAD);
        let limits = Limits {
            bytes: 1 << 20,
            ..LIMITS
        };
        assert!(matches!(
            parse_with_limits(json.as_bytes().chain(endless), limits, ProfileUnit::Nanoseconds),
            Err(FirefoxProfileError::TooLarge { limit }) if limit == 1 << 20
        ));
    }
}
