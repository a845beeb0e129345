//! `leanscope view`: serves the viewer for a session, a recording, an
//! imported file or a profiled revision run on 127.0.0.1 (the server is
//! `viewer::server`).

use std::path::PathBuf;

use anyhow::Result;

use crate::viewer::site::{self, Target};

#[derive(clap::Args)]
pub struct Args {
    /// A session directory (with session.json) or a recording (.lsrec).
    target: PathBuf,
    /// Port on 127.0.0.1 (0 picks a free one).
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// Print the URL without opening a browser.
    #[arg(long)]
    no_open: bool,
    #[command(flatten)]
    diff: super::compare::DiffArgs,
}

pub fn run(a: Args) -> Result<u8> {
    site::require_built()?;
    let mut a = a;
    // A profiled revision run's workspace: its head session, diffed with
    // its base session, on the Diff tab.
    let mut fragment = "";
    if a.target.join("report.json").is_file() && a.target.join("plan.json").is_file() {
        let Some((base, head)) = crate::revisions::profile::sessions_of(&a.target) else {
            anyhow::bail!(
                "{} is a revision run made without --profile: it has no recordings to view (read its report.md)",
                a.target.display()
            );
        };
        if a.diff.baseline.is_none() {
            a.diff.baseline = Some(base);
        }
        a.target = head;
        fragment = "#tab=diff";
    }
    let target = Target::open(&a.target)?;
    let diff = a.diff.document(&a.target)?;
    crate::viewer::server::run(target, diff, a.port, fragment, !a.no_open)?;
    Ok(crate::exit::OK)
}
