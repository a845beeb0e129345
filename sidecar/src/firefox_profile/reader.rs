//! Reading a profile's JSON by its schema into [`columns`](super::columns): only what leanscope
//! reads is converted, every other value is skipped (its syntax still checked). Keys may come
//! in any order; unknown keys are ignored; a field given twice is an error.

use std::io::Read;

use super::columns::{
    FrameColumns, ProfileMeta, SampleColumns, StackColumns, StringTable, TableColumns,
    ThreadColumns, TimeValue, Times, NO_STACK,
};
use super::{FirefoxProfileError, Layout, ProfileLimits, ReadOptions};
use crate::decimal::decimal_to_ns;
use crate::json_stream::{JsonCursor, JsonError, Number, Scalar};
use crate::limits::Limit;

/// The input, stopped one byte past the size limit.
struct LimitedReader<R> {
    inner: R,
    remaining: u64,
    over: bool,
}

impl<R: Read> Read for LimitedReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        // allow one byte past the limit to tell "exactly at the limit" from "over it"
        let cap = usize::try_from(self.remaining.saturating_add(1)).unwrap_or(usize::MAX);
        let want = buf.len().min(cap);
        let n = self.inner.read(&mut buf[..want])?;
        if n as u64 > self.remaining {
            self.over = true;
            return Err(std::io::Error::other("profile larger than the limit"));
        }
        self.remaining -= n as u64;
        Ok(n)
    }
}

// ------------------------------------------------------------------------------ reading

/// Why reading stopped.
enum Fail {
    Json(Box<JsonError>),
    Limit(Limit),
    Profile(FirefoxProfileError),
}

impl From<Box<JsonError>> for Fail {
    fn from(e: Box<JsonError>) -> Self {
        Fail::Json(e)
    }
}

type Parse<T> = Result<T, Fail>;

/// The column buffers of the thread read last, emptied, for the next thread's columns:
/// reusing them saves allocating (and the kernel zeroing, page by page) fresh memory for
/// every thread of a large profile.
#[derive(Default)]
struct SpareColumns {
    stack: Vec<u32>,
    time: Vec<u64>,
    weight_zero: Vec<bool>,
    frame: Vec<u32>,
    prefix: Vec<Option<u32>>,
    category: Vec<Option<u32>>,
    frame_func: Vec<u32>,
    func_name: Vec<u32>,
}

impl SpareColumns {
    /// Keeps the buffers of a thread's columns (their contents are dropped when they are
    /// filled again).
    fn recycle(samples: SampleColumns, tables: TableColumns) -> Self {
        let stack_table = tables.stack_table.unwrap_or_default();
        SpareColumns {
            stack: samples.stack,
            time: samples.time.map(|t| t.ns).unwrap_or_default(),
            weight_zero: samples.weight_zero.unwrap_or_default(),
            frame: stack_table.frame,
            prefix: stack_table.prefix.unwrap_or_default(),
            category: stack_table.category.unwrap_or_default(),
            frame_func: tables.frame_table.map(|f| f.func).unwrap_or_default(),
            func_name: tables.func_name.unwrap_or_default(),
        }
    }
}

/// A time as written (milliseconds, or heartbeats × 1000) to `10^pow10` of it, exactly;
/// `None` if it is not a time.
fn ms_to_unit(n: Number<'_>, pow10: i32) -> Option<u64> {
    let ns = match n.digits {
        // the usual spelling (`259231447.812903`) in nanoseconds: the digits are the value in
        // units of 10^-fraction_digits ms
        Some(digits) if pow10 == 6 && !n.exponent && n.fraction_digits <= 6 => {
            digits.checked_mul(10u64.pow(6 - n.fraction_digits as u32))?
        }
        _ => decimal_to_ns(n.unsigned_text(), pow10)?,
    };
    // "-0" (and a negative value that rounds to 0) is the time 0
    (!n.negative || ns == 0).then_some(ns)
}

