//! Events from Lean's timed trace tree (`-Dtrace.profiler.output`), with
//! real start and stop times and thread ids.
//!
//! A profile can hold hundreds of thousands of nodes, so its events are not
//! collected: [`plan`] works out what the recording's header needs first,
//! then [`events`] hands the events one by one to the writer.

use std::collections::HashMap;

use recording::{ClockKind, Thread};

use super::events::{node_label, split_node_name, Built, Event, EventSink};
use super::lean_output::firefox_profile::{FirefoxProfile, ProfileThread};
use super::placer::{Placement, Placer};

/// Lean's root node on the main thread, spanning the whole file.
const FRONTEND_CLASS: &str = "runFrontend";

/// Lean's node for asynchronous proof elaboration: `elaborating proof of NAME`.
const ASYNC_PREFIX: &str = "elaborating proof of ";

/// The order threads are written in, and the clock's zero.
pub struct Plan<'p> {
    threads: Vec<&'p ProfileThread>,
    /// The first recorded time: 0 on the recording's clock.
    origin: u64,
}

/// What the recording's header needs (threads, clock, Lean's elapsed time), with no events
/// yet, and the plan [`events`] follows.
pub fn plan(profile: &FirefoxProfile) -> (Built<'static>, Plan<'_>) {
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
            let (parent, placement) = match parent {
                Some((p, true)) if class == "Elab.command" => (Some(p), placer.place_command(text)),
                Some((p, _)) => (Some(p), placer.place_child(Some(p), class, text)),
                None if class == "Elab.command" => (None, placer.place_command(text)),
                None => match text.strip_prefix(ASYNC_PREFIX) {
                    // An asynchronous proof: linked to its command on the
                    // main thread, placed in its declaration.
                    Some(name) => (
                        commands_by_decl.get(name).copied(),
                        placer.place_in_declaration(name),
                    ),
                    None => (None, Placement::none()),
                },
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
