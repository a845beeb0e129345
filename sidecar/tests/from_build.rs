//! A project's build read as a session with no Lean run: the fake toolchain's `lake build`
//! (with `LEANSCOPE_FAKE_HB_JSON=1`) writes each module's `.hb.json` beside its `.olean` under
//! `.lake/build/lib/lean/`, in the shape of Lean's test `tests/misc/lean_heartbeats_output.sh`;
//! `profile --project --from-build` reads them, and the per-declaration figures, the headroom
//! report and a comparison of two builds are checked against the files' numbers by hand.

mod common;

use std::path::{Path, PathBuf};

use common::{text, World};
use serde_json::{json, Value};

/// `Build/Basic.lean`: two placed declarations (one with a `set_option … in` bump, one with
/// an auxiliary matcher rolled up to it) and one owner no scan can find (made by a macro).
const BASIC: &str = "\
namespace Build.Basic

set_option maxHeartbeats 400000 in
theorem big : True := trivial
-- leanscope-fake: hb-entry Build.Basic.big Build.Basic.big elab 300000000
-- leanscope-fake: hb-entry Build.Basic.big Build.Basic.big kernel 20000000

def small (n : Nat) : Nat := n
-- leanscope-fake: hb-entry Build.Basic.small Build.Basic.small elab 1000000
-- leanscope-fake: hb-entry Build.Basic.small Build.Basic.small.match_1 elab 500000
-- leanscope-fake: hb-entry Build.Basic.small Build.Basic.small kernel 250000
-- leanscope-fake: hb-entry Build.Basic.generated Build.Basic.generated elab 7000

end Build.Basic
";

/// `Build/Deep/Other.lean`: one declaration, in a nested folder.
fn other(elab: u64) -> String {
    format!(
        "theorem Build.Deep.Other.t : 1 + 1 = 2 := rfl\n\
         -- leanscope-fake: hb-entry Build.Deep.Other.t Build.Deep.Other.t elab {elab}\n\
         -- leanscope-fake: hb-entry Build.Deep.Other.t Build.Deep.Other.t kernel 3000\n"
    )
}

/// A project `build/` (toolchain `toolchain`) with the two sources.
fn project(w: &World, toolchain: &str, other_elab: u64) -> PathBuf {
    let root = w.path("build");
    std::fs::create_dir_all(root.join("Build/Deep")).unwrap();
    std::fs::write(root.join("lean-toolchain"), format!("{toolchain}\n")).unwrap();
    std::fs::write(root.join("lakefile.toml"), "name = \"build\"\n").unwrap();
    std::fs::write(root.join("Build/Basic.lean"), BASIC).unwrap();
    std::fs::write(root.join("Build/Deep/Other.lean"), other(other_elab)).unwrap();
    root
}

/// The fake `lake build` in `root`; `hb` acts as a Lean that writes `.hb.json`.
fn lake_build(w: &World, root: &Path, hb: bool) {
    let mut c = std::process::Command::new(w.bin.join("lake"));
    c.arg("build")
        .current_dir(root)
        .env("LEANSCOPE_FAKE_FIXTURES", &w.fixtures);
    if hb {
        c.env("LEANSCOPE_FAKE_HB_JSON", "1");
    } else {
        c.env_remove("LEANSCOPE_FAKE_HB_JSON");
    }
    let o = c.output().unwrap();
    assert!(o.status.success(), "{}{}", text(&o.stdout), text(&o.stderr));
}

fn from_build(w: &World, root: &Path, out: &Path) -> std::process::Output {
    w.command(&[
        "profile",
        "--project",
        root.to_str().unwrap(),
        "--from-build",
        "-o",
        out.to_str().unwrap(),
    ])
    .output()
    .unwrap()
}

fn json_of(w: &World, args: &[&str]) -> Value {
    let o = w.run(args);
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", text(&o.stdout), text(&o.stderr)))
}

fn declaration_rows(w: &World, session: &Path) -> Vec<(String, f64)> {
    let q = json_of(
        w,
        &[
            "query",
            session.to_str().unwrap(),
            "--kind",
            "declaration",
            "--json",
        ],
    );
    assert_eq!(q["unit"], "heartbeats", "{q:#}");
    let mut rows: Vec<(String, f64)> = q["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap().to_owned(),
                r["durationMs"].as_f64().unwrap(),
            )
        })
        .collect();
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    rows
}

