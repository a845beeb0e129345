//! Tests of reading Lean's profiles: the fixtures' trees, the limits' edges, odd spellings.

use std::io::Read;
use std::path::PathBuf;

use super::*;
use crate::limits::MAX_PROFILE_NODES;

fn fixture(case: &str) -> std::fs::File {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/lean-output")
        .join(case)
        .join("profile.json");
    std::fs::File::open(path).expect("fixture")
}

fn find(thread: &ProfileThread, name: &str) -> usize {
    (0..thread.nodes().len())
        .find(|&id| thread.name_of(id) == name)
        .unwrap_or_else(|| panic!("no node named {name:?}"))
}

#[test]
fn clean_profile_threads_and_trees() {
    let profile = parse_firefox_profile(fixture("clean")).expect("parses");
    assert_eq!(profile.start_ns, 259_231_447_812_903);
    assert_eq!(profile.product.as_deref(), Some("lean"));
    assert_eq!(
        profile.categories,
        vec![
            "Other",
            "Elab.async",
            "Elab.block",
            "Elab",
            "Meta",
            "Kernel"
        ]
    );
    let names: Vec<_> = profile.threads.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, vec!["Demo.Clean", "2841977", "2841978"]);
    assert!(profile.threads[0].is_main_thread);
    assert!(!profile.threads[1].is_main_thread);
    assert_eq!(profile.node_count(), 42);

    let main = &profile.threads[0];
    let roots: Vec<_> = main.roots().collect();
    assert_eq!(roots, vec![0]);
    assert_eq!(main.name_of(0), "runFrontend: ");
    let top: Vec<_> = main
        .children(0)
        .map(|id| main.name_of(id).to_string())
        .collect();
    assert_eq!(top.len(), 6);
    assert_eq!(top[0], "Import: importing");
    assert_eq!(
        top[1],
        "Elab.command: Lean.Parser.Command.definition: def double (n : Nat) : Nat := n + n"
    );
    let import = &main.nodes()[1];
    assert_eq!(import.end_ns - import.start_ns, 118_623_000);
    assert_eq!(import.start_ns - profile.start_ns, 874_000);
    assert_eq!(
        profile.categories[import.category.expect("category") as usize],
        "Other"
    );
    let run = &main.nodes()[0];
    assert_eq!(run.start_ns, profile.start_ns);

    let worker = &profile.threads[1];
    assert_eq!(worker.roots().count(), 2);
    let omega = find(worker, "Elab.step: Lean.Parser.Tactic.omega: omega");
    let node = worker.nodes()[omega];
    assert_eq!(node.end_ns - node.start_ns, 6_238_000);
    assert_eq!(node.depth, 3);
    assert_eq!(
        worker.name_of(worker.parent(omega).expect("parent")),
        "Elab.step: Lean.Parser.Tactic.tacticSeq: unfold double\nomega"
    );
    assert_eq!(
        profile.categories[node.category.expect("category") as usize],
        "Elab"
    );
}

#[test]
fn same_name_siblings_are_separate_nodes() {
    // le_double and double_add run on the same worker; within le_double the two
    // `tacticSeq` alternatives share one stack but are two nodes
    let profile = parse_firefox_profile(fixture("clean")).expect("parses");
    let worker = &profile.threads[1];
    let induction = find(
        worker,
        "Elab.step: Lean.Parser.Tactic.induction: induction n with\n| zero => exact Nat.le_refl 0\n| succ k ih =>\n  unfold double at *\n  omega",
    );
    let alternatives: Vec<_> = worker.children(induction).collect();
    assert_eq!(alternatives.len(), 2);
    let (a, b) = (
        worker.nodes()[alternatives[0]],
        worker.nodes()[alternatives[1]],
    );
    assert!(a.end_ns <= b.start_ns);
    assert_eq!(b.start_ns - a.end_ns, 173_000);
    for id in 0..worker.nodes().len() {
        if let Some(p) = worker.parent(id) {
            let (child, parent) = (worker.nodes()[id], worker.nodes()[p]);
            assert!(parent.start_ns <= child.start_ns && child.end_ns <= parent.end_ns);
        }
    }
}

