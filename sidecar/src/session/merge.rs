//! `leanscope session merge`: the shards of one plan, captured apart, as
//! one session.
//!
//! The shards must come from the same plan (equal `plan.json` digests),
//! the same Git commit, toolchain, Lean version and threshold, and must be
//! different shards; the first difference is the error. Files keep the
//! plan's order (so file ids are those of an unsharded capture); each
//! committed file gets a new capture number and its recording is linked
//! (or copied) under its new name; the indexes are streamed line by line,
//! keeping only rows of committed captures with their file and capture
//! rewritten. Planned files no shard captured make the session `partial`
//! and are listed. The session is staged beside `out` and renamed into
//! place: it appears whole or not at all.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use recording::limits::MAX_INDEX_LINE_BYTES;
use recording::session::shard::{MergeInfo, MergedShard, ShardInfo, ShardPlan, PLAN_FILE};
use recording::session::{
    write_row, Counts, FileEntry, FileStatus, IndexRow, Manifest, NewSession, SessionStatus,
    FILES_DIR, INDEX_FILE, MANIFEST_FILE,
};

use super::committed::{is_inside, CommittedSession};
use super::engine::recording_name;
use super::regular;
use super::shard::read_plan;
use super::store::is_being_written;
use leanscope::limits::MAX_MERGE_INPUTS;

/// Size of the read and write buffers of the index.
const INDEX_BUFFER: usize = 1 << 20;

/// One shard, opened and checked.
struct Shard {
    dir: PathBuf,
    manifest: Manifest,
    info: ShardInfo,
}

/// What a merge did.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MergeSummary {
    pub session: PathBuf,
    pub status: SessionStatus,
    pub counts: Counts,
    pub shards: usize,
    /// Planned files no merged shard captured.
    pub missing: Vec<String>,
    /// Index rows written.
    pub rows: u64,
    /// Index lines of the shards that were not trusted (damaged, or of
    /// uncommitted captures) and so not merged.
    pub skipped_rows: u64,
}

fn open_shard(dir: &Path) -> Result<(Shard, ShardPlan)> {
    let s = CommittedSession::open(dir)?;
    let Some(info) = s.manifest.shard.clone() else {
        bail!(
            "{} is not a shard (its session.json has no shard; capture it with `leanscope profile --project --shard K/N`)",
            dir.display()
        );
    };
    if s.manifest.repeats.is_some() {
        bail!(
            "{} is a repeated capture (--repeat); merging repeated shards is not supported",
            dir.display()
        );
    }
    if is_being_written(dir) {
        bail!(
            "{} is still being captured (a leanscope holds its lock); wait for it to finish",
            dir.display()
        );
    }
    let plan = read_plan(dir)?;
    if plan.digest != info.plan_digest || plan.shards != info.count {
        bail!(
            "{}: session.json names plan {} of {} shards, but {PLAN_FILE} holds plan {} of {} shards",
            dir.display(),
            info.plan_digest,
            info.count,
            plan.digest,
            plan.shards
        );
    }
    Ok((
        Shard {
            dir: dir.to_path_buf(),
            manifest: s.manifest,
            info,
        },
        plan,
    ))
}

fn sorted(v: &[String]) -> Vec<String> {
    let mut v = v.to_vec();
    v.sort();
    v.dedup();
    v
}

