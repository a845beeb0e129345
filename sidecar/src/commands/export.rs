//! `leanscope export`: a recording in another profiler's format.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use leanscope::interop::{chrome, folded, radar, speedscope, summary_json, Format, ImportOptions};
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
    /// radar's JSON lines (`{"metric", "value", "unit"}`): each file's and declaration's
    /// figure; a session's files too.
    Radar,
}

#[derive(clap::Args)]
pub struct Args {
    /// A recording, or a file `import` reads.
    input: PathBuf,
    #[arg(long, value_enum)]
    format: ExportFormat,
    /// The file to write; by default the input's name with the extension
    /// each format's tools expect (`.trace.json`, `.speedscope.json`,
    /// `.folded`, `.summary.json`), beside the input.
    #[arg(long, short)]
    out: Option<PathBuf>,
    /// Grouping of `--format summary`.
    #[arg(long, value_parser = parse_group_by, default_value = "name")]
    group_by: GroupBy,
    /// The input's format (detected when omitted).
    #[arg(long = "input-format", value_enum)]
    input_format: Option<Format>,
}

pub fn parse_group_by(s: &str) -> Result<GroupBy, String> {
    GroupBy::parse(s).ok_or_else(|| {
        format!("unknown grouping `{s}`; expected name, declaration, tactic, file, class or key")
    })
}

impl ExportFormat {
    /// The ending the format's tools expect of a file name: speedscope
    /// takes a `*.chrome.json` for a DevTools timeline, and recognizes
    /// `*.speedscope.json`.
    pub fn extension(self) -> &'static str {
        match self {
            ExportFormat::Chrome => "trace.json",
            ExportFormat::Speedscope => "speedscope.json",
            ExportFormat::Folded => "folded",
            ExportFormat::Summary => "summary.json",
            ExportFormat::Radar => "radar.jsonl",
        }
    }
}

/// The default output of exporting `input` as `format`: its name up to the
/// first `.`, with the format's extension, beside it.
pub fn default_out(input: &Path, format: ExportFormat) -> PathBuf {
    let name = input
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = match name.split_once('.') {
        Some((stem, _)) if !stem.is_empty() => stem.to_owned(),
        _ => name,
    };
    input.with_file_name(format!("{stem}.{}", format.extension()))
}

pub fn run(a: Args) -> Result<u8> {
    let out = a.out.unwrap_or_else(|| default_out(&a.input, a.format));
    if out == a.input {
        bail!(
            "the export would overwrite its input {}; name another file with --out",
            out.display()
        );
    }
    let input = Input::classify(&a.input, a.input_format)?;
    if let (ExportFormat::Radar, Input::Session(files)) = (a.format, &input) {
        // A session's lines: every committed recording's, in the session's order.
        let (file, mut w) =
            AtomicFile::create(&out).with_context(|| format!("cannot create {}", out.display()))?;
        for f in files {
            let rec = recording::Recording::open(f)
                .with_context(|| format!("cannot read {}", f.display()))?;
            w = radar::export(&rec, w)?;
        }
        let path = file.publish(w)?;
        println!("{}", path.display());
        return Ok(crate::exit::OK);
    }
    let rec = open_recording(&input, ImportOptions::default())?;
    let (file, w) =
        AtomicFile::create(&out).with_context(|| format!("cannot create {}", out.display()))?;
    let w = match a.format {
        ExportFormat::Chrome => chrome::export(&rec, w)?,
        ExportFormat::Speedscope => speedscope::export(&rec, w)?,
        ExportFormat::Folded => folded::export(&rec, w)?,
        ExportFormat::Summary => {
            summary_json::write(&recording::summary::summarize(&rec, a.group_by), w)?
        }
        ExportFormat::Radar => radar::export(&rec, w)?,
    };
    let path = file.publish(w)?;
    println!("{}", path.display());
    Ok(crate::exit::OK)
}
