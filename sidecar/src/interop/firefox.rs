//! Firefox Profiler processed profiles, as Lean's `trace.profiler.output`
//! writes them (`src/Lean/Util/Profiler.lean`), and as other tools do.
//!
//! A thread's samples, each a stack (a path in the stack table) at a time,
//! become intervals: a frame is open from the sample where its stack path
//! starts to the sample where it ends, so consecutive samples on the same
//! path make one call, and a change of path (even by a zero-length sample,
//! which is how Lean separates sibling calls) ends the calls that left it.
//!
//! With `weightType: "tracing-ms"` (Lean), samples come in pairs: each pair
//! is a slice `[time₀, time₁]` of its stack; a pair whose second weight is
//! zero although time advanced is a gap between traces (no call is open).
//! Otherwise each sample lasts until the next one (the last one for the
//! profile's sampling interval).
//!
//! Lean names frames `class` or `class: text`; for Lean's profiles the
//! class and the text become the event's class and label. For other
//! producers the frame's category is the class and the function name the
//! label. Times are milliseconds, rounded to whole nanoseconds.
//!
//! The JSON is read by the Firefox-profile reader that the capture uses too
//! ([`crate::firefox_profile`], in its general layout); a profile read in
//! heartbeats goes through Lean's tree building instead
//! ([`crate::capture::lean_output::lean_profile`]).

use std::io::Read;

use super::error::{InteropError, Result};
use super::sink::{InternedEvent, TraceSink};
use crate::capture::lean_output::lean_profile::{parse_firefox_profile_in, LEAN_PROFILE_LIMITS};
use crate::firefox_profile::{
    read_profile_columns, FirefoxProfileError, Layout, ProfileLimits, ProfileUnit, ReadOptions,
    StringTable, TableColumns, ThreadColumns, Times, NO_STACK,
};
use crate::limit;
use crate::limits::{MAX_JSON_STRING_BYTES, MAX_PROFILE_TABLE_ROWS, MAX_STACK_DEPTH};

const FORMAT: &str = "Firefox profile";

/// The limits an imported profile is read with: those of Lean's profiles, except that a string
/// may be as long as in any import.
const IMPORT_LIMITS: ProfileLimits = ProfileLimits {
    string: limit!(MAX_JSON_STRING_BYTES, "a JSON string"),
    ..LEAN_PROFILE_LIMITS
};

fn invalid(at: impl Into<String>, detail: impl Into<String>) -> InteropError {
    InteropError::invalid(FORMAT, at, detail)
}

/// Whether a reason the JSON reader gives is about the document's shape (a wrong type, a
/// missing or repeated field: JSON, but not a profile) rather than its syntax.
fn is_shape_reason(reason: &str) -> bool {
    [
        "invalid type",
        "invalid value",
        "missing field",
        "duplicate field",
    ]
    .iter()
    .any(|p| reason.starts_with(p))
}

/// The reader's error as an import error.
fn from_reader(e: FirefoxProfileError) -> InteropError {
    match e {
        FirefoxProfileError::Json {
            line,
            column,
            reason,
        } => {
            let at = format!("line {line} column {column}");
            if is_shape_reason(&reason) {
                invalid(at, format!("not a processed profile: {reason}"))
            } else {
                InteropError::syntax(FORMAT, at, format!("not JSON: {reason}"))
            }
        }
        FirefoxProfileError::Io(e) => InteropError::Io(e),
        FirefoxProfileError::TooLarge { limit } | FirefoxProfileError::LimitExceeded(limit) => {
            InteropError::over(FORMAT, "$", limit)
        }
        FirefoxProfileError::Invalid { thread, reason } => {
            invalid(format!("$.threads[{thread}]"), reason)
        }
        FirefoxProfileError::Missing(field) => {
            invalid("$", format!("not a processed profile: no `{field}`"))
        }
    }
}

/// A time column's `k`th value in nanoseconds, within the recording's limit.
fn time_at(times: &Times, k: usize, at: &dyn Fn() -> String) -> Result<u64> {
    match times.get(k) {
        Ok(ns) if ns <= recording::limits::MAX_TIME_NS => Ok(ns),
        Ok(ns) => Err(invalid(
            at(),
            format!("time {} ms is negative or too large", ns as f64 / 1e6),
        )),
        Err(text) => {
            // as a number, the way it was meant (`-1.0` is -1 ms)
            let shown = text
                .parse::<f64>()
                .map_or_else(|_| text.to_string(), |ms| ms.to_string());
            Err(invalid(
                at(),
                format!("time {shown} ms is negative or too large"),
            ))
        }
    }
}

