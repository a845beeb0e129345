//! `lean FILE` for a source the fixtures have no recording for, and
//! `lake build`: the fake "elaborates" a source that carries directives in
//! comments, so that a test controls what the run costs and prints:
//!
//! - `-- leanscope-fake: cost 200ms`: spend that much CPU time (user time,
//!   measured with the process's CPU clock, not the wall clock);
//! - `-- leanscope-fake: profiling-cost 4%`: when Lean runs with profiling
//!   on (`-Dtrace.profiler=true`), spend that share of the file's `cost`
//!   more (what profiling costs Lean itself: `leanscope bench` measures it);
//! - `-- leanscope-fake: error`: report an error at that line (exit 1);
//! - `-- leanscope-fake: print TEXT`: print TEXT on stdout and on stderr;
//! - `-- leanscope-fake: build-error`: `lake build` fails on this file;
//! - `-- leanscope-fake: read PATH`, `write PATH`, `connect HOST:PORT`:
//!   read a file, create one, open a TCP connection, and report an error
//!   (exit 1) when that fails: what a sandbox must forbid, made visible;
//! - `-- leanscope-fake: heartbeats N`: the command on that line (text at column 0) used N
//!   heartbeats, or, on an indented line, a step (`Elab.step`) of the command above did. Run
//!   with `-Dtrace.profiler=true -Dtrace.profiler.useHeartbeats=true`, the fake prints each
//!   command's trace message as Lean does (`[Elab.command] [N.000000] TEXT`, children two
//!   spaces in; `Float.toString` of the heartbeat difference), keeping the nodes whose count is
//!   over `trace.profiler.threshold` (strictly; default 10). Without `useHeartbeats` it prints
//!   no trace for them (the fake has no clock times to give).
//! - `-- leanscope-fake: instance-search N LABEL`: an instance search (`Meta.synthInstance`,
//!   labelled LABEL) of the last command with `heartbeats` above it used N heartbeats: a child
//!   of that command's node, printed and profiled like a `heartbeats` step.
//! - `cost` directives are also the fake's clock times: run with `-Dtrace.profiler=true` and
//!   without `useHeartbeats`, the fake prints each command's trace message with its planned
//!   cost in seconds (`[Elab.command] [0.450000] TEXT`, the layout of Lean 4.19–4.29, or the
//!   selected toolchain's when the fixtures name one): a `cost` on a line at column 0 is that
//!   command's own, one on an indented line is an `Elab.step` of the command above (the code
//!   before the directive is its text) and counts in the command's time too. Nodes whose cost
//!   in milliseconds is over `trace.profiler.threshold` are kept. No profile file is written.
//! - `-- leanscope-fake: run-log PATH`: append the source's path as one line to PATH, and
//!   number this run by the lines naming it there before (0 for its first run): a repeated
//!   capture's order of runs made visible, and the run number `heartbeats-runs` reads;
//! - `-- leanscope-fake: heartbeats-runs A,B,C`: `heartbeats` with a count per run: run `k`
//!   (from `run-log`; 0 without it) uses count `k mod n` of the `n` listed (0-based), so a test of repeated captures
//!   knows every run's numbers (a jitter it planned).
//!
//! - `-- leanscope-fake: alloc 300MB`: allocate that many MiB and write every page, held until
//!   the process ends (resident memory really grows);
//! - `-- leanscope-fake: hang`: stop making progress, sleeping in [`HANG_STEP`]s so that a
//!   signal stops the process at once;
//! - `-- leanscope-fake: peak-log PATH`: at a normal end, append the process's peak resident
//!   memory (`VmHWM`, bytes) to PATH.
//!
//! Trace messages are printed as Lean prints them: a command's when the next command starts
//! (or at the end), so a stop leaves the earlier commands' messages only.
//!
//! Sources with directives need no fixtures (`LEANSCOPE_FAKE_FIXTURES`).
//!
//! A source without any directive is not elaborated by this module (the
//! fake then replays a recording, or says it has none). A clean file makes
//! Lean print nothing, as the fake does here.

use crate::limits::{
    MAX_ALLOC_MIB, MAX_COST, MAX_HANG, MAX_HEARTBEATS_RUNS, MAX_PROFILING_COST_PERCENT,
};
use std::path::Path;
use std::time::Duration;

