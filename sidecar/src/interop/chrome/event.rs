//! The fast path of the Chrome importer: one trace event object parsed in a
//! single pass over its bytes, straight from the input buffer.
//!
//! It reads the fields the importer uses (`ph`, `name`, `cat`, `ts`, `dur`,
//! `pid`, `tid`, `id`, and in `args` the `range`, `range_kind` and `name`)
//! and checks everything else the way `serde_json` would, without keeping
//! it. It records where things are ([`Span`]s into the event's bytes) rather
//! than borrowing them, so that a caller may refill its buffer and try again
//! when the event goes on past the bytes it has ([`Stop::Incomplete`]).
//!
//! It handles the common shape of events only: anything unusual (a `null`
//! field, a duplicate field, a field of an unexpected type, an escaped key,
//! a syntax error, very deep nesting) makes it give up
//! ([`Stop::Bail`]), and the importer reads that event the general way,
//! with `serde_json`, which accepts or rejects it with its own specific
//! message. So this parser must never accept what the general path would
//! reject, nor read a field differently; it may give up on anything.

use std::borrow::Cow;

use crate::json_stream::swar::{digits_value, leading_digits, POWERS_OF_TEN};

pub use crate::json_stream::Stop;

type Parsed<T> = std::result::Result<T, Stop>;

/// A string value's contents (between the quotes) in the event's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub start: u32,
    pub end: u32,
    /// It holds backslash escapes (already checked).
    pub escaped: bool,
}

impl Span {
    /// The string in the event's `text`, borrowed when it has no escapes;
    /// `None` when an escape stands for a lone surrogate.
    pub fn decode<'a>(&self, text: &'a str) -> Option<Cow<'a, str>> {
        let text = text.get(self.start as usize..self.end as usize)?;
        if self.escaped {
            unescape(text).map(Cow::Owned)
        } else {
            Some(Cow::Borrowed(text))
        }
    }
}

/// A `pid`, `tid` or `id`: an integer or a string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdSpan {
    Num(i64),
    Str(Span),
}

/// A number in the event's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Num {
    /// Its text (`start..end`).
    pub start: u32,
    pub end: u32,
    /// Its value in thousandths when it has the plain form `123` or
    /// `123.456` (at most 15 digits and 3 decimals), the usual one of
    /// microsecond times: nanoseconds, exactly as `micros_to_ns` reads it.
    pub thousandths: Option<u64>,
}

/// What the importer reads from `args` (an object).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ArgSpans {
    pub range: Option<[u32; 4]>,
    pub range_kind: Option<Span>,
    pub name: Option<Span>,
}

/// Where the fields of one event are.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EventSpans {
    pub ph: Option<Span>,
    pub name: Option<Span>,
    pub cat: Option<Span>,
    pub ts: Option<Num>,
    pub dur: Option<Num>,
    pub pid: Option<IdSpan>,
    pub tid: Option<IdSpan>,
    pub id: Option<IdSpan>,
    /// leanscope's exact `[start, duration]` in nanoseconds (the event's
    /// own `ns`).
    pub ns: Option<[u64; 2]>,
    pub args: Option<ArgSpans>,
}

/// Nesting deeper than this is left to the general path (whose own limit,
/// `serde_json`'s, is 128).
const FAST_PATH_DEPTH: u32 = 100;

