//! What `summary --json`, `compare --json` and a repeated capture write conform to the JSON
//! Schemas in `schemas/`. A small validator for the keywords those schemas
//! use (type, const, enum, required, properties, additionalProperties,
//! items, minimum, maximum, oneOf, $ref) checks real outputs, and a
//! mutated output is rejected, so the check can fail.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use recording::synth::{write_synthetic, SynthParams};
use serde_json::Value;

fn schemas_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas")
}

fn load(name: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(schemas_dir().join(name)).unwrap()).unwrap()
}

struct Validator {
    docs: Vec<(String, Value)>,
}

impl Validator {
    fn resolve(&self, base: &str, r: &str) -> (String, Value) {
        let (file, pointer) = r.split_once('#').unwrap();
        let file = if file.is_empty() { base } else { file };
        let doc = &self.docs.iter().find(|(n, _)| n == file).unwrap().1;
        (
            file.to_owned(),
            doc.pointer(pointer)
                .unwrap_or_else(|| panic!("{r}"))
                .clone(),
        )
    }

    fn check(&self, base: &str, schema: &Value, v: &Value, path: &str) -> Result<(), String> {
        if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
            let (file, s) = self.resolve(base, r);
            return self.check(&file, &s, v, path);
        }
        if let Some(c) = schema.get("const") {
            if c != v {
                return Err(format!("{path}: expected {c}, found {v}"));
            }
        }
        if let Some(e) = schema.get("enum").and_then(Value::as_array) {
            if !e.contains(v) {
                return Err(format!("{path}: {v} is not one of {e:?}"));
            }
        }
        if let Some(one) = schema.get("oneOf").and_then(Value::as_array) {
            let ok = one
                .iter()
                .filter(|s| self.check(base, s, v, path).is_ok())
                .count();
            if ok != 1 {
                return Err(format!("{path}: {v} matches {ok} of oneOf"));
            }
        }
        if let Some(t) = schema.get("type") {
            let types: Vec<&str> = match t {
                Value::String(s) => vec![s.as_str()],
                Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
                _ => vec![],
            };
            let is = |t: &str| match t {
                "object" => v.is_object(),
                "array" => v.is_array(),
                "string" => v.is_string(),
                "integer" => v.is_i64() || v.is_u64(),
                "number" => v.is_number(),
                "boolean" => v.is_boolean(),
                "null" => v.is_null(),
                _ => false,
            };
            if !types.iter().any(|t| is(t)) {
                return Err(format!("{path}: {v} is not of type {types:?}"));
            }
        }
        if let Some(min) = schema.get("minimum").and_then(Value::as_i64) {
            if v.as_i64().is_some_and(|n| n < min) {
                return Err(format!("{path}: {v} < {min}"));
            }
        }
        if let Some(max) = schema.get("maximum").and_then(Value::as_u64) {
            if v.as_u64().is_some_and(|n| n > max) {
                return Err(format!("{path}: {v} > {max}"));
            }
        }
        if let Some(obj) = v.as_object() {
            let props = schema.get("properties").and_then(Value::as_object);
            for r in schema
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if !obj.contains_key(r.as_str().unwrap()) {
                    return Err(format!("{path}: missing {r}"));
                }
            }
            for (k, x) in obj {
                match props.and_then(|p| p.get(k)) {
                    Some(s) => self.check(base, s, x, &format!("{path}.{k}"))?,
                    None if schema.get("additionalProperties") == Some(&Value::Bool(false)) => {
                        return Err(format!("{path}: unexpected field {k}"))
                    }
                    None => {}
                }
            }
        }
        if let (Some(items), Some(a)) = (schema.get("items"), v.as_array()) {
            for (i, x) in a.iter().enumerate() {
                self.check(base, items, x, &format!("{path}[{i}]"))?;
            }
        }
        Ok(())
    }
}

fn validator() -> Validator {
    Validator {
        docs: vec![
            ("summary.schema.json".into(), load("summary.schema.json")),
            (
                "comparison.schema.json".into(),
                load("comparison.schema.json"),
            ),
        ],
    }
}

