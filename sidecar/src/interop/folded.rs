//! Folded (collapsed) stacks, as perf's `stackcollapse`, inferno and py-spy
//! write them: one line per stack, `frame;frame;frame COUNT`.
//!
//! Import merges the lines into a call tree (a frame's calls on the same
//! path are one node) and lays it out as intervals: a node lasts for its
//! own count plus its children's, its children follow one another from
//! its start in the order they first appear, and its own time comes last.
//! Counts (fractional ones too) are multiplied by the unit (`--unit-ns`,
//! default 1: counts are nanoseconds) and rounded. The clock of such a
//! recording is `durations-only`: the order of calls is not known.
//!
//! Export writes each distinct stack (of labels, root first) with the self
//! time of its events in nanoseconds, depth first (the stacks under one
//! stack by frame name). `;` and line breaks
//! in names become `:` and spaces, the only changes the format forces.

use std::collections::HashMap;
use std::io::{BufRead, Write};

use recording::Recording;

use super::error::{InteropError, Result};
use super::json_write::{flush_when_full, uint, FLUSH_BYTES};
use super::read_line_bounded;
use super::sink::{InternedEvent, TraceSink};
use crate::limit;
use crate::limits::{MAX_LINE_BYTES, MAX_STACK_DEPTH, MAX_TREE_NODES};

const FORMAT: &str = "folded stacks";

/// The class of imported frames.
pub const FRAME_CLASS: &str = "frame";

struct Node {
    name: u32,
    self_ns: u64,
    total_ns: u64,
    first_child: u32,
    last_child: u32,
    next_sibling: u32,
}

const NONE: u32 = u32::MAX;

/// Imports folded stacks from `input`; each count is `unit_ns` nanoseconds.
pub fn import<R: BufRead>(mut input: R, sink: &mut TraceSink, unit_ns: u64) -> Result<()> {
    // Node 0 is a virtual root holding the stacks' first frames.
    let mut nodes = vec![Node {
        name: NONE,
        self_ns: 0,
        total_ns: 0,
        first_child: NONE,
        last_child: NONE,
        next_sibling: NONE,
    }];
    let mut parents: Vec<u32> = vec![NONE];
    let mut child: HashMap<(u32, u32), u32> = HashMap::new();
    let mut line = Vec::new();
    let mut number = 0u64;
    let mut stacks = 0u64;
    let line_limit = limit!(MAX_LINE_BYTES, "the line's length");
    while read_line_bounded(&mut input, &mut line, line_limit, FORMAT, number + 1)? {
        number += 1;
        let at = || format!("line {number}");
        let text = std::str::from_utf8(&line)
            .map_err(|_| InteropError::syntax(FORMAT, at(), "not UTF-8 text"))?;
        let text = text.trim_end_matches(['\n', '\r']);
        if text.trim().is_empty() {
            continue;
        }
        let (stack, count) = text.rsplit_once(' ').ok_or_else(|| {
            InteropError::invalid(
                FORMAT,
                at(),
                "a stack line without a count (expected `frame;frame COUNT`)",
            )
        })?;
        let count: f64 = count.parse().map_err(|_| {
            InteropError::invalid(
                FORMAT,
                at(),
                format!("a stack line without a count: `{count}` is not a number"),
            )
        })?;
        if !count.is_finite() || count < 0.0 {
            return Err(InteropError::invalid(
                FORMAT,
                at(),
                format!("the count {count} is negative or not finite"),
            ));
        }
        let weight = (count * unit_ns as f64).round();
        if weight > recording::limits::MAX_TIME_NS as f64 {
            return Err(InteropError::invalid(
                FORMAT,
                at(),
                "the count is too large",
            ));
        }
        let weight = weight as u64;
        let mut at_node = 0u32;
        for (depth, frame) in stack.split(';').enumerate() {
            if depth >= MAX_STACK_DEPTH {
                return Err(InteropError::over(
                    FORMAT,
                    at(),
                    limit!(MAX_STACK_DEPTH, "the stack's depth"),
                ));
            }
            let name = sink.intern(frame)?;
            at_node = match child.get(&(at_node, name)) {
                Some(&c) => c,
                None => {
                    if nodes.len() >= MAX_TREE_NODES {
                        return Err(InteropError::over(
                            FORMAT,
                            at(),
                            limit!(MAX_TREE_NODES, "the number of distinct stack frames"),
                        ));
                    }
                    let c = nodes.len() as u32;
                    nodes.push(Node {
                        name,
                        self_ns: 0,
                        total_ns: 0,
                        first_child: NONE,
                        last_child: NONE,
                        next_sibling: NONE,
                    });
                    parents.push(at_node);
                    let p = &mut nodes[at_node as usize];
                    if p.first_child == NONE {
                        p.first_child = c;
                    } else {
                        let last = p.last_child as usize;
                        nodes[last].next_sibling = c;
                    }
                    nodes[at_node as usize].last_child = c;
                    child.insert((at_node, name), c);
                    c
                }
            };
        }
        let n = &mut nodes[at_node as usize];
        n.self_ns = n.self_ns.checked_add(weight).ok_or_else(|| {
            InteropError::invalid(
                FORMAT,
                at(),
                "the counts of this stack add up past the largest time",
            )
        })?;
        stacks += 1;
    }
    if stacks == 0 {
        return Err(InteropError::invalid(
            FORMAT,
            "line 1",
            "no stack lines: not folded stacks",
        ));
    }
    drop(child);
    // Totals, children before parents (children have larger indices).
    for i in (1..nodes.len()).rev() {
        let t = nodes[i].total_ns.checked_add(nodes[i].self_ns);
        let t = t
            .filter(|&t| t <= recording::limits::MAX_TIME_NS)
            .ok_or_else(|| {
                InteropError::invalid(
                    FORMAT,
                    "$",
                    format!(
                        "the counts of the stacks through one frame add up past the largest \
                         time a recording holds ({} ns)",
                        recording::limits::MAX_TIME_NS
                    ),
                )
            })?;
        nodes[i].total_ns = t;
        let p = parents[i] as usize;
        // Saturates: a parent past the largest time is refused when its own
        // turn comes, and the virtual root (the stacks laid end to end) below.
        nodes[p].total_ns = nodes[p].total_ns.saturating_add(t);
    }
    if nodes[0].total_ns > recording::limits::MAX_TIME_NS {
        return Err(InteropError::invalid(
            FORMAT,
            "$",
            format!(
                "the counts of all stacks add up past the largest time a recording holds \
                 ({} ns, about 292 years): the stacks are laid end to end, so their counts \
                 (times the unit) must sum to no more than that",
                recording::limits::MAX_TIME_NS
            ),
        ));
    }
    let thread = sink.add_thread(0, "folded stacks".into())?;
    let class = sink.intern(FRAME_CLASS)?;
    // Preorder layout: (node, start, parent event).
    let mut work: Vec<(u32, u64, Option<u32>)> = Vec::new();
    let mut c = nodes[0].first_child;
    let mut start = 0u64;
    let mut roots = Vec::new();
    while c != NONE {
        roots.push((c, start, None));
        start += nodes[c as usize].total_ns;
        c = nodes[c as usize].next_sibling;
    }
    work.extend(roots.into_iter().rev());
    while let Some((n, start, parent)) = work.pop() {
        let node = &nodes[n as usize];
        let index = sink.push_interned(&InternedEvent {
            parent,
            class,
            label: node.name,
            start_ns: start,
            duration_ns: node.total_ns,
            thread,
            range: None,
        })?;
        let mut kids = Vec::new();
        let mut at = start;
        let mut c = node.first_child;
        while c != NONE {
            kids.push((c, at, Some(index)));
            at += nodes[c as usize].total_ns;
            c = nodes[c as usize].next_sibling;
        }
        work.extend(kids.into_iter().rev());
    }
    Ok(())
}

