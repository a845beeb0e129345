//! The timing rules of DESIGN.md, pinned on small hand-made recordings.

use recording::model::{declaration_times, file_time, line_rows, tactic_rows, IssueKind, TimeRow};
use recording::writer::encode_to_vec;
use recording::*;

const SOURCE: &str = "theorem a : True := by\n  trivial\n  simp\n\ntheorem b : True := trivial\n";

fn header() -> Header {
    Header {
        source_text: SOURCE.into(),
        threads: vec![
            Thread {
                id: 1,
                name: "main".into(),
            },
            Thread {
                id: 2,
                name: "worker".into(),
            },
        ],
        declarations: vec![
            Declaration {
                name: "a".into(),
                kind: "theorem".into(),
                range: SourceRange::new(0, 0, 2, 6),
                selection_range: SourceRange::new(0, 8, 0, 9),
                generated: false,
            },
            Declaration {
                name: "b".into(),
                kind: "theorem".into(),
                range: SourceRange::new(4, 0, 4, 27),
                selection_range: SourceRange::new(4, 8, 4, 9),
                generated: false,
            },
        ],
        elapsed_ns: Some(1_000),
        ..Header::default()
    }
}

#[derive(Clone, Copy)]
struct E {
    parent: Option<u32>,
    class: &'static str,
    label: &'static str,
    start: u64,
    end: u64,
    thread: u32,
    range: Option<(SourceRange, RangeKind)>,
}

fn rec(events: &[E]) -> Recording {
    let bytes = encode_to_vec(
        &header(),
        events.iter().map(|e| NewEvent {
            parent: e.parent,
            class: e.class,
            label: e.label,
            start_ns: e.start,
            duration_ns: e.end - e.start,
            thread: e.thread,
            range: e.range.map(|r| r.0),
            range_kind: e.range.map_or(RangeKind::None, |r| r.1),
        }),
    )
    .unwrap();
    Recording::from_bytes(&bytes).unwrap()
}

const DECL_A: (SourceRange, RangeKind) = (
    SourceRange {
        start_line: 0,
        start_col: 0,
        end_line: 2,
        end_col: 6,
    },
    RangeKind::Exact,
);
const TRIVIAL: (SourceRange, RangeKind) = (
    SourceRange {
        start_line: 1,
        start_col: 2,
        end_line: 1,
        end_col: 9,
    },
    RangeKind::Exact,
);
const SIMP: (SourceRange, RangeKind) = (
    SourceRange {
        start_line: 2,
        start_col: 2,
        end_line: 2,
        end_col: 6,
    },
    RangeKind::Matched,
);

fn command(start: u64, end: u64) -> E {
    E {
        parent: None,
        class: "Elab.command",
        label: "theorem a",
        start,
        end,
        thread: 0,
        range: Some(DECL_A),
    }
}

fn step(
    parent: u32,
    label: &'static str,
    start: u64,
    end: u64,
    thread: u32,
    range: (SourceRange, RangeKind),
) -> E {
    E {
        parent: Some(parent),
        class: "Elab.step",
        label,
        start,
        end,
        thread,
        range: Some(range),
    }
}

fn meta(parent: u32, start: u64, end: u64, thread: u32) -> E {
    E {
        parent: Some(parent),
        class: "Meta.isDefEq",
        label: "x =?= y",
        start,
        end,
        thread,
        range: Some((TRIVIAL.0, RangeKind::Inherited)),
    }
}

