//! `leanscope import` of what Lean users actually have: real `lake env lean --profile --json`
//! logs (read from `../shared/lean-output-real/`, never copied), plain `lean --profile` text,
//! pasted `trace.profiler` trees, with positions kept and placed in a source given with
//! `--source`; where the time went (`info`); and bad input, each a clear error or a warning
//! naming the line.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use leanscope::interop::{self, Format, ImportOptions, LeanSource};
use recording::model::{time_account, AccountBasis};
use recording::Recording;
use serde_json::Value;

/// A real sample in the project's `../shared/lean-output-real/` ([`common::shared`]).
fn real(name: &str) -> PathBuf {
    common::shared("lean-output-real").join(name)
}

const CURVE_LOGS: [&str; 4] = [
    "curve25519-FieldElement51_Negate_Hoare-profile-json.txt",
    "curve25519-FieldElement51_Square2-profile-json.txt",
    "curve25519-FieldElement51_FromLimbs-profile.txt",
    "curve25519-FieldElement51_Pow2K-profile-json.EXCERPT-first7lines.txt",
];
const TRACE_SAMPLE: &str = "lean-by-example-Trivial-trace.Elab.step-guard_msgs.txt";

fn import(path: &Path, source: Option<&LeanSource>) -> (Recording, Vec<String>) {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out.lsrec");
    let report = interop::import_file_placed(path, None, ImportOptions::default(), source, &out)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(report.format, Format::LeanProfile);
    (Recording::open(&out).unwrap(), report.warnings)
}

fn import_text(text: &str) -> interop::Result<Recording> {
    let bytes = interop::import_from_bytes(text.as_bytes(), Format::LeanProfile)?;
    Ok(Recording::from_bytes(&bytes).unwrap())
}

/// A `took` line as the test expects it: label, nanoseconds, and the Lean position (line,
/// column) of the message it was printed in, if any.
type TookLine = (String, u64, Option<(u64, u64)>);

/// An event's label, range (start line, start column, end line, end column) and range kind.
type Placed<'a> = (&'a str, Option<(u32, u32, u32, u32)>, &'a str);

/// `CATEGORY[ of DECL] took TIME` read here on its own (not with leanscope's parser): the
/// label and nanoseconds, or `None`.
fn took(line: &str) -> Option<(String, u64)> {
    let (what, time) = line.rsplit_once(" took ")?;
    let (number, scale) = match time.strip_suffix("ms") {
        Some(n) => (n, 1e6),
        None => (time.strip_suffix('s')?, 1e9),
    };
    let value: f64 = number.parse().ok()?;
    Some((what.to_string(), (value * scale).round() as u64))
}

/// Every `took` line of a log: (label, ns, Lean position if the line is in a JSON message).
fn expected_took_lines(text: &str) -> Vec<TookLine> {
    let mut out = Vec::new();
    for line in text.lines() {
        if line.starts_with('{') {
            let Ok(v) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            if v["severity"] != "information" {
                continue;
            }
            let pos = (
                v["pos"]["line"].as_u64().unwrap(),
                v["pos"]["column"].as_u64().unwrap(),
            );
            for l in v["data"].as_str().unwrap().lines() {
                if let Some((label, ns)) = took(l) {
                    out.push((label, ns, Some(pos)));
                }
            }
        } else if let Some((label, ns)) = took(line) {
            out.push((label, ns, None));
        }
    }
    out
}

/// Every profiler event: (label, ns, the `LINE:COL` its parent names, if any).
fn profiler_events(rec: &Recording) -> Vec<TookLine> {
    (0..rec.len() as u32)
        .filter(|&i| rec.class(i) == "profiler")
        .map(|i| {
            let pos = rec.parent(i).map(|p| {
                assert_eq!(rec.class(p), "profiler output");
                let mut parts = rec.label(p).rsplitn(3, ':');
                let col = parts.next().unwrap().parse().unwrap();
                let line = parts.next().unwrap().parse().unwrap();
                (line, col)
            });
            (rec.label(i).to_string(), rec.inclusive_ns(i), pos)
        })
        .collect()
}

