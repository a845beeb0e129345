//! Generated output for cases too large to commit (the `huge` case: at least 200 000 trace
//! nodes). `case.json` holds a `generator` object; the output is a pure function of it, so
//! every run prints the same bytes.
//!
//! Generator spec fields: `seed`, `min_nodes`, `frontend_start_ns`, `import_ns`, `workers`
//! (thread ids), `commands` (each `name`, `text`, `tactic`, `tactic_kind`, `pos` and `end_pos`
//! as `[line, column]`).
//!
//! The shape follows the recorded cases: per command an `Elab.command` tree on the main thread
//! and an `Elab.async` proof tree on a worker whose tactic holds a deep random tree of `Meta.*`
//! nodes (what `trace.profiler.threshold=0` records), positioned at the command.

use serde_json::Value;

use crate::lean_format::{
    display_profiling_time, float_to_string, json_number_from_float, json_string, message_line,
    seconds, write_array, write_object, FieldWriter,
};

/// SplitMix64: small, fast, deterministic.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo + 1)
    }
}

/// A trace node of the generated trees.
pub struct Node {
    pub cls: &'static str,
    pub tag: String,
    pub text: String,
    gap: u64,
    tail: u64,
    pub children: Vec<usize>,
    pub start: u64,
    pub stop: u64,
}

/// Trace trees in an arena.
#[derive(Default)]
pub struct Forest {
    pub nodes: Vec<Node>,
}

impl Forest {
    fn add(&mut self, cls: &'static str, tag: &str, text: String, gap: u64, tail: u64) -> usize {
        self.nodes.push(Node {
            cls,
            tag: tag.to_string(),
            text,
            gap,
            tail,
            children: Vec::new(),
            start: 0,
            stop: 0,
        });
        self.nodes.len() - 1
    }

    fn child(&mut self, parent: usize, child: usize) {
        self.nodes[parent].children.push(child);
    }

    /// Assigns start and stop times: each child starts `gap` after the previous sibling (or the
    /// parent's start); a node stops `tail` after its last child.
    fn layout(&mut self, id: usize, start: u64) -> u64 {
        self.nodes[id].start = start;
        let mut cursor = start;
        for i in 0..self.nodes[id].children.len() {
            let child = self.nodes[id].children[i];
            let gap = self.nodes[child].gap;
            cursor = self.layout(child, cursor + gap);
        }
        let stop = cursor + self.nodes[id].tail;
        self.nodes[id].stop = stop;
        stop
    }

    fn count(&self, id: usize) -> usize {
        1 + self.nodes[id]
            .children
            .iter()
            .map(|&c| self.count(c))
            .sum::<usize>()
    }

    /// `MessageData.format` of a trace tree (see fixtures/README.md, "Trace text").
    pub fn render(&self, id: usize, depth: usize, out: &mut String) {
        let node = &self.nodes[id];
        let secs = seconds(node.stop) - seconds(node.start);
        let mut lines = node.text.split('\n');
        if !out.is_empty() {
            out.push('\n');
        }
        out.extend(std::iter::repeat_n(' ', 2 * depth));
        out.push_str(&format!(
            "[{}] [{}] {}",
            node.cls,
            float_to_string(secs),
            lines.next().unwrap_or("")
        ));
        for line in lines {
            out.push('\n');
            out.extend(std::iter::repeat_n(' ', 2 * depth + 4));
            out.push_str(line);
        }
        for &child in &node.children {
            self.render(child, depth + 1, out);
        }
    }
}

const META_NODES: [(&str, &str); 6] = [
    ("Meta.isDefEq", "✅\u{fe0f} ?m.{n} =?= Nat"),
    ("Meta.synthInstance", "✅\u{fe0f} Decidable (x{n} = x{n})"),
    (
        "Meta.whnf",
        "List.foldl (fun x1 x2 => x1 + x2) {n} (List.range {n})",
    ),
    (
        "Meta.isDefEq.delta",
        "✅\u{fe0f} List.range {n} =?= List.range.loop {n} []",
    ),
    (
        "Meta.Tactic.simp.rewrite",
        "List.length_append:1000:\n  (xs{n} ++ []).length\n==>\n  xs{n}.length",
    ),
    ("Meta.isDefEq.assign", "✅\u{fe0f} ?m.{n} := x{n}"),
];

/// Deepest level of the random `Meta.*` trees.
const META_TREE_DEPTH: u64 = 9;