#[test]
fn self_time_subtracts_the_union_of_same_thread_children_clipped_to_the_parent() {
    let r = rec(&[
        command(0, 100),
        step(0, "trivial", 10, 40, 0, TRIVIAL),
        step(0, "simp", 30, 60, 0, SIMP), // overlaps the previous sibling
        step(0, "simp", 90, 130, 0, SIMP), // sticks out of the parent: clipped at 100
        step(0, "trivial", 0, 100, 1, TRIVIAL), // another thread: never subtracted
    ]);
    // Covered on thread 0: [10, 60) and [90, 100) = 60 ns.
    assert_eq!(r.inclusive_ns(0), 100);
    assert_eq!(r.self_ns(0), 40);
    assert_eq!(r.self_ns(1), 30);
    assert_eq!(r.self_ns(4), 100);
    let kinds: Vec<_> = r.issues.iter().map(|i| (i.kind, i.event)).collect();
    assert_eq!(
        kinds,
        vec![
            (IssueKind::OverlappingSiblings, 2),
            (IssueKind::ChildOutsideParent, 3)
        ]
    );
    assert_eq!(r.issue_count, 2);
}

#[test]
fn self_time_handles_children_out_of_start_order() {
    let r = rec(&[
        command(0, 100),
        step(0, "simp", 50, 70, 0, SIMP),
        step(0, "trivial", 10, 20, 0, TRIVIAL),
    ]);
    assert_eq!(r.self_ns(0), 70);
    assert_eq!(r.issue_count, 0);
}

#[test]
fn declaration_time_is_a_union_across_threads_and_none_without_events() {
    let r = rec(&[
        command(0, 100),
        step(0, "trivial", 10, 40, 0, TRIVIAL),
        // An async proof on a worker thread, running past its command.
        step(0, "simp", 80, 150, 1, SIMP),
        meta(2, 90, 100, 1),
    ]);
    let times = declaration_times(&r);
    // Union [0, 150); tactics cover [10, 40) and [80, 150): self = 150 - 100.
    assert_eq!(
        times[0],
        Some(TimeRow {
            count: 4,
            total_ns: 150,
            self_ns: 50
        })
    );
    assert_eq!(
        times[1], None,
        "b has no recorded interval: no time, not zero"
    );
}

#[test]
fn tactic_rows_group_by_span_and_never_add_nested_time() {
    let r = rec(&[
        command(0, 200),
        step(0, "simp", 10, 50, 0, SIMP),
        step(1, "simp", 20, 30, 0, SIMP), // nested in the same span
        step(0, "simp", 100, 120, 0, SIMP),
        step(0, "trivial", 130, 140, 0, TRIVIAL),
        meta(4, 131, 139, 0),
    ]);
    let rows = tactic_rows(&r);
    let simple: Vec<_> = rows
        .iter()
        .map(|t| {
            (
                t.label.as_str(),
                t.range.start_line,
                t.range_kind,
                t.time,
                t.declaration,
            )
        })
        .collect();
    assert_eq!(
        simple,
        vec![
            (
                "trivial",
                1,
                RangeKind::Exact,
                TimeRow {
                    count: 1,
                    total_ns: 10,
                    self_ns: 2
                },
                Some(0)
            ),
            // [10,50) ∪ [20,30) ∪ [100,120) = 60; self: [10,20) [30,50) [20,30) [100,120) = 60
            (
                "simp",
                2,
                RangeKind::Matched,
                TimeRow {
                    count: 3,
                    total_ns: 60,
                    self_ns: 60
                },
                Some(0)
            ),
        ]
    );
}

#[test]
fn line_bars_are_unions_per_line() {
    let r = rec(&[
        command(0, 100),
        step(0, "trivial", 10, 40, 0, TRIVIAL),
        meta(1, 15, 25, 0), // inherited range on line 1 too
        step(0, "simp", 50, 60, 0, SIMP),
    ]);
    let rows: Vec<_> = line_rows(&r)
        .into_iter()
        .map(|l| (l.line, l.time))
        .collect();
    assert_eq!(
        rows,
        vec![
            (
                0,
                TimeRow {
                    count: 1,
                    total_ns: 100,
                    self_ns: 60
                }
            ),
            (
                1,
                TimeRow {
                    count: 2,
                    total_ns: 30,
                    self_ns: 30
                }
            ),
            (
                2,
                TimeRow {
                    count: 1,
                    total_ns: 10,
                    self_ns: 10
                }
            ),
        ]
    );
}

