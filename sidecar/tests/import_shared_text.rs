//! `leanscope import` of Lean output as users share it: every real sample in
//! `../shared/lean-output-real/` ([`common::shared`], read at test time) and the small explained
//! fixtures in `fixtures/shared-text/` import with no `--format`, and every timed trace header and
//! every `took` line in them becomes an event, counted here from the text with a rule of this
//! test's own; heartbeat-valued trees import as heartbeats with `--measure heartbeats` (`summary`
//! and `query` then count heartbeats) and warn without it; positions and named declarations land
//! in `--source`; text that is not Lean's is an error naming a line. A sample with no time at
//! all imports untimed (`tests/untimed_trace.rs`).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use leanscope::interop::{self, Format, ImportOptions, LeanSource};
use recording::{Measure, Recording};
use serde_json::Value;

/// The samples whose trees count heartbeats (`trace.profiler.useHeartbeats`).
const HEARTBEAT_SAMPLES: [&str; 3] = [
    "FLT-HaarChar-FiniteAdeleRing-useHeartbeats-comment.EXCERPT-lines153-154.txt",
    "FLT-BaseChange-baseChange_bijective-useHeartbeats-comment.EXCERPT-lines361-362.txt",
    "FLT-BaseChangeNotes2.txt",
];

/// An event's label, range start (line, column) and range kind.
type Placed<'a> = (&'a str, Option<(u32, u32)>, &'a str);

fn samples() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in [
        common::shared("lean-output-real"),
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/shared-text"),
    ] {
        for e in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "txt") {
                out.push(p);
            }
        }
    }
    out.sort();
    assert!(out.len() >= 17, "{} samples", out.len());
    out
}

fn is_heartbeats(p: &Path) -> bool {
    HEARTBEAT_SAMPLES.iter().any(|n| p.ends_with(n))
}

fn import(path: &Path, measure: Measure, source: Option<&LeanSource>) -> (Recording, Vec<String>) {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out.lsrec");
    let report =
        interop::import_file_measured(path, None, ImportOptions::default(), source, measure, &out)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(report.format, Format::LeanProfile, "{}", path.display());
    (Recording::open(&out).unwrap(), report.warnings)
}

/// The lines Lean printed: a JSON message's `data` lines (information messages, where Lean
/// puts profiler output and traces), every other line as it is.
fn printed_lines(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        match serde_json::from_str::<Value>(line) {
            Ok(v) if line.starts_with('{') => {
                if v["severity"] == "information" {
                    out.extend(v["data"].as_str().unwrap().lines().map(String::from));
                }
            }
            _ => out.push(line.to_string()),
        }
    }
    out
}

/// `… took 1.5s` / `12ms` at the end of a line: the time in nanoseconds.
fn took_ns(line: &str) -> Option<u64> {
    let (_, time) = line.rsplit_once(" took ")?;
    let (number, scale) = match time.strip_suffix("ms") {
        Some(n) => (n, 1e6),
        None => (time.strip_suffix('s')?, 1e9),
    };
    let v: f64 = number.parse().ok()?;
    Some((v * scale).round() as u64)
}

/// A timed header anywhere in the line: `[class] [number]` or `[class] [numbers]`, the class
/// without spaces: the number as printed.
fn header_number(line: &str) -> Option<f64> {
    let open = line.find('[')?;
    let rest = &line[open + 1..];
    let close = rest.find("] [")?;
    if rest[..close].contains(' ') {
        return None;
    }
    let after = &rest[close + 3..];
    let number = &after[..after.find(']')?];
    let number = number.strip_suffix('s').unwrap_or(number);
    number.contains('.').then(|| number.parse().ok())?
}

fn sorted(mut v: Vec<u64>) -> Vec<u64> {
    v.sort_unstable();
    v
}

