//! The times of a Chrome trace: `ts` and `dur` are microseconds, written
//! as JSON numbers of any spelling (`1.5`, `1.5E-3`); they are read as
//! exact decimals ([`crate::decimal`]) and rounded to whole nanoseconds, and
//! checked against leanscope's exact nanoseconds (an event's `ns`) when the
//! trace has them.

use recording::limits::MAX_TIME_NS;

use super::FORMAT;
use crate::decimal::{scaled_decimal, DecimalError};
use crate::interop::error::{InteropError, Result};

/// A `ts` or `dur`: its JSON text, and its value in nanoseconds when the
/// fast path read it (the usual plain form).
#[derive(Clone, Copy)]
pub(super) struct Time<'a> {
    pub text: &'a str,
    pub ns: Option<u64>,
}

/// Why a microsecond text is not a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeError {
    NotANumber,
    Negative,
    /// Over `u64::MAX` nanoseconds.
    TooLarge,
}

/// A microsecond decimal (JSON number text) as whole nanoseconds, rounded
/// half up; exact for up to three decimals. `-0` is 0.
pub fn micros_to_ns(text: &str) -> std::result::Result<u64, TimeError> {
    match plain_micros_to_ns(text.as_bytes()) {
        Some(ns) => Ok(ns),
        None => any_micros_to_ns(text),
    }
}

/// [`micros_to_ns`] of any form.
fn any_micros_to_ns(text: &str) -> std::result::Result<u64, TimeError> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(digits) => (true, digits),
        None => (false, text),
    };
    match scaled_decimal(digits, 3) {
        Ok(0) => Ok(0),
        Ok(_) | Err(DecimalError::TooLarge) if negative => Err(TimeError::Negative),
        Ok(ns) => Ok(ns),
        Err(DecimalError::TooLarge) => Err(TimeError::TooLarge),
        Err(DecimalError::NotANumber) => Err(TimeError::NotANumber),
    }
}

/// [`micros_to_ns`] of the usual form, `123` or `123.4` (up to 15 digits,
/// up to 3 decimals: exact in an i64), quickly; `None` for another form.
fn plain_micros_to_ns(t: &[u8]) -> Option<u64> {
    let (int, frac) = match memchr::memchr(b'.', t) {
        Some(dot) => (&t[..dot], &t[dot + 1..]),
        None => (t, &t[t.len()..]),
    };
    if int.is_empty()
        || int.len() > 15
        || frac.len() > 3
        || (frac.is_empty() && int.len() < t.len())
    {
        return None;
    }
    let mut ns: i64 = 0;
    for &d in int.iter().chain(frac) {
        if !d.is_ascii_digit() {
            return None;
        }
        ns = ns * 10 + i64::from(d - b'0');
    }
    for _ in frac.len()..3 {
        ns *= 10;
    }
    Some(ns as u64)
}

/// The time `field` (`ts` or `dur`) of the event at `where_`, in
/// nanoseconds within the recording's limit.
pub(super) fn time_field(
    v: Option<Time>,
    field: &str,
    where_: &dyn Fn() -> String,
) -> Result<Option<u64>> {
    let Some(Time { text: v, ns }) = v else {
        return Ok(None);
    };
    let bad = |why: String| InteropError::invalid(FORMAT, format!("{}.{field}", where_()), why);
    let ns = match ns {
        Some(ns) => ns,
        None => micros_to_ns(v).map_err(|e| {
            bad(match e {
                TimeError::NotANumber => format!("`{v}` is not a number"),
                TimeError::Negative => format!("`{field}` is negative ({v})"),
                TimeError::TooLarge => format!("`{field}` is too large ({v})"),
            })
        })?,
    };
    if ns > MAX_TIME_NS {
        return Err(bad(format!("`{field}` is too large ({v})")));
    }
    Ok(Some(ns))
}

/// An `X` event's start and duration in nanoseconds: those of `ns`
/// (leanscope's exact times) when present, which must agree with `ts` and
/// `dur` (read as nanoseconds) as leanscope writes them: each time rounded
/// down to a step of 1/1024 µs, so `ts` and `ts + dur` are within
/// [`NS_SLACK`] of the start and the end.
pub(super) fn exact_times(
    (ts, dur): (u64, u64),
    ns: Option<[u64; 2]>,
    where_: &dyn Fn() -> String,
) -> Result<(u64, u64)> {
    let Some([start, d]) = ns else {
        return Ok((ts, dur));
    };
    let bad = |why: String| InteropError::invalid(FORMAT, format!("{}.ns", where_()), why);
    let end = start
        .checked_add(d)
        .filter(|&e| e <= recording::limits::MAX_TIME_NS)
        .ok_or_else(|| bad(format!("`ns` [{start}, {d}] ends past the largest time")))?;
    let near = |exact: u64, written: u64| exact.abs_diff(written) <= NS_SLACK;
    if !near(start, ts) || !near(end, ts + dur) {
        return Err(bad(format!(
            "`ns` [{start}, {d}] disagrees with `ts` and `dur` ({ts} and {dur} ns; \
             leanscope writes the start and the end of `ns` rounded down to 1/1024 µs)"
        )));
    }
    Ok((start, d))
}

/// How far `ts` and `ts + dur`, read as whole nanoseconds, may be from
/// the exact times of `ns`: a step (under 1 ns) of rounding down on
/// writing, and the rounding of each of `ts` and `dur` to nanoseconds.
const NS_SLACK: u64 = 2;

#[cfg(test)]
mod tests {
    use super::{any_micros_to_ns, micros_to_ns, plain_micros_to_ns, TimeError};

    #[test]
    fn the_quick_path_of_microseconds_agrees_with_the_general_one() {
        let mut texts: Vec<String> = ["0", "0.0", "7", "1.", ".5", "00.5", "1.5e3", "-1.5"]
            .map(String::from)
            .to_vec();
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        for _ in 0..100_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let int = x % 10u64.pow((x >> 40) as u32 % 17);
            let decimals = (x >> 50) as usize % 5;
            let frac = format!("{:04}", (x >> 20) % 10_000);
            texts.push(if decimals == 0 {
                int.to_string()
            } else {
                format!("{int}.{}", &frac[..decimals])
            });
        }
        for t in &texts {
            if let Some(ns) = plain_micros_to_ns(t.as_bytes()) {
                assert_eq!(Ok(ns), any_micros_to_ns(t), "{t}");
            }
        }
        assert_eq!(plain_micros_to_ns(b"141171.917"), Some(141_171_917));
    }

    #[test]
    fn microsecond_decimals_become_exact_nanoseconds() {
        let table = [
            ("0", 0),
            ("1", 1000),
            ("1.234", 1234),
            ("1.2345", 1235),
            ("1.2344", 1234),
            ("1e3", 1_000_000),
            ("1.5E-3", 2),
            ("0.0004", 0),
            ("141171.917", 141_171_917),
            ("1700000000000000.001", 1_700_000_000_000_000_001),
        ];
        for (text, ns) in table {
            assert_eq!(micros_to_ns(text), Ok(ns), "{text}");
        }
        for bad in ["", "-", "1.2.3", "abc", "1e", "\"1\"", "1e40", "."] {
            assert!(micros_to_ns(bad).is_err(), "{bad}");
        }
        assert_eq!(micros_to_ns("-2.5"), Err(TimeError::Negative));
        assert_eq!(micros_to_ns("-1e40"), Err(TimeError::Negative));
        assert_eq!(micros_to_ns("-0.0"), Ok(0));
        assert_eq!(micros_to_ns("1e40"), Err(TimeError::TooLarge));
    }
}