fn meta_subtree(
    forest: &mut Forest,
    rng: &mut Rng,
    budget: u64,
    depth: u64,
    counter: &mut u64,
) -> usize {
    let (cls, template) = META_NODES[(rng.next() % META_NODES.len() as u64) as usize];
    *counter += 1;
    let text = template.replace("{n}", &counter.to_string());
    let leaf = budget == 1;
    let gap = rng.range(200, 3_000);
    let tail = if leaf {
        rng.range(2_000, 40_000)
    } else {
        rng.range(300, 5_000)
    };
    let id = forest.add(cls, "", text, gap, tail);
    let mut remaining = budget - 1;
    while remaining > 0 {
        let share = if depth >= META_TREE_DEPTH {
            1
        } else {
            rng.range(1, remaining.min((budget / 3).max(1)))
        };
        let child = meta_subtree(forest, rng, share, depth + 1, counter);
        forest.child(id, child);
        remaining -= share;
    }
    id
}

struct Command {
    name: String,
    text: String,
    tactic: String,
    tactic_kind: String,
    pos: (u64, u64),
    end_pos: (u64, u64),
}

/// Everything one replay prints and writes.
pub struct Output {
    pub stdout_lines: Vec<String>,
    pub stderr: String,
    /// Lines of `stderr` written before stdout (the `import took` line).
    pub stderr_lines_before_stdout: usize,
    pub profile: Option<String>,
    pub exit_code: i32,
    /// Trace nodes generated (all threads, including `runFrontend` and `Import`).
    pub node_count: usize,
}

fn pair(v: &Value, key: &str) -> Result<(u64, u64), String> {
    let a = v
        .get(key)
        .and_then(Value::as_array)
        .ok_or(format!("generator: `{key}` missing"))?;
    match (
        a.first().and_then(Value::as_u64),
        a.get(1).and_then(Value::as_u64),
    ) {
        (Some(l), Some(c)) => Ok((l, c)),
        _ => Err(format!("generator: `{key}` is not [line, column]")),
    }
}

fn u64_field(v: &Value, key: &str) -> Result<u64, String> {
    v.get(key)
        .and_then(Value::as_u64)
        .ok_or(format!("generator: `{key}` missing"))
}

fn str_field(v: &Value, key: &str) -> Result<String, String> {
    v.get(key)
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or(format!("generator: `{key}` missing"))
}

