//! A bench's report (`schemas/bench.schema.json`): per-file medians and
//! ranges of each mode, per-repeat totals, the aggregate overhead (sum of
//! profiled ÷ sum of plain − 1) with its range across repeats, the median,
//! p95 and worst file, and leanscope's own share of the profiled CPU time.
//! Overheads are fractions (0.04 is 4 %); `null` where the plain time is 0.

use recording::model::{nearest_rank, Stats};
use serde::Serialize;

use super::{Mode, Sample};

/// Version of the report's JSON.
pub const BENCH_SCHEMA_VERSION: u32 = 1;

/// What the measurement does not show, said in every report.
pub const LIMITS: [&str; 3] = [
    "Wall and CPU time of whole processes, from the host (a monotonic clock and the kernel's accounting of each run and the processes it waited for): Lean's start-up and import loading are in both modes.",
    "Other load on the machine still disturbs both modes; the interleaving and rotation spread it evenly, they do not remove it. Compare the range across repeats with the overhead before trusting a small one.",
    "The overhead of these files on this machine and toolchain, at this threshold: not a bound for other files, and not the cost of the editor's own profiling.",
];

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub schema_version: u32,
    pub producer: String,
    pub project_root: String,
    pub lake: String,
    pub threshold_ms: u64,
    pub repeats: u32,
    pub warmup: u32,
    pub files: Vec<FileReport>,
    pub repeat_totals: Vec<RepeatTotal>,
    pub aggregate: Aggregate,
    pub per_file_overhead: PerFile,
    /// leanscope's own CPU time ÷ the profiled runs' CPU time (repeats).
    pub leanscope_cpu_share: Option<f64>,
    pub samples: Vec<Sample>,
    pub limits: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct FileReport {
    pub path: String,
    pub module: String,
    pub plain: ModeStats,
    pub profiled: ModeStats,
    /// Median profiled ÷ median plain − 1.
    pub overhead: Overhead,
    pub leanscope_cpu_median_ns: Option<u64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ModeStats {
    pub wall: Spread,
    pub cpu: Spread,
}

#[derive(Debug, Clone, Copy, Serialize)]
pub struct Spread {
    pub median_ns: u64,
    pub min_ns: u64,
    pub max_ns: u64,
}

#[derive(Debug, Clone, Copy, Serialize)]
pub struct Overhead {
    pub wall: Option<f64>,
    pub cpu: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct RepeatTotal {
    pub repeat: u32,
    pub plain: Totals,
    pub profiled: Totals,
    pub overhead: Overhead,
}

#[derive(Debug, Clone, Copy, Serialize)]
pub struct Totals {
    pub wall_ns: u64,
    pub cpu_ns: u64,
}

#[derive(Debug, Clone, Copy, Serialize)]
pub struct Aggregate {
    pub wall: AggregateOverhead,
    pub cpu: AggregateOverhead,
}

/// The overhead of the sums of the per-file medians, and the lowest and
/// highest of the per-repeat overheads.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct AggregateOverhead {
    pub overhead: Option<f64>,
    pub min: Option<f64>,
    pub max: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct PerFile {
    pub wall: Distribution,
    pub cpu: Distribution,
}

/// The per-file overheads' median, p95 (nearest rank) and worst.
#[derive(Debug, Clone, Serialize)]
pub struct Distribution {
    pub median: Option<f64>,
    pub p95: Option<f64>,
    pub worst: Option<f64>,
    pub worst_file: Option<String>,
}

/// The facts a report is made from, besides its samples.
pub struct Setup {
    pub project_root: String,
    pub lake: String,
    pub threshold_ms: u64,
    pub repeats: u32,
    pub warmup: u32,
    /// (path, module) of each file.
    pub files: Vec<(String, String)>,
}

fn overhead(profiled: u64, plain: u64) -> Option<f64> {
    (plain > 0).then(|| profiled as f64 / plain as f64 - 1.0)
}

fn spread(values: &mut [u64]) -> Spread {
    let s = Stats::from_durations(values, 0);
    Spread {
        median_ns: s.median_ns,
        min_ns: s.min_ns,
        max_ns: s.max_ns,
    }
}

fn distribution(files: &[FileReport], pick: impl Fn(&Overhead) -> Option<f64>) -> Distribution {
    let mut v: Vec<(f64, &str)> = files
        .iter()
        .filter_map(|f| pick(&f.overhead).map(|o| (o, f.path.as_str())))
        .collect();
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    let n = v.len() as u64;
    let at = |p: u64| (n > 0).then(|| v[nearest_rank(p, n) - 1].0);
    Distribution {
        median: at(50),
        p95: at(95),
        worst: v.last().map(|w| w.0),
        worst_file: v.last().map(|w| w.1.to_owned()),
    }
}

fn min_max(values: impl Iterator<Item = Option<f64>>) -> (Option<f64>, Option<f64>) {
    values.flatten().fold((None, None), |(lo, hi), x| {
        (
            Some(lo.map_or(x, |l: f64| l.min(x))),
            Some(hi.map_or(x, |h: f64| h.max(x))),
        )
    })
}

/// The report of a bench's samples (warm-ups included in `samples` but in
/// no figure).
pub fn report(setup: Setup, samples: Vec<Sample>) -> Report {
    let measured = |file: usize, mode: Mode| {
        samples
            .iter()
            .filter(move |s| s.file == file && s.mode == mode && s.repeat.is_some())
    };
    let mut files = Vec::new();
    for (i, (path, module)) in setup.files.iter().enumerate() {
        let stats = |mode: Mode| {
            let mut wall: Vec<u64> = measured(i, mode).map(|s| s.wall_ns).collect();
            let mut cpu: Vec<u64> = measured(i, mode).map(|s| s.cpu_ns).collect();
            ModeStats {
                wall: spread(&mut wall),
                cpu: spread(&mut cpu),
            }
        };
        let (plain, profiled) = (stats(Mode::Plain), stats(Mode::Profiled));
        let mut own: Vec<u64> = measured(i, Mode::Profiled)
            .filter_map(|s| s.leanscope_cpu_ns)
            .collect();
        files.push(FileReport {
            path: path.clone(),
            module: module.clone(),
            overhead: Overhead {
                wall: overhead(profiled.wall.median_ns, plain.wall.median_ns),
                cpu: overhead(profiled.cpu.median_ns, plain.cpu.median_ns),
            },
            plain,
            profiled,
            leanscope_cpu_median_ns: (!own.is_empty())
                .then(|| Stats::from_durations(&mut own, 0).median_ns),
        });
    }
    let total = |repeat: u32, mode: Mode| {
        let mut t = Totals {
            wall_ns: 0,
            cpu_ns: 0,
        };
        for s in samples
            .iter()
            .filter(|s| s.repeat == Some(repeat) && s.mode == mode)
        {
            t.wall_ns = t.wall_ns.saturating_add(s.wall_ns);
            t.cpu_ns = t.cpu_ns.saturating_add(s.cpu_ns);
        }
        t
    };
    let repeat_totals: Vec<RepeatTotal> = (0..setup.repeats)
        .map(|r| {
            let (plain, profiled) = (total(r, Mode::Plain), total(r, Mode::Profiled));
            RepeatTotal {
                repeat: r,
                overhead: Overhead {
                    wall: overhead(profiled.wall_ns, plain.wall_ns),
                    cpu: overhead(profiled.cpu_ns, plain.cpu_ns),
                },
                plain,
                profiled,
            }
        })
        .collect();
    let sum = |f: &dyn Fn(&FileReport) -> u64| files.iter().map(f).fold(0u64, u64::saturating_add);
    let aggregate_of = |profiled: u64, plain: u64, pick: &dyn Fn(&Overhead) -> Option<f64>| {
        let (min, max) = min_max(repeat_totals.iter().map(|t| pick(&t.overhead)));
        AggregateOverhead {
            overhead: overhead(profiled, plain),
            min,
            max,
        }
    };
    let aggregate = Aggregate {
        wall: aggregate_of(
            sum(&|f| f.profiled.wall.median_ns),
            sum(&|f| f.plain.wall.median_ns),
            &|o| o.wall,
        ),
        cpu: aggregate_of(
            sum(&|f| f.profiled.cpu.median_ns),
            sum(&|f| f.plain.cpu.median_ns),
            &|o| o.cpu,
        ),
    };
    let per_file_overhead = PerFile {
        wall: distribution(&files, |o| o.wall),
        cpu: distribution(&files, |o| o.cpu),
    };
    let profiled_cpu: u64 = samples
        .iter()
        .filter(|s| s.mode == Mode::Profiled && s.repeat.is_some())
        .map(|s| s.cpu_ns)
        .fold(0, u64::saturating_add);
    let own_cpu: Option<u64> = samples
        .iter()
        .filter(|s| s.mode == Mode::Profiled && s.repeat.is_some())
        .map(|s| s.leanscope_cpu_ns)
        .sum();
    Report {
        schema_version: BENCH_SCHEMA_VERSION,
        producer: format!("leanscope {}", env!("CARGO_PKG_VERSION")),
        project_root: setup.project_root,
        lake: setup.lake,
        threshold_ms: setup.threshold_ms,
        repeats: setup.repeats,
        warmup: setup.warmup,
        files,
        repeat_totals,
        aggregate,
        per_file_overhead,
        leanscope_cpu_share: own_cpu
            .filter(|_| profiled_cpu > 0)
            .map(|own| own as f64 / profiled_cpu as f64),
        samples,
        limits: LIMITS.iter().map(|s| s.to_string()).collect(),
    }
}

/// `+4.1 %`, or `n/a`.
pub fn percent(x: Option<f64>) -> String {
    match x {
        Some(x) => format!("{:+.1} %", x * 100.0),
        None => "n/a".to_string(),
    }
}

/// The report as text: a table of the files, then the headline figures.
pub fn text(r: &Report) -> String {
    let human_ns = |ns: u64| recording::Measure::Time.format(ns);
    use std::fmt::Write;
    let mut out = String::new();
    let width = r
        .files
        .iter()
        .map(|f| f.path.len())
        .max()
        .unwrap_or(4)
        .max(4);
    let _ = writeln!(
        out,
        "{:width$}  {:>10}  {:>10}  {:>9}  {:>10}  {:>10}  {:>9}",
        "file", "plain wall", "prof. wall", "overhead", "plain CPU", "prof. CPU", "overhead"
    );
    for f in &r.files {
        let _ = writeln!(
            out,
            "{:width$}  {:>10}  {:>10}  {:>9}  {:>10}  {:>10}  {:>9}",
            f.path,
            human_ns(f.plain.wall.median_ns),
            human_ns(f.profiled.wall.median_ns),
            percent(f.overhead.wall),
            human_ns(f.plain.cpu.median_ns),
            human_ns(f.profiled.cpu.median_ns),
            percent(f.overhead.cpu),
        );
    }
    let agg = |a: &AggregateOverhead| {
        format!(
            "{} (repeats {} to {})",
            percent(a.overhead),
            percent(a.min),
            percent(a.max)
        )
    };
    let _ = writeln!(
        out,
        "\naggregate overhead (sum of profiled / sum of plain - 1, medians of {} repeats): wall {}, CPU {}",
        r.repeats,
        agg(&r.aggregate.wall),
        agg(&r.aggregate.cpu)
    );
    let dist = |d: &Distribution| {
        format!(
            "median {}, p95 {}, worst {}{}",
            percent(d.median),
            percent(d.p95),
            percent(d.worst),
            d.worst_file
                .as_deref()
                .map(|f| format!(" ({f})"))
                .unwrap_or_default()
        )
    };
    let _ = writeln!(out, "per file, wall: {}", dist(&r.per_file_overhead.wall));
    let _ = writeln!(out, "per file, CPU:  {}", dist(&r.per_file_overhead.cpu));
    let _ = writeln!(
        out,
        "leanscope's own CPU: {} of the profiled runs' CPU time",
        r.leanscope_cpu_share
            .map(|s| format!("{:.1} %", s * 100.0))
            .unwrap_or_else(|| "n/a".into())
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(file: usize, mode: Mode, repeat: Option<u32>, ns: u64) -> Sample {
        Sample {
            file,
            mode,
            repeat,
            wall_ns: ns,
            cpu_ns: ns / 2,
            leanscope_cpu_ns: (mode == Mode::Profiled).then_some(ns / 100),
        }
    }

    #[test]
    fn figures_equal_hand_computed_ones() {
        let setup = Setup {
            project_root: "/p".into(),
            lake: "/bin/lake".into(),
            threshold_ms: 10,
            repeats: 3,
            warmup: 1,
            files: vec![("A.lean".into(), "A".into()), ("B.lean".into(), "B".into())],
        };
        let mut samples = vec![
            // Warm-ups: far off, and in no figure.
            sample(0, Mode::Plain, None, 9_000),
            sample(0, Mode::Profiled, None, 9_000),
        ];
        // A: plain 100, 110, 90; profiled 104, 115, 93 (median 104 vs 100).
        // B: plain 200, 200, 220; profiled 220, 210, 260 (median 220 vs 200).
        for (r, (a, ap, b, bp)) in [
            (100, 104, 200, 220),
            (110, 115, 200, 210),
            (90, 93, 220, 260),
        ]
        .into_iter()
        .enumerate()
        {
            let r = Some(r as u32);
            samples.extend([
                sample(0, Mode::Plain, r, a),
                sample(0, Mode::Profiled, r, ap),
                sample(1, Mode::Plain, r, b),
                sample(1, Mode::Profiled, r, bp),
            ]);
        }
        let r = report(setup, samples);
        let close = |x: Option<f64>, want: f64| {
            let x = x.unwrap();
            assert!((x - want).abs() < 1e-12, "{x} vs {want}");
        };
        assert_eq!(r.files[0].plain.wall.median_ns, 100);
        assert_eq!(
            (r.files[0].plain.wall.min_ns, r.files[0].plain.wall.max_ns),
            (90, 110)
        );
        close(r.files[0].overhead.wall, 0.04);
        close(r.files[1].overhead.wall, 0.10);
        // (104 + 220) / (100 + 200) - 1.
        close(r.aggregate.wall.overhead, 324.0 / 300.0 - 1.0);
        // Repeats: 324/300, 325/310, 353/310.
        close(r.aggregate.wall.min, 325.0 / 310.0 - 1.0);
        close(r.aggregate.wall.max, 353.0 / 310.0 - 1.0);
        assert_eq!(r.repeat_totals[2].plain.wall_ns, 310);
        close(r.per_file_overhead.wall.median, 0.04);
        close(r.per_file_overhead.wall.p95, 0.10);
        assert_eq!(
            r.per_file_overhead.wall.worst_file.as_deref(),
            Some("B.lean")
        );
        // leanscope's own: 1 % of each profiled wall, so 2 % of its CPU.
        let own: u64 = [104u64, 115, 93, 220, 210, 260]
            .iter()
            .map(|n| n / 100)
            .sum();
        let cpu: u64 = [104u64, 115, 93, 220, 210, 260].iter().map(|n| n / 2).sum();
        close(r.leanscope_cpu_share, own as f64 / cpu as f64);
        assert_eq!(r.samples.len(), 14);
        let t = text(&r);
        assert!(t.contains("+4.0 %") && t.contains("B.lean"), "{t}");
    }

    #[test]
    fn zero_plain_time_has_no_ratio() {
        assert_eq!(overhead(5, 0), None);
        assert_eq!(percent(None), "n/a");
    }
}
