//! `leanscope profile FILE` end to end: the real binary, the fake Lean
//! replaying fixtures/lean-output, and recordings checked value by value.

mod common;

use common::{find, text, World};
use recording::model::{declaration_times, line_rows, tactic_rows};
use recording::{CaptureStatus, ClockKind, RangeKind, Recording, Severity};

fn capture(w: &World, file: &str) -> (Recording, std::process::Output) {
    let out_path = w.path(&format!("{}.lsrec", file.replace('/', "_")));
    let out = w.profile_command(file, &out_path).output().unwrap();
    let rec =
        Recording::open(&out_path).unwrap_or_else(|e| panic!("{e}; stderr: {}", text(&out.stderr)));
    (rec, out)
}

#[test]
fn clean_file_with_nested_tactics_on_worker_threads() {
    let w = World::new();
    let (rec, out) = capture(&w, "Demo/Clean.lean");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout).trim(),
        w.path("Demo_Clean.lean.lsrec").to_str().unwrap()
    );
    let h = &rec.header;
    assert_eq!(
        (h.module_name.as_str(), h.source_path.as_str()),
        ("Demo.Clean", "Demo/Clean.lean")
    );
    assert_eq!(
        (h.lean_version.as_str(), h.toolchain.as_str()),
        ("4.31.0", "leanprover/lean4:v4.31.0")
    );
    assert_eq!(
        (h.clock, h.status, h.threshold_ns),
        (ClockKind::Measured, CaptureStatus::Ok, 1_000_000)
    );
    assert_eq!(
        h.source_text,
        std::fs::read_to_string(w.project.join("Demo/Clean.lean")).unwrap()
    );
    assert_eq!(rec.active_thread_count(), 3);
    let names: Vec<_> = h.declarations.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "Demo.Clean.double",
            "Demo.Clean.double_add",
            "Demo.Clean.length_append_comm",
            "Demo.Clean.le_double",
            "Demo.Clean.cases_example"
        ]
    );
    assert_eq!(rec.issue_count, 0, "{:?}", rec.issues);

    // The command of double_add: Lean reported its start, and its own text
    // locates it: lines 7-9 (0-based 6-8), ending after `omega`.
    let cmd = find(&rec, "Elab.command", "theorem double_add");
    let r = rec.range(cmd).unwrap();
    assert_eq!(
        (r.start_line, r.start_col, r.end_line, r.end_col),
        (6, 0, 8, 7)
    );
    assert_eq!(rec.range_kind(cmd), RangeKind::Exact);
    // Its proof ran on a worker thread, linked to the command.
    let proof = find(
        &rec,
        "Elab.async",
        "elaborating proof of Demo.Clean.double_add",
    );
    assert_eq!(rec.parent(proof), Some(cmd));
    assert_ne!(rec.thread(proof), rec.thread(cmd));

    // `omega` found in the source: 0-based line 8, columns 2-7, matched. Its
    // time agrees with Lean's own profiler line (6.22ms, three digits).
    let rows = tactic_rows(&rec);
    let omega = rows
        .iter()
        .find(|t| t.label == "omega" && t.range.start_line == 8)
        .unwrap();
    assert_eq!(
        (omega.range.start_col, omega.range.end_col, omega.range_kind),
        (2, 7, RangeKind::Matched)
    );
    let ns = omega.time.total_ns as f64;
    assert!(
        (ns - 6.22e6).abs() / 6.22e6 < 0.005,
        "omega took {ns} ns, Lean said 6.22ms"
    );

    // The declaration counts its asynchronous proof: more than its command.
    let times = declaration_times(&rec);
    let double_add = times[1].unwrap();
    assert!(double_add.total_ns >= rec.inclusive_ns(proof));
    assert!(double_add.total_ns > rec.inclusive_ns(cmd));
    assert!(times.iter().all(Option::is_some));

    // Line bars: line 9 (0-based 8) holds at least omega's time.
    let line8 = line_rows(&rec).into_iter().find(|l| l.line == 8).unwrap();
    assert!(line8.time.total_ns >= omega.time.total_ns);
    // Lean's elapsed time (runFrontend) covers the import.
    let import = find(&rec, "Import", "importing");
    assert!(h.elapsed_ns.unwrap() > rec.inclusive_ns(import));
    // Nothing left behind in the project but .leanscope/tmp (empty).
    let tmp = w.project.join(".leanscope/tmp");
    assert_eq!(std::fs::read_dir(&tmp).unwrap().count(), 0);
}

