//! What the `revisions` tests share: the test project's lakefile, sources
//! whose declarations cost what a test asks, and a run's report read and
//! checked against its schema.

use std::path::Path;

use serde_json::Value;

pub const LAKEFILE: &str =
    "name = \"demo\"\ndefaultTargets = [\"Demo\"]\n\n[[lean_lib]]\nname = \"Demo\"\n";

/// Thresholds a test project reaches in a second: ×1.5 and +200 ms, an
/// added file at 250 ms.
pub const FLAGS: [&str; 6] = [
    "--flag-ratio",
    "1.5",
    "--flag-min-increase-ms",
    "200",
    "--flag-added-ms",
    "250",
];

/// A source of theorems, each `(name, ms)` spending that much CPU time in
/// its one tactic, and definitions `(name, ms)` spending it in the command.
pub fn decls(theorems: &[(&str, u64)], defs: &[(&str, u64)]) -> String {
    let mut s = String::new();
    for (name, ms) in theorems {
        s.push_str(&format!(
            "theorem {name} : True := by\n  trivial -- leanscope-fake: cost {ms}ms\n\n"
        ));
    }
    for (name, ms) in defs {
        s.push_str(&format!(
            "def {name} := 1 -- leanscope-fake: cost {ms}ms\n\n"
        ));
    }
    s
}

/// A workspace's `report.json`, checked against
/// `schemas/revisions-report.schema.json`.
pub fn report(ws: &Path) -> Value {
    let v: Value = serde_json::from_slice(&std::fs::read(ws.join("report.json")).unwrap()).unwrap();
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas/revisions-report.schema.json");
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let errors: Vec<String> = jsonschema::draft202012::new(&schema)
        .unwrap()
        .iter_errors(&v)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    v
}