/// Parses the event object at the start of `bytes` (no leading whitespace)
/// into `ev`; returns its length in bytes, up to and including its `}`.
/// Its text is not checked as UTF-8: the caller does that.
pub fn parse_event(bytes: &[u8], ev: &mut EventSpans) -> Parsed<usize> {
    // Offsets are u32: an event is far smaller (MAX_CHROME_EVENT_BYTES), and
    // the caller never offers more than that and a read.
    let bytes = &bytes[..bytes.len().min(u32::MAX as usize)];
    let mut p = Parser { b: bytes, i: 0 };
    *ev = EventSpans::default();
    p.expect(b'{')?;
    p.ws()?;
    if p.peek()? == b'}' {
        p.i += 1;
        return Ok(p.i);
    }
    loop {
        let key = p.key_code()?;
        p.ws()?;
        p.expect(b':')?;
        p.ws()?;
        const PH: u64 = key_code(b"ph");
        const NAME: u64 = key_code(b"name");
        const CAT: u64 = key_code(b"cat");
        const TS: u64 = key_code(b"ts");
        const DUR: u64 = key_code(b"dur");
        const PID: u64 = key_code(b"pid");
        const TID: u64 = key_code(b"tid");
        const ID: u64 = key_code(b"id");
        const ARGS: u64 = key_code(b"args");
        const NS: u64 = key_code(b"ns");
        match key {
            PH => set(&mut ev.ph, p.string()?)?,
            NAME => set(&mut ev.name, p.string()?)?,
            CAT => set(&mut ev.cat, p.string()?)?,
            TS => set(&mut ev.ts, p.number()?)?,
            DUR => set(&mut ev.dur, p.number()?)?,
            PID => set(&mut ev.pid, p.id()?)?,
            TID => set(&mut ev.tid, p.id()?)?,
            ID => set(&mut ev.id, p.id()?)?,
            ARGS => set(&mut ev.args, p.args()?)?,
            NS => set(&mut ev.ns, p.pair()?)?,
            _ => p.skip_value(1)?,
        }
        p.ws()?;
        match p.next()? {
            b',' => p.ws()?,
            b'}' => break,
            _ => return Err(Stop::Bail),
        }
    }
    Ok(p.i)
}

/// A key of up to 7 bytes (which holds no zero byte: control characters
/// end a key's fast read) as a number: its bytes, first byte lowest. Longer
/// keys are [`LONG_KEY`].
const fn key_code(key: &[u8]) -> u64 {
    if key.len() > 7 {
        return LONG_KEY;
    }
    let mut code = 0;
    let mut i = 0;
    while i < key.len() {
        code |= (key[i] as u64) << (8 * i);
        i += 1;
    }
    code
}

/// The [`key_code`] of every key longer than 7 bytes (no short key's code:
/// their top byte is zero).
const LONG_KEY: u64 = u64::MAX;

/// Sets a field seen for the first time (a duplicate is an error of the
/// general path).
fn set<T>(field: &mut Option<T>, value: T) -> Parsed<()> {
    if field.is_some() {
        return Err(Stop::Bail);
    }
    *field = Some(value);
    Ok(())
}

/// Bytes that end the plain run of a string: `"`, `\` and control
/// characters.
fn is_string_special(c: u8) -> bool {
    c < 0x20 || c == b'"' || c == b'\\'
}

/// The bytes of `w` (8 bytes, little-endian) that [`is_string_special`],
/// as their high bits; in a word with one, the lowest set bit is exact.
fn string_specials(w: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // The classic test for a zero byte (or one below n): exact up to the
    // first one, which is all that is used.
    let below = |v: u64, n: u64| v.wrapping_sub(ONES * n) & !v & HIGH;
    below(w ^ (ONES * u64::from(b'"')), 1)
        | below(w ^ (ONES * u64::from(b'\\')), 1)
        | below(w, 0x20)
}

struct Parser<'a> {
    b: &'a [u8],
    i: usize,
}

impl<'a> Parser<'a> {
    #[inline(always)]
    fn peek(&self) -> Parsed<u8> {
        self.b.get(self.i).copied().ok_or(Stop::Incomplete)
    }

    #[inline(always)]
    fn next(&mut self) -> Parsed<u8> {
        let c = self.peek()?;
        self.i += 1;
        Ok(c)
    }

    #[inline(always)]
    fn expect(&mut self, c: u8) -> Parsed<()> {
        if self.next()? == c {
            Ok(())
        } else {
            Err(Stop::Bail)
        }
    }

    #[inline(always)]
    fn ws(&mut self) -> Parsed<()> {
        loop {
            match self.peek()? {
                b' ' | b'\t' | b'\n' | b'\r' => self.i += 1,
                _ => return Ok(()),
            }
        }
    }

