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

use std::io::Read;

use serde::{de, Deserialize, Deserializer};

use super::error::{InteropError, Result};
use super::json_scan::LimitedStrings;
use super::limits::{MAX_JSON_STRING_BYTES, MAX_PROFILE_TABLE_ROWS, MAX_STACK_DEPTH};
use super::sink::{InternedEvent, TraceSink};

const FORMAT: &str = "Firefox profile";

fn bounded<'de, D, T>(d: D) -> std::result::Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct V<T>(std::marker::PhantomData<T>);
    impl<'de, T: Deserialize<'de>> de::Visitor<'de> for V<T> {
        type Value = Vec<T>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an array")
        }
        fn visit_seq<A: de::SeqAccess<'de>>(
            self,
            mut seq: A,
        ) -> std::result::Result<Vec<T>, A::Error> {
            let mut v = Vec::new();
            while let Some(x) = seq.next_element()? {
                if v.len() >= MAX_PROFILE_TABLE_ROWS {
                    return Err(de::Error::custom(format!(
                        "a table has more than {MAX_PROFILE_TABLE_ROWS} rows (MAX_PROFILE_TABLE_ROWS)"
                    )));
                }
                v.push(x);
            }
            Ok(v)
        }
    }
    d.deserialize_seq(V(std::marker::PhantomData))
}

fn bounded_opt<'de, D, T>(d: D) -> std::result::Result<Option<Vec<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct W<T>(Vec<T>);
    impl<'de, T: Deserialize<'de>> Deserialize<'de> for W<T> {
        fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
            bounded(d).map(W)
        }
    }
    Ok(Option::<W<T>>::deserialize(d)?.map(|w| w.0))
}

#[derive(Deserialize)]
struct Profile {
    meta: Meta,
    #[serde(deserialize_with = "bounded")]
    threads: Vec<RawThread>,
    shared: Option<Tables>,
}

#[derive(Deserialize)]
struct Meta {
    interval: Option<f64>,
    product: Option<String>,
    #[serde(rename = "preprocessedProfileVersion")]
    processed_version: Option<u64>,
    #[serde(default, deserialize_with = "bounded_opt")]
    categories: Option<Vec<Category>>,
}

#[derive(Deserialize)]
struct Category {
    name: String,
}

/// Tables that live in each thread (older layouts) or in `shared`.
#[derive(Deserialize, Default)]
struct Tables {
    #[serde(rename = "stackTable")]
    stack_table: Option<StackTable>,
    #[serde(rename = "frameTable")]
    frame_table: Option<FrameTable>,
    #[serde(rename = "funcTable")]
    func_table: Option<FuncTable>,
    #[serde(rename = "stringArray", default, deserialize_with = "bounded_opt")]
    string_array: Option<Vec<String>>,
}

#[derive(Deserialize)]
struct RawThread {
    name: Option<String>,
    #[serde(rename = "processName")]
    process_name: Option<String>,
    samples: Samples,
    #[serde(rename = "stackTable")]
    stack_table: Option<StackTable>,
    #[serde(rename = "frameTable")]
    frame_table: Option<FrameTable>,
    #[serde(rename = "funcTable")]
    func_table: Option<FuncTable>,
    #[serde(rename = "stringArray", default, deserialize_with = "bounded_opt")]
    string_array: Option<Vec<String>>,
}

#[derive(Deserialize)]
struct Samples {
    #[serde(deserialize_with = "bounded")]
    stack: Vec<Option<u64>>,
    #[serde(default, deserialize_with = "bounded_opt")]
    time: Option<Vec<f64>>,
    #[serde(rename = "timeDeltas", default, deserialize_with = "bounded_opt")]
    time_deltas: Option<Vec<f64>>,
    #[serde(default, deserialize_with = "bounded_opt")]
    weight: Option<Vec<Option<f64>>>,
    #[serde(rename = "weightType")]
    weight_type: Option<String>,
}

#[derive(Deserialize)]
struct StackTable {
    #[serde(deserialize_with = "bounded")]
    frame: Vec<u64>,
    #[serde(default, deserialize_with = "bounded_opt")]
    prefix: Option<Vec<Option<u64>>>,
    #[serde(rename = "prefixOffset")]
    prefix_offset: Option<serde::de::IgnoredAny>,
}