#[test]
fn every_sample_imports_undirected_with_an_event_per_timed_header_and_took_line() {
    for path in samples() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            interop::detect_bytes(text.as_bytes()),
            Some(Format::LeanProfile),
            "{name}"
        );
        let heartbeats = is_heartbeats(&path);
        let measure = if heartbeats {
            Measure::Heartbeats
        } else {
            Measure::Time
        };
        let (rec, _) = import(&path, measure, None);
        let lines = printed_lines(&text);
        let took: Vec<u64> = if heartbeats {
            Vec::new()
        } else {
            lines.iter().filter_map(|l| took_ns(l)).collect()
        };
        let headers: Vec<u64> = lines
            .iter()
            .filter_map(|l| header_number(l))
            .map(|v| {
                if heartbeats {
                    v.round() as u64
                } else {
                    (v * 1e9).round() as u64
                }
            })
            .collect();
        if took.is_empty() && headers.is_empty() {
            // a trace printed without `trace.profiler`: counted, not timed
            // (tests/untimed_trace.rs checks its counts)
            assert!(
                name.contains("guard_msgs") || name.starts_with("untimed"),
                "{name}"
            );
            assert_eq!(rec.header.measure, Measure::Untimed, "{name}");
            continue;
        }
        assert_eq!(rec.header.measure, measure, "{name}");
        let events = |pick: &dyn Fn(&str) -> bool| {
            sorted(
                (0..rec.len() as u32)
                    .filter(|&i| pick(rec.class(i)))
                    .map(|i| rec.inclusive_ns(i))
                    .collect(),
            )
        };
        assert_eq!(
            events(&|c| c == "profiler"),
            sorted(took),
            "{name}: took lines"
        );
        let traced: Vec<u64> = events(&|c| c != "profiler" && c != "profiler output")
            .into_iter()
            .filter(|&d| d > 0)
            .collect();
        assert_eq!(traced, sorted(headers), "{name}: timed headers");
    }
}

