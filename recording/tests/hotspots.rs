//! Hot spots (merged call tree, bottom-up rows, callers and callees, a session's sum),
//! pinned on small hand-made recordings whose every number is worked out below.

use recording::hotspots::{
    file_rows, By, HotSpots, HotSpotsBuilder, Incremental, Key, SessionHotSpots, Tree, Weight, ROOT,
};
use recording::writer::{encode_to_vec, NewEvent};
use recording::*;

fn header(measure: Measure) -> Header {
    Header {
        source_text: "theorem t : True := by\n  trivial\n  skip\n".into(),
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
        declarations: vec![Declaration {
            name: "t".into(),
            kind: "theorem".into(),
            range: SourceRange::new(0, 0, 2, 6),
            selection_range: SourceRange::new(0, 8, 0, 9),
            generated: false,
        }],
        measure,
        ..Header::default()
    }
}

fn ev<'a>(
    parent: Option<u32>,
    class: &'a str,
    label: &'a str,
    start: u64,
    end: u64,
    thread: u32,
) -> NewEvent<'a> {
    NewEvent {
        parent,
        class,
        label,
        start_ns: start,
        duration_ns: end - start,
        thread,
        range: Some(SourceRange::new(0, 0, 2, 6)),
        range_kind: RangeKind::Exact,
    }
}

/// ```text
/// 0 Elab.command "theorem t"                  [0,100)   main   self 10 (the worker's 5 is not subtracted)
/// 1   Elab.step "by"                          [5,95)    main   self 90-30-20 = 40
/// 2     Elab.step "trivial"                   [10,40)   main   self 30-10 = 20
/// 3       Meta.isDefEq "✅️ True =?= True"     [15,25)   main   self 10
/// 4     Elab.step "skip"                      [50,70)   main   self 20
/// 5   Elab.async "elaborating proof of t"     [90,150)  worker self 60-50 = 10
/// 6     Elab.step "simp"                      [95,145)  worker self 50-20-20 = 10
/// 7       Meta.isDefEq "❌️ True =?= True"     [100,120) worker self 20
/// 8       Elab.step "simp"                    [120,140) worker self 20 (simp inside simp)
/// ```
fn sample(measure: Measure) -> Recording {
    let bytes = encode_to_vec(
        &header(measure),
        [
            ev(None, "Elab.command", "theorem t : True := by", 0, 100, 0),
            ev(Some(0), "Elab.step", "by", 5, 95, 0),
            ev(Some(1), "Elab.step", "trivial", 10, 40, 0),
            ev(Some(2), "Meta.isDefEq", "✅️ True =?= True", 15, 25, 0),
            ev(Some(1), "Elab.step", "skip", 50, 70, 0),
            ev(Some(0), "Elab.async", "elaborating proof of t", 90, 150, 1),
            ev(Some(5), "Elab.step", "simp", 95, 145, 1),
            ev(Some(6), "Meta.isDefEq", "❌️ True =?= True", 100, 120, 1),
            ev(Some(6), "Elab.step", "simp", 120, 140, 1),
        ],
    )
    .unwrap();
    Recording::from_bytes(&bytes).unwrap()
}

fn id(hot: &HotSpots, class: &str, name: &str) -> u32 {
    hot.keys
        .find(&Key::new(class, name))
        .unwrap_or_else(|| panic!("no key {class} {name}"))
}

/// `(label, total, self, count)` of every row, in the table's order.
fn rows(hot: &HotSpots) -> Vec<(String, u64, u64, u64)> {
    hot.rows
        .iter()
        .map(|r| (hot.keys.get(r.key).label(), r.total, r.self_time, r.count))
        .collect()
}

/// The tree as `path total self count` lines, depth first (equal totals: the key seen
/// first, first).
fn lines(hot: &HotSpots, tree: &Tree) -> Vec<String> {
    tree.preorder()
        .into_iter()
        .map(|n| {
            let path: Vec<String> = tree
                .path(n)
                .iter()
                .map(|&k| hot.keys.get(k).label())
                .collect();
            let node = tree.node(n);
            format!(
                "{} {} {} {}",
                path.join(" > "),
                node.total,
                node.self_time,
                node.count
            )
        })
        .collect()
}