/// What marks a directive.
pub const DIRECTIVE: &str = "-- leanscope-fake:";

/// One directive and its 1-based line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Directive {
    Cost(Duration),
    /// Extra CPU time with profiling on, in hundredths of a percent of the
    /// file's `cost`.
    ProfilingCost(u32),
    Error,
    Print(String),
    BuildError,
    Read(String),
    Write(String),
    Connect(String),
    Heartbeats(u64),
    /// An instance search (`Meta.synthInstance`) of the command above: its heartbeats and label.
    InstanceSearch(u64, String),
    /// A heartbeat count per run, picked by the run number.
    HeartbeatsRuns(Vec<u64>),
    /// The file the runs are logged to (and numbered by).
    RunLog(String),
    /// One entry of the module's `.hb.json` (`OWNER DECL PHASE N`), written by `lake build`
    /// (`src/build_outputs.rs`).
    HbEntry(crate::build_outputs::HbEntry),
    /// Allocate this many MiB and write to every page, held until the process ends.
    Alloc(u64),
    /// Stop making progress: sleep in steps of [`HANG_STEP`] (at most [`MAX_HANG`]).
    Hang,
    /// At exit, append the process's peak resident memory (bytes) to this file.
    PeakLog(String),
}

/// The step a `hang` sleeps in, short so that a signal is answered at once.
pub const HANG_STEP: Duration = Duration::from_millis(10);

/// What the run was asked to trace: `trace.profiler.useHeartbeats` and its threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tracing {
    /// `-Dtrace.profiler=true` was given (profiling is on).
    pub profiling: bool,
    /// `-Dtrace.profiler=true -Dtrace.profiler.useHeartbeats=true` were given.
    pub heartbeats: bool,
    /// `trace.profiler.threshold` (Lean's default 10).
    pub threshold: u64,
}

/// The directives of a source, in order, or an error naming the line.
pub fn directives(source: &str) -> Result<Vec<(usize, Directive)>, String> {
    let mut out = Vec::new();
    for (i, line) in source.lines().enumerate() {
        let Some(at) = line.find(DIRECTIVE) else {
            continue;
        };
        let text = line[at + DIRECTIVE.len()..].trim();
        let (word, rest) = text.split_once(' ').unwrap_or((text, ""));
        let d = match word {
            "cost" => Directive::Cost(parse_ms(rest.trim()).ok_or_else(|| {
                format!(
                    "line {}: `cost` wants milliseconds such as `200ms` (at most {} s), got {rest:?}",
                    i + 1,
                    MAX_COST.as_secs()
                )
            })?),
            "profiling-cost" => Directive::ProfilingCost(parse_percent(rest.trim()).ok_or_else(|| {
                format!(
                    "line {}: `profiling-cost` wants a percentage such as `4%` or `2.5%` (at most {MAX_PROFILING_COST_PERCENT} %), got {rest:?}",
                    i + 1
                )
            })?),
            "error" => Directive::Error,
            "print" => Directive::Print(rest.to_owned()),
            "build-error" => Directive::BuildError,
            "read" => Directive::Read(rest.trim().to_owned()),
            "write" => Directive::Write(rest.trim().to_owned()),
            "connect" => Directive::Connect(rest.trim().to_owned()),
            "heartbeats" => Directive::Heartbeats(rest.trim().parse().map_err(|_| {
                format!(
                    "line {}: `heartbeats` wants a whole number such as `52000`, got {rest:?}",
                    i + 1
                )
            })?),
            "instance-search" => {
                let (n, label) = rest.trim().split_once(' ').unwrap_or((rest.trim(), ""));
                match n.parse() {
                    Ok(n) if !label.trim().is_empty() => {
                        Directive::InstanceSearch(n, label.trim().to_owned())
                    }
                    _ => {
                        return Err(format!(
                            "line {}: `instance-search` wants a whole number and a label such as `3000 Add Nat`, got {rest:?}",
                            i + 1
                        ))
                    }
                }
            }
            "heartbeats-runs" => Directive::HeartbeatsRuns(parse_counts(rest.trim()).ok_or_else(|| {
                format!(
                    "line {}: `heartbeats-runs` wants 1 to {MAX_HEARTBEATS_RUNS} whole numbers separated by commas such as `100,150,120`, got {rest:?}",
                    i + 1
                )
            })?),
            "hb-entry" => Directive::HbEntry(crate::build_outputs::HbEntry::parse(rest).ok_or_else(|| {
                format!(
                    "line {}: `hb-entry` wants OWNER DECL PHASE N such as `Demo.t Demo.t.eq_1 elab 52000`, got {rest:?}",
                    i + 1
                )
            })?),
            "run-log" if !rest.trim().is_empty() => Directive::RunLog(rest.trim().to_owned()),
            "run-log" => return Err(format!("line {}: `run-log` wants a path", i + 1)),
            "alloc" => Directive::Alloc(parse_mib(rest.trim()).ok_or_else(|| {
                format!(
                    "line {}: `alloc` wants mebibytes such as `300MB` (at most {MAX_ALLOC_MIB}), got {rest:?}",
                    i + 1
                )
            })?),
            "hang" if rest.trim().is_empty() => Directive::Hang,
            "hang" => return Err(format!("line {}: `hang` takes no arguments", i + 1)),
            "peak-log" if !rest.trim().is_empty() => Directive::PeakLog(rest.trim().to_owned()),
            "peak-log" => return Err(format!("line {}: `peak-log` wants a path", i + 1)),
            other => return Err(format!("line {}: unknown directive {other:?}", i + 1)),
        };
        out.push((i + 1, d));
    }
    Ok(out)
}

