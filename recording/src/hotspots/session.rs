//! Hot spots across the files of a session or folder, from each file's rows (see
//! [`super::file_rows`]), streamed: a file's rows are added and dropped, and memory grows
//! only with the distinct keys (at most [`MAX_KEYS`](crate::limits::MAX_KEYS), past which
//! keys go to `(other)`).

use super::{FileKeyRow, Key, KeyTable, OTHER};

/// How many files and declarations a key keeps as its top ones.
pub const TOP_PLACES: usize = 5;

/// One key across a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionKeyRow {
    pub key: Key,
    pub total: u64,
    pub self_time: u64,
    pub count: u64,
    /// Files the key occurs in.
    pub files: u64,
    /// The files with the largest totals of the key: (path, total), largest first.
    pub top_files: Vec<(String, u64)>,
    /// The declarations with the largest parts of the key's total: (path, declaration,
    /// part), largest first.
    pub top_declarations: Vec<(String, String, u64)>,
}

#[derive(Debug, Clone, Default)]
struct Acc {
    total: u64,
    self_time: u64,
    count: u64,
    files: u64,
    top_files: Vec<(u64, u32)>,
    top_declarations: Vec<(u64, (u32, u32))>,
    /// The last file (its number in the order added, from 1) that had the key.
    last_file: u64,
}

/// Adds files' rows by key.
#[derive(Debug, Clone, Default)]
pub struct SessionHotSpots {
    keys: KeyTable,
    acc: Vec<Acc>,
    /// File paths and declaration names the top lists point to, each once.
    names: KeyTable,
    files: u64,
    /// The file being added: its path's id in `names`, and its path.
    file: u32,
    file_path: String,
}

impl SessionHotSpots {
    pub fn new() -> SessionHotSpots {
        SessionHotSpots::default()
    }

    /// A session whose key table holds at most `limit` keys (tests).
    pub fn with_key_limit(limit: usize) -> SessionHotSpots {
        SessionHotSpots {
            keys: KeyTable::with_limit(limit),
            ..SessionHotSpots::default()
        }
    }

    /// Adds one file's rows; `other_holds` is how many keys its `(other)` row holds.
    pub fn add_file(&mut self, path: &str, rows: &[FileKeyRow], other_holds: u64) {
        self.start_file(path, other_holds);
        for r in rows {
            let declaration = r.declaration.as_ref().map(|(d, t)| (d.as_str(), *t));
            self.add_row(
                &r.key.class,
                &r.key.name,
                r.total,
                r.self_time,
                r.count,
                declaration,
            );
        }
    }

    /// Starts adding a file, row by row ([`Self::add_row`]): what [`Self::add_file`] does
    /// without holding the file's rows. `other_holds`: the keys its `(other)` row holds.
    pub fn start_file(&mut self, path: &str, other_holds: u64) {
        self.files += 1;
        self.keys.add_other_holds(other_holds);
        self.file = self.names.id_of(path, "");
        self.file_path.clear();
        self.file_path.push_str(path);
    }

    /// Adds one row of the file [`Self::start_file`] started: the key `class` `name`, its
    /// total, self and count there, and the declaration holding most of its total.
    pub fn add_row(
        &mut self,
        class: &str,
        name: &str,
        total: u64,
        self_time: u64,
        count: u64,
        declaration: Option<(&str, u64)>,
    ) {
        let k = self.keys.id_of(class, name);
        if k as usize >= self.acc.len() {
            self.acc.resize(k as usize + 1, Acc::default());
        }
        let file = self.file;
        let decl = declaration.map(|(d, t)| (self.names.id_of(&self.file_path, d), t));
        let a = &mut self.acc[k as usize];
        a.total = a.total.saturating_add(total);
        a.self_time = a.self_time.saturating_add(self_time);
        a.count = a.count.saturating_add(count);
        if a.last_file != self.files {
            a.last_file = self.files;
            a.files += 1;
        }
        keep_top(&mut a.top_files, total, file);
        if let Some((d, t)) = decl {
            keep_top(&mut a.top_declarations, t, (file, d));
        }
    }

    /// Counts keys an `(other)` row of the file being added holds.
    pub fn add_other_holds(&mut self, n: u64) {
        self.keys.add_other_holds(n);
    }

    pub fn files(&self) -> u64 {
        self.files
    }