fn owned(v: &[(&str, u64, u64, u64)]) -> Vec<(String, u64, u64, u64)> {
    v.iter()
        .map(|&(l, t, s, c)| (l.to_owned(), t, s, c))
        .collect()
}

#[test]
fn merged_call_tree_totals_are_self_plus_children_on_any_thread() {
    let hot = HotSpots::of(&sample(Measure::Time));
    assert_eq!(
        lines(&hot, &hot.tree),
        [
            "Elab.command theorem 160 10 1",
            "Elab.command theorem > Elab.step by 90 40 1",
            "Elab.command theorem > Elab.step by > Elab.step trivial 30 20 1",
            "Elab.command theorem > Elab.step by > Elab.step trivial > Meta.isDefEq True =?= True 10 10 1",
            "Elab.command theorem > Elab.step by > Elab.step skip 20 20 1",
            "Elab.command theorem > Elab.async elaborating proof of … 60 10 1",
            "Elab.command theorem > Elab.async elaborating proof of … > Elab.step simp 50 10 1",
            "Elab.command theorem > Elab.async elaborating proof of … > Elab.step simp > Meta.isDefEq True =?= True 20 20 1",
            "Elab.command theorem > Elab.async elaborating proof of … > Elab.step simp > Elab.step simp 20 20 1",
        ]
    );
    // Every event's self time, once: the tree's total is the recorded thread time.
    assert_eq!(hot.tree.total(), 160);
}

#[test]
fn a_key_total_counts_each_stack_once() {
    let hot = HotSpots::of(&sample(Measure::Time));
    // simp in simp: only the outer one's 50 counts; selves 10 + 20 add up.
    // The two unifications (a success and a failure) merge: neither holds the other.
    assert_eq!(
        rows(&hot),
        owned(&[
            ("Elab.step by", 90, 40, 1),
            ("Elab.step simp", 50, 30, 2),
            ("Meta.isDefEq True =?= True", 30, 30, 2),
            ("Elab.step trivial", 30, 20, 1),
            ("Elab.step skip", 20, 20, 1),
            ("Elab.command theorem", 160, 10, 1),
            ("Elab.async elaborating proof of …", 60, 10, 1),
        ])
    );
    let selves: u64 = hot.rows.iter().map(|r| r.self_time).sum();
    assert_eq!(selves, hot.tree.total());
}

#[test]
fn by_class_nests_every_step_in_the_outermost() {
    let hot = HotSpots::of_by(&sample(Measure::Time), By::Class);
    // Outermost steps: `by` (90) on main and the outer `simp` (50) on the worker (its
    // ancestors are the async proof and the command, no step).
    assert_eq!(
        rows(&hot),
        owned(&[
            ("Elab.step", 140, 110, 5),
            ("Meta.isDefEq", 30, 30, 2),
            ("Elab.command", 160, 10, 1),
            ("Elab.async", 60, 10, 1),
        ])
    );
}