/// `4%` or `2.5%` in hundredths of a percent (at most two decimals).
fn parse_percent(s: &str) -> Option<u32> {
    let n = s.strip_suffix('%')?;
    let (whole, frac) = n.split_once('.').unwrap_or((n, ""));
    if whole.is_empty()
        || frac.len() > 2
        || !(whole.bytes().chain(frac.bytes())).all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let whole: u32 = whole.parse().ok()?;
    let frac: u32 = format!("{frac:0<2}").parse().ok()?;
    let v = whole.checked_mul(100)?.checked_add(frac)?;
    (v <= MAX_PROFILING_COST_PERCENT * 100).then_some(v)
}

/// `100,150,120`: at least one count, at most [`MAX_HEARTBEATS_RUNS`].
fn parse_counts(s: &str) -> Option<Vec<u64>> {
    let v: Vec<u64> = s
        .split(',')
        .map(|n| n.parse().ok())
        .collect::<Option<_>>()?;
    (!v.is_empty() && v.len() <= MAX_HEARTBEATS_RUNS).then_some(v)
}

/// Logs this run of `file` to `log` and returns its number: how many
/// runs of `file` the log held before.
fn log_run(log: &str, file: &str) -> Result<usize, String> {
    use std::io::Write;
    let before = match std::fs::read_to_string(log) {
        Ok(text) => text.lines().filter(|l| *l == file).count(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => 0,
        Err(e) => return Err(format!("cannot read the run log {log}: {e}")),
    };
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .and_then(|mut f| f.write_all(format!("{file}\n").as_bytes()))
        .map_err(|e| format!("cannot append to the run log {log}: {e}"))?;
    Ok(before)
}

/// `300MB`: mebibytes (2^20 bytes), at most [`MAX_ALLOC_MIB`].
fn parse_mib(s: &str) -> Option<u64> {
    let n: u64 = s.strip_suffix("MB")?.parse().ok()?;
    (n <= MAX_ALLOC_MIB).then_some(n)
}

/// `mib` mebibytes with every page written, so that they are resident (not only reserved).
fn allocate_touched(mib: u64) -> Vec<u8> {
    const PAGE: usize = 4096;
    let len = usize::try_from(mib).unwrap_or(0).saturating_mul(1 << 20);
    let mut block = vec![0u8; len];
    for i in (0..len).step_by(PAGE) {
        block[i] = 1;
    }
    std::hint::black_box(&mut block);
    block
}

/// Sleeps in steps of [`HANG_STEP`] for [`MAX_HANG`]: a command that never finishes, as far
/// as any test waits, but that a signal stops at once.
fn hang() {
    let until = std::time::Instant::now() + MAX_HANG;
    while std::time::Instant::now() < until {
        std::thread::sleep(HANG_STEP);
    }
}

/// The peak resident memory of this process (`VmHWM` of `/proc/self/status`), in bytes.
fn peak_resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line
        .trim_start_matches("VmHWM:")
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kb * 1024)
}