/// Generates the output of the case described by `spec` for `lean FILE`.
pub fn generate(
    spec: &Value,
    module: &str,
    file_name: &str,
    with_traces: bool,
    with_profile: bool,
) -> Result<Output, String> {
    let seed = u64_field(spec, "seed")?;
    let min_nodes = u64_field(spec, "min_nodes")?;
    let frontend_start = u64_field(spec, "frontend_start_ns")?;
    let import_ns = u64_field(spec, "import_ns")?;
    let workers: Vec<u64> = spec
        .get("workers")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_u64).collect())
        .unwrap_or_default();
    if workers.is_empty() {
        return Err("generator: `workers` must list thread ids".into());
    }
    let commands: Vec<Command> = spec
        .get("commands")
        .and_then(Value::as_array)
        .ok_or("generator: `commands` missing")?
        .iter()
        .map(|c| {
            Ok(Command {
                name: str_field(c, "name")?,
                text: str_field(c, "text")?,
                tactic: str_field(c, "tactic")?,
                tactic_kind: str_field(c, "tactic_kind")?,
                pos: pair(c, "pos")?,
                end_pos: pair(c, "end_pos")?,
            })
        })
        .collect::<Result<_, String>>()?;
    if commands.is_empty() {
        return Err("generator: no commands".into());
    }

    let mut rng = Rng(seed);
    let mut forest = Forest::default();
    let mut counter = 0u64;
    let per_command = min_nodes.div_ceil(commands.len() as u64);
    let import = forest.add("Import", "", "importing".into(), 0, 0);
    forest.nodes[import].start = frontend_start + 912_000;
    forest.nodes[import].stop = forest.nodes[import].start + import_ns;
    let mut cursor = forest.nodes[import].stop + 1_844_000;
    let mut worker_free = vec![0u64; workers.len()];
    let mut main_roots = vec![import];
    let mut worker_roots: Vec<Vec<usize>> = vec![Vec::new(); workers.len()];
    let mut lines = Vec::new();
    let mut took_lines: Vec<(String, u64)> = Vec::new(); // (category, ns) of every measurement
    let mut stderr_late = String::new();
    for (i, cmd) in commands.iter().enumerate() {
        let elab = forest.add(
            "Elab.command",
            "Lean.Parser.Command.theorem",
            cmd.text.clone(),
            rng.range(300_000, 450_000),
            400_000,
        );
        let header = forest.add(
            "Elab.definition.header",
            "",
            cmd.name.clone(),
            100_000,
            rng.range(1_100_000, 1_600_000),
        );
        forest.child(elab, header);
        cursor = forest.layout(elab, cursor + forest.nodes[elab].gap);
        main_roots.push(elab);
        let header_ns = forest.nodes[header].stop - forest.nodes[header].start;

        let task = forest.add(
            "Elab.async",
            "",
            format!("elaborating proof of {}", cmd.name),
            0,
            58_000,
        );
        let value = forest.add(
            "Elab.definition.value",
            "",
            cmd.name.clone(),
            79_000,
            190_000,
        );
        let seq = forest.add(
            "Elab.step",
            "Lean.Parser.Tactic.tacticSeq",
            cmd.tactic.clone(),
            130_000,
            55_000,
        );
        let tactic = forest.add(
            "Elab.step",
            &cmd.tactic_kind,
            cmd.tactic.clone(),
            41_000,
            1_300_000,
        );
        forest.child(task, value);
        forest.child(value, seq);
        forest.child(seq, tactic);
        let budget = per_command.saturating_sub(4).max(1);
        let meta = meta_subtree(&mut forest, &mut rng, budget, 0, &mut counter);
        forest.child(tactic, meta);
        let w = i % workers.len();
        let start = (forest.nodes[header].stop + 170_000).max(worker_free[w] + 60_000);
        worker_free[w] = forest.layout(task, start);
        worker_roots[w].push(task);
        let tactic_ns = forest.nodes[tactic].stop - forest.nodes[tactic].start;
        let value_ns = forest.nodes[value].stop - forest.nodes[value].start;

        if with_traces {
            let mut text = String::new();
            forest.render(elab, 0, &mut text);
            lines.push(message_line(
                file_name,
                cmd.pos,
                Some(cmd.end_pos),
                "information",
                &text,
                "trace",
            ));
        }
        took_lines.push(("elaboration".into(), header_ns.saturating_sub(150_000)));
        lines.push(message_line(
            file_name,
            cmd.pos,
            None,
            "information",
            &format!(
                "elaboration took {}\n",
                display_profiling_time(header_ns.saturating_sub(150_000))
            ),
            "[anonymous]",
        ));
        if with_traces {
            let mut text = String::new();
            forest.render(task, 0, &mut text);
            lines.push(message_line(
                file_name,
                cmd.pos,
                Some(cmd.end_pos),
                "information",
                &text,
                "trace",
            ));
        }
        let elab_ns = value_ns.saturating_sub(tactic_ns + 210_000);
        took_lines.push(("tactic execution".into(), tactic_ns.saturating_sub(12_000)));
        took_lines.push(("elaboration".into(), elab_ns));
        lines.push(message_line(
            file_name,
            cmd.pos,
            None,
            "information",
            &format!(
                "tactic execution of {} took {}\nelaboration took {}\n",
                cmd.tactic_kind,
                display_profiling_time(tactic_ns.saturating_sub(12_000)),
                display_profiling_time(elab_ns)
            ),
            "[anonymous]",
        ));
        let kernel = rng.range(400_000, 2_500_000);
        took_lines.push(("type checking".into(), kernel));
        stderr_late.push_str(&format!(
            "type checking took {}\n",
            display_profiling_time(kernel)
        ));
    }
    took_lines.push(("import".into(), import_ns.saturating_sub(700_000)));
    let mut totals: Vec<(String, u64)> = Vec::new();
    for (cat, ns) in &took_lines {
        match totals.iter_mut().find(|(c, _)| c == cat) {
            Some((_, total)) => *total += ns,
            None => totals.push((cat.clone(), *ns)),
        }
    }
    totals.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let mut stderr = format!(
        "import took {}\n",
        display_profiling_time(import_ns.saturating_sub(700_000))
    );
    stderr.push_str(&stderr_late);
    stderr.push_str("cumulative profiling times:\n");
    for (cat, ns) in &totals {
        stderr.push_str(&format!("\t{cat} {}\n", display_profiling_time(*ns)));
    }

    let frontend_stop = cursor.max(worker_free.iter().copied().max().unwrap_or(0)) + 2_317_000;
    let run = forest.add("runFrontend", "", String::new(), 0, 0);
    forest.nodes[run].children = main_roots;
    forest.nodes[run].start = frontend_start;
    forest.nodes[run].stop = frontend_stop;
    let node_count = forest.count(run)
        + worker_roots
            .iter()
            .flatten()
            .map(|&r| forest.count(r))
            .sum::<usize>();

    let profile = with_profile.then(|| {
        let mut threads = vec![ThreadBuilder::new(module.to_string(), true)];
        threads[0].add_top_level(&forest, &[run]);
        let mut order: Vec<usize> = (0..workers.len()).collect();
        order.sort_by_key(|&w| workers[w]);
        for w in order {
            let mut t = ThreadBuilder::new(workers[w].to_string(), false);
            t.add_top_level(&forest, &worker_roots[w]);
            threads.push(t);
        }
        write_profile(frontend_start, &threads)
    });
    Ok(Output {
        stdout_lines: lines,
        stderr,
        stderr_lines_before_stdout: 1,
        profile,
        exit_code: 0,
        node_count,
    })
}

