//! Importing a 1 GiB Chrome trace-event JSON file: throughput and peak
//! resident memory. Targets: at least 150 MB/s, at most 256 MB resident.
//!
//! The trace is generated once into `target/bench-data/` (deterministic):
//! elaboration-shaped `X` events on four threads (commands holding steps
//! holding Meta work), each thread in start order as tracers write them, a
//! quarter of them with leanscope's source range in `args`. The import
//! runs in this process after generation, which streams and keeps little;
//! peak memory is the process's high-water mark (`VmHWM`) afterwards.
//!
//! Run: `cargo bench -p leanscope --bench chrome_import` (set
//! `LEANSCOPE_BENCH_BYTES` to try another size).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use leanscope::interop::{self, Format, ImportOptions};
use recording::synth::{Rng, META, TACTICS};

const TARGET_MB_PER_S: f64 = 150.0;
const TARGET_PEAK_MB: f64 = 256.0;

fn us(ns: u64) -> String {
    format!("{}.{:03}", ns / 1000, ns % 1000)
}

/// Writes a trace of at least `bytes` bytes; returns its event count.
fn generate(path: &Path, bytes: u64) -> std::io::Result<u64> {
    let mut out = BufWriter::with_capacity(1 << 20, File::create(path)?);
    let mut rng = Rng(42);
    let mut written = 0u64;
    let mut events = 0u64;
    let threads = 4u64;
    let mut clock = vec![0u64; threads as usize];
    let mut line = 0u64;
    let emit = |out: &mut BufWriter<File>, s: String, written: &mut u64| -> std::io::Result<()> {
        out.write_all(s.as_bytes())?;
        *written += s.len() as u64;
        Ok(())
    };
    emit(
        &mut out,
        "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n".into(),
        &mut written,
    )?;
    for t in 0..threads {
        emit(
            &mut out,
            format!("{{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":{t},\"args\":{{\"name\":\"worker {t}\"}}}},\n"),
            &mut written,
        )?;
    }
    let mut first = true;
    let sep = |first: &mut bool| if std::mem::take(first) { "" } else { ",\n" };
    while written < bytes {
        let t = rng.below(threads);
        let steps = 2 + rng.below(5);
        let metas: Vec<u64> = (0..steps).map(|_| 1 + rng.below(6)).collect();
        let meta_dur: Vec<Vec<u64>> = metas
            .iter()
            .map(|&m| (0..m).map(|_| 1_000 + rng.below(400_000)).collect())
            .collect();
        let step_dur: Vec<u64> = meta_dur
            .iter()
            .map(|d| d.iter().sum::<u64>() + 500 + rng.below(50_000))
            .collect();
        let cmd_dur: u64 = step_dur.iter().sum::<u64>() + 2_000 + rng.below(100_000);
        let start = clock[t as usize] + rng.below(10_000);
        line += 3 + steps;
        let s = format!(
            "{}{{\"ph\":\"X\",\"name\":\"theorem synth_{line} (n : Nat) : n + {line} = {line} + n\",\"cat\":\"Elab.command\",\"ts\":{},\"dur\":{},\"pid\":1,\"tid\":{t},\"args\":{{\"file\":\"Synth/Big.lean\",\"line\":{line},\"range\":[{},0,{},40],\"range_kind\":\"exact\"}}}}",
            sep(&mut first),
            us(start),
            us(cmd_dur),
            line - 1,
            line + steps
        );
        emit(&mut out, s, &mut written)?;
        events += 1;
        let mut at = start + 1_000;
        for (k, &sd) in step_dur.iter().enumerate() {
            let tactic = TACTICS[rng.below(TACTICS.len() as u64) as usize];
            let s = format!(
                "{}{{\"ph\":\"X\",\"name\":\"{tactic}\",\"cat\":\"Elab.step\",\"ts\":{},\"dur\":{},\"pid\":1,\"tid\":{t}}}",
                sep(&mut first),
                us(at),
                us(sd)
            );
            emit(&mut out, s, &mut written)?;
            events += 1;
            let mut m_at = at + 250;
            for &md in &meta_dur[k] {
                let (class, label) = META[rng.below(META.len() as u64) as usize];
                let s = format!(
                    "{}{{\"ph\":\"X\",\"name\":\"{label}\",\"cat\":\"{class}\",\"ts\":{},\"dur\":{},\"pid\":1,\"tid\":{t}}}",
                    sep(&mut first),
                    us(m_at),
                    us(md)
                );
                emit(&mut out, s, &mut written)?;
                events += 1;
                m_at += md;
            }
            at += sd;
        }
        clock[t as usize] = start + cmd_dur;
    }
    emit(&mut out, "\n]}\n".into(), &mut written)?;
    out.flush()?;
    Ok(events)
}

/// CPU time (user + system) of this process so far, in seconds.
fn cpu_secs() -> f64 {
    // SAFETY: getrusage only writes the struct it is given.
    let u = unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut u);
        u
    };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    tv(u.ru_utime) + tv(u.ru_stime)
}

fn vm_hwm_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse().ok()))
        })
        .unwrap_or(0)
}

fn main() {
    // `cargo test --benches` runs this with `--test`; keep that quick.
    if std::env::args().any(|a| a == "--test") {
        return;
    }
    let bytes: u64 = std::env::var("LEANSCOPE_BENCH_BYTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1 << 30);
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/bench-data");
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join(format!("chrome-{bytes}.json"));
    if std::fs::metadata(&input)
        .map(|m| m.len() < bytes)
        .unwrap_or(true)
    {
        let t = Instant::now();
        let n = generate(&input, bytes).unwrap();
        println!(
            "generated {} ({n} events) in {:.1} s",
            input.display(),
            t.elapsed().as_secs_f64()
        );
    }
    let size = std::fs::metadata(&input).unwrap().len();
    let before_kb = vm_hwm_kb();
    let out = dir.join("chrome-import.lsrec");
    let cpu_before = cpu_secs();
    let t = Instant::now();
    let report =
        interop::import_file(&input, Some(Format::Chrome), ImportOptions::default(), &out).unwrap();
    let secs = t.elapsed().as_secs_f64();
    let cpu = cpu_secs() - cpu_before;
    let peak_mb = vm_hwm_kb() as f64 / 1024.0;
    let mb_s = size as f64 / 1e6 / secs;
    let out_size = std::fs::metadata(&out).unwrap().len();
    // On a busy machine the wall time mostly measures the wait for a core.
    println!(
        "chrome import CPU: {cpu:.2} s = {:.0} MB/s per CPU second",
        size as f64 / 1e6 / cpu
    );
    println!(
        "chrome import: {:.0} MB ({} events, {} threads) in {secs:.2} s = {mb_s:.0} MB/s (target >= {TARGET_MB_PER_S}); \
         peak resident {peak_mb:.0} MB (target <= {TARGET_PEAK_MB}; {:.0} MB before the import); recording {:.0} MB",
        size as f64 / 1e6,
        report.events,
        report.threads,
        before_kb as f64 / 1024.0,
        out_size as f64 / 1e6,
    );
    let ok = mb_s >= TARGET_MB_PER_S && peak_mb <= TARGET_PEAK_MB;
    println!(
        "chrome import targets: {}",
        if ok { "met" } else { "NOT met" }
    );
    std::fs::remove_file(&out).ok();
}