/// A thread's tables: its own, or else `shared`'s.
struct Tables<'a> {
    stack_frame: &'a [u32],
    prefix: &'a [Option<u32>],
    frame_func: &'a [u32],
    frame_category: Option<&'a [Option<u32>]>,
    func_name: &'a [u32],
    strings: &'a StringTable,
}

fn tables<'a>(
    own: &'a TableColumns,
    shared: &'a TableColumns,
    p: &dyn Fn(&str) -> String,
) -> Result<Tables<'a>> {
    let stack_table = own
        .stack_table
        .as_ref()
        .or(shared.stack_table.as_ref())
        .ok_or_else(|| invalid(p("stackTable"), "missing"))?;
    if stack_table.prefix_offset && stack_table.prefix.is_none() {
        return Err(invalid(
            p("stackTable"),
            "stacks are stored as `prefixOffset` (a newer profile layout), which this importer does not read",
        ));
    }
    let prefix = stack_table
        .prefix
        .as_deref()
        .ok_or_else(|| invalid(p("stackTable.prefix"), "missing"))?;
    let frames = own
        .frame_table
        .as_ref()
        .or(shared.frame_table.as_ref())
        .ok_or_else(|| invalid(p("frameTable"), "missing"))?;
    let func_name = own
        .func_name
        .as_deref()
        .or(shared.func_name.as_deref())
        .ok_or_else(|| invalid(p("funcTable"), "missing"))?;
    let strings = own
        .strings
        .as_ref()
        .or(shared.strings.as_ref())
        .ok_or_else(|| invalid(p("stringArray"), "missing"))?;
    Ok(Tables {
        stack_frame: &stack_table.frame,
        prefix,
        frame_func: &frames.func,
        frame_category: frames.category.as_deref(),
        func_name,
        strings,
    })
}

/// One frame instance being built: open from `start` until `end`.
struct Node {
    func: u32,
    category: Option<u32>,
    start: u64,
    end: u64,
    parent: Option<usize>,
}

