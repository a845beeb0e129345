//! `leanscope session merge` of 8 shards of a synthetic 10,000-file,
//! 1,000,000-row session, then `query` top-20 on the merged session, end
//! to end (process start included).
//!
//! Run: `cargo bench -p leanscope --bench merge`. The shards are cut from
//! `leanscope synth --session` with the same partition `profile --shard`
//! uses (by the files' times); every committed file names a hard link to
//! one small real recording, so the merge links 10,000 recordings as it
//! would after a real sharded capture. Prints the median and best wall
//! time and the CPU time of the real binary, and its peak resident memory.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use recording::session::shard::{Balance, ShardInfo, ShardPlan, Weighted, PLAN_FILE};
use recording::session::{write_row, IndexRow, Manifest, FILES_DIR, INDEX_FILE, MANIFEST_FILE};

/// The targets of issue 23.
const MERGE_TARGET_MS: f64 = 5000.0;
const QUERY_TARGET_MS: f64 = 300.0;
const SHARDS: u32 = 8;
const FILES: u32 = 10_000;
const ROWS: u64 = 1_000_000;
const MERGE_RUNS: usize = 3;
const QUERY_RUNS: usize = 7;

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_leanscope")
}

fn leanscope(args: &[&str]) {
    let st = Command::new(bin())
        .args(args)
        .stdout(Stdio::null())
        .status()
        .expect("run leanscope");
    assert!(st.success(), "leanscope {args:?} failed");
}

/// Cuts the synthetic session `whole` into `SHARDS` shard sessions.
fn make_shards(whole: &Path, recording: &Path, root: &Path) -> Vec<PathBuf> {
    let dirs: Vec<PathBuf> = (1..=SHARDS)
        .map(|k| root.join(format!("shard-{k}")))
        .collect();
    if root.join("shards-done").is_file() {
        return dirs;
    }
    let m = Manifest::from_json(&std::fs::read(whole.join(MANIFEST_FILE)).unwrap()).unwrap();
    let weighted: Vec<Weighted> = m
        .files
        .iter()
        .map(|f| Weighted {
            path: f.path.clone(),
            module: f.module.clone(),
            weight: f.time_ns().unwrap_or(0),
        })
        .collect();
    let plan = ShardPlan::cut(
        m.target.clone(),
        m.threshold_ms,
        SHARDS,
        Balance::Session,
        weighted,
    );
    let shard_of: HashMap<&str, u32> = plan
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.shard))
        .collect();
    // Old file id -> (shard, new id).
    let mut place = vec![(0u32, 0u32); m.files.len()];
    let mut manifests: Vec<Manifest> = Vec::new();
    for (k, dir) in dirs.iter().enumerate() {
        let _ = std::fs::remove_dir_all(dir);
        std::fs::create_dir_all(dir.join(FILES_DIR)).unwrap();
        std::fs::write(dir.join(PLAN_FILE), plan.to_json()).unwrap();
        let mut s = m.clone();
        s.files.clear();
        s.notes.clear();
        s.shard = Some(ShardInfo {
            index: k as u32 + 1,
            count: SHARDS,
            plan_digest: plan.digest.clone(),
            plan_files: plan.files.len() as u64,
            balance: Balance::Session,
            git_commit: Some("0123456789abcdef0123456789abcdef01234567".into()),
        });
        manifests.push(s);
    }
    for f in &m.files {
        let k = shard_of[f.path.as_str()] as usize - 1;
        let s = &mut manifests[k];
        let id = s.files.len() as u32;
        place[f.id as usize] = (k as u32, id);
        let mut e = f.clone();
        e.id = id;
        let rel = format!(
            "{FILES_DIR}/{id:05}-{}-{}.lsrec",
            f.module,
            f.capture.unwrap_or(0)
        );
        std::fs::hard_link(recording, dirs[k].join(&rel)).unwrap();
        e.recording = Some(rel);
        s.files.push(e);
    }
    let mut outs: Vec<BufWriter<File>> = dirs
        .iter()
        .map(|d| BufWriter::with_capacity(1 << 20, File::create(d.join(INDEX_FILE)).unwrap()))
        .collect();
    let mut bytes = vec![0u64; dirs.len()];
    let mut line = Vec::new();
    let mut row_line = Vec::new();
    let mut r = BufReader::new(File::open(whole.join(INDEX_FILE)).unwrap());
    loop {
        line.clear();
        if r.read_until(b'\n', &mut line).unwrap() == 0 {
            break;
        }
        let mut row: IndexRow = serde_json::from_slice(&line).unwrap();
        let (k, id) = place[row.file as usize];
        row.file = id;
        row_line.clear();
        write_row(&row, &mut row_line);
        outs[k as usize].write_all(&row_line).unwrap();
        bytes[k as usize] += row_line.len() as u64;
    }
    for (k, (mut s, out)) in manifests.into_iter().zip(outs).enumerate() {
        out.into_inner().unwrap().sync_all().unwrap();
        s.index_bytes = bytes[k];
        s.recount();
        std::fs::write(dirs[k].join(MANIFEST_FILE), s.to_json()).unwrap();
    }
    std::fs::write(root.join("shards-done"), b"").unwrap();
    dirs
}