/// The first way `b` differs from `a` in what a merge requires equal.
fn first_difference(a: &Shard, b: &Shard) -> Option<String> {
    let (an, bn) = (a.dir.display(), b.dir.display());
    let show = |o: &Option<String>| o.clone().unwrap_or_else(|| "none".into());
    if a.info.plan_digest != b.info.plan_digest {
        return Some(format!(
            "the shards come from different plans: {an} has plan {} ({} files, {} shards, by {}), {bn} has plan {} ({} files, {} shards, by {})",
            a.info.plan_digest, a.info.plan_files, a.info.count, a.info.balance.as_str(),
            b.info.plan_digest, b.info.plan_files, b.info.count, b.info.balance.as_str()
        ));
    }
    if a.info.git_commit != b.info.git_commit {
        return Some(format!(
            "the shards come from different commits: {an} has {}, {bn} has {}",
            show(&a.info.git_commit),
            show(&b.info.git_commit)
        ));
    }
    if sorted(&a.manifest.toolchains) != sorted(&b.manifest.toolchains) {
        return Some(format!(
            "the shards were captured with different toolchains: {an} with {:?}, {bn} with {:?}",
            a.manifest.toolchains, b.manifest.toolchains
        ));
    }
    let (av, bv) = (
        sorted(&a.manifest.lean_versions),
        sorted(&b.manifest.lean_versions),
    );
    // A shard that captured nothing has no Lean version to compare.
    if !av.is_empty() && !bv.is_empty() && av != bv {
        return Some(format!(
            "the shards were captured with different Lean versions: {an} with {av:?}, {bn} with {bv:?}"
        ));
    }
    if a.manifest.measure != b.manifest.measure {
        return Some(format!(
            "the shards measured different things: {an} {}, {bn} {}",
            a.manifest.measure.unit_name(),
            b.manifest.measure.unit_name()
        ));
    }
    if a.manifest.threshold_ms != b.manifest.threshold_ms {
        return Some(format!(
            "the shards were captured with different thresholds: {an} with {} ms, {bn} with {} ms",
            a.manifest.threshold_ms, b.manifest.threshold_ms
        ));
    }
    None
}

