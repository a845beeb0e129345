//! Small helpers for what the CLI prints.

/// Nanoseconds as a human-readable duration (`1.234 s`, `12.3 ms`, `850 µs`).
pub fn human_ns(ns: u64) -> String {
    let s = ns as f64 / 1e9;
    if s >= 1.0 {
        format!("{s:.3} s")
    } else if ns >= 1_000_000 {
        format!("{:.1} ms", ns as f64 / 1e6)
    } else if ns >= 1_000 {
        format!("{:.0} µs", ns as f64 / 1e3)
    } else {
        format!("{ns} ns")
    }
}

#[cfg(test)]
mod tests {
    use super::human_ns;

    #[test]
    fn picks_units() {
        assert_eq!(human_ns(1_234_000_000), "1.234 s");
        assert_eq!(human_ns(12_340_000), "12.3 ms");
        assert_eq!(human_ns(850_000), "850 µs");
        assert_eq!(human_ns(12), "12 ns");
    }
}
