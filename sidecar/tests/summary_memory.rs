//! Benchmark (ignored; run with `cargo test -p leanscope --release --test
//! summary_memory -- --ignored --nocapture`): resident memory of
//! `leanscope summary --json -` on a 1M-event synthetic recording and on
//! recordings imported from folded stacks with 1M and 3M distinct stacks
//! (issue 19's targets: 256 MB for the 1M-event recording, 1 GB for 3M
//! distinct stacks; 1M distinct stacks has none and is shown for scale). Prints the peak resident size of the
//! `leanscope` process (`wait4`'s `ru_maxrss`) and bytes per result row.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

fn leanscope(args: &[&str]) -> std::process::Output {
    let out = Command::new(env!("CARGO_BIN_EXE_leanscope"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Peak resident bytes of `leanscope summary INPUT --json -`, and the rows
/// it printed (its output is counted as it streams, not kept).
// The child is reaped by `wait4` (for its rusage), not `Child::wait`.
#[allow(clippy::zombie_processes)]
fn summary_peak(input: &Path) -> (u64, u64) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_leanscope"))
        .args(["summary", input.to_str().unwrap(), "--json", "-"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let counter = std::thread::spawn(move || {
        use std::io::Read;
        const NEEDLE: &[u8] = b"\"share_permille\"";
        let mut buf = vec![0u8; 1 << 16];
        // The last bytes of the previous read, so a key split across two
        // reads is counted once.
        let mut carry: Vec<u8> = Vec::new();
        let mut rows = 0u64;
        loop {
            let n = stdout.read(&mut buf).unwrap();
            if n == 0 {
                break rows;
            }
            carry.extend_from_slice(&buf[..n]);
            rows += memchr_count(&carry, NEEDLE);
            let keep = carry.len().min(NEEDLE.len() - 1);
            carry.drain(..carry.len() - keep);
        }
    });
    let mut status = 0;
    // SAFETY: an all-zero rusage is valid; wait4 on our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = child.id() as libc::pid_t;
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(r, pid);
    assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0);
    let rows = counter.join().unwrap();
    (usage.ru_maxrss as u64 * 1024, rows)
}

fn memchr_count(hay: &[u8], needle: &[u8]) -> u64 {
    hay.windows(needle.len()).filter(|w| *w == needle).count() as u64
}

fn folded(path: &Path, stacks: u64) {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    for i in 0..stacks {
        writeln!(f, "Elab.command;Elab.step;step_{i} {}", 100 + i % 977).unwrap();
    }
    f.flush().unwrap();
}

#[test]
#[ignore = "benchmark: minutes and gigabytes; run with --ignored --nocapture"]
fn summary_json_resident_memory() {
    let dir = tempfile::tempdir().unwrap();
    let events = dir.path().join("events-1m.lsrec");
    leanscope(&[
        "synth",
        "--events",
        "1000000",
        "-o",
        events.to_str().unwrap(),
    ]);
    let mut cases = vec![("1M-event synthetic recording", events, Some(256u64 << 20))];
    for (n, target) in [(1_000_000u64, None), (3_000_000, Some(1u64 << 30))] {
        let f = dir.path().join(format!("stacks-{n}.folded"));
        folded(&f, n);
        let rec = dir.path().join(format!("stacks-{n}.lsrec"));
        leanscope(&["import", f.to_str().unwrap(), "-o", rec.to_str().unwrap()]);
        std::fs::remove_file(&f).unwrap();
        cases.push((
            if n == 1_000_000 {
                "1M distinct folded stacks"
            } else {
                "3M distinct folded stacks"
            },
            rec,
            target,
        ));
    }
    for (what, input, target) in cases {
        let (peak, rows) = summary_peak(&input);
        let target = match target {
            Some(t) => format!("target {} MB", t >> 20),
            None => "no target".to_string(),
        };
        println!(
            "summary --json of {what}: {rows} rows, peak resident {:.1} MB ({target}), {} bytes per row",
            peak as f64 / 1e6,
            peak / rows.max(1)
        );
    }
}
