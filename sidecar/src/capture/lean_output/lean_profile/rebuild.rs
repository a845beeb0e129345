//! Rebuilding one thread's trace tree from its samples.
//!
//! Lean turns every timed trace node into samples of one stack: a pair of samples
//! (`time = [a, b]`, `weight = [0, b - a]`) for the stretch before each child and one for the
//! stretch after the last child. Stacks are shared between identical call paths (same names
//! from the root), so two sibling nodes with the same name have the same stack id; the tree is
//! therefore rebuilt from the order of the samples, not from stack ids alone. Between top-level
//! traces of a thread Lean inserts an idle pair on stack 0 with zero weight.

use super::{ProfileNode, NO_PARENT};
use crate::firefox_profile::{FirefoxProfileError, ThreadColumns};
use crate::limits::Limit;

/// The trace nodes of a thread (its `index`), rebuilt from its columns; `nodes_left` of
/// `node_limit` may still be rebuilt.
pub(super) fn thread_nodes(
    raw: &ThreadColumns,
    index: usize,
    nodes_left: &mut usize,
    node_limit: Limit,
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
    if !n.is_multiple_of(2) {
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
            return Err(FirefoxProfileError::LimitExceeded(node_limit));
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