/// Merges the shard sessions `inputs` into the new session `out`.
pub fn merge(inputs: &[PathBuf], out: &Path) -> Result<MergeSummary> {
    if inputs.is_empty() {
        bail!("give the shard sessions to merge");
    }
    if inputs.len() > MAX_MERGE_INPUTS {
        bail!(
            "{} sessions is over the limit of {MAX_MERGE_INPUTS}",
            inputs.len()
        );
    }
    crate::session::staged_dir::refuse_non_empty(out)?;
    let mut shards = Vec::with_capacity(inputs.len());
    let mut plan: Option<ShardPlan> = None;
    for dir in inputs {
        let (s, p) = open_shard(dir)?;
        if plan.is_none() {
            plan = Some(p);
        }
        shards.push(s);
    }
    let Some(plan) = plan else {
        bail!("give the shard sessions to merge");
    };
    for s in &shards[1..] {
        if let Some(d) = first_difference(&shards[0], s) {
            bail!("{d}");
        }
    }
    // Which shard each planned file belongs to, and where it was captured.
    let position: HashMap<&str, usize> = plan
        .files
        .iter()
        .enumerate()
        .map(|(i, f)| (f.path.as_str(), i))
        .collect();
    let mut by_index: HashMap<u32, &Path> = HashMap::new();
    let mut source: Vec<Option<(usize, u32)>> = vec![None; plan.files.len()];
    for (si, s) in shards.iter().enumerate() {
        if let Some(other) = by_index.insert(s.info.index, &s.dir) {
            bail!(
                "shard {}/{} is given twice: {} and {}",
                s.info.index,
                s.info.count,
                other.display(),
                s.dir.display()
            );
        }
        for f in &s.manifest.files {
            let Some(&i) = position.get(f.path.as_str()) else {
                bail!(
                    "{}: {} is not in the plan it names",
                    s.dir.display(),
                    f.path
                );
            };
            if let Some((other, _)) = source[i] {
                bail!(
                    "{} appears twice: in {} and in {}",
                    f.path,
                    shards[other].dir.display(),
                    s.dir.display()
                );
            }
            if plan.files[i].shard != s.info.index {
                bail!(
                    "{}: {} belongs to shard {}/{} of the plan, not to this shard {}/{}",
                    s.dir.display(),
                    f.path,
                    plan.files[i].shard,
                    plan.shards,
                    s.info.index,
                    s.info.count
                );
            }
            source[i] = Some((si, f.id));
        }
    }

    let staged = crate::session::staged_dir::stage_beside(out)?;
    let root = staged.path();
    std::fs::create_dir_all(root.join(FILES_DIR))
        .with_context(|| format!("cannot create {}", root.join(FILES_DIR).display()))?;
    // The merged files, and per shard: its file id -> (merged id, old
    // capture, new capture) for the committed ones.
    let mut remap: Vec<HashMap<u32, (u32, u64, u64)>> = vec![HashMap::new(); shards.len()];
    let mut files = Vec::with_capacity(plan.files.len());
    let mut missing = Vec::new();
    let mut next_capture = 1u64;
    for (i, pf) in plan.files.iter().enumerate() {
        let id = i as u32;
        let Some((si, old_id)) = source[i] else {
            let mut e = FileEntry::planned(id, pf.path.clone(), pf.module.clone());
            e.status = FileStatus::Skipped;
            e.error = Some(format!(
                "not captured: shard {}/{} of the plan was not merged",
                pf.shard, plan.shards
            ));
            missing.push(pf.path.clone());
            files.push(e);
            continue;
        };
        let s = &shards[si];
        let Some(old) = s.manifest.files.get(old_id as usize) else {
            bail!("{}: no file {old_id}", s.dir.display());
        };
        let mut e = old.clone();
        e.id = id;
        if old.status.is_committed() {
            let (Some(capture), Some(rel)) = (old.capture, old.recording.as_deref()) else {
                bail!("{}: {} names no capture", s.dir.display(), old.path);
            };
            if !is_inside(rel) {
                bail!(
                    "{}: the recording {rel:?} of {} is not a path inside the session",
                    s.dir.display(),
                    old.path
                );
            }
            let new_rel = recording_name(id, &old.module, next_capture);
            link_or_copy(&s.dir.join(rel), &root.join(&new_rel))?;
            remap[si].insert(old_id, (id, capture, next_capture));
            e.capture = Some(next_capture);
            e.recording = Some(new_rel);
            next_capture += 1;
        } else {
            if e.status == FileStatus::Pending {
                e.status = FileStatus::Skipped;
            }
            e.capture = None;
            e.recording = None;
        }
        files.push(e);
    }

    // The indexes, streamed.
    let index_path = root.join(INDEX_FILE);
    let mut index = BufWriter::with_capacity(
        INDEX_BUFFER,
        File::create(&index_path)
            .with_context(|| format!("cannot create {}", index_path.display()))?,
    );
    let (mut rows, mut skipped_rows, mut bytes) = (0u64, 0u64, 0u64);
    let mut line = Vec::with_capacity(4096);
    let mut out_line = Vec::with_capacity(4096);
    for (si, s) in shards.iter().enumerate() {
        let path = s.dir.join(INDEX_FILE);
        let f = regular::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
        let len = f
            .metadata()
            .with_context(|| format!("cannot read {}", path.display()))?
            .len();
        if len < s.manifest.index_bytes {
            bail!(
                "{} is shorter than its manifest says ({len} < {} bytes)",
                path.display(),
                s.manifest.index_bytes
            );
        }
        let mut r = BufReader::with_capacity(INDEX_BUFFER, f.take(s.manifest.index_bytes));
        loop {
            line.clear();
            let n = (&mut r)
                .take(MAX_INDEX_LINE_BYTES as u64 + 1)
                .read_until(b'\n', &mut line)
                .with_context(|| format!("cannot read {}", path.display()))?;
            if n == 0 {
                break;
            }
            if line.last() != Some(&b'\n') {
                // Over the line limit (skip to its end) or a cut last line.
                skipped_rows += 1;
                skip_line(&mut r).with_context(|| format!("cannot read {}", path.display()))?;
                continue;
            }
            out_line.clear();
            if !rewrite_row(&line, &remap[si], &mut out_line) {
                skipped_rows += 1;
                continue;
            }
            index
                .write_all(&out_line)
                .with_context(|| format!("cannot write {}", index_path.display()))?;
            bytes += out_line.len() as u64;
            rows += 1;
        }
    }
    let index = index
        .into_inner()
        .map_err(|e| anyhow::anyhow!("cannot write {}: {}", index_path.display(), e.error()))?;
    index
        .sync_all()
        .with_context(|| format!("cannot sync {}", index_path.display()))?;

    let first = &shards[0].manifest;
    let mut toolchains = Vec::new();
    let mut lean_versions = Vec::new();
    let mut notes = Vec::new();
    for s in &shards {
        for t in &s.manifest.toolchains {
            if !toolchains.contains(t) {
                toolchains.push(t.clone());
            }
        }
        for v in &s.manifest.lean_versions {
            if !lean_versions.contains(v) {
                lean_versions.push(v.clone());
            }
        }
        for n in &s.manifest.notes {
            if !notes.contains(n) {
                notes.push(n.clone());
            }
        }
        if s.manifest.project_root != first.project_root {
            notes.push(format!(
                "shard {} was captured in {} (shard {} in {})",
                s.info.label(),
                s.manifest.project_root,
                shards[0].info.label(),
                first.project_root
            ));
        }
    }
    notes.push(format!(
        "merged from {} of {} shards",
        shards.len(),
        plan.shards
    ));
    if !missing.is_empty() {
        notes.push(format!(
            "{} planned files were in no merged shard (see merge.missing)",
            missing.len()
        ));
    }
    let mut m = Manifest {
        toolchains,
        lean_versions,
        completed_unix_ms: shards
            .iter()
            .map(|s| s.manifest.completed_unix_ms)
            .max()
            .flatten(),
        status: SessionStatus::Complete,
        index_bytes: bytes,
        next_capture,
        notes,
        merge: Some(MergeInfo {
            plan_digest: plan.digest.clone(),
            shard_count: plan.shards,
            git_commit: shards[0].info.git_commit.clone(),
            shards: shards
                .iter()
                .map(|s| MergedShard {
                    index: s.info.index,
                    session: s.dir.display().to_string(),
                    files: s.manifest.files.len() as u64,
                })
                .collect(),
            missing: missing.clone(),
        }),
        ..Manifest::new(NewSession {
            producer: super::PRODUCER.into(),
            project_root: first.project_root.clone(),
            target: plan.target.clone(),
            threshold_ms: first.threshold_ms,
            measure: first.measure,
            started_unix_ms: shards
                .iter()
                .map(|s| s.manifest.started_unix_ms)
                .min()
                .unwrap_or(0),
            files,
        })
    };
    m.recount();
    if m.files.iter().any(|f| !f.status.is_committed()) {
        m.status = SessionStatus::Partial;
    }
    write_synced(&root.join(PLAN_FILE), &plan.to_json())?;
    write_synced(&root.join(MANIFEST_FILE), &m.to_json())?;
    crate::session::staged_dir::publish(staged, out)?;
    Ok(MergeSummary {
        session: out.to_path_buf(),
        status: m.status,
        counts: m.counts,
        shards: shards.len(),
        missing,
        rows,
        skipped_rows,
    })
}

