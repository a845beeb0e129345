//! Deterministic synthetic recordings shaped like real elaboration: the
//! same parameters always give the same bytes.
//!
//! Each declaration is a theorem proved `by` a few tactics. Its command
//! event (exact range) contains a term step (matched range) and one step
//! per tactic (exact ranges), which contain nested `Meta` work (inherited
//! ranges), and ends with `Kernel` checking. With more than one thread,
//! every third proof runs on a worker thread, linked to its command but
//! running past it, as Lean's asynchronous proofs do.

use std::io::Write;

use crate::error::{RecordingError, Result};
use crate::limits::{MAX_EVENTS, MAX_THREADS};
use crate::types::*;
use crate::writer::{Encoder, NewEvent};

/// What to synthesize.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SynthParams {
    pub seed: u64,
    pub events: u64,
    pub threads: u32,
}

/// Events per declaration, on average.
const EVENTS_PER_DECLARATION: u64 = 64;

/// Tactic texts of the synthetic recordings (and of the benchmarks' inputs).
pub const TACTICS: [&str; 8] = [
    "simp [Nat.add_comm]",
    "omega",
    "rw [Nat.add_comm]",
    "induction n <;> simp_all",
    "exact Nat.add_comm _ _",
    "decide",
    "simp only [Nat.add_zero, Nat.zero_add]",
    "apply Nat.le_of_lt_succ",
];

/// `Meta` trace classes and texts of the synthetic recordings.
pub const META: [(&str, &str); 5] = [
    ("Meta.isDefEq", "n + k =?= k + n"),
    ("Meta.synthInstance", "HAdd Nat Nat ?m"),
    ("Meta.Tactic.simp.rewrite", "Nat.add_comm:1000"),
    ("Meta.whnf", "Nat.succ n"),
    ("Meta.isDefEq.delta", "Nat.add =?= Nat.add"),
];

/// splitmix64: small, fast, and stable across versions (also what the
/// benchmarks use to make their inputs). The field is the state (the seed).
pub struct Rng(pub u64);

impl Rng {
    #[allow(clippy::should_implement_trait)] // not an iterator: it never ends
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform-ish in `0..n` (`0` when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }
}

struct DeclPlan {
    name: String,
    first_line: u32,
    header_line: String,
    tactics: Vec<&'static str>,
    budget: u64,
}

fn plan(p: &SynthParams) -> Vec<DeclPlan> {
    let decls = p.events.div_ceil(EVENTS_PER_DECLARATION).max(1);
    let mut rng = Rng(p.seed ^ 0x5eed);
    let mut line = 2u32; // after the import line and a blank line
    (0..decls)
        .map(|k| {
            let budget = p.events / decls + u64::from(k < p.events % decls);
            let count = rng.range(2, 6) as usize;
            let tactics = (0..count).map(|_| TACTICS[rng.below(8) as usize]).collect();
            let d = DeclPlan {
                name: format!("synth_{k}"),
                first_line: line,
                header_line: format!("theorem synth_{k} (n : Nat) : n + {k} = {k} + n := by"),
                tactics,
                budget,
            };
            line += 2 + count as u32;
            d
        })
        .collect()
}