#[test]
fn real_logs_import_with_every_took_line_at_its_position() {
    for name in CURVE_LOGS {
        let path = real(name);
        let text = std::fs::read_to_string(&path).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(
            interop::detect_bytes(&bytes),
            Some(Format::LeanProfile),
            "{name}"
        );
        let (rec, _) = import(&path, None);
        let want = expected_took_lines(&text);
        assert!(want.len() >= 2, "{name}: {} took lines", want.len());
        assert_eq!(profiler_events(&rec), want, "{name}");
        // the cumulative block, entry for entry
        let block: Vec<(String, u64)> = text
            .lines()
            .skip_while(|l| *l != "cumulative profiling times:")
            .skip(1)
            .map(|l| {
                let (c, t) = l.trim_start_matches('\t').rsplit_once(' ').unwrap();
                (c.to_string(), took(&format!("x took {t}")).unwrap().1)
            })
            .collect();
        let got: Vec<(String, u64)> = rec
            .header
            .cumulative_times
            .iter()
            .map(|c| (c.category.clone(), c.ns))
            .collect();
        assert_eq!(got, block, "{name}");
    }
}

#[test]
fn a_real_log_keeps_its_diagnostics_and_names_its_lean_file() {
    let (rec, _) = import(&real(CURVE_LOGS[0]), None);
    assert_eq!(
        rec.header.source_path,
        "Curve25519Dalek/Specs/Backend/Serial/U64/Field/FieldElement51/Negate_Hoare.lean"
    );
    let texts: Vec<&str> = rec
        .header
        .diagnostics
        .iter()
        .map(|d| d.text.as_str())
        .collect();
    assert_eq!(texts.len(), 3, "{texts:?}");
    assert!(texts[0].contains("declaration uses 'sorry'"));
    assert!(rec.header.source_text.is_empty());
    assert!(rec.header.notes.iter().any(|n| n.contains("--source")));
}

#[test]
fn the_truncated_excerpt_imports_and_says_what_is_missing() {
    let (rec, warnings) = import(&real(CURVE_LOGS[3]), None);
    assert!(
        warnings.iter().any(
            |w| w.contains("no `cumulative profiling times:` block") && w.contains("truncated")
        ),
        "{warnings:?}"
    );
    // the maxRecDepth error is kept, so the recording says the file had errors
    assert_eq!(rec.header.status, recording::CaptureStatus::Error);
    assert!(rec.header.cumulative_times.is_empty());
}

#[test]
fn stdout_alone_is_recognised_and_imported() {
    let text = std::fs::read_to_string(real(CURVE_LOGS[1])).unwrap();
    let stdout: String = text
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(
        interop::detect_bytes(stdout.as_bytes()),
        Some(Format::LeanProfile)
    );
    let rec = import_text(&stdout).unwrap();
    let want: Vec<_> = expected_took_lines(&stdout);
    assert!(want.iter().all(|w| w.2.is_some()));
    assert_eq!(profiler_events(&rec), want);
}

#[test]
fn a_guard_msgs_trace_block_imports_as_its_tree() {
    let path = real(TRACE_SAMPLE);
    let text = std::fs::read_to_string(&path).unwrap();
    let (rec, _) = import(&path, None);
    let headers = text.matches("[Elab.step]").count();
    assert_eq!(rec.len(), headers);
    assert!((0..rec.len() as u32).all(|i| rec.class(i) == "Elab.step"));
    // one root (`trivial`), nested as printed: `apply And.intro✝` is 8 deep
    assert_eq!(rec.roots().count(), 1);
    let deepest = (0..rec.len() as u32)
        .map(|i| recording::model::ancestors(&rec, i).len())
        .max()
        .unwrap();
    assert_eq!(deepest, 7);
    assert!((0..rec.len() as u32).all(|i| !rec.label(i).contains('⏎')));
}