#[test]
fn callers_and_callees_make_a_sandwich() {
    let hot = HotSpots::of(&sample(Measure::Time));
    let defeq = id(&hot, "Meta.isDefEq", "True =?= True");
    assert_eq!(
        lines(&hot, &hot.callers(defeq)),
        [
            "Meta.isDefEq True =?= True 30 0 2",
            "Meta.isDefEq True =?= True > Elab.step simp 20 0 1",
            "Meta.isDefEq True =?= True > Elab.step simp > Elab.async elaborating proof of … 20 0 1",
            "Meta.isDefEq True =?= True > Elab.step simp > Elab.async elaborating proof of … > Elab.command theorem 20 20 1",
            "Meta.isDefEq True =?= True > Elab.step trivial 10 0 1",
            "Meta.isDefEq True =?= True > Elab.step trivial > Elab.step by 10 0 1",
            "Meta.isDefEq True =?= True > Elab.step trivial > Elab.step by > Elab.command theorem 10 10 1",
        ]
    );
    let simp = id(&hot, "Elab.step", "simp");
    assert_eq!(
        lines(&hot, &hot.callees(simp)),
        [
            "Elab.step simp 50 10 1",
            "Elab.step simp > Meta.isDefEq True =?= True 20 20 1",
            "Elab.step simp > Elab.step simp 20 20 1",
        ]
    );
    // The bottom-up tree of simp weighs each of its nodes by its own self time.
    assert_eq!(
        lines(&hot, &hot.callers_weighted(simp, Weight::Self_)),
        [
            "Elab.step simp 30 0 2",
            "Elab.step simp > Elab.step simp 20 0 1",
            "Elab.step simp > Elab.step simp > Elab.async elaborating proof of … 20 0 1",
            "Elab.step simp > Elab.step simp > Elab.async elaborating proof of … > Elab.command theorem 20 20 1",
            "Elab.step simp > Elab.async elaborating proof of … 10 0 1",
            "Elab.step simp > Elab.async elaborating proof of … > Elab.command theorem 10 10 1",
        ]
    );
}

#[test]
fn occurrences_are_the_outermost_events_slowest_first() {
    let rec = sample(Measure::Time);
    let hot = HotSpots::of(&rec);
    assert_eq!(
        hot.occurrences(&rec, id(&hot, "Elab.step", "simp"), 10),
        [6]
    );
    assert_eq!(
        hot.occurrences(&rec, id(&hot, "Meta.isDefEq", "True =?= True"), 10),
        [7, 3]
    );
    // The raw label of each occurrence is the event's, status emoji and all.
    assert_eq!(rec.label(7), "❌️ True =?= True");
}

#[test]
fn heartbeat_recordings_aggregate_the_same_in_heartbeats() {
    let time = HotSpots::of(&sample(Measure::Time));
    let beats = HotSpots::of(&sample(Measure::Heartbeats));
    assert_eq!(beats.measure, Measure::Heartbeats);
    assert_eq!(rows(&beats), rows(&time));
    let mut b = HotSpotsBuilder::new();
    b.add(&time).unwrap();
    let err = b.add(&beats).unwrap_err();
    assert!(err.to_string().contains("heartbeats"), "{err}");
}

#[test]
fn a_class_filter_keeps_only_that_work() {
    let hot = HotSpots::of(&sample(Measure::Time));
    let meta = hot.only(|k| k.class.starts_with("Meta"));
    assert_eq!(meta.tree.total(), 30);
    assert_eq!(
        rows(&meta),
        owned(&[("Meta.isDefEq True =?= True", 30, 30, 2)])
    );
}

#[test]
fn a_session_is_the_sum_of_its_files() {
    let a = sample(Measure::Time);
    let b = Recording::from_bytes(
        &encode_to_vec(
            &header(Measure::Time),
            [
                ev(None, "Elab.command", "theorem u : True := by", 0, 50, 0),
                ev(Some(0), "Elab.step", "simp", 0, 40, 0),
                ev(
                    Some(1),
                    "Meta.synthInstance",
                    "✅️ Decidable (b = true)",
                    5,
                    15,
                    0,
                ),
            ],
        )
        .unwrap(),
    )
    .unwrap();
    // Merged trees (what the flame graph of a folder draws).
    let mut merged = HotSpotsBuilder::new();
    let mut from_rows = SessionHotSpots::new();
    for (path, rec) in [("A.lean", &a), ("B.lean", &b)] {
        let hot = HotSpots::of(rec);
        merged.add(&hot).unwrap();
        let fr = file_rows(rec, &hot);
        from_rows.add_file(path, &fr.rows, fr.other_holds);
    }
    let merged = merged.finish();
    assert_eq!(merged.files, 2);
    let simp = merged.row(id(&merged, "Elab.step", "simp")).unwrap();
    assert_eq!(
        (simp.total, simp.self_time, simp.count, simp.files),
        (90, 60, 3, 2)
    );
    // From the index rows: the same sums per key.
    for row in from_rows.top(100, false) {
        let k = merged.row(merged.keys.find(&row.key).unwrap()).unwrap();
        assert_eq!(
            (row.total, row.self_time, row.count, row.files),
            (k.total, k.self_time, k.count, k.files),
            "{}",
            row.key.label()
        );
    }
    let simp = from_rows
        .top(1, true)
        .into_iter()
        .find(|r| r.key.name == "simp");
    assert!(simp.is_none(), "the command's 160 is the top total");
    let top = from_rows.top(1, false);
    assert_eq!(top[0].key.label(), "Elab.step simp");
    assert_eq!(
        top[0].top_files,
        [("A.lean".to_owned(), 50), ("B.lean".to_owned(), 40)]
    );
    assert_eq!(
        top[0].top_declarations,
        [
            ("A.lean".to_owned(), "t".to_owned(), 50),
            ("B.lean".to_owned(), "t".to_owned(), 40)
        ]
    );
}

