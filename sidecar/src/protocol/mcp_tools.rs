//! What an agent sends to `leanscope mcp`: each tool's arguments, read and checked in one
//! place ([`read_call`]) before any work starts. The `mcp` command's tool modules take these;
//! the fuzz target `mcp_message` feeds this reader whatever bytes it likes. A field a tool's
//! input schema does not list is refused (the schemas say `additionalProperties: false`).

use recording::Measure;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::mcp_bounds;

/// What Lean measures each step by.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MeasureArg {
    /// The clock (the default).
    #[default]
    Time,
    /// Lean's heartbeats (`trace.profiler.useHeartbeats`): the same on every machine and run.
    Heartbeats,
}

impl From<MeasureArg> for Measure {
    fn from(m: MeasureArg) -> Measure {
        match m {
            MeasureArg::Time => Measure::Time,
            MeasureArg::Heartbeats => Measure::Heartbeats,
        }
    }
}

/// The arguments `profile_file` and `profile_declaration` share.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CaptureArgs {
    /// The Lean file: an absolute path, or relative to the server's root folder.
    pub file: String,
    /// `time` (default) or `heartbeats`.
    #[serde(default)]
    pub measure: MeasureArg,
    /// Steps below this are not recorded: milliseconds (default 10), or heartbeats with
    /// measure `heartbeats` (default 1000000).
    pub threshold: Option<u64>,
    /// Rows of each list (default 10, at most 200).
    pub limit: Option<usize>,
    /// The project's lake (default: `--lake`, then lake on PATH, then ~/.elan/bin/lake).
    pub lake: Option<String>,
    /// Stop Lean after this many seconds.
    pub timeout_seconds: Option<u64>,
}

/// How to capture, as the tools take it.
pub struct How {
    pub measure: Measure,
    pub threshold: Option<u64>,
    pub lake: Option<String>,
    pub timeout_seconds: Option<u64>,
}

impl CaptureArgs {
    /// The row limit, checked, and how to capture.
    pub fn how(&self) -> Result<(usize, How), String> {
        let limit = mcp_bounds::limit(self.limit)?;
        Ok((
            limit,
            How {
                measure: self.measure.into(),
                threshold: self.threshold,
                lake: self.lake.clone(),
                timeout_seconds: self.timeout_seconds,
            },
        ))
    }
}

/// `profile_file`: a whole file captured.
pub mod profile_file {
    use schemars::JsonSchema;
    use serde::Deserialize;

    pub const NAME: &str = "profile_file";

    #[derive(Debug, Deserialize, JsonSchema)]
    #[serde(rename_all = "camelCase")]
    #[schemars(extend("additionalProperties" = false))]
    pub struct Params {
        #[serde(flatten)]
        pub capture: super::CaptureArgs,
        /// Capture the file this many times (after one discarded warm-up run) into a session
        /// and report medians; 1 (default) captures once into a recording.
        pub repeat: Option<u32>,
    }
}

/// `profile_declaration`: one declaration, in its file.
pub mod profile_declaration {
    use schemars::JsonSchema;
    use serde::Deserialize;

    pub const NAME: &str = "profile_declaration";

    #[derive(Debug, Deserialize, JsonSchema)]
    #[serde(rename_all = "camelCase")]
    #[schemars(extend("additionalProperties" = false))]
    pub struct Params {
        /// The declaration's name: its full name (`Demo.Clean.double_add`) or its last
        /// components (`double_add`, `Clean.double_add`).
        pub declaration: String,
        #[serde(flatten)]
        pub capture: super::CaptureArgs,
    }
}

/// `query`: the slowest rows of a recording or session.
pub mod query {
    use schemars::JsonSchema;
    use serde::Deserialize;

    pub const NAME: &str = "query";

    #[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
    #[serde(rename_all = "lowercase")]
    pub enum Kind {
        File,
        Folder,
        #[default]
        Declaration,
        Tactic,
    }

    #[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
    #[serde(rename_all = "lowercase")]
    pub enum Sort {
        /// Inclusive time (default).
        #[default]
        Total,
        /// Self time.
        #[serde(rename = "self")]
        SelfTime,
    }

