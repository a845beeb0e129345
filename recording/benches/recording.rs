//! Recording benchmarks (issue targets):
//! - size on disk of a 1,000,000-event synthetic recording: ≤ 24 bytes/event;
//! - decode + build the model + compute self times for 3,000,000 events: ≤ 1.0 s.
//!
//! Run: `cargo bench -p recording --bench recording`.

use std::time::Instant;

use criterion::{criterion_group, Criterion};
use recording::synth::{synthetic_bytes, SynthParams};
use recording::Recording;

fn params(events: u64) -> SynthParams {
    SynthParams {
        seed: 1,
        events,
        threads: 4,
    }
}

fn size_per_event() {
    let bytes = synthetic_bytes(&params(1_000_000)).expect("synth");
    let rec = Recording::from_bytes(&bytes).expect("decode");
    let source = rec.header.source_text.len();
    println!(
        "size: 1,000,000 events in {} bytes = {:.2} bytes/event ({:.2} without the {} bytes of embedded source text); target <= 24",
        bytes.len(),
        bytes.len() as f64 / 1e6,
        (bytes.len() - source) as f64 / 1e6,
        source
    );
}

fn decode(c: &mut Criterion) {
    let bytes = synthetic_bytes(&params(3_000_000)).expect("synth");
    // One cold run, reported on its own, then criterion's statistics.
    let t = Instant::now();
    let rec = Recording::from_bytes(&bytes).expect("decode");
    let self_total: u64 = (0..rec.len() as u32).map(|i| rec.self_ns(i)).sum();
    println!(
        "decode+model+self times: 3,000,000 events in {:.3} s (first run; self total {} ns); target <= 1.0 s",
        t.elapsed().as_secs_f64(),
        self_total
    );
    drop(rec);
    let mut g = c.benchmark_group("recording");
    g.sample_size(10);
    g.bench_function("decode_model_self_times_3M", |b| {
        b.iter(|| {
            let rec = Recording::from_bytes(&bytes).expect("decode");
            std::hint::black_box(rec.self_ns(0))
        })
    });
    g.finish();
}

criterion_group!(benches, decode);

fn main() {
    size_per_event();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
