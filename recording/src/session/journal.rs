//! `session.journal`: the append-only record of what changed since the last
//! checkpoint of `session.json`, so a session costs O(files) bytes of
//! manifest writes instead of a whole manifest per file.
//!
//! ```text
//! 3f0c9a1b2d4e5f60 {"journal":1,"base":"<SHA-256 of session.json>"}
//! 9a8b7c6d5e4f3a2b {"file":{...FileEntry...},"indexBytes":1234,"nextCapture":8,"leanVersion":"..."}
//! ...
//! ```
//!
//! Every line is the first 16 hex digits of the SHA-256 of its JSON, a
//! space, the JSON and a newline. The first line (the header) names the
//! checkpoint the journal extends by the SHA-256 of its bytes: a journal
//! whose base is not the `session.json` beside it predates that checkpoint
//! (the writer was killed between publishing a checkpoint and starting the
//! next journal) and is ignored, since the checkpoint holds all of it. Each
//! later line is one file's new state, with the index length and the next
//! capture number after it; it is appended and synced after the file's
//! recording was published and its index rows synced, and is what commits
//! them. A last line cut short by a kill (no newline, or a checksum that
//! does not match) was never committed and is ignored; a damaged line
//! before the last is an error.
//!
//! [`load_manifest`] is the one reader: `session.json` with its journal
//! replayed. It is pure (bytes in, manifest out), so the WebAssembly viewer
//! can use it too.

use serde::{Deserialize, Serialize};

use super::{FileEntry, LakeEnvRecord, Manifest, SessionError};
use crate::limits::{MAX_JOURNAL_BYTES, MAX_JOURNAL_LINE_BYTES};

/// The journal's file name inside a session directory.
pub const JOURNAL_FILE: &str = "session.journal";

/// The version of the journal's lines this build writes; it reads this
/// one and every earlier one. Version 2 added a file change's optional
/// `lakeEnv` (a Lake environment taken again mid-run): a version 1
/// journal is a version 2 journal without it, so it reads unchanged,
/// while a build that reads only version 1 refuses a version 2 journal by
/// its header (naming the version) instead of failing on a line.
pub const JOURNAL_VERSION: u32 = 2;

/// A journal shorter than this never forces a checkpoint: small sessions
/// are not rewritten after every file.
pub const MIN_CHECKPOINT_JOURNAL_BYTES: u64 = 64 << 10;

/// Hex digits of the checksum that starts each line.
const CHECKSUM_DIGITS: usize = 16;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Header {
    journal: u32,
    /// SHA-256 (lowercase hex) of the `session.json` this journal extends.
    base: String,
}

/// One file's new state, and the session's counters after it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FileChange {
    pub file: FileEntry,
    /// Length of `index.jsonl` up to the last committed file's rows.
    pub index_bytes: u64,
    /// The next capture number to hand out.
    pub next_capture: u64,
    /// The Lean version the file was captured with, when it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lean_version: Option<String>,
    /// The session's Lake environment, on the first change after it was
    /// taken again (the lakefile or Lake's manifest changed mid-run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lake_env: Option<LakeEnvRecord>,
}

/// What replaying a journal found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct JournalReport {
    /// File changes applied on top of `session.json`.
    pub applied: u64,
    /// A last line cut short by a kill was ignored.
    pub torn_tail: bool,
    /// The journal predates `session.json` and was ignored as a whole.
    pub stale: bool,
    /// Bytes of the journal up to the end of its last good line.
    pub good_bytes: u64,
}

/// A manifest as readers see it.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedManifest {
    pub manifest: Manifest,
    pub journal: JournalReport,
}

fn checksum(json: &[u8]) -> String {
    let mut s = crate::sha256_hex(json);
    s.truncate(CHECKSUM_DIGITS);
    s
}

fn line_of(json: Vec<u8>) -> Vec<u8> {
    let mut line = Vec::with_capacity(json.len() + CHECKSUM_DIGITS + 2);
    line.extend_from_slice(checksum(&json).as_bytes());
    line.push(b' ');
    line.extend_from_slice(&json);
    line.push(b'\n');
    line
}

