//! `leanscope bench` through the fake toolchain, whose `profiling-cost`
//! directive makes Lean itself slower by a known share when profiling is
//! on: the bench must find that share (within a point, beside a control
//! file of the same cost without it, which leaves leanscope's own cost),
//! run its schedule in the rotated, interleaved order, and write a report
//! that conforms to its schema.

mod common;

use common::World;
use serde_json::Value;

fn lean(cost_ms: u64, profiling_cost: &str) -> String {
    format!(
        "def x := 1\n-- leanscope-fake: cost {cost_ms}ms\n-- leanscope-fake: profiling-cost {profiling_cost}\n"
    )
}

fn bench(w: &World, args: &[&str]) -> Value {
    let out_file = w.dir.path().join("bench.json");
    let mut all = vec!["bench"];
    all.extend_from_slice(args);
    all.extend(["--json", out_file.to_str().unwrap()]);
    let out = w.run(&all);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("aggregate overhead"), "{text}");
    serde_json::from_str(&std::fs::read_to_string(&out_file).unwrap()).unwrap()
}

fn schema_errors(report: &Value) -> Vec<String> {
    let path = common::repo().join("schemas/bench.schema.json");
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    jsonschema::draft202012::new(&schema)
        .unwrap()
        .iter_errors(report)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

#[test]
fn bench_finds_the_known_profiling_cost_within_a_point() {
    let w = World::new();
    std::fs::write(w.project.join("Demo/Costly.lean"), lean(2000, "4%")).unwrap();
    std::fs::write(w.project.join("Demo/Control.lean"), lean(2000, "0%")).unwrap();
    let r = bench(
        &w,
        &["Demo/Costly.lean", "Demo/Control.lean", "--repeats", "3"],
    );
    assert_eq!(schema_errors(&r), Vec::<String>::new());
    let files = r["files"].as_array().unwrap();
    let samples = r["samples"].as_array().unwrap();
    // Each repeat's profiled CPU less what leanscope says it spent itself
    // (reading the output, writing the recording), over the same repeat's
    // plain CPU: Lean's own profiling cost in that repeat, median of the
    // repeats. leanscope's share moves with the machine's load by more than
    // a point; taking it out per run leaves the fake Lean's CPU, which is
    // exact. The control file's figure keeps what the capture cannot see of
    // itself (its process's start and exit, the `lake env` it runs), which
    // still varies by some 10 ms a run on a loaded machine: each file costs
    // 2 s, so that a point is 20 ms.
    let lean_overhead = |path: &str| {
        let file = files.iter().position(|f| f["path"] == path).unwrap() as u64;
        let run = |repeat: u64, mode: &str| {
            samples
                .iter()
                .find(|s| s["file"] == file && s["repeat"] == repeat && s["mode"] == mode)
                .unwrap()
        };
        let mut each: Vec<f64> = (0..3)
            .map(|k| {
                let profiled = run(k, "profiled");
                let own = profiled["leanscope_cpu_ns"].as_u64().unwrap();
                let lean = profiled["cpu_ns"].as_u64().unwrap() - own;
                lean as f64 / run(k, "plain")["cpu_ns"].as_u64().unwrap() as f64 - 1.0
            })
            .collect();
        each.sort_by(f64::total_cmp);
        each[1]
    };
    let (costly, control) = (
        lean_overhead("Demo/Costly.lean"),
        lean_overhead("Demo/Control.lean"),
    );
    eprintln!("Lean's profiling cost: costly {costly:.4}, control {control:.4}");
    assert!(
        (costly - control - 0.04).abs() <= 0.01,
        "costly {costly:.4}, control {control:.4}: {:.4} is not within a point of 4 %",
        costly - control
    );
    // The report's own per-file figures hold leanscope's cost as well.
    for f in files {
        let cpu = f["overhead"]["cpu"].as_f64().unwrap();
        let path = f["path"].as_str().unwrap();
        assert!(cpu >= lean_overhead(path) - 0.01, "{f}");
    }
    for f in files {
        let plain = f["plain"]["cpu"]["median_ns"].as_u64().unwrap();
        assert!(plain >= 2_000_000_000, "{f}");
        assert!(f["leanscope_cpu_median_ns"].as_u64().unwrap() > 0);
    }
    // 2 files × 2 modes × (1 warm-up + 3 repeats), warm-ups first.
    assert_eq!(samples.len(), 16);
    assert!(samples[..4].iter().all(|s| s["repeat"].is_null()));
    let order: Vec<(u64, &str)> = samples[4..]
        .iter()
        .map(|s| (s["file"].as_u64().unwrap(), s["mode"].as_str().unwrap()))
        .collect();
    assert_eq!(
        order,
        vec![
            (0, "plain"),
            (0, "profiled"),
            (1, "plain"),
            (1, "profiled"),
            (1, "profiled"),
            (1, "plain"),
            (0, "profiled"),
            (0, "plain"),
            (0, "plain"),
            (0, "profiled"),
            (1, "plain"),
            (1, "profiled"),
        ]
    );
    assert_eq!(r["repeat_totals"].as_array().unwrap().len(), 3);
    for k in ["wall", "cpu"] {
        let a = &r["aggregate"][k];
        assert!(a["overhead"].is_f64(), "{a}");
        assert!(
            a["min"].as_f64().unwrap() <= a["max"].as_f64().unwrap(),
            "{a}"
        );
        assert!(r["per_file_overhead"][k]["worst_file"].is_string());
    }
    let share = r["leanscope_cpu_share"].as_f64().unwrap();
    assert!(share > 0.0 && share < 0.5, "{share}");
    // The scratch folder with the profiled runs' recordings is gone.
    let work = w.project.join(".leanscope");
    let left: Vec<_> = std::fs::read_dir(&work)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("bench-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_folder_is_benched_file_by_file_and_bad_targets_are_named() {
    let w = World::new();
    let dir = w.project.join("Bench");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("A.lean"), lean(20, "0%")).unwrap();
    std::fs::write(dir.join("B.lean"), lean(20, "0%")).unwrap();
    let r = bench(&w, &["Bench", "--repeats", "1", "--warmup", "0"]);
    let paths: Vec<&str> = r["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, vec!["Bench/A.lean", "Bench/B.lean"]);
    assert_eq!(r["samples"].as_array().unwrap().len(), 4);
    assert_eq!(schema_errors(&r), Vec::<String>::new());

    std::fs::write(w.project.join("notes.txt"), "x").unwrap();
    let out = w.run(&["bench", "notes.txt"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("notes.txt is not a .lean file"));
    let out = w.run(&["bench", "Demo/Clean.lean", "--repeats", "0"]);
    assert_eq!(out.status.code(), Some(2));
    // A run that fails (the fake's misconfiguration exit) stops the bench
    // and says which file and mode.
    std::fs::write(
        w.project.join("Demo/Bad.lean"),
        "-- leanscope-fake: profiling-cost 4\n",
    )
    .unwrap();
    let out = w.run(&["bench", "Demo/Bad.lean", "--repeats", "1", "--warmup", "0"]);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("Demo/Bad.lean plain failed"), "{err}");
    assert!(err.contains("profiling-cost"), "{err}");
}
