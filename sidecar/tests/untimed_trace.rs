//! A trace Lean printed without `trace.profiler` has no times. `leanscope import` reads every
//! shape of it the pasted-text reader knows with no `--format`, warns that it has no timings and
//! how to get them, and writes a recording whose measure is `untimed`: each event spans the
//! trace nodes of its subtree. `info`, `top`, `query` and `summary` then show counts, never a
//! time.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use leanscope::interop::{self, Format};
use recording::{Measure, Recording};
use serde_json::Value;

fn fixture() -> PathBuf {
    common::repo().join("fixtures/shared-text/untimed-elab-step-trace.txt")
}

fn leanscope(args: &[&Path]) -> Output {
    let o = Command::new(common::leanscope_bin())
        .args(args)
        .output()
        .unwrap();
    assert!(o.status.success(), "{args:?}: {}", common::text(&o.stderr));
    o
}

/// Whether `text` writes a time anywhere: a number followed by a time unit.
fn has_a_time(text: &str) -> Option<&str> {
    let words: Vec<&str> = text.split_whitespace().collect();
    words
        .windows(2)
        .find(|w| {
            w[0].chars().any(|c| c.is_ascii_digit())
                && ["ns", "µs", "ms", "s", "hb"].contains(&w[1].trim_end_matches([',', ')']))
        })
        .map(|w| w[1])
}

/// How many trace nodes the tree of the header on line `i` holds: itself and the headers
/// indented deeper after it, up to the next one at its depth or above (the test's own rule).
fn nodes_from_text(lines: &[&str], i: usize) -> u64 {
    let indent = |l: &str| l.len() - l.trim_start().len();
    let is_header = |l: &str| l.trim_start().starts_with('[');
    let depth = indent(lines[i]);
    1 + lines[i + 1..]
        .iter()
        .take_while(|l| !(is_header(l) && indent(l) <= depth))
        .filter(|l| is_header(l))
        .count() as u64
}

#[test]
fn an_untimed_trace_warns_and_counts_its_nodes() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("untimed.lsrec");
    let o = leanscope(&["import".as_ref(), &fixture(), "-o".as_ref(), &out]);
    let stderr = common::text(&o.stderr);
    assert!(
        stderr.contains("warning: the trace has no timings")
            && stderr.contains("set_option trace.profiler true"),
        "{stderr}"
    );
    let rec = Recording::open(&out).unwrap();
    assert_eq!(rec.header.measure, Measure::Untimed);
    // each event spans the nodes of its subtree, counted here from the text
    let text = std::fs::read_to_string(fixture()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let headers: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].trim_start().starts_with('['))
        .collect();
    assert_eq!(rec.len(), headers.len());
    for (event, &line) in headers.iter().enumerate() {
        assert_eq!(
            rec.inclusive_ns(event as u32),
            nodes_from_text(&lines, line),
            "line {}: {}",
            line + 1,
            lines[line]
        );
        assert_eq!(rec.self_ns(event as u32), 1, "line {}", line + 1);
    }
    assert!(rec.header.notes.iter().any(|n| n.contains("no timings")));

    // the views: counts, never a time
    let info = common::text(&leanscope(&["info".as_ref(), &out]).stdout);
    assert!(info.contains("measure       no timings"), "{info}");
    assert!(
        info.contains(&format!("trace nodes   {}", rec.len())),
        "{info}"
    );
    assert!(info.contains("set_option trace.profiler true"), "{info}");
    let top = common::text(&leanscope(&["top".as_ref(), &out]).stdout);
    assert!(top.contains("Elab.step constructor"), "{top}");
    assert!(top.contains(" 3 nodes "), "{top}");
    let top_json = leanscope(&["top".as_ref(), &out, "--json".as_ref(), "-".as_ref()]);
    let doc: Value = serde_json::from_slice(&top_json.stdout).unwrap();
    assert_eq!(doc["measure"], "untimed");
    assert_eq!(doc["unit"], "nodes");
    let query = common::text(&leanscope(&["query".as_ref(), &out]).stdout);
    assert!(query.contains("\tnodes\tselfNodes\t"), "{query}");
    let summary = common::text(&leanscope(&["summary".as_ref(), &out]).stdout);
    for (what, shown) in [
        ("info", &info),
        ("top", &top),
        ("query", &query),
        ("summary", &summary),
    ] {
        assert_eq!(has_a_time(shown), None, "{what} shows a time:\n{shown}");
    }
}

