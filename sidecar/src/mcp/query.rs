//! `query`: the slowest files, folders, declarations or tactics of a session or a
//! recording, as `leanscope query --json` answers (`commands::query::answer`).

use std::path::Path;

use recording::session::{QueryKind, QuerySpec, SortBy};
use serde_json::{json, Value};

use super::call::Call;
use super::resources::source;
use super::{bounds, Reply, ToolError};
use crate::commands::query::{answer, SourceError};
pub use leanscope::protocol::mcp_tools::query::{Kind, Params, Sort, NAME};

pub fn tool() -> rmcp::model::Tool {
    super::tool::<Params>(
        NAME,
        "The slowest files, folders, declarations or tactics of a recording or a session \
         (medians for a repeated capture), longest first, with how many matched. Times are \
         in the answer's unit (ms, or heartbeats).",
    )
}

fn spec(kind: Kind, sort: Sort, limit: usize, path: Option<String>) -> QuerySpec {
    QuerySpec {
        kind: match kind {
            Kind::File => QueryKind::File,
            Kind::Folder => QueryKind::Folder,
            Kind::Declaration => QueryKind::Declaration,
            Kind::Tactic => QueryKind::Tactic,
        },
        sort: match sort {
            Sort::Total => SortBy::Total,
            Sort::SelfTime => SortBy::SelfTime,
        },
        limit: Some(limit),
        path,
    }
}

/// `leanscope query --json`'s answer, or a tool error saying what to give instead.
fn run(source: &Path, spec: &QuerySpec) -> Result<Value, ToolError> {
    if !source.exists() {
        return Err(ToolError::new(format!(
            "{} does not exist: give a recording (.lsrec) or a session directory that profile_file wrote, or a leanscope:// resource from the resource list",
            source.display()
        )));
    }
    let a = answer(source, spec).map_err(|e| {
        ToolError::new(match e {
            SourceError::Session(e) => format!(
                "{} is not a readable session: {e:#}. Give a session directory (it holds session.json).",
                source.display()
            ),
            SourceError::Recording(e) => format!(
                "{} is neither a session directory nor a readable recording: {e}",
                source.display()
            ),
        })
    })?;
    serde_json::to_value(&a).map_err(|e| ToolError::new(format!("cannot write the answer: {e}")))
}

pub async fn call(call: &Call, p: Params) -> Result<Reply, ToolError> {
    let limit = bounds::limit(p.limit).map_err(ToolError::new)?;
    let source = source(&call.state, &p.source)?;
    let spec = spec(p.kind, p.sort, limit, p.path);
    let data = tokio::task::spawn_blocking(move || run(&source, &spec))
        .await
        .map_err(|e| ToolError::new(format!("the query failed: {e}")))??;
    let rows = data["rows"].as_array().map_or(0, Vec::len);
    let mut summary = format!(
        "{} of {} matching rows, in {}:",
        rows,
        data["matched"],
        data["unit"].as_str().unwrap_or("ms")
    );
    for r in data["rows"].as_array().into_iter().flatten().take(5) {
        let name = super::report::one_line(r["name"].as_str().unwrap_or(""), 80);
        summary.push_str(&format!(
            "\n  {} {} ({})",
            r["durationMs"],
            name,
            r["path"].as_str().unwrap_or("")
        ));
    }
    Ok(Reply { summary, data })
}

/// A session's slowest files, declarations and tactics (a repeated capture's medians).
pub fn session_report(dir: &Path, limit: usize) -> Result<Value, ToolError> {
    let mut out = json!({});
    for (key, kind) in [
        ("files", Kind::File),
        ("declarations", Kind::Declaration),
        ("tactics", Kind::Tactic),
    ] {
        let mut a = run(dir, &spec(kind, Sort::Total, limit, None))?;
        if out.get("session").is_none() {
            out["session"] = a["session"].take();
            out["unit"] = a["unit"].take();
        }
        out[key] = json!({"rows": a["rows"].take(), "matched": a["matched"].take()});
    }
    Ok(out)
}
