//! `leanscope profile` fed real Lean output: a verbatim third-party `--profile --json` log from
//! `../shared/lean-output-real/` (read at test time, never copied), replayed by the fake
//! toolchain split back into stdout (the JSON messages) and stderr (the rest), as its
//! `PROVENANCE.md` describes. The profiled source is not public at that revision, so the project
//! holds a stand-in of comment lines only: Lean's positions exist in it, no command does, and
//! every profiler line must still become an event.

mod common;

use std::path::PathBuf;

use common::{copy_dir, text, World};
use recording::{Recording, Severity};

/// A real log in `../shared/lean-output-real/` ([`common::shared`]).
fn real(rel: &str) -> PathBuf {
    common::shared("lean-output-real").join(rel)
}

const LOG: &str = "curve25519-FieldElement51_Negate_Hoare-profile-json.txt";

#[test]
fn a_real_merged_log_keeps_every_profiler_line() {
    let log = std::fs::read_to_string(real(LOG))
        .unwrap_or_else(|e| panic!("{}: {e}", real(LOG).display()));
    let (stdout, stderr): (Vec<&str>, Vec<&str>) = log.lines().partition(|l| l.starts_with('{'));
    let before = log.lines().take_while(|l| !l.starts_with('{')).count();

    let mut w = World::new();
    let fixtures = w.path("lean-output");
    copy_dir(&w.fixtures, &fixtures);
    let case = fixtures.join("real");
    std::fs::create_dir_all(&case).unwrap();
    std::fs::write(
        case.join("case.json"),
        format!(
            r#"{{"source":"Demo/Real.lean","toolchain":"v4.31.0","lean_version":"4.31.0","module":"Demo.Real","stderr_lines_before_stdout":{before},"delays":[],"description":"real log, split"}}"#
        ),
    )
    .unwrap();
    let joined = |lines: &[&str]| lines.iter().map(|l| format!("{l}\n")).collect::<String>();
    std::fs::write(case.join("stdout"), joined(&stdout)).unwrap();
    std::fs::write(case.join("stderr"), joined(&stderr)).unwrap();
    std::fs::write(case.join("exit-code"), "0\n").unwrap();
    let stand_in: String = (1..=120)
        .map(|k| format!("-- stand-in line {k:<80}\n"))
        .collect();
    std::fs::write(w.project.join("Demo/Real.lean"), stand_in).unwrap();
    w.fixtures = fixtures;

    let out_path = w.path("real.lsrec");
    let out = w.run(&[
        "profile",
        "Demo/Real.lean",
        "-o",
        out_path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let rec = Recording::open(&out_path).unwrap();

    // every `took` line of the log (messages and stderr, not the cumulative block) is an event
    let mut expected: Vec<String> = Vec::new();
    for line in log.lines().filter(|l| !l.starts_with('\t')) {
        let texts: Vec<String> = if line.starts_with('{') {
            let m: serde_json::Value = serde_json::from_str(line).unwrap();
            m["data"]
                .as_str()
                .unwrap()
                .lines()
                .map(String::from)
                .collect()
        } else {
            vec![line.to_string()]
        };
        for t in texts {
            if let Some((what, _)) = t.split_once(" took ") {
                expected.push(what.to_string());
            }
        }
    }
    let mut got: Vec<String> = (0..rec.len() as u32)
        .filter(|&i| rec.class(i) == "profiler")
        .map(|i| rec.label(i).to_string())
        .collect();
    assert!(expected.len() >= 8, "{expected:?}");
    expected.sort();
    got.sort();
    assert_eq!(got, expected);
    // no command is made up from the positions of profiler lines
    assert_eq!(
        (0..rec.len() as u32)
            .filter(|&i| rec.class(i) == "Elab.command")
            .count(),
        0
    );
    // Lean's warnings are kept with their ranges (the first at 42:8–42:30)
    let warnings: Vec<_> = rec
        .header
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Warning)
        .collect();
    assert_eq!(warnings.len(), 3);
    let r = warnings[0].range;
    assert_eq!(
        (r.start_line, r.start_col, r.end_line, r.end_col),
        (41, 8, 41, 30)
    );
}