#[test]
fn profile_matches_trace_messages() {
    use crate::capture::lean_output::messages::MessageReader;
    use crate::capture::lean_output::trace_text::parse_trace_text;
    let profile = parse_firefox_profile(fixture("async")).expect("parses");
    assert_eq!(profile.threads.len(), 4);
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/lean-output/async/stdout.traces");
    let file = std::fs::File::open(path).expect("fixture");
    let mut checked = 0;
    for message in MessageReader::new(std::io::BufReader::new(file)) {
        let message = message.expect("message");
        if message.kind_is_trace() != Some(true) {
            continue;
        }
        let forest = parse_trace_text(&message.data).expect("trace");
        let root = &forest.nodes()[0];
        if forest.class(0) != "Elab.async" {
            continue;
        }
        let name = format!("Elab.async: {}", root.text);
        let (thread, id) = profile
            .threads
            .iter()
            .find_map(|t| {
                (0..t.nodes().len())
                    .find(|&id| t.name_of(id) == name)
                    .map(|id| (t, id))
            })
            .expect("async node in profile");
        let node = thread.nodes()[id];
        let printed = root.timing.expect("timed").nanoseconds;
        let exact = node.end_ns - node.start_ns;
        // the message prints microseconds, the profile nanoseconds
        assert!(
            exact.abs_diff(printed) <= 500,
            "{name}: {exact} vs {printed}"
        );
        assert!(!thread.is_main_thread, "proofs run on worker threads");
        checked += 1;
    }
    assert_eq!(checked, 5);
}

#[test]
fn idle_slices_separate_same_named_roots() {
    // two top-level traces named alike on one worker thread (pp off): stack 0 is shared,
    // the zero-weight slice between them ends the first
    let json = r#"{"meta":{"startTime":1000},"threads":[{"name":"7","isMainThread":false,
        "samples":{"stack":[0,0,1,1,0,0,0,0,0,0],"time":[1,2,2,3,3,4,4,6,6,7],
                   "weight":[0,1,0,1,0,1,0,0,0,1]},
        "stackTable":{"frame":[0,1],"prefix":[null,0],"category":[1,3]},
        "frameTable":{"func":[0,1]},"funcTable":{"name":[0,1]},
        "stringArray":["Elab.async","Elab.step"]}]}"#;
    let profile = parse_firefox_profile(json.as_bytes()).expect("parses");
    let t = &profile.threads[0];
    assert_eq!(t.roots().collect::<Vec<_>>(), vec![0, 2]);
    let span = |id: usize| (t.nodes()[id].start_ns, t.nodes()[id].end_ns);
    assert_eq!(span(0), (1_000_000, 4_000_000));
    assert_eq!(span(1), (2_000_000, 3_000_000));
    assert_eq!(span(2), (6_000_000, 7_000_000));
    assert_eq!(t.name_of(1), "Elab.step");
    assert_eq!(t.nodes()[1].category, Some(3));
    assert_eq!(profile.start_ns, 1_000_000_000);
}

