//! The viewer as a site: the embedded assets, what is being viewed (a
//! session directory or a lone recording), and the page that points the
//! viewer at its data. Shared by `leanscope view` and `leanscope publish`.

use std::path::{Path, PathBuf};

use std::sync::Arc;

use anyhow::{bail, Context, Result};
use leanscope::interop::{self, ImportOptions};
use recording::session::{INDEX_FILE, MANIFEST_FILE};

include!(concat!(env!("OUT_DIR"), "/viewer_assets.rs"));

/// The Content-Security-Policy of every page and file served: scripts and
/// data from the page's own origin only, WebAssembly compilation allowed,
/// the worker from a blob URL, nothing remote.
pub const CSP: &str = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; \
worker-src blob:; connect-src 'self'; style-src 'self'; img-src 'self' data:; \
base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// The placeholder of the configuration block in `index.html`.
const CONFIG_PLACEHOLDER: &str = "{\"configured\":false}";

/// Where the data lives under the site root.
pub const DATA_DIR: &str = "data";

/// The diff view's document (`view`/`publish --baseline`), at the root.
pub const DIFF_FILE: &str = "diff.json";

pub fn asset(name: &str) -> Option<&'static [u8]> {
    VIEWER_ASSETS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, bytes)| *bytes)
}

/// Fails with instructions when this binary was built without the wasm.
pub fn require_built() -> Result<()> {
    if !VIEWER_BUILT || asset("index.html").is_none() {
        bail!(
            "this leanscope was built without the viewer; run scripts/build-viewer, \
             then rebuild leanscope (cargo build -p leanscope)"
        );
    }
    Ok(())
}

pub fn content_type(name: &str) -> &'static str {
    match name.rsplit('.').next().unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "wasm" => "application/wasm",
        "json" => "application/json",
        "jsonl" => "application/jsonl; charset=utf-8",
        "png" => "image/png",
        "svg" => "image/svg+xml",
        _ => "application/octet-stream",
    }
}

/// What is being viewed.
pub enum Target {
    /// A session directory (with `session.json`).
    Session { dir: PathBuf },
    /// A lone recording; `events` is its footer's claim (a size hint).
    Recording {
        file: PathBuf,
        name: String,
        events: Option<usize>,
    },
    /// Another profiler's file (Chrome trace, Firefox profile, folded
    /// stacks, `lean --profile` output), imported into a recording held in
    /// memory: nothing is written next to it or left in a temp folder.
    Imported {
        name: String,
        bytes: Arc<Vec<u8>>,
        events: u64,
    },
}

impl Target {
    pub fn open(path: &Path) -> Result<Target> {
        let meta =
            std::fs::metadata(path).with_context(|| format!("cannot open {}", path.display()))?;
        if meta.is_dir() {
            let dir = std::fs::canonicalize(path)?;
            let manifest = dir.join(MANIFEST_FILE);
            if !manifest.is_file() {
                bail!(
                    "{} is not a session directory (it has no {MANIFEST_FILE})",
                    path.display()
                );
            }
            crate::session::store::read_manifest(&dir)
                .with_context(|| format!("cannot open the session {}", path.display()))?;
            return Ok(Target::Session { dir });
        }
        let file = std::fs::canonicalize(path)?;
        // Read the magic to say early when this is not a recording.
        let mut magic = [0u8; 8];
        {
            use std::io::Read;
            let mut f = crate::session::regular::read(&file)
                .with_context(|| format!("cannot open {}", path.display()))?;
            let n = f.read(&mut magic)?;
            if n < magic.len() || magic != recording::MAGIC {
                return Target::import(&file, path);
            }
        }
        let name = file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "recording.lsrec".into());
        let events = recording::model::footer_event_hint(&file);
        Ok(Target::Recording { file, name, events })
    }

    /// Imports another profiler's file; anything else is refused, naming
    /// what was expected.
    fn import(file: &Path, given: &Path) -> Result<Target> {
        let format = interop::detect(file).map_err(|e| {
            anyhow::anyhow!(
                "{} is neither a session directory nor a leanscope recording, nor a file leanscope can import ({e})",
                given.display()
            )
        })?;
        let (bytes, report) = interop::import_to(
            file,
            Some(format),
            ImportOptions::default(),
            &std::env::temp_dir(),
            Vec::new(),
        )
        .with_context(|| format!("cannot import {}", given.display()))?;
        let stem = file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "imported".into());
        Ok(Target::Imported {
            name: format!("{stem}.lsrec"),
            bytes: Arc::new(bytes),
            events: report.events,
        })
    }

    /// The viewer's configuration for this target (URLs relative to the page).
    pub fn config(&self) -> serde_json::Value {
        match self {
            Target::Session { .. } => serde_json::json!({
                "session": format!("{DATA_DIR}/{MANIFEST_FILE}"),
                "index": format!("{DATA_DIR}/{}", INDEX_FILE),
            }),
            Target::Recording { name, events, .. } => serde_json::json!({
                "recording": format!("{DATA_DIR}/{}", url_path_segment(name)),
                "recordingName": name,
                "recordingEvents": events,
            }),
            Target::Imported { name, events, .. } => serde_json::json!({
                "recording": format!("{DATA_DIR}/{}", url_path_segment(name)),
                "recordingName": name,
                "recordingEvents": events,
            }),
        }
    }
}

/// `index.html` with the configuration for `target` filled in; `diff`
/// when the site also serves a diff view's document. A session's page
/// also carries its first view (see `first_view`), from its manifest as it
/// is now.
pub fn index_html(target: &Target, diff: bool) -> Result<String> {
    let first = match target {
        Target::Session { dir } => super::first_view::of_session(dir),
        _ => None,
    };
    index_html_with(target, diff, first)
}

/// [`index_html`] with the session's first view already computed (`view`
/// caches it per version of the manifest).
pub fn index_html_with(
    target: &Target,
    diff: bool,
    first: Option<serde_json::Value>,
) -> Result<String> {
    let page = asset("index.html").context("the viewer's index.html is missing")?;
    let page = std::str::from_utf8(page).context("index.html is not UTF-8")?;
    if !page.contains(CONFIG_PLACEHOLDER) {
        bail!("index.html has no configuration placeholder");
    }
    // Inside <script type="application/json">, only "</" could end the block.
    let mut config = target.config();
    if diff {
        config["diff"] = DIFF_FILE.into();
    }
    if let Some(first) = first {
        config["firstView"] = first;
    }
    let config = config.to_string().replace('<', "\\u003c");
    Ok(page.replacen(CONFIG_PLACEHOLDER, &config, 1))
}

/// Percent-encodes a file name for a URL path segment.
pub fn url_path_segment(name: &str) -> String {
    let mut out = String::new();
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_segments_are_encoded() {
        assert_eq!(url_path_segment("a b/ü.lsrec"), "a%20b%2F%C3%BC.lsrec");
        assert_eq!(url_path_segment("Foo-1.lsrec"), "Foo-1.lsrec");
    }

    #[test]
    fn content_types() {
        assert_eq!(content_type("x.wasm"), "application/wasm");
        assert_eq!(content_type("index.html"), "text/html; charset=utf-8");
        assert_eq!(content_type("f.lsrec"), "application/octet-stream");
    }
}