/// A trace node timed by the heartbeat counter (`trace.profiler.useHeartbeats`).
pub struct HeartbeatNode {
    pub cls: &'static str,
    pub text: String,
    /// The counter when the node started and stopped.
    pub start: u64,
    pub stop: u64,
    pub children: Vec<HeartbeatNode>,
}

/// The profile `Profile.export` writes when the trace nodes were timed by heartbeats: each
/// node's start and stop are counts that Lean keeps where seconds go, so they are written × 1000
/// as "milliseconds" (`Lean.Firefox.Milliseconds`), while the `runFrontend` root that wraps the
/// main thread's nodes is timed by the clock (`frontend`: its start and stop in nanoseconds;
/// `meta.startTime` is its start).
pub fn heartbeat_profile(module: &str, frontend: (u64, u64), roots: &[HeartbeatNode]) -> String {
    // the builder takes nanoseconds and writes seconds × 1000: a count as "seconds" is the
    // count × 10^9 here
    fn add(forest: &mut Forest, node: &HeartbeatNode) -> usize {
        let id = forest.add(node.cls, "", node.text.clone(), 0, 0);
        forest.nodes[id].start = node.start.saturating_mul(1_000_000_000);
        forest.nodes[id].stop = node.stop.saturating_mul(1_000_000_000);
        for child in &node.children {
            let c = add(forest, child);
            forest.child(id, c);
        }
        id
    }
    let mut forest = Forest::default();
    let main_roots: Vec<usize> = roots.iter().map(|r| add(&mut forest, r)).collect();
    let run = forest.add("runFrontend", "", String::new(), 0, 0);
    forest.nodes[run].children = main_roots;
    forest.nodes[run].start = frontend.0;
    forest.nodes[run].stop = frontend.1;
    let mut thread = ThreadBuilder::new(module.to_string(), true);
    thread.add_top_level(&forest, &[run]);
    write_profile(frontend.0, &[thread])
}

const CATEGORIES: [(&str, &str); 6] = [
    ("Other", "gray"),
    ("Elab.async", "gray"),
    ("Elab.block", "brown"),
    ("Elab", "red"),
    ("Meta", "yellow"),
    ("Kernel", "green"),
];

fn category_of(cls: &str) -> u32 {
    CATEGORIES
        .iter()
        .position(|(name, _)| {
            cls == *name || cls.strip_prefix(name).is_some_and(|r| r.starts_with('.'))
        })
        .unwrap_or(0) as u32
}

/// Mirrors `Lean.Firefox.addTrace`: shared strings, functions and stacks; a pair of samples
/// per stretch of a node between its children.
struct ThreadBuilder {
    name: String,
    is_main: bool,
    strings: Vec<String>,
    string_map: std::collections::HashMap<String, u32>,
    func_name: Vec<u32>,
    func_map: std::collections::HashMap<u32, u32>,
    frame_category: Vec<u32>,
    stack_frame: Vec<u32>,
    stack_prefix: Vec<Option<u32>>,
    stack_category: Vec<u32>,
    stack_map: std::collections::HashMap<(u32, Option<u32>), u32>,
    s_stack: Vec<u32>,
    s_time: Vec<f64>,
    s_weight: Vec<f64>,
    last_time: f64,
}