#[test]
fn heartbeat_trees_warn_as_time_and_read_as_heartbeats() {
    for name in HEARTBEAT_SAMPLES {
        let path = common::shared("lean-output-real").join(name);
        let text = std::fs::read_to_string(&path).unwrap();
        let (rec, warnings) = import(&path, Measure::Time, None);
        assert_eq!(rec.header.measure, Measure::Time);
        let first = text
            .lines()
            .position(|l| header_number(l).is_some())
            .unwrap()
            + 1;
        let w = warnings.join("\n");
        assert!(
            w.contains(&format!("line {first}: `["))
                && w.contains("import with --measure heartbeats"),
            "{name}: {w}"
        );
        let (rec, warnings) = import(&path, Measure::Heartbeats, None);
        assert_eq!(rec.header.measure, Measure::Heartbeats);
        assert!(
            !warnings.join("\n").contains("--measure heartbeats"),
            "{warnings:?}"
        );
    }
    // the summary of such an import counts heartbeats
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("hb.lsrec");
    let sample = common::shared("lean-output-real").join(HEARTBEAT_SAMPLES[0]);
    let o = Command::new(common::leanscope_bin())
        .args([
            "import".as_ref(),
            sample.as_os_str(),
            "--measure".as_ref(),
            "heartbeats".as_ref(),
            "-o".as_ref(),
            out.as_os_str(),
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", common::text(&o.stderr));
    let o = Command::new(common::leanscope_bin())
        .args(["summary".as_ref(), out.as_os_str()])
        .output()
        .unwrap();
    let summary = common::text(&o.stdout);
    let o = Command::new(common::leanscope_bin())
        .args([
            "query".as_ref(),
            out.as_os_str(),
            "--kind".as_ref(),
            "file".as_ref(),
        ])
        .output()
        .unwrap();
    let query = common::text(&o.stdout);
    assert!(
        query.contains("durationHeartbeats") && query.contains("\t394355536\t"),
        "{query}"
    );
    assert!(
        summary.contains("315 M hb") && summary.contains("79.7 M hb"),
        "{summary}"
    );
    // without the flag the CLI warns on stderr, naming the line
    let o = Command::new(common::leanscope_bin())
        .args([
            "import".as_ref(),
            sample.as_os_str(),
            "-o".as_ref(),
            out.as_os_str(),
        ])
        .output()
        .unwrap();
    let stderr = common::text(&o.stderr);
    assert!(o.status.success());
    assert!(
        stderr.contains("warning:")
            && stderr.contains("line 1: `[79702772.000000]` would be 922 days"),
        "{stderr}"
    );
    // a seconds tree read as heartbeats warns too
    let adele = common::shared("lean-output-real")
        .join("FLT-AdeleRing-padicEquiv-trace-profiler-comment.EXCERPT-lines469-480.txt");
    let (_, warnings) = import(&adele, Measure::Heartbeats, None);
    assert!(
        warnings
            .join("\n")
            .contains("line 3: `[0.044870]` is not a whole count of heartbeats"),
        "{warnings:?}"
    );
}

#[test]
fn heartbeats_of_profiler_lines_alone_is_an_error() {
    let path = common::shared("lean-output-real")
        .join("LNSym-MemCpyVCG-profiler-comment.EXCERPT-lines600-607.txt");
    let tmp = tempfile::tempdir().unwrap();
    let e = interop::import_file_measured(
        &path,
        None,
        ImportOptions::default(),
        None,
        Measure::Heartbeats,
        &tmp.path().join("x.lsrec"),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("--measure heartbeats: no trace tree") && e.contains("line 2"),
        "{e}"
    );
    assert!(!tmp.path().join("x.lsrec").exists());
}

#[test]
fn printed_positions_hold_what_was_printed_there_and_land_in_the_source() {
    let lake = common::shared("lean-output-real")
        .join("lean-mlir-bv-evaluation-g2012h08h28hudiv_ashl_proof_r0-lake-log.txt");
    let (rec, _) = import(&lake, Measure::Time, None);
    let at = (0..rec.len() as u32)
        .find(|&i| rec.class(i) == "profiler output")
        .unwrap();
    assert_eq!(
        rec.label(at),
        "././././SSA/Projects/InstCombine/tests/proofs/g2012h08h28hudiv_ashl_proof.lean:11:75"
    );
    let bv = (0..rec.len() as u32)
        .find(|&i| rec.label(i) == "Preparing LRAT reflection term")
        .unwrap();
    assert_eq!(rec.parent(bv), Some(at));
    assert_eq!(
        rec.inclusive_ns(at),
        rec.inclusive_ns(bv),
        "untimed roots add nothing"
    );
    // the AIG line is an untimed child inside the timed tree
    let aig = (0..rec.len() as u32)
        .find(|&i| rec.label(i) == "AIG has 231725 nodes.")
        .unwrap();
    assert_eq!(rec.parent(aig), Some(bv));
    // a bare `lean`'s log: each tree under the error message it was appended to
    let lean = common::shared("lean-output-real").join(
        "lean-mlir-bv-evaluation-HackersDelight-ch2_3LogicalArithmeticIneq_4_r0-lean-log.txt",
    );
    let text = std::fs::read_to_string(&lean).unwrap();
    let (rec, _) = import(&lean, Measure::Time, None);
    let roots: Vec<u32> = (0..rec.len() as u32)
        .filter(|&i| rec.label(i) == "Normalizing goal")
        .collect();
    assert_eq!(roots.len(), text.matches("[bv] [").count());
    for r in &roots {
        let p = rec.parent(*r).expect("under a position");
        assert!(rec.label(p).starts_with(
            "SSA/Projects/InstCombine/HackersDelight/ch2_3LogicalArithmeticIneq.lean:"
        ));
    }
    // with --source, a position becomes a range; a tree naming a declaration lands on it
    let tmp = tempfile::tempdir().unwrap();
    let src_path = tmp.path().join("Foo.lean");
    std::fs::write(
        &src_path,
        "import Demo\n\ntheorem foo : True := by\n  trivial\n\ntheorem bar : 1 = 1 := by\n  omega\n",
    )
    .unwrap();
    let src = LeanSource::read(&src_path).unwrap();
    let fixture = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/shared-text");
    let (rec, _) = import(
        &fixture.join("lake-build-took-and-old-trace.txt"),
        Measure::Time,
        Some(&src),
    );
    let placed: Vec<Placed> = (0..rec.len() as u32)
        .map(|i| {
            (
                rec.label(i),
                rec.range(i).map(|r| (r.start_line, r.start_col)),
                rec.range_kind(i).as_str(),
            )
        })
        .collect();
    assert_eq!(placed[0], ("././Demo/Foo.lean:3:0", Some((2, 0)), "exact"));
    assert_eq!(placed[1], ("elaboration", Some((2, 0)), "inherited"));
    assert!(
        placed.contains(&("././Demo/Foo.lean:7:2", Some((6, 2)), "exact")),
        "{placed:?}"
    );
    let (rec, _) = import(
        &fixture.join("commented-tree-no-selector.txt"),
        Measure::Time,
        Some(&src),
    );
    let kernel = (0..rec.len() as u32)
        .find(|&i| rec.class(i) == "Kernel")
        .unwrap();
    assert_eq!(rec.range(kernel).map(|r| r.start_line), Some(2));
    assert!(recording::model::declaration_times(&rec)[0].is_some());
}

#[test]
fn a_json_trace_message_keeps_its_position_without_a_source() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/lean-output/clean/stdout.traces");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut want: Vec<String> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["data"].as_str().is_some_and(|d| d.starts_with('[')))
        .map(|v| {
            format!(
                "{}:{}:{}",
                v["fileName"].as_str().unwrap(),
                v["pos"]["line"],
                v["pos"]["column"]
            )
        })
        .collect();
    assert!(!want.is_empty());
    let (rec, _) = import(&path, Measure::Time, None);
    let mut got: Vec<String> = rec
        .roots()
        .filter(|&i| {
            rec.class(i) == "profiler output"
                && rec.children(i).iter().any(|&c| rec.class(c) != "profiler")
        })
        .map(|i| rec.label(i).to_string())
        .collect();
    want.sort();
    got.sort();
    assert_eq!(got, want);
}

#[test]
fn infoview_copies_lose_their_markers_and_resolve_empty_classes() {
    let fixture = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/shared-text");
    let (rec, warnings) = import(
        &fixture.join("infoview-copy-nested.txt"),
        Measure::Time,
        None,
    );
    let got: Vec<(&str, &str)> = (0..rec.len() as u32)
        .map(|i| (rec.class(i), rec.label(i)))
        .collect();
    assert_eq!(
        got,
        [
            ("profiler output", "Foo.lean:3:0"),
            ("Elab.async", "✅ elaborating proof of Demo.foo"),
            ("definition.value", "✅ Demo.foo"),
            ("step", "✅ simp"),
            ("Meta.synthInstance", "✅ Decidable True"),
            ("step", "✅ rfl"),
        ]
    );
    // panel headers are the infoview's, not skipped prose
    assert!(
        warnings.iter().all(|w| !w.contains("Messages (")),
        "{warnings:?}"
    );
    // a wrapped declaration name joins its header
    let wrapped = common::shared("lean-output-real")
        .join("FLT-BaseChange-baseChange_bijective-useHeartbeats-comment.EXCERPT-lines361-362.txt");
    let (rec, _) = import(&wrapped, Measure::Heartbeats, None);
    assert_eq!(
        rec.label(0),
        "✅️ elaborating proof of IsDedekindDomain.FiniteAdeleRing.baseChange_bijective"
    );
    assert_eq!(rec.inclusive_ns(0), 477_266_413);
    // the old `s` suffix with an empty header and its text on the next lines
    let old = common::shared("lean-output-real")
        .join("kbuzzard-MweSkeletons-Kaehler-trace-profiler-comment.EXCERPT-lines65-69.txt");
    let (rec, _) = import(&old, Measure::Time, None);
    assert_eq!(rec.len(), 1);
    assert_eq!(rec.inclusive_ns(0), 3_587_504_000);
    assert_eq!(
        rec.label(0),
        "have foo := LinearMap.map_smul_of_tower (Ideal.toCotangent (ideal R S)) a\nsorry"
    );
}

#[test]
fn text_that_is_not_leans_is_an_error_naming_a_line() {
    for text in [
        "Just some notes.\nNothing [here] [is] timed.\n",
        "-- a comment\n/- another -/\nFoo.lean:3:0\n",
        "Bitwuzla provided a counter example after 70.996756ms\n",
        "Foo.lean:3:0\nMessages (1)\n",
    ] {
        assert_eq!(interop::detect_bytes(text.as_bytes()), None, "{text}");
        let e = interop::import_from_bytes(text.as_bytes(), Format::LeanProfile)
            .unwrap_err()
            .to_string();
        assert!(e.contains("not Lean's output (line 1: `"), "{e}");
    }
}