/// Writes `line` (one index row) to `out` with its file id and capture
/// number rewritten by `remap`; false (nothing written) for a line that is
/// not JSON or not a row of a committed capture.
///
/// Rows as leanscope writes them start `{"capture":C,"file":F,`; those are
/// checked to be well-formed JSON and copied with the new prefix, without
/// building the row. Any other line is parsed as a row and written anew.
fn rewrite_row(line: &[u8], remap: &HashMap<u32, (u32, u64, u64)>, out: &mut Vec<u8>) -> bool {
    if let Some((capture, file, rest)) = leading_ids(line) {
        if serde_json::from_slice::<serde::de::IgnoredAny>(line).is_err() {
            return false;
        }
        let Some(&(id, old, new)) = u32::try_from(file).ok().and_then(|f| remap.get(&f)) else {
            return false;
        };
        if old != capture {
            return false;
        }
        out.extend_from_slice(b"{\"capture\":");
        out.extend_from_slice(itoa::Buffer::new().format(new).as_bytes());
        out.extend_from_slice(b",\"file\":");
        out.extend_from_slice(itoa::Buffer::new().format(id).as_bytes());
        out.push(b',');
        out.extend_from_slice(rest);
        return true;
    }
    let Ok(mut row) = serde_json::from_slice::<IndexRow>(line) else {
        return false;
    };
    match remap.get(&row.file) {
        Some(&(id, old, new)) if old == row.capture => {
            row.file = id;
            row.capture = new;
        }
        _ => return false,
    }
    write_row(&row, out);
    true
}

