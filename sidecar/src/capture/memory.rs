//! Sampling the resident memory of Lean's process tree while a capture runs: `lake`, the
//! `lean` it starts and whatever those start. The capture's runner (`process::run_watched` in the binary)
//! calls [`MemorySampler::poll`] as it waits; a sample is taken every interval, and a limit
//! stops the run once the tree passes it.
//!
//! On Linux the tree is walked through `/proc/PID/task/TID/children` and each process's
//! resident set is read from `/proc/PID/statm`: a few small reads per sample, no scan of
//! every process. On macOS `libproc` gives the tree and each task's resident size; on Windows
//! `sysinfo` lists the processes and their resident memory.

use std::time::{Duration, Instant};

use crate::limits::{MAX_MEMORY_SAMPLES, MAX_SAMPLED_PROCESSES};
use recording::memory::MemoryTrack;

/// The tree's resident memory passed the limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OverLimit {
    pub limit: u64,
    pub reached: u64,
}

/// The default sampling interval: fine enough to see a declaration that runs for a tenth of a
/// second grow, cheap enough to cost leanscope well under 1 % of a core (`docs/benchmarks.md`).
pub const DEFAULT_INTERVAL: Duration = Duration::from_millis(20);

/// The shortest interval `--memory-interval` accepts.
pub const MIN_INTERVAL: Duration = Duration::from_millis(1);

/// Samples a run's tree and watches its limit.
pub struct MemorySampler {
    interval: Duration,
    limit: Option<u64>,
    started: Instant,
    next: Instant,
    /// (ns since the start, bytes).
    samples: Vec<(u64, u64)>,
    /// Kept over thinning: the highest sample.
    peak: (u64, u64),
    /// CPU time spent sampling (this thread's), for the benchmark.
    spent: Duration,
    tree: Tree,
}

impl MemorySampler {
    /// A sampler whose clock starts now (just before Lean is started).
    pub fn new(interval: Duration, limit: Option<u64>) -> Self {
        let interval = interval.max(MIN_INTERVAL);
        let now = Instant::now();
        MemorySampler {
            interval,
            limit,
            started: now,
            next: now,
            samples: Vec::new(),
            peak: (0, 0),
            spent: Duration::ZERO,
            tree: Tree::new(),
        }
    }

    /// Takes a sample of the tree under `root` if one is due; says to stop the run when the
    /// tree passed the limit.
    pub fn poll(&mut self, root: u32) -> Option<OverLimit> {
        let now = Instant::now();
        if now < self.next {
            return None;
        }
        self.next = now + self.interval;
        let cpu = thread_cpu();
        let bytes = self.tree.resident_bytes(root);
        self.spent += thread_cpu().saturating_sub(cpu);
        let bytes = bytes?;
        let at = u64::try_from(now.duration_since(self.started).as_nanos()).unwrap_or(u64::MAX);
        if bytes > self.peak.1 {
            self.peak = (at, bytes);
        }
        if self.samples.len() >= MAX_MEMORY_SAMPLES {
            // Every other sample goes, and the interval doubles: a long run keeps its shape.
            let mut i = 0;
            self.samples.retain(|_| {
                i += 1;
                i % 2 == 1
            });
            self.interval *= 2;
        }
        self.samples.push((at, bytes));
        match self.limit {
            Some(limit) if bytes > limit => Some(OverLimit {
                limit,
                reached: bytes,
            }),
            _ => None,
        }
    }

    /// Whether a sample was taken: a run too short for one has no track.
    pub fn has_samples(&self) -> bool {
        !self.samples.is_empty()
    }

    /// CPU time this sampler has spent on its samples so far.
    pub fn cpu_spent(&self) -> Duration {
        self.spent
    }

    /// Nanoseconds since the sampler's clock started.
    pub fn elapsed_ns(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }

    /// The samples as a recording's track (no commands attributed yet).
    pub fn into_track(self) -> MemoryTrack {
        let mut track = MemoryTrack::new(
            u64::try_from(self.interval.as_nanos()).unwrap_or(u64::MAX),
            self.samples,
        );
        // The true peak, also when thinning dropped its sample.
        if self.peak.1 > track.peak_bytes {
            (track.peak_at_ns, track.peak_bytes) = self.peak;
        }
        track
    }
}

/// CPU time of the calling thread.
fn thread_cpu() -> Duration {
    crate::cpu_clock::thread_cpu_time()
}

/// How a process tree's resident memory is read on this platform.
#[cfg(target_os = "linux")]
struct Tree {
    page: u64,
}

#[cfg(target_os = "linux")]
impl Tree {
    fn new() -> Self {
        // SAFETY: sysconf has no memory effects.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        Tree {
            page: u64::try_from(page).ok().filter(|&p| p > 0).unwrap_or(4096),
        }
    }

    /// The resident bytes of `root` and its descendants; `None` when `root` is gone.
    fn resident_bytes(&mut self, root: u32) -> Option<u64> {
        let mut total = 0u64;
        let mut stack = vec![root];
        let mut seen = 0usize;
        let mut root_seen = false;
        while let Some(pid) = stack.pop() {
            seen += 1;
            if seen > MAX_SAMPLED_PROCESSES {
                break;
            }
            // A process with no resident page has exited (a zombie not
            // yet reaped): it is not sampled.
            let Some(pages) = statm_resident(pid).filter(|&p| p > 0) else {
                continue;
            };
            root_seen |= pid == root;
            total = total.saturating_add(pages.saturating_mul(self.page));
            children(pid, &mut stack);
        }
        root_seen.then_some(total)
    }
}

