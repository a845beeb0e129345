//! Building summaries from recordings (one, or the files of a session).

use std::collections::HashMap;

use super::{
    share_permille, sort_rows, GroupBy, LeanscopeKey, SharedName, Summary, SummaryIssue,
    SummaryKey, SummaryKind, SummaryRow,
};
use crate::limits::{MAX_SUMMARY_ISSUES, MAX_SUMMARY_ROWS};
use crate::model::{declaration_times, file_time, tactic_rows, Interval, Recording, Stats};

/// The rows being accumulated, in compact form: each key once, found
/// through a table of row numbers (4 bytes a row); while accumulating, a
/// row's `stats.self_ns` sums its self time and `stats.total_ns` holds its
/// first call's duration, and later calls' durations (the values exact
/// median and p95 need) are kept only for keys called again.
struct Rows {
    /// The rows themselves (statistics filled in by `finish`, in place).
    keys: Vec<SummaryRow>,
    /// Durations of the second and later calls, by row.
    more: HashMap<u32, Vec<u64>>,
    table: hashbrown::HashTable<u32>,
    hasher: std::collections::hash_map::RandomState,
}

fn leanscope_key(row: &SummaryRow) -> Option<&LeanscopeKey> {
    match &row.key {
        SummaryKey::Leanscope(k) => Some(k),
        SummaryKey::LeanProfiler(_) => None,
    }
}

impl Rows {
    fn new() -> Rows {
        Rows {
            keys: Vec::new(),
            more: HashMap::new(),
            table: hashbrown::HashTable::new(),
            hasher: Default::default(),
        }
    }

    /// The row of `key`, added when new (`None` past [`MAX_SUMMARY_ROWS`]).
    fn row(&mut self, key: LeanscopeKey, duration: u64) -> Option<(u32, bool)> {
        use std::hash::BuildHasher;
        let Rows {
            keys,
            table,
            hasher,
            ..
        } = self;
        let h = hasher.hash_one(&key);
        let same = |&r: &u32| leanscope_key(&keys[r as usize]) == Some(&key);
        if let Some(&r) = table.find(h, same) {
            return Some((r, false));
        }
        if keys.len() >= MAX_SUMMARY_ROWS {
            return None;
        }
        let n = keys.len() as u32;
        table.insert_unique(h, n, |&r| {
            hasher.hash_one(leanscope_key(&keys[r as usize]).expect("a leanscope row"))
        });
        keys.push(SummaryRow {
            key: SummaryKey::Leanscope(key),
            stats: Stats {
                total_ns: duration,
                ..Stats::default()
            },
            share_permille: 0,
            counters: None,
        });
        Some((n, true))
    }

    fn add(&mut self, key: LeanscopeKey, durations: &[u64], self_ns: u64) {
        let Some((&d0, rest)) = durations.split_first() else {
            return;
        };
        let Some((row, new)) = self.row(key, d0) else {
            return;
        };
        let more = if new { rest } else { durations };
        if !more.is_empty() {
            self.more.entry(row).or_default().extend_from_slice(more);
        }
        let s = &mut self.keys[row as usize].stats.self_ns;
        *s = s.saturating_add(self_ns);
    }
}

/// The calls of the rows keyed by `key`: per key, the durations of its outermost events
/// (those no event of the same key encloses on their thread), the sum of all its events'
/// self times, and its first event. A step nested in a step is part of the outer call,
/// never a second call whose time would be added again; a step on a worker thread under a
/// step of the main thread is a call of its own (its time is the worker's).
fn calls_by<K: std::hash::Hash + Eq + Copy>(
    rec: &Recording,
    key: impl Fn(u32) -> K,
) -> HashMap<K, (Vec<u64>, u64, u32)> {
    let mut out: HashMap<K, (Vec<u64>, u64, u32)> = HashMap::new();
    // Depth first, counting each key's events open on the stack, per thread.
    let mut open: HashMap<(K, u16), u32> = HashMap::new();
    let mut stack: Vec<(u32, bool)> = rec.roots().map(|r| (r, false)).collect();
    stack.reverse();
    while let Some((i, leaving)) = stack.pop() {
        let k = key(i);
        let depth = open.entry((k, rec.thread(i))).or_default();
        if leaving {
            *depth -= 1;
            continue;
        }
        let acc = out.entry(k).or_insert_with(|| (Vec::new(), 0, i));
        if *depth == 0 {
            acc.0.push(rec.inclusive_ns(i));
        }
        acc.1 = acc.1.saturating_add(rec.self_ns(i));
        *depth += 1;
        stack.push((i, true));
        stack.extend(rec.children(i).iter().rev().map(|&c| (c, false)));
    }
    out
}

