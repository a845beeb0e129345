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
//! The CPU time of a group's processes (`leanscope bench`) comes from
//! the kernel: `wait4`'s accounting of the child and what it waited for on
//! Unix, the job's accounting on Windows ([`Group::wait_with_cpu`]).

pub mod run_tag;
#[cfg(unix)]
mod unix;
#[cfg(windows)]
mod windows;

#[cfg(unix)]
pub use unix::Group;
#[cfg(windows)]
pub use windows::Group;
