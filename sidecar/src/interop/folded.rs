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
use super::limits::{MAX_LINE_BYTES, MAX_STACK_DEPTH, MAX_TREE_NODES};
use super::read_line_bounded;
use super::sink::{InternedEvent, TraceSink};

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
    while read_line_bounded(&mut input, &mut line, MAX_LINE_BYTES, FORMAT, number + 1)? {
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
                return Err(InteropError::limit(
                    FORMAT,
                    at(),
                    "the stack's depth",
                    MAX_STACK_DEPTH as u64,
                    "MAX_STACK_DEPTH",
                ));
            }
            let name = sink.intern(frame)?;
            at_node = match child.get(&(at_node, name)) {
                Some(&c) => c,
                None => {
                    if nodes.len() >= MAX_TREE_NODES {
                        return Err(InteropError::limit(
                            FORMAT,
                            at(),
                            "the number of distinct stack frames",
                            MAX_TREE_NODES as u64,
                            "MAX_TREE_NODES",
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
                InteropError::invalid(FORMAT, "$", "the counts add up past the largest time")
            })?;
        nodes[i].total_ns = t;
        let p = parents[i] as usize;
        nodes[p].total_ns = nodes[p].total_ns.saturating_add(t);
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

/// A name as a folded-stacks frame.
fn frame_name(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            ';' => ':',
            '\n' | '\r' => ' ',
            c => c,
        })
        .collect()
}

/// Writes the self time of each distinct stack of `rec`, in nanoseconds,
/// streaming: it holds one entry per distinct stack (a tree of them), not
/// one per event. Stacks come depth first, the frames under one stack in
/// name order.
pub fn export<W: Write>(rec: &Recording, mut out: W) -> std::io::Result<W> {
    // Node 0 is the virtual root; node n > 0 is (parent node, frame name).
    let mut parent_of: Vec<u32> = vec![NONE];
    let mut names: Vec<&str> = vec![""];
    let mut self_ns: Vec<u64> = vec![0];
    let mut node: HashMap<(u32, &str), u32> = HashMap::new();
    let mut work: Vec<(u32, u32)> = rec.roots().map(|r| (r, 0)).collect();
    work.reverse();
    while let Some((i, under)) = work.pop() {
        let name = if rec.label(i).is_empty() {
            rec.class(i)
        } else {
            rec.label(i)
        };
        let next = names.len() as u32;
        let n = *node.entry((under, name)).or_insert_with(|| {
            parent_of.push(under);
            names.push(name);
            self_ns.push(0);
            next
        });
        self_ns[n as usize] += rec.self_ns(i);
        work.extend(rec.children(i).iter().rev().map(|&c| (c, n)));
    }
    drop(node);
    let mut kids: Vec<Vec<u32>> = vec![Vec::new(); names.len()];
    for n in 1..names.len() {
        kids[parent_of[n] as usize].push(n as u32);
    }
    for k in kids.iter_mut() {
        k.sort_unstable_by_key(|&n| names[n as usize]);
    }
    let mut b: Vec<u8> = Vec::with_capacity(2 * FLUSH_BYTES);
    // Depth first: (node, length of the path before it).
    let mut path: Vec<u8> = Vec::new();
    let mut stack: Vec<(u32, usize)> = kids[0].iter().rev().map(|&n| (n, 0)).collect();
    while let Some((n, len)) = stack.pop() {
        path.truncate(len);
        if len > 0 {
            path.push(b';');
        }
        path.extend_from_slice(frame_name(names[n as usize]).as_bytes());
        if self_ns[n as usize] > 0 {
            b.extend_from_slice(&path);
            b.push(b' ');
            uint(&mut b, self_ns[n as usize]);
            b.push(b'\n');
            flush_when_full(&mut out, &mut b)?;
        }
        let here = path.len();
        stack.extend(kids[n as usize].iter().rev().map(|&c| (c, here)));
    }
    out.write_all(&b)?;
    out.flush()?;
    Ok(out)
}