/// The resident pages of `pid` (the second field of `/proc/PID/statm`).
#[cfg(target_os = "linux")]
fn statm_resident(pid: u32) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/statm")).ok()?;
    text.split_ascii_whitespace().nth(1)?.parse().ok()
}

/// Pushes the children of every thread of `pid` onto `out`.
#[cfg(target_os = "linux")]
fn children(pid: u32, out: &mut Vec<u32>) {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return;
    };
    for task in tasks.flatten() {
        let mut path = task.path();
        path.push("children");
        if let Ok(list) = std::fs::read_to_string(&path) {
            out.extend(
                list.split_ascii_whitespace()
                    .filter_map(|p| p.parse::<u32>().ok()),
            );
        }
    }
}

/// macOS: the tree from `libproc` (as a stop finds it), each process's
/// resident size from its task information. (Not `sysinfo`: it links
/// Apple's frameworks, which a build without Apple's SDK cannot.)
#[cfg(target_os = "macos")]
struct Tree;

#[cfg(target_os = "macos")]
impl Tree {
    fn new() -> Self {
        Tree
    }

    /// The resident bytes of `root` and its descendants; `None` when `root` is gone.
    fn resident_bytes(&mut self, root: u32) -> Option<u64> {
        let root = libc::pid_t::try_from(root).ok()?;
        let mut total = task_resident(root)?;
        for pid in crate::process_tree::descendants(root)
            .into_iter()
            .take(MAX_SAMPLED_PROCESSES)
        {
            total = total.saturating_add(task_resident(pid).unwrap_or(0));
        }
        Some(total)
    }
}

/// The resident bytes of `pid` (`proc_pidinfo`'s task information).
#[cfg(target_os = "macos")]
fn task_resident(pid: libc::pid_t) -> Option<u64> {
    let size = std::mem::size_of::<libc::proc_taskinfo>() as libc::c_int;
    // SAFETY: an all-zero proc_taskinfo is valid; the call fills at most
    // `size` bytes of it.
    let mut info: libc::proc_taskinfo = unsafe { std::mem::zeroed() };
    let got = unsafe {
        libc::proc_pidinfo(
            pid,
            libc::PROC_PIDTASKINFO,
            0,
            (&mut info as *mut libc::proc_taskinfo).cast(),
            size,
        )
    };
    (got == size).then_some(info.pti_resident_size)
}

#[cfg(windows)]
struct Tree {
    system: sysinfo::System,
}

#[cfg(windows)]
impl Tree {
    fn new() -> Self {
        Tree {
            system: sysinfo::System::new(),
        }
    }

    /// The resident bytes of `root` and its descendants; `None` when `root` is gone.
    fn resident_bytes(&mut self, root: u32) -> Option<u64> {
        use sysinfo::{Pid, ProcessRefreshKind, ProcessesToUpdate};
        self.system.refresh_processes_specifics(
            ProcessesToUpdate::All,
            true,
            ProcessRefreshKind::nothing().with_memory(),
        );
        let processes = self.system.processes();
        let root = Pid::from_u32(root);
        processes.get(&root)?;
        let mut in_tree = vec![root];
        let mut total = 0u64;
        let mut i = 0;
        while let Some(&pid) = in_tree.get(i) {
            i += 1;
            if i > MAX_SAMPLED_PROCESSES {
                break;
            }
            if let Some(p) = processes.get(&pid) {
                total = total.saturating_add(p.memory());
            }
            in_tree.extend(
                processes
                    .iter()
                    .filter(|(_, p)| p.parent() == Some(pid))
                    .map(|(&child, _)| child),
            );
        }
        Some(total)
    }
}

/// `300M`, `2G`, `512K`, `1000000` (bytes): a size given on the command line, in bytes.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let (digits, unit) = match t.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => t.split_at(i),
        None => (t, ""),
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("{text:?} is not a size such as 200M, 2G or 512K"))?;
    let scale: u64 = match unit.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 1,
        "K" | "KB" | "KIB" => 1 << 10,
        "M" | "MB" | "MIB" => 1 << 20,
        "G" | "GB" | "GIB" => 1 << 30,
        "T" | "TB" | "TIB" => 1 << 40,
        _ => return Err(format!("{text:?} is not a size such as 200M, 2G or 512K")),
    };
    n.checked_mul(scale)
        .filter(|&b| b > 0)
        .ok_or_else(|| format!("{text:?} is not a size leanscope can watch for"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("200M"), Ok(200 << 20));
        assert_eq!(parse_size("2G"), Ok(2 << 30));
        assert_eq!(parse_size("512k"), Ok(512 << 10));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert!(parse_size("2X").is_err());
        assert!(parse_size("M").is_err());
        assert!(parse_size("0").is_err());
    }

    #[test]
    fn samples_this_process_and_stops_past_the_limit() {
        let me = std::process::id();
        let mut s = MemorySampler::new(Duration::from_millis(1), None);
        assert!(s.poll(me).is_none());
        let track = s.into_track();
        assert_eq!(track.samples.len(), 1);
        assert!(track.peak_bytes > 1 << 20, "{}", track.peak_bytes);
        let mut s = MemorySampler::new(Duration::from_millis(1), Some(1 << 20));
        assert!(
            matches!(s.poll(me), Some(OverLimit { limit, reached }) if limit == 1 << 20 && reached > limit)
        );
    }

    #[test]
    fn a_gone_process_gives_no_sample() {
        let mut s = MemorySampler::new(Duration::from_millis(1), None);
        assert!(s.poll(u32::MAX - 7).is_none());
        assert!(s.into_track().samples.is_empty());
    }
}
