//! Editor annotations: line bars, declaration times, shares of the file and
//! the top operations of each line, on small hand-made recordings.

use recording::model::annotations::{
    annotations, FileShare, ShareBasis, OPERATION_LABEL_MAX_CHARS, TOP_OPERATIONS_PER_LINE,
};
use recording::model::{declaration_times, line_rows, TimeRow};
use recording::writer::encode_to_vec;
use recording::*;

const SOURCE: &str = "theorem a : True := by\n  trivial\n  simp\n\ntheorem b : True := trivial\n";

fn header(elapsed_ns: Option<u64>) -> Header {
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
        elapsed_ns,
        ..Header::default()
    }
}

struct E {
    parent: Option<u32>,
    class: &'static str,
    label: String,
    start: u64,
    end: u64,
    thread: u32,
    range: SourceRange,
    kind: RangeKind,
}

fn rec(elapsed_ns: Option<u64>, events: &[E]) -> Recording {
    let bytes = encode_to_vec(
        &header(elapsed_ns),
        events.iter().map(|e| NewEvent {
            parent: e.parent,
            class: e.class,
            label: &e.label,
            start_ns: e.start,
            duration_ns: e.end - e.start,
            thread: e.thread,
            range: Some(e.range),
            range_kind: e.kind,
        }),
    )
    .unwrap();
    Recording::from_bytes(&bytes).unwrap()
}

const A: SourceRange = SourceRange {
    start_line: 0,
    start_col: 0,
    end_line: 2,
    end_col: 6,
};
const TRIVIAL: SourceRange = SourceRange {
    start_line: 1,
    start_col: 2,
    end_line: 1,
    end_col: 9,
};
const SIMP: SourceRange = SourceRange {
    start_line: 2,
    start_col: 2,
    end_line: 2,
    end_col: 6,
};

fn ev(
    parent: Option<u32>,
    class: &'static str,
    label: &str,
    (start, end): (u64, u64),
    thread: u32,
    (range, kind): (SourceRange, RangeKind),
) -> E {
    E {
        parent,
        class,
        label: label.into(),
        start,
        end,
        thread,
        range,
        kind,
    }
}

/// A command [0, 100) with `trivial` [10, 40) and its isDefEq [15, 25)
/// (inherited range), and an async `simp` on a worker [80, 150).
fn sample(elapsed_ns: Option<u64>) -> Recording {
    rec(
        elapsed_ns,
        &[
            ev(
                None,
                "Elab.command",
                "theorem a : True := by",
                (0, 100),
                0,
                (A, RangeKind::Exact),
            ),
            ev(
                Some(0),
                "Elab.step",
                "trivial",
                (10, 40),
                0,
                (TRIVIAL, RangeKind::Matched),
            ),
            ev(
                Some(1),
                "Meta.isDefEq",
                "True =?= True\nsecond line",
                (15, 25),
                0,
                (TRIVIAL, RangeKind::Inherited),
            ),
            ev(
                Some(0),
                "Elab.step",
                "simp",
                (80, 150),
                1,
                (SIMP, RangeKind::Exact),
            ),
        ],
    )
}