/// The 1-based line of the command `line` belongs to: the nearest line at or above it whose
/// text starts at column 0.
fn command_head(source: &str, line: usize) -> usize {
    (1..=line)
        .rev()
        .find(|&l| {
            let t = source.lines().nth(l - 1).unwrap_or("");
            !t.is_empty() && !t.starts_with(char::is_whitespace)
        })
        .unwrap_or(line)
}

fn parse_ms(s: &str) -> Option<Duration> {
    let ms: u64 = s.strip_suffix("ms")?.parse().ok()?;
    let d = Duration::from_millis(ms);
    (d <= MAX_COST).then_some(d)
}

/// The process's CPU time so far.
#[cfg(windows)]
fn cpu_time() -> Duration {
    use windows_sys::Win32::Foundation::FILETIME;
    use windows_sys::Win32::System::Threading::{GetCurrentProcess, GetProcessTimes};
    let zero = FILETIME {
        dwLowDateTime: 0,
        dwHighDateTime: 0,
    };
    let (mut created, mut exited, mut kernel, mut user) = (zero, zero, zero, zero);
    // SAFETY: the pseudo-handle of this process and four FILETIMEs to fill.
    unsafe {
        GetProcessTimes(
            GetCurrentProcess(),
            &mut created,
            &mut exited,
            &mut kernel,
            &mut user,
        );
    }
    // 100-nanosecond units.
    let ticks = |t: FILETIME| (u64::from(t.dwHighDateTime) << 32) | u64::from(t.dwLowDateTime);
    Duration::from_nanos((ticks(kernel) + ticks(user)).saturating_mul(100))
}

/// The process's CPU time so far.
#[cfg(unix)]
fn cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid pointer to a timespec the call fills.
    unsafe {
        libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts);
    }
    Duration::new(
        ts.tv_sec.max(0) as u64,
        ts.tv_nsec.clamp(0, 999_999_999) as u32,
    )
}

/// Spends `cost` of CPU time on top of what the process has used.
pub fn burn(cost: Duration) {
    let until = cpu_time() + cost;
    let mut x: u64 = 1;
    while cpu_time() < until {
        for _ in 0..10_000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
        }
        std::hint::black_box(x);
    }
}