/// The first line of a journal extending the checkpoint `base` (the bytes
/// of `session.json`).
pub fn header_line(base: &[u8]) -> Vec<u8> {
    let h = Header {
        journal: JOURNAL_VERSION,
        base: crate::sha256_hex(base),
    };
    // Serializing plain data into a Vec cannot fail.
    line_of(serde_json::to_vec(&h).unwrap_or_default())
}

/// The line that commits `change`.
pub fn change_line(change: &FileChange) -> Vec<u8> {
    line_of(serde_json::to_vec(change).unwrap_or_default())
}

/// True when a journal of `journal_bytes` over a checkpoint of
/// `manifest_bytes` should be folded into a new checkpoint: once it is as
/// long as the checkpoint (so the checkpoints written add up to a small
/// multiple of the journal: O(files) bytes in all), and well before a
/// reader's limit.
pub fn checkpoint_due(journal_bytes: u64, manifest_bytes: u64) -> bool {
    journal_bytes >= manifest_bytes.clamp(MIN_CHECKPOINT_JOURNAL_BYTES, MAX_JOURNAL_BYTES / 2)
}

/// A line's JSON when its checksum matches; `None` when it does not.
fn checked(line: &[u8]) -> Option<&[u8]> {
    if line.len() < CHECKSUM_DIGITS + 1 || line[CHECKSUM_DIGITS] != b' ' {
        return None;
    }
    let (sum, json) = (&line[..CHECKSUM_DIGITS], &line[CHECKSUM_DIGITS + 1..]);
    (checksum(json).as_bytes() == sum).then_some(json)
}

fn damaged(line: usize, why: impl std::fmt::Display) -> SessionError {
    SessionError::BadJournal(format!("line {line}: {why}"))
}

/// Reads `session.json` (`base`) and replays its journal, when there is
/// one: the one way to read a session's manifest.
pub fn load_manifest(base: &[u8], journal: Option<&[u8]>) -> Result<LoadedManifest, SessionError> {
    let mut manifest = Manifest::from_json(base)?;
    let mut report = JournalReport::default();
    if let Some(journal) = journal {
        report = replay(&mut manifest, base, journal)?;
    }
    Ok(LoadedManifest {
        manifest,
        journal: report,
    })
}

fn replay(m: &mut Manifest, base: &[u8], journal: &[u8]) -> Result<JournalReport, SessionError> {
    if journal.len() as u64 > MAX_JOURNAL_BYTES {
        return Err(SessionError::LimitExceeded {
            what: "session.journal",
            value: journal.len() as u64,
            limit: MAX_JOURNAL_BYTES,
        });
    }
    let mut report = JournalReport::default();
    let mut rest = journal;
    let mut number = 0usize;
    let mut changed = false;
    while !rest.is_empty() {
        number += 1;
        let Some(end) = rest.iter().position(|&b| b == b'\n') else {
            // Cut short by a kill: never committed.
            report.torn_tail = true;
            break;
        };
        let line = &rest[..end];
        rest = &rest[end + 1..];
        if line.len() > MAX_JOURNAL_LINE_BYTES {
            return Err(SessionError::LimitExceeded {
                what: "a session.journal line",
                value: line.len() as u64,
                limit: MAX_JOURNAL_LINE_BYTES as u64,
            });
        }
        let Some(json) = checked(line) else {
            if rest.is_empty() && number > 1 {
                report.torn_tail = true;
                break;
            }
            return Err(damaged(number, "its checksum does not match"));
        };
        if number == 1 {
            let h: Header = serde_json::from_slice(json)
                .map_err(|e| damaged(1, format!("not a journal header: {e}")))?;
            if h.journal == 0 || h.journal > JOURNAL_VERSION {
                return Err(SessionError::BadJournal(format!(
                    "unsupported journal version {} (this leanscope reads up to version {JOURNAL_VERSION})",
                    h.journal
                )));
            }
            if h.base != crate::sha256_hex(base) {
                return Ok(JournalReport {
                    stale: true,
                    ..JournalReport::default()
                });
            }
        } else {
            let c: FileChange = serde_json::from_slice(json)
                .map_err(|e| damaged(number, format!("not a file change: {e}")))?;
            apply(m, c).map_err(|why| damaged(number, why))?;
            report.applied += 1;
            changed = true;
        }
        report.good_bytes = (journal.len() - rest.len()) as u64;
    }
    if number == 0 {
        return Err(damaged(1, "the journal is empty (no header)"));
    }
    if changed {
        m.recount();
    }
    Ok(report)
}

