//! Memory over a capture: the resident memory of Lean's process tree sampled as it ran (a
//! counter track of the recording), its peak, and the growth attributed to the commands that
//! were running when it happened.
//!
//! The track has its own clock: nanoseconds since Lean was started (wall clock). Commands are
//! placed on it by when Lean reported them: a command ends when its messages arrived and starts
//! its reported duration earlier; the command in flight runs from Lean's last report to the stop.

use serde::{Deserialize, Serialize};

use crate::error::RecordingError;
use crate::limits::MAX_COUNTER_SAMPLES;
use crate::source_range::SourceRange;
use crate::varint::{put_i64, put_u64, unzigzag, Column};

/// The memory a command's run added.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CommandMemory {
    /// The command's declaration, or its first line when it declares nothing.
    pub label: String,
    pub range: SourceRange,
    /// On the track's clock.
    pub start_ns: u64,
    pub end_ns: u64,
    /// The highest value while it ran less the value as it started (0 if it only shrank).
    pub growth_bytes: u64,
    /// The command in flight when Lean was stopped.
    pub open: bool,
}

/// Resident memory sampled over a capture.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MemoryTrack {
    /// The sampling interval asked for.
    pub interval_ns: u64,
    /// Each sample: nanoseconds since Lean started, bytes resident in its process tree.
    pub samples: Vec<(u64, u64)>,
    /// The highest sample and when it was taken.
    pub peak_bytes: u64,
    pub peak_at_ns: u64,
    pub commands: Vec<CommandMemory>,
}

/// Bytes for people, in mebibytes: `300 MiB` from 100 MiB up, else one decimal (`12.5 MiB`).
/// The viewer and the extension write them the same way (`formatBytes` of
/// `viewer-wasm/www/format.js`).
pub fn format_bytes(bytes: u64) -> String {
    let mib = bytes as f64 / f64::from(1u32 << 20);
    if mib >= 100.0 {
        format!("{mib:.0} MiB")
    } else {
        format!("{mib:.1} MiB")
    }
}

/// The name and unit the track is stored under.
pub const TRACK_NAME: &str = "resident memory";
pub const TRACK_UNIT: &str = "bytes";

impl MemoryTrack {
    /// A track of `samples` (in time order), its peak computed.
    pub fn new(interval_ns: u64, samples: Vec<(u64, u64)>) -> Self {
        let (peak_at_ns, peak_bytes) =
            samples
                .iter()
                .copied()
                .fold((0, 0), |best, s| if s.1 > best.1 { s } else { best });
        MemoryTrack {
            interval_ns,
            samples,
            peak_bytes,
            peak_at_ns,
            commands: Vec::new(),
        }
    }

    /// The value at `t`: the last sample taken at or before it (the first one before any).
    pub fn value_at(&self, t: u64) -> Option<u64> {
        let i = self.samples.partition_point(|s| s.0 <= t);
        self.samples
            .get(i.saturating_sub(1))
            .or(self.samples.first())
            .map(|s| s.1)
    }

    /// Growth over `[start, end]`: the highest sample in it (or the value at `end`) less the
    /// value at `start`.
    pub fn growth(&self, start: u64, end: u64) -> u64 {
        let Some(base) = self.value_at(start) else {
            return 0;
        };
        let lo = self.samples.partition_point(|s| s.0 < start);
        let hi = self.samples.partition_point(|s| s.0 <= end);
        let top = self.samples[lo..hi.max(lo)]
            .iter()
            .map(|s| s.1)
            .chain(self.value_at(end))
            .max()
            .unwrap_or(base);
        top.saturating_sub(base)
    }

    /// Adds a command that ran over `[start, end]`, its growth computed from the samples.
    pub fn attribute(
        &mut self,
        label: String,
        range: SourceRange,
        start: u64,
        end: u64,
        open: bool,
    ) {
        let (start, end) = (start.min(end), end.max(start));
        let growth_bytes = self.growth(start, end);
        self.commands.push(CommandMemory {
            label,
            range,
            start_ns: start,
            end_ns: end,
            growth_bytes,
            open,
        });
    }

    /// The command running at `t` on the track's clock (the latest to start, if several).
    pub fn command_at(&self, t: u64) -> Option<&CommandMemory> {
        self.commands
            .iter()
            .filter(|c| c.start_ns <= t && t <= c.end_ns)
            .max_by_key(|c| c.start_ns)
    }

    /// The commands with the most growth, most first (those with none left out).
    pub fn top_growers(&self, n: usize) -> Vec<&CommandMemory> {
        let mut v: Vec<&CommandMemory> = self
            .commands
            .iter()
            .filter(|c| c.growth_bytes > 0)
            .collect();
        v.sort_by(|a, b| {
            b.growth_bytes
                .cmp(&a.growth_bytes)
                .then(a.start_ns.cmp(&b.start_ns))
        });
        v.truncate(n);
        v
    }

