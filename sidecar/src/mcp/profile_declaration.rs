//! `profile_declaration`: one declaration's tactics and lines. The whole file is captured
//! (so a declaration that uses earlier declarations of its file elaborates as it does in
//! the file, and every step keeps its exact source range), then the declaration is found
//! by name among the recording's declarations and its part of the model reported.

use recording::model::{declaration_times, tactic_rows};
use recording::Recording;
use serde_json::{json, Value};

use super::call::Call;
use super::capture;
use super::report::{self, amount, bounded, unit};
use super::{Reply, ToolError};
pub use leanscope::protocol::mcp_tools::profile_declaration::{Params, NAME};

/// Declarations named in a "not found" message, at most.
const NAMES_LISTED: usize = 20;

pub fn tool() -> rmcp::model::Tool {
    super::tool::<Params>(
        NAME,
        "Profile one declaration (theorem, def, instance, ...) of a Lean file: the whole file is \
         captured, so the declaration elaborates in its real context (earlier declarations of \
         the file included), and its time, self time, slowest tactics and lines (1-based) are \
         reported with exact source positions.",
    )
}

/// The index of the declaration called `name` (full name, or a suffix at a `.`).
fn find(rec: &Recording, name: &str) -> Result<usize, ToolError> {
    let decls = &rec.header.declarations;
    let name = name.trim();
    if name.is_empty() {
        return Err(ToolError::new(
            "declaration is empty: give a declaration's name",
        ));
    }
    if let Some(i) = decls.iter().position(|d| d.name == name) {
        return Ok(i);
    }
    let dotted = format!(".{name}");
    let hits: Vec<usize> = (0..decls.len())
        .filter(|&i| decls[i].name.ends_with(&dotted))
        .collect();
    match hits.as_slice() {
        [one] => Ok(*one),
        [] => {
            let names: Vec<&str> = decls
                .iter()
                .filter(|d| !d.generated)
                .take(NAMES_LISTED)
                .map(|d| d.name.as_str())
                .collect();
            Err(ToolError::new(format!(
                "no declaration {name:?} in {}. Its declarations are: {}{}",
                rec.header.source_path,
                names.join(", "),
                if decls.len() > names.len() {
                    ", …"
                } else {
                    ""
                }
            )))
        }
        many => Err(ToolError::new(format!(
            "{name:?} names {} declarations: {}; give the full name",
            many.len(),
            many.iter()
                .map(|&i| decls[i].name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// The declaration's report.
fn breakdown(rec: &Recording, d: usize, limit: usize) -> Value {
    let m = rec.header.measure;
    let decl = &rec.header.declarations[d];
    let time = declaration_times(rec)[d];
    let mut tactics: Vec<_> = tactic_rows(rec)
        .into_iter()
        .filter(|t| t.declaration == Some(d))
        .collect();
    tactics.sort_by(|a, b| {
        b.time
            .total_ns
            .cmp(&a.time.total_ns)
            .then(a.range.cmp(&b.range))
    });
    let tactics = tactics
        .iter()
        .map(|t| {
            json!({
                "tactic": t.label,
                "line": t.range.start_line + 1,
                "column": t.range.start_col,
                "endLine": t.range.end_line + 1,
                "total": amount(m, t.time.total_ns),
                "self": amount(m, t.time.self_ns),
                "attribution": t.range_kind,
            })
        })
        .collect();
    let (first, last) = (decl.range.start_line, decl.range.end_line);
    json!({
        "declaration": {
            "name": decl.name,
            "kind": decl.kind,
            "line": first + 1,
            "endLine": last + 1,
            "total": time.map(|t| amount(m, t.total_ns)),
            "self": time.map(|t| amount(m, t.self_ns)),
            "events": time.map_or(0, |t| t.count),
        },
        "unit": unit(m),
        "measure": m.as_str(),
        "tactics": bounded(tactics, limit),
        "lines": report::lines(rec, |l| (first..=last).contains(&l), limit),
        "capturedWholeFile": true,
    })
}

pub async fn call(call: &Call, p: Params) -> Result<Reply, ToolError> {
    let (limit, how) = p.capture.how().map_err(ToolError::new)?;
    let req = capture::request(call, &p.capture.file, &how)?;
    let r = capture::run(call, req, how.timeout_seconds).await?;
    let path = r.recording.clone();
    let name = p.declaration;
    let (mut data, summary) = tokio::task::spawn_blocking(move || {
        let rec = report::open(&path)?;
        let d = find(&rec, &name)?;
        let data = breakdown(&rec, d, limit);
        let m = rec.header.measure;
        let decl = &data["declaration"];
        let mut summary = format!(
            "{} ({}, lines {}–{}): {} in all, {} outside its tactics.",
            decl["name"].as_str().unwrap_or(""),
            decl["kind"].as_str().unwrap_or(""),
            decl["line"],
            decl["endLine"],
            report::for_people(m, &decl["total"]),
            report::for_people(m, &decl["self"]),
        );
        for t in data["tactics"]["rows"]
            .as_array()
            .into_iter()
            .flatten()
            .take(5)
        {
            let text = report::one_line(t["tactic"].as_str().unwrap_or(""), 60);
            summary.push_str(&format!(
                "\n  line {}: {} {text}",
                t["line"],
                report::for_people(m, &t["total"])
            ));
        }
        let errors = report::errors(&rec, limit);
        Ok::<_, ToolError>((json!({"errors": errors, "report": data}), summary))
    })
    .await
    .map_err(|e| ToolError::new(format!("reading the recording failed: {e}")))??;
    let mut report = data["report"].take();
    report["recording"] = json!(r.recording);
    report["resource"] = json!(super::resources::uri_of_recording(&r.recording));
    report["errors"] = data["errors"].take();
    if r.errors > 0 {
        return Err(ToolError {
            message: format!(
                "Lean reported {} error(s) in the file; fix them and profile again (the times below cover what Lean elaborated).\n{summary}",
                r.errors
            ),
            data: Some(report),
        });
    }
    Ok(Reply {
        summary,
        data: report,
    })
}
