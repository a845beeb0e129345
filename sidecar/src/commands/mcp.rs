//! `leanscope mcp`: a Model Context Protocol server on stdin/stdout for agents.

use std::path::PathBuf;

use anyhow::Result;

#[derive(clap::Args)]
#[command(after_help = "\
Tools: profile_file, profile_declaration, query, hot_spots, compare, revisions; resources:
leanscope://recording/<path> and leanscope://session/<path>. Configure an MCP client to run
`leanscope mcp` in the project's folder (docs/mcp.md). The server ends when its client closes
stdin; work still running is stopped (Lean too).")]
pub struct Args {
    /// Relative paths in tool arguments are under this folder, and resources are listed from
    /// its .leanscope/ (default: the current directory).
    #[arg(long, value_name = "DIR")]
    root: Option<PathBuf>,
    /// The lake captures use when a tool call names none (default: lake on PATH, then
    /// ~/.elan/bin/lake); the VS Code extension passes its `leanscope.lakePath`.
    #[arg(long, value_name = "PATH")]
    lake: Option<PathBuf>,
}

pub fn run(a: Args) -> Result<u8> {
    if let Some(r) = &a.root {
        if !r.is_dir() {
            eprintln!("leanscope: error: --root {} is not a folder", r.display());
            return Ok(crate::exit::USAGE);
        }
    }
    if let Some(l) = &a.lake {
        if !l.is_file() {
            eprintln!("leanscope: error: --lake {} is not a file", l.display());
            return Ok(crate::exit::USAGE);
        }
    }
    crate::mcp::run(a.root, a.lake)
}
