//! Writing JSON text quickly, for the exporters that stream millions of
//! events: numbers and strings appended to a byte buffer, which the caller
//! hands to its writer whenever it has grown past [`FLUSH_BYTES`].

use std::io::Write;

/// How much an exporter gathers before it writes it out.
pub const FLUSH_BYTES: usize = 1 << 20;

/// Appends `n` in decimal.
#[inline]
pub fn uint(out: &mut Vec<u8>, n: u64) {
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

/// Appends `s` as a JSON string (quoted, escaped).
#[inline]
pub fn string(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    let b = s.as_bytes();
    let mut from = 0;
    for (i, &c) in b.iter().enumerate() {
        let esc: &[u8] = match c {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0..=0x1f => b"",
            _ => continue,
        };
        out.extend_from_slice(&b[from..i]);
        if esc.is_empty() {
            out.extend_from_slice(b"\\u00");
            out.push(HEX[usize::from(c >> 4)]);
            out.push(HEX[usize::from(c & 15)]);
        } else {
            out.extend_from_slice(esc);
        }
        from = i + 1;
    }
    out.extend_from_slice(&b[from..]);
    out.push(b'"');
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Writes `buf` out and empties it once it holds [`FLUSH_BYTES`].
#[inline]
pub fn flush_when_full<W: Write>(out: &mut W, buf: &mut Vec<u8>) -> std::io::Result<()> {
    if buf.len() >= FLUSH_BYTES {
        out.write_all(buf)?;
        buf.clear();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn strings_read_back_as_serde_json_reads_them() {
        for s in [
            "",
            "plain",
            "a\"b\\c",
            "line\nbreak\r\t",
            "\u{1}\u{1f}x",
            "é😀;",
        ] {
            let mut out = Vec::new();
            super::string(&mut out, s);
            let back: String = serde_json::from_slice(&out).unwrap();
            assert_eq!(back, s);
        }
        let mut out = Vec::new();
        super::uint(&mut out, u64::MAX);
        assert_eq!(out, u64::MAX.to_string().as_bytes());
    }
}
