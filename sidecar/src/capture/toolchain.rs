//! What `lean --version` says, and what that toolchain can do.

/// The first Lean release that writes `trace.profiler.output` (4.8.0).
const PROFILE_OUTPUT_SINCE: (u32, u32, u32) = (4, 8, 0);

/// The first Lean release with the `trace.profiler.serve` option (4.31.0, lean4#13530): on, with
/// no `trace.profiler.output`, Lean serves its profile over HTTP at the end of the run and waits
/// for one request, which would block a batch capture.
const PROFILER_SERVE_SINCE: (u32, u32, u32) = (4, 31, 0);

/// A Lean version as printed by `lean --version`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeanVersion {
    /// The whole first line, e.g. `Lean (version 4.31.0, x86_64-unknown-linux-gnu, commit …, Release)`.
    pub banner: String,
    /// `4.31.0`, `4.22.0-rc1`, …
    pub version: String,
    pub numbers: Option<(u32, u32, u32)>,
}

impl LeanVersion {
    pub fn parse(output: &str) -> Option<LeanVersion> {
        let banner = output.lines().next()?.trim().to_string();
        let rest = banner.split("version ").nth(1)?;
        let version: String = rest
            .chars()
            .take_while(|c| !matches!(c, ',' | ')' | ' '))
            .collect();
        if version.is_empty() {
            return None;
        }
        let mut parts = version
            .split(|c: char| !c.is_ascii_digit())
            .filter(|p| !p.is_empty());
        let mut next = || parts.next().and_then(|p| p.parse().ok());
        let numbers = match (next(), next(), next()) {
            (Some(a), Some(b), Some(c)) => Some((a, b, c)),
            _ => None,
        };
        Some(LeanVersion {
            banner,
            version,
            numbers,
        })
    }

    /// True when this Lean writes the timed trace tree with
    /// `-Dtrace.profiler.output` (unknown versions are not assumed to).
    pub fn supports_profile_output(&self) -> bool {
        self.numbers.is_some_and(|n| n >= PROFILE_OUTPUT_SINCE)
    }

    /// True when this Lean knows `trace.profiler.serve` (an older one refuses `-D` of an
    /// option it does not know).
    pub fn has_profiler_serve(&self) -> bool {
        self.numbers.is_some_and(|n| n >= PROFILER_SERVE_SINCE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_banners() {
        let v = LeanVersion::parse(
            "Lean (version 4.31.0, x86_64-unknown-linux-gnu, commit 6f0e5c1b, Release)\n",
        )
        .unwrap();
        assert_eq!(v.version, "4.31.0");
        assert!(v.supports_profile_output());
        let old = LeanVersion::parse(
            "Lean (version 4.7.0, x86_64-unknown-linux-gnu, commit 6fce8f7d, Release)",
        )
        .unwrap();
        assert!(!old.supports_profile_output());
        assert!(v.has_profiler_serve());
        assert!(!old.has_profiler_serve());
        let v430 = LeanVersion::parse(
            "Lean (version 4.30.0, x86_64-unknown-linux-gnu, commit c, Release)",
        )
        .unwrap();
        assert!(!v430.has_profiler_serve());
        let rc = LeanVersion::parse(
            "Lean (version 4.31.0-rc1, x86_64-unknown-linux-gnu, commit c, Release)",
        )
        .unwrap();
        assert!(rc.has_profiler_serve());
        let rc = LeanVersion::parse(
            "Lean (version 4.22.0-rc1, aarch64-apple-darwin, commit x, Release)",
        )
        .unwrap();
        assert_eq!(
            (rc.version.as_str(), rc.numbers),
            ("4.22.0-rc1", Some((4, 22, 0)))
        );
        assert!(LeanVersion::parse("something else").is_none());
        assert!(!LeanVersion::parse("Lean (version weird)")
            .unwrap()
            .supports_profile_output());
    }
}