#[test]
fn every_untimed_shape_the_reader_knows_imports_the_same_way() {
    let guard_msgs = common::shared("lean-output-real")
        .join("lean-by-example-Trivial-trace.Elab.step-guard_msgs.txt");
    let shapes: Vec<(&str, String)> = vec![
        ("bare", "[Elab.step] trivial\n  [Elab.step] skip\n".into()),
        ("indented", "    [Elab.step] trivial\n      [Elab.step] skip\n".into()),
        ("commented", "-- [Elab.step] trivial\n--   [Elab.step] skip\n".into()),
        (
            "block comment",
            "/-\n[Elab.step] trivial\n  [Elab.step] skip\n-/\n".into(),
        ),
        (
            "lake build",
            "info: ././A.lean:6:0: [Elab.step] trivial\n  [Elab.step] skip\n".into(),
        ),
        (
            "bare lean error",
            "A.lean:6:0: error: unsolved goals\n[Elab.step] trivial\n  [Elab.step] skip\n".into(),
        ),
        (
            "infoview copy",
            "\u{25bc} 6:0-8:9: information:\n[Elab.step] trivial \u{25bc}\n  [] skip\n".into(),
        ),
        (
            "lean --json",
            r#"{"severity":"information","pos":{"line":6,"column":0},"endPos":{"line":8,"column":9},"fileName":"A.lean","data":"[Elab.step] trivial\n  [Elab.step] skip","kind":"trace"}"#
                .to_string()
                + "\n",
        ),
        (
            "emoji",
            "[Meta.synthInstance] \u{2705}\u{fe0f} Inhabited Nat \u{25bc}\n  [] new goal Inhabited Nat\n"
                .into(),
        ),
        ("#guard_msgs", std::fs::read_to_string(&guard_msgs).unwrap()),
    ];
    let tmp = tempfile::tempdir().unwrap();
    for (name, text) in shapes {
        assert_eq!(
            interop::detect_bytes(text.as_bytes()),
            Some(Format::LeanProfile),
            "{name}"
        );
        let input = tmp.path().join("in.txt");
        std::fs::write(&input, &text).unwrap();
        let out = tmp.path().join("out.lsrec");
        let o = leanscope(&["import".as_ref(), &input, "-o".as_ref(), &out]);
        let stderr = common::text(&o.stderr);
        assert!(
            stderr.contains("the trace has no timings"),
            "{name}: {stderr}"
        );
        let rec = Recording::open(&out).unwrap();
        assert_eq!(rec.header.measure, Measure::Untimed, "{name}");
        assert!(rec.len() >= 2, "{name}");
        // the trees' nodes each count one; an event at a printed position holds them all
        for i in 0..rec.len() as u32 {
            if rec.class(i) != "profiler output" {
                assert!(rec.inclusive_ns(i) >= 1, "{name}: {}", rec.label(i));
            }
        }
    }
}

#[test]
fn a_trace_with_any_time_stays_timed() {
    // an untimed root over a timed child (lake logs of `bv_decide` show these): a time recording
    let text = "[Elab.step] trivial\n  [Elab.step] [0.250000] skip\n";
    let bytes = interop::import_from_bytes(text.as_bytes(), Format::LeanProfile).unwrap();
    let rec = Recording::from_bytes(&bytes).unwrap();
    assert_eq!(rec.header.measure, Measure::Time);
    assert_eq!(rec.inclusive_ns(1), 250_000_000);
    // so does an untimed tree beside a `took` line
    let text = "[Elab.step] trivial\nelaboration took 12.5ms\n";
    let bytes = interop::import_from_bytes(text.as_bytes(), Format::LeanProfile).unwrap();
    let rec = Recording::from_bytes(&bytes).unwrap();
    assert_eq!(rec.header.measure, Measure::Time);
}