    /// The growth attributed to the declaration or command `label` (summed over its commands).
    pub fn growth_of(&self, label: &str) -> Option<u64> {
        let mut found = self.commands.iter().filter(|c| c.label == label).peekable();
        found.peek()?;
        Some(found.map(|c| c.growth_bytes).sum())
    }

    /// The samples as the two varint columns of the format: time deltas, zigzag value deltas.
    pub fn encode(&self) -> (Vec<u8>, Vec<u8>) {
        let mut times = Vec::with_capacity(self.samples.len() * 2);
        let mut values = Vec::with_capacity(self.samples.len() * 3);
        let (mut t0, mut v0) = (0u64, 0i64);
        for &(t, v) in &self.samples {
            put_u64(&mut times, t.saturating_sub(t0));
            t0 = t.max(t0);
            let v = i64::try_from(v).unwrap_or(i64::MAX);
            put_i64(&mut values, v.wrapping_sub(v0));
            v0 = v;
        }
        (times, values)
    }

    /// Samples from the two columns [`encode`](Self::encode) writes; a typed error when they
    /// are corrupt or hold more than [`MAX_COUNTER_SAMPLES`].
    pub fn decode(times: &[u8], values: &[u8]) -> Result<Vec<(u64, u64)>, RecordingError> {
        let bad = |what: &str| RecordingError::Invalid(format!("the memory track's {what}"));
        let mut ts = Column::new(times);
        let mut vs = Column::new(values);
        let mut out = Vec::new();
        let (mut t, mut v) = (0u64, 0i64);
        while !ts.is_done() {
            if out.len() >= MAX_COUNTER_SAMPLES {
                return Err(RecordingError::limit(
                    "memory samples",
                    out.len() as u64 + 1,
                    MAX_COUNTER_SAMPLES as u64,
                ));
            }
            let dt = ts.next_u64().map_err(|_| bad("times are corrupt"))?;
            let dv = vs
                .next_u64()
                .map_err(|_| bad("values are fewer than its times"))?;
            t = t.checked_add(dt).ok_or_else(|| bad("times overflow"))?;
            v = v.wrapping_add(unzigzag(dv));
            let value = u64::try_from(v).map_err(|_| bad("values go below zero"))?;
            out.push((t, value));
        }
        if !vs.is_done() {
            return Err(bad("values are more than its times"));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn track() -> MemoryTrack {
        // 100 MB, growing to 400 MB between 1 s and 2 s, back to 150 MB at 3 s.
        let mb = 1u64 << 20;
        MemoryTrack::new(
            100_000_000,
            vec![
                (0, 100 * mb),
                (1_000_000_000, 100 * mb),
                (1_500_000_000, 300 * mb),
                (2_000_000_000, 400 * mb),
                (3_000_000_000, 150 * mb),
            ],
        )
    }

    #[test]
    fn bytes_for_people() {
        assert_eq!(format_bytes(300 << 20), "300 MiB");
        assert_eq!(format_bytes(12 << 20 | 1 << 19), "12.5 MiB");
        assert_eq!(format_bytes(0), "0.0 MiB");
    }

    #[test]
    fn peak_and_growth() {
        let mb = 1u64 << 20;
        let t = track();
        assert_eq!((t.peak_bytes, t.peak_at_ns), (400 * mb, 2_000_000_000));
        assert_eq!(t.growth(1_000_000_000, 2_000_000_000), 300 * mb);
        assert_eq!(t.growth(0, 900_000_000), 0);
        // Shrinking is no growth.
        assert_eq!(t.growth(2_000_000_000, 3_000_000_000), 0);
        assert_eq!(t.value_at(1_700_000_000), Some(300 * mb));
    }

    #[test]
    fn attributes_and_ranks_commands() {
        let mut t = track();
        t.attribute("a".into(), SourceRange::default(), 0, 1_000_000_000, false);
        t.attribute(
            "b".into(),
            SourceRange::default(),
            1_000_000_000,
            2_000_000_000,
            false,
        );
        t.attribute(
            "c".into(),
            SourceRange::default(),
            2_000_000_000,
            3_000_000_000,
            true,
        );
        let top: Vec<&str> = t.top_growers(5).iter().map(|c| c.label.as_str()).collect();
        assert_eq!(top, ["b"]);
        assert_eq!(
            t.command_at(1_200_000_000).map(|c| c.label.as_str()),
            Some("b")
        );
        assert_eq!(t.growth_of("b"), Some(300 << 20));
        assert_eq!(t.growth_of("z"), None);
    }

    #[test]
    fn columns_round_trip_and_corruption_is_an_error() {
        let t = track();
        let (times, values) = t.encode();
        assert_eq!(MemoryTrack::decode(&times, &values).unwrap(), t.samples);
        assert!(MemoryTrack::decode(&times, &values[..values.len() - 1]).is_err());
        assert!(MemoryTrack::decode(&times[..1], &values).is_err());
        assert!(MemoryTrack::decode(&[0x80], &[0]).is_err());
    }
}