#[test]
fn file_time_is_leans_elapsed_time_and_the_traced_union() {
    let r = rec(&[
        command(0, 100),
        E {
            start: 150,
            end: 170,
            ..command(0, 0)
        },
    ]);
    let f = file_time(&r);
    assert_eq!((f.elapsed_ns, f.traced_ns), (Some(1_000), 120));
}

#[test]
fn ranges_outside_the_source_are_reported() {
    let bad = (SourceRange::new(40, 0, 41, 3), RangeKind::Exact);
    let wide = (SourceRange::new(1, 2, 1, 99), RangeKind::Exact);
    let r = rec(&[
        command(0, 10),
        step(0, "x", 1, 2, 0, bad),
        step(0, "y", 3, 4, 0, wide),
    ]);
    let kinds: Vec<_> = r.issues.iter().map(|i| (i.kind, i.event)).collect();
    assert_eq!(
        kinds,
        vec![
            (IssueKind::RangeOutsideSource, 1),
            (IssueKind::RangeOutsideSource, 2)
        ]
    );
}

#[test]
fn forest_navigation() {
    let r = rec(&[
        command(0, 100),
        step(0, "trivial", 10, 40, 0, TRIVIAL),
        meta(1, 15, 25, 0),
        command(200, 300),
    ]);
    assert_eq!(r.roots().collect::<Vec<_>>(), vec![0, 3]);
    assert_eq!(r.children(0), &[1]);
    assert_eq!(r.children(1), &[2]);
    assert_eq!(r.parent(2), Some(1));
    assert_eq!(r.max_depth(), 3);
    assert_eq!((r.class(2), r.label(2)), ("Meta.isDefEq", "x =?= y"));
    assert_eq!(r.range_kind(2), RangeKind::Inherited);
    assert_eq!(r.window().map(|w| (w.start, w.end)), Some((0, 300)));
}

#[test]
fn time_account_counts_asynchronous_proofs_linked_across_threads() {
    use recording::model::{time_account, AccountBasis};
    let ev = |parent, class, start, end, thread| E {
        parent,
        class,
        label: "x",
        start,
        end,
        thread,
        range: None,
    };
    let r = rec(&[
        ev(None, "runFrontend", 0, 1_000, 0),
        ev(Some(0), "Import", 0, 100, 0),
        ev(Some(0), "Elab.command", 100, 200, 0),
        ev(Some(2), "Elab.step", 120, 150, 0),
        // The command's proof, elaborated on a worker and linked to it.
        ev(Some(2), "Elab.async", 300, 700, 1),
        // Its kernel check, nested on the same worker: inside the proof.
        ev(Some(4), "Kernel", 650, 690, 1),
    ]);
    let a = time_account(&r);
    assert_eq!(a.basis, AccountBasis::Elapsed);
    assert_eq!(a.file_ns, 1_000);
    assert_eq!(a.imports_ns, Some(100));
    assert_eq!(
        a.traced_ns,
        100 + 400,
        "the command and its asynchronous proof"
    );
    assert_eq!(a.untraced_ns, 1_000 - 100 - 500);
    assert_eq!(a.overrun_ns, 0);
}

#[test]
fn line_rows_built_a_slice_at_a_time_are_the_whole_recordings() {
    let bytes = recording::synth::synthetic_bytes(&recording::synth::SynthParams {
        seed: 7,
        events: 5_000,
        threads: 3,
    })
    .expect("synth");
    let r = Recording::from_bytes(&bytes).expect("decode");
    let whole = line_rows(&r);
    assert!(whole.len() > 10, "the recording has lines: {}", whole.len());
    for slice in [1, 7, 500] {
        let mut b = recording::model::LineRowsBuilder::new(&r);
        let mut steps = 0;
        while b.step(&r, slice) {
            steps += 1;
        }
        // Sorted by line (in bigger slices), then timed a line or more at a time.
        let timing = whole.len().min(5_000 / slice);
        assert!(steps > timing, "{slice}-event slices: {steps} steps");
        assert_eq!(b.finish(&r), whole, "{slice}-event slices");
    }
}