fn leanscope(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_leanscope"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn outputs_conform_to_the_schemas() {
    let v = validator();
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.lsrec");
    let b = dir.path().join("b.lsrec");
    std::fs::write(
        &a,
        write_synthetic(
            &SynthParams {
                seed: 1,
                events: 1000,
                threads: 3,
            },
            Vec::new(),
        )
        .unwrap(),
    )
    .unwrap();
    std::fs::write(
        &b,
        write_synthetic(
            &SynthParams {
                seed: 1,
                events: 1200,
                threads: 3,
            },
            Vec::new(),
        )
        .unwrap(),
    )
    .unwrap();
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let summary_schema = load("summary.schema.json");
    let comparison_schema = load("comparison.schema.json");
    for g in ["name", "declaration", "tactic", "file", "class"] {
        let s: Value =
            serde_json::from_str(&leanscope(&["summary", a, "--group-by", g, "--json", "-"]))
                .unwrap();
        v.check("summary.schema.json", &summary_schema, &s, "$")
            .unwrap();
        let c: Value = serde_json::from_str(&leanscope(&[
            "compare",
            a,
            b,
            "--group-by",
            g,
            "--json",
            "-",
        ]))
        .unwrap();
        assert!(!c["matched"].as_array().unwrap().is_empty());
        v.check("comparison.schema.json", &comparison_schema, &c, "$")
            .unwrap();
        // A changed field is caught.
        let mut bad = s.clone();
        bad["rows"][0]["key"]["extra"] = Value::Bool(true);
        assert!(v
            .check("summary.schema.json", &summary_schema, &bad, "$")
            .is_err());
        let mut bad = c.clone();
        bad["matched"][0]["status"] = "worse".into();
        assert!(v
            .check("comparison.schema.json", &comparison_schema, &bad, "$")
            .is_err());
    }
}

/// A repeated capture's `session.json` (its `repeats` and each file's `runs`) and `query --json`
/// answer (the rows' spreads) conform to `session.schema.json` and to `leanscope serve`'s
/// `queryResult`; a run with a stray field is caught.
#[test]
fn a_repeated_capture_conforms_to_the_schemas() {
    let w = common::World::new();
    std::fs::create_dir_all(w.project.join("Rep")).unwrap();
    std::fs::write(
        w.project.join("Rep/A.lean"),
        "theorem a : True := by -- leanscope-fake: heartbeats-runs 300,200,250,400,100\n  trivial -- leanscope-fake: heartbeats-runs 150,100,120,160,50\n",
    )
    .unwrap();
    let out = w.path("s");
    let o = w.run(&[
        "profile",
        "Rep",
        "--measure",
        "heartbeats",
        "--threshold",
        "10",
        "--repeat",
        "4",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v = Validator {
        docs: vec![
            ("session.schema.json".into(), load("session.schema.json")),
            ("serve.schema.json".into(), load("rpc/serve.schema.json")),
        ],
    };
    let schema = load("session.schema.json");
    let m: Value =
        serde_json::from_slice(&std::fs::read(out.join("session.json")).unwrap()).unwrap();
    assert_eq!(m["files"][0]["runs"].as_array().unwrap().len(), 4);
    v.check("session.schema.json", &schema, &m, "$").unwrap();
    let mut bad = m.clone();
    bad["files"][0]["runs"][0]["extra"] = Value::Bool(true);
    assert!(v.check("session.schema.json", &schema, &bad, "$").is_err());
    let o = w.run(&["query", out.to_str().unwrap(), "--kind", "tactic", "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let q: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(q["rows"][0]["durationSpread"]["q1"].is_number());
    let result = serde_json::json!({"$ref": "#/$defs/queryResult"});
    v.check("serve.schema.json", &result, &q, "$").unwrap();
    let mut bad = q.clone();
    bad["rows"][0]["durationSpread"]["p95"] = 1.into();
    assert!(v.check("serve.schema.json", &result, &bad, "$").is_err());
}