/// Reads the profile's JSON by its schema (see the module's header).
pub(super) struct ProfileReader<R> {
    json: JsonCursor<LimitedReader<R>>,
    limits: ProfileLimits,
    /// `limits` as numbers.
    max_table: usize,
    max_threads: usize,
    max_string: usize,
    layout: Layout,
    /// [`ProfileUnit::pow10`](super::ProfileUnit::pow10) of the times.
    pow10: i32,
    /// Length of the last column read in the current table: the columns of one table have
    /// the same length, so the next one is allocated at that size (0 at a table's start).
    length_hint: usize,
    spare: SpareColumns,
}

/// Fails if a field was already read (reported just after its key).
fn first_time<T, R: Read>(slot: &Option<T>, field: &str, json: &JsonCursor<R>) -> Parse<()> {
    match slot {
        Some(_) => Err(Fail::Json(
            json.error_here(format!("duplicate field `{field}`")),
        )),
        None => Ok(()),
    }
}

/// The value of a required field (reported just after the object).
fn required<T, R: Read>(slot: Option<T>, field: &str, json: &JsonCursor<R>) -> Parse<T> {
    match slot {
        Some(v) => Ok(v),
        None => Err(Fail::Json(
            json.error_here(format!("missing field `{field}`")),
        )),
    }
}

impl<R: Read> ProfileReader<R> {
    pub(super) fn new(reader: R, options: ReadOptions) -> Self {
        let limits = options.limits;
        let as_usize = |l: Limit| usize::try_from(l.value).unwrap_or(usize::MAX);
        let max_string = as_usize(limits.string);
        // Streamed through one buffer; the limit applies to what is read.
        ProfileReader {
            json: JsonCursor::new(LimitedReader {
                inner: reader,
                remaining: limits.bytes.value,
                over: false,
            })
            .with_max_string(limits.string),
            limits,
            max_table: as_usize(limits.table),
            max_threads: as_usize(limits.threads),
            max_string,
            layout: options.layout,
            pow10: options.unit.pow10(),
            length_hint: 0,
            spare: SpareColumns::default(),
        }
    }

    /// Reads the whole profile, handing each thread to `each`; returns `meta` and `shared`.
    pub(super) fn read(
        mut self,
        each: &mut dyn FnMut(usize, &mut ThreadColumns) -> Result<(), FirefoxProfileError>,
    ) -> Result<(ProfileMeta, TableColumns), FirefoxProfileError> {
        let result = self.profile(each);
        self.finish(result)
    }

    /// The outcome of [`ProfileReader::profile`] as the reader's error.
    fn finish<T>(&self, result: Parse<T>) -> Result<T, FirefoxProfileError> {
        let limits = self.limits;
        result.map_err(|fail| match fail {
            Fail::Json(e) => match *e {
                JsonError::Syntax(e) => FirefoxProfileError::Json {
                    line: e.line,
                    column: e.column,
                    reason: e.reason.into_owned(),
                },
                JsonError::TooLong { limit, .. } => FirefoxProfileError::LimitExceeded(limit),
                // (the reader takes no value whole)
                JsonError::ValueTooLarge { max, .. } => {
                    FirefoxProfileError::LimitExceeded(limits.string.with_value(max as u64))
                }
                JsonError::Io(_) if self.json.reader().over => FirefoxProfileError::TooLarge {
                    limit: limits.bytes,
                },
                JsonError::Io(e) => FirefoxProfileError::Io(e),
            },
            Fail::Limit(limit) => FirefoxProfileError::LimitExceeded(limit),
            Fail::Profile(e) => e,
        })
    }

    fn profile(
        &mut self,
        each: &mut dyn FnMut(usize, &mut ThreadColumns) -> Result<(), FirefoxProfileError>,
    ) -> Parse<(ProfileMeta, TableColumns)> {
        self.json.begin_object()?;
        let mut meta = None;
        let mut shared = None;
        let mut saw_threads = false;
        let mut first = true;
        while let Some(key) = self.json.next_key(&mut first)? {
            self.check_string(&key)?;
            match key.as_str() {
                "meta" => meta = Some(self.meta()?),
                "threads" => {
                    saw_threads = true;
                    self.threads(each)?;
                }
                "shared" if self.layout == Layout::Any => {
                    first_time(&shared, "shared", &self.json)?;
                    shared = Some(self.shared()?);
                }
                _ => self.json.skip_value()?,
            }
        }
        if !saw_threads {
            return Err(Fail::Profile(FirefoxProfileError::Missing("threads")));
        }
        self.json.end()?;
        let meta = meta.ok_or(Fail::Profile(FirefoxProfileError::Missing("meta")))?;
        Ok((meta, shared.unwrap_or_default()))
    }

