//! Events from Lean's timed trace tree (`-Dtrace.profiler.output`), with
//! real start and stop times and thread ids.
//!
//! A profile can hold hundreds of thousands of nodes, so its events are not
//! collected: [`plan`] works out what the recording's header needs first,
//! then [`events`] hands the events one by one to the writer.

use std::collections::HashMap;

use recording::{ClockKind, Thread};

use super::declarations::{declaration_named_by, public_name};
use super::events::{node_label, split_node_name, Built, Event, EventSink};
use super::lean_output::lean_profile::{FirefoxProfile, ProfileThread};
use super::placer::{Placement, Placer};

/// Lean's root node on the main thread, spanning the whole file.
const FRONTEND_CLASS: &str = "runFrontend";

/// Classes of nodes that can name a declaration (see [`declaration_named_by`]); checked on the
/// raw name before splitting it, so that most nodes cost nothing here.
const NAMING_CLASSES: [&str; 3] = ["Kernel", "Elab.async", "Elab.definition"];

/// For each command node and each top-level node of a thread, the declaration its subtree
/// names first (a kernel check, an asynchronous proof, a definition step): what places a
/// command whose text Lean could not print, and a kernel check Lean ran as a root of its own
/// (`Elab.async: Lean.addDecl` holding `Kernel: typechecking declarations [X]`).
fn declarations_named(thread: &ProfileThread) -> HashMap<usize, &str> {
    let mut named: HashMap<usize, &str> = HashMap::new();
    for id in 0..thread.nodes().len() {
        let name = thread.name_of(id);
        if !NAMING_CLASSES.iter().any(|c| name.starts_with(c)) {
            continue;
        }
        let (class, tag, text) = split_node_name(name);
        let Some(decl) = declaration_named_by(class, tag, text) else {
            continue;
        };
        // up to the nearest command, or the top-level node
        let mut at = id;
        loop {
            let parent = thread.parent(at);
            let is_command = split_node_name(thread.name_of(at)).0 == "Elab.command";
            let parent_is_frontend =
                parent.is_some_and(|p| split_node_name(thread.name_of(p)).0 == FRONTEND_CLASS);
            if is_command || parent.is_none() || parent_is_frontend {
                named.entry(at).or_insert(decl);
                break;
            }
            at = parent.unwrap_or(at);
        }
    }
    named
}

/// The order threads are written in, and the clock's zero.
pub struct Plan<'p> {
    threads: Vec<&'p ProfileThread>,
    /// The first recorded time: 0 on the recording's clock.
    origin: u64,
}

/// Classes of which a profile of Lean's has at least one node: its frontend's root, commands,
/// asynchronous tasks, imports.
const KNOWN_CLASSES: [&str; 4] = [FRONTEND_CLASS, "Elab.command", "Elab.async", "Import"];

/// Longest node name quoted in [`UnknownShapes`].
const QUOTED_NAME_CHARS: usize = 120;

/// A profile none of whose node names has a known shape: nothing in it could be placed.
#[derive(Debug, thiserror::Error)]
#[error(
    "no node has a known shape (`runFrontend`, `Elab.command: …`, `Elab.async: …`, `Import: …`); its first node is {first:?}"
)]
pub struct UnknownShapes {
    pub first: String,
}

/// What the recording's header needs (threads, clock, Lean's elapsed time), with no events
/// yet, and the plan [`events`] follows. A profile whose node names carry none of Lean's
/// shapes is refused rather than recorded as events that nothing places.
pub fn plan(profile: &FirefoxProfile) -> Result<(Built<'static>, Plan<'_>), UnknownShapes> {
    let mut names = profile
        .threads
        .iter()
        .flat_map(|t| (0..t.nodes().len()).map(move |id| t.name_of(id)));
    let first = names.clone().next();
    if let Some(first) = first {
        if !names.any(|n| KNOWN_CLASSES.contains(&split_node_name(n).0)) {
            return Err(UnknownShapes {
                first: first.chars().take(QUOTED_NAME_CHARS).collect(),
            });
        }
    }
    Ok(plan_known(profile))
}