/// The frame an event stands for in a stack: its label, or its class when
/// it has none.
fn frame_of(rec: &Recording, i: u32) -> &str {
    let label = rec.label(i);
    if label.is_empty() {
        rec.class(i)
    } else {
        label
    }
}

/// Sorts `events` by frame and appends the runs of equal frames to
/// `groups` as ranges of `events`, offset by `at`.
fn group_by_frame(rec: &Recording, events: &mut [u32], at: usize, groups: &mut Vec<(u32, u32)>) {
    events.sort_unstable_by(|&a, &b| frame_of(rec, a).cmp(frame_of(rec, b)));
    let mut start = 0;
    for k in 1..=events.len() {
        if k == events.len() || frame_of(rec, events[k]) != frame_of(rec, events[start]) {
            groups.push(((at + start) as u32, (at + k) as u32));
            start = k;
        }
    }
}

/// The stacks of one depth under the stack being written: `events[start..]`
/// holds them grouped by frame, `groups[first..end]` the groups, `next` the
/// group to write next, `path` the length of the stack above them.
struct Level {
    start: usize,
    first: usize,
    end: usize,
    next: usize,
    path: usize,
}

/// Writes the self time of each distinct stack of `rec`, in nanoseconds,
/// streaming: the events of one distinct stack are grouped when their
/// parent stack is written, so it holds at most one index per event on the
/// path being written (a few bytes an event at worst), never a table of
/// all stacks. Stacks come depth first, the frames under one stack in name
/// order.
pub fn export<W: Write>(rec: &Recording, mut out: W) -> std::io::Result<W> {
    let mut events: Vec<u32> = rec.roots().collect();
    let mut groups: Vec<(u32, u32)> = Vec::new();
    group_by_frame(rec, &mut events, 0, &mut groups);
    let mut levels = vec![Level {
        start: 0,
        first: 0,
        end: groups.len(),
        next: 0,
        path: 0,
    }];
    let mut b: Vec<u8> = Vec::with_capacity(2 * FLUSH_BYTES);
    let mut path: Vec<u8> = Vec::new();
    while let Some(level) = levels.last_mut() {
        if level.next == level.end {
            events.truncate(level.start);
            groups.truncate(level.first);
            levels.pop();
            continue;
        }
        let (a, z) = groups[level.next];
        level.next += 1;
        path.truncate(level.path);
        if level.path > 0 {
            path.push(b';');
        }
        push_frame(&mut path, frame_of(rec, events[a as usize]));
        let group = a as usize..z as usize;
        let self_ns: u64 = events[group.clone()].iter().map(|&i| rec.self_ns(i)).sum();
        if self_ns > 0 {
            b.extend_from_slice(&path);
            b.push(b' ');
            uint(&mut b, self_ns);
            b.push(b'\n');
            flush_when_full(&mut out, &mut b)?;
        }
        let start = events.len();
        for k in group {
            let i = events[k];
            events.extend_from_slice(rec.children(i));
        }
        if events.len() > start {
            let first = groups.len();
            group_by_frame(rec, &mut events[start..], start, &mut groups);
            levels.push(Level {
                start,
                first,
                end: groups.len(),
                next: first,
                path: path.len(),
            });
        }
    }
    out.write_all(&b)?;
    out.flush()?;
    Ok(out)
}

/// Appends a name as a folded-stacks frame: `;` and line breaks, which
/// the format gives meaning to, become `:` and spaces.
fn push_frame(path: &mut Vec<u8>, name: &str) {
    path.extend(name.bytes().map(|c| match c {
        b';' => b':',
        b'\n' | b'\r' => b' ',
        c => c,
    }));
}