/// Imports a processed Firefox profile into `sink`.
pub fn import<R: Read>(input: R, sink: &mut TraceSink) -> Result<()> {
    // The threads are kept as read: `meta` and `shared` may come after them.
    let mut threads: Vec<ThreadColumns> = Vec::new();
    let options = ReadOptions {
        layout: Layout::Any,
        unit: ProfileUnit::Nanoseconds,
        limits: IMPORT_LIMITS,
    };
    let profile = read_profile_columns(input, options, &mut |_, thread| {
        threads.push(std::mem::take(thread));
        Ok(())
    })
    .map_err(from_reader)?;
    let meta = &profile.meta;
    if meta.processed_version.is_none() {
        return Err(invalid(
            "$.meta",
            "no `preprocessedProfileVersion`: a raw Gecko profile, not a processed one (open and re-save it in the Firefox Profiler first)",
        ));
    }
    let lean = meta.product.as_deref() == Some("lean");
    let interval_ns = match &meta.interval {
        None => 1_000_000,
        Some((text, ns)) => match ns.filter(|&ns| ns <= recording::limits::MAX_TIME_NS) {
            Some(ns) => ns,
            None => {
                return Err(invalid(
                    "$.meta.interval",
                    format!("time {text} ms is negative or too large"),
                ))
            }
        },
    };
    let categories = &meta.categories;
    let several_processes = {
        let mut names: Vec<&str> = threads
            .iter()
            .filter_map(|t| t.process_name.as_deref())
            .collect();
        names.sort_unstable();
        names.dedup();
        names.len() > 1
    };
    for (ti, thread) in threads.iter().enumerate() {
        let p = |field: &str| format!("$.threads[{ti}].{field}");
        let tables = tables(&thread.tables, &profile.shared, &p)?;
        let prefix = tables.prefix;
        if prefix.len() != tables.stack_frame.len() {
            return Err(invalid(
                p("stackTable"),
                format!(
                    "`prefix` has {} entries but `frame` has {}",
                    prefix.len(),
                    tables.stack_frame.len()
                ),
            ));
        }
        // Check every reference once, so the walk below cannot go wrong.
        for (s, (&f, pre)) in tables.stack_frame.iter().zip(prefix).enumerate() {
            if f as usize >= tables.frame_func.len() {
                return Err(invalid(
                    p(&format!("stackTable.frame[{s}]")),
                    format!("frame {f} does not exist"),
                ));
            }
            if let Some(pre) = pre {
                if *pre as usize >= s {
                    return Err(invalid(
                        p(&format!("stackTable.prefix[{s}]")),
                        format!("prefix {pre} does not come before stack {s}"),
                    ));
                }
            }
        }
        for (fr, &func) in tables.frame_func.iter().enumerate() {
            if func as usize >= tables.func_name.len() {
                return Err(invalid(
                    p(&format!("frameTable.func[{fr}]")),
                    format!("function {func} does not exist"),
                ));
            }
        }
        for (fu, &name) in tables.func_name.iter().enumerate() {
            if name as usize >= tables.strings.len() {
                return Err(invalid(
                    p(&format!("funcTable.name[{fu}]")),
                    format!("string {name} does not exist"),
                ));
            }
        }
        // Sample times.
        let samples = &thread.samples;
        let n = samples.stack.len();
        let times: Vec<u64> = match (&samples.time, &samples.time_deltas) {
            (Some(t), _) => (0..t.len())
                .map(|i| time_at(t, i, &|| p(&format!("samples.time[{i}]"))))
                .collect::<Result<_>>()?,
            (None, Some(d)) => {
                let mut acc: u64 = 0;
                (0..d.len())
                    .map(|i| {
                        let at = || p(&format!("samples.timeDeltas[{i}]"));
                        acc = acc.saturating_add(time_at(d, i, &at)?);
                        if acc > recording::limits::MAX_TIME_NS {
                            return Err(invalid(at(), "the sum of the deltas is too large"));
                        }
                        Ok(acc)
                    })
                    .collect::<Result<_>>()?
            }
            (None, None) => return Err(invalid(p("samples"), "neither `time` nor `timeDeltas`")),
        };
        if times.len() != n {
            return Err(invalid(
                p("samples"),
                format!("{} stacks but {} times", n, times.len()),
            ));
        }
        for i in 1..n {
            if times[i] < times[i - 1] {
                return Err(invalid(
                    p(&format!("samples.time[{i}]")),
                    "sample times go backwards",
                ));
            }
        }
        let stack_of = |i: usize| (samples.stack[i] != NO_STACK).then_some(samples.stack[i]);
        for i in 0..n {
            if let Some(s) = stack_of(i) {
                if s as usize >= tables.stack_frame.len() {
                    return Err(invalid(
                        p(&format!("samples.stack[{i}]")),
                        format!("stack {s} does not exist"),
                    ));
                }
            }
        }
        // Slices: (start, end, stack).
        let tracing = samples.weight_type.as_deref() == Some("tracing-ms");
        let mut slices: Vec<(u64, u64, Option<u32>)> = Vec::with_capacity(n);
        if tracing {
            if n % 2 != 0 {
                return Err(invalid(
                    p("samples"),
                    format!("tracing-ms samples come in pairs, but there are {n}"),
                ));
            }
            let weight_zero = samples.weight_zero.as_ref();
            for k in (0..n).step_by(2) {
                let (a, b) = (times[k], times[k + 1]);
                let zero = weight_zero
                    .and_then(|w| w.get(k + 1).copied())
                    .unwrap_or(false);
                let stack = if zero && b > a { None } else { stack_of(k) };
                slices.push((a, b, stack));
            }
        } else {
            for i in 0..n {
                let end = if i + 1 < n {
                    times[i + 1]
                } else {
                    times[i].saturating_add(interval_ns)
                };
                slices.push((times[i], end, stack_of(i)));
            }
        }
        // Walk the slices, opening and closing frames.
        let mut nodes: Vec<Node> = Vec::new();
        let mut open: Vec<(u32, usize)> = Vec::new(); // (stack index, node)
        let mut path: Vec<u32> = Vec::new();
        let mut last_end = 0;
        for &(start, end, stack) in &slices {
            path.clear();
            let mut at = stack;
            while let Some(s) = at {
                if path.len() >= MAX_STACK_DEPTH {
                    return Err(InteropError::over(
                        FORMAT,
                        p("stackTable"),
                        limit!(MAX_STACK_DEPTH, "a stack's depth"),
                    ));
                }
                path.push(s);
                at = prefix[s as usize];
            }
            path.reverse();
            let common = open
                .iter()
                .zip(&path)
                .take_while(|((s, _), p)| s == *p)
                .count();
            for (_, node) in open.drain(common..) {
                nodes[node].end = start;
            }
            for &s in &path[common..] {
                if nodes.len() >= MAX_PROFILE_TABLE_ROWS {
                    return Err(InteropError::over(
                        FORMAT,
                        p("samples"),
                        limit!(MAX_PROFILE_TABLE_ROWS, "the number of calls"),
                    ));
                }
                let frame = tables.stack_frame[s as usize] as usize;
                nodes.push(Node {
                    func: tables.frame_func[frame],
                    category: tables
                        .frame_category
                        .and_then(|c| c.get(frame).copied().flatten()),
                    start,
                    end: start,
                    parent: open.last().map(|&(_, n)| n),
                });
                open.push((s, nodes.len() - 1));
            }
            last_end = last_end.max(end);
        }
        for (_, node) in open.drain(..) {
            nodes[node].end = last_end;
        }
        let name = thread
            .name
            .clone()
            .unwrap_or_else(|| format!("thread {ti}"));
        let name = match (&thread.process_name, several_processes) {
            (Some(pn), true) => format!("{pn} / {name}"),
            _ => name,
        };
        let t = sink.add_thread(ti as u64, name)?;
        let base = sink.event_count();
        for node in &nodes {
            let func_name = tables
                .strings
                .get(tables.func_name[node.func as usize] as usize)
                .unwrap_or("");
            let (class, label) = if lean {
                lean_class_and_label(func_name)
            } else {
                (
                    node.category
                        .and_then(|c| categories.get(c as usize))
                        .map(String::as_str)
                        .unwrap_or(""),
                    func_name,
                )
            };
            let class = sink.intern(class)?;
            let label = sink.intern(label)?;
            sink.push_interned(&InternedEvent {
                parent: node.parent.map(|p| (base + p as u64) as u32),
                class,
                label,
                start_ns: node.start,
                duration_ns: node.end - node.start,
                thread: t,
                range: None,
            })?;
        }
    }
    Ok(())
}

