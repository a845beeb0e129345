//! A revision run's shard (`revisions run --shard K/N`): the plan's files,
//! sorted by path, dealt in turn to shards 1..N, so that a CI matrix
//! measures a large change in N jobs; `merge.rs` puts the shards back
//! together. Every shard plans the whole change (the same plan digest);
//! only the files it measures differ.

use recording::session::shard::ShardSpec;

use super::plan::Plan;

/// The plan with only shard `spec`'s files: file `i` (0-based, by path)
/// belongs to shard `i mod N + 1`.
pub fn files_of(plan: &Plan, spec: ShardSpec) -> Plan {
    let mut p = plan.clone();
    p.files = plan
        .files
        .iter()
        .enumerate()
        .filter(|(i, _)| (*i as u32) % spec.count + 1 == spec.index)
        .map(|(_, f)| f.clone())
        .collect();
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::revisions::plan::{FileStatus, PlannedChange, Revision};
    use crate::revisions::roots::RootsFrom;

    fn plan(n: usize) -> Plan {
        Plan {
            schema_version: 1,
            base: Revision {
                rev: "main".into(),
                commit: "a".repeat(40),
            },
            head: Revision {
                rev: "feature".into(),
                commit: "b".repeat(40),
            },
            merge_base: "a".repeat(40),
            roots: vec![],
            roots_from: RootsFrom::Repository,
            max_files: 32,
            files: (0..n)
                .map(|i| PlannedChange {
                    path: format!("A/F{i:02}.lean"),
                    module: format!("A.F{i:02}"),
                    status: FileStatus::Modified,
                    base_blob: Some("c".repeat(40)),
                    head_blob: Some("d".repeat(40)),
                })
                .collect(),
            ignored_changes: 0,
            plan_digest: "e".repeat(64),
        }
    }

    #[test]
    fn every_file_is_in_exactly_one_shard() {
        let p = plan(7);
        let mut seen: Vec<String> = Vec::new();
        for k in 1..=3 {
            let s = files_of(&p, ShardSpec::new(k, 3).unwrap());
            assert!(s.files.len() == 2 || s.files.len() == 3);
            assert_eq!(s.plan_digest, p.plan_digest);
            seen.extend(s.files.into_iter().map(|f| f.path));
        }
        seen.sort();
        let all: Vec<String> = p.files.iter().map(|f| f.path.clone()).collect();
        assert_eq!(seen, all);
        // More shards than files: the last ones measure nothing.
        assert!(files_of(&plan(2), ShardSpec::new(3, 3).unwrap())
            .files
            .is_empty());
    }
}