/// The names a recording's rows share, made once per recording.
#[derive(Default)]
struct SharedNames {
    classes: HashMap<u32, SharedName>,
    declarations: HashMap<usize, SharedName>,
}

impl SharedNames {
    fn class(&mut self, rec: &Recording, i: u32) -> SharedName {
        let id = rec.events.class[i as usize];
        self.classes
            .entry(id)
            .or_insert_with(|| rec.class(i).into())
            .clone()
    }

    fn declaration(&mut self, rec: &Recording, d: usize) -> SharedName {
        self.declarations
            .entry(d)
            .or_insert_with(|| rec.header.declarations[d].name.as_str().into())
            .clone()
    }
}

/// Accumulates recordings into one summary (a session's files, or one
/// recording).
pub struct SummaryBuilder {
    group_by: GroupBy,
    rows: Rows,
    event_count: u64,
    thread_count: u64,
    max_depth: u64,
    window: Option<Interval>,
    recorded_thread_time_ns: u64,
    issue_count: u64,
    issues: Vec<SummaryIssue>,
    /// The measure of the first recording added; later ones must share it.
    measure: Option<crate::Measure>,
}

impl SummaryBuilder {
    pub fn new(group_by: GroupBy) -> Self {
        SummaryBuilder {
            group_by,
            rows: Rows::new(),
            measure: None,
            event_count: 0,
            thread_count: 0,
            max_depth: 0,
            window: None,
            recorded_thread_time_ns: 0,
            issue_count: 0,
            issues: Vec::new(),
        }
    }