impl ThreadBuilder {
    fn new(name: String, is_main: bool) -> Self {
        ThreadBuilder {
            name,
            is_main,
            strings: Vec::new(),
            string_map: Default::default(),
            func_name: Vec::new(),
            func_map: Default::default(),
            frame_category: Vec::new(),
            stack_frame: Vec::new(),
            stack_prefix: Vec::new(),
            stack_category: Vec::new(),
            stack_map: Default::default(),
            s_stack: Vec::new(),
            s_time: Vec::new(),
            s_weight: Vec::new(),
            last_time: 0.0,
        }
    }

    fn push_pair(&mut self, stack: u32, t0: f64, t1: f64, busy: bool) {
        self.s_stack.extend([stack, stack]);
        self.s_time.extend([t0, t1]);
        self.s_weight
            .extend([0.0, if busy { t1 - t0 } else { 0.0 }]);
    }

    fn add_top_level(&mut self, forest: &Forest, roots: &[usize]) {
        let mut roots = roots.to_vec();
        roots.sort_by_key(|&r| forest.nodes[r].start);
        for root in roots {
            if self.last_time > 0.0 {
                self.push_pair(0, self.last_time, seconds(forest.nodes[root].start), false);
            }
            self.add(forest, root, None);
        }
    }

    fn add(&mut self, forest: &Forest, id: usize, parent: Option<u32>) {
        let node = &forest.nodes[id];
        let mut label = node.cls.to_string();
        if !node.tag.is_empty() {
            label = format!("{label}: {}", node.tag);
        }
        label = format!("{label}: {}", node.text); // trace.profiler.output.pp=true
        let str_idx = match self.string_map.get(&label) {
            Some(&i) => i,
            None => {
                let i = self.strings.len() as u32;
                self.strings.push(label.clone());
                self.string_map.insert(label, i);
                i
            }
        };
        let category = category_of(node.cls);
        let frame = match self.func_map.get(&str_idx) {
            Some(&f) => f,
            None => {
                let f = self.func_name.len() as u32;
                self.func_name.push(str_idx);
                self.frame_category.push(category);
                self.func_map.insert(str_idx, f);
                f
            }
        };
        let stack = match self.stack_map.get(&(frame, parent)) {
            Some(&s) => s,
            None => {
                let s = self.stack_frame.len() as u32;
                self.stack_frame.push(frame);
                self.stack_prefix.push(parent);
                self.stack_category.push(category);
                self.stack_map.insert((frame, parent), s);
                s
            }
        };
        self.last_time = seconds(node.start);
        for &child in &node.children {
            let next = seconds(forest.nodes[child].start);
            self.push_pair(stack, self.last_time, next, true);
            self.add(forest, child, Some(stack));
        }
        self.push_pair(stack, self.last_time, seconds(node.stop), true);
        self.last_time = seconds(node.stop);
    }
}

fn nums<I: IntoIterator<Item = u32>>(items: I) -> impl FnOnce(&mut String) {
    move |o: &mut String| write_array(o, items.into_iter().map(|i| i.to_string()))
}

fn repeat(value: &'static str, n: usize) -> impl FnOnce(&mut String) {
    move |o: &mut String| write_array(o, std::iter::repeat_n(value, n))
}

