//! A tag in the environment of everything a run starts, for stopping what
//! neither its process group nor its process tree still reaches.
//!
//! A revision sample runs `time bwrap … leanscope profile …`: bubblewrap's
//! command is in a session of its own, and if bubblewrap is stopped before
//! that command has set its parent-death signal, the command lives on as an
//! orphan (its parent is then init), holding the runner's pipes with Lean
//! running below it. A stop signals the group and the tree below the child
//! ([`super::process_tree`]); an orphan is in neither. Every run therefore
//! adds its own tag to [`VAR`] in its child's environment (a list, so that
//! a run started inside a run keeps the outer tags), a sandbox sets the same
//! value inside ([`RunTag::env_value`]), and a stop also signals every
//! process whose environment holds the tag ([`tagged`]).

#[cfg(unix)]
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// The environment variable: the tags of the runs a process belongs to,
/// separated by `:`.
pub const VAR: &str = "LEANSCOPE_RUN";

/// The tag of one run: this process's id, the time it was made and a
/// counter, so that no other run on the machine has it.
#[derive(Debug, Clone)]
pub struct RunTag(Arc<str>);

impl Default for RunTag {
    fn default() -> Self {
        Self::new()
    }
}

impl RunTag {
    pub fn new() -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        RunTag(format!("{}.{nanos}.{n}", std::process::id()).into())
    }

    /// [`VAR`]'s value for the run's child: the tags this process runs
    /// under, then this run's.
    pub fn env_value(&self) -> String {
        match std::env::var(VAR) {
            Ok(outer) if !outer.is_empty() => format!("{outer}:{}", self.0),
            _ => self.0.to_string(),
        }
    }

    /// Whether [`VAR`]'s value `value` holds this tag.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    fn is_in(&self, value: &[u8]) -> bool {
        value.split(|&b| b == b':').any(|t| t == self.0.as_bytes())
    }
}

/// The processes (other than this one) whose environment holds `tag`, read
/// from `/proc/PID/environ`; those that cannot be read (gone, or another
/// user's) are skipped. Linux only: the orphans it finds come from
/// bubblewrap's sandbox, which only Linux has; elsewhere none is found.
#[cfg(target_os = "linux")]
pub fn tagged(tag: &RunTag) -> BTreeSet<libc::pid_t> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return BTreeSet::new();
    };
    let me = std::process::id() as libc::pid_t;
    let prefix = format!("{VAR}=");
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<libc::pid_t>().ok())
        .filter(|&pid| pid != me)
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ")).is_ok_and(|env| {
                env.split(|&b| b == 0)
                    .filter_map(|kv| kv.strip_prefix(prefix.as_bytes()))
                    .any(|v| tag.is_in(v))
            })
        })
        .collect()
}

/// No sandbox outside Linux leaves tagged orphans: none is looked for.
#[cfg(all(unix, not(target_os = "linux")))]
pub fn tagged(_tag: &RunTag) -> BTreeSet<libc::pid_t> {
    BTreeSet::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_are_distinct_and_matched_whole() {
        let (a, b) = (RunTag::new(), RunTag::new());
        assert_ne!(a.0, b.0);
        let value = format!("x:{}:y", a.0);
        assert!(a.is_in(value.as_bytes()));
        assert!(!b.is_in(value.as_bytes()));
        // A tag that another one begins with is not it.
        assert!(!a.is_in(format!("{}0", a.0).as_bytes()));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn finds_a_process_by_its_tag_and_not_by_anothers() {
        let (tag, other) = (RunTag::new(), RunTag::new());
        let mut child = std::process::Command::new("/bin/sleep")
            .arg("30")
            .env(VAR, format!("outer:{}", tag.0))
            .spawn()
            .unwrap();
        let pid = child.id() as libc::pid_t;
        let found = tagged(&tag);
        let not = tagged(&other);
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(found.contains(&pid), "{found:?}");
        assert!(!not.contains(&pid));
    }
}
