//! The distributed-capture recipes in `docs/recipes/` are well-formed: the
//! YAML parses into what GitHub Actions and Kubernetes expect, the shell
//! scripts parse (`bash -n`), the shard counts agree, and every `leanscope`
//! command in them exists in the real binary with the flags they give it.

mod common;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

use common::{leanscope_bin, text};
use serde_yaml::Value;

fn recipe(name: &str) -> PathBuf {
    common::repo().join("docs/recipes").join(name)
}

fn yaml_docs(name: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(recipe(name)).unwrap();
    serde_yaml::Deserializer::from_str(&text)
        .map(|d| serde::Deserialize::deserialize(d).unwrap_or_else(|e| panic!("{name}: {e}")))
        .collect()
}

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("no string {key} in {v:?}"))
}

/// The `leanscope ...` commands of a shell text: each as its words.
fn leanscope_commands(script: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for line in script.lines() {
        let line = line.trim();
        if line.starts_with('#') {
            continue;
        }
        for part in line
            .split("||")
            .flat_map(|p| p.split("&&"))
            .flat_map(|p| p.split(';'))
        {
            let words: Vec<String> = part.split_whitespace().map(str::to_string).collect();
            if words.first().map(String::as_str) == Some("leanscope") {
                out.push(words);
            }
        }
    }
    out
}

/// The flags `leanscope SUB --help` lists.
fn flags_of(sub: &[&str]) -> BTreeSet<String> {
    let out = Command::new(leanscope_bin())
        .args(sub)
        .arg("--help")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "leanscope {sub:?} --help: {}",
        text(&out.stderr)
    );
    let help = text(&out.stdout);
    let mut flags = BTreeSet::new();
    for w in help.split(|c: char| c.is_whitespace() || c == ',' || c == '[' || c == ']') {
        let w = w.split(['=', '<']).next().unwrap_or("");
        if (w.starts_with("--") && w.len() > 2) || (w.len() == 2 && w.starts_with('-')) {
            flags.insert(w.to_string());
        }
    }
    flags
}

/// Checks each command against the CLI; returns the subcommands seen.
fn check_commands(name: &str, script: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    for words in leanscope_commands(script) {
        let depth = if words.get(1).map(String::as_str) == Some("session") {
            3
        } else {
            2
        };
        assert!(words.len() >= depth, "{name}: {words:?}");
        let sub: Vec<&str> = words[1..depth].iter().map(String::as_str).collect();
        let known = flags_of(&sub);
        for w in &words[depth..] {
            let flag = w.split('=').next().unwrap();
            if flag.starts_with('-') {
                assert!(
                    known.contains(flag),
                    "{name}: `leanscope {}` has no flag {flag} (it has {known:?})",
                    sub.join(" ")
                );
            }
        }
        seen.insert(sub.join(" "));
    }
    seen
}

fn expect_all(name: &str, seen: &BTreeSet<String>, wanted: &[&str]) {
    for w in wanted {
        assert!(
            seen.contains(*w),
            "{name} never runs `leanscope {w}` ({seen:?})"
        );
    }
}

/// The number after `--shards` or in `--shard K/N` of the commands.
fn shard_counts(script: &str) -> Vec<String> {
    let mut out = Vec::new();
    for words in leanscope_commands(script) {
        for pair in words.windows(2) {
            match pair[0].as_str() {
                "--shards" => out.push(pair[1].clone()),
                "--shard" if pair[1] != "auto" => {
                    out.push(pair[1].rsplit('/').next().unwrap().to_string())
                }
                _ => {}
            }
        }
    }
    out
}

