//! `leanscope profile` on every release line of Lean the fake toolchain speaks (fixtures/
//! README.md, "Versions of Lean's output"): the same case yields the same declarations, tactic
//! rows, line bars and thread attribution whether Lean printed it as 4.12, 4.18, 4.28, 4.31 or
//! 4.35 (and, as far as its output tells, as 4.7).

mod common;

use std::collections::BTreeSet;

use common::{find, text, World};
use recording::model::{declaration_times, line_rows, tactic_rows};
use recording::{RangeKind, Recording};

/// Toolchains whose Lean writes a timed profile (`trace.profiler.output`, 4.8 and later).
const PROFILED: [&str; 5] = ["v4.12.0", "v4.18.0", "v4.28.0", "v4.31.0", "v4.35.0"];
/// Before 4.8: trace messages only.
const OLDEST: &str = "v4.7.0";

/// Demo files recorded once in the reference layout.
const CASES: [&str; 6] = [
    "Demo/Shapes.lean",
    "Demo/Clean.lean",
    "Demo/Async.lean",
    "Demo/Unicode.lean",
    "Demo/Imports.lean",
    "Demo/Broken.lean",
];

/// A world whose demo project also holds `Demo/Shapes.lean` (kept in its own fixture project,
/// `fixtures/projects/shapes`, so that the demo project's file list stays the same).
fn world() -> World {
    let w = World::new();
    std::fs::copy(
        common::repo().join("fixtures/projects/shapes/Demo/Shapes.lean"),
        w.project.join("Demo/Shapes.lean"),
    )
    .unwrap();
    w
}

fn capture(w: &World, toolchain: &str, file: &str) -> Recording {
    let out_path = w.path(&format!("{toolchain}-{}.lsrec", file.replace('/', "_")));
    let out = w
        .profile_command(file, &out_path)
        .env("LEANSCOPE_FAKE_TOOLCHAIN", toolchain)
        .output()
        .unwrap();
    assert!(
        out.status.code() == Some(0)
            || (file.ends_with("Broken.lean") && out.status.code() == Some(1)),
        "{toolchain} {file}: {}",
        text(&out.stderr)
    );
    Recording::open(&out_path).unwrap_or_else(|e| panic!("{toolchain} {file}: {e}"))
}

type Range4 = (u32, u32, u32, u32);
/// A declaration's name, range and (total, self) time.
type DeclarationSeen = (String, Range4, Option<(u64, u64)>);
/// A tactic row's label, range, range kind, declaration and total time.
type TacticSeen = (String, Range4, RangeKind, Option<usize>, u64);

fn r4(r: recording::SourceRange) -> Range4 {
    (r.start_line, r.start_col, r.end_line, r.end_col)
}

/// What a user sees of a capture: declarations with their times, tactic rows, line bars, and
/// which threads each declaration's events ran on.
#[derive(Debug, PartialEq, Eq)]
struct Seen {
    declarations: Vec<DeclarationSeen>,
    tactics: Vec<TacticSeen>,
    lines: Vec<(u32, u64)>,
    threads: Vec<(String, BTreeSet<String>)>,
}

fn seen(rec: &Recording, with_times: bool) -> Seen {
    let t = |ns: u64| if with_times { ns } else { 0 };
    let times = declaration_times(rec);
    let declarations = rec
        .header
        .declarations
        .iter()
        .zip(&times)
        .map(|(d, time)| {
            (
                d.name.clone(),
                r4(d.range),
                time.map(|x| (t(x.total_ns), t(x.self_ns))),
            )
        })
        .collect();
    let tactics = tactic_rows(rec)
        .into_iter()
        .map(|row| {
            (
                row.label,
                r4(row.range),
                row.range_kind,
                row.declaration,
                t(row.time.total_ns),
            )
        })
        .collect();
    let lines = line_rows(rec)
        .into_iter()
        .map(|row| (row.line, t(row.time.total_ns)))
        .collect();
    let threads = rec
        .header
        .declarations
        .iter()
        .map(|d| {
            let names = (0..rec.len() as u32)
                .filter(|&i| rec.range(i).is_some_and(|r| within(r, d.range)))
                .map(|i| {
                    let thread = rec.events.thread[i as usize] as usize;
                    rec.header.threads[thread].name.clone()
                })
                .collect();
            (d.name.clone(), names)
        })
        .collect();
    Seen {
        declarations,
        tactics,
        lines,
        threads,
    }
}

