//! `leanscope revisions plan`: which `.lean` files a change touches, from
//! Git objects only (no checkout, no Lean, no network).

use std::path::PathBuf;

use anyhow::Result;

use crate::exit;
use crate::revisions::plan::{plan, Plan, PlanRequest, DEFAULT_MAX_FILES};

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Sub,
}

#[derive(clap::Subcommand)]
enum Sub {
    /// List the .lean files that differ between the merge base of BASE
    /// and HEAD and the head, or refuse (naming the path) when a per-file
    /// measurement would be meaningless.
    Plan(PlanArgs),
}

#[derive(clap::Args)]
pub struct PlanArgs {
    /// The Git repository (any folder inside it).
    #[arg(long, default_value = ".")]
    repo: PathBuf,
    /// The base revision (branch, tag, commit); the measured base is its
    /// merge base with HEAD.
    #[arg(long)]
    base: String,
    /// The revision under test.
    #[arg(long)]
    head: String,
    /// Library roots, repository-relative folders or files, comma-separated
    /// (default: the source folders of lakefile.toml's default targets,
    /// else the whole repository).
    #[arg(long, value_delimiter = ',')]
    roots: Option<Vec<String>>,
    /// Refuse a change of more .lean files than this.
    #[arg(long, default_value_t = DEFAULT_MAX_FILES)]
    max_files: usize,
    /// Print the plan as JSON (schemas/revisions-plan.schema.json).
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<u8> {
    match args.command {
        Sub::Plan(a) => run_plan(a),
    }
}

fn run_plan(a: PlanArgs) -> Result<u8> {
    let req = PlanRequest {
        repo: &a.repo,
        base: &a.base,
        head: &a.head,
        roots: a.roots,
        max_files: a.max_files,
    };
    let p = match plan(&req) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("leanscope: error: {e}");
            return Ok(exit::USAGE);
        }
    };
    if a.json {
        println!("{}", serde_json::to_string_pretty(&p)?);
    } else {
        print!("{}", describe(&p));
    }
    Ok(exit::OK)
}

/// The plan for a reader: revisions with seven-character labels, then one
/// line per file.
fn describe(p: &Plan) -> String {
    let short = |c: &str| c.chars().take(7).collect::<String>();
    let mut s = format!(
        "base {} at {} (measured: merge base {})\nhead {} at {}\n",
        p.base.rev,
        short(&p.base.commit),
        short(&p.merge_base),
        p.head.rev,
        short(&p.head.commit)
    );
    if p.files.is_empty() {
        s.push_str("no library .lean file differs");
    } else {
        s.push_str(&format!("{} .lean files differ:\n", p.files.len()));
        for f in &p.files {
            s.push_str(&format!(
                "  {:<8}  {}  ({})\n",
                f.status.as_str(),
                f.path,
                f.module
            ));
        }
    }
    if p.files.is_empty() {
        s.push('\n');
    }
    s.push_str(&format!(
        "{} other changed entries not measured\nplan digest {}\n",
        p.ignored_changes, p.plan_digest
    ));
    s
}