fn plan_known(profile: &FirefoxProfile) -> (Built<'static>, Plan<'_>) {
    let mut order: Vec<&ProfileThread> = profile.threads.iter().collect();
    // The main thread first: asynchronous proofs link to its commands.
    order.sort_by_key(|t| {
        (
            !t.is_main_thread,
            t.name.parse::<u64>().unwrap_or(u64::MAX),
            t.name.clone(),
        )
    });
    let origin = order
        .iter()
        .flat_map(|t| t.nodes().iter().map(|n| n.start_ns))
        .min()
        .unwrap_or(0);
    let mut built = Built {
        clock: ClockKind::Measured,
        clock_description:
            "Lean's monotonic clock from trace.profiler.output; 0 is the first recorded event"
                .into(),
        ..Built::default()
    };
    for thread in &order {
        built.threads.push(Thread {
            id: thread.name.parse().unwrap_or(0),
            name: if thread.is_main_thread {
                format!("main ({})", thread.name)
            } else {
                format!("worker {}", thread.name)
            },
        });
        if thread.is_main_thread {
            // the last frontend root on a main thread is the file's elapsed time
            for id in thread.roots() {
                if split_node_name(thread.name_of(id)).0 == FRONTEND_CLASS {
                    let node = &thread.nodes()[id];
                    built.elapsed_ns = Some(node.end_ns - node.start_ns);
                }
            }
        }
    }
    let plan = Plan {
        threads: order,
        origin,
    };
    (built, plan)
}

/// How far ahead [`events`] announces labels to its sink.
const LOOKAHEAD: usize = 8;

/// Hands every node of the profile, as an event, to `sink`, in the plan's thread order, parents
/// before children; stops at the sink's first error. Returns the number of events.
pub fn events<'p, S: EventSink<'p>>(
    plan: &Plan<'p>,
    placer: &mut Placer<'_>,
    sink: &mut S,
) -> Result<u64, S::Error> {
    placer.reserve(plan.threads.iter().map(|t| t.nodes().len()).sum());
    let mut count = 0u64;
    // Declaration name → the command event that declared it.
    let mut commands_by_decl: HashMap<String, u32> = HashMap::new();
    for (t_index, thread) in plan.threads.iter().enumerate() {
        // Profile node id → (event index, whether it is the frontend's node), for parents.
        let mut index_of: Vec<(u32, bool)> = Vec::with_capacity(thread.nodes().len());
        let nodes = thread.nodes();
        let named = declarations_named(thread);
        // The split names of nodes `id..id + LOOKAHEAD`, at `k % LOOKAHEAD` for node `k`.
        let split = |k: usize| split_node_name(thread.name_of(k));
        let mut ahead: Vec<_> = (0..LOOKAHEAD.min(nodes.len())).map(split).collect();
        for (id, node) in nodes.iter().enumerate() {
            let parts @ (class, _, text) = ahead[id % LOOKAHEAD];
            if id + LOOKAHEAD < nodes.len() {
                let next = split(id + LOOKAHEAD);
                sink.upcoming(node_label(next));
                ahead[id % LOOKAHEAD] = next;
            }
            let label = node_label(parts);
            let parent = thread.parent(id).map(|p| index_of[p]);
            let named_here = named.get(&id).copied();
            let (parent, placement) = match parent {
                Some((p, true)) if class == "Elab.command" => {
                    (Some(p), placer.place_command(text, named_here))
                }
                None if class == "Elab.command" => (None, placer.place_command(text, named_here)),
                // A top-level node that names a declaration (an asynchronous proof, a kernel
                // check after the command): linked to that declaration's command, placed in
                // the declaration.
                Some((_, true)) | None if named_here.is_some() => {
                    let name = named_here.unwrap_or_default();
                    (
                        commands_by_decl.get(public_name(name)).copied(),
                        placer.place_in_declaration(name),
                    )
                }
                Some((p, _)) => (Some(p), placer.place_child(Some(p), class, text)),
                None => (None, Placement::none()),
            };
            let range = placer.record(&placement);
            let index = count as u32;
            if class == "Elab.command" {
                if let Some(d) = placement.span.and_then(|(s, _)| placer.declaration_at(s)) {
                    commands_by_decl.insert(d.name.clone(), index);
                }
            }
            sink.push(Event {
                parent,
                class: class.into(),
                label: label.into(),
                start_ns: node.start_ns - plan.origin,
                duration_ns: node.end_ns - node.start_ns,
                thread: t_index as u32,
                range,
                range_kind: placement.kind,
            })?;
            count += 1;
            index_of.push((index, class == FRONTEND_CLASS));
        }
    }
    Ok(count)
}