fn within(r: recording::SourceRange, outer: recording::SourceRange) -> bool {
    (r.start_line, r.start_col) >= (outer.start_line, outer.start_col)
        && (r.end_line, r.end_col) <= (outer.end_line, outer.end_col)
}

#[test]
fn every_case_reads_the_same_on_every_release_line() {
    let w = world();
    for file in CASES {
        let reference = capture(&w, "v4.28.0", file);
        let expected = seen(&reference, true);
        assert!(
            expected.declarations.iter().any(|d| d.2.is_some()),
            "{file}: no declaration has a time"
        );
        for toolchain in PROFILED {
            let mut got = seen(&capture(&w, toolchain, file), true);
            if file == "Demo/Broken.lean" && ["v4.12.0", "v4.18.0"].contains(&toolchain) {
                // Without a profile, line bars come from the positions of the profiler lines:
                // before 4.19 Lean reports them all at the command's start, so only the
                // commands' lines have bars (with the same times); a tactic's line has none.
                let mut want = seen(&reference, true);
                want.lines.retain(|l| got.lines.contains(l));
                assert_eq!(got, want, "{file} as {toolchain}");
                assert_eq!(got.lines, [(4, 2_490_000), (7, 3_280_000)]);
                got.lines = expected.lines.clone();
            }
            assert_eq!(got, expected, "{file} as {toolchain}");
        }
        if file != "Demo/Clean.lean" {
            // 4.7 prints trace text only (times rounded to µs, one thread): the same
            // declarations and tactic rows, without the profile's times and threads
            let old = seen(&capture(&w, OLDEST, file), false);
            let mut want = seen(&reference, false);
            if file != "Demo/Broken.lean" {
                assert_eq!(old.declarations, want.declarations, "{file} as {OLDEST}");
                assert_eq!(old.tactics, want.tactics, "{file} as {OLDEST}");
                want.lines.retain(|l| old.lines.iter().any(|o| o.0 == l.0));
                assert_eq!(old.lines, want.lines, "{file} as {OLDEST}");
            }
        }
    }
}

