//! `leanscope serve`: JSON-RPC over stdio for editors and scripts.

use anyhow::Result;

#[derive(clap::Args)]
pub struct Args {
    /// Talk over stdin/stdout (the only transport; accepted because
    /// language clients pass it).
    #[arg(long)]
    stdio: bool,
}

pub fn run(a: Args) -> Result<u8> {
    let _ = a.stdio;
    crate::serve::run()
}