/// `lean FILE` on a source with directives: returns the exit status, or
/// `None` when the source has none.
pub fn lean(file: &str, json: bool, tracing: Tracing, profile_output: Option<&str>) -> Option<i32> {
    let began = std::time::Instant::now();
    let source = std::fs::read_to_string(file).ok()?;
    let list = match directives(&source) {
        Ok(l) if l.is_empty() => return None,
        Ok(l) => l,
        Err(e) => {
            eprintln!("fake-lean: {file}: {e}");
            return Some(crate::EXIT_FAKE_MISCONFIGURED);
        }
    };
    let mut code = 0;
    let cost: Duration = list
        .iter()
        .filter_map(|(_, d)| match d {
            Directive::Cost(c) => Some(*c),
            _ => None,
        })
        .sum();
    let mut run = 0;
    for (_, d) in &list {
        if let Directive::RunLog(log) = d {
            match log_run(log, file) {
                Ok(k) => run = k,
                Err(e) => {
                    eprintln!("fake-lean: {file}: {e}");
                    return Some(crate::EXIT_FAKE_MISCONFIGURED);
                }
            }
        }
    }
    let mut traces: Vec<TracedCommand> = Vec::new();
    let mut timed: Vec<TracedCommand> = Vec::new();
    // Lean reports a command's messages when the command is done, before the next one starts
    // (`fixtures/README.md`, "When Lean prints a command's messages"): the traces of the
    // commands before a directive's are printed when it is reached.
    let mut printed = (0usize, 0usize);
    let mut head = None;
    let mut held: Vec<Vec<u8>> = Vec::new();
    let mut peak_logs = Vec::new();
    for (line, d) in list {
        let this_head = command_head(&source, line);
        // An instance search belongs to the command above it, wherever it is written.
        if head.is_some_and(|h| h != this_head) && !matches!(d, Directive::InstanceSearch(..)) {
            print_finished(file, json, tracing, &traces, &timed, &mut printed);
        }
        head = Some(this_head);
        let d = match d {
            Directive::HeartbeatsRuns(counts) => Directive::Heartbeats(counts[run % counts.len()]),
            d => d,
        };
        match d {
            Directive::Heartbeats(n) => add_node(&mut traces, &source, line, false, n as f64),
            Directive::InstanceSearch(n, label) => match traces.last_mut() {
                Some(cmd) => cmd.steps.push((n as f64, label, SYNTH_INSTANCE)),
                None => {
                    eprintln!("fake-lean: {file}: line {line}: `instance-search` needs a command with `heartbeats` above it");
                    return Some(crate::EXIT_FAKE_MISCONFIGURED);
                }
            },
            Directive::Cost(c) => {
                add_node(&mut timed, &source, line, true, c.as_secs_f64());
                burn(c)
            }
            Directive::ProfilingCost(hundredths) if tracing.profiling => {
                burn(cost * hundredths / 10_000);
            }
            Directive::ProfilingCost(_) => {}
            // Written by `lake build` into the module's `.hb.json`; elaborating prints nothing.
            Directive::HbEntry(_) => {}
            Directive::Print(text) => {
                println!("{text}");
                eprintln!("{text}");
            }
            Directive::Read(path) => match std::fs::read(&path) {
                Ok(_) => println!("read {path}"),
                Err(e) => {
                    code = 1;
                    report(file, line, json, &format!("cannot read {path}: {e}"));
                }
            },
            Directive::Write(path) => match std::fs::write(&path, "written by the fake lean\n") {
                Ok(()) => println!("wrote {path}"),
                Err(e) => {
                    code = 1;
                    report(file, line, json, &format!("cannot write {path}: {e}"));
                }
            },
            Directive::Connect(addr) => {
                let result = addr
                    .parse::<std::net::SocketAddr>()
                    .map_err(|e| e.to_string())
                    .and_then(|a| {
                        std::net::TcpStream::connect_timeout(&a, Duration::from_secs(2))
                            .map_err(|e| e.to_string())
                    });
                match result {
                    Ok(_) => println!("connected to {addr}"),
                    Err(e) => {
                        code = 1;
                        report(file, line, json, &format!("cannot connect to {addr}: {e}"));
                    }
                }
            }
            Directive::Error => {
                code = 1;
                report(
                    file,
                    line,
                    json,
                    "leanscope-fake: an error asked for by the source",
                );
            }
            Directive::Alloc(mib) => held.push(allocate_touched(mib)),
            Directive::Hang => hang(),
            Directive::PeakLog(path) => peak_logs.push(path),
            Directive::BuildError | Directive::RunLog(_) | Directive::HeartbeatsRuns(_) => {}
        }
    }
    print_finished(file, json, tracing, &traces, &timed, &mut printed);
    if tracing.heartbeats {
        if let Some(path) = profile_output {
            let elapsed = u64::try_from(began.elapsed().as_nanos()).unwrap_or(u64::MAX);
            let frontend = (FRONTEND_START_NS, FRONTEND_START_NS.saturating_add(elapsed));
            let profile = crate::huge::heartbeat_profile(
                &module_name(file),
                frontend,
                &heartbeat_nodes(&traces, tracing.threshold),
            );
            if let Err(e) = std::fs::write(path, profile) {
                eprintln!("uncaught exception: {path}: {e}");
                return Some(1);
            }
        }
    }
    for path in peak_logs {
        let peak = peak_resident_bytes().map_or_else(|| "unknown".to_owned(), |b| b.to_string());
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .and_then(|mut f| std::io::Write::write_all(&mut f, format!("{peak}\n").as_bytes()));
        if let Err(e) = written {
            eprintln!("fake-lean: {file}: cannot append to the peak log {path}: {e}");
            return Some(crate::EXIT_FAKE_MISCONFIGURED);
        }
    }
    drop(held);
    Some(code)
}