    fn check_string(&self, s: &str) -> Parse<()> {
        if s.len() > self.max_string {
            return Err(Fail::Limit(self.limits.string));
        }
        Ok(())
    }

    fn bounded_string(&mut self) -> Parse<String> {
        let s = self.json.string()?;
        self.check_string(&s)?;
        Ok(s)
    }

    /// A string or `null`.
    fn optional_string(&mut self) -> Parse<Option<String>> {
        if self.json.null()? {
            return Ok(None);
        }
        self.bounded_string().map(Some)
    }

    /// A time as written and in the reader's unit.
    fn time_value(&mut self) -> Parse<TimeValue> {
        let pow10 = self.pow10;
        let n = self.json.number()?;
        Ok((n.text().to_string(), ms_to_unit(n, pow10)))
    }

    fn meta(&mut self) -> Parse<ProfileMeta> {
        self.json.begin_object()?;
        let (mut start_time, mut product, mut categories) = (None, None, None);
        let (mut interval, mut version) = (None, None);
        let mut first = true;
        while let Some(key) = self.json.next_key(&mut first)? {
            match key.as_str() {
                "startTime" => {
                    first_time(&start_time, "startTime", &self.json)?;
                    start_time = Some(self.time_value()?);
                }
                "product" => {
                    first_time(&product, "product", &self.json)?;
                    product = Some(self.optional_string()?);
                }
                "categories" => {
                    first_time(&categories, "categories", &self.json)?;
                    categories = Some(self.categories()?);
                }
                "interval" if self.layout == Layout::Any => {
                    first_time(&interval, "interval", &self.json)?;
                    interval = Some(self.time_value()?);
                }
                "preprocessedProfileVersion" if self.layout == Layout::Any => {
                    first_time(&version, "preprocessedProfileVersion", &self.json)?;
                    version = Some(self.json.u32()?);
                }
                _ => self.json.skip_value()?,
            }
        }
        let end = &self.json;
        Ok(ProfileMeta {
            start_time: match self.layout {
                Layout::Lean => Some(required(start_time, "startTime", end)?),
                Layout::Any => start_time,
            },
            interval,
            product: product.flatten(),
            processed_version: version.map(u64::from),
            categories: categories.unwrap_or_default(),
        })
    }

