//! `leanscope revisions plan` on real Git repositories the tests build
//! (`git init`, commits, branches), through the real binary: what it lists,
//! every refusal (each names the path), its schema and its digest.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::git_repo::Repo;
use serde_json::Value;

/// `leanscope revisions plan` on a repository.
trait PlanCli {
    fn plan(&self, extra: &[&str]) -> Output;
    fn plan_json(&self, extra: &[&str]) -> Value;
    fn refused(&self, extra: &[&str]) -> String;
}

impl PlanCli for Repo {
    fn plan(&self, extra: &[&str]) -> Output {
        let mut c = Command::new(common::leanscope_bin());
        c.args(["revisions", "plan", "--repo"])
            .arg(&self.path)
            .args(extra)
            .env("HOME", self.dir.path())
            .env("GIT_CONFIG_NOSYSTEM", "1");
        c.output().unwrap()
    }

    fn plan_json(&self, extra: &[&str]) -> Value {
        let mut args = extra.to_vec();
        args.push("--json");
        let out = self.plan(&args);
        assert!(
            out.status.success(),
            "plan failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }

    /// A refusal: exit 2 and the error message.
    fn refused(&self, extra: &[&str]) -> String {
        let out = self.plan(extra);
        assert_eq!(
            out.status.code(),
            Some(2),
            "expected a refusal; stdout {}",
            String::from_utf8_lossy(&out.stdout)
        );
        assert!(out.stdout.is_empty(), "a refusal prints no plan");
        String::from_utf8(out.stderr).unwrap()
    }
}

const LAKEFILE: &str =
    "name = \"demo\"\ndefaultTargets = [\"Demo\"]\n\n[[lean_lib]]\nname = \"Demo\"\n";

/// A base commit on `main` with a Lake package, and a `feature` branch.
fn project() -> Repo {
    let r = Repo::new();
    r.write("lakefile.toml", LAKEFILE);
    r.write("lean-toolchain", "leanprover/lean4:v4.18.0\n");
    r.write(
        "lake-manifest.json",
        "{\"version\": \"1.1.0\", \"packages\": []}\n",
    );
    for f in ["A", "B", "C", "D"] {
        r.write(
            &format!("Demo/{f}.lean"),
            &format!("theorem {f} : True := trivial\n"),
        );
    }
    r.write("Demo/Sub/E.lean", "def e := 1\n");
    r.write("Demo/Sub/F.lean", "def f := 2\n");
    r.write("README.md", "demo\n");
    r.commit("base");
    r.git(&["checkout", "-q", "-b", "feature"]);
    r
}

fn files(plan: &Value) -> Vec<(String, String, String)> {
    plan["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_owned(),
                f["module"].as_str().unwrap().to_owned(),
                f["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn schema_errors(plan: &Value) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas/revisions-plan.schema.json");
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let v = jsonschema::draft202012::new(&schema).unwrap();
    v.iter_errors(plan).map(|e| e.to_string()).collect()
}

/// The canonical form, written independently of the binary's code.
fn canonical(v: &Value) -> String {
    match v {
        Value::Object(o) => {
            let mut keys: Vec<&String> = o.keys().collect();
            keys.sort();
            let parts: Vec<String> = keys
                .iter()
                .map(|k| format!("{}:{}", Value::String((*k).clone()), canonical(&o[*k])))
                .collect();
            format!("{{{}}}", parts.join(","))
        }
        Value::Array(a) => format!(
            "[{}]",
            a.iter().map(canonical).collect::<Vec<_>>().join(",")
        ),
        other => other.to_string(),
    }
}

#[test]
fn modify_add_remove_renames_and_a_directory_move() {
    let r = project();
    r.write("Demo/A.lean", "theorem A : True := by trivial\n");
    r.write("Demo/G.lean", "def g := 3\n");
    std::fs::remove_file(r.path.join("Demo/B.lean")).unwrap();
    // R100: the same bytes under a new name.
    std::fs::rename(r.path.join("Demo/C.lean"), r.path.join("Demo/C2.lean")).unwrap();
    // A partial rename: moved and edited.
    std::fs::remove_file(r.path.join("Demo/D.lean")).unwrap();
    r.write("Demo/D2.lean", "theorem D : True := trivial\n-- edited\n");
    // A directory move.
    std::fs::rename(r.path.join("Demo/Sub"), r.path.join("Demo/Moved")).unwrap();
    r.write("README.md", "demo, edited\n");
    let head = r.commit("feature");
    // The base moves on after the branch: the measured base is the merge base.
    r.git(&["checkout", "-q", "main"]);
    let merge_base = r.git(&["rev-parse", "HEAD"]);
    r.write("Demo/OnMain.lean", "def m := 0\n");
    let base_tip = r.commit("main moves on");

    let plan = r.plan_json(&["--base", "main", "--head", "feature"]);
    assert_eq!(schema_errors(&plan), Vec::<String>::new());
    assert_eq!(plan["base"]["rev"], "main");
    assert_eq!(plan["base"]["commit"], base_tip.as_str());
    assert_eq!(plan["head"]["commit"], head.as_str());
    assert_eq!(plan["merge_base"], merge_base.as_str());
    assert_eq!(plan["roots_from"], "lakefile_toml");
    assert_eq!(plan["roots"], serde_json::json!([""]));
    let s = |a: &str, b: &str, c: &str| (a.to_owned(), b.to_owned(), c.to_owned());
    assert_eq!(
        files(&plan),
        vec![
            s("Demo/A.lean", "Demo.A", "modified"),
            s("Demo/B.lean", "Demo.B", "removed"),
            s("Demo/C.lean", "Demo.C", "removed"),
            s("Demo/C2.lean", "Demo.C2", "added"),
            s("Demo/D.lean", "Demo.D", "removed"),
            s("Demo/D2.lean", "Demo.D2", "added"),
            s("Demo/G.lean", "Demo.G", "added"),
            s("Demo/Moved/E.lean", "Demo.Moved.E", "added"),
            s("Demo/Moved/F.lean", "Demo.Moved.F", "added"),
            s("Demo/Sub/E.lean", "Demo.Sub.E", "removed"),
            s("Demo/Sub/F.lean", "Demo.Sub.F", "removed"),
        ]
    );
    assert_eq!(plan["ignored_changes"], 1, "README.md");
    let by_path = |p: &str| {
        plan["files"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["path"] == p)
            .unwrap()
            .clone()
    };
    let a = by_path("Demo/A.lean");
    assert_eq!(
        a["base_blob"],
        r.blob(&format!("{merge_base}:Demo/A.lean")).as_str()
    );
    assert_eq!(
        a["head_blob"],
        r.blob(&format!("{head}:Demo/A.lean")).as_str()
    );
    let c2 = by_path("Demo/C2.lean");
    assert_eq!(c2["base_blob"], Value::Null);
    assert_eq!(
        c2["head_blob"],
        by_path("Demo/C.lean")["base_blob"],
        "R100: the same blob, still a removal plus an addition"
    );
    assert_eq!(by_path("Demo/B.lean")["head_blob"], Value::Null);

    // The digest is the SHA-256 of the canonical form.
    let mut body = plan.clone();
    body.as_object_mut().unwrap().remove("plan_digest");
    assert_eq!(
        plan["plan_digest"].as_str().unwrap(),
        recording::sha256_hex(canonical(&body).as_bytes())
    );
    // Same objects, same plan; uncommitted edits are irrelevant.
    r.write("Demo/A.lean", "uncommitted\n");
    assert_eq!(r.plan_json(&["--base", "main", "--head", "feature"]), plan);
    // Other roots, another plan and digest; module names from the
    // repository's root.
    let narrowed = r.plan_json(&[
        "--base",
        "main",
        "--head",
        "feature",
        "--roots",
        "Demo/Sub,Demo/A.lean",
    ]);
    assert_eq!(narrowed["roots_from"], "option");
    assert_eq!(
        files(&narrowed),
        vec![
            s("Demo/A.lean", "Demo.A", "modified"),
            s("Demo/Sub/E.lean", "Demo.Sub.E", "removed"),
            s("Demo/Sub/F.lean", "Demo.Sub.F", "removed"),
        ]
    );
    assert_ne!(narrowed["plan_digest"], plan["plan_digest"]);
    // The text form names the revisions with seven characters.
    let text = String::from_utf8(r.plan(&["--base", "main", "--head", "feature"]).stdout).unwrap();
    assert!(
        text.contains(&format!("merge base {}", &merge_base[..7])),
        "{text}"
    );
    assert!(text.contains("removed   Demo/B.lean  (Demo.B)"), "{text}");
}

#[test]
fn module_names_start_at_the_lake_source_folder() {
    let r = Repo::new();
    r.write(
        "lakefile.toml",
        "name = \"p\"\nsrcDir = \"src\"\ndefaultTargets = [\"P\"]\n[[lean_lib]]\nname = \"P\"\n[[lean_lib]]\nname = \"Q\"\nsrcDir = \"q\"\n",
    );
    r.write("src/P/A.lean", "def a := 1\n");
    r.write("src/q/Q.lean", "def q := 1\n");
    r.write("scripts/Tool.lean", "def t := 1\n");
    r.commit("base");
    r.write("src/P/A.lean", "def a := 2\n");
    r.write("src/q/Q.lean", "def q := 2\n");
    r.write("scripts/Tool.lean", "def t := 2\n");
    r.write("src/.lake/build/X.lean", "x\n");
    r.commit("head");
    let plan = r.plan_json(&["--base", "HEAD~1", "--head", "HEAD"]);
    assert_eq!(plan["roots"], serde_json::json!(["src"]));
    let f = files(&plan);
    // The default target's folder `src` holds `src/q` too, as Lake's would.
    assert_eq!(
        f,
        vec![
            ("src/P/A.lean".into(), "P.A".into(), "modified".into()),
            ("src/q/Q.lean".into(), "q.Q".into(), "modified".into()),
        ]
    );
    assert_eq!(
        plan["ignored_changes"], 2,
        "scripts/Tool.lean and the .lake file"
    );
}

#[test]
fn without_a_lakefile_toml_every_lean_file_outside_lake_and_build() {
    let r = Repo::new();
    r.write("lakefile.lean", "import Lake\n");
    r.write("A.lean", "def a := 1\n");
    r.commit("base");
    r.write("A.lean", "def a := 2\n");
    r.write("build/B.lean", "def b := 2\n");
    r.write(".lake/packages/x/C.lean", "def c := 2\n");
    r.commit("head");
    let plan = r.plan_json(&["--base", "HEAD~1", "--head", "HEAD"]);
    assert_eq!(plan["roots_from"], "repository");
    assert_eq!(
        files(&plan),
        vec![("A.lean".into(), "A".into(), "modified".into())]
    );
    assert_eq!(plan["ignored_changes"], 2);
}

#[test]
fn a_changed_symlink_is_refused() {
    let r = project();
    std::os::unix::fs::symlink("A.lean", r.path.join("Demo/L.lean")).unwrap();
    r.commit("symlink");
    let e = r.refused(&["--base", "main", "--head", "feature"]);
    assert!(e.contains("Demo/L.lean is a symbolic link"), "{e}");
}

#[test]
fn a_changed_submodule_is_refused() {
    let r = project();
    let some_commit = r.git(&["rev-parse", "main"]);
    r.git(&[
        "update-index",
        "--add",
        "--cacheinfo",
        &format!("160000,{some_commit},Demo/Vendored"),
    ]);
    r.git(&["commit", "-q", "-m", "submodule"]);
    let e = r.refused(&["--base", "main", "--head", "feature"]);
    assert!(e.contains("Demo/Vendored is a submodule"), "{e}");
}

#[test]
fn build_configuration_changes_are_refused() {
    for (path, text) in [
        ("lakefile.toml", "name = \"demo\"\ndefaultTargets = [\"Demo\"]\n\n[[lean_lib]]\nname = \"Demo\"\nleanOptions = { autoImplicit = false }\n"),
        ("lean-toolchain", "leanprover/lean4:v4.19.0\n"),
        ("lake-manifest.json", "{\"version\": \"1.1.0\", \"packages\": [{}]}\n"),
        ("lakefile.lean", "import Lake\n"),
    ] {
        let r = project();
        r.write("Demo/A.lean", "theorem A : True := by trivial\n");
        r.write(path, text);
        r.commit("bump");
        let e = r.refused(&["--base", "main", "--head", "feature"]);
        assert!(
            e.contains(&format!("{path} differs between the merge base and the head"))
                && e.contains("toolchain or dependency change needs a different measurement"),
            "{path}: {e}"
        );
    }
}

#[test]
fn two_merge_bases_are_refused() {
    let r = project();
    r.write("Demo/A.lean", "-- x\n");
    r.commit("x1");
    r.git(&["checkout", "-q", "main"]);
    r.write("Demo/B.lean", "-- y\n");
    r.commit("y1");
    // Criss-cross: each branch merges the other's first commit.
    let y1 = r.git(&["rev-parse", "main"]);
    let x1 = r.git(&["rev-parse", "feature"]);
    r.git(&["merge", "-q", "--no-edit", &x1]);
    r.git(&["checkout", "-q", "feature"]);
    r.git(&["merge", "-q", "--no-edit", &y1]);
    let e = r.refused(&["--base", "main", "--head", "feature"]);
    assert!(e.contains("have 2 merge bases"), "{e}");
    assert!(e.contains(&x1) && e.contains(&y1), "{e}");
}

#[test]
fn no_merge_base_is_refused() {
    let r = project();
    r.git(&["checkout", "-q", "--orphan", "unrelated"]);
    r.write("Demo/A.lean", "-- unrelated\n");
    r.commit("unrelated root");
    let e = r.refused(&["--base", "main", "--head", "unrelated"]);
    assert!(e.contains("have no merge base"), "{e}");
}

#[test]
fn more_files_than_the_limit_are_refused_at_the_edge() {
    let r = project();
    for f in ["A", "B", "C"] {
        r.write(&format!("Demo/{f}.lean"), "-- changed\n");
    }
    r.commit("three");
    let at = r.plan_json(&["--base", "main", "--head", "feature", "--max-files", "3"]);
    assert_eq!(at["files"].as_array().unwrap().len(), 3);
    assert_eq!(at["max_files"], 3);
    let e = r.refused(&["--base", "main", "--head", "feature", "--max-files", "2"]);
    assert!(
        e.contains("3 .lean files differ, more than --max-files 2") && e.contains("Demo/C.lean"),
        "{e}"
    );
    // The default limit is 32.
    for i in 0..30 {
        r.write(&format!("Demo/N{i}.lean"), "-- new\n");
    }
    r.commit("thirty-three");
    let e = r.refused(&["--base", "main", "--head", "feature"]);
    assert!(
        e.contains("33 .lean files differ, more than --max-files 32"),
        "{e}"
    );
}

#[test]
fn a_path_that_is_not_a_module_name_is_refused() {
    for bad in ["Demo/my-file.lean", "Demo/1st.lean", "Demo/a b/X.lean"] {
        let r = project();
        r.write(bad, "def x := 1\n");
        r.commit("bad name");
        let e = r.refused(&["--base", "main", "--head", "feature"]);
        assert!(
            e.contains(&format!("{bad} is not a valid Lean module name")),
            "{bad}: {e}"
        );
    }
}

#[test]
fn only_non_lean_changes_make_an_empty_plan() {
    let r = project();
    r.write("README.md", "edited\n");
    r.write("docs/notes.txt", "new\n");
    r.commit("docs");
    let plan = r.plan_json(&["--base", "main", "--head", "feature"]);
    assert_eq!(plan["files"], serde_json::json!([]));
    assert_eq!(plan["ignored_changes"], 2);
    assert_eq!(schema_errors(&plan), Vec::<String>::new());
    let text = String::from_utf8(r.plan(&["--base", "main", "--head", "feature"]).stdout).unwrap();
    assert!(text.contains("no library .lean file differs"), "{text}");
}

#[test]
fn unknown_revisions_and_non_repositories_are_named() {
    let r = project();
    let e = r.refused(&["--base", "nope", "--head", "feature"]);
    assert!(
        e.contains("revision \"nope\" does not name a commit"),
        "{e}"
    );
    let blob = r.blob("main:README.md");
    let e = r.refused(&["--base", &blob, "--head", "feature"]);
    assert!(e.contains("does not name a commit"), "{e}");
    let not_repo = tempfile::tempdir().unwrap();
    let out = Command::new(common::leanscope_bin())
        .args(["revisions", "plan", "--base", "a", "--head", "b", "--repo"])
        .arg(not_repo.path())
        .env("GIT_CEILING_DIRECTORIES", not_repo.path().parent().unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not a Git repository"));
    let e = r.refused(&["--base", "main", "--head", "feature", "--roots", "../x"]);
    assert!(e.contains("root \"../x\" is not a relative path"), "{e}");
}

#[test]
fn a_schema_violation_is_caught() {
    let r = project();
    r.write("Demo/A.lean", "-- changed\n");
    r.commit("one");
    let mut plan = r.plan_json(&["--base", "main", "--head", "feature"]);
    plan["files"][0]["status"] = "renamed".into();
    assert!(!schema_errors(&plan).is_empty());
}