    /// Adds a recording. `file` names it in row keys and issues; the
    /// header's source path is used when it is `None`.
    pub fn add(&mut self, rec: &Recording, file: Option<&str>) {
        let file: SharedName = file.unwrap_or(&rec.header.source_path).into();
        let measure = *self.measure.get_or_insert(rec.header.measure);
        if rec.header.measure != measure {
            // Counts of two measures never add up: the recording is left out, and said so.
            self.issue_count += 1;
            self.issues.push(SummaryIssue {
                file: Some(file.to_string()),
                event_index: None,
                kind: Some("mixed-measures".into()),
                message: format!(
                    "{file} is measured in {} and the recordings before it in {}; its events are left out",
                    rec.header.measure.unit_name(),
                    measure.unit_name()
                ),
            });
            return;
        }
        let mut shared = SharedNames::default();
        self.event_count += rec.len() as u64;
        self.thread_count += rec.active_thread_count() as u64;
        self.max_depth = self.max_depth.max(u64::from(rec.max_depth()));
        if let Some(w) = rec.window() {
            self.window = Some(match self.window {
                Some(o) => Interval::new(o.start.min(w.start), o.end.max(w.end)),
                None => w,
            });
        }
        for i in 0..rec.len() as u32 {
            self.recorded_thread_time_ns =
                self.recorded_thread_time_ns.saturating_add(rec.self_ns(i));
        }
        self.issue_count += rec.issue_count;
        for issue in &rec.issues {
            if self.issues.len() >= MAX_SUMMARY_ISSUES {
                break;
            }
            self.issues.push(SummaryIssue {
                file: Some(file.to_string()),
                event_index: Some(u64::from(issue.event)),
                kind: Some(issue_kind_name(issue.kind).to_owned()),
                message: issue.detail.clone(),
            });
        }
        match self.group_by {
            GroupBy::Name => {
                let id = |i: u32| (rec.events.class[i as usize], rec.events.label[i as usize]);
                for ((_, label), (durations, self_ns, first)) in calls_by(rec, id) {
                    let mut key = LeanscopeKey::named(&rec.strings[label as usize]);
                    key.class = Some(shared.class(rec, first));
                    self.rows.add(key, &durations, self_ns);
                }
            }
            GroupBy::Class => {
                // By class id first: one string per distinct class.
                for (class, (durations, self_ns, _)) in
                    calls_by(rec, |i| rec.events.class[i as usize])
                {
                    let key = LeanscopeKey::named(&rec.strings[class as usize]);
                    self.rows.add(key, &durations, self_ns);
                }
            }
            GroupBy::Key => {
                let mut keys = crate::hotspots::KeyTable::new();
                let mut ids: HashMap<(u32, u32), u32> = HashMap::new();
                let key_of: Vec<u32> = (0..rec.len() as u32)
                    .map(|i| {
                        let id = (rec.events.class[i as usize], rec.events.label[i as usize]);
                        *ids.entry(id).or_insert_with(|| {
                            keys.id(crate::hotspots::Key::of(rec.class(i), rec.label(i)))
                        })
                    })
                    .collect();
                for (k, (durations, self_ns, _)) in calls_by(rec, |i| key_of[i as usize]) {
                    let key = keys.get(k);
                    let mut row = LeanscopeKey::named(key.name.as_str());
                    row.class = Some(key.class.as_str().into());
                    self.rows.add(row, &durations, self_ns);
                }
            }
            GroupBy::Declaration => {
                let times = declaration_times(rec);
                for (d, time) in rec.header.declarations.iter().zip(times) {
                    if let Some(t) = time {
                        let mut key = LeanscopeKey::named(d.name.clone());
                        key.file = Some(file.clone());
                        self.call(key, t.total_ns, t.self_ns);
                    }
                }
            }
            GroupBy::Tactic => {
                for row in tactic_rows(rec) {
                    let mut key = LeanscopeKey::named(row.label.clone());
                    key.file = Some(file.clone());
                    key.declaration = row.declaration.map(|d| shared.declaration(rec, d));
                    key.line = Some(row.range.start_line.saturating_add(1));
                    key.column = Some(row.range.start_col);
                    let outermost = outermost_events(rec, &row.events);
                    let durations: Vec<u64> =
                        outermost.iter().map(|&i| rec.inclusive_ns(i)).collect();
                    let total = durations.iter().fold(0u64, |a, &d| a.saturating_add(d));
                    // The union of self pieces lies within the union of the
                    // outermost intervals, except for parts of a span's
                    // events that run past their call on another thread.
                    self.rows.add(key, &durations, row.time.self_ns.min(total));
                }
            }
            GroupBy::File => {
                let t = file_time(rec);
                let total = t.elapsed_ns.unwrap_or(t.traced_ns);
                self.call(LeanscopeKey::named(file.to_string()), total, total);
            }
        }
    }

    fn call(&mut self, key: LeanscopeKey, duration: u64, self_ns: u64) {
        self.rows.add(key, &[duration], self_ns);
    }

    pub fn finish(self) -> Summary {
        let Rows {
            keys: mut rows,
            mut more,
            table,
            ..
        } = self.rows;
        drop(table);
        for (i, row) in rows.iter_mut().enumerate() {
            let (first, self_ns) = (row.stats.total_ns, row.stats.self_ns);
            row.stats = match more.remove(&(i as u32)) {
                Some(mut ds) => {
                    ds.push(first);
                    Stats::from_durations(&mut ds, self_ns)
                }
                None => Stats::from_durations(&mut [first], self_ns),
            };
        }
        drop(more);
        let of = rows
            .iter()
            .fold(0u64, |a, r| a.saturating_add(r.stats.self_ns));
        for r in &mut rows {
            r.share_permille = share_permille(r.stats.self_ns, of);
        }
        sort_rows(&mut rows);
        let window = self.window.unwrap_or(Interval::new(0, 0));
        Summary {
            kind: SummaryKind::Leanscope,
            measure: self.measure.unwrap_or_default(),
            group_by: Some(self.group_by),
            event_count: self.event_count,
            thread_count: self.thread_count,
            max_depth: self.max_depth,
            trace_origin_ns: window.start,
            trace_window_ns: window.len(),
            recorded_thread_time_ns: self.recorded_thread_time_ns,
            dropped_events: 0,
            validation_issue_count: self.issue_count,
            validation_issues: self.issues,
            rows,
        }
    }
}