    #[derive(Debug, Deserialize, JsonSchema)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct Params {
        /// A recording (.lsrec) or a session directory: a path, or a leanscope:// resource URI.
        pub source: String,
        /// What to list (default `declaration`).
        #[serde(default)]
        pub kind: Kind,
        /// Order by `total` (default) or `self` time.
        #[serde(default)]
        pub sort: Sort,
        /// Rows (default 10, at most 200).
        pub limit: Option<usize>,
        /// Only rows under this project-relative path (whole components).
        pub path: Option<String>,
    }
}

/// `hot_spots`: the bottom-up view.
pub mod hot_spots {
    use schemars::JsonSchema;
    use serde::Deserialize;

    pub const NAME: &str = "hot_spots";

    #[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
    #[serde(rename_all = "lowercase")]
    pub enum ByArg {
        /// The kind of work and its normalised label (default).
        #[default]
        Key,
        /// The kind of work only (Lean's trace class).
        Class,
    }

    #[derive(Debug, Deserialize, JsonSchema)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct Params {
        /// A recording (.lsrec), another profiler's file, or a session directory: a path or a
        /// leanscope:// resource URI.
        pub source: String,
        /// Group by `key` (default) or `class`.
        #[serde(default)]
        pub by: ByArg,
        /// Order by total time instead of self time.
        #[serde(default)]
        pub by_total: bool,
        /// Only keys whose class starts with one of these (for example `Meta.synthInstance`).
        #[serde(default)]
        pub classes: Vec<String>,
        /// A session's files under this project-relative folder.
        pub folder: Option<String>,
        /// Rows (default 10, at most 200).
        pub limit: Option<usize>,
    }
}

/// `compare`: baseline against candidate.
pub mod compare {
    use schemars::JsonSchema;
    use serde::Deserialize;

    pub const NAME: &str = "compare";

    #[derive(Debug, Deserialize, JsonSchema)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct Params {
        /// The baseline: a recording, a session directory, another profiler's file or a summary
        /// JSON (a path or a leanscope:// resource URI).
        pub baseline: String,
        /// The candidate, of the same kinds.
        pub candidate: String,
        /// What to compare (default `total_ns`; also `self_ns`, `count`, `mean_ns`, `median_ns`, ...).
        pub metric: Option<String>,
        /// A change smaller than this (in the metric's unit) is no change (default 0).
        #[serde(default)]
        pub absolute_tolerance: u64,
        /// A change smaller than this percentage of the baseline is no change (default 0).
        #[serde(default)]
        pub relative_tolerance_percent: f64,
        /// Rows by `declaration`, `name`, `class`, `file`, ... (default: declaration where there are
        /// declarations).
        pub group_by: Option<String>,
        /// Matched rows returned, largest changes first (default 10, at most 200).
        pub limit: Option<usize>,
    }
}

/// `revisions`: two revisions of a repository.
pub mod revisions {
    use schemars::JsonSchema;
    use serde::Deserialize;

    pub const NAME: &str = "revisions";

    #[derive(Debug, Deserialize, JsonSchema)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct Params {
        /// Any folder inside the Git repository (absolute, or relative to the server's root).
        pub repo: String,
        /// The base revision; what is measured is its merge base with head.
        pub base: String,
        /// The revision under test (default `HEAD`).
        pub head: Option<String>,
        /// Measure both sides (build them in sandboxes and capture the changed files);
        /// default false: only plan.
        #[serde(default)]
        pub run: bool,
        /// Samples per file and side when running (default 1).
        pub repeat: Option<u64>,
        /// The lake to run with (default: lake on PATH, then ~/.elan/bin/lake).
        pub lake: Option<String>,
        /// Stop a file's capture after this many seconds (default 300).
        pub timeout_file_seconds: Option<u64>,
    }
}

/// A tool call, its arguments read.
#[derive(Debug)]
pub enum ToolCall {
    ProfileFile(profile_file::Params),
    ProfileDeclaration(profile_declaration::Params),
    Query(query::Params),
    HotSpots(hot_spots::Params),
    Compare(compare::Params),
    Revisions(revisions::Params),
}