/// Prints the trace messages of the commands traced so far that were not printed yet
/// (`printed`: how many of `traces` and of `timed` were), as Lean reports a finished command's.
fn print_finished(
    file: &str,
    json: bool,
    tracing: Tracing,
    traces: &[TracedCommand],
    timed: &[TracedCommand],
    printed: &mut (usize, usize),
) {
    if tracing.heartbeats {
        for cmd in traces[printed.0..]
            .iter()
            .filter(|c| c.value > tracing.threshold as f64)
        {
            print_trace(file, json, cmd, tracing.threshold as f64, None);
        }
    } else if tracing.profiling && printed.1 < timed.len() {
        // The threshold is in milliseconds; the trace prints seconds.
        let threshold = tracing.threshold as f64 / 1000.0;
        let dialect = crate::fixtures_dir()
            .and_then(|dir| crate::cases::load_toolchain(&dir))
            .map(|tc| tc.dialect)
            .ok();
        for cmd in timed[printed.1..].iter().filter(|c| c.value > threshold) {
            print_trace(file, json, cmd, threshold, dialect.as_ref());
        }
    }
    *printed = (traces.len(), timed.len());
}

/// The monotonic clock (ns) the fake says its frontend started at, as `meta.startTime` of a
/// heartbeat profile (the real one reads `IO.monoNanosNow`).
const FRONTEND_START_NS: u64 = 259_231_447_812_903;

/// Heartbeats the counter stands at when the first command starts (what importing used).
const HEARTBEATS_BEFORE_FIRST_COMMAND: u64 = 1_000;

/// `Demo/Heavy.lean` → `Demo.Heavy`: the main thread's name.
fn module_name(file: &str) -> String {
    file.strip_suffix(".lean")
        .unwrap_or(file)
        .trim_start_matches("./")
        .replace('/', ".")
}

/// The commands and steps over the threshold as heartbeat-timed nodes: commands one after the
/// other on the counter, each command's steps back to back from its start (a command's count
/// includes its steps').
fn heartbeat_nodes(traces: &[TracedCommand], threshold: u64) -> Vec<crate::huge::HeartbeatNode> {
    use crate::huge::HeartbeatNode;
    let mut counter = HEARTBEATS_BEFORE_FIRST_COMMAND;
    let mut nodes = Vec::new();
    for cmd in traces {
        let start = counter;
        let heartbeats = cmd.value as u64;
        let stop = start.saturating_add(heartbeats);
        counter = stop;
        if heartbeats <= threshold {
            continue;
        }
        let mut at = start;
        let mut children = Vec::new();
        for (n, text, cls) in &cmd.steps {
            let n = *n as u64;
            let step_start = at;
            at = at.saturating_add(n);
            if n > threshold {
                children.push(HeartbeatNode {
                    cls,
                    text: text.clone(),
                    start: step_start,
                    stop: at,
                    children: Vec::new(),
                });
            }
        }
        nodes.push(HeartbeatNode {
            cls: "Elab.command",
            text: cmd.text.clone(),
            start,
            stop: stop.max(at),
            children,
        });
    }
    nodes
}

