//! End to end through the real `leanscope` binary: synth and info.

use std::path::Path;
use std::process::{Command, Output};

fn leanscope(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_leanscope"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run leanscope")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn synth_is_byte_for_byte_deterministic() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["a.lsrec", "b.lsrec"] {
        let out = leanscope(
            &[
                "synth",
                "--seed",
                "9",
                "--events",
                "20000",
                "--threads",
                "3",
                "-o",
                name,
            ],
            dir.path(),
        );
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert_eq!(text(&out.stdout).trim(), name);
    }
    let a = std::fs::read(dir.path().join("a.lsrec")).unwrap();
    let b = std::fs::read(dir.path().join("b.lsrec")).unwrap();
    assert_eq!(a, b);
    let out = leanscope(
        &[
            "synth",
            "--seed",
            "10",
            "--events",
            "20000",
            "--threads",
            "3",
            "-o",
            "c.lsrec",
        ],
        dir.path(),
    );
    assert!(out.status.success());
    assert_ne!(a, std::fs::read(dir.path().join("c.lsrec")).unwrap());
}

#[test]
fn info_reports_header_facts_counts_and_validation() {
    let dir = tempfile::tempdir().unwrap();
    let out = leanscope(
        &[
            "synth",
            "--seed",
            "3",
            "--events",
            "1000",
            "--threads",
            "2",
            "-o",
            "s.lsrec",
        ],
        dir.path(),
    );
    assert!(out.status.success());
    let out = leanscope(&["info", "s.lsrec", "--json"], dir.path());
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["events"], 1000);
    assert_eq!(v["schemaVersion"], 1);
    assert_eq!(v["capture"]["mode"], "synthetic");
    assert_eq!(v["capture"]["clock"], "synthetic");
    assert_eq!(v["source"]["module"], "Synth.Seed3");
    assert_eq!(v["threadsWithEvents"], 2);
    // 1000 events at 64 per declaration: 16 declarations, all timed.
    assert_eq!(v["declarations"], 16);
    assert_eq!(v["declarationsWithTime"], 16);
    assert_eq!(v["validation"]["issueCount"], 0);
    let sha = v["source"]["sha256"].as_str().unwrap();
    assert_eq!(sha.len(), 64);

    let out = leanscope(&["info", "s.lsrec"], dir.path());
    let t = text(&out.stdout);
    assert!(t.contains("events        1000 on 2 of 2 threads"), "{t}");
    assert!(
        t.contains("declarations  16 (16 with recorded time)"),
        "{t}"
    );
    assert!(t.contains("validation    no issues"), "{t}");
}

#[test]
fn info_names_the_problem_with_a_bad_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("empty.lsrec"), b"").unwrap();
    std::fs::write(dir.path().join("json.lsrec"), b"{\"traceEvents\":[]}").unwrap();
    let cases = [
        (
            "empty.lsrec",
            "the file is empty, not a leanscope recording",
        ),
        ("json.lsrec", "not a leanscope recording (wrong magic bytes"),
        ("missing.lsrec", "No such file or directory"),
    ];
    for (file, want) in cases {
        let out = leanscope(&["info", file], dir.path());
        assert_eq!(out.status.code(), Some(2));
        let err = text(&out.stderr);
        assert!(
            err.contains(&format!("cannot read the recording {file}")) && err.contains(want),
            "{err}"
        );
        assert!(!err.contains("panicked"));
    }
}

#[test]
fn synth_refuses_bad_arguments_and_leaves_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = leanscope(
        &["synth", "--events", "10", "--threads", "0", "-o", "z.lsrec"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("thread count must be between 1 and 65536, not 0"));
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "no partial file"
    );
    let out = leanscope(&["synth", "--events", "ten"], dir.path());
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_reader_that_goes_away_ends_the_report_quietly() {
    use std::io::Read;
    use std::process::Stdio;
    let dir = tempfile::tempdir().unwrap();
    let out = leanscope(
        &["synth", "--events", "50000", "--seed", "3", "-o", "r.lsrec"],
        dir.path(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    // `leanscope info --tree r.lsrec | head -c 10`: the reader closes the
    // pipe after a few bytes; the tree is far longer than a pipe's buffer.
    let mut child = Command::new(env!("CARGO_BIN_EXE_leanscope"))
        .args(["info", "--tree", "r.lsrec"])
        .current_dir(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 10];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    let stderr = text(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stderr.is_empty(), "nothing to say: {stderr}");
}

/// `leanscope --help` lists the commands in the order a user meets them; the test tools
/// are not among them but are named after the list, and still answer.
#[test]
fn help_lists_the_users_commands_in_order_and_the_test_tools_apart() {
    let dir = tempfile::tempdir().unwrap();
    let out = leanscope(&["--help"], dir.path());
    assert!(out.status.success());
    let help = text(&out.stdout);
    let listed: Vec<&str> = help
        .split("Commands:")
        .nth(1)
        .and_then(|rest| rest.split("\n\n").next())
        .expect("a Commands: section")
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(
        listed,
        [
            "profile",
            "view",
            "publish",
            "info",
            "query",
            "top",
            "headroom",
            "summary",
            "compare",
            "revisions",
            "import",
            "export",
            "session",
            "serve",
            "mcp",
            "bench",
            "help"
        ],
        "{help}"
    );
    assert!(
        help.contains("Test tools (not listed above): `synth`"),
        "{help}"
    );
    for tool in ["synth", "synth-session"] {
        let out = leanscope(&[tool, "--help"], dir.path());
        assert!(out.status.success(), "{tool}: {}", text(&out.stderr));
    }
}
