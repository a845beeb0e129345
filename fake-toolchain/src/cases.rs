//! Recorded cases and toolchains in `fixtures/lean-output`.
//!
//! Layout: `toolchains.json` (`{"default": NAME, "toolchains": {NAME: {...}}}`) and one
//! directory per case holding `case.json`, `stdout` (run with `trace.profiler.output`),
//! `stdout.traces` (run without it), `stderr`, `exit-code` and, where Lean writes one,
//! `profile.json`. A case whose `case.json` has a `generator` object has no recorded output:
//! [`crate::huge`] produces it.
//!
//! Key rule: a case belongs to `lean FILE` when the case's toolchain is the selected one and its
//! `source` (a `/`-separated path relative to the demo project, e.g. `Demo/Clean.lean`) equals
//! `FILE` or is a suffix of it starting after a `/` (`FILE` normalised: `\` → `/`, `./`
//! segments dropped). The longest matching `source` wins.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::dialect::{Dialect, REFERENCE};

/// One toolchain of `toolchains.json`.
#[derive(Debug, Clone)]
pub struct Toolchain {
    pub name: String,
    pub lean_version: String,
    pub githash: String,
    pub platform: String,
    pub build_type: String,
    pub lake_version_string: String,
    pub supports_profile_output: bool,
    /// Whether this Lean has the `trace.profiler.serve` option (Lean 4.31 and later): with it
    /// on and no `trace.profiler.output`, Lean serves its profile over HTTP and waits for one
    /// request, which blocks a batch run.
    pub supports_profiler_serve: bool,
    /// Whether this Lean takes `--incr-load=FILE`, `--incr-save=FILE` and
    /// `--incr-header-save=FILE` (Lean 4.32 and later); an older one refuses them.
    pub supports_incremental_snapshots: bool,
    /// How this toolchain's release line prints cases of the reference layout.
    pub dialect: Dialect,
}

impl Toolchain {
    /// What `lean --version` prints (Lean.Shell `versionHeader`).
    pub fn version_header(&self) -> String {
        format!(
            "Lean (version {}, {}, commit {}, {})",
            self.lean_version, self.platform, self.githash, self.build_type
        )
    }
}

/// A line-indexed delay of the replay.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Delay {
    /// 1-based stdout line before which to wait.
    pub before_stdout_line: u64,
    pub ms: f64,
}

/// One recorded case.
#[derive(Debug, Clone)]
pub struct Case {
    pub dir: PathBuf,
    pub source: String,
    pub toolchain: String,
    pub module: String,
    pub stderr_lines_before_stdout: usize,
    pub delays: Vec<Delay>,
    pub generator: Option<Value>,
    /// For a reference case: the start of the command holding each position where Lean
    /// reported captured profiler output, as `(line, column)` (releases that report it at the
    /// command's start use it).
    pub command_starts: CommandStarts,
}

/// `(line, column)` of a reported position → `(line, column)` of its command's start.
pub type CommandStarts = HashMap<(u64, u64), (u64, u64)>;

impl Case {
    /// Is the case recorded in the reference layout (rendered per toolchain)?
    pub fn is_reference(&self) -> bool {
        self.toolchain == REFERENCE
    }
}

fn read_json(path: &Path) -> Result<Value, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{} is not JSON: {e}", path.display()))
}

fn str_field(v: &Value, key: &str, path: &Path) -> Result<String, String> {
    v.get(key)
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| format!("{}: missing string field `{key}`", path.display()))
}

/// Loads the toolchain selected by [`crate::ENV_TOOLCHAIN`] (or the default one).
pub fn load_toolchain(fixtures: &Path) -> Result<Toolchain, String> {
    let path = fixtures.join("toolchains.json");
    let all = read_json(&path)?;
    let name = match std::env::var(crate::ENV_TOOLCHAIN) {
        Ok(name) if !name.is_empty() => name,
        _ => str_field(&all, "default", &path)?,
    };
    let tc = all
        .get("toolchains")
        .and_then(|t| t.get(&name))
        .ok_or_else(|| format!("{}: no toolchain named {name:?}", path.display()))?;
    Ok(Toolchain {
        lean_version: str_field(tc, "lean_version", &path)?,
        githash: str_field(tc, "githash", &path)?,
        platform: str_field(tc, "platform", &path)?,
        build_type: str_field(tc, "build_type", &path)?,
        lake_version_string: str_field(tc, "lake_version_string", &path)?,
        supports_profile_output: tc
            .get("supports_profile_output")
            .and_then(Value::as_bool)
            .unwrap_or(true),
        supports_profiler_serve: tc
            .get("supports_profiler_serve")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        supports_incremental_snapshots: tc
            .get("supports_incremental_snapshots")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        dialect: Dialect::from_json(tc.get("output"))
            .map_err(|e| format!("{}: toolchain {name}: {e}", path.display()))?,
        name,
    })
}

/// Loads every case directory of the fixtures.
pub fn load_cases(fixtures: &Path) -> Result<Vec<Case>, String> {
    let entries = std::fs::read_dir(fixtures)
        .map_err(|e| format!("cannot list {}: {e}", fixtures.display()))?;
    let mut cases = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| format!("cannot list {}: {e}", fixtures.display()))?;
        let dir = entry.path();
        let case_json = dir.join("case.json");
        if !case_json.is_file() {
            continue;
        }
        let v = read_json(&case_json)?;
        let delays = match v.get("delays") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .map(|d| {
                    let line = d.get("before_stdout_line").and_then(Value::as_u64);
                    let ms = d.get("ms").and_then(Value::as_f64);
                    match (line, ms) {
                        (Some(before_stdout_line), Some(ms)) if ms >= 0.0 => Ok(Delay {
                            before_stdout_line,
                            ms,
                        }),
                        _ => Err(format!("{}: bad delay entry {d}", case_json.display())),
                    }
                })
                .collect::<Result<_, _>>()?,
            Some(other) => {
                return Err(format!("{}: `delays` is {other}", case_json.display()));
            }
        };
        cases.push(Case {
            source: str_field(&v, "source", &case_json)?,
            toolchain: str_field(&v, "toolchain", &case_json)?,
            module: str_field(&v, "module", &case_json)?,
            stderr_lines_before_stdout: v
                .get("stderr_lines_before_stdout")
                .and_then(Value::as_u64)
                .unwrap_or(0) as usize,
            delays,
            generator: v.get("generator").cloned(),
            command_starts: command_starts(v.get("command_starts"), &case_json)?,
            dir,
        });
    }
    cases.sort_by(|a, b| a.dir.cmp(&b.dir));
    Ok(cases)
}

