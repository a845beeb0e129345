//! LEB128 varints and zigzag encoding for the columnar event batches.

/// Appends `v` as an unsigned LEB128 varint.
#[inline]
pub fn put_u64(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Appends `v` zigzag-encoded.
#[inline]
pub fn put_i64(out: &mut Vec<u8>, v: i64) {
    put_u64(out, zigzag(v));
}

#[inline]
pub fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

#[inline]
pub fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// A cursor over one varint column.
pub struct Column<'a> {
    bytes: &'a [u8],
    pos: usize,
}

/// Why a column could not be read.
#[derive(Debug, PartialEq, Eq)]
pub enum ColumnError {
    /// The column ended in the middle of a value or before all values.
    Short,
    /// A varint longer than 10 bytes or wider than 64 bits.
    Overlong,
}

impl<'a> Column<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Column { bytes, pos: 0 }
    }

    #[inline]
    pub fn next_u64(&mut self) -> Result<u64, ColumnError> {
        // Most values (deltas, ids, threads) fit in one byte.
        if let Some(&b) = self.bytes.get(self.pos) {
            if b < 0x80 {
                self.pos += 1;
                return Ok(u64::from(b));
            }
        }
        // The cursor is passed on by value, so that it can stay in
        // registers in the callers' loops.
        let rest = self.bytes.get(self.pos..).unwrap_or_default();
        let (v, len) = long_u64(rest)?;
        self.pos += len;
        Ok(v)
    }

    /// True when every byte was consumed.
    pub fn is_done(&self) -> bool {
        self.pos == self.bytes.len()
    }
}

/// A value of two bytes or more at the start of `rest`, and its length.
/// With eight bytes at hand, the value's end is found and its 7-bit groups
/// joined without a loop per byte.
#[inline]
fn long_u64(rest: &[u8]) -> Result<(u64, usize), ColumnError> {
    if let Some(word) = rest.first_chunk::<8>() {
        let w = u64::from_le_bytes(*word);
        // The first byte without its continuation bit ends the value.
        let ends = !w & 0x8080_8080_8080_8080;
        if ends != 0 {
            let len = ends.trailing_zeros() / 8 + 1;
            let mut v = w & (u64::MAX >> (64 - 8 * len)) & 0x7f7f_7f7f_7f7f_7f7f;
            // Close the gaps: 7-bit groups in bytes, 14 in 16-bit lanes,
            // 28 in 32-bit lanes, then 56 bits.
            v = (v & 0x007f_007f_007f_007f) | ((v & 0x7f00_7f00_7f00_7f00) >> 1);
            v = (v & 0x0000_3fff_0000_3fff) | ((v & 0x3fff_0000_3fff_0000) >> 2);
            v = (v & 0x0000_0000_0fff_ffff) | ((v & 0x0fff_ffff_0000_0000) >> 4);
            return Ok((v, len as usize));
        }
    }
    bytewise_u64(rest)
}

/// A value read a byte at a time: near the column's end, and for values
/// of nine bytes or more.
#[cold]
#[inline(never)]
fn bytewise_u64(rest: &[u8]) -> Result<(u64, usize), ColumnError> {
    let mut result: u64 = 0;
    let mut shift = 0u32;
    for (i, &b) in rest.iter().enumerate() {
        if shift == 63 && b > 1 {
            return Err(ColumnError::Overlong);
        }
        result |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return Ok((result, i + 1));
        }
        shift += 7;
        if shift > 63 {
            return Err(ColumnError::Overlong);
        }
    }
    Err(ColumnError::Short)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_edges() {
        let values = [0u64, 1, 127, 128, 16_383, 16_384, u32::MAX as u64, u64::MAX];
        let mut buf = Vec::new();
        for v in values {
            put_u64(&mut buf, v);
        }
        let mut c = Column::new(&buf);
        for v in values {
            assert_eq!(c.next_u64(), Ok(v));
        }
        assert!(c.is_done());
        assert_eq!(c.next_u64(), Err(ColumnError::Short));
    }

    /// The word-at-a-time path against a byte-at-a-time reading, for every
    /// length and with the value at every offset from the column's end.
    #[test]
    fn fast_path_agrees_with_bytewise() {
        let mut values = vec![
            0u64,
            1,
            127,
            128,
            300,
            u64::MAX,
            1 << 55,
            (1 << 56) - 1,
            1 << 56,
        ];
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for bits in 0..64 {
            for _ in 0..50 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                values.push(x >> (63 - bits));
            }
        }
        let mut buf = Vec::new();
        for &v in &values {
            put_u64(&mut buf, v);
        }
        // Non-minimal spellings are read too.
        buf.extend_from_slice(&[0x85, 0x80, 0x80, 0x00]);
        values.push(5);
        let mut c = Column::new(&buf);
        let mut at = 0;
        for &v in &values {
            let (slow, len) = bytewise_u64(&buf[at..]).unwrap();
            assert_eq!(slow, v);
            at += len;
            assert_eq!(c.next_u64(), Ok(v));
            assert_eq!(c.pos, at);
        }
        assert!(c.is_done());
    }

    #[test]
    fn zigzag_round_trips() {
        for v in [0i64, -1, 1, i64::MIN, i64::MAX, -123_456] {
            assert_eq!(unzigzag(zigzag(v)), v);
        }
        assert_eq!(zigzag(-1), 1);
        assert_eq!(zigzag(1), 2);
    }

    #[test]
    fn rejects_overlong_varints() {
        let buf = [0xffu8; 11];
        assert_eq!(Column::new(&buf).next_u64(), Err(ColumnError::Overlong));
        let mut ten = vec![0xffu8; 9];
        ten.push(0x02); // 65th bit set
        assert_eq!(Column::new(&ten).next_u64(), Err(ColumnError::Overlong));
    }
}
