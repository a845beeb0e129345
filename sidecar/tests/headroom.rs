//! `leanscope headroom` end to end: the real binary and the fake toolchain capture
//! `Demo/Heartbeats.lean` in heartbeats (its `heartbeats` and `instance-search` directives),
//! and the report's shares are checked against the ones computed by hand from that file's
//! `set_option` lines; recordings and sessions (a repeated one: medians) are read as they are;
//! `--fail` gives exit 4; a time recording is refused.

mod common;

use common::{text, World};
use serde_json::{json, Value};

/// Exit status of `headroom --fail` when a declaration is at or over it.
const HEADROOM_EXCEEDED: i32 = 4;

fn schema_errors(doc: &Value) -> Vec<String> {
    let path = common::repo().join("schemas/headroom.schema.json");
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let v = jsonschema::validator_for(&schema).expect("the schema compiles");
    v.iter_errors(doc)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect()
}

fn json_of(w: &World, args: &[&str]) -> (Value, i32) {
    let out = w.run(args);
    let doc: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", text(&out.stdout), text(&out.stderr)));
    let errors = schema_errors(&doc);
    assert!(errors.is_empty(), "{errors:#?}\n{doc:#}");
    (doc, out.status.code().unwrap())
}

/// The rows by short name: (share, limit, from, line, heartbeats).
fn row<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["declarations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == format!("Demo.Heartbeats.{name}"))
        .unwrap_or_else(|| panic!("no {name} in {doc:#}"))
}

#[test]
fn a_lean_file_is_captured_in_heartbeats_and_reported_against_its_limits() {
    let w = World::new();
    let rec = w.path("hb.lsrec");
    let (doc, code) = json_of(
        &w,
        &[
            "headroom",
            "Demo/Heartbeats.lean",
            "-o",
            rec.to_str().unwrap(),
            "--json",
        ],
    );
    assert_eq!(code, 0, "{doc:#}");
    assert!(rec.exists());
    // By hand: set_option maxHeartbeats 400000 in (line 9), 350,000,000 heartbeats.
    assert_eq!(
        row(&doc, "needs_bump")["maxHeartbeats"],
        json!({"limit": 400000, "from": "in", "line": 9, "heartbeats": 350000000,
               "share": 0.875, "default": 200000, "bumpNotNeeded": false})
    );
    assert_eq!(row(&doc, "needs_bump")["line"], 10);
    assert_eq!(row(&doc, "needs_bump")["warn"], true);
    // 800000 in (line 13): 30 M of 800 M; 15 % of the default, under 50 %: not needed.
    let b = row(&doc, "bump_not_needed");
    assert_eq!(
        (
            &b["maxHeartbeats"]["share"],
            &b["maxHeartbeats"]["bumpNotNeeded"]
        ),
        (&json!(0.0375), &json!(true))
    );
    // The section's file-level limits (lines 25, 26), and the instance search against its own.
    let s = row(&doc, "in_section");
    assert_eq!(
        (
            &s["maxHeartbeats"]["from"],
            &s["maxHeartbeats"]["line"],
            &s["maxHeartbeats"]["share"]
        ),
        (&json!("file"), &json!(25), &json!(0.6))
    );
    assert_eq!(
        s["synthInstance"],
        json!({"limit": 10000, "from": "file", "line": 26, "heartbeats": 9000000,
               "share": 0.9, "default": 20000, "instance": "Append (List Nat)"})
    );
    assert_eq!((&s["worstShare"], &s["warn"]), (&json!(0.9), &json!(true)));
    // Worst first: 0.9 (in_section's search), 0.875, 0.85, 0.1, 0.0375.
    let order: Vec<&str> = doc["declarations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r["name"]
                .as_str()
                .unwrap()
                .trim_start_matches("Demo.Heartbeats.")
        })
        .collect();
    assert_eq!(
        order,
        [
            "in_section",
            "needs_bump",
            "near_default",
            "small",
            "bump_not_needed"
        ]
    );
    assert_eq!(
        doc["counts"],
        json!({"declarations": 5, "warned": 3, "over": 0, "bumpsNotNeeded": 1})
    );
    assert_eq!(doc["failed"], false);

    // The recording again, read as it is: the same rows.
    let (again, code) = json_of(&w, &["headroom", rec.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0);
    assert_eq!(again["declarations"], doc["declarations"]);

    // The CI threshold: 86 % fails on 0.9 and 0.875; 95 % passes.
    let (failed, code) = json_of(
        &w,
        &["headroom", rec.to_str().unwrap(), "--json", "--fail", "86"],
    );
    assert_eq!(code, HEADROOM_EXCEEDED);
    assert_eq!(
        (&failed["counts"]["over"], &failed["failed"]),
        (&json!(2), &json!(true))
    );
    let out = w.run(&["headroom", rec.to_str().unwrap(), "--fail", "95"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));

    // The table for people.
    let out = w.run(&[
        "headroom",
        rec.to_str().unwrap(),
        "--fail",
        "86",
        "--warn",
        "85",
    ]);
    assert_eq!(out.status.code(), Some(HEADROOM_EXCEEDED));
    let table = text(&out.stdout);
    let lines: Vec<&str> = table.lines().collect();
    assert!(lines[0].starts_with("5 declarations of 1 file"), "{table}");
    assert!(
        lines[2].contains("60.0 %")
            && lines[2].contains("100000 (file :25)")
            && lines[2].contains("OVER"),
        "{table}"
    );
    assert!(
        lines[3].contains("90.0 %") && lines[3].contains("Append (List Nat)"),
        "{table}"
    );
    let bump = lines
        .iter()
        .find(|l| l.contains("bump_not_needed"))
        .unwrap();
    assert!(
        bump.contains("3.8 %")
            && bump.contains("800000 (in :13)")
            && bump.contains("bump not needed (15.0 % of the default 200000)"),
        "{table}"
    );
    let near = lines.iter().find(|l| l.contains("near_default")).unwrap();
    assert!(
        near.contains("85.0 %") && near.contains("200000 (default)") && near.contains("WARN"),
        "{table}"
    );
    assert!(
        table.contains("2 declarations are at or over 86.0 %"),
        "{table}"
    );

    // A stricter "not needed" (10 %): the 15 % bump is needed after all.
    let (strict, _) = json_of(
        &w,
        &[
            "headroom",
            rec.to_str().unwrap(),
            "--json",
            "--bump-not-needed-below",
            "10",
        ],
    );
    assert_eq!(
        row(&strict, "bump_not_needed")["maxHeartbeats"]["bumpNotNeeded"],
        false
    );
}

