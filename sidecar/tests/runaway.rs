//! When Lean does not finish: a stopped capture keeps what Lean reported, names the command
//! in flight, and says why it was stopped; memory is sampled, its peak reported and its growth
//! attributed to the declaration that ran (the fake's `cost`, `alloc`, `hang` and `peak-log`).

mod common;

use std::sync::Mutex;
use std::time::{Duration, Instant};

use common::{text, World};
use recording::{CaptureStatus, Recording, StopReason};

/// The example: four theorems of 300 ms, 200 ms, 5 s and 100 ms.
const BLOW: &str = "\
theorem first : True := by trivial -- leanscope-fake: cost 300ms
theorem second : True := by trivial -- leanscope-fake: cost 200ms
theorem third : True := by trivial -- leanscope-fake: cost 5000ms
theorem fourth : True := by trivial -- leanscope-fake: cost 100ms
";

/// The fake's costs are CPU time and the timeouts wall time: these tests run one at a time, so
/// that they do not slow each other's fake Lean past its timeout on a small machine.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

fn declaration_ms(rec: &Recording, name: &str) -> Option<f64> {
    let times = recording::model::declaration_times(rec);
    rec.header
        .declarations
        .iter()
        .zip(times)
        .find(|(d, _)| d.name == name)
        .and_then(|(_, t)| t.map(|t| t.total_ns as f64 / 1e6))
}