/// Summarizes one recording.
pub fn summarize(rec: &Recording, group_by: GroupBy) -> Summary {
    let mut b = SummaryBuilder::new(group_by);
    b.add(rec, None);
    b.finish()
}

/// The events of `events` (sorted) that have no ancestor among them.
fn outermost_events(rec: &Recording, events: &[u32]) -> Vec<u32> {
    events
        .iter()
        .copied()
        .filter(|&e| {
            let mut at = rec.parent(e);
            while let Some(p) = at {
                if events.binary_search(&p).is_ok() {
                    return false;
                }
                at = rec.parent(p);
            }
            true
        })
        .collect()
}

fn issue_kind_name(kind: crate::model::IssueKind) -> &'static str {
    use crate::model::IssueKind::*;
    match kind {
        ChildOutsideParent => "child-outside-parent",
        OverlappingSiblings => "overlapping-siblings",
        RangeOutsideSource => "range-outside-source",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::*;
    use crate::writer::{encode_to_vec, NewEvent};

    /// `theorem t : True := by\n  trivial\n  skip\n`: a command event, its
    /// `by` block with two tactics, and Kernel work on a second thread.
    fn sample() -> Recording {
        let source = "theorem t : True := by\n  trivial\n  skip\n".to_string();
        let header = Header {
            source_path: "T.lean".into(),
            source_text: source,
            declarations: vec![Declaration {
                name: "t".into(),
                kind: "theorem".into(),
                range: SourceRange::new(0, 0, 2, 6),
                selection_range: SourceRange::new(0, 8, 0, 9),
                generated: false,
            }],
            threads: vec![
                Thread {
                    id: 0,
                    name: "main".into(),
                },
                Thread {
                    id: 7,
                    name: "worker".into(),
                },
            ],
            ..Header::default()
        };
        let cmd = SourceRange::new(0, 0, 2, 6);
        let t1 = SourceRange::new(1, 2, 1, 9);
        let t2 = SourceRange::new(2, 2, 2, 6);
        let ev = |parent, class, label, start, dur, thread, range: Option<SourceRange>| NewEvent {
            parent,
            class,
            label,
            start_ns: start,
            duration_ns: dur,
            thread,
            range,
            range_kind: if range.is_some() {
                RangeKind::Exact
            } else {
                RangeKind::None
            },
        };
        let bytes = encode_to_vec(
            &header,
            [
                ev(None, "Elab.command", "theorem t", 0, 100, 0, Some(cmd)),
                ev(Some(0), "Elab.step", "by", 5, 90, 0, Some(cmd)),
                ev(Some(1), "Elab.step", "trivial", 10, 30, 0, Some(t1)),
                ev(Some(2), "Meta.isDefEq", "True =?= True", 15, 10, 0, None),
                ev(Some(1), "Elab.step", "skip", 50, 20, 0, Some(t2)),
                ev(Some(0), "Kernel", "t", 90, 40, 1, Some(cmd)),
            ],
        )
        .unwrap();
        Recording::from_bytes(&bytes).unwrap()
    }

    fn row<'a>(s: &'a Summary, name: &str) -> &'a SummaryRow {
        s.rows
            .iter()
            .find(|r| matches!(&r.key, SummaryKey::Leanscope(k) if k.name == name))
            .unwrap_or_else(|| panic!("no row {name}"))
    }

    #[test]
    fn header_facts() {
        let rec = sample();
        let s = summarize(&rec, GroupBy::Class);
        assert_eq!(s.event_count, 6);
        assert_eq!(s.thread_count, 2);
        assert_eq!(s.max_depth, 4);
        assert_eq!((s.trace_origin_ns, s.trace_window_ns), (0, 130));
        // Self times: 100-90=10 (the worker's Kernel is not subtracted),
        // 90-30-20=40, 30-10=20, 10, 20, 40.
        assert_eq!(s.recorded_thread_time_ns, 140);
        assert_eq!(s.validation_issue_count, 0);
    }

    #[test]
    fn by_class_calls_are_the_outermost_events() {
        let s = summarize(&sample(), GroupBy::Class);
        let step = row(&s, "Elab.step");
        // `trivial` and `skip` lie inside `by`: one call of 90, not three adding to 140;
        // every step's self time counts (40 + 20 + 20).
        assert_eq!(
            step.stats,
            Stats {
                count: 1,
                total_ns: 90,
                self_ns: 80,
                min_ns: 90,
                mean_ns: 90,
                median_ns: 90,
                p95_ns: 90,
                max_ns: 90
            }
        );
        assert_eq!(step.share_permille, 80 * 1000 / 140);
        // Rows are ordered by self time (step 80, kernel 40), then by key
        // (command and meta both 10).
        let names: Vec<String> = s.rows.iter().map(|r| r.key.label()).collect();
        assert_eq!(
            names,
            ["Elab.step", "Kernel", "Elab.command", "Meta.isDefEq"]
        );
        let shares: u64 = s.rows.iter().map(|r| r.share_permille).sum();
        assert!((996..=1000).contains(&shares));
    }

    #[test]
    fn by_name_keys_label_and_class() {
        let s = summarize(&sample(), GroupBy::Name);
        let r = row(&s, "trivial");
        let SummaryKey::Leanscope(k) = &r.key else {
            panic!()
        };
        assert_eq!(k.class.as_deref(), Some("Elab.step"));
        assert_eq!(
            (r.stats.count, r.stats.total_ns, r.stats.self_ns),
            (1, 30, 20)
        );
    }

    #[test]
    fn by_declaration_takes_the_union_across_threads() {
        let s = summarize(&sample(), GroupBy::Declaration);
        assert_eq!(s.rows.len(), 1);
        let r = &s.rows[0];
        // Union of [0,100) and the worker's [90,130): 130; tactics cover 50.
        assert_eq!(
            (r.stats.count, r.stats.total_ns, r.stats.self_ns),
            (1, 130, 80)
        );
        let SummaryKey::Leanscope(k) = &r.key else {
            panic!()
        };
        assert_eq!((k.name.as_str(), k.file.as_deref()), ("t", Some("T.lean")));
        assert_eq!(r.share_permille, 1000);
    }

    #[test]
    fn by_tactic_keys_spans() {
        let s = summarize(&sample(), GroupBy::Tactic);
        let r = row(&s, "trivial");
        let SummaryKey::Leanscope(k) = &r.key else {
            panic!()
        };
        assert_eq!(
            (k.line, k.column, k.declaration.as_deref()),
            (Some(2), Some(2), Some("t"))
        );
        assert_eq!(
            (r.stats.count, r.stats.total_ns, r.stats.self_ns),
            (1, 30, 20)
        );
    }

    #[test]
    fn by_file_uses_traced_time_without_elapsed() {
        let s = summarize(&sample(), GroupBy::File);
        assert_eq!(s.rows.len(), 1);
        assert_eq!(s.rows[0].stats.total_ns, 100);
        let mut b = SummaryBuilder::new(GroupBy::File);
        let mut rec = sample();
        rec.header.elapsed_ns = Some(5000);
        b.add(&rec, Some("a/T.lean"));
        b.add(&sample(), Some("b/T.lean"));
        let s = b.finish();
        assert_eq!(s.rows.len(), 2);
        assert_eq!(row(&s, "a/T.lean").stats.total_ns, 5000);
        assert_eq!(s.event_count, 12);
    }
}