#[test]
fn kernel_checks_private_names_doc_comments_and_unprintable_commands() {
    let w = world();
    for toolchain in ["v4.28.0", "v4.31.0", "v4.35.0"] {
        let rec = capture(&w, toolchain, "Demo/Shapes.lean");
        let decl = |name: &str| {
            rec.header
                .declarations
                .iter()
                .position(|d| d.name == name)
                .unwrap_or_else(|| panic!("no declaration {name}"))
        };
        let times = declaration_times(&rec);
        // a doc comment and `@[simp]` on its own line belong to the theorem, and Lean's command
        // starts there (the message at 7:0)
        let doc = &rec.header.declarations[decl("Demo.Shapes.double_eq")];
        assert_eq!(r4(doc.range), (6, 0, 9, 7), "{toolchain}");
        let cmd = find(&rec, "Elab.command", "/-- Doubling");
        assert_eq!(rec.range(cmd).map(r4), Some((6, 0, 9, 7)), "{toolchain}");
        assert_eq!(rec.range_kind(cmd), RangeKind::Exact, "{toolchain}");
        // labels carry no status emoji on any release line
        assert!(
            (0..rec.len() as u32)
                .all(|i| rec.class(i).starts_with("Meta") || !rec.label(i).starts_with('\u{2705}')),
            "{toolchain}"
        );
        for (name, proof_ms_at_least) in [
            ("Demo.Shapes.double_eq", 7),
            ("Demo.Shapes.secret", 4),
            ("Demo.Shapes.reflowed", 3),
            ("Demo.Shapes.unprintable", 5),
        ] {
            let d = decl(name);
            let range = rec.header.declarations[d].range;
            // the kernel check, a root of its own on a worker after the command, is the
            // declaration's: placed in it and linked to its command
            let lean_name = if name.ends_with("secret") {
                format!("_private.Demo.Shapes.0.{name}")
            } else {
                name.to_string()
            };
            let kernel = find(
                &rec,
                "Kernel",
                &format!("typechecking declarations [{lean_name}]"),
            );
            let root = rec.parent(kernel).expect("under Lean.addDecl");
            assert_eq!(rec.class(root), "Elab.async");
            assert_eq!(rec.range(root), Some(range), "{toolchain} {name}");
            let command = rec.parent(root).expect("linked to its command");
            assert_eq!(rec.class(command), "Elab.command", "{toolchain} {name}");
            assert_eq!(rec.range(command), Some(range), "{toolchain} {name}");
            let thread = |i: u32| rec.events.thread[i as usize];
            assert_ne!(thread(root), thread(command), "{toolchain} {name}");
            // its time holds the asynchronous proof and the kernel check
            let proof = find(
                &rec,
                "Elab.async",
                &format!("elaborating proof of {lean_name}"),
            );
            let total = times[d].expect("timed").total_ns;
            let span = |i: u32| {
                let iv = rec.interval(i);
                iv.end - iv.start
            };
            let (kernel_ns, proof_ns) = (span(kernel), span(proof));
            assert!(total >= kernel_ns + proof_ns, "{toolchain} {name}");
            assert!(proof_ns >= proof_ms_at_least * 1_000_000);
            // the tactic below is found in the command's extent, whatever Lean printed
            let tactic = tactic_rows(&rec)
                .into_iter()
                .find(|t| t.declaration == Some(d) && !t.label.is_empty())
                .unwrap_or_else(|| panic!("{toolchain}: no tactic row in {name}"));
            assert_eq!(tactic.range_kind, RangeKind::Matched, "{toolchain} {name}");
            assert!(within(tactic.range, range));
        }
        // a command Lean could not print is placed by the declaration its steps name
        let unprintable = find(&rec, "Elab.command", "failed to pretty print term");
        assert_eq!(
            rec.range(unprintable),
            Some(rec.header.declarations[decl("Demo.Shapes.unprintable")].range)
        );
        // the reflowed command with its comment moved keeps the source's whole extent
        let reflowed = find(&rec, "Elab.command", "theorem reflowed");
        assert_eq!(
            rec.range(reflowed),
            Some(rec.header.declarations[decl("Demo.Shapes.reflowed")].range)
        );
    }
}

#[test]
fn profiler_lines_attach_to_the_command_that_holds_them() {
    // Lean writes no profile for a file with errors: times come from the profiler's lines,
    // which 4.19+ reports at the token they time and older releases at the command's start.
    let w = world();
    for toolchain in ["v4.18.0", "v4.28.0", "v4.35.0"] {
        let rec = capture(&w, toolchain, "Demo/Broken.lean");
        let commands: Vec<_> = (0..rec.len() as u32)
            .filter(|&i| rec.parent(i).is_none() && rec.class(i) == "Elab.command")
            .map(|i| (rec.label(i).to_string(), rec.range(i).map(r4)))
            .collect();
        assert_eq!(
            commands,
            [
                (
                    "theorem add_zero' (n : Nat) : n + 0 = n := by".to_string(),
                    Some((4, 0, 5, 22))
                ),
                (
                    "theorem zero_add' (n : Nat) : 0 + n = n := by".to_string(),
                    Some((7, 0, 8, 27))
                ),
            ],
            "{toolchain}: one command per theorem, never one per position"
        );
        let exact = find(
            &rec,
            "profiler",
            "tactic execution of Lean.Parser.Tactic.exact",
        );
        let parent = rec.parent(exact).expect("in its command");
        assert_eq!(rec.label(parent), commands[0].0);
        let range = rec.range(exact).map(r4);
        if toolchain == "v4.18.0" {
            assert_eq!(
                range,
                Some((4, 0, 5, 22)),
                "at the command's start: inherited"
            );
        } else {
            assert_eq!(
                range,
                Some((5, 2, 5, 7)),
                "{toolchain}: at the `exact` token"
            );
            assert_eq!(rec.range_kind(exact), RangeKind::Exact);
        }
    }
}