#[test]
fn a_timeout_keeps_the_finished_theorems_and_names_the_one_in_flight() {
    let _serial = one_at_a_time();
    let w = World::new();
    std::fs::write(w.project.join("Demo/Blow.lean"), BLOW).unwrap();
    let out_path = w.path("blow.lsrec");
    let started = Instant::now();
    let out = w.run(&[
        "profile",
        "Demo/Blow.lean",
        "--timeout",
        "2",
        "-o",
        out_path.to_str().unwrap(),
    ]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(started.elapsed() < Duration::from_secs(15), "{stderr}");
    assert!(
        stderr.contains("Lean did not finish within 2 s and was stopped; the recording is partial"),
        "{stderr}"
    );
    let rec = Recording::open(&out_path).unwrap();
    assert_eq!(rec.header.status, CaptureStatus::Stopped);
    let stop = rec
        .header
        .stop
        .clone()
        .expect("a stopped recording says why");
    assert_eq!(stop.reason, StopReason::Timeout);
    assert!(stop.wall_ns >= 2_000_000_000, "{stop:?}");
    // The two finished theorems have their times.
    let first = declaration_ms(&rec, "first").expect("first has its time");
    let second = declaration_ms(&rec, "second").expect("second has its time");
    assert!((first - 300.0).abs() < 1.0, "{first}");
    assert!((second - 200.0).abs() < 1.0, "{second}");
    // The third is in flight: named, placed, open for about the rest of the 2 s.
    let f = stop
        .in_flight
        .clone()
        .expect("the command in flight is named");
    assert_eq!(f.declaration, "third");
    assert_eq!(f.range.start_line, 2);
    // It ran from Lean's last report to the stop.
    assert!(
        f.running_ns > 0 && f.running_ns < stop.wall_ns,
        "{f:?} wall {}",
        stop.wall_ns
    );
    let event = f.event.expect("the open event's index") as u32;
    assert_eq!(rec.class(event), "Elab.command");
    assert!(rec.label(event).starts_with("theorem third"));
    assert_eq!(rec.end(event) - rec.start(event), f.running_ns);
    // The fourth never ran.
    assert_eq!(declaration_ms(&rec, "fourth"), None);
    assert!((0..rec.len() as u32).all(|i| !rec.label(i).contains("fourth")));

    // `info` says it is partial and names the command in flight.
    let info = w.run(&["info", out_path.to_str().unwrap()]);
    let info = text(&info.stdout);
    assert!(info.contains("status        stopped"), "{info}");
    assert!(
        info.contains("partial       Lean did not finish within 2 s"),
        "{info}"
    );
    assert!(info.contains("in flight     third (lines 3-3)"), "{info}");
    let json: serde_json::Value = serde_json::from_slice(
        &w.run(&["info", "--json", out_path.to_str().unwrap()])
            .stdout,
    )
    .unwrap();
    assert_eq!(json["partial"], true);
    assert_eq!(json["stop"]["reason"], "timeout");
    assert_eq!(json["stop"]["inFlight"]["declaration"], "third");
    // `query` lists what Lean finished and says the recording is partial.
    let q = w.run(&["query", out_path.to_str().unwrap()]);
    let rows = text(&q.stdout);
    assert!(
        rows.contains("\tfirst\t") && rows.contains("\tsecond\t"),
        "{rows}"
    );
    // The fourth is listed as a declaration of the source, without a time.
    let fourth = rows
        .lines()
        .find(|l| l.contains("\tfourth\t"))
        .unwrap_or("");
    assert!(fourth.contains("Demo/Blow.lean\t\t\t4\t"), "{rows}");
    assert!(
        text(&q.stderr).contains("the recording is partial"),
        "{}",
        text(&q.stderr)
    );
    // `top` too.
    let t = w.run(&["top", out_path.to_str().unwrap()]);
    assert!(
        text(&t.stderr).contains("the recording is partial"),
        "{}",
        text(&t.stderr)
    );
}

/// 300 MiB allocated and touched in `big`, then held while it runs on; Lean's peak written
/// to `peak_log` as `/proc/self/status` reports it (VmHWM).
fn memory_source(peak_log: &std::path::Path) -> String {
    format!(
        "\
theorem small : True := by trivial -- leanscope-fake: cost 200ms
theorem big : True := by -- leanscope-fake: alloc 300MB
  trivial -- leanscope-fake: cost 400ms
theorem after : True := by trivial -- leanscope-fake: cost 200ms
-- leanscope-fake: peak-log {}
",
        peak_log.display()
    )
}

#[test]
fn memory_peak_matches_the_kernels_and_growth_goes_to_the_declaration() {
    let _serial = one_at_a_time();
    let w = World::new();
    let peak_log = w.path("peak.log");
    std::fs::write(w.project.join("Demo/Mem.lean"), memory_source(&peak_log)).unwrap();
    let out_path = w.path("mem.lsrec");
    let out = w.run(&["profile", "Demo/Mem.lean", "-o", out_path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let real: u64 = std::fs::read_to_string(&peak_log)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let rec = Recording::open(&out_path).unwrap();
    assert_eq!(rec.header.status, CaptureStatus::Ok);
    let m = rec.header.memory.clone().expect("memory was sampled");
    let diff = (m.peak_bytes as f64 - real as f64).abs() / real as f64;
    assert!(
        diff < 0.10,
        "peak {} against Lean's VmHWM {real}",
        m.peak_bytes
    );
    assert!(m.samples.len() > 10, "{}", m.samples.len());
    let top = m.top_growers(1);
    assert_eq!(top[0].label, "big", "{:?}", m.commands);
    let grew = top[0].growth_bytes;
    assert!(
        grew > 280 << 20 && grew < 330 << 20,
        "big grew {grew} bytes"
    );
    assert!(m.growth_of("small").unwrap_or(0) < 20 << 20);
    let info = text(&w.run(&["info", out_path.to_str().unwrap()]).stdout);
    assert!(info.contains("memory        peak "), "{info}");
    assert!(info.contains("during big"), "{info}");
    // `query --sort memory` puts it first, with its growth.
    let q = text(
        &w.run(&["query", out_path.to_str().unwrap(), "--sort", "memory"])
            .stdout,
    );
    let first_row = q.lines().nth(1).unwrap_or("");
    assert!(first_row.starts_with("declaration\tbig\t"), "{q}");
    assert!(
        q.lines().next().unwrap().ends_with("\tmemoryGrowthBytes"),
        "{q}"
    );
}

#[test]
fn max_memory_stops_lean_with_a_partial_recording() {
    let _serial = one_at_a_time();
    let w = World::new();
    let peak_log = w.path("peak.log");
    std::fs::write(w.project.join("Demo/Mem.lean"), memory_source(&peak_log)).unwrap();
    let out_path = w.path("mem.lsrec");
    let out = w.run(&[
        "profile",
        "Demo/Mem.lean",
        "--max-memory",
        "200M",
        "-o",
        out_path.to_str().unwrap(),
    ]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("Lean's memory passed the limit of 200 MiB"),
        "{stderr}"
    );
    let rec = Recording::open(&out_path).unwrap();
    assert_eq!(rec.header.status, CaptureStatus::Stopped);
    let stop = rec.header.stop.clone().unwrap();
    assert_eq!(stop.reason, StopReason::MemoryLimit);
    assert_eq!(stop.memory_limit_bytes, Some(200 << 20));
    assert!(stop.memory_reached_bytes.unwrap() > 200 << 20);
    assert_eq!(stop.in_flight.unwrap().declaration, "big");
    assert!(declaration_ms(&rec, "small").is_some());
    assert_eq!(declaration_ms(&rec, "after"), None);
    // Stopped before it could log its peak.
    assert!(!peak_log.exists());
    let info = text(&w.run(&["info", out_path.to_str().unwrap()]).stdout);
    assert!(info.contains("(memory limit)"), "{info}");
}

#[test]
fn a_hang_is_stopped_by_the_timeout_and_its_command_named() {
    let _serial = one_at_a_time();
    let w = World::new();
    std::fs::write(
        w.project.join("Demo/Hang.lean"),
        "theorem ok : True := by trivial -- leanscope-fake: cost 100ms\ntheorem stuck : True := by -- leanscope-fake: hang\n  trivial\n",
    )
    .unwrap();
    let out_path = w.path("hang.lsrec");
    let started = Instant::now();
    let out = w.run(&[
        "profile",
        "Demo/Hang.lean",
        "--timeout",
        "1",
        "-o",
        out_path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    // Stopped by SIGTERM at once: no kill grace was needed.
    assert!(started.elapsed() < Duration::from_secs(5));
    let rec = Recording::open(&out_path).unwrap();
    let stop = rec.header.stop.clone().unwrap();
    assert_eq!(stop.in_flight.unwrap().declaration, "stuck");
    assert!(declaration_ms(&rec, "ok").is_some());
}

#[test]
fn a_session_keeps_a_stopped_files_partial_recording_and_resume_retries_it() {
    let _serial = one_at_a_time();
    let w = World::new();
    let sub = w.project.join("Demo/Sub");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(sub.join("Blow.lean"), BLOW).unwrap();
    std::fs::write(
        sub.join("Quick.lean"),
        "theorem quick : True := by trivial -- leanscope-fake: cost 50ms\n",
    )
    .unwrap();
    let dir = w.path("session");
    let out = w.run(&[
        "profile",
        "Demo/Sub",
        "--timeout",
        "2",
        "-o",
        dir.to_str().unwrap(),
    ]);
    let stderr = text(&out.stderr);
    let m = common::read_session(&dir).unwrap();
    let blow = m
        .files
        .iter()
        .find(|f| f.path.ends_with("Blow.lean"))
        .unwrap();
    assert_eq!(
        blow.status,
        recording::session::FileStatus::Stopped,
        "{stderr}"
    );
    assert!(
        blow.error.as_deref().unwrap_or("").contains("within 2 s"),
        "{blow:?}"
    );
    assert_eq!(m.status, recording::session::SessionStatus::Partial);
    let rec = Recording::open(dir.join(blow.recording.as_ref().unwrap())).unwrap();
    assert_eq!(rec.header.status, CaptureStatus::Stopped);
    // `query` lists its finished declarations.
    let q = w.run(&["query", dir.to_str().unwrap(), "--all"]);
    let rows = text(&q.stdout);
    assert!(
        rows.contains("\tfirst\t") && rows.contains("\tsecond\t"),
        "{rows}"
    );
    assert!(rows.contains("\tquick\t"), "{rows}");
    assert!(
        text(&q.stderr).contains("files are partial"),
        "{}",
        text(&q.stderr)
    );
    // `--resume` captures it again (here with time enough).
    let list = w.run(&["profile", "--resume", dir.to_str().unwrap(), "--list"]);
    let listed = text(&list.stdout);
    assert!(
        listed.contains("Blow.lean") && !listed.contains("Quick.lean"),
        "{listed}"
    );
    let again = w.run(&[
        "profile",
        "--resume",
        dir.to_str().unwrap(),
        "--timeout",
        "30",
    ]);
    assert!(again.status.success(), "{}", text(&again.stderr));
    let m = common::read_session(&dir).unwrap();
    let blow = m
        .files
        .iter()
        .find(|f| f.path.ends_with("Blow.lean"))
        .unwrap();
    assert_eq!(blow.status, recording::session::FileStatus::Ok);
    assert_eq!(m.status, recording::session::SessionStatus::Complete);
}

#[test]
fn a_repeated_capture_gives_memory_medians_and_spreads() {
    let _serial = one_at_a_time();
    let w = World::new();
    let peak_log = w.path("peak.log");
    std::fs::write(w.project.join("Demo/Mem.lean"), memory_source(&peak_log)).unwrap();
    let out = w.path("s");
    let s = out.to_str().unwrap();
    let o = w.run(&[
        "profile",
        "Demo/Mem.lean",
        "--repeat",
        "3",
        "--warmup",
        "0",
        "-o",
        s,
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    // Each run's own figures, read from its recording.
    let manifest = common::read_session(&out).unwrap();
    let runs = &manifest.files[0].runs;
    assert_eq!(runs.len(), 3);
    let (mut peaks, mut growths) = (Vec::new(), Vec::new());
    for r in runs {
        let rec = Recording::open(out.join(&r.recording)).unwrap();
        let m = rec.header.memory.clone().expect("each run sampled memory");
        peaks.push(m.peak_bytes);
        growths.push(m.growth_of("big").expect("big's growth"));
    }
    let median = |v: &mut Vec<u64>| {
        v.sort_unstable();
        v[1]
    };
    let (lo_g, hi_g) = (
        *growths.iter().min().unwrap(),
        *growths.iter().max().unwrap(),
    );
    let (lo_p, hi_p) = (*peaks.iter().min().unwrap(), *peaks.iter().max().unwrap());
    let json = |args: &[&str]| -> serde_json::Value {
        let o = w.run(args);
        assert!(o.status.success(), "{args:?}: {}", text(&o.stderr));
        serde_json::from_slice(&o.stdout).unwrap()
    };
    // `query --sort memory`: big first, its growth the median of the three, with the spread.
    let q = json(&["query", s, "--sort", "memory", "--json"]);
    let big = &q["rows"][0];
    assert_eq!(big["name"], "big", "{q}");
    assert_eq!(big["memoryGrowthBytes"], median(&mut growths), "{big}");
    let m = &big["memorySpread"];
    assert_eq!(m["runs"], 3, "{big}");
    assert_eq!(
        (m["min"].as_f64(), m["max"].as_f64()),
        (Some(lo_g as f64), Some(hi_g as f64))
    );
    assert!(
        big["memoryGrowthBytes"].as_u64().unwrap() > 280 << 20,
        "{big}"
    );
    // The file's peak: the median of the runs' peaks.
    let q = json(&["query", s, "--kind", "file", "--json"]);
    let f = &q["rows"][0];
    assert_eq!(f["memoryPeakBytes"], median(&mut peaks), "{f}");
    assert_eq!(
        (
            f["memorySpread"]["min"].as_f64(),
            f["memorySpread"]["max"].as_f64()
        ),
        (Some(lo_p as f64), Some(hi_p as f64))
    );
    // TSV: the spread's columns after the growth.
    let tsv = text(&w.run(&["query", s, "--sort", "memory"]).stdout);
    let head = tsv.lines().next().unwrap();
    assert!(
        head.ends_with("\tmemoryGrowthBytes\tmemoryRuns\tmemoryMin\tmemoryMax"),
        "{tsv}"
    );
    let row = tsv.lines().nth(1).unwrap();
    assert!(row.ends_with(&format!("\t3\t{lo_g}\t{hi_g}")), "{tsv}");
}