    /// An object key without escapes (others go the general way).
    #[inline(always)]
    fn key(&mut self) -> Parsed<&'a [u8]> {
        let s = self.string()?;
        if s.escaped {
            return Err(Stop::Bail);
        }
        Ok(&self.b[s.start as usize..s.end as usize])
    }

    /// An object key without escapes as its [`key_code`]. Usually the key
    /// and both its quotes are in the next 8 bytes: then they are read at
    /// once.
    #[inline(always)]
    fn key_code(&mut self) -> Parsed<u64> {
        if let Some(chunk) = self.b.get(self.i..self.i + 8) {
            let w = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
            if w as u8 == b'"' {
                // The bytes after the opening quote; the top one (shifted
                // in as zero) counts as special, so `n` <= 7.
                let rest = w >> 8;
                let n = string_specials(rest).trailing_zeros() as usize / 8;
                if n < 7 && (rest >> (8 * n)) as u8 == b'"' {
                    self.i += n + 2;
                    return Ok(rest & ((1u64 << (8 * n)) - 1));
                }
            }
        }
        Ok(key_code(self.key()?))
    }

    /// A string value; checks escapes and control characters (the caller
    /// checks that the whole event is UTF-8).
    #[inline(always)]
    fn string(&mut self) -> Parsed<Span> {
        self.expect(b'"')?;
        let start = self.i;
        let mut escaped = false;
        loop {
            while let Some(chunk) = self.b.get(self.i..self.i + 8) {
                let w = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
                let special = string_specials(w);
                if special != 0 {
                    self.i += special.trailing_zeros() as usize / 8;
                    break;
                }
                self.i += 8;
            }
            while let Some(&c) = self.b.get(self.i) {
                if is_string_special(c) {
                    break;
                }
                self.i += 1;
            }
            match self.next()? {
                b'"' => break,
                b'\\' => {
                    escaped = true;
                    match self.next()? {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {}
                        b'u' => {
                            for _ in 0..4 {
                                if !self.next()?.is_ascii_hexdigit() {
                                    return Err(Stop::Bail);
                                }
                            }
                        }
                        _ => return Err(Stop::Bail),
                    }
                }
                _ => return Err(Stop::Bail),
            }
        }
        let end = self.i - 1;
        Ok(Span {
            start: start as u32,
            end: end as u32,
            escaped,
        })
    }

    /// Skips digits; returns how many and their value (wrapping: only
    /// meaningful for up to 19 digits). Eight at a time while the bytes
    /// last (the value wraps the same way).
    #[inline(always)]
    fn digits(&mut self) -> Parsed<(usize, u64)> {
        let from = self.i;
        let mut v: u64 = 0;
        while let Some(chunk) = self.b.get(self.i..self.i + 8) {
            let w = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
            let run = leading_digits(w);
            if run == 0 {
                return Ok((self.i - from, v));
            }
            v = v
                .wrapping_mul(POWERS_OF_TEN[run])
                .wrapping_add(digits_value(w, run));
            self.i += run;
            if run < 8 {
                return Ok((self.i - from, v));
            }
        }
        loop {
            let d = self.peek()?.wrapping_sub(b'0');
            if d > 9 {
                return Ok((self.i - from, v));
            }
            v = v.wrapping_mul(10).wrapping_add(u64::from(d));
            self.i += 1;
        }
    }

    /// A JSON number (its grammar exactly).
    #[inline(always)]
    fn number(&mut self) -> Parsed<Num> {
        let start = self.i;
        let negative = self.peek()? == b'-';
        if negative {
            self.i += 1;
        }
        if !self.peek()?.is_ascii_digit() {
            return Err(Stop::Bail);
        }
        let (int_len, int) = self.digits()?;
        if int_len > 1 && self.b[self.i - int_len] == b'0' {
            return Err(Stop::Bail);
        }
        let (mut frac_len, mut frac) = (0, 0);
        if self.peek()? == b'.' {
            self.i += 1;
            (frac_len, frac) = self.digits()?;
            if frac_len == 0 {
                return Err(Stop::Bail);
            }
        }
        let mut exponent = false;
        if matches!(self.peek()?, b'e' | b'E') {
            exponent = true;
            self.i += 1;
            if matches!(self.peek()?, b'+' | b'-') {
                self.i += 1;
            }
            if self.digits()?.0 == 0 {
                return Err(Stop::Bail);
            }
        }
        let plain = !negative && !exponent && int_len <= 15 && frac_len <= 3;
        Ok(Num {
            start: start as u32,
            end: self.i as u32,
            thousandths: plain.then(|| int * 1000 + frac * 10u64.pow(3 - frac_len as u32)),
        })
    }

    /// A non-negative integer without fraction or exponent, of at most 18
    /// digits (anything else goes the general way).
    fn small_integer(&mut self) -> Parsed<u64> {
        let start = self.i;
        let mut n: u64 = 0;
        while self.peek()?.is_ascii_digit() {
            n = n * 10 + u64::from(self.b[self.i] - b'0');
            self.i += 1;
            if self.i - start > 18 {
                return Err(Stop::Bail);
            }
        }
        let len = self.i - start;
        if len == 0 || (len > 1 && self.b[start] == b'0') {
            return Err(Stop::Bail);
        }
        if matches!(self.peek()?, b'.' | b'e' | b'E') {
            return Err(Stop::Bail);
        }
        Ok(n)
    }

    fn id(&mut self) -> Parsed<IdSpan> {
        match self.peek()? {
            b'"' => Ok(IdSpan::Str(self.string()?)),
            b'-' => {
                self.i += 1;
                match self.small_integer()? {
                    // `-0` is a float to serde_json.
                    0 => Err(Stop::Bail),
                    n => Ok(IdSpan::Num(-(n as i64))),
                }
            }
            _ => Ok(IdSpan::Num(self.small_integer()? as i64)),
        }
    }

    fn args(&mut self) -> Parsed<ArgSpans> {
        let mut a = ArgSpans::default();
        self.expect(b'{')?;
        self.ws()?;
        if self.peek()? == b'}' {
            self.i += 1;
            return Ok(a);
        }
        loop {
            let key = self.key()?;
            self.ws()?;
            self.expect(b':')?;
            self.ws()?;
            match key {
                b"range" => set(&mut a.range, self.range()?)?,
                b"range_kind" => set(&mut a.range_kind, self.string()?)?,
                b"name" => set(&mut a.name, self.string()?)?,
                _ => self.skip_value(2)?,
            }
            self.ws()?;
            match self.next()? {
                b',' => self.ws()?,
                b'}' => return Ok(a),
                _ => return Err(Stop::Bail),
            }
        }
    }

    /// leanscope's `[start line, start column, end line, end column]`.
    fn range(&mut self) -> Parsed<[u32; 4]> {
        let mut r = [0u32; 4];
        self.expect(b'[')?;
        for (k, v) in r.iter_mut().enumerate() {
            self.ws()?;
            *v = u32::try_from(self.small_integer()?).map_err(|_| Stop::Bail)?;
            self.ws()?;
            self.expect(if k == 3 { b']' } else { b',' })?;
        }
        Ok(r)
    }

    /// leanscope's `[start, duration]`: two small non-negative integers.
    fn pair(&mut self) -> Parsed<[u64; 2]> {
        let mut r = [0u64; 2];
        self.expect(b'[')?;
        for (k, v) in r.iter_mut().enumerate() {
            self.ws()?;
            *v = self.small_integer()?;
            self.ws()?;
            self.expect(if k == 1 { b']' } else { b',' })?;
        }
        Ok(r)
    }

    /// Checks and skips any value, nested `depth` deep already.
    fn skip_value(&mut self, depth: u32) -> Parsed<()> {
        // Open containers, innermost last: true for an object.
        let mut open: Vec<bool> = Vec::new();
        loop {
            // A value.
            match self.peek()? {
                b'{' | b'[' => {
                    let object = self.next()? == b'{';
                    self.ws()?;
                    let close = if object { b'}' } else { b']' };
                    if self.peek()? == close {
                        self.i += 1;
                    } else {
                        if depth + open.len() as u32 >= FAST_PATH_DEPTH {
                            return Err(Stop::Bail);
                        }
                        open.push(object);
                        if object {
                            self.member_key()?;
                        }
                        continue;
                    }
                }
                b'"' => {
                    self.string()?;
                }
                b'-' | b'0'..=b'9' => {
                    self.number()?;
                }
                b't' => self.literal(b"true")?,
                b'f' => self.literal(b"false")?,
                b'n' => self.literal(b"null")?,
                _ => return Err(Stop::Bail),
            }
            // After a value: close containers until another value follows.
            loop {
                let Some(&object) = open.last() else {
                    return Ok(());
                };
                self.ws()?;
                match self.next()? {
                    b',' => {
                        self.ws()?;
                        if object {
                            self.member_key()?;
                        }
                        break;
                    }
                    b'}' if object => {
                        open.pop();
                    }
                    b']' if !object => {
                        open.pop();
                    }
                    _ => return Err(Stop::Bail),
                }
            }
        }
    }

    /// A key of a skipped object and its `:`, up to its value.
    fn member_key(&mut self) -> Parsed<()> {
        self.string()?;
        self.ws()?;
        self.expect(b':')?;
        self.ws()
    }

    fn literal(&mut self, word: &[u8]) -> Parsed<()> {
        for &c in word {
            if self.next()? != c {
                return Err(Stop::Bail);
            }
        }
        Ok(())
    }
}