/// The call of tool `name` with `args`, or a message that names what is wrong: an unknown
/// tool, a field its schema does not list, a missing or mistyped field.
pub fn read_call(name: &str, args: Option<Map<String, Value>>) -> Result<ToolCall, String> {
    Ok(match name {
        profile_file::NAME => ToolCall::ProfileFile(arguments(name, args)?),
        profile_declaration::NAME => ToolCall::ProfileDeclaration(arguments(name, args)?),
        query::NAME => ToolCall::Query(arguments(name, args)?),
        hot_spots::NAME => ToolCall::HotSpots(arguments(name, args)?),
        compare::NAME => ToolCall::Compare(arguments(name, args)?),
        revisions::NAME => ToolCall::Revisions(arguments(name, args)?),
        other => {
            return Err(format!(
                "there is no tool {other:?}; the tools are profile_file, profile_declaration, \
                 query, hot_spots, compare and revisions"
            ))
        }
    })
}

/// A tool's arguments, or a message that names what is wrong.
fn arguments<P: DeserializeOwned + JsonSchema + 'static>(
    name: &str,
    args: Option<Map<String, Value>>,
) -> Result<P, String> {
    let args = args.unwrap_or_default();
    let schema = rmcp::handler::server::common::schema_for_type::<P>();
    let known = schema.get("properties").and_then(Value::as_object);
    if let Some(unknown) = args
        .keys()
        .find(|k| known.is_some_and(|p| !p.contains_key(*k)))
    {
        let expected: Vec<String> = known
            .into_iter()
            .flat_map(|p| p.keys().map(|k| format!("`{k}`")))
            .collect();
        return Err(format!(
            "bad arguments for {name}: unknown field `{unknown}`, expected one of {}",
            expected.join(", ")
        ));
    }
    serde_json::from_value(Value::Object(args)).map_err(|e| {
        format!(
            "bad arguments for {name}: {e}. The tool's input schema (tools/list) gives the names and types."
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args(v: Value) -> Option<Map<String, Value>> {
        match v {
            Value::Object(o) => Some(o),
            _ => None,
        }
    }

    #[test]
    fn a_call_is_read_with_its_defaults() {
        let call = read_call("query", args(json!({"source": "/p/s", "kind": "file"}))).unwrap();
        let ToolCall::Query(p) = call else {
            panic!("{call:?}")
        };
        assert_eq!(p.source, "/p/s");
        assert!(matches!(p.kind, query::Kind::File));
        assert!(matches!(p.sort, query::Sort::Total));
        let call = read_call(
            "profile_file",
            args(json!({"file": "A.lean", "measure": "heartbeats", "timeoutSeconds": 5})),
        )
        .unwrap();
        let ToolCall::ProfileFile(p) = call else {
            panic!("{call:?}")
        };
        let (limit, how) = p.capture.how().unwrap();
        assert_eq!(limit, mcp_bounds::DEFAULT_LIMIT);
        assert_eq!(how.measure, Measure::Heartbeats);
        assert_eq!(how.timeout_seconds, Some(5));
    }

    #[test]
    fn what_is_wrong_is_named() {
        for (tool, given, says) in [
            ("nope", json!({}), "there is no tool \"nope\""),
            (
                "query",
                json!({"source": "s", "colour": 1}),
                "unknown field `colour`",
            ),
            ("query", json!({}), "missing field `source`"),
            ("query", json!({"source": 7}), "invalid type"),
            (
                "profile_file",
                json!({"file": "A.lean", "x": 1}),
                "unknown field `x`",
            ),
            (
                "hot_spots",
                json!({"source": "s", "by": "colour"}),
                "unknown variant",
            ),
        ] {
            let e = read_call(tool, args(given)).unwrap_err();
            assert!(e.contains(says), "{tool}: {e}");
        }
        let e = read_call("profile_file", args(json!({"file": "A", "limit": 0})))
            .and_then(|c| match c {
                ToolCall::ProfileFile(p) => p.capture.how().map(|_| ()),
                other => panic!("{other:?}"),
            })
            .unwrap_err();
        assert!(e.contains("limit 0 is out of range"), "{e}");
    }
}