    /// Reads an array within the table length limit: runs of compact scalars that `fast`
    /// converts in one tight loop, anything else (and what `fast` declines, errors included)
    /// one element at a time by `element`, which gets the element's index. The column is read
    /// into `out` (emptied first), a spare buffer or a new one.
    fn column<T>(
        &mut self,
        mut out: Vec<T>,
        mut fast: impl FnMut(Scalar<'_>) -> Option<T>,
        mut element: impl FnMut(&mut Self, usize) -> Parse<T>,
    ) -> Parse<Vec<T>> {
        self.json.begin_array()?;
        let limit = self.max_table;
        out.clear();
        out.reserve(self.length_hint.min(limit));
        let mut first = true;
        loop {
            let closed = self.json.compact_scalars(&mut first, |scalar| {
                if out.len() >= limit {
                    return false;
                }
                match fast(scalar) {
                    Some(v) => {
                        out.push(v);
                        true
                    }
                    None => false,
                }
            });
            if closed || !self.json.next_element(&mut first)? {
                break;
            }
            if out.len() >= limit {
                return Err(self.table_limit());
            }
            let index = out.len();
            out.push(element(self, index)?);
        }
        self.length_hint = out.len();
        Ok(out)
    }

    fn table_limit(&self) -> Fail {
        Fail::Limit(self.limits.table)
    }

    fn categories(&mut self) -> Parse<Vec<String>> {
        self.length_hint = 0;
        self.column(
            Vec::new(),
            |_| None,
            |r, _| {
                r.json.begin_object()?;
                let mut name = None;
                let mut first = true;
                while let Some(key) = r.json.next_key(&mut first)? {
                    if key == "name" {
                        first_time(&name, "name", &r.json)?;
                        name = Some(r.bounded_string()?);
                    } else {
                        r.json.skip_value()?;
                    }
                }
                required(name, "name", &r.json)
            },
        )
    }

    fn u32_column(&mut self, out: Vec<u32>) -> Parse<Vec<u32>> {
        self.column(out, fast_u32, |r, _| Ok(r.json.u32()?))
    }

    fn optional_u32_column(&mut self, out: Vec<Option<u32>>) -> Parse<Vec<Option<u32>>> {
        self.column(
            out,
            |scalar| match scalar {
                Scalar::Null => Some(None),
                other => fast_u32(other).map(Some),
            },
            |r, _| {
                Ok(if r.json.null()? {
                    None
                } else {
                    Some(r.json.u32()?)
                })
            },
        )
    }

    /// `samples.stack`: in Lean's layout every sample has one; otherwise `null` is
    /// [`NO_STACK`].
    fn stack_column(&mut self, out: Vec<u32>) -> Parse<Vec<u32>> {
        if self.layout == Layout::Lean {
            return self.u32_column(out);
        }
        self.column(
            out,
            |scalar| match scalar {
                Scalar::Null => Some(NO_STACK),
                other => fast_u32(other).filter(|&s| s != NO_STACK),
            },
            |r, _| {
                if r.json.null()? {
                    return Ok(NO_STACK);
                }
                match r.json.u32()? {
                    NO_STACK => Err(Fail::Json(
                        r.json
                            .error_here("invalid value: a stack index out of range"),
                    )),
                    s => Ok(s),
                }
            },
        )
    }

    fn threads(
        &mut self,
        each: &mut dyn FnMut(usize, &mut ThreadColumns) -> Result<(), FirefoxProfileError>,
    ) -> Parse<()> {
        self.json.begin_array()?;
        let mut first = true;
        let mut index = 0;
        while self.json.next_element(&mut first)? {
            let mut raw = self.thread()?;
            if index >= self.max_threads {
                return Err(Fail::Limit(self.limits.threads));
            }
            each(index, &mut raw).map_err(Fail::Profile)?;
            // what `each` left of the thread is reused for the next one's columns
            self.spare = SpareColumns::recycle(raw.samples, raw.tables);
            index += 1;
        }
        Ok(())
    }

    fn thread(&mut self) -> Parse<ThreadColumns> {
        self.json.begin_object()?;
        let (mut name, mut is_main_thread, mut samples) = (None, None, None);
        let mut process_name = None;
        let mut tables = TableColumns::default();
        let mut first = true;
        while let Some(key) = self.json.next_key(&mut first)? {
            match key.as_str() {
                "name" => {
                    first_time(&name, "name", &self.json)?;
                    name = Some(match self.layout {
                        Layout::Lean => Some(self.bounded_string()?),
                        Layout::Any => self.optional_string()?,
                    });
                }
                "processName" if self.layout == Layout::Any => {
                    first_time(&process_name, "processName", &self.json)?;
                    process_name = Some(self.optional_string()?);
                }
                "isMainThread" => {
                    first_time(&is_main_thread, "isMainThread", &self.json)?;
                    is_main_thread = Some(self.json.boolean()?);
                }
                "samples" => {
                    first_time(&samples, "samples", &self.json)?;
                    samples = Some(self.samples()?);
                }
                _ => {
                    if !self.table(&key, &mut tables)? {
                        self.json.skip_value()?;
                    }
                }
            }
        }
        let end = &self.json;
        if self.layout == Layout::Lean {
            required(tables.stack_table.as_ref(), "stackTable", end)?;
            required(tables.frame_table.as_ref(), "frameTable", end)?;
            required(tables.func_name.as_ref(), "funcTable", end)?;
            required(tables.strings.as_ref(), "stringArray", end)?;
        }
        Ok(ThreadColumns {
            name: name.flatten(),
            process_name: process_name.flatten(),
            is_main_thread: is_main_thread.unwrap_or(false),
            samples: required(samples, "samples", end)?,
            tables,
        })
    }

    /// `shared`: the tables threads without their own use.
    fn shared(&mut self) -> Parse<TableColumns> {
        self.json.begin_object()?;
        let mut tables = TableColumns::default();
        let mut first = true;
        while let Some(key) = self.json.next_key(&mut first)? {
            if !self.table(&key, &mut tables)? {
                self.json.skip_value()?;
            }
        }
        Ok(tables)
    }

    /// Reads the value of `key` into `tables` if it is one of the tables; returns whether it
    /// was.
    fn table(&mut self, key: &str, tables: &mut TableColumns) -> Parse<bool> {
        match key {
            "stackTable" => {
                first_time(&tables.stack_table, "stackTable", &self.json)?;
                tables.stack_table = Some(self.stack_table()?);
            }
            "frameTable" => {
                first_time(&tables.frame_table, "frameTable", &self.json)?;
                tables.frame_table = Some(self.frame_table()?);
            }
            "funcTable" => {
                first_time(&tables.func_name, "funcTable", &self.json)?;
                let out = std::mem::take(&mut self.spare.func_name);
                tables.func_name = Some(self.one_column("name", out)?);
            }
            "stringArray" => {
                first_time(&tables.strings, "stringArray", &self.json)?;
                // one string per function, as Lean writes them
                let count = tables.func_name.as_ref().map_or(0, Vec::len);
                tables.strings = Some(self.string_array(count)?);
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    fn samples(&mut self) -> Parse<SampleColumns> {
        self.json.begin_object()?;
        self.length_hint = 0;
        let (mut stack, mut time, mut weight) = (None, None, None);
        let (mut deltas, mut weight_type) = (None, None);
        let any = self.layout == Layout::Any;
        let mut first = true;
        while let Some(key) = self.json.next_key(&mut first)? {
            match key.as_str() {
                "stack" => {
                    first_time(&stack, "stack", &self.json)?;
                    let out = std::mem::take(&mut self.spare.stack);
                    stack = Some(self.stack_column(out)?);
                }
                "time" => {
                    first_time(&time, "time", &self.json)?;
                    time = Some(self.times()?);
                }
                "timeDeltas" if any => {
                    first_time(&deltas, "timeDeltas", &self.json)?;
                    deltas = Some(self.times()?);
                }
                "weightType" if any => {
                    first_time(&weight_type, "weightType", &self.json)?;
                    weight_type = Some(self.optional_string()?);
                }
                "weight" => {
                    first_time(&weight, "weight", &self.json)?;
                    if any && self.json.null()? {
                        weight = Some(None);
                        continue;
                    }
                    let out = std::mem::take(&mut self.spare.weight_zero);
                    weight = Some(Some(self.column(
                        out,
                        |scalar| match scalar {
                            Scalar::Number(n) => Some(n.is_zero()),
                            Scalar::Null if any => Some(false),
                            _ => None,
                        },
                        |r, _| {
                            if any && r.json.null()? {
                                return Ok(false);
                            }
                            Ok(r.json.number()?.is_zero())
                        },
                    )?));
                }
                _ => self.json.skip_value()?,
            }
        }
        let end = &self.json;
        Ok(SampleColumns {
            stack: required(stack, "stack", end)?,
            time: match self.layout {
                Layout::Lean => Some(required(time, "time", end)?),
                Layout::Any => time,
            },
            time_deltas: deltas,
            weight_zero: weight.flatten(),
            weight_type: weight_type.flatten(),
        })
    }

    fn times(&mut self) -> Parse<Times> {
        let mut bad = Vec::new();
        let out = std::mem::take(&mut self.spare.time);
        let pow10 = self.pow10;
        let ns = self.column(
            out,
            |scalar| match scalar {
                // a time that is not one goes the general way, to be kept in `bad`
                Scalar::Number(n) => ms_to_unit(n, pow10),
                _ => None,
            },
            |r, k| {
                let n = r.json.number()?;
                let ns = ms_to_unit(n, pow10).unwrap_or_else(|| {
                    bad.push((k, n.text().to_string()));
                    u64::MAX
                });
                Ok(ns)
            },
        )?;
        Ok(Times { ns, bad })
    }

    fn stack_table(&mut self) -> Parse<StackColumns> {
        self.json.begin_object()?;
        self.length_hint = 0;
        let (mut frame, mut prefix, mut category) = (None, None, None);
        let mut prefix_offset = false;
        let mut first = true;
        while let Some(key) = self.json.next_key(&mut first)? {
            match key.as_str() {
                "frame" => {
                    first_time(&frame, "frame", &self.json)?;
                    let out = std::mem::take(&mut self.spare.frame);
                    frame = Some(self.u32_column(out)?);
                }
                "prefix" => {
                    first_time(&prefix, "prefix", &self.json)?;
                    let out = std::mem::take(&mut self.spare.prefix);
                    prefix = Some(self.optional_u32_column(out)?);
                }
                "category" => {
                    first_time(&category, "category", &self.json)?;
                    let out = std::mem::take(&mut self.spare.category);
                    category = Some(self.optional_u32_column(out)?);
                }
                "prefixOffset" => {
                    prefix_offset = true;
                    self.json.skip_value()?;
                }
                _ => self.json.skip_value()?,
            }
        }
        let end = &self.json;
        Ok(StackColumns {
            frame: required(frame, "frame", end)?,
            prefix: match self.layout {
                Layout::Lean => Some(required(prefix, "prefix", end)?),
                Layout::Any => prefix,
            },
            category,
            prefix_offset,
        })
    }

    fn frame_table(&mut self) -> Parse<FrameColumns> {
        self.json.begin_object()?;
        self.length_hint = 0;
        let (mut func, mut category) = (None, None);
        let mut first = true;
        while let Some(key) = self.json.next_key(&mut first)? {
            match key.as_str() {
                "func" => {
                    first_time(&func, "func", &self.json)?;
                    let out = std::mem::take(&mut self.spare.frame_func);
                    func = Some(self.u32_column(out)?);
                }
                // Lean's frames have their stack's category; other producers' frames carry it
                "category" if self.layout == Layout::Any => {
                    first_time(&category, "category", &self.json)?;
                    category = Some(self.optional_u32_column(Vec::new())?);
                }
                _ => self.json.skip_value()?,
            }
        }
        Ok(FrameColumns {
            func: required(func, "func", &self.json)?,
            category,
        })
    }

    /// An object of which one `u32` column is needed (`funcTable.name`).
    fn one_column(&mut self, field: &'static str, mut out: Vec<u32>) -> Parse<Vec<u32>> {
        self.json.begin_object()?;
        self.length_hint = 0;
        let mut column = None;
        let mut first = true;
        while let Some(key) = self.json.next_key(&mut first)? {
            if key == field {
                first_time(&column, field, &self.json)?;
                column = Some(self.u32_column(std::mem::take(&mut out))?);
            } else {
                self.json.skip_value()?;
            }
        }
        required(column, field, &self.json)
    }

    /// `stringArray`, expected to hold about `count` strings (a hint, within the table limit).
    fn string_array(&mut self, count: usize) -> Parse<StringTable> {
        self.json.begin_array()?;
        let mut table = StringTable::default();
        table.ends.reserve(count.min(self.max_table));
        let mut first = true;
        while self.json.next_element(&mut first)? {
            if table.ends.len() >= self.max_table {
                return Err(self.table_limit());
            }
            let len = self.json.string_into(&mut table.text)?;
            if len > self.max_string {
                return Err(Fail::Limit(self.limits.string));
            }
            table.ends.push(table.text.len());
        }
        Ok(table)
    }
}

/// A compact array element that is a `u32` as [`JsonCursor::u32`] reads it; `None` for
/// anything else, which the general path reads (and reports).
#[inline]
fn fast_u32(scalar: Scalar<'_>) -> Option<u32> {
    match scalar {
        Scalar::Number(n) if n.is_integer() => match n.digits? {
            0 => Some(0),
            v if !n.negative => u32::try_from(v).ok(),
            _ => None,
        },
        _ => None,
    }
}

// ------------------------------------------------------------------------------ rebuilding