/// Decodes the escapes of a checked JSON string's contents; `None` for a
/// lone surrogate.
fn unescape(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    let hex = |chars: &mut std::str::Chars| -> Option<u32> {
        let mut v = 0;
        for _ in 0..4 {
            v = v * 16 + chars.next()?.to_digit(16)?;
        }
        Some(v)
    };
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        out.push(match chars.next()? {
            'b' => '\u{8}',
            'f' => '\u{c}',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'u' => {
                let u = hex(&mut chars)?;
                let code = match u {
                    0xD800..=0xDBFF => {
                        if chars.next()? != '\\' || chars.next()? != 'u' {
                            return None;
                        }
                        let low = hex(&mut chars)?;
                        if !(0xDC00..=0xDFFF).contains(&low) {
                            return None;
                        }
                        0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00)
                    }
                    0xDC00..=0xDFFF => return None,
                    u => u,
                };
                char::from_u32(code)?
            }
            other => other,
        });
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(b: &[u8]) -> Parsed<usize> {
        parse_event(b, &mut EventSpans::default())
    }

    fn text<'a>(b: &'a [u8], s: Option<Span>) -> Cow<'a, str> {
        s.unwrap().decode(std::str::from_utf8(b).unwrap()).unwrap()
    }

    #[test]
    fn reads_the_fields_of_a_common_event() {
        let b = br#"{"ph":"X","name":"simp \"x\" \u00e9\ud83d\ude00","cat":"Elab.step","ts":12.5,"dur":3,"pid":1,"tid":-7,"id":"0x1","other":{"a":[1,2.5e-3,true,null,{"b":"c"}]},"args":{"file":"F.lean","range":[1, 2 ,3,4],"range_kind":"exact","name":"w"}} tail"#;
        let mut ev = EventSpans::default();
        let len = parse_event(b, &mut ev).unwrap();
        assert_eq!(&b[len..], b" tail");
        assert_eq!(text(b, ev.ph), "X");
        assert_eq!(text(b, ev.name), "simp \"x\" é😀");
        assert_eq!(text(b, ev.cat), "Elab.step");
        let num = |s: Option<Num>| {
            let n = s.unwrap();
            let text = std::str::from_utf8(&b[n.start as usize..n.end as usize]).unwrap();
            (text, n.thousandths)
        };
        assert_eq!(num(ev.ts), ("12.5", Some(12_500)));
        assert_eq!(num(ev.dur), ("3", Some(3_000)));
        assert_eq!(ev.pid, Some(IdSpan::Num(1)));
        assert_eq!(ev.tid, Some(IdSpan::Num(-7)));
        let Some(IdSpan::Str(id)) = ev.id else {
            panic!("{:?}", ev.id)
        };
        assert_eq!(text(b, Some(id)), "0x1");
        let args = ev.args.unwrap();
        assert_eq!(args.range, Some([1, 2, 3, 4]));
        assert_eq!(text(b, args.range_kind), "exact");
        assert_eq!(text(b, args.name), "w");
        assert_eq!(parse(b"{ }"), Ok(3));
        for (text, thousandths) in [
            ("0", Some(0)),
            ("0.001", Some(1)),
            ("141171.917", Some(141_171_917)),
            ("999999999999999.999", Some(999_999_999_999_999_999)),
            ("1000000000000000", None),
            ("1.2345", None),
            ("-1", None),
            ("1e3", None),
        ] {
            let b = format!("{{\"ts\":{text}}}");
            let mut ev = EventSpans::default();
            parse_event(b.as_bytes(), &mut ev).unwrap();
            assert_eq!(ev.ts.unwrap().thousandths, thousandths, "{text}");
        }
    }

    #[test]
    fn finds_special_bytes_eight_at_a_time() {
        for c in 0..=255u8 {
            for at in 0..8 {
                let mut w = *b"abcdefgh";
                w[at] = c;
                // Anything after the first special byte may be flagged.
                w[(at + 1)..].fill(if at % 2 == 0 { b'"' } else { 0xff });
                let m = string_specials(u64::from_le_bytes(w));
                let first = (m != 0).then(|| m.trailing_zeros() as usize / 8);
                let want = w.iter().position(|&b| is_string_special(b));
                assert_eq!(first, want, "{c:#x} at {at}");
            }
        }
    }

    #[test]
    fn stops_at_the_end_of_the_bytes() {
        let b = br#"{"ph":"X","ts":1,"args":{"x":[1,{"y":"z"}]}}"#;
        for n in 0..b.len() {
            assert_eq!(parse(&b[..n]), Err(Stop::Incomplete), "{n}");
        }
        assert_eq!(parse(b), Ok(b.len()));
    }

    #[test]
    fn gives_up_on_anything_unusual() {
        let bail = [
            r#"[1]"#,
            r#"{"ph":"X",}"#,
            r#"{"ph":"X" "ts":1}"#,
            r#"{"ph":null}"#,
            r#"{"ph":"X","ph":"B"}"#,
            r#"{"ph":5}"#,
            r#"{"p\u0068":"X"}"#,
            r#"{"ts":01}"#,
            r#"{"ts":1.}"#,
            r#"{"ts":-}"#,
            r#"{"ts":1e}"#,
            r#"{"ts":"1"}"#,
            r#"{"tid":1.5}"#,
            r#"{"tid":1e3}"#,
            r#"{"tid":-0}"#,
            r#"{"tid":12345678901234567890}"#,
            r#"{"args":[1]}"#,
            r#"{"args":null}"#,
            r#"{"args":{"range":[1,2,3]}}"#,
            r#"{"args":{"range":[1,2,3,4,5]}}"#,
            r#"{"args":{"range":[1,2,3,4294967296]}}"#,
            r#"{"args":{"range_kind":1}}"#,
            r#"{"args":{"name":"a","name":"b"}}"#,
            r#"{"x":[1,]}"#,
            r#"{"x":{"a":1,}}"#,
            r#"{"x":{"a" 1}}"#,
            r#"{"x":[1}"#,
            r#"{"x":tru}"#,
            r#"{"x":"\q"}"#,
            r#"{"x":"\u12g4"}"#,
            "{\"x\":\"a\tb\"}",
        ];
        for text in bail {
            assert_eq!(parse(text.as_bytes()), Err(Stop::Bail), "{text}");
        }
        // Non-ASCII bytes outside strings.
        assert_eq!(parse("{\"x\":é}".as_bytes()), Err(Stop::Bail));
        let deep = format!("{{\"x\":{}{}}}", "[".repeat(200), "]".repeat(200));
        assert_eq!(parse(deep.as_bytes()), Err(Stop::Bail));
        // A lone surrogate parses but does not decode.
        let b = r#"{"name":"\ud800"}"#;
        let mut ev = EventSpans::default();
        parse_event(b.as_bytes(), &mut ev).unwrap();
        let name = ev.name.unwrap();
        assert_eq!(name.decode(b), None);
    }
}