    /// How many keys `(other)` holds.
    pub fn other_holds(&self) -> u64 {
        self.keys.other_holds()
    }

    /// The sum of every key's self time (the `(other)` key's included): all the work of
    /// the files added, since self times never overlap.
    pub fn self_sum(&self) -> u64 {
        self.acc
            .iter()
            .fold(0u64, |s, a| s.saturating_add(a.self_time))
    }

    /// How many keys `keep` accepts (the `(other)` key included when it does).
    pub fn count_matching(&self, keep: impl Fn(&Key) -> bool) -> usize {
        (0..self.acc.len() as u32)
            .filter(|&k| self.acc[k as usize].files > 0 && keep(self.keys.get(k)))
            .count()
    }

    /// Bytes the aggregate holds (keys, sums, top lists and their names).
    pub fn heap_bytes(&self) -> usize {
        let tops: usize = self
            .acc
            .iter()
            .map(|a| a.top_files.capacity() * 16 + a.top_declarations.capacity() * 16)
            .sum();
        self.keys.heap_bytes()
            + self.names.heap_bytes()
            + self.acc.capacity() * std::mem::size_of::<Acc>()
            + tops
    }

    /// Distinct keys seen (the `(other)` key included when used).
    pub fn key_count(&self) -> usize {
        self.acc.iter().filter(|a| a.files > 0).count()
    }

    /// The keys, by descending `order` (self or total), then key, at most `limit`.
    pub fn top(&self, limit: usize, by_total: bool) -> Vec<SessionKeyRow> {
        self.top_matching(limit, by_total, |_| true)
    }

    /// [`Self::top`] over the keys `keep` accepts (a class filter; `(other)` too when it
    /// accepts it).
    pub fn top_matching(
        &self,
        limit: usize,
        by_total: bool,
        keep: impl Fn(&Key) -> bool,
    ) -> Vec<SessionKeyRow> {
        let mut ids: Vec<u32> = (0..self.acc.len() as u32)
            .filter(|&k| self.acc[k as usize].files > 0 && keep(self.keys.get(k)))
            .collect();
        let value = |k: u32| {
            let a = &self.acc[k as usize];
            if by_total {
                (a.total, a.self_time)
            } else {
                (a.self_time, a.total)
            }
        };
        let order = |a: &u32, b: &u32| {
            value(*b)
                .cmp(&value(*a))
                .then(self.keys.get(*a).cmp(self.keys.get(*b)))
        };
        if ids.len() > limit {
            ids.select_nth_unstable_by(limit, order);
            ids.truncate(limit);
        }
        ids.sort_unstable_by(order);
        ids.into_iter().map(|k| self.row(k)).collect()
    }

    fn row(&self, k: u32) -> SessionKeyRow {
        let a = &self.acc[k as usize];
        let mut top_files = a.top_files.clone();
        top_files.sort_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)));
        let mut top_declarations = a.top_declarations.clone();
        top_declarations.sort_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)));
        SessionKeyRow {
            key: self.keys.get(k).clone(),
            total: a.total,
            self_time: a.self_time,
            count: a.count,
            files: a.files,
            top_files: top_files
                .iter()
                .map(|&(t, f)| (self.names.get(f).class.clone(), t))
                .collect(),
            top_declarations: top_declarations
                .iter()
                .map(|&(t, (f, d))| {
                    (
                        self.names.get(f).class.clone(),
                        self.names.get(d).name.clone(),
                        t,
                    )
                })
                .collect(),
        }
    }

    /// The `(other)` key's row, when keys went past the limit.
    pub fn other(&self) -> Option<SessionKeyRow> {
        self.acc
            .get(OTHER as usize)
            .filter(|a| a.files > 0)
            .map(|_| self.row(OTHER))
    }
}

/// Keeps the [`TOP_PLACES`] largest `(value, place)` pairs; a place already there adds up.
fn keep_top<T: PartialEq + Copy>(top: &mut Vec<(u64, T)>, value: u64, place: T) {
    if let Some(e) = top.iter_mut().find(|e| e.1 == place) {
        e.0 = e.0.saturating_add(value);
    } else if top.len() < TOP_PLACES {
        top.push((value, place));
    } else if let Some(min) = top.iter_mut().min_by_key(|e| e.0) {
        if value > min.0 {
            *min = (value, place);
        }
    }
}
