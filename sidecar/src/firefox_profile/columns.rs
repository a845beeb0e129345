//! The columns of a Firefox profile as the reader hands them over: per thread its samples and
//! tables (`stackTable`, `frameTable`, `funcTable.name`, `stringArray`), and `meta`. Only the
//! columns some reader of leanscope needs are kept; indices are checked by whoever uses them.

/// The columns of `meta` and `shared` (the tables of every thread that has none of its own,
/// in newer layouts), which may come after the threads.
#[derive(Debug, Default)]
pub struct ProfileColumns {
    pub meta: ProfileMeta,
    pub shared: TableColumns,
}

/// The strings of one thread (`stringArray`), in one buffer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StringTable {
    pub(super) text: String,
    /// End offset in `text` of each string; a string starts where the previous one ends.
    pub(super) ends: Vec<usize>,
}

impl StringTable {
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Bytes of all strings together.
    pub fn text_bytes(&self) -> usize {
        self.text.len()
    }

    pub fn get(&self, index: usize) -> Option<&str> {
        let end = *self.ends.get(index)?;
        let start = match index {
            0 => 0,
            _ => self.ends[index - 1],
        };
        self.text.get(start..end)
    }
}

/// A time column (`samples.time` or `samples.timeDeltas`) in the reader's unit. A value that is
/// not one (negative, too large) is kept as `u64::MAX` with its text in `bad`, so that it is
/// reported only if a reader of the column reaches it.
#[derive(Debug, Default)]
pub struct Times {
    pub(super) ns: Vec<u64>,
    pub(super) bad: Vec<(usize, String)>,
}

impl Times {
    pub fn len(&self) -> usize {
        self.ns.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ns.is_empty()
    }

    /// The `k`th value, or its text when it is not a time.
    pub fn get(&self, k: usize) -> Result<u64, &str> {
        let ns = self.ns[k];
        if ns == u64::MAX {
            if let Ok(i) = self.bad.binary_search_by_key(&k, |&(j, _)| j) {
                return Err(&self.bad[i].1);
            }
        }
        Ok(ns)
    }
}

/// A number as written and, when it is a time, in the reader's unit.
pub type TimeValue = (String, Option<u64>);

/// The parts of `meta` the readers need.
#[derive(Debug, Default)]
pub struct ProfileMeta {
    /// `startTime`.
    pub start_time: Option<TimeValue>,
    /// `interval`: the sampling interval.
    pub interval: Option<TimeValue>,
    /// `product` (`"lean"` for Lean's profiles).
    pub product: Option<String>,
    /// `preprocessedProfileVersion`: only processed profiles have it.
    pub processed_version: Option<u64>,
    /// `categories[].name`.
    pub categories: Vec<String>,
}

/// [`SampleColumns::stack`] of a sample without a stack (`null`): never a stack index, as
/// tables are shorter than [`MAX_PROFILE_TABLE_ROWS`](crate::limits::MAX_PROFILE_TABLE_ROWS).
pub const NO_STACK: u32 = u32::MAX;

/// The columns of one thread.
#[derive(Debug, Default)]
pub struct ThreadColumns {
    pub name: Option<String>,
    pub process_name: Option<String>,
    pub is_main_thread: bool,
    pub samples: SampleColumns,
    pub tables: TableColumns,
}

/// `samples`.
#[derive(Debug, Default)]
pub struct SampleColumns {
    /// Stack of each sample, [`NO_STACK`] for none.
    pub stack: Vec<u32>,
    pub time: Option<Times>,
    pub time_deltas: Option<Times>,
    /// Whether each `weight` is zero (`null` is not).
    pub weight_zero: Option<Vec<bool>>,
    pub weight_type: Option<String>,
}

/// The tables a thread's samples refer to (in the thread, or `shared`).
#[derive(Debug, Default)]
pub struct TableColumns {
    pub stack_table: Option<StackColumns>,
    pub frame_table: Option<FrameColumns>,
    /// `funcTable.name`
    pub func_name: Option<Vec<u32>>,
    pub strings: Option<StringTable>,
}

/// `stackTable`.
#[derive(Debug, Default)]
pub struct StackColumns {
    pub frame: Vec<u32>,
    pub prefix: Option<Vec<Option<u32>>>,
    pub category: Option<Vec<Option<u32>>>,
    /// Stacks are stored as `prefixOffset` (a newer layout, not read).
    pub prefix_offset: bool,
}

/// `frameTable`.
#[derive(Debug, Default)]
pub struct FrameColumns {
    pub func: Vec<u32>,
    pub category: Option<Vec<Option<u32>>>,
}
