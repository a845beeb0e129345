//! `leanscope`: find where Lean 4 spends its time.

mod commands;
mod output;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Exit codes (documented in the README).
pub mod exit {
    /// Success.
    pub const OK: u8 = 0;
    /// Usage error or invalid input.
    pub const USAGE: u8 = 2;
}

#[derive(Parser)]
#[command(
    name = "leanscope",
    version,
    about = "Find where Lean 4 spends its time"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Write a deterministic synthetic recording (same arguments, same bytes).
    Synth(commands::synth::Args),
    /// Print a recording's header facts, counts and validation issues.
    Info(commands::info::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Synth(a) => commands::synth::run(a),
        Command::Info(a) => commands::info::run(a),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("leanscope: error: {e:#}");
            ExitCode::from(exit::USAGE)
        }
    }
}
