//! `leanscope export`: a recording in another profiler's format.

use std::path::PathBuf;

use anyhow::{Context, Result};
use leanscope::interop::{chrome, folded, speedscope, summary_json, Format, ImportOptions};
use recording::summary::GroupBy;
use recording::AtomicFile;

use super::inputs::{open_recording, Input};

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// Chrome trace-event JSON (Perfetto, chrome://tracing).
    Chrome,
    /// speedscope's evented format.
    Speedscope,
    /// Folded stacks (self nanoseconds per stack).
    Folded,
    /// leanscope summary JSON.
    Summary,
}

#[derive(clap::Args)]
pub struct Args {
    /// A recording, or a file `import` reads.
    input: PathBuf,
    #[arg(long, value_enum)]
    format: ExportFormat,
    /// The file to write.
    #[arg(long, short)]
    out: PathBuf,
    /// Grouping of `--format summary`.
    #[arg(long, value_parser = parse_group_by, default_value = "name")]
    group_by: GroupBy,
    /// The input's format (detected when omitted).
    #[arg(long = "input-format", value_enum)]
    input_format: Option<Format>,
}

pub fn parse_group_by(s: &str) -> Result<GroupBy, String> {
    GroupBy::parse(s).ok_or_else(|| {
        format!("unknown grouping `{s}`; expected name, declaration, tactic, file or class")
    })
}

pub fn run(a: Args) -> Result<u8> {
    let input = Input::classify(&a.input, a.input_format)?;
    let rec = open_recording(&input, ImportOptions::default())?;
    let (file, w) =
        AtomicFile::create(&a.out).with_context(|| format!("cannot create {}", a.out.display()))?;
    let w = match a.format {
        ExportFormat::Chrome => chrome::export(&rec, w)?,
        ExportFormat::Speedscope => speedscope::export(&rec, w)?,
        ExportFormat::Folded => folded::export(&rec, w)?,
        ExportFormat::Summary => {
            summary_json::write(&recording::summary::summarize(&rec, a.group_by), w)?
        }
    };
    let path = file.publish(w)?;
    println!("{}", path.display());
    Ok(crate::exit::OK)
}