#[derive(Deserialize)]
struct FrameTable {
    #[serde(deserialize_with = "bounded")]
    func: Vec<u64>,
    #[serde(default, deserialize_with = "bounded_opt")]
    category: Option<Vec<Option<u64>>>,
}

#[derive(Deserialize)]
struct FuncTable {
    #[serde(deserialize_with = "bounded")]
    name: Vec<u64>,
}

fn invalid(at: impl Into<String>, detail: impl Into<String>) -> InteropError {
    InteropError::invalid(FORMAT, at, detail)
}

/// Milliseconds to whole nanoseconds.
fn ms_to_ns(ms: f64, at: &dyn Fn() -> String) -> Result<u64> {
    let ns = (ms * 1e6).round();
    if !(0.0..=recording::limits::MAX_TIME_NS as f64).contains(&ns) {
        return Err(invalid(
            at(),
            format!("time {ms} ms is negative or too large"),
        ));
    }
    Ok(ns as u64)
}

/// One frame instance being built: open from `start` until `end`.
struct Node {
    func: u64,
    category: Option<u64>,
    start: u64,
    end: u64,
    parent: Option<usize>,
}

/// Imports a processed Firefox profile into `sink`.
pub fn import<R: Read>(input: R, sink: &mut TraceSink) -> Result<()> {
    let reader = std::io::BufReader::with_capacity(
        1 << 16,
        LimitedStrings::new(input, MAX_JSON_STRING_BYTES),
    );
    let profile: Profile = serde_json::from_reader(reader).map_err(|e| {
        let text = e.to_string();
        if e.is_io() {
            // The string limit reports through an I/O error.
            return InteropError::limit(
                FORMAT,
                format!("line {} column {}", e.line(), e.column()),
                "a JSON string",
                MAX_JSON_STRING_BYTES as u64,
                "MAX_JSON_STRING_BYTES",
            );
        }
        if e.is_syntax() || e.is_eof() {
            InteropError::syntax(
                FORMAT,
                format!("line {} column {}", e.line(), e.column()),
                format!("not JSON: {text}"),
            )
        } else {
            invalid("$", format!("not a processed profile: {text}"))
        }
    })?;
    if profile.meta.processed_version.is_none() {
        return Err(invalid(
            "$.meta",
            "no `preprocessedProfileVersion`: a raw Gecko profile, not a processed one (open and re-save it in the Firefox Profiler first)",
        ));
    }
    let lean = profile.meta.product.as_deref() == Some("lean");
    let interval_ns = ms_to_ns(profile.meta.interval.unwrap_or(1.0), &|| {
        "$.meta.interval".into()
    })?;
    let categories: Vec<String> = profile
        .meta
        .categories
        .unwrap_or_default()
        .into_iter()
        .map(|c| c.name)
        .collect();
    let shared = profile.shared.unwrap_or_default();
    let several_processes = {
        let mut names: Vec<&str> = profile
            .threads
            .iter()
            .filter_map(|t| t.process_name.as_deref())
            .collect();
        names.sort_unstable();
        names.dedup();
        names.len() > 1
    };
    for (ti, thread) in profile.threads.iter().enumerate() {
        let p = |field: &str| format!("$.threads[{ti}].{field}");
        let tables = thread;
        let stack_table = tables
            .stack_table
            .as_ref()
            .or(shared.stack_table.as_ref())
            .ok_or_else(|| invalid(p("stackTable"), "missing"))?;
        if stack_table.prefix_offset.is_some() && stack_table.prefix.is_none() {
            return Err(invalid(
                p("stackTable"),
                "stacks are stored as `prefixOffset` (a newer profile layout), which this importer does not read",
            ));
        }
        let prefix = stack_table
            .prefix
            .as_ref()
            .ok_or_else(|| invalid(p("stackTable.prefix"), "missing"))?;
        let frames = tables
            .frame_table
            .as_ref()
            .or(shared.frame_table.as_ref())
            .ok_or_else(|| invalid(p("frameTable"), "missing"))?;
        let funcs = tables
            .func_table
            .as_ref()
            .or(shared.func_table.as_ref())
            .ok_or_else(|| invalid(p("funcTable"), "missing"))?;
        let strings = tables
            .string_array
            .as_ref()
            .or(shared.string_array.as_ref())
            .ok_or_else(|| invalid(p("stringArray"), "missing"))?;
        if prefix.len() != stack_table.frame.len() {
            return Err(invalid(
                p("stackTable"),
                format!(
                    "`prefix` has {} entries but `frame` has {}",
                    prefix.len(),
                    stack_table.frame.len()
                ),
            ));
        }
        // Check every reference once, so the walk below cannot go wrong.
        for (s, (&f, pre)) in stack_table.frame.iter().zip(prefix).enumerate() {
            if f as usize >= frames.func.len() {
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
        for (fr, &func) in frames.func.iter().enumerate() {
            if func as usize >= funcs.name.len() {
                return Err(invalid(
                    p(&format!("frameTable.func[{fr}]")),
                    format!("function {func} does not exist"),
                ));
            }
        }
        for (fu, &name) in funcs.name.iter().enumerate() {
            if name as usize >= strings.len() {
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
            (Some(t), _) => t
                .iter()
                .enumerate()
                .map(|(i, &ms)| ms_to_ns(ms, &|| p(&format!("samples.time[{i}]"))))
                .collect::<Result<_>>()?,
            (None, Some(d)) => {
                let mut acc = 0.0;
                d.iter()
                    .enumerate()
                    .map(|(i, &ms)| {
                        acc += ms;
                        ms_to_ns(acc, &|| p(&format!("samples.timeDeltas[{i}]")))
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
        for (i, s) in samples.stack.iter().enumerate() {
            if let Some(s) = s {
                if *s as usize >= stack_table.frame.len() {
                    return Err(invalid(
                        p(&format!("samples.stack[{i}]")),
                        format!("stack {s} does not exist"),
                    ));
                }
            }
        }
        // Slices: (start, end, stack).
        let tracing = samples.weight_type.as_deref() == Some("tracing-ms");
        let mut slices: Vec<(u64, u64, Option<u64>)> = Vec::with_capacity(n);
        if tracing {
            if n % 2 != 0 {
                return Err(invalid(
                    p("samples"),
                    format!("tracing-ms samples come in pairs, but there are {n}"),
                ));
            }
            let weights = samples.weight.as_ref();
            for k in (0..n).step_by(2) {
                let (a, b) = (times[k], times[k + 1]);
                let w = weights
                    .and_then(|w| w.get(k + 1).copied().flatten())
                    .unwrap_or(1.0);
                let stack = if w == 0.0 && b > a {
                    None
                } else {
                    samples.stack[k]
                };
                slices.push((a, b, stack));
            }
        } else {
            for i in 0..n {
                let end = if i + 1 < n {
                    times[i + 1]
                } else {
                    times[i].saturating_add(interval_ns)
                };
                slices.push((times[i], end, samples.stack[i]));
            }
        }
        // Walk the slices, opening and closing frames.
        let mut nodes: Vec<Node> = Vec::new();
        let mut open: Vec<(u64, usize)> = Vec::new(); // (stack index, node)
        let mut path: Vec<u64> = Vec::new();
        let mut last_end = 0;
        for &(start, end, stack) in &slices {
            path.clear();
            let mut at = stack;
            while let Some(s) = at {
                if path.len() >= MAX_STACK_DEPTH {
                    return Err(InteropError::limit(
                        FORMAT,
                        p("stackTable"),
                        "a stack's depth",
                        MAX_STACK_DEPTH as u64,
                        "MAX_STACK_DEPTH",
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
                    return Err(InteropError::limit(
                        FORMAT,
                        p("samples"),
                        "the number of calls",
                        MAX_PROFILE_TABLE_ROWS as u64,
                        "MAX_PROFILE_TABLE_ROWS",
                    ));
                }
                let frame = stack_table.frame[s as usize] as usize;
                nodes.push(Node {
                    func: frames.func[frame],
                    category: frames
                        .category
                        .as_ref()
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
            let func_name = &strings[funcs.name[node.func as usize] as usize];
            let (class, label) = if lean {
                match func_name.split_once(": ") {
                    Some((c, l)) => (c, l),
                    None => (func_name.as_str(), ""),
                }
            } else {
                (
                    node.category
                        .and_then(|c| categories.get(c as usize))
                        .map(String::as_str)
                        .unwrap_or(""),
                    func_name.as_str(),
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