#[test]
fn non_bmp_characters_shift_utf16_columns() {
    let w = World::new();
    let (rec, out) = capture(&w, "Demo/Unicode.lean");
    assert!(out.status.success(), "{}", text(&out.stderr));
    // `theorem 𝔽_refl (x : 𝔽) : x = x := by rfl`: 40 codepoints, 42 UTF-16 units.
    let cmd = find(&rec, "Elab.command", "theorem 𝔽_refl");
    let r = rec.range(cmd).unwrap();
    assert_eq!((r.start_line, r.end_line, r.end_col), (8, 8, 42));
    let rfl = tactic_rows(&rec)
        .into_iter()
        .find(|t| t.label == "rfl")
        .unwrap();
    assert_eq!(
        (rfl.range.start_line, rfl.range.start_col, rfl.range.end_col),
        (8, 39, 42)
    );
    let line = rec.header.source_text.lines().nth(8).unwrap();
    let cols: Vec<u16> = line.encode_utf16().collect();
    assert_eq!(String::from_utf16(&cols[39..42]).unwrap(), "rfl");
}

#[test]
fn a_file_with_an_error_keeps_its_diagnostics_and_exits_1() {
    let w = World::new();
    let (rec, out) = capture(&w, "Demo/Broken.lean");
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("Lean reported 1 errors"));
    let h = &rec.header;
    assert_eq!(h.status, CaptureStatus::Error);
    assert_eq!(h.clock, ClockKind::DurationsOnly);
    let errors: Vec<_> = h
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .collect();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].text, "Unknown identifier `Nat.zero_add_typo`");
    let r = errors[0].range;
    assert_eq!(
        (r.start_line, r.start_col, r.end_line, r.end_col),
        (8, 8, 8, 25)
    );
    assert!(h
        .notes
        .iter()
        .any(|n| n.contains("no timed trace because the file has errors")));
    // Both commands still have their profiler totals, placed at their lines.
    let times = declaration_times(&rec);
    assert!(times.iter().all(Option::is_some));
    let cmds: Vec<_> = rec
        .roots()
        .filter(|&i| rec.class(i) == "Elab.command")
        .collect();
    assert_eq!(cmds.len(), 2);
    assert_eq!(rec.range(cmds[1]).unwrap().start_line, 7);
    // Lean reported the command's start (its `elaboration took` line): exact
    assert_eq!(rec.range_kind(cmds[1]), RangeKind::Exact);
    // 1.2ms elaboration + 2.08ms tactic execution.
    assert_eq!(rec.inclusive_ns(cmds[1]), 3_280_000);
}

#[test]
fn import_heavy_file() {
    let w = World::new();
    let (rec, out) = capture(&w, "Demo/Imports.lean");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let import = find(&rec, "Import", "importing");
    // Lean's stderr says `import took 1.85s`.
    let ns = rec.inclusive_ns(import) as f64;
    assert!((ns - 1.85e9).abs() / 1.85e9 < 0.005, "{ns}");
    assert!(rec.header.elapsed_ns.unwrap() >= rec.inclusive_ns(import));
    // `open Std in def …`: the inner command is matched inside the outer.
    let inner = find(&rec, "Elab.command", "def wordCounts");
    assert_eq!(rec.class(rec.parent(inner).unwrap()), "Elab.command");
    assert_eq!(rec.range_kind(inner), RangeKind::Matched);
}

