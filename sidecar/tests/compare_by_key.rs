//! Diff by kind of work: `compare --group-by key` of two captures through the fake toolchain,
//! where only the `simp` step got slower.

mod common;

use common::World;

/// A file whose `simp` step costs `simp_ms` and whose `omega` step costs 40 ms.
fn capture(w: &World, name: &str, simp_ms: u32) -> String {
    std::fs::create_dir_all(w.project.join("Keys")).unwrap();
    let file = format!("Keys/{name}.lean");
    std::fs::write(
        w.project.join(&file),
        format!(
            "theorem t (n : Nat) : n + 0 = n := by\n  simp only [Nat.add_zero] -- leanscope-fake: cost {simp_ms}ms\n  omega -- leanscope-fake: cost 40ms\n"
        ),
    )
    .unwrap();
    let out = w.path(&format!("{name}.lsrec"));
    let o = w.profile_command(&file, &out).output().unwrap();
    assert!(o.status.success(), "{}", common::text(&o.stderr));
    out.to_str().unwrap().to_owned()
}

#[test]
fn the_kind_of_work_that_got_slower_is_the_regression() {
    let w = World::new();
    let base = capture(&w, "Base", 40);
    let cand = capture(&w, "Cand", 400);
    let o = w.run(&[
        "compare",
        &base,
        &cand,
        "--group-by",
        "key",
        "--absolute-tolerance",
        "100000000",
        "--json",
        "-",
    ]);
    // Exit 1: a regression.
    assert_eq!(o.status.code(), Some(1), "{}", common::text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["group_by"], "key");
    let rows = v["matched"].as_array().unwrap();
    let status = |class: &str, name: &str| {
        rows.iter()
            .find(|r| r["key"]["class"] == class && r["key"]["name"] == name)
            .unwrap_or_else(|| panic!("no row {class} {name} in {rows:?}"))["status"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    // The step `simp only [Nat.add_zero]` is keyed by its tactic's name.
    assert_eq!(status("Elab.step", "simp"), "regression");
    assert_eq!(status("Elab.step", "omega"), "within_tolerance");
}