fn apply(m: &mut Manifest, c: FileChange) -> Result<(), String> {
    let id = c.file.id as usize;
    let Some(slot) = m.files.get_mut(id) else {
        return Err(format!(
            "file {id} ({}) is not in session.json, which lists {} files",
            c.file.path,
            m.files.len()
        ));
    };
    if slot.path != c.file.path {
        return Err(format!(
            "file {id} is {} in session.json but {} in the journal",
            slot.path, c.file.path
        ));
    }
    if c.file.status.is_committed() && (c.file.capture.is_none() || c.file.recording.is_none()) {
        return Err(format!(
            "file {id} ({}) is {} but names no capture or recording",
            c.file.path,
            c.file.status.as_str()
        ));
    }
    *slot = c.file;
    m.index_bytes = c.index_bytes;
    m.next_capture = m.next_capture.max(c.next_capture);
    if let Some(v) = c.lean_version {
        if !m.lean_versions.contains(&v) {
            m.lean_versions.push(v);
        }
    }
    if let Some(env) = c.lake_env {
        m.lake_env = Some(env);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::{Counts, FileStatus};
    use super::*;

    fn manifest(files: u32) -> Manifest {
        let mut m = super::super::test_manifest(
            (0..files)
                .map(|i| FileEntry::planned(i, format!("F{i}.lean"), format!("F{i}")))
                .collect(),
        );
        m.counts = Counts::default();
        m
    }

    fn committed(id: u32, capture: u64, index_bytes: u64) -> FileChange {
        let mut file = FileEntry::planned(id, format!("F{id}.lean"), format!("F{id}"));
        file.status = FileStatus::Ok;
        file.capture = Some(capture);
        file.recording = Some(format!("files/{id}-{capture}.lsrec"));
        FileChange {
            file,
            index_bytes,
            next_capture: capture + 1,
            lean_version: Some("4.9.0".into()),
            lake_env: None,
        }
    }

    fn lake_env(taken: u64) -> LakeEnvRecord {
        LakeEnvRecord {
            variables: [("LEAN_PATH".to_string(), format!("/p/.lake/{taken}"))].into(),
            sha256: format!("{taken}").repeat(64),
            lean: "/t/bin/lean".into(),
            taken,
        }
    }

    #[test]
    fn a_lake_environment_taken_again_is_replayed_from_its_line() {
        let mut m = manifest(2);
        m.lake_env = Some(lake_env(1));
        let base = m.to_json();
        let mut j = header_line(&base);
        j.extend(change_line(&committed(0, 1, 100)));
        let mut second = committed(1, 2, 200);
        second.lake_env = Some(lake_env(2));
        let line = change_line(&second);
        assert!(String::from_utf8_lossy(&line).contains(r#""lakeEnv":{"#));
        j.extend(line);
        let l = load_manifest(&base, Some(&j)).unwrap();
        assert_eq!(l.journal.applied, 2);
        assert_eq!(l.manifest.lake_env, Some(lake_env(2)));
        // A line without one leaves the checkpoint's environment.
        let mut j = header_line(&base);
        j.extend(change_line(&committed(0, 1, 100)));
        let l = load_manifest(&base, Some(&j)).unwrap();
        assert_eq!(l.manifest.lake_env, Some(lake_env(1)));
    }

    #[test]
    fn a_version_1_journal_reads_unchanged() {
        let m = manifest(1);
        let base = m.to_json();
        let header = format!(r#"{{"journal":1,"base":"{}"}}"#, crate::sha256_hex(&base));
        let mut j = line_of(header.into_bytes());
        // A version 1 line: no lakeEnv.
        let v1 = br#"{"file":{"id":0,"path":"F0.lean","module":"F0","status":"ok","capture":1,"recording":"files/0-1.lsrec"},"indexBytes":10,"nextCapture":2}"#;
        j.extend(line_of(v1.to_vec()));
        let l = load_manifest(&base, Some(&j)).unwrap();
        assert_eq!(l.journal.applied, 1);
        assert_eq!(l.manifest.files[0].status, FileStatus::Ok);
        assert_eq!(l.manifest.lake_env, None);
    }

    #[test]
    fn replays_changes_in_order_and_ignores_a_torn_tail() {
        let m = manifest(3);
        let base = m.to_json();
        let mut j = header_line(&base);
        j.extend(change_line(&committed(0, 1, 100)));
        j.extend(change_line(&committed(2, 2, 250)));
        let whole = j.len();
        let third = change_line(&committed(1, 3, 400));
        // Every cut of the last line leaves the first two changes.
        for cut in 0..third.len() {
            let mut torn = j.clone();
            torn.extend_from_slice(&third[..cut]);
            let l = load_manifest(&base, Some(&torn)).unwrap();
            assert_eq!(l.journal.applied, 2, "cut {cut}");
            assert_eq!(l.journal.torn_tail, cut > 0, "cut {cut}");
            assert_eq!(l.journal.good_bytes, whole as u64);
            assert_eq!(l.manifest.counts.completed, 2);
            assert_eq!(l.manifest.index_bytes, 250);
            assert_eq!(l.manifest.next_capture, 3);
            assert_eq!(l.manifest.lean_versions, ["4.9.0"]);
            assert_eq!(l.manifest.files[1].status, FileStatus::Pending);
        }
        j.extend(third);
        let l = load_manifest(&base, Some(&j)).unwrap();
        assert_eq!((l.journal.applied, l.journal.torn_tail), (3, false));
        assert_eq!(l.manifest.counts.completed, 3);
        assert_eq!(l.manifest.index_bytes, 400);
    }

    #[test]
    fn a_journal_of_an_older_checkpoint_is_ignored() {
        let m = manifest(2);
        let old = m.to_json();
        let mut j = header_line(&old);
        j.extend(change_line(&committed(0, 1, 100)));
        let mut newer = m.clone();
        newer.files[0] = committed(0, 1, 100).file;
        newer.index_bytes = 100;
        newer.recount();
        let l = load_manifest(&newer.to_json(), Some(&j)).unwrap();
        assert!(l.journal.stale);
        assert_eq!(l.journal.applied, 0);
        assert_eq!(l.manifest, newer);
    }

    #[test]
    fn damage_before_the_last_line_is_an_error_naming_the_line() {
        let m = manifest(2);
        let base = m.to_json();
        let mut j = header_line(&base);
        let mut bad = change_line(&committed(0, 1, 100));
        bad[20] ^= 1;
        j.extend(bad);
        j.extend(change_line(&committed(1, 2, 200)));
        let e = load_manifest(&base, Some(&j)).unwrap_err().to_string();
        assert!(
            e.contains("session.journal") && e.contains("line 2: its checksum does not match"),
            "{e}"
        );
        // A change naming a file the manifest does not have.
        let mut j = header_line(&base);
        j.extend(change_line(&committed(5, 1, 100)));
        j.extend(change_line(&committed(1, 2, 200)));
        let e = load_manifest(&base, Some(&j)).unwrap_err().to_string();
        assert!(
            e.contains("line 2: file 5 (F5.lean) is not in session.json"),
            "{e}"
        );
        // No header.
        let e = load_manifest(&base, Some(b"")).unwrap_err().to_string();
        assert!(e.contains("no header"), "{e}");
        // A header of a later version.
        let h = line_of(br#"{"journal":3,"base":"x"}"#.to_vec());
        let e = load_manifest(&base, Some(&h)).unwrap_err().to_string();
        assert!(
            e.contains("unsupported journal version 3 (this leanscope reads up to version 2)"),
            "{e}"
        );
    }

    #[test]
    fn a_journal_over_the_limit_is_refused() {
        let base = manifest(1).to_json();
        let big = vec![b'x'; MAX_JOURNAL_BYTES as usize + 1];
        let e = load_manifest(&base, Some(&big)).unwrap_err().to_string();
        assert!(e.contains("session.journal is"), "{e}");
        assert!(e.contains("over the limit"), "{e}");
    }

    #[test]
    fn checkpoints_come_when_the_journal_outgrows_the_manifest() {
        assert!(!checkpoint_due(1000, 10));
        assert!(checkpoint_due(MIN_CHECKPOINT_JOURNAL_BYTES, 10));
        assert!(!checkpoint_due(1 << 20, 2 << 20));
        assert!(checkpoint_due(2 << 20, 2 << 20));
        assert!(checkpoint_due(MAX_JOURNAL_BYTES / 2, u64::MAX));
    }
}
