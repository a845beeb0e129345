//! Headroom of hand-made heartbeat recordings: limits from the default (by toolchain), a
//! file-level option and an `in` bump; the slowest instance search; a time recording refused.

use recording::headroom::limits::LimitFrom;
use recording::headroom::{headroom, headroom_with_counts, HeadroomError, HeadroomOptions};
use recording::writer::encode_to_vec;
use recording::*;

const SOURCE: &str = "\
set_option maxHeartbeats 400000 in
theorem a : True := by
  trivial
set_option maxHeartbeats 0
theorem b : True := trivial
";

fn decl(name: &str, range: SourceRange) -> Declaration {
    Declaration {
        name: name.into(),
        kind: "theorem".into(),
        range,
        selection_range: range,
        generated: false,
    }
}

const A: SourceRange = SourceRange {
    start_line: 1,
    start_col: 0,
    end_line: 2,
    end_col: 9,
};
const B: SourceRange = SourceRange {
    start_line: 4,
    start_col: 0,
    end_line: 4,
    end_col: 27,
};

fn rec(measure: Measure, lean_version: &str) -> Recording {
    let header = Header {
        source_text: SOURCE.into(),
        lean_version: lean_version.into(),
        measure,
        threads: vec![Thread {
            id: 1,
            name: "main".into(),
        }],
        declarations: vec![decl("a", A), decl("b", B)],
        ..Header::default()
    };
    let ev = |parent, class, label: &'static str, start, dur, range| NewEvent {
        parent,
        class,
        label,
        start_ns: start,
        duration_ns: dur,
        thread: 0,
        range: Some(range),
        range_kind: RangeKind::Exact,
    };
    let events = [
        ev(None, "Elab.command", "theorem a", 0, 30_000_000, A),
        ev(Some(0), "Meta.synthInstance", "Add Nat", 0, 3_000_000, A),
        ev(
            Some(0),
            "Meta.synthInstance",
            "Mul Nat",
            3_000_000,
            5_000_000,
            A,
        ),
        ev(
            None,
            "Elab.command",
            "theorem b",
            30_000_000,
            1_000_000_000,
            B,
        ),
    ];
    Recording::from_bytes(&encode_to_vec(&header, events).unwrap()).unwrap()
}

#[test]
fn each_declaration_against_the_limit_in_force() {
    let r = rec(Measure::Heartbeats, "4.31.0");
    let h = headroom(&r, HeadroomOptions::default()).unwrap();
    let a = h[0].as_ref().unwrap();
    let mh = a.max_heartbeats.check;
    assert_eq!(
        (mh.limit, mh.from, mh.line),
        (400_000, LimitFrom::In, Some(1))
    );
    assert_eq!(mh.heartbeats, 30_000_000);
    assert_eq!(mh.share, Some(30_000_000.0 / 400_000_000.0));
    // 30 M is 15 % of the default 200,000 × 1000: the bump is not needed.
    assert!(a.max_heartbeats.bump_not_needed);
    let si = a.synth_instance.as_ref().unwrap();
    assert_eq!(si.instance, "Mul Nat");
    assert_eq!(
        (si.check.limit, si.check.from, si.check.line),
        (20_000, LimitFrom::Default, None)
    );
    assert_eq!(si.check.share, Some(5_000_000.0 / 20_000_000.0));

    let b = h[1].as_ref().unwrap();
    let mh = b.max_heartbeats.check;
    assert_eq!(
        (mh.limit, mh.from, mh.line, mh.share),
        (0, LimitFrom::File, Some(4), None)
    );
    assert!(!b.max_heartbeats.bump_not_needed);
    assert!(b.synth_instance.is_none());

    // A stricter threshold: 15 % of the default is not under 10 %.
    let strict = headroom(
        &r,
        HeadroomOptions {
            bump_not_needed_below: 0.1,
        },
    )
    .unwrap();
    assert!(!strict[0].as_ref().unwrap().max_heartbeats.bump_not_needed);
}

#[test]
fn an_old_toolchain_has_the_old_default() {
    let r = rec(Measure::Heartbeats, "4.0.0-m4");
    let h = headroom(&r, HeadroomOptions::default()).unwrap();
    let a = &h[0].as_ref().unwrap().max_heartbeats;
    assert_eq!(a.check.default, 50_000);
    // 30 M of 50 M is 60 %: with that default the bump is needed.
    assert!(!a.bump_not_needed);
}

#[test]
fn counts_can_be_given_and_missing_ones_have_no_headroom() {
    let r = rec(Measure::Heartbeats, "4.31.0");
    let h =
        headroom_with_counts(&r, &[Some(390_000_000), None], HeadroomOptions::default()).unwrap();
    assert_eq!(
        h[0].as_ref().unwrap().max_heartbeats.check.share,
        Some(0.975)
    );
    assert!(h[1].is_none());
    let e = headroom_with_counts(&r, &[None], HeadroomOptions::default()).unwrap_err();
    assert_eq!(
        e,
        HeadroomError::WrongCounts {
            declarations: 2,
            counts: 1
        }
    );
}

#[test]
fn a_time_recording_has_no_headroom() {
    let r = rec(Measure::Time, "4.31.0");
    let e = headroom(&r, HeadroomOptions::default()).unwrap_err();
    assert!(e.to_string().contains("measured in time"), "{e}");
    assert!(e.to_string().contains("--measure heartbeats"), "{e}");
}
