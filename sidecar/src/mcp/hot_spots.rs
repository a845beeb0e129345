//! `hot_spots`: what kind of work dominates a recording or a session, bottom-up by key or
//! by class: `leanscope top --json`'s document (`crate::hot_spots::answer`).

use recording::hotspots::By;

use super::call::Call;
use super::resources::source;
use super::{bounds, Reply, ToolError};
use crate::commands::top::DEFAULT_DEPTH;
use crate::hot_spots::{answer, TopError, TopSpec};
pub use leanscope::protocol::mcp_tools::hot_spots::{ByArg, Params, NAME};

pub fn tool() -> rmcp::model::Tool {
    super::tool::<Params>(
        NAME,
        "The bottom-up view of a recording or a session: which kinds of work (type class \
         synthesis, simp, unification, kernel checking, ...) take the time, by self and total \
         time, with their share of the whole.",
    )
}

pub async fn call(call: &Call, p: Params) -> Result<Reply, ToolError> {
    let limit = bounds::limit(p.limit).map_err(ToolError::new)?;
    let path = source(&call.state, &p.source)?;
    if !path.exists() {
        return Err(ToolError::new(format!(
            "{} does not exist: give a recording, a profile to import, or a session directory",
            path.display()
        )));
    }
    if p.folder.is_some() && !path.is_dir() {
        return Err(ToolError::new(
            "folder goes with a session directory, not with a recording: leave folder out",
        ));
    }
    let spec = TopSpec {
        by: match p.by {
            ByArg::Key => By::Key,
            ByArg::Class => By::Class,
        },
        classes: p.classes,
        path: None,
        inverted: false,
        tree: false,
        folder: p.folder,
        limit,
        depth: DEFAULT_DEPTH,
        by_total: p.by_total,
        format: None,
        import: Default::default(),
    };
    let doc = tokio::task::spawn_blocking(move || answer(&path, &spec))
        .await
        .map_err(|e| ToolError::new(format!("finding the hot spots failed: {e}")))?
        .map_err(|e| {
            ToolError::new(match e {
                TopError::Usage(m) => m,
                e @ TopError::Recording(..) => {
                    format!("{e}. Profile the file again with profile_file.")
                }
                TopError::Session(p, e) => {
                    format!("{} is not a readable session: {e:#}", p.display())
                }
                TopError::Other(p, e) => format!("cannot read {}: {e:#}", p.display()),
            })
        })?;
    let data = serde_json::to_value(&doc)
        .map_err(|e| ToolError::new(format!("cannot write the answer: {e}")))?;
    let mut text = Vec::new();
    crate::hot_spots::text::write(&mut text, &doc)
        .map_err(|e| ToolError::new(format!("cannot write the table: {e}")))?;
    let summary = String::from_utf8_lossy(&text).into_owned();
    Ok(Reply { summary, data })
}