/// A command with `heartbeats` (or `cost`) directives: its own count and its steps'.
struct TracedCommand {
    /// 1-based.
    line: usize,
    /// Where the command's text ends (its last step's line): Lean's `endPos`.
    end: (u64, u64),
    text: String,
    /// Heartbeats, or seconds.
    value: f64,
    /// Each step's count, text and class (`Elab.step`, or `Meta.synthInstance`).
    steps: Vec<(f64, String, &'static str)>,
}

/// The class of an instance search's trace node.
const SYNTH_INSTANCE: &str = "Meta.synthInstance";

/// Adds the node of the directive on `line` to `nodes`: a command when the line's code starts
/// at column 0, else a step of the command above. With `sum_into_command`, a step's value is
/// counted in its command's too (clock times nest; the heartbeat directives give each node its
/// own count), and a step with no command above it starts one at the nearest line at column 0
/// before it.
fn add_node(
    nodes: &mut Vec<TracedCommand>,
    source: &str,
    line: usize,
    sum_into_command: bool,
    value: f64,
) {
    let text = source.lines().nth(line - 1).unwrap_or("");
    let code_text = text[..text.find(DIRECTIVE).unwrap_or(text.len())].trim_end();
    let indented = code_text.starts_with(char::is_whitespace);
    let end = (line as u64, code_text.chars().count() as u64);
    if sum_into_command && indented {
        let head = (1..line)
            .rev()
            .find(|&l| {
                let t = source.lines().nth(l - 1).unwrap_or("");
                !t.is_empty() && !t.starts_with(char::is_whitespace)
            })
            .unwrap_or(line);
        if nodes.last().is_none_or(|c| c.line != head) {
            let head_text = source.lines().nth(head - 1).unwrap_or("");
            let head_text = &head_text[..head_text.find(DIRECTIVE).unwrap_or(head_text.len())];
            nodes.push(TracedCommand {
                line: head,
                end,
                text: head_text.trim().to_owned(),
                value: 0.0,
                steps: Vec::new(),
            });
        }
    }
    match nodes.last_mut() {
        Some(cmd) if indented => {
            cmd.steps
                .push((value, code_text.trim().to_owned(), "Elab.step"));
            cmd.end = end;
            if sum_into_command {
                cmd.value += value;
            }
        }
        Some(cmd) if sum_into_command && cmd.line == line => {
            cmd.value += value;
        }
        _ => nodes.push(TracedCommand {
            line,
            end,
            text: code_text.trim().to_owned(),
            value,
            steps: Vec::new(),
        }),
    }
}

/// The trace message of one command, as `addTraceAsMessages` reports it: at the command's
/// range, kind `trace`; nodes at or under the threshold are left out. The text is in the
/// reference layout, or the one `dialect`'s release line prints.
fn print_trace(
    file: &str,
    json: bool,
    cmd: &TracedCommand,
    threshold: f64,
    dialect: Option<&crate::dialect::Dialect>,
) {
    use crate::lean_format::float_to_string;
    let mut data = format!(
        "[Elab.command] [{}] {}",
        float_to_string(cmd.value),
        cmd.text
    );
    for (n, text, cls) in cmd.steps.iter().filter(|(n, _, _)| *n > threshold) {
        data.push_str(&format!("\n  [{cls}] [{}] {text}", float_to_string(*n)));
    }
    if !json {
        println!("{}", dialect.map_or(data.clone(), |d| d.trace_text(&data)));
        return;
    }
    let line = crate::lean_format::message_line(
        file,
        (cmd.line as u64, 0),
        Some(cmd.end),
        "information",
        &data,
        "trace",
    );
    match dialect.map(|d| d.message_line(&line, &|_, _| None)) {
        Some(Ok(l)) => println!("{l}"),
        Some(Err(e)) => eprintln!("fake-lean: {file}: {e}"),
        None => println!("{line}"),
    }
}

/// An error message as Lean prints it, at `line`.
fn report(file: &str, line: usize, json: bool, msg: &str) {
    if json {
        println!(
            "{{\"caption\":\"\",\"data\":{},\"endPos\":null,\"fileName\":{},\"isSilent\":false,\"keepFullRange\":false,\"pos\":{{\"column\":0,\"line\":{line}}},\"severity\":\"error\"}}",
            crate::lean_format::json_string(msg),
            crate::lean_format::json_string(file)
        );
    } else {
        println!("{file}:{line}:0: error: {msg}");
    }
}

/// `lake build [TARGETS…]` in the current directory: fails, naming the
/// file, when a `.lean` file outside hidden and `build` folders carries
/// `build-error`; otherwise says the build completed.
pub fn lake_build() -> i32 {
    let mut stack = vec![std::path::PathBuf::from(".")];
    let mut failed = Vec::new();
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            eprintln!("error: cannot read {}", dir.display());
            return 1;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let Ok(kind) = e.file_type() else { continue };
            if name.starts_with('.') || name == "build" {
                continue;
            }
            if kind.is_dir() {
                stack.push(e.path());
            } else if kind.is_file() && name.ends_with(".lean") && has_build_error(&e.path()) {
                failed.push(e.path());
            }
        }
    }
    if failed.is_empty() {
        if let Err(e) = crate::build_outputs::write_build_outputs(std::path::Path::new(".")) {
            eprintln!("error: {e}");
            return 1;
        }
        println!("Build completed successfully.");
        0
    } else {
        failed.sort();
        for f in &failed {
            println!(
                "error: {}: build failed (leanscope-fake: build-error)",
                f.display()
            );
        }
        println!("error: build failed");
        1
    }
}