/// `Json.compress (toJson profile)` for the threads built above.
fn write_profile(start_ns: u64, threads: &[ThreadBuilder]) -> String {
    let mut out = String::new();
    let meta: FieldWriter = Box::new(move |o: &mut String| {
        write_object(
            o,
            vec![
                (
                    "categories",
                    Box::new(|o: &mut String| {
                        write_array(
                            o,
                            CATEGORIES.iter().map(|(name, color)| {
                                let mut c = String::new();
                                write_object(
                                    &mut c,
                                    vec![
                                        (
                                            "color",
                                            Box::new(move |o: &mut String| {
                                                o.push_str(&json_string(color))
                                            }),
                                        ),
                                        (
                                            "name",
                                            Box::new(move |o: &mut String| {
                                                o.push_str(&json_string(name))
                                            }),
                                        ),
                                        (
                                            "subcategories",
                                            Box::new(|o: &mut String| o.push_str("[]")),
                                        ),
                                    ],
                                );
                                c
                            }),
                        )
                    }),
                ),
                ("interval", Box::new(|o: &mut String| o.push('0'))),
                ("markerSchema", Box::new(|o: &mut String| o.push_str("[]"))),
                (
                    "preprocessedProfileVersion",
                    Box::new(|o: &mut String| o.push_str("48")),
                ),
                ("processType", Box::new(|o: &mut String| o.push('0'))),
                ("product", Box::new(|o: &mut String| o.push_str("\"lean\""))),
                (
                    "sampleUnits",
                    Box::new(|o: &mut String| {
                        write_object(
                            o,
                            vec![
                                (
                                    "eventDelay",
                                    Box::new(|o: &mut String| o.push_str("\"ms\"")),
                                ),
                                (
                                    "threadCPUDelta",
                                    Box::new(|o: &mut String| o.push_str("\"µs\"")),
                                ),
                                ("time", Box::new(|o: &mut String| o.push_str("\"ms\""))),
                            ],
                        )
                    }),
                ),
                (
                    "startTime",
                    Box::new(move |o: &mut String| {
                        o.push_str(&json_number_from_float(seconds(start_ns) * 1000.0))
                    }),
                ),
            ],
        )
    });
    let threads_writer: FieldWriter = Box::new(move |o: &mut String| {
        o.push('[');
        for (i, t) in threads.iter().enumerate() {
            if i > 0 {
                o.push(',');
            }
            write_thread(o, t);
        }
        o.push(']');
    });
    write_object(
        &mut out,
        vec![
            ("libs", Box::new(|o: &mut String| o.push_str("[]"))),
            ("meta", meta),
            ("threads", threads_writer),
        ],
    );
    out
}