/// The header of the synthetic recording (source text and declarations).
fn header(p: &SynthParams, decls: &[DeclPlan]) -> Header {
    let mut text = String::from("import Std\n\n");
    let mut declarations = Vec::with_capacity(decls.len());
    for d in decls {
        text.push_str(&d.header_line);
        text.push('\n');
        for t in &d.tactics {
            text.push_str("  ");
            text.push_str(t);
            text.push('\n');
        }
        text.push('\n');
        let last = d.tactics.len() as u32;
        let last_len = d.tactics.last().map_or(0, |t| t.len() as u32 + 2);
        declarations.push(Declaration {
            name: d.name.clone(),
            kind: "theorem".into(),
            range: SourceRange::new(d.first_line, 0, d.first_line + last, last_len),
            selection_range: SourceRange::new(
                d.first_line,
                8,
                d.first_line,
                8 + d.name.len() as u32,
            ),
            generated: false,
        });
    }
    let threads = (0..p.threads)
        .map(|t| Thread {
            id: u64::from(t) + 1,
            name: if t == 0 {
                "main".into()
            } else {
                format!("worker {t}")
            },
        })
        .collect();
    Header {
        schema_version: crate::SCHEMA_VERSION,
        lean_version: String::new(),
        toolchain: String::new(),
        capture_mode: CaptureMode::Synthetic,
        threshold_ns: 0,
        clock: ClockKind::Synthetic,
        clock_description: format!(
            "synthetic times from leanscope synth --seed {} --events {} --threads {}",
            p.seed, p.events, p.threads
        ),
        source_path: format!("Synth/Seed{}.lean", p.seed),
        module_name: format!("Synth.Seed{}", p.seed),
        source_sha256: String::new(),
        source_text: text,
        declarations,
        diagnostics: Vec::new(),
        threads,
        elapsed_ns: None,
        status: CaptureStatus::Ok,
        created_unix_ms: 0,
        producer: concat!("leanscope synth ", env!("CARGO_PKG_VERSION")).into(),
        notes: vec!["synthetic data, not a Lean capture".into()],
        cumulative_times: Vec::new(),
        measure: crate::Measure::Time,
        stop: None,
        memory: None,
        lean_args: Vec::new(),
    }
}

struct Emitter<'e, W: Write> {
    enc: &'e mut Encoder<W>,
    rng: Rng,
}

impl<W: Write> Emitter<'_, W> {
    /// Pushes a subtree of exactly `budget` events in preorder: the node
    /// takes `[start, start + dur)` and its children share most of it.
    #[allow(clippy::too_many_arguments)]
    fn subtree(
        &mut self,
        parent: u32,
        budget: u64,
        start: u64,
        dur: u64,
        thread: u32,
        range: SourceRange,
        depth: u32,
    ) -> Result<()> {
        let (class, label) = META[self.rng.below(META.len() as u64) as usize];
        let me = self.enc.push(&NewEvent {
            parent: Some(parent),
            class,
            label,
            start_ns: start,
            duration_ns: dur,
            thread,
            range: Some(range),
            range_kind: RangeKind::Inherited,
        })?;
        self.children(me, budget - 1, start, dur, thread, range, depth + 1)
    }

    /// Splits `budget` events over children laid out inside the parent's
    /// interval, with gaps of self time between them.
    #[allow(clippy::too_many_arguments)]
    fn children(
        &mut self,
        parent: u32,
        mut budget: u64,
        start: u64,
        dur: u64,
        thread: u32,
        range: SourceRange,
        depth: u32,
    ) -> Result<()> {
        if budget == 0 {
            return Ok(());
        }
        let kids = if depth > 12 {
            budget
        } else {
            self.rng.range(1, 4).min(budget)
        };
        let slot = dur / kids;
        let mut at = start;
        for k in 0..kids {
            let share = if k + 1 == kids {
                budget
            } else {
                self.rng
                    .range(1, budget - (kids - k - 1))
                    .min(budget / (kids - k) * 2)
                    .max(1)
            };
            let share = share.min(budget - (kids - k - 1));
            budget -= share;
            let gap = slot / 8 + self.rng.below(slot / 8 + 1);
            let child_dur = slot.saturating_sub(gap + slot / 16).max(1);
            self.subtree(
                parent,
                share,
                at + gap,
                child_dur.min(start + dur - (at + gap)),
                thread,
                range,
                depth,
            )?;
            at += slot;
        }
        Ok(())
    }
}

