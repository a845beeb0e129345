//! `leanscope session merge`: the shards of a sharded capture as one
//! session (see `session::merge`).

use std::path::PathBuf;

use anyhow::Result;
use recording::session::SessionStatus;

use crate::exit;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand)]
enum Command {
    /// Merge the shard sessions of one plan (`profile --shard K/N`) into one new session.
    #[command(after_help = "\
The shards must come from the same plan, Git commit, toolchain and Lean version; the
first difference is the error (exit 2). Planned files that no given shard captured make
the merged session partial (exit 3) and are listed in session.json (merge.missing);
`leanscope profile --resume NEW_DIR` captures them.")]
    Merge(MergeArgs),
}

#[derive(clap::Args)]
struct MergeArgs {
    /// The shard session directories.
    #[arg(required = true, value_name = "SHARD_DIR")]
    shards: Vec<PathBuf>,
    /// The new session directory (refused when it exists and is not empty).
    #[arg(long, short, value_name = "NEW_DIR")]
    out: PathBuf,
    /// Print what the merge did as JSON instead of the session's path.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> Result<u8> {
    match a.command {
        Command::Merge(m) => merge(m),
    }
}

fn merge(a: MergeArgs) -> Result<u8> {
    let s = match crate::session::merge::merge(&a.shards, &a.out) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("leanscope: error: {e:#}");
            return Ok(exit::USAGE);
        }
    };
    if a.json {
        println!("{}", serde_json::to_string_pretty(&s)?);
    } else {
        println!("{}", s.session.display());
    }
    eprintln!(
        "leanscope: merged {} shards: session {}, {} of {} files captured, {} index rows",
        s.shards,
        s.status.as_str(),
        s.counts.completed,
        s.counts.planned,
        s.rows
    );
    if s.skipped_rows > 0 {
        eprintln!(
            "leanscope: warning: {} index lines of the shards were not merged (damaged, or of captures their sessions do not keep)",
            s.skipped_rows
        );
    }
    if !s.missing.is_empty() {
        let shown: Vec<&str> = s.missing.iter().take(10).map(String::as_str).collect();
        eprintln!(
            "leanscope: {} planned files are in no merged shard: {}{}",
            s.missing.len(),
            shown.join(", "),
            if s.missing.len() > shown.len() {
                ", …"
            } else {
                ""
            }
        );
    }
    if s.status != SessionStatus::Complete {
        return Ok(exit::CAPTURE_FAILED);
    }
    Ok(exit::OK)
}