#[test]
fn a_build_reads_as_a_heartbeat_session_with_its_figures_and_headroom() {
    let w = World::new();
    let root = project(&w, "leanprover/lean4:nightly-2026-12-01", 40_000);
    lake_build(&w, &root, true);
    let lib = root.join(".lake/build/lib/lean");
    assert!(lib.join("Build/Basic.olean").is_file());
    let hb: Value =
        serde_json::from_slice(&std::fs::read(lib.join("Build/Basic.hb.json")).unwrap()).unwrap();
    assert_eq!(hb["entries"].as_array().unwrap().len(), 6);
    assert_eq!(
        hb["entries"][2],
        json!({"owner": "Build.Basic.small", "decl": "Build.Basic.small", "phase": "elab",
               "heartbeats": 1000000})
    );

    let session = w.path("s1");
    let o = from_build(&w, &root, &session);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(session.join("session.json")).unwrap()).unwrap();
    assert_eq!(manifest["measure"], "heartbeats");
    assert_eq!(manifest["status"], "complete");
    let paths: Vec<&str> = manifest["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["Build/Basic.lean", "Build/Deep/Other.lean"]);

    // By hand from the entries: big 300,000,000 + 20,000,000; small 1,000,000 + 500,000 +
    // 250,000; t 40,000 + 3,000. `generated` is in no source: it has no declaration row.
    assert_eq!(
        declaration_rows(&w, &session),
        [
            ("Build.Basic.big".to_owned(), 320_000_000.0),
            ("Build.Basic.small".to_owned(), 1_750_000.0),
            ("Build.Deep.Other.t".to_owned(), 43_000.0),
        ]
    );

    // Headroom with no capture: big against its `in` bump (line 3), 320 M of 400 M = 0.8;
    // small against the default 200,000: 1.75 M of 200 M = 0.00875.
    let doc = json_of(&w, &["headroom", session.to_str().unwrap(), "--json"]);
    let row = |name: &str| {
        doc["declarations"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == name)
            .unwrap_or_else(|| panic!("no {name} in {doc:#}"))
            .clone()
    };
    let big = row("Build.Basic.big");
    assert_eq!(
        (
            &big["maxHeartbeats"]["heartbeats"],
            &big["maxHeartbeats"]["limit"],
            &big["maxHeartbeats"]["from"],
            &big["maxHeartbeats"]["line"],
            &big["maxHeartbeats"]["share"]
        ),
        (
            &json!(320_000_000),
            &json!(400_000),
            &json!("in"),
            &json!(3),
            &json!(0.8)
        ),
        "{doc:#}"
    );
    let small = row("Build.Basic.small");
    assert_eq!(
        (
            &small["maxHeartbeats"]["heartbeats"],
            &small["maxHeartbeats"]["from"],
            &small["maxHeartbeats"]["share"]
        ),
        (&json!(1_750_000), &json!("default"), &json!(0.00875)),
        "{doc:#}"
    );

    // `top` and the folder tree read it too.
    let o = w.run(&["top", session.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let o = w.run(&[
        "query",
        session.to_str().unwrap(),
        "--kind",
        "folder",
        "--json",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
}

#[test]
fn two_builds_compare_exactly() {
    let w = World::new();
    let root = project(&w, "leanprover/lean4:nightly-2026-12-01", 40_000);
    lake_build(&w, &root, true);
    let base = w.path("base");
    assert!(from_build(&w, &root, &base).status.success());
    // One declaration's elaboration costs 1 heartbeat more: a change no noise can hide.
    std::fs::write(root.join("Build/Deep/Other.lean"), other(40_001)).unwrap();
    lake_build(&w, &root, true);
    let head = w.path("head");
    assert!(from_build(&w, &root, &head).status.success());
    let doc = json_of(
        &w,
        &[
            "compare",
            base.to_str().unwrap(),
            head.to_str().unwrap(),
            "--json",
            "-",
        ],
    );
    // Exactly one regression, of exactly one heartbeat, with no tolerance given.
    assert_eq!(doc["has_regression"], true, "{doc:#}");
    let changed: Vec<&Value> = doc["matched"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["status"] != "unchanged" && m["delta"] != 0)
        .collect();
    assert_eq!(changed.len(), 1, "{doc:#}");
    assert_eq!(
        (
            &changed[0]["key"]["name"],
            &changed[0]["delta"],
            &changed[0]["status"]
        ),
        (
            &json!("Build.Deep.Other.t"),
            &json!(1),
            &json!("regression")
        ),
        "{doc:#}"
    );
    // Identical builds compare with no change at all.
    let again = w.path("again");
    assert!(from_build(&w, &root, &again).status.success());
    let same = w.run(&["compare", head.to_str().unwrap(), again.to_str().unwrap()]);
    assert!(same.status.success(), "{}", text(&same.stderr));

    // For CI: the summary names the declaration with both counts (elab + kernel, as the
    // files say), the outputs count it and point at the JSON; both files are appended to.
    let summary = w.path("summary.md");
    let outputs = w.path("outputs.txt");
    std::fs::write(&summary, "earlier step\n").unwrap();
    let json = w.path("cmp.json");
    let ci = |extra: &[&str]| {
        let mut args = vec![
            "compare",
            base.to_str().unwrap(),
            head.to_str().unwrap(),
            "--summary",
            summary.to_str().unwrap(),
            "--outputs",
            outputs.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        w.command(&args).output().unwrap()
    };
    let o = ci(&[
        "--json",
        json.to_str().unwrap(),
        "--baseline-label",
        "base b1",
    ]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "a regression: {}",
        text(&o.stderr)
    );
    let s = std::fs::read_to_string(&summary).unwrap();
    assert!(
        s.starts_with("earlier step\n## leanscope: heartbeats of base b1 → "),
        "{s}"
    );
    assert!(
        s.contains("| `Build.Deep.Other.t` | `Build/Deep/Other.lean` | 43,000 | 43,001 | +1 | +0.00 % | **flagged** |"),
        "{s}"
    );
    assert_eq!(
        std::fs::read_to_string(&outputs).unwrap(),
        format!("state=complete\nregressions=1\nreport={}\n", json.display())
    );
    assert!(json.is_file());
    // A comparison that cannot be made still says so, in both files.
    std::fs::remove_file(&outputs).unwrap();
    let o = ci(&["--metric", "mean_ns"]);
    assert_eq!(o.status.code(), Some(2));
    let s = std::fs::read_to_string(&summary).unwrap();
    assert!(
        s.contains("**The comparison failed:** --summary and --outputs report total heartbeats"),
        "{s}"
    );
    assert_eq!(
        std::fs::read_to_string(&outputs).unwrap(),
        "state=error\nregressions=0\nreport=\n"
    );
}

#[test]
fn a_toolchain_without_hb_json_is_named() {
    let w = World::new();
    let root = project(&w, "leanprover/lean4:v4.31.0", 1);
    lake_build(&w, &root, false);
    let o = from_build(&w, &root, &w.path("s"));
    assert!(!o.status.success());
    let err = text(&o.stderr);
    assert!(
        err.contains("no .hb.json")
            && err.contains("leanprover/lean4:v4.31.0")
            && err.contains("v4.35.0"),
        "{err}"
    );
    // No build at all.
    let bare = w.path("bare");
    std::fs::create_dir_all(&bare).unwrap();
    std::fs::write(bare.join("lean-toolchain"), "leanprover/lean4:v4.31.0\n").unwrap();
    let o = from_build(&w, &bare, &w.path("s2"));
    assert!(
        text(&o.stderr).contains("run `lake build` first"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn one_hb_json_imports_as_a_recording_placed_in_its_source() {
    let w = World::new();
    let root = project(&w, "leanprover/lean4:nightly-2026-12-01", 40_000);
    lake_build(&w, &root, true);
    let hb = root.join(".lake/build/lib/lean/Build/Basic.hb.json");
    let out = w.path("basic.lsrec");
    let o = w.run(&["import", hb.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let said = text(&o.stdout);
    assert!(
        said.contains("3 declarations (2 placed in the source)"),
        "{said}"
    );
    let rec = recording::Recording::open(&out).unwrap();
    assert_eq!(rec.header.measure, recording::Measure::Heartbeats);
    assert_eq!(rec.header.module_name, "Build.Basic");
    assert_eq!(rec.header.source_path, "Build/Basic.lean");
    assert_eq!(rec.header.lean_version, "nightly-2026-12-01");
    // 3 owners + 6 entries; the matcher's entry sits under its owner.
    assert_eq!(rec.len(), 9);
    let m = common::find(&rec, "elab", "Build.Basic.small.match_1");
    let owner = rec.parent(m).unwrap();
    assert_eq!(rec.label(owner), "Build.Basic.small");
    assert_eq!(rec.inclusive_ns(owner), 1_750_000);
    assert_eq!(rec.range(owner).map(|r| r.start_line), Some(7));
    // Outside a build, named by --format and with --source: placed as well.
    let copy = w.path("renamed.json");
    std::fs::copy(&hb, &copy).unwrap();
    let out2 = w.path("renamed.lsrec");
    let o = w.run(&[
        "import",
        copy.to_str().unwrap(),
        "--format",
        "hb-json",
        "--source",
        root.join("Build/Basic.lean").to_str().unwrap(),
        "-o",
        out2.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("(2 placed in the source)"));
}

/// `fixtures/lake-logs/build-v.log` (a `lake build -v` log in the lines of Lake's `reportJob`)
/// and `build-ci.log` (the same behind GitHub Actions' timestamps and ANSI colours) read as the
/// same session: each module with its job's time and what the job did.
#[test]
fn a_lake_build_log_imports_as_a_session_with_times_and_cache_states() {
    let w = World::new();
    let mut sessions = Vec::new();
    for name in ["build-v.log", "build-ci.log"] {
        let log = common::repo().join("fixtures/lake-logs").join(name);
        let out = w.path(name);
        let o = w.run(&[
            "import",
            log.to_str().unwrap(),
            "--format",
            "lake-log",
            "-o",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        let said = text(&o.stdout);
        assert!(
            said.contains("a session of 6 modules (2 replayed, 1 fetched, 3 built)"),
            "{said}"
        );
        let manifest: Value =
            serde_json::from_slice(&std::fs::read(out.join("session.json")).unwrap()).unwrap();
        let files: Vec<(String, String, Value)> = manifest["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (
                    f["path"].as_str().unwrap().to_owned(),
                    f["status"].as_str().unwrap().to_owned(),
                    f["elapsedMs"].clone(),
                )
            })
            .collect();
        // Only built modules have an elapsed time; the cached ones' times are not elaboration.
        assert_eq!(
            files,
            [
                ("Demo/Basic.lean".into(), "ok".into(), Value::Null),
                ("Demo/Broken.lean".into(), "error".into(), json!(2500.0)),
                ("Demo/Cached.lean".into(), "ok".into(), Value::Null),
                ("Demo/Fast.lean".into(), "ok".into(), json!(812.0)),
                ("Demo/Slow.lean".into(), "ok".into(), json!(12000.0)),
                ("Demo/Warn.lean".into(), "ok".into(), Value::Null),
            ],
            "{manifest:#}"
        );
        // What each job did is its event's class.
        let rec = |module: &str| {
            let f = manifest["files"]
                .as_array()
                .unwrap()
                .iter()
                .find(|f| f["module"] == module)
                .unwrap();
            recording::Recording::open(out.join(f["recording"].as_str().unwrap())).unwrap()
        };
        let cached = rec("Demo.Cached");
        assert_eq!(
            (cached.class(0), cached.inclusive_ns(0)),
            ("lake.fetched", 1_200_000_000)
        );
        assert!(cached
            .header
            .notes
            .iter()
            .any(|n| n.contains("not an elaboration time")));
        assert_eq!(rec("Demo.Slow").class(0), "lake.built");
        assert_eq!(rec("Demo.Basic").class(0), "lake.replayed");
        sessions.push(out);
    }
    // The plain and the CI copy compare with no change.
    let o = w.run(&[
        "compare",
        sessions[0].to_str().unwrap(),
        sessions[1].to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}{}", text(&o.stdout), text(&o.stderr));
}

/// radar: a build session exported as radar's JSON lines carries the hand figures, reads back
/// through the radar import, and two builds' exports compare.
#[test]
fn a_radar_export_round_trips_through_the_radar_import() {
    let w = World::new();
    let root = project(&w, "leanprover/lean4:nightly-2026-12-01", 40_000);
    lake_build(&w, &root, true);
    let base = w.path("base");
    assert!(from_build(&w, &root, &base).status.success());
    let export = |session: &Path, name: &str| {
        let out = w.path(name);
        let o = w.run(&[
            "export",
            session.to_str().unwrap(),
            "--format",
            "radar",
            "-o",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        out
    };
    let base_lines = export(&base, "base.radar.jsonl");
    let lines: Vec<Value> = std::fs::read_to_string(&base_lines)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(
        lines.contains(
            &json!({"metric": "leanscope/decl/Build/Basic.lean/Build.Basic.big//heartbeats",
                               "value": 320_000_000, "unit": "heartbeats"})
        ),
        "{lines:#?}"
    );
    assert!(
        lines.contains(
            &json!({"metric": "leanscope/decl/Build/Deep/Other.lean/Build.Deep.Other.t//heartbeats",
                               "value": 43_000, "unit": "heartbeats"})
        ),
        "{lines:#?}"
    );
    // Read back: the same file compares with itself with no change, and every metric is a row.
    let doc = json_of(
        &w,
        &["summary", base_lines.to_str().unwrap(), "--json", "-"],
    );
    assert_eq!(doc["time_unit"], "heartbeats", "{doc:#}");
    assert_eq!(
        doc["rows"].as_array().unwrap().len(),
        lines.len(),
        "{doc:#}"
    );
    std::fs::write(root.join("Build/Deep/Other.lean"), other(50_000)).unwrap();
    lake_build(&w, &root, true);
    let head = w.path("head");
    assert!(from_build(&w, &root, &head).status.success());
    let head_lines = export(&head, "head.radar.jsonl");
    let cmp = json_of(
        &w,
        &[
            "compare",
            base_lines.to_str().unwrap(),
            head_lines.to_str().unwrap(),
            "--json",
            "-",
        ],
    );
    // The declaration and its file each grew by 10,000 heartbeats; nothing else changed.
    let mut changed: Vec<(String, Value)> = cmp["matched"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["delta"] != 0)
        .map(|m| {
            (
                m["key"]["name"].as_str().unwrap().to_owned(),
                m["delta"].clone(),
            )
        })
        .collect();
    changed.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        changed,
        [
            (
                "leanscope/decl/Build/Deep/Other.lean/Build.Deep.Other.t//heartbeats".to_owned(),
                json!(10_000)
            ),
            (
                "leanscope/file/Build/Deep/Other.lean//heartbeats".to_owned(),
                json!(10_000)
            ),
        ],
        "{cmp:#}"
    );
}

/// `docs/recipes/radar-bench.sh`, run as radar runs a bench script (the repository and an output
/// file), with the fake `lake` and the real `leanscope`: its output file holds the hand figures.
#[test]
fn the_radar_bench_recipe_writes_the_builds_measurements() {
    let w = World::new();
    let root = project(&w, "leanprover/lean4:nightly-2026-12-01", 40_000);
    let out = w.path("radar-out.jsonl");
    let bin_dir = common::leanscope_bin().parent().unwrap().to_path_buf();
    let o = std::process::Command::new("bash")
        .arg(common::repo().join("docs/recipes/radar-bench.sh"))
        .arg(&root)
        .arg(&out)
        .env(
            "PATH",
            format!("{}:{}:/usr/bin:/bin", w.bin.display(), bin_dir.display()),
        )
        .env("LEANSCOPE_FAKE_FIXTURES", &w.fixtures)
        .env("LEANSCOPE_FAKE_HB_JSON", "1")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}{}", text(&o.stdout), text(&o.stderr));
    let lines: Vec<Value> = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(
        lines.contains(
            &json!({"metric": "leanscope/decl/Build/Basic.lean/Build.Basic.small//heartbeats",
                               "value": 1_750_000, "unit": "heartbeats"})
        ),
        "{lines:#?}"
    );
    // The file figure is the module's traced total: 320 M + 1.75 M + 7,000 (the unplaced owner).
    assert!(
        lines.contains(
            &json!({"metric": "leanscope/file/Build/Basic.lean//heartbeats",
                               "value": 321_757_000, "unit": "heartbeats"})
        ),
        "{lines:#?}"
    );
}