fn write_thread(o: &mut String, t: &ThreadBuilder) {
    let n_frames = t.func_name.len();
    let n_stacks = t.stack_frame.len();
    let n_samples = t.s_stack.len();
    write_object(
        o,
        vec![
            (
                "frameTable",
                Box::new(move |o: &mut String| {
                    write_object(
                        o,
                        vec![
                            ("address", Box::new(repeat("-1", n_frames))),
                            ("category", Box::new(nums(t.frame_category.iter().copied()))),
                            ("column", Box::new(repeat("null", n_frames))),
                            ("func", Box::new(nums(0..n_frames as u32))),
                            ("implementation", Box::new(repeat("null", n_frames))),
                            ("inlineDepth", Box::new(repeat("0", n_frames))),
                            ("innerWindowID", Box::new(repeat("null", n_frames))),
                            (
                                "length",
                                Box::new(move |o: &mut String| o.push_str(&n_frames.to_string())),
                            ),
                            ("line", Box::new(repeat("null", n_frames))),
                            ("nativeSymbol", Box::new(repeat("null", n_frames))),
                            ("subcategory", Box::new(repeat("null", n_frames))),
                        ],
                    )
                }),
            ),
            (
                "funcTable",
                Box::new(move |o: &mut String| {
                    write_object(
                        o,
                        vec![
                            ("columnNumber", Box::new(repeat("null", n_frames))),
                            ("fileName", Box::new(repeat("null", n_frames))),
                            ("isJS", Box::new(|o: &mut String| o.push_str("[]"))),
                            (
                                "length",
                                Box::new(move |o: &mut String| o.push_str(&n_frames.to_string())),
                            ),
                            ("lineNumber", Box::new(repeat("null", n_frames))),
                            ("name", Box::new(nums(t.func_name.iter().copied()))),
                            ("relevantForJS", Box::new(|o: &mut String| o.push_str("[]"))),
                            ("resource", Box::new(repeat("-1", n_frames))),
                        ],
                    )
                }),
            ),
            (
                "isMainThread",
                Box::new(move |o: &mut String| {
                    o.push_str(if t.is_main { "true" } else { "false" })
                }),
            ),
            (
                "markers",
                Box::new(|o: &mut String| o.push_str("{\"data\":[],\"length\":0,\"name\":[]}")),
            ),
            (
                "name",
                Box::new(move |o: &mut String| o.push_str(&json_string(&t.name))),
            ),
            (
                "processType",
                Box::new(|o: &mut String| o.push_str("\"default\"")),
            ),
            (
                "resourceTable",
                Box::new(|o: &mut String| o.push_str("{\"length\":0,\"type\":[]}")),
            ),
            (
                "samples",
                Box::new(move |o: &mut String| {
                    write_object(
                        o,
                        vec![
                            (
                                "length",
                                Box::new(move |o: &mut String| o.push_str(&n_samples.to_string())),
                            ),
                            ("stack", Box::new(nums(t.s_stack.iter().copied()))),
                            (
                                "threadCPUDelta",
                                Box::new(move |o: &mut String| {
                                    write_array(
                                        o,
                                        t.s_weight
                                            .iter()
                                            .map(|w| json_number_from_float(w * 1_000_000.0)),
                                    )
                                }),
                            ),
                            (
                                "time",
                                Box::new(move |o: &mut String| {
                                    write_array(
                                        o,
                                        t.s_time.iter().map(|x| json_number_from_float(x * 1000.0)),
                                    )
                                }),
                            ),
                            (
                                "weight",
                                Box::new(move |o: &mut String| {
                                    write_array(
                                        o,
                                        t.s_weight
                                            .iter()
                                            .map(|w| json_number_from_float(w * 1000.0)),
                                    )
                                }),
                            ),
                            (
                                "weightType",
                                Box::new(|o: &mut String| o.push_str("\"tracing-ms\"")),
                            ),
                        ],
                    )
                }),
            ),
            (
                "stackTable",
                Box::new(move |o: &mut String| {
                    write_object(
                        o,
                        vec![
                            ("category", Box::new(nums(t.stack_category.iter().copied()))),
                            ("frame", Box::new(nums(t.stack_frame.iter().copied()))),
                            (
                                "length",
                                Box::new(move |o: &mut String| o.push_str(&n_stacks.to_string())),
                            ),
                            (
                                "prefix",
                                Box::new(move |o: &mut String| {
                                    write_array(
                                        o,
                                        t.stack_prefix.iter().map(|p| {
                                            p.map_or("null".to_string(), |p| p.to_string())
                                        }),
                                    )
                                }),
                            ),
                            ("subcategory", Box::new(repeat("0", n_stacks))),
                        ],
                    )
                }),
            ),
            (
                "stringArray",
                Box::new(move |o: &mut String| {
                    write_array(o, t.strings.iter().map(|s| json_string(s)))
                }),
            ),
        ],
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(min_nodes: u64) -> Value {
        serde_json::json!({
            "seed": 7,
            "min_nodes": min_nodes,
            "frontend_start_ns": 1_000_000_000_u64,
            "import_ns": 100_000_000_u64,
            "workers": [12, 11],
            "commands": [
                {"name": "A.one", "text": "theorem one : True := by\n  trivial", "tactic": "trivial",
                 "tactic_kind": "Lean.Parser.Tactic.trivial", "pos": [1, 0], "end_pos": [2, 9]},
                {"name": "A.two", "text": "theorem two : True := by trivial", "tactic": "trivial",
                 "tactic_kind": "Lean.Parser.Tactic.trivial", "pos": [4, 0], "end_pos": [4, 32]}
            ]
        })
    }

    #[test]
    fn deterministic_and_sized() {
        let a = generate(&spec(1_000), "A", "A.lean", true, true).expect("generates");
        let b = generate(&spec(1_000), "A", "A.lean", true, true).expect("generates");
        assert_eq!(a.stdout_lines, b.stdout_lines);
        assert_eq!(a.profile, b.profile);
        assert!(a.node_count >= 1_000);
        assert_eq!(a.stdout_lines.len(), 8);
        let no_traces = generate(&spec(1_000), "A", "A.lean", false, false).expect("generates");
        assert_eq!(no_traces.stdout_lines.len(), 4);
        assert!(no_traces.profile.is_none());
        assert_eq!(no_traces.stderr, a.stderr);
        let profile: Value =
            serde_json::from_str(a.profile.as_deref().expect("profile")).expect("JSON");
        let names: Vec<_> = profile["threads"]
            .as_array()
            .expect("threads")
            .iter()
            .map(|t| t["name"].as_str().unwrap_or_default().to_string())
            .collect();
        assert_eq!(names, vec!["A", "11", "12"]);
    }

    #[test]
    fn trace_text_layout() {
        let mut forest = Forest::default();
        let root = forest.add("A", "", "first\nsecond".into(), 0, 1_500);
        let child = forest.add("B", "", "b".into(), 500, 2_000);
        forest.child(root, child);
        forest.layout(root, 1_000_000_000);
        let mut text = String::new();
        forest.render(root, 0, &mut text);
        assert_eq!(text, "[A] [0.000004] first\n    second\n  [B] [0.000002] b");
    }
}