#[test]
fn the_github_actions_workflow_is_well_formed() {
    let name = "github-actions.yml";
    let docs = yaml_docs(name);
    assert_eq!(docs.len(), 1);
    let wf = &docs[0];
    let jobs = wf.get("jobs").and_then(Value::as_mapping).expect("jobs");
    let profile = &jobs[&Value::from("profile")];
    let merge = &jobs[&Value::from("merge")];
    assert_eq!(str_of(merge, "needs"), "profile");
    let shards = profile["strategy"]["matrix"]["shard"]
        .as_sequence()
        .expect("a matrix of shards");
    let expected: Vec<Value> = (1..=shards.len() as u64).map(Value::from).collect();
    assert_eq!(shards, &expected, "the matrix counts shards 1..N");
    let mut seen = BTreeSet::new();
    let mut uses = BTreeSet::new();
    let mut runs = String::new();
    for job in [profile, merge] {
        assert!(job.get("runs-on").is_some());
        for step in job["steps"].as_sequence().unwrap() {
            match (step.get("run"), step.get("uses")) {
                (Some(r), None) => {
                    let r = r.as_str().unwrap();
                    runs.push_str(r);
                    seen.extend(check_commands(name, r));
                }
                (None, Some(u)) => {
                    uses.insert(u.as_str().unwrap().split('@').next().unwrap().to_string());
                }
                other => panic!("{name}: a step is neither run nor uses: {other:?}"),
            }
        }
    }
    expect_all(name, &seen, &["profile", "session merge", "publish"]);
    assert!(runs.contains("lake build") && runs.contains("lake exe cache get"));
    // The shard reaches the script through the environment (no template
    // expanded into a shell script: zizmor's template-injection rule).
    let shard_env = profile["steps"]
        .as_sequence()
        .unwrap()
        .iter()
        .find_map(|s| s.get("env").and_then(|e| e.get("SHARD")))
        .and_then(Value::as_str);
    assert_eq!(
        shard_env,
        Some("${{ matrix.shard }}/${{ strategy.job-total }}")
    );
    assert!(runs.contains("--shard \"$SHARD\""));
    for u in [
        "actions/checkout",
        "actions/upload-artifact",
        "actions/download-artifact",
    ] {
        assert!(uses.contains(u), "{name} does not use {u}");
    }
}

#[test]
fn the_kubernetes_indexed_job_is_well_formed() {
    let name = "kubernetes-indexed-job.yaml";
    let docs = yaml_docs(name);
    assert_eq!(docs.len(), 2);
    let mut seen = BTreeSet::new();
    for d in &docs {
        assert_eq!(str_of(d, "apiVersion"), "batch/v1");
        assert_eq!(str_of(d, "kind"), "Job");
        for c in d["spec"]["template"]["spec"]["containers"]
            .as_sequence()
            .unwrap()
        {
            let args: Vec<&str> = c["args"]
                .as_sequence()
                .unwrap()
                .iter()
                .map(|a| a.as_str().unwrap())
                .collect();
            let script = args.join("\n");
            seen.extend(check_commands(name, &script));
            if str_of(&d["metadata"], "name") == "leanscope-profile" {
                let spec = &d["spec"];
                assert_eq!(str_of(spec, "completionMode"), "Indexed");
                let n = spec["completions"].as_u64().unwrap().to_string();
                assert_eq!(
                    shard_counts(&script),
                    vec![n.clone()],
                    "--shards is the Job's completions"
                );
                assert!(script.contains("--shard auto"));
            }
        }
    }
    expect_all(name, &seen, &["profile", "session merge", "publish"]);
}

#[test]
fn the_slurm_scripts_are_well_formed() {
    let mut seen = BTreeSet::new();
    for name in ["slurm-array.sh", "slurm-merge.sh"] {
        let path = recipe(name);
        let out = Command::new("bash").arg("-n").arg(&path).output().unwrap();
        assert!(out.status.success(), "{name}: {}", text(&out.stderr));
        let script = std::fs::read_to_string(&path).unwrap();
        assert!(script.starts_with("#!/bin/bash\n"));
        seen.extend(check_commands(name, &script));
        if name == "slurm-array.sh" {
            assert!(script.contains("#SBATCH --array=0-"), "{name}");
            assert!(script.contains("--shard auto"));
        }
    }
    expect_all(
        "the Slurm scripts",
        &seen,
        &["profile", "session merge", "publish"],
    );
}

#[test]
fn a_flag_the_cli_lacks_is_caught() {
    let seen = std::panic::catch_unwind(|| {
        check_commands("probe", "leanscope profile --project . --shards-of-glass 3")
    });
    assert!(seen.is_err());
    assert_eq!(
        leanscope_commands("x || leanscope session merge a b -o m; leanscope publish m -o s"),
        vec![
            vec!["leanscope", "session", "merge", "a", "b", "-o", "m"],
            vec!["leanscope", "publish", "m", "-o", "s"],
        ]
    );
}