/// `{"L:C": [L, C], …}` of a case.json.
fn command_starts(v: Option<&Value>, path: &Path) -> Result<CommandStarts, String> {
    let mut out = HashMap::new();
    let Some(v) = v else { return Ok(out) };
    let map = v
        .as_object()
        .ok_or_else(|| format!("{}: `command_starts` is not an object", path.display()))?;
    for (key, start) in map {
        let at = key
            .split_once(':')
            .and_then(|(l, c)| Some((l.parse().ok()?, c.parse().ok()?)));
        let start = start
            .as_array()
            .filter(|a| a.len() == 2)
            .and_then(|a| Some((a[0].as_u64()?, a[1].as_u64()?)));
        match (at, start) {
            (Some(at), Some(start)) => {
                out.insert(at, start);
            }
            _ => {
                return Err(format!(
                    "{}: bad `command_starts` entry {key:?}",
                    path.display()
                ))
            }
        }
    }
    Ok(out)
}

/// `FILE` as the key rule compares it.
pub fn normalize_file_arg(file: &str) -> String {
    let slashed = file.replace('\\', "/");
    let parts: Vec<&str> = slashed.split('/').filter(|p| *p != ".").collect();
    parts.join("/")
}

/// The case for `lean FILE` under `toolchain` (see the module docs for the rule).
pub fn find_case<'a>(
    cases: &'a [Case],
    toolchain: &str,
    file: &str,
) -> Result<Option<&'a Case>, String> {
    // A case recorded for this very toolchain wins over the reference case of its source.
    match find_case_of(cases, toolchain, file)? {
        Some(case) => Ok(Some(case)),
        None => find_case_of(cases, REFERENCE, file),
    }
}

fn find_case_of<'a>(
    cases: &'a [Case],
    toolchain: &str,
    file: &str,
) -> Result<Option<&'a Case>, String> {
    let file = normalize_file_arg(file);
    let mut best: Option<&Case> = None;
    for case in cases.iter().filter(|c| c.toolchain == toolchain) {
        let matches = file == case.source
            || file
                .strip_suffix(case.source.as_str())
                .is_some_and(|prefix| prefix.ends_with('/'));
        if !matches {
            continue;
        }
        match best {
            Some(b) if b.source.len() > case.source.len() => {}
            Some(b) if b.source.len() == case.source.len() => {
                return Err(format!(
                    "cases {} and {} both record {} for toolchain {toolchain}",
                    b.dir.display(),
                    case.dir.display(),
                    case.source
                ));
            }
            _ => best = Some(case),
        }
    }
    Ok(best)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(source: &str, toolchain: &str) -> Case {
        Case {
            dir: PathBuf::from(format!("/cases/{source}/{toolchain}")),
            source: source.to_string(),
            toolchain: toolchain.to_string(),
            module: String::new(),
            stderr_lines_before_stdout: 0,
            delays: Vec::new(),
            generator: None,
            command_starts: HashMap::new(),
        }
    }

    #[test]
    fn key_rule() {
        let cases = vec![
            case("Demo/Clean.lean", "new"),
            case("Clean.lean", "new"),
            case("Demo/Clean.lean", "old"),
        ];
        let found = |tc: &str, file: &str| {
            find_case(&cases, tc, file)
                .expect("no conflict")
                .map(|c| (c.source.clone(), c.toolchain.clone()))
        };
        let demo = Some(("Demo/Clean.lean".to_string(), "new".to_string()));
        assert_eq!(found("new", "Demo/Clean.lean"), demo);
        assert_eq!(found("new", "./Demo/./Clean.lean"), demo);
        assert_eq!(found("new", "/abs/project/Demo/Clean.lean"), demo);
        assert_eq!(found("new", "C:\\p\\Demo\\Clean.lean"), demo);
        assert_eq!(
            found("new", "Other/Clean.lean"),
            Some(("Clean.lean".to_string(), "new".to_string()))
        );
        assert_eq!(found("new", "Demo/XClean.lean"), None);
        assert_eq!(
            found("old", "x/Demo/Clean.lean"),
            Some(("Demo/Clean.lean".to_string(), "old".to_string()))
        );
        assert_eq!(found("other", "Demo/Clean.lean"), None);
        let with_reference = vec![
            case("Demo/Clean.lean", "old"),
            case("Demo/Clean.lean", REFERENCE),
        ];
        let found = |tc: &str| {
            find_case(&with_reference, tc, "Demo/Clean.lean")
                .expect("no conflict")
                .map(|c| c.toolchain.clone())
        };
        assert_eq!(found("old"), Some("old".to_string()));
        assert_eq!(found("new"), Some(REFERENCE.to_string()));
    }

    #[test]
    fn duplicate_sources_are_an_error() {
        let cases = vec![case("A.lean", "t"), case("A.lean", "t")];
        assert!(find_case(&cases, "t", "A.lean").is_err());
    }
}