struct Run {
    wall_ms: f64,
    cpu_ms: f64,
    max_rss_kb: i64,
}

// The child is reaped by `wait4` (which also gives its resource usage).
#[allow(clippy::zombie_processes)]
fn run_once(args: &[String]) -> Run {
    let t = Instant::now();
    let child = Command::new(bin())
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn leanscope");
    let mut status = 0;
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waiting for our own child with valid out-pointers.
    let r = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    let wall_ms = t.elapsed().as_secs_f64() * 1e3;
    assert_eq!(r, child.id() as i32);
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "leanscope {args:?} failed"
    );
    let tv = |t: libc::timeval| t.tv_sec as f64 * 1e3 + t.tv_usec as f64 / 1e3;
    Run {
        wall_ms,
        cpu_ms: tv(usage.ru_utime) + tv(usage.ru_stime),
        max_rss_kb: usage.ru_maxrss,
    }
}

fn report(name: &str, mut runs: Vec<Run>) -> f64 {
    runs.sort_by(|a, b| a.wall_ms.total_cmp(&b.wall_ms));
    let median = runs[runs.len() / 2].wall_ms;
    let best = runs[0].wall_ms;
    let mut cpu: Vec<f64> = runs.iter().map(|r| r.cpu_ms).collect();
    cpu.sort_by(f64::total_cmp);
    let rss = runs.iter().map(|r| r.max_rss_kb).max().unwrap_or(0);
    println!(
        "{name:<44} wall median {median:8.1} ms  best {best:8.1} ms  cpu median {:8.1} ms  peak RSS {:6.1} MiB  ({} runs)",
        cpu[cpu.len() / 2],
        rss as f64 / 1024.0,
        runs.len()
    );
    median
}

fn main() {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("merge-bench");
    std::fs::create_dir_all(&root).unwrap();
    let whole = root.join("whole");
    if !whole.join(MANIFEST_FILE).is_file() {
        let _ = std::fs::remove_dir_all(&whole);
        leanscope(&[
            "synth",
            "--session",
            whole.to_str().unwrap(),
            "--files",
            &FILES.to_string(),
            "--rows",
            &ROWS.to_string(),
        ]);
    }
    let rec = root.join("one.lsrec");
    if !rec.is_file() {
        leanscope(&["synth", "--events", "200", "-o", rec.to_str().unwrap()]);
    }
    let shards = make_shards(&whole, &rec, &root);
    let index_mb: f64 = shards
        .iter()
        .map(|d| std::fs::metadata(d.join(INDEX_FILE)).map_or(0, |m| m.len()))
        .sum::<u64>() as f64
        / 1e6;
    println!(
        "{SHARDS} shards of a synthetic session: {FILES} files, {ROWS} index rows, index.jsonl {index_mb:.0} MB in all"
    );
    let merged = root.join("merged");
    let mut runs = Vec::new();
    for _ in 0..MERGE_RUNS {
        let _ = std::fs::remove_dir_all(&merged);
        let mut args = vec!["session".to_string(), "merge".to_string()];
        args.extend(shards.iter().map(|d| d.display().to_string()));
        args.extend(["-o".to_string(), merged.display().to_string()]);
        runs.push(run_once(&args));
    }
    let merge_ms = report("session merge, 8 shards, 1M rows", runs);
    let m = Manifest::from_json(&std::fs::read(merged.join(MANIFEST_FILE)).unwrap()).unwrap();
    let lines = std::fs::read(merged.join(INDEX_FILE))
        .unwrap()
        .iter()
        .filter(|&&b| b == b'\n')
        .count();
    assert_eq!(m.counts.completed, u64::from(FILES));
    assert_eq!(lines as u64, ROWS);
    println!(
        "merged: {} files committed, {lines} index rows, status {}",
        m.counts.completed,
        m.status.as_str()
    );
    let q: Vec<String> = [
        "query",
        merged.to_str().unwrap(),
        "--kind",
        "declaration",
        "--limit",
        "20",
        "--json",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    run_once(&q); // warm the page cache
    let query_ms = report(
        "query top-20 declarations, merged",
        (0..QUERY_RUNS).map(|_| run_once(&q)).collect(),
    );
    let verdict = |ms: f64, target: f64| {
        if ms <= target {
            "met"
        } else {
            "NOT met (see cpu time and machine load)"
        }
    };
    println!(
        "target: merge <= {MERGE_TARGET_MS} ms: median {merge_ms:.1} ms -> {}",
        verdict(merge_ms, MERGE_TARGET_MS)
    );
    println!(
        "target: query top-20 on the merged session <= {QUERY_TARGET_MS} ms: median {query_ms:.1} ms -> {}",
        verdict(query_ms, QUERY_TARGET_MS)
    );
}