fn has_build_error(path: &Path) -> bool {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|s| directives(&s).ok())
        .is_some_and(|l| l.iter().any(|(_, d)| *d == Directive::BuildError))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_directives() {
        let s = "def a := 1 -- leanscope-fake: cost 200ms\n-- leanscope-fake: print user 9.99\n-- leanscope-fake: error\n";
        assert_eq!(
            directives(s).unwrap(),
            vec![
                (1, Directive::Cost(Duration::from_millis(200))),
                (2, Directive::Print("user 9.99".into())),
                (3, Directive::Error),
            ]
        );
        assert!(directives("-- leanscope-fake: cost 2s\n").is_err());
        assert!(directives("-- leanscope-fake: cost 3600001ms\n").is_err());
        assert!(directives("-- leanscope-fake: frobnicate\n").is_err());
        assert_eq!(directives("def x := 1\n").unwrap(), vec![]);
        assert_eq!(
            directives("theorem t : True := by -- leanscope-fake: heartbeats 52000\n").unwrap(),
            vec![(1, Directive::Heartbeats(52_000))]
        );
        assert!(directives("-- leanscope-fake: heartbeats 5k\n").is_err());
        assert_eq!(
            directives("  simp -- leanscope-fake: instance-search 3000 Add Nat\n").unwrap(),
            vec![(1, Directive::InstanceSearch(3_000, "Add Nat".into()))]
        );
        assert!(directives("-- leanscope-fake: instance-search 3000\n").is_err());
    }

    #[test]
    fn reads_profiling_costs() {
        let one = |text: &str| directives(&format!("-- leanscope-fake: profiling-cost {text}\n"));
        assert_eq!(one("4%").unwrap(), vec![(1, Directive::ProfilingCost(400))]);
        assert_eq!(
            one("2.5%").unwrap(),
            vec![(1, Directive::ProfilingCost(250))]
        );
        assert_eq!(
            one("0.07%").unwrap(),
            vec![(1, Directive::ProfilingCost(7))]
        );
        assert_eq!(
            one("1000%").unwrap(),
            vec![(1, Directive::ProfilingCost(100_000))]
        );
        for bad in ["4", "%", "4.125%", "-1%", "1001%", "x%", "4 %", ".5%"] {
            let e = one(bad).unwrap_err();
            assert!(
                e.contains("`profiling-cost` wants a percentage"),
                "{bad}: {e}"
            );
        }
    }

    #[test]
    fn reads_counts_per_run_and_numbers_runs_by_the_log() {
        assert_eq!(
            directives("-- leanscope-fake: heartbeats-runs 100,150,120\n").unwrap(),
            vec![(1, Directive::HeartbeatsRuns(vec![100, 150, 120]))]
        );
        for bad in ["", "1,,2", "1, 2", "x", "-1"] {
            let e = directives(&format!("-- leanscope-fake: heartbeats-runs {bad}\n")).unwrap_err();
            assert!(e.contains("`heartbeats-runs` wants"), "{bad}: {e}");
        }
        assert!(directives("-- leanscope-fake: run-log\n").is_err());
        let dir = std::env::temp_dir().join(format!("fake-run-log-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let log = dir.join("runs.log");
        let log = log.to_str().unwrap();
        assert_eq!(log_run(log, "A.lean").unwrap(), 0);
        assert_eq!(log_run(log, "B.lean").unwrap(), 0);
        assert_eq!(log_run(log, "A.lean").unwrap(), 1);
        assert_eq!(
            std::fs::read_to_string(log).unwrap(),
            "A.lean\nB.lean\nA.lean\n"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn burns_cpu_time() {
        let before = cpu_time();
        burn(Duration::from_millis(50));
        assert!(cpu_time() - before >= Duration::from_millis(50));
    }
}