/// `{"capture":C,"file":F,REST` → (C, F, REST).
fn leading_ids(line: &[u8]) -> Option<(u64, u64, &[u8])> {
    let rest = line.strip_prefix(b"{\"capture\":")?;
    let (capture, rest) = leading_number(rest)?;
    let rest = rest.strip_prefix(b",\"file\":")?;
    let (file, rest) = leading_number(rest)?;
    let rest = rest.strip_prefix(b",")?;
    Some((capture, file, rest))
}

fn leading_number(b: &[u8]) -> Option<(u64, &[u8])> {
    let n = b.iter().take_while(|c| c.is_ascii_digit()).count();
    if n == 0 || n > 19 || (n > 1 && b[0] == b'0') {
        return None;
    }
    let v = std::str::from_utf8(&b[..n]).ok()?.parse().ok()?;
    Some((v, &b[n..]))
}

/// Reads up to and including the next newline.
fn skip_line(r: &mut impl BufRead) -> std::io::Result<()> {
    loop {
        let buf = r.fill_buf()?;
        if buf.is_empty() {
            return Ok(());
        }
        if let Some(p) = memchr::memchr(b'\n', buf) {
            r.consume(p + 1);
            return Ok(());
        }
        let n = buf.len();
        r.consume(n);
    }
}

fn write_synced(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut f = File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
    f.write_all(bytes)
        .and_then(|_| f.sync_all())
        .with_context(|| format!("cannot write {}", path.display()))
}

/// A hard link to the shard's recording (the merged session then needs
/// no more space), else a copy; either way the source must be a regular
/// file.
fn link_or_copy(from: &Path, to: &Path) -> Result<()> {
    let mut src = regular::read(from)
        .with_context(|| format!("cannot read the recording {}", from.display()))?;
    if std::fs::hard_link(from, to).is_ok() {
        return Ok(());
    }
    let mut dst = File::create(to).with_context(|| format!("cannot create {}", to.display()))?;
    std::io::copy(&mut src, &mut dst)
        .and_then(|_| dst.sync_all())
        .with_context(|| format!("cannot copy {} to {}", from.display(), to.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_rewritten_by_prefix_or_parsed() {
        let remap: HashMap<u32, (u32, u64, u64)> = [(3, (7, 2, 11))].into_iter().collect();
        let row = br#"{"capture":2,"file":3,"kind":"file","path":"A.lean","name":"A","durationMs":1.5,"selfMs":null}"#;
        let mut out = Vec::new();
        assert!(rewrite_row(&[&row[..], b"\n"].concat(), &remap, &mut out));
        assert_eq!(
            out,
            br#"{"capture":11,"file":7,"kind":"file","path":"A.lean","name":"A","durationMs":1.5,"selfMs":null}
"#
        );
        // Another key order goes through the parser, to the same row.
        let mut again = Vec::new();
        let reordered = br#"{"file":3,"capture":2,"kind":"file","path":"A.lean","name":"A","durationMs":1.5,"selfMs":null}
"#;
        assert!(rewrite_row(reordered, &remap, &mut again));
        assert_eq!(again, out);
        // Not JSON, another capture, an unknown file: nothing.
        for bad in [
            &br#"{"capture":2,"file":3,"kind":"file""#[..],
            br#"{"capture":1,"file":3,"kind":"file","path":"A.lean","name":"A","durationMs":1.5,"selfMs":null}"#,
            br#"{"capture":2,"file":4,"kind":"file","path":"A.lean","name":"A","durationMs":1.5,"selfMs":null}"#,
            br#"{"capture":02,"file":3,"kind":"file"}"#,
            b"#",
        ] {
            let mut o = Vec::new();
            assert!(!rewrite_row(bad, &remap, &mut o), "{}", String::from_utf8_lossy(bad));
            assert!(o.is_empty());
        }
    }
}
