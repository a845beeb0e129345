//! `leanscope top`: what kind of work dominates a recording, an imported profile or a
//! session — the bottom-up table by key, the merged call tree, or the bottom-up tree.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use leanscope::interop::{Format, ImportOptions};
use recording::hotspots::By;
use recording::AtomicFile;

use crate::exit;
use crate::hot_spots::{self, TopSpec};

/// Rows (and children per tree node) shown unless told otherwise.
pub const DEFAULT_LIMIT: usize = 25;
/// Tree levels shown unless told otherwise.
pub const DEFAULT_DEPTH: usize = 12;

#[derive(Clone, Copy, clap::ValueEnum)]
enum ByArg {
    /// The class and the normalised label (`Meta.synthInstance Inhabited Nat`).
    Key,
    /// The class alone (`Meta.synthInstance`).
    Class,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum SortArg {
    #[value(name = "self")]
    SelfTime,
    Total,
}

#[derive(clap::Args)]
#[command(after_help = "\
Output: the bottom-up table (self, share of all the work, total, count, files, key) by
descending self; of a session, each key's top files and declarations under it, read from the
session's index (files committed without hot-spot rows are read from their recordings, and
said so). --tree adds the merged call tree, --inverted the bottom-up tree (each key's self
time through its callers), --path KEY>KEY>… the subtree under that path (with --inverted: the
callers chain from a key up). Keys are written as the table writes them. --json writes the
document of schemas/hot-spots.schema.json. docs/cli.md has the details.")]
pub struct Args {
    /// A recording, a session directory, or another profiler's file (Chrome, Firefox,
    /// folded stacks, Lean's logs).
    source: PathBuf,
    /// What a key is made of.
    #[arg(long, value_enum, default_value = "key")]
    by: ByArg,
    /// Only keys whose class starts with PREFIX (repeatable); in trees, only such nodes.
    #[arg(long = "class", value_name = "PREFIX")]
    classes: Vec<String>,
    /// The subtree under this key path (`A>B>C`), or with --inverted a key's callers chain.
    #[arg(long, value_name = "KEY>KEY>…")]
    path: Option<String>,
    /// The bottom-up tree: each key's self time through its callers.
    #[arg(long)]
    inverted: bool,
    /// The merged call tree.
    #[arg(long)]
    tree: bool,
    /// Only a session's files under this project-relative folder.
    #[arg(long, value_name = "DIR")]
    folder: Option<String>,
    /// Rows of the table, and children per node of a tree.
    #[arg(long, default_value_t = DEFAULT_LIMIT)]
    limit: usize,
    /// Levels of a tree shown below its top nodes.
    #[arg(long, default_value_t = DEFAULT_DEPTH)]
    depth: usize,
    /// Order by self (default) or total.
    #[arg(long, value_enum, default_value = "self")]
    sort: SortArg,
    /// Write the JSON document to FILE (`-`: standard output, instead of the table).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// The source's format (detected when omitted).
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Nanoseconds per count of folded stacks.
    #[arg(long, default_value_t = 1)]
    unit_ns: u64,
}

pub fn run(a: Args) -> Result<u8> {
    if a.folder.is_some() && !a.source.is_dir() {
        eprintln!("leanscope: error: --folder is for a session directory");
        return Ok(exit::USAGE);
    }
    let spec = TopSpec {
        by: match a.by {
            ByArg::Key => By::Key,
            ByArg::Class => By::Class,
        },
        classes: a.classes.clone(),
        path: a.path.clone(),
        inverted: a.inverted,
        tree: a.tree,
        folder: a.folder.clone(),
        limit: a.limit,
        depth: a.depth,
        by_total: matches!(a.sort, SortArg::Total),
        format: a.format,
        import: ImportOptions { unit_ns: a.unit_ns },
    };
    let doc = match hot_spots::answer(&a.source, &spec) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("leanscope: error: {e}");
            return Ok(exit::USAGE);
        }
    };
    for w in &doc.warnings {
        eprintln!("leanscope: warning: {w}");
    }
    match a.json.as_deref() {
        Some(p) if p.as_os_str() == "-" => {
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            serde_json::to_writer_pretty(&mut out, &doc)?;
            writeln!(out)?;
            out.flush()?;
        }
        Some(p) => {
            let (file, mut w) =
                AtomicFile::create(p).with_context(|| format!("cannot create {}", p.display()))?;
            serde_json::to_writer_pretty(&mut w, &doc)?;
            w.write_all(b"\n")?;
            file.publish(w)?;
            print_text(&doc)?;
        }
        None => print_text(&doc)?,
    }
    Ok(exit::OK)
}

fn print_text(doc: &hot_spots::Document) -> Result<()> {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    hot_spots::text::write(&mut out, doc)?;
    out.flush()?;
    Ok(())
}