#[test]
fn millions_of_distinct_keys_stay_bounded_in_other() {
    let mut s = SessionHotSpots::with_key_limit(10);
    for f in 0..100 {
        let rows: Vec<_> = (0..100)
            .map(|k| recording::hotspots::FileKeyRow {
                key: Key::new("Meta.isDefEq", format!("goal {f} {k}")),
                total: 1,
                self_time: 1,
                count: 1,
                declaration: None,
            })
            .collect();
        s.add_file(&format!("F{f}.lean"), &rows, 0);
    }
    assert!(s.key_count() <= 10);
    let other = s.other().expect("an (other) row");
    assert_eq!(other.total + 9, 100 * 100);
    assert_eq!(s.other_holds(), 100 * 100 - 9);
}

#[test]
fn the_tree_root_is_virtual() {
    let hot = HotSpots::of(&sample(Measure::Time));
    assert_eq!(hot.tree.path(ROOT), Vec::<u32>::new());
}

#[test]
fn hot_spots_built_a_slice_at_a_time_are_the_whole_recordings() {
    let bytes = recording::synth::synthetic_bytes(&recording::synth::SynthParams {
        events: 5000,
        threads: 3,
        seed: 11,
    })
    .unwrap();
    let rec = Recording::from_bytes(&bytes).unwrap();
    let whole = HotSpots::of(&rec);
    for slice in [1, 7, 4096, 5000] {
        let mut part = Incremental::new(By::Key);
        let mut steps = 1;
        while part.take_in_slice(&rec, slice) {
            assert_eq!(part.len(), steps * slice, "a slice takes in {slice} events");
            steps += 1;
        }
        assert_eq!(steps, rec.len().div_ceil(slice), "slices of {slice}");
        assert_eq!(part.len(), rec.len());
        let sliced = part.finish(&rec);
        assert_eq!(sliced.rows, whole.rows, "slices of {slice}");
        assert_eq!(sliced.tree.nodes(), whole.tree.nodes());
    }
    // Finished part-way: the rest is taken in then; and taken in as the events arrived
    // (without self times), then sliced, then finished.
    let mut part = Incremental::new(By::Key);
    assert!(part.take_in_slice(&rec, 1234));
    assert_eq!(part.len(), 1234);
    assert_eq!(part.finish(&rec).rows, whole.rows);
    let mut part = Incremental::new(By::Key);
    let arriving = recording::columns::Events {
        parent: rec.events.parent[..1000].to_vec(),
        class: rec.events.class[..1000].to_vec(),
        label: rec.events.label[..1000].to_vec(),
        ..Default::default()
    };
    part.take_in(&arriving, &rec.strings);
    assert_eq!(part.len(), 1000);
    assert!(part.take_in_slice(&rec, 500));
    assert_eq!(part.finish(&rec).rows, whole.rows);
}
