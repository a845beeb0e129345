//! Events from Lean's timed trace tree (`-Dtrace.profiler.output`), with
//! real start and stop times and thread ids.

use std::collections::HashMap;

use recording::{ClockKind, Thread};

use super::events::{split_node_name, Built, Event};
use super::lean_output::firefox_profile::{FirefoxProfile, ProfileThread};
use super::placer::{Placement, Placer};

/// Lean's root node on the main thread, spanning the whole file.
const FRONTEND_CLASS: &str = "runFrontend";

/// Lean's node for asynchronous proof elaboration: `elaborating proof of NAME`.
const ASYNC_PREFIX: &str = "elaborating proof of ";

pub fn build<'p>(profile: &'p FirefoxProfile, placer: &mut Placer<'_>) -> Built<'p> {
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
    built.events.reserve(profile.node_count());
    placer.reserve(profile.node_count());
    // Declaration name → the command event that declared it.
    let mut commands_by_decl: HashMap<String, u32> = HashMap::new();
    for (t_index, thread) in order.iter().enumerate() {
        built.threads.push(Thread {
            id: thread.name.parse().unwrap_or(0),
            name: if thread.is_main_thread {
                format!("main ({})", thread.name)
            } else {
                format!("worker {}", thread.name)
            },
        });
        // Profile node id → event index, for parents.
        let mut index_of: Vec<u32> = Vec::with_capacity(thread.nodes().len());
        for (id, node) in thread.nodes().iter().enumerate() {
            let (class, tag, text) = split_node_name(thread.name_of(id));
            let label = if text.is_empty() {
                tag.unwrap_or(class)
            } else {
                text
            };
            let parent = thread.parent(id).map(|p| index_of[p]);
            let (parent, placement) = match parent {
                Some(p)
                    if class == "Elab.command"
                        && built.events[p as usize].class == FRONTEND_CLASS =>
                {
                    (Some(p), placer.place_command(text))
                }
                Some(p) => (Some(p), placer.place_child(Some(p), class, text)),
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
            let index = built.events.len() as u32;
            if class == "Elab.command" {
                if let Some(d) = placement.span.and_then(|(s, _)| placer.declaration_at(s)) {
                    commands_by_decl.insert(d.name.clone(), index);
                }
            }
            if class == FRONTEND_CLASS && parent.is_none() && thread.is_main_thread {
                built.elapsed_ns = Some(node.end_ns - node.start_ns);
            }
            built.events.push(Event {
                parent,
                class: class.into(),
                label: label.into(),
                start_ns: node.start_ns - origin,
                duration_ns: node.end_ns - node.start_ns,
                thread: t_index as u32,
                range,
                range_kind: placement.kind,
            });
            index_of.push(index);
        }
    }
    built
}