#[test]
fn invalid_tables_are_reported_per_thread() {
    let base = |samples: &str, prefix: &str| {
        format!(
            r#"{{"meta":{{"startTime":0}},"threads":[{{"name":"a","samples":{samples},
            "stackTable":{{"frame":[0,0],"prefix":{prefix}}},"frameTable":{{"func":[0]}},
            "funcTable":{{"name":[0]}},"stringArray":["x"]}}]}}"#
        )
    };
    let cases = [
        base(r#"{"stack":[0],"time":[1]}"#, "[null,0]"),
        base(r#"{"stack":[0,1],"time":[1,2]}"#, "[null,0]"),
        base(r#"{"stack":[0,0],"time":[1]}"#, "[null,0]"),
        base(r#"{"stack":[5,5],"time":[1,2]}"#, "[null,0]"),
        base(r#"{"stack":[0,0],"time":[1,2]}"#, "[1,null]"),
        base(r#"{"stack":[1,1],"time":[1,2]}"#, "[null,0]"),
    ];
    for json in &cases {
        match parse_firefox_profile(json.as_bytes()) {
            Err(FirefoxProfileError::Invalid { thread: 0, .. }) => {}
            other => panic!("expected invalid thread for {json}: {other:?}"),
        }
    }
}

#[test]
fn malformed_json_has_position() {
    match parse_firefox_profile(&b"{\"meta\": {\"startTime\": 1},\n \"threads\": [}"[..]) {
        Err(FirefoxProfileError::Json { line: 2, .. }) => {}
        other => panic!("expected JSON error, got {other:?}"),
    }
    assert!(matches!(
        parse_firefox_profile(&b"{\"meta\":{\"startTime\":1}}"[..]),
        Err(FirefoxProfileError::Missing("threads"))
    ));
    assert!(matches!(
        parse_firefox_profile(&b"{\"threads\":[]}"[..]),
        Err(FirefoxProfileError::Missing("meta"))
    ));
    assert!(matches!(
        parse_firefox_profile(&b"{\"meta\":{\"startTime\":1},\"threads\":[]} x"[..]),
        Err(FirefoxProfileError::Json { .. })
    ));
}

fn tiny_profile(threads: usize, string: &str) -> String {
    let thread = format!(
        r#"{{"name":"t","samples":{{"stack":[0,0],"time":[1,2]}},"stackTable":{{"frame":[0],"prefix":[null]}},"frameTable":{{"func":[0]}},"funcTable":{{"name":[0]}},"stringArray":[{}]}}"#,
        serde_json::to_string(string).expect("string")
    );
    let threads = vec![thread; threads].join(",");
    format!(r#"{{"meta":{{"startTime":0}},"threads":[{threads}]}}"#)
}

#[test]
fn string_limit_edge() {
    let at = "s".repeat(MAX_PROFILE_STRING_BYTES);
    let profile = parse_firefox_profile(tiny_profile(1, &at).as_bytes()).expect("at the limit");
    assert_eq!(
        profile.threads[0].name_of(0).len(),
        MAX_PROFILE_STRING_BYTES
    );
    let over = "s".repeat(MAX_PROFILE_STRING_BYTES + 1);
    let e = parse_firefox_profile(tiny_profile(1, &over).as_bytes()).unwrap_err();
    assert!(matches!(
        e,
        FirefoxProfileError::LimitExceeded(limit)
            if limit.name == "MAX_PROFILE_STRING_BYTES"
                && limit.value == MAX_PROFILE_STRING_BYTES as u64
    ));
    assert_eq!(
        e.to_string(),
        "a string's bytes is over the limit of 1048576 (MAX_PROFILE_STRING_BYTES)"
    );
}

#[test]
fn thread_limit_edge() {
    let profile = parse_firefox_profile(tiny_profile(MAX_PROFILE_THREADS, "x").as_bytes())
        .expect("at the limit");
    assert_eq!(profile.threads.len(), MAX_PROFILE_THREADS);
    assert!(matches!(
        parse_firefox_profile(tiny_profile(MAX_PROFILE_THREADS + 1, "x").as_bytes()),
        Err(FirefoxProfileError::LimitExceeded(Limit {
            name: "MAX_PROFILE_THREADS",
            ..
        }))
    ));
}

#[test]
fn table_limit_edge() {
    let column = |n: usize| {
        let mut s = String::with_capacity(2 * n + 2);
        s.push('[');
        for i in 0..n {
            if i > 0 {
                s.push(',');
            }
            s.push('0');
        }
        s.push(']');
        s
    };
    let profile = |n: usize| {
        format!(
            r#"{{"meta":{{"startTime":0}},"threads":[{{"samples":{{"stack":[],"time":[]}},"stackTable":{{"frame":[],"prefix":[]}},"frameTable":{{"func":{}}},"funcTable":{{"name":[]}},"stringArray":[]}}]}}"#,
            column(n)
        )
    };
    let ok =
        parse_firefox_profile(profile(MAX_PROFILE_TABLE_ROWS).as_bytes()).expect("at the limit");
    assert_eq!(ok.threads[0].nodes().len(), 0);
    assert!(matches!(
        parse_firefox_profile(profile(MAX_PROFILE_TABLE_ROWS + 1).as_bytes()),
        Err(FirefoxProfileError::LimitExceeded(Limit {
            name: "MAX_PROFILE_TABLE_ROWS",
            ..
        }))
    ));
}

#[test]
fn node_and_byte_limit_edges() {
    let json = tiny_profile(3, "x");
    let limits = |nodes, bytes| Limits {
        nodes: LEAN_PROFILE_NODES.with_value(nodes),
        reader: ProfileLimits {
            bytes: LEAN_PROFILE_LIMITS.bytes.with_value(bytes),
            ..LEAN_PROFILE_LIMITS
        },
    };
    let at = parse_with_limits(
        json.as_bytes(),
        limits(3, json.len() as u64),
        ProfileUnit::Nanoseconds,
    )
    .expect("at limits");
    assert_eq!(at.node_count(), 3);
    assert!(matches!(
        parse_with_limits(
            json.as_bytes(),
            limits(2, json.len() as u64),
            ProfileUnit::Nanoseconds
        ),
        Err(FirefoxProfileError::LimitExceeded(Limit {
            name: "MAX_PROFILE_NODES",
            value: 2,
            ..
        }))
    ));
    assert!(matches!(
        parse_with_limits(
            json.as_bytes(),
            limits(3, json.len() as u64 - 1),
            ProfileUnit::Nanoseconds
        ),
        Err(FirefoxProfileError::TooLarge { .. })
    ));
    // the limits are the parse's own: the defaults are the constants
    assert_eq!(LIMITS.nodes.value, MAX_PROFILE_NODES as u64);
}

#[derive(Default)]
struct Samples {
    stack: Vec<u32>,
    time: Vec<String>,
    weight: Vec<String>,
}

impl Samples {
    /// A pair of samples the way Lean writes one busy (or idle) time slice, in ms.
    fn pair(&mut self, stack: u32, a: f64, b: f64, busy: bool) {
        self.stack.extend([stack, stack]);
        self.time.extend([format!("{a}"), format!("{b}")]);
        let w = if busy { b - a } else { 0.0 };
        self.weight.extend(["0".to_string(), format!("{w}")]);
    }
}

#[test]
fn large_generated_profile() {
    // 200 000 nodes on one thread: 20 000 top-level nodes with nine children each, separated
    // by idle slices, written the way Lean writes samples
    let mut s = Samples::default();
    let mut t = 1.0f64;
    for _ in 0..20_000 {
        for _ in 0..9 {
            s.pair(0, t, t + 0.25, true);
            s.pair(1, t + 0.25, t + 1.0, true);
            t += 1.0;
        }
        s.pair(0, t, t + 0.5, true);
        s.pair(0, t + 0.5, t + 0.75, false);
        t += 0.75;
    }
    let json = format!(
        r#"{{"meta":{{"startTime":0}},"threads":[{{"name":"main","isMainThread":true,"samples":{{"stack":{},"time":[{}],"weight":[{}]}},"stackTable":{{"frame":[0,1],"prefix":[null,0]}},"frameTable":{{"func":[0,1]}},"funcTable":{{"name":[0,1]}},"stringArray":["Elab.command","Elab.step"]}}]}}"#,
        serde_json::to_string(&s.stack).expect("json"),
        s.time.join(","),
        s.weight.join(",")
    );
    let profile = parse_firefox_profile(json.as_bytes()).expect("parses");
    let thread = &profile.threads[0];
    assert_eq!(thread.nodes().len(), 200_000);
    assert_eq!(thread.roots().count(), 20_000);
    let first = thread.nodes()[0];
    assert_eq!((first.start_ns, first.end_ns), (1_000_000, 10_500_000));
    let leaf = thread.nodes()[1];
    assert_eq!((leaf.start_ns, leaf.end_ns), (1_250_000, 2_000_000));
    let second = thread.roots().nth(1).expect("second root");
    assert_eq!(thread.nodes()[second].start_ns, 10_750_000);
    assert!(thread.roots().all(|r| thread.children(r).count() == 9));
}

/// A small valid profile whose thread object is `thread`.
fn with_thread(thread: &str) -> String {
    format!(r#"{{"meta":{{"startTime":1000}},"threads":[{thread}]}}"#)
}

const THREAD: &str = r#"{"name":"m","samples":{"stack":[0,0],"time":[1,2]},"stackTable":{"frame":[0],"prefix":[null]},"frameTable":{"func":[0]},"funcTable":{"name":[0]},"stringArray":["x"]}"#;

#[test]
fn any_key_order_whitespace_and_unknown_keys() {
    let json = r#"
    { "threads" : [ {
          "stringArray" : [ "Elab.command: \u0074heorem \ud835\udd3d : True", "b" ] ,
          "unknown" : { "deep" : [ [ 1 , { "x" : [ null , true , "s\"" ] } ] ] , "n" : -1.5e-3 } ,
          "funcTable" : { "name" : [ 0 , 1 ] , "fileName" : [ null , null ] } ,
          "frameTable" : { "func" : [ 0 , 1 ] , "address" : [ -1 , -1 ] } ,
          "stackTable" : { "prefix" : [ null , 0 ] , "frame" : [ 0 , 1 ] , "category" : [ 3 , null ] } ,
          "samples" : { "weight" : [ 0 , 1e+03 , 0 , 2E0 , 0 , 0.5 ] , "time" : [ 1e+03 , 1.5e3 , 1500 , 1750 , 1750 , 2000 ] ,
                        "stack" : [ 0 , 0 , 1 , 1 , 0 , 0 ] , "threadCPUDelta" : [ 0 , 1.5 , 0 , 2 , 0 , 3 ] } ,
          "isMainThread" : true , "name" : "Demo"
        } ] ,
      "libs" : [ ] ,
      "meta" : { "product" : "lean" , "startTime" : 1e+03 , "categories" : [ { "color" : "x" , "name" : "Other" } ] }
    }
    "#;
    let profile = parse_firefox_profile(json.as_bytes()).expect("parses");
    assert_eq!(profile.start_ns, 1_000_000_000);
    assert_eq!(profile.categories, vec!["Other"]);
    let t = &profile.threads[0];
    assert!(t.is_main_thread);
    assert_eq!(t.name, "Demo");
    assert_eq!(t.name_of(0), "Elab.command: theorem 𝔽 : True");
    assert_eq!(t.name_of(1), "b");
    let span = |id: usize| (t.nodes()[id].start_ns, t.nodes()[id].end_ns);
    assert_eq!(span(0), (1_000_000_000, 2_000_000_000));
    assert_eq!(span(1), (1_500_000_000, 1_750_000_000));
    assert_eq!(t.nodes()[0].category, Some(3));
    assert_eq!(t.nodes()[1].category, None);
}

#[test]
fn times_are_exact_decimals() {
    // no binary floating point: 0.1 + 0.2 style values come out exact, and large
    // monotonic clock values keep every digit
    let json = with_thread(
        r#"{"samples":{"stack":[0,0],"time":[0.1,1099511627775.123456]},"stackTable":{"frame":[0],"prefix":[null]},"frameTable":{"func":[0]},"funcTable":{"name":[0]},"stringArray":["x"]}"#,
    );
    let profile = parse_firefox_profile(json.as_bytes()).expect("parses");
    let node = profile.threads[0].nodes()[0];
    assert_eq!(node.start_ns, 100_000);
    assert_eq!(node.end_ns, 1_099_511_627_775_123_456);
    // a time that is not one is reported when the rebuild reaches it
    let json = with_thread(
        r#"{"samples":{"stack":[0,0],"time":[1,-2.5]},"stackTable":{"frame":[0],"prefix":[null]},"frameTable":{"func":[0]},"funcTable":{"name":[0]},"stringArray":["x"]}"#,
    );
    match parse_firefox_profile(json.as_bytes()) {
        Err(FirefoxProfileError::Invalid { thread: 0, reason }) => {
            assert_eq!(reason, "sample 1 has time -2.5 ms")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn schema_errors_are_json_errors() {
    let cases = [
        // a missing required column, a duplicated one, a wrong type
        with_thread(&THREAD.replace(r#","stringArray":["x"]"#, "")),
        with_thread(&THREAD.replace(r#""name":"m","#, r#""name":"m","name":"n","#)),
        with_thread(&THREAD.replace(r#""stack":[0,0]"#, r#""stack":[0,0.5]"#)),
        with_thread(&THREAD.replace(r#""stack":[0,0]"#, r#""stack":[0,-1]"#)),
        with_thread(&THREAD.replace(r#""stack":[0,0]"#, r#""stack":[0,4294967296]"#)),
        with_thread(&THREAD.replace(r#""time":[1,2]"#, r#""time":[1,null]"#)),
        with_thread(&THREAD.replace(r#""prefix":[null]"#, r#""prefix":null"#)),
        with_thread(&THREAD.replace(r#""name":"m""#, r#""isMainThread":1"#)),
        with_thread(&THREAD.replace(r#""x""#, r#""\ud800""#)),
        with_thread(THREAD).replace("1000", "1000,\"startTime\":2"),
        with_thread(THREAD).replace(r#""startTime":1000"#, r#""product":"lean""#),
    ];
    for json in &cases {
        match parse_firefox_profile(json.as_bytes()) {
            Err(FirefoxProfileError::Json { line: 1, .. }) => {}
            other => panic!("expected a JSON error for {json}: {other:?}"),
        }
    }
    assert!(parse_firefox_profile(with_thread(THREAD).as_bytes()).is_ok());
}

#[test]
fn truncated_profiles_are_errors() {
    let json = with_thread(THREAD);
    for cut in 0..json.len() {
        assert!(
            parse_firefox_profile(&json.as_bytes()[..cut]).is_err(),
            "{}",
            &json[..cut]
        );
    }
    match parse_firefox_profile(&json.as_bytes()[..json.len() - 10]) {
        Err(FirefoxProfileError::Json { reason, .. }) => {
            assert!(reason.contains("EOF"), "{reason}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn invalid_utf8_is_a_json_error() {
    let mut json = with_thread(THREAD).into_bytes();
    let at = json.iter().position(|&b| b == b'x').expect("x");
    json[at] = 0xff;
    assert!(matches!(
        parse_firefox_profile(&json[..]),
        Err(FirefoxProfileError::Json { .. })
    ));
}

#[test]
fn a_file_over_the_byte_limit_is_refused_unread() {
    // a sparse file that claims more than MAX_PROFILE_BYTES
    let file = tempfile::tempfile().expect("temp file");
    file.set_len(MAX_PROFILE_BYTES + 1).expect("sparse");
    assert!(matches!(
        parse_firefox_profile_file(file),
        Err(FirefoxProfileError::TooLarge { limit }) if limit.value == MAX_PROFILE_BYTES
    ));
    // a reader that goes on past the limit is stopped there, without holding the input
    let endless = std::io::repeat(b' ');
    let json = with_thread(THREAD);
    let limits = Limits {
        reader: ProfileLimits {
            bytes: LEAN_PROFILE_LIMITS.bytes.with_value(1 << 20),
            ..LEAN_PROFILE_LIMITS
        },
        ..LIMITS
    };
    assert!(matches!(
        parse_with_limits(json.as_bytes().chain(endless), limits, ProfileUnit::Nanoseconds),
        Err(FirefoxProfileError::TooLarge { limit }) if limit.value == 1 << 20
    ));
}
