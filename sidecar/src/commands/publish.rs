//! `leanscope publish`: a static copy of the viewer and a session's data
//! that works from any static web server (written by
//! `viewer::static_site`).

use std::path::PathBuf;

use anyhow::Result;

use crate::viewer::site::{self, Target};

#[derive(clap::Args)]
pub struct Args {
    /// A session directory (with session.json) or a recording (.lsrec).
    target: PathBuf,
    /// The new directory to write: refused when it exists and is not empty
    /// (an empty one is replaced). The site is written beside it and renamed
    /// into place, so a failure leaves no partial site.
    #[arg(long, short)]
    out: PathBuf,
    #[command(flatten)]
    diff: super::compare::DiffArgs,
}

pub fn run(a: Args) -> Result<u8> {
    site::require_built()?;
    let target = Target::open(&a.target)?;
    let diff = a.diff.document(&a.target)?;
    let copied = crate::viewer::static_site::write_site(target, diff.as_deref(), &a.out)?;
    println!(
        "{} ({} recording{}; open index.html through any static web server)",
        a.out.display(),
        copied,
        if copied == 1 { "" } else { "s" }
    );
    Ok(crate::exit::OK)
}