#[test]
fn pasted_trace_trees_of_every_header_spelling() {
    let text = "[Elab.command] [0.183000] ✅️ theorem foo : True := by\n      trivial\n  \
                [Elab.step] [0.150000] ✅️ trivial\n    [Meta.synthInstance] [0.010000] ✅️ Decidable True\n  \
                [Elab.step] untimed\n[Elab.command] [0.020000s] def bar := 1\n";
    assert_eq!(
        interop::detect_bytes(text.as_bytes()),
        Some(Format::LeanProfile)
    );
    let rec = import_text(text).unwrap();
    let got: Vec<(&str, u64, usize)> = (0..rec.len() as u32)
        .map(|i| {
            (
                rec.class(i),
                rec.inclusive_ns(i),
                recording::model::ancestors(&rec, i).len(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("Elab.command", 183_000_000, 0),
            ("Elab.step", 150_000_000, 1),
            ("Meta.synthInstance", 10_000_000, 2),
            ("Elab.step", 0, 1),
            ("Elab.command", 20_000_000, 0),
        ]
    );
    assert_eq!(rec.label(0), "✅️ theorem foo : True := by\n  trivial");
    // roots follow one another
    assert_eq!(rec.start(4), 183_000_000);
}

#[test]
fn a_source_places_every_position_exactly() {
    let tmp = tempfile::tempdir().unwrap();
    // `𝔽` is one codepoint, two UTF-16 units: Lean's column 12 is UTF-16 column 13.
    let source = "import Std\n\ntheorem 𝔽oo : True := by\n  simp\n";
    let src_path = tmp.path().join("Foo.lean");
    std::fs::write(&src_path, source).unwrap();
    let log = r#"import took 120ms
{"caption":"","data":"simp took 150ms\n","endPos":null,"fileName":"Foo.lean","isSilent":false,"keepFullRange":false,"kind":"[anonymous]","pos":{"column":2,"line":4},"severity":"information"}
{"caption":"","data":"type checking took 110ms\n","endPos":null,"fileName":"Foo.lean","isSilent":false,"keepFullRange":false,"kind":"[anonymous]","pos":{"column":8,"line":3},"severity":"information"}
{"caption":"","data":"declaration uses 'sorry'","endPos":{"column":12,"line":3},"fileName":"Foo.lean","isSilent":false,"keepFullRange":false,"kind":"hasSorry","pos":{"column":8,"line":3},"severity":"warning"}
cumulative profiling times:
	import 120ms
	simp 150ms
	type checking 110ms
"#;
    let log_path = tmp.path().join("foo.log");
    std::fs::write(&log_path, log).unwrap();
    let src = LeanSource::read(&src_path).unwrap();
    let (rec, _) = import(&log_path, Some(&src));
    assert_eq!(rec.header.source_text, source);
    assert_eq!(rec.header.declarations.len(), 1);
    assert_eq!(rec.issue_count, 0, "{:?}", rec.issues);
    let ranges: Vec<Placed> = (0..rec.len() as u32)
        .map(|i| {
            (
                rec.label(i),
                rec.range(i)
                    .map(|r| (r.start_line, r.start_col, r.end_line, r.end_col)),
                rec.range_kind(i).as_str(),
            )
        })
        .filter(|(l, ..)| !l.contains(".lean:"))
        .collect();
    assert_eq!(
        ranges,
        [
            ("import", None, "none"),
            ("simp", Some((3, 2, 3, 2)), "exact"),
            ("type checking", Some((2, 8, 2, 8)), "exact"),
        ]
    );
    let warning = &rec.header.diagnostics[0];
    assert_eq!(
        (
            warning.range.start_col,
            warning.range.end_line,
            warning.range.end_col
        ),
        (8, 2, 13)
    );
    // the declaration gets the time of what Lean printed inside it
    let times = recording::model::declaration_times(&rec);
    assert!(times[0].is_some());
}

#[test]
fn where_the_time_went_adds_up() {
    let (rec, _) = import(&real(CURVE_LOGS[0]), None);
    let a = time_account(&rec);
    // no elapsed time in the log: the file's time is the sum of Lean's categories
    assert_eq!(a.basis, AccountBasis::Cumulative);
    assert_eq!(a.elapsed_ns, None);
    let sum: u64 = rec.header.cumulative_times.iter().map(|c| c.ns).sum();
    assert_eq!(a.file_ns, sum);
    assert_eq!(a.categories_ns, sum);
    assert_eq!(a.imports_ns, Some(301_000_000_000));
    assert!(a
        .categories
        .iter()
        .any(|c| c.category == "blocked (unaccounted)" && c.ns == 12_300_000_000));
    // recorded: every took line but `import` (the import phase)
    let traced: u64 = expected_took_lines(&std::fs::read_to_string(real(CURVE_LOGS[0])).unwrap())
        .iter()
        .filter(|t| t.0 != "import")
        .map(|t| t.1)
        .sum();
    assert_eq!(a.traced_ns, traced);
    assert_eq!(
        a.imports_ns.unwrap() + a.traced_ns + a.untraced_ns - a.overrun_ns,
        a.file_ns
    );
    assert_eq!(a.categories_minus_file_ns, Some(0));
}

#[test]
fn cli_import_and_info_show_the_split() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("r.lsrec");
    let run = |args: &[&std::ffi::OsStr]| {
        let o = Command::new(common::leanscope_bin())
            .args(args)
            .output()
            .unwrap();
        (
            o.status.code(),
            common::text(&o.stdout),
            common::text(&o.stderr),
        )
    };
    let (code, stdout, stderr) = run(&[
        "import".as_ref(),
        real(CURVE_LOGS[3]).as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
    ]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("imported from a Lean output"), "{stdout}");
    assert!(
        stderr.contains("warning: no `cumulative profiling times:` block"),
        "{stderr}"
    );
    let (code, _, stderr) = run(&[
        "import".as_ref(),
        real(CURVE_LOGS[1]).as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
    ]);
    assert_eq!(code, Some(0), "{stderr}");
    let (code, info, stderr) = run(&["info".as_ref(), out.as_os_str()]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(info.contains("time split"), "{info}");
    assert!(
        info.contains("Lean's cumulative profiling times:"),
        "{info}"
    );
    assert!(info.contains("blocked (unaccounted)"), "{info}");
    assert!(info.contains("imports 436"), "{info}");
    let (code, json, _) = run(&["info".as_ref(), "--json".as_ref(), out.as_os_str()]);
    assert_eq!(code, Some(0));
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["timeAccount"]["basis"], "cumulative");
    assert_eq!(v["timeAccount"]["importsNs"], 436_000_000_000u64);
}

#[test]
fn bad_input_is_an_error_or_a_warning_naming_the_line() {
    // not Lean's output
    assert_eq!(interop::detect_bytes(b"hello world\nsecond line\n"), None);
    let e = import_text("hello world\nsecond line\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("Lean output: ") && e.contains("not Lean's output (line 1: `hello world`)"),
        "{e}"
    );
    let e = import_text("{\"what\":1}\n").unwrap_err().to_string();
    assert!(e.contains("line 1: not a Lean JSON message"), "{e}");
    let e = import_text("").unwrap_err().to_string();
    assert!(e.contains("the input is empty"), "{e}");
    // a log cut off inside its last JSON message
    let text = std::fs::read_to_string(real(CURVE_LOGS[0])).unwrap();
    let cut = &text[..text.find("\"data\":\"type checking").unwrap()];
    let lines = cut.lines().count();
    let rec = import_text(cut).unwrap();
    let notes = rec.header.notes.join("\n");
    assert!(
        notes.contains(&format!(
            "line {lines}: the log ends inside this JSON message (truncated)"
        )) && notes.contains(&format!("line {lines}, the last, has no newline")),
        "{notes}"
    );
    // a trace whose lines have no known header (an indented header is a pasted tree's, read
    // at its indentation: see import_shared_text.rs)
    let e = import_text("  [Elab.step indented first\n  more\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("line 1: `  [Elab.step indented first`"), "{e}");
    // a trace tree that breaks after its header: kept out, and named
    let rec = import_text("import took 1ms\n[Elab.command] [0.1] x\n   odd indentation\n").unwrap();
    assert!(
        rec.header
            .notes
            .iter()
            .any(|n| n.contains("trace trees could not be read") && n.contains("line 2:")),
        "{:?}",
        rec.header.notes
    );
    // a source the positions do not fit
    let tmp = tempfile::tempdir().unwrap();
    let src_path = tmp.path().join("Short.lean");
    std::fs::write(&src_path, "theorem a : True := trivial\n").unwrap();
    let src = LeanSource::read(&src_path).unwrap();
    let (rec, warnings) = import(&real(CURVE_LOGS[0]), Some(&src));
    assert_eq!(rec.issue_count, 0);
    assert!(
        warnings.iter().any(
            |w| w.contains("positions lie outside the given source file")
                && w.contains("line 6: 56:0: line 56 is past the end")
        ),
        "{warnings:?}"
    );
}
