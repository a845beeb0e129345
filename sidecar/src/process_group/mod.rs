//! A child process and everything it starts, stopped as one.
//!
//! Lean runs as `lake env lean …` (or `lake build`, or a sandbox's command):
//! stopping only the child would leave `lean` running with the pipes open.
//! A [`Group`] is what each platform offers for this:
//!
//! - **Unix**: the child leads a new process group, which a signal to the
//!   group reaches; a descendant that left the group (a sandbox's new
//!   session) is found below the child ([`leanscope::process_tree`]), and an orphan that left
//!   both by the run's tag in its environment ([`run_tag`], Linux).
//!   [`Group::terminate`] sends SIGTERM, [`Group::kill`] SIGKILL.
//! - **Windows**: the child starts suspended, is put in a Job Object with
//!   *kill on job close*, and only then runs, so that nothing it starts is
//!   outside the job. Windows has no polite stop for a console program that
//!   has no console of its own, so [`Group::terminate`] ends the job at once,
//!   as [`Group::kill`] does.
//!
//! The CPU time and peak memory of a group's processes (`leanscope bench`, an unsandboxed
//! `revisions run`) come from the kernel: `wait4`'s accounting of the child and what it
//! waited for on Unix, the job's accounting on Windows ([`Group::wait_with_usage`]).

pub mod run_tag;
#[cfg(unix)]
mod unix;
#[cfg(windows)]
mod windows;

#[cfg(unix)]
pub use unix::Group;
#[cfg(windows)]
pub use windows::Group;

/// What the kernel counted for a finished child and its descendants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Usage {
    /// User plus system CPU time.
    pub cpu: std::time::Duration,
    /// The peak memory: on Unix the largest resident set of the child and of each descendant
    /// it waited for (`ru_maxrss`, as GNU time's `%M`); on Windows the peak committed memory of
    /// the job's processes together. `None` when the kernel did not say.
    pub peak_memory_bytes: Option<u64>,
}
