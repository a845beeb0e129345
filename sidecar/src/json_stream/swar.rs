//! Reading ASCII digits eight at a time (SWAR: a `u64` as eight bytes),
//! shared by the numbers of [`JsonCursor`](super::JsonCursor) (Lean's
//! Firefox profile, the importers) and of the Chrome trace event parser
//! (`interop::chrome::event`).

/// 10^k for the k (0..=8) digits [`digits_value`] reads at once.
pub const POWERS_OF_TEN: [u64; 9] = [
    1,
    10,
    100,
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
];

/// How many of the eight bytes of `word` (first byte lowest) are ASCII digits before the
/// first one that is not.
#[inline]
pub fn leading_digits(word: u64) -> usize {
    const HIGH: u64 = 0xF0F0_F0F0_F0F0_F0F0;
    const ZEROS: u64 = 0x3030_3030_3030_3030;
    // a byte is a digit when its high nibble is 3 and adding 6 keeps it so; a carry out of a
    // byte (>= 0xFA, already not a digit) only disturbs the bytes after it
    let not_digit =
        ((word & HIGH) ^ ZEROS) | ((word.wrapping_add(0x0606_0606_0606_0606) & HIGH) ^ ZEROS);
    (not_digit.trailing_zeros() / 8) as usize
}

/// The value of the first `run` (1..=8) bytes of `word`, all ASCII digits, first byte most
/// significant.
#[inline]
pub fn digits_value(word: u64, run: usize) -> u64 {
    // the digits moved to the top, below them zeros: leading zeros of the same value
    let v = (word & 0x0F0F_0F0F_0F0F_0F0F) << (8 * (8 - run));
    let v = (v.wrapping_mul(10 << 8 | 1) >> 8) & 0x00FF_00FF_00FF_00FF;
    let v = (v.wrapping_mul(100 << 16 | 1) >> 16) & 0x0000_FFFF_0000_FFFF;
    v.wrapping_mul(10_000 << 32 | 1) >> 32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_runs_of_digits() {
        for text in [
            "",
            "7",
            "12x",
            "0123456",
            "98765432",
            "1234567890",
            "4.5",
            "9:",
        ] {
            let mut w = [b' '; 8];
            let n = text.len().min(8);
            w[..n].copy_from_slice(&text.as_bytes()[..n]);
            let word = u64::from_le_bytes(w);
            let run = text.bytes().take(8).take_while(u8::is_ascii_digit).count();
            assert_eq!(leading_digits(word), run, "{text}");
            if run > 0 {
                assert_eq!(
                    digits_value(word, run),
                    text[..run].parse::<u64>().unwrap(),
                    "{text}"
                );
            }
        }
        for b in 0..=255u8 {
            let word = u64::from_le_bytes([b, b'1', b'2', b'3', b'4', b'5', b'6', b'7']);
            let want = if b.is_ascii_digit() { 8 } else { 0 };
            assert_eq!(leading_digits(word), want, "{b:#x}");
        }
    }
}
