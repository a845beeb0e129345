//! Exact conversion of decimal numbers as text into integers of a smaller unit (nanoseconds,
//! heartbeats), without binary floating point: the one decimal parser of Lean's output, of
//! Firefox profiles and of Chrome traces.
//!
//! Lean prints times in three spellings: `Float.toString` (`std::to_string`, six fractional
//! digits, e.g. `0.013245`), C++ `setprecision(3)` (e.g. `173`, `12.3`, `1e+03`) and JSON numbers
//! (`JsonNumber.toString`, e.g. `259231447.812903`); Chrome traces write microseconds as JSON
//! numbers of any spelling (`1.5E-3`).

/// Significant digits kept from a number; more cannot change a value of a `u64`.
const SIGNIFICANT_DIGITS: usize = 36;

/// Exponents beyond this (either way) are not worth reading digit by digit: the value is 0 or
/// too large whatever the mantissa.
const EXPONENT_CAP: i64 = 10_000;

/// Why a text is not a value in range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecimalError {
    /// Not an unsigned decimal (`digits[.digits][(e|E)[+-]digits]`).
    NotANumber,
    /// A decimal whose value is over `u64::MAX`.
    TooLarge,
}

/// Parses an unsigned decimal (`digits[.digits][(e|E)[+-]digits]`) that counts units of
/// `10^scale_pow10` nanoseconds and returns the value in nanoseconds, rounded to the nearest
/// nanosecond (halves round up). Returns `None` for anything else or for values over `u64::MAX`.
pub(crate) fn decimal_to_ns(text: &str, scale_pow10: i32) -> Option<u64> {
    scaled_decimal(text, scale_pow10).ok()
}

/// [`decimal_to_ns`], telling a text that is not a number from one that is too large.
pub(crate) fn scaled_decimal(text: &str, scale_pow10: i32) -> Result<u64, DecimalError> {
    use DecimalError::{NotANumber, TooLarge};
    let bytes = text.as_bytes();
    let mut i = 0;
    let mut mantissa: u128 = 0;
    let mut significant = 0usize;
    let mut exponent: i64 = 0;
    let mut any_digit = false;
    while i < bytes.len() && bytes[i].is_ascii_digit() {
        push_digit(
            bytes[i],
            &mut mantissa,
            &mut significant,
            &mut exponent,
            false,
        );
        any_digit = true;
        i += 1;
    }
    if i < bytes.len() && bytes[i] == b'.' {
        i += 1;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            push_digit(
                bytes[i],
                &mut mantissa,
                &mut significant,
                &mut exponent,
                true,
            );
            any_digit = true;
            i += 1;
        }
    }
    if !any_digit {
        return Err(NotANumber);
    }
    if i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E') {
        i += 1;
        let negative = match bytes.get(i) {
            Some(b'-') => {
                i += 1;
                true
            }
            Some(b'+') => {
                i += 1;
                false
            }
            _ => false,
        };
        let start = i;
        let mut value: i64 = 0;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            value = (value * 10 + i64::from(bytes[i] - b'0')).min(EXPONENT_CAP + 1);
            i += 1;
        }
        if i == start {
            return Err(NotANumber);
        }
        exponent += if negative { -value } else { value };
    }
    if i != bytes.len() {
        return Err(NotANumber);
    }
    let total = exponent + i64::from(scale_pow10);
    if mantissa == 0 {
        return Ok(0);
    }
    if total >= 0 {
        let value = u32::try_from(total)
            .ok()
            .and_then(|t| 10u128.checked_pow(t))
            .and_then(|factor| mantissa.checked_mul(factor))
            .and_then(|v| u64::try_from(v).ok());
        value.ok_or(TooLarge)
    } else {
        let shift = u32::try_from(-total).unwrap_or(u32::MAX);
        if shift > 38 {
            return Ok(0);
        }
        let divisor = 10u128.pow(shift);
        let quotient = mantissa / divisor;
        let remainder = mantissa % divisor;
        let rounded = if remainder * 2 >= divisor {
            quotient + 1
        } else {
            quotient
        };
        u64::try_from(rounded).map_err(|_| TooLarge)
    }
}

fn push_digit(
    digit: u8,
    mantissa: &mut u128,
    significant: &mut usize,
    exponent: &mut i64,
    fractional: bool,
) {
    let d = u128::from(digit - b'0');
    if *significant == 0 && d == 0 {
        // leading zeros carry no information; fractional ones still shift the exponent
        if fractional {
            *exponent -= 1;
        }
        return;
    }
    if *significant < SIGNIFICANT_DIGITS {
        *mantissa = *mantissa * 10 + d;
        *significant += 1;
        if fractional {
            *exponent -= 1;
        }
    } else if !fractional {
        // dropped integer digit: the value is ten times larger
        *exponent += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_to_string_seconds() {
        assert_eq!(decimal_to_ns("0.013245", 9), Some(13_245_000));
        assert_eq!(decimal_to_ns("0.000001", 9), Some(1_000));
        assert_eq!(decimal_to_ns("12.000000", 9), Some(12_000_000_000));
    }

    #[test]
    fn cxx_precision_three() {
        assert_eq!(decimal_to_ns("173", 6), Some(173_000_000));
        assert_eq!(decimal_to_ns("12.3", 6), Some(12_300_000));
        assert_eq!(decimal_to_ns("1e+03", 6), Some(1_000_000_000));
        assert_eq!(decimal_to_ns("1.23e+03", 9), Some(1_230_000_000_000));
        assert_eq!(decimal_to_ns("4.5e-05", 9), Some(45_000));
    }

    #[test]
    fn rounds_to_nearest_nanosecond() {
        assert_eq!(decimal_to_ns("0.0000004", 9), Some(400));
        assert_eq!(decimal_to_ns("0.0000000004", 9), Some(0));
        assert_eq!(decimal_to_ns("0.0000000005", 9), Some(1));
        assert_eq!(decimal_to_ns("1.2345678", 6), Some(1_234_568));
    }

    #[test]
    fn rejects_non_numbers() {
        for bad in [
            "", ".", "-1", "1.2.3", "1e", "1e+", "abc", "1ms", " 1", "1e99999",
        ] {
            assert_eq!(decimal_to_ns(bad, 9), None, "{bad:?}");
        }
    }

    #[test]
    fn too_large_is_told_from_not_a_number() {
        assert_eq!(
            scaled_decimal("18446744073709551616", 0),
            Err(DecimalError::TooLarge)
        );
        assert_eq!(scaled_decimal("1e99999", 0), Err(DecimalError::TooLarge));
        assert_eq!(scaled_decimal("1e-99999", 0), Ok(0));
        assert_eq!(scaled_decimal("1e+", 0), Err(DecimalError::NotANumber));
    }

    #[test]
    fn overflow_is_none() {
        assert_eq!(decimal_to_ns("18446744073709551616", 0), None);
        assert_eq!(decimal_to_ns("18446744073709551615", 0), Some(u64::MAX));
    }

    #[test]
    fn milliseconds_from_json_numbers() {
        assert_eq!(
            decimal_to_ns("259231447.812903", 6),
            Some(259_231_447_812_903)
        );
        assert_eq!(decimal_to_ns("0", 6), Some(0));
        assert_eq!(decimal_to_ns("-1", 6), None);
    }
}