#[test]
fn async_proofs_on_three_workers() {
    let w = World::new();
    let (rec, out) = capture(&w, "Demo/Async.lean");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(rec.active_thread_count(), 4);
    let asyncs: Vec<u32> = (0..rec.len() as u32)
        .filter(|&i| rec.class(i) == "Elab.async")
        .collect();
    assert_eq!(asyncs.len(), 5);
    for a in asyncs {
        let cmd = rec.parent(a).expect("linked to its command");
        assert_eq!(rec.class(cmd), "Elab.command");
        assert_eq!(rec.thread(cmd), 0);
        // Cross-thread children are never subtracted from their command.
        let kids_on_main: u64 = rec
            .children(cmd)
            .iter()
            .filter(|&&c| rec.thread(c) == 0)
            .map(|&c| rec.inclusive_ns(c))
            .sum();
        assert!(rec.self_ns(cmd) >= rec.inclusive_ns(cmd).saturating_sub(kids_on_main));
    }
}

#[test]
fn older_lean_without_profile_output_uses_trace_messages() {
    let w = World::new();
    let out_path = w.path("old.lsrec");
    let out = w
        .command(&[
            "profile",
            "Demo/Clean.lean",
            "-o",
            out_path.to_str().unwrap(),
        ])
        .env("LEANSCOPE_FAKE_TOOLCHAIN", "v4.7.0")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let rec = Recording::open(&out_path).unwrap();
    assert_eq!(rec.header.lean_version, "4.7.0");
    assert_eq!(rec.header.clock, ClockKind::DurationsOnly);
    assert!(rec
        .header
        .notes
        .iter()
        .any(|n| n.contains("cannot write trace.profiler.output (added in 4.8.0)")));
    // Command ranges come from Lean's pos/endPos: exact.
    let cmd = find(&rec, "Elab.command", "theorem double_add");
    let r = rec.range(cmd).unwrap();
    assert_eq!(
        (r.start_line, r.end_line, r.end_col, rec.range_kind(cmd)),
        (6, 8, 7, RangeKind::Exact)
    );
    // `[0.010215s]` in the old header style (proofs were synchronous then).
    assert_eq!(rec.inclusive_ns(cmd), 10_215_000);
    // Nested steps are found in the command's text: `[0.006238s] omega`.
    let omega = tactic_rows(&rec)
        .into_iter()
        .find(|t| t.label == "omega" && t.range.start_line == 8)
        .unwrap();
    assert_eq!(
        (omega.range.start_col, omega.range_kind, omega.time.total_ns),
        (2, RangeKind::Matched, 6_238_000)
    );
}

#[test]
fn huge_output_with_200k_trace_nodes() {
    let w = World::new();
    let (rec, out) = capture(&w, "Demo/Huge.lean");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(rec.len() >= 200_000, "{}", rec.len());
    assert_eq!(rec.active_thread_count(), 5);
    assert_eq!(rec.issue_count, 0, "{:?}", rec.issues.first());
}

#[test]
fn missing_toolchain_and_files_outside_a_project_are_named() {
    let w = World::new();
    let out = w
        .command(&["profile", "Demo/Clean.lean"])
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let err = text(&out.stderr);
    assert!(
        err.contains("cannot find lake: looked for lake on PATH,")
            && err.contains(".elan/bin/lake"),
        "{err}"
    );

    let lone = w.path("Lone.lean");
    std::fs::write(&lone, "theorem t : True := trivial\n").unwrap();
    let out = w.run(&["profile", lone.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(3));
    assert!(
        text(&out.stderr).contains("is not inside a Lean project"),
        "{}",
        text(&out.stderr)
    );

    let out = w.run(&["profile", "Demo/Nope.lean"]);
    assert_eq!(out.status.code(), Some(3));
    assert!(text(&out.stderr).contains("Demo/Nope.lean does not exist"));
}

#[test]
fn default_output_goes_under_dot_leanscope() {
    let w = World::new();
    let out = w.run(&["profile", "Demo/Clean.lean", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let path = std::path::PathBuf::from(v["recording"].as_str().unwrap());
    let dir = w
        .project
        .join(".leanscope/recordings")
        .canonicalize()
        .unwrap();
    assert_eq!(path.parent().unwrap(), dir);
    let name = path.file_name().unwrap().to_str().unwrap();
    assert!(
        name.starts_with("Demo.Clean-") && name.ends_with("Z.lsrec"),
        "{name}"
    );
    assert_eq!(v["status"], "ok");
    assert_eq!(v["module"], "Demo.Clean");
    assert!(v["events"].as_u64().unwrap() > 30);
    assert!(Recording::open(&path).is_ok());
}