#[test]
fn lines_and_declarations_agree_with_the_aggregates_and_share_lean_elapsed_time() {
    let r = sample(Some(1_000));
    let a = annotations(&r);
    assert_eq!(
        a.file,
        FileShare {
            ns: 1_000,
            basis: ShareBasis::Elapsed
        }
    );
    // The bars are line_rows, value for value.
    let bars: Vec<(u32, TimeRow)> = a.lines.iter().map(|l| (l.line, l.time)).collect();
    let rows: Vec<(u32, TimeRow)> = line_rows(&r).iter().map(|l| (l.line, l.time)).collect();
    assert_eq!(bars, rows);
    assert_eq!(
        bars,
        vec![
            // the command: [0, 100), self [0,10) [40,100) (simp is on another thread)
            (
                0,
                TimeRow {
                    count: 1,
                    total_ns: 100,
                    self_ns: 70
                }
            ),
            // trivial ∪ isDefEq = [10, 40); self [10,15) [25,40) ∪ [15,25)
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
                    total_ns: 70,
                    self_ns: 70
                }
            ),
        ]
    );
    assert_eq!(a.lines[0].share, Some(0.1));
    assert_eq!(a.lines[0].self_share, Some(0.07));
    assert_eq!(a.lines[2].share, Some(0.07));

    // Line 1's operations, longest first; labels keep their first line.
    let top: Vec<_> = a.lines[1]
        .top
        .iter()
        .map(|o| {
            (
                o.event,
                o.class.as_str(),
                o.label.as_str(),
                o.kind,
                o.inclusive_ns,
                o.self_ns,
                o.range_kind,
            )
        })
        .collect();
    assert_eq!(
        top,
        vec![
            (
                1,
                "Elab.step",
                "trivial",
                "tactic",
                30,
                20,
                RangeKind::Matched
            ),
            (
                2,
                "Meta.isDefEq",
                "True =?= True",
                "other",
                10,
                10,
                RangeKind::Inherited
            ),
        ]
    );
    assert_eq!(a.lines[0].top[0].kind, "command");
    assert_eq!(a.lines[2].top[0].thread, 1);

    // Declarations: a's union spans both threads; b has no time, not zero.
    let times = declaration_times(&r);
    assert_eq!(a.declarations.len(), 2);
    assert_eq!(a.declarations[0].time, times[0]);
    assert_eq!(
        a.declarations[0].time,
        Some(TimeRow {
            count: 4,
            total_ns: 150,
            self_ns: 50
        })
    );
    assert_eq!(
        (a.declarations[0].share, a.declarations[0].self_share),
        (Some(0.15), Some(0.05))
    );
    assert_eq!(
        (
            a.declarations[1].name.as_str(),
            a.declarations[1].time,
            a.declarations[1].share
        ),
        ("b", None, None)
    );
}

#[test]
fn without_elapsed_time_shares_are_of_everything_recorded() {
    // Unknown elapsed time: the union of all intervals on every thread,
    // [0, 150), so the worker's simp past the command still counts.
    let a = annotations(&sample(None));
    assert_eq!(
        a.file,
        FileShare {
            ns: 150,
            basis: ShareBasis::Traced
        }
    );
    assert_eq!(a.declarations[0].share, Some(1.0));
    // An elapsed time shorter than what was recorded is not a basis either.
    let short = annotations(&sample(Some(120)));
    assert_eq!(short.file.basis, ShareBasis::Traced);
    assert!(short.lines.iter().all(|l| l.share.unwrap() <= 1.0));
    // No events at all: no shares rather than a division by zero.
    let empty = annotations(&rec(None, &[]));
    assert_eq!(empty.file.ns, 0);
    assert!(empty.lines.is_empty());
    assert_eq!(empty.declarations[0].share, None);
}

#[test]
fn a_line_lists_at_most_the_top_operations_longest_first() {
    let n = TOP_OPERATIONS_PER_LINE as u64 + 3;
    let long = "x".repeat(OPERATION_LABEL_MAX_CHARS + 10);
    let mut events = vec![ev(
        None,
        "Elab.command",
        "theorem a",
        (0, 1_000),
        0,
        (A, RangeKind::Exact),
    )];
    for k in 0..n {
        // Durations 10, 20, …; two of equal length keep event order.
        let d = 10 * (k + 1).min(n - 1);
        events.push(ev(
            Some(0),
            "Elab.step",
            &long,
            (100 * k, 100 * k + d),
            0,
            (TRIVIAL, RangeKind::Exact),
        ));
    }
    let a = annotations(&rec(Some(10_000), &events));
    let line = &a.lines[1];
    assert_eq!(line.time.count, n);
    let got: Vec<(u32, u64)> = line.top.iter().map(|o| (o.event, o.inclusive_ns)).collect();
    // Events 1..=n have durations 10..=(n-1)*10, the last two both 70.
    assert_eq!(
        got,
        vec![
            (n as u32 - 1, 70),
            (n as u32, 70),
            (6, 60),
            (5, 50),
            (4, 40)
        ]
    );
    assert!(line
        .top
        .iter()
        .all(|o| o.label.chars().count() == OPERATION_LABEL_MAX_CHARS && o.label.ends_with('…')));
}