/// Lean names a frame `class` or `class: text`.
fn lean_class_and_label(name: &str) -> (&str, &str) {
    name.split_once(": ").unwrap_or((name, ""))
}

/// Imports a profile Lean wrote with `trace.profiler.useHeartbeats=true` into `sink`, in
/// heartbeats. Lean times each node by the heartbeat counter there and writes the count × 1000
/// where it writes milliseconds, so the values are read ÷ 1000 (`ProfileUnit::Heartbeats`);
/// `Profile.export` wraps the main thread's nodes in a `runFrontend` root timed by the clock,
/// which is left out (its children become roots). The tree is rebuilt as the capture rebuilds
/// Lean's profiles (the clock-timed root makes sample times go back, which a general walk
/// refuses).
pub fn import_heartbeats<R: Read>(input: R, sink: &mut TraceSink) -> Result<()> {
    let profile = parse_firefox_profile_in(input, ProfileUnit::Heartbeats).map_err(from_reader)?;
    if profile.product.as_deref() != Some("lean") {
        return Err(invalid(
            "$.meta.product",
            "heartbeats are read only from Lean's profiles (`product: \"lean\"`, made with trace.profiler.useHeartbeats=true)",
        ));
    }
    for (ti, thread) in profile.threads.iter().enumerate() {
        let t = sink.add_thread(ti as u64, thread.name.clone())?;
        let mut event_of: Vec<Option<u32>> = vec![None; thread.nodes().len()];
        for (id, node) in thread.nodes().iter().enumerate() {
            let (class, label) = lean_class_and_label(thread.name_of(id));
            if thread.is_main_thread && node.depth == 0 && class == "runFrontend" {
                continue;
            }
            let parent = thread.parent(id).and_then(|p| event_of[p]);
            let class = sink.intern(class)?;
            let label = sink.intern(label)?;
            event_of[id] = Some(sink.push_interned(&InternedEvent {
                parent,
                class,
                label,
                start_ns: node.start_ns,
                duration_ns: node.end_ns - node.start_ns,
                thread: t,
                range: None,
            })?);
        }
    }
    Ok(())
}