#[test]
fn a_folder_is_captured_into_a_session_and_a_repeated_session_reports_medians() {
    let w = World::new();
    std::fs::create_dir_all(w.project.join("Hb")).unwrap();
    std::fs::copy(
        w.project.join("Demo/Heartbeats.lean"),
        w.project.join("Hb/Heartbeats.lean"),
    )
    .unwrap();
    let session = w.path("session");
    let (doc, code) = json_of(
        &w,
        &["headroom", "Hb", "-o", session.to_str().unwrap(), "--json"],
    );
    assert_eq!(code, 0, "{doc:#}");
    assert!(session.join("session.json").exists());
    assert_eq!(doc["files"][0]["path"], "Hb/Heartbeats.lean");
    assert_eq!(row(&doc, "needs_bump")["maxHeartbeats"]["share"], 0.875);
    assert_eq!(row(&doc, "needs_bump")["file"], "Hb/Heartbeats.lean");

    // Three runs of 300, 100 and 200 million heartbeats under a 400000 bump: the median 200 M.
    let log = w.path("runs.log");
    std::fs::write(
        w.project.join("Hb/Runs.lean"),
        format!(
            "-- leanscope-fake: run-log {}\nset_option maxHeartbeats 400000 in\ntheorem r : True := by -- leanscope-fake: heartbeats-runs 300000000,100000000,200000000\n  trivial\n",
            log.display()
        ),
    )
    .unwrap();
    let repeated = w.path("repeated");
    let out = w.run(&[
        "profile",
        "Hb/Runs.lean",
        "--repeat",
        "3",
        "--warmup",
        "0",
        "--measure",
        "heartbeats",
        "-o",
        repeated.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let (doc, code) = json_of(&w, &["headroom", repeated.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{doc:#}");
    assert_eq!(doc["files"][0]["runs"], 3);
    let r = &doc["declarations"][0];
    assert_eq!(r["name"], "r");
    assert_eq!(
        r["maxHeartbeats"],
        json!({"limit": 400000, "from": "in", "line": 2, "heartbeats": 200000000,
               "share": 0.5, "default": 200000, "bumpNotNeeded": false})
    );
}

#[test]
fn bad_inputs_are_named() {
    let w = World::new();
    let timed = w.path("timed.lsrec");
    let out = w.run(&["profile", "Demo/Clean.lean", "-o", timed.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = w.run(&["headroom", timed.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("measured in time") && err.contains("--measure heartbeats"),
        "{err}"
    );
    assert!(out.stdout.is_empty());

    let out = w.run(&["headroom", w.path("missing.lsrec").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("missing.lsrec"),
        "{}",
        text(&out.stderr)
    );

    let not_rec = w.path("notes.txt");
    std::fs::write(&not_rec, "hello").unwrap();
    let out = w.run(&["headroom", not_rec.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("notes.txt"),
        "{}",
        text(&out.stderr)
    );

    for bad in ["--warn=-3", "--fail=abc", "--bump-not-needed-below=150"] {
        let out = w.run(&["headroom", timed.to_str().unwrap(), bad]);
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
        assert!(
            text(&out.stderr).contains("percentage"),
            "{bad:?}: {}",
            text(&out.stderr)
        );
    }

    // A capture that fails: exit 3, no report.
    let out = w.run(&["headroom", "Demo/Nowhere.lean"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty());
}