/// Writes the synthetic recording for `p` to `out`.
pub fn write_synthetic<W: Write>(p: &SynthParams, out: W) -> Result<W> {
    if p.events > MAX_EVENTS {
        return Err(RecordingError::limit("event count", p.events, MAX_EVENTS));
    }
    if p.threads == 0 || p.threads as usize > MAX_THREADS {
        return Err(RecordingError::Invalid(format!(
            "thread count must be between 1 and {MAX_THREADS}, not {}",
            p.threads
        )));
    }
    let decls = plan(p);
    let header = header(p, &decls);
    let mut enc = Encoder::new(out, &header)?;
    let mut em = Emitter {
        enc: &mut enc,
        rng: Rng(p.seed),
    };
    let mut now = 40_000_000u64; // imports take the first 40 ms
    let mut worker_free = vec![0u64; p.threads as usize];
    for (k, d) in decls.iter().enumerate() {
        if d.budget == 0 {
            continue;
        }
        let decl = header.declarations[k].range;
        let cmd_dur = em.rng.range(1_000_000, 60_000_000);
        let cmd = em.enc.push(&NewEvent {
            parent: None,
            class: "Elab.command",
            label: &d.header_line,
            start_ns: now,
            duration_ns: cmd_dur,
            thread: 0,
            range: Some(decl),
            range_kind: RangeKind::Exact,
        })?;
        let mut left = d.budget - 1;
        let asynchronous = p.threads > 1 && k % 3 == 0;
        // The proof: on a worker thread it starts with the command and may
        // outlive it; on the main thread it fills most of the command.
        let (thread, proof_start, proof_dur) = if asynchronous {
            let w = 1 + (k / 3) % (p.threads as usize - 1);
            let s = worker_free[w].max(now + cmd_dur / 10);
            let dur = em.rng.range(cmd_dur / 2, cmd_dur * 3);
            worker_free[w] = s + dur;
            (w as u32, s, dur)
        } else {
            (0, now + cmd_dur / 20, cmd_dur * 8 / 10)
        };
        let by_col = d.header_line.len() as u32 - 2;
        let by_range = SourceRange::new(decl.start_line, by_col, decl.end_line, decl.end_col);
        if left > 0 {
            let term = em.enc.push(&NewEvent {
                parent: Some(cmd),
                class: "Elab.step",
                label: "expected type: n + k = k + n, term\nby ...",
                start_ns: proof_start,
                duration_ns: proof_dur,
                thread,
                range: Some(by_range),
                range_kind: RangeKind::Matched,
            })?;
            left -= 1;
            let tactics = (d.tactics.len() as u64).min(left);
            let kernel = u64::from(left > tactics);
            let mut rest = left - tactics - kernel;
            let slot = proof_dur / tactics.max(1);
            for (j, tac) in d.tactics.iter().take(tactics as usize).enumerate() {
                let line = decl.start_line + 1 + j as u32;
                let range = SourceRange::new(line, 2, line, 2 + tac.len() as u32);
                let share = if j as u64 + 1 == tactics {
                    rest
                } else {
                    em.rng.below(rest + 1)
                };
                rest -= share;
                let s = proof_start + slot * j as u64 + slot / 20;
                let dur = slot * 9 / 10;
                let step = em.enc.push(&NewEvent {
                    parent: Some(term),
                    class: "Elab.step",
                    label: tac,
                    start_ns: s,
                    duration_ns: dur,
                    thread,
                    range: Some(range),
                    range_kind: RangeKind::Exact,
                })?;
                em.children(step, share, s, dur, thread, range, 0)?;
            }
            if kernel == 1 {
                let ks = now + cmd_dur * 17 / 20;
                em.enc.push(&NewEvent {
                    parent: Some(cmd),
                    class: "Kernel",
                    label: "typechecking declarations",
                    start_ns: ks,
                    duration_ns: cmd_dur / 10,
                    thread: 0,
                    range: Some(decl),
                    range_kind: RangeKind::Inherited,
                })?;
            }
        }
        now += cmd_dur + em.rng.range(10_000, 500_000);
    }
    enc.finish()
}

/// The synthetic recording for `p` as bytes.
pub fn synthetic_bytes(p: &SynthParams) -> Result<Vec<u8>> {
    write_synthetic(p, Vec::new())
}
