//! Sharded captures: a plan's files cut into N shards, each captured as an
//! ordinary session on its own machine, and merged afterwards.
//!
//! The cut is deterministic: every shard computes the same partition from
//! the same planned files and weights, without talking to the others. The
//! weights are the files' source sizes in bytes, or (with a previous
//! session) their captured times in nanoseconds; files go, heaviest first
//! (ties by path), to the shard with the least weight so far (ties to the
//! lowest shard): longest-processing-time first.
//!
//! The *plan digest* is the SHA-256 of the canonical text of the plan
//! (target, threshold, shard count, how it was balanced, and every file
//! with its module and weight, in path order), so two shards with equal
//! digests were cut from the same plan and hold disjoint files.

use serde::{Deserialize, Serialize};

use super::{Target, TargetKind};
use crate::limits::MAX_SHARDS;

/// The plan file inside a shard's (or merged) session directory.
pub const PLAN_FILE: &str = "plan.json";

/// The version of `plan.json` this build writes and reads.
pub const PLAN_SCHEMA_VERSION: u32 = 1;

/// One shard of N, 1-based (`K/N`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ShardSpec {
    pub index: u32,
    pub count: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShardError {
    #[error("--shard {0:?} is not K/N (for example 2/8)")]
    NotKOverN(String),
    #[error("shard {index}/{count}: K must be between 1 and N")]
    OutOfRange { index: u32, count: u32 },
    #[error("{count} shards is over the limit of {MAX_SHARDS}")]
    TooMany { count: u32 },
    #[error("--shard auto: {0}")]
    Auto(String),
}

impl ShardSpec {
    pub fn new(index: u32, count: u32) -> Result<ShardSpec, ShardError> {
        if count > MAX_SHARDS {
            return Err(ShardError::TooMany { count });
        }
        if count == 0 || index == 0 || index > count {
            return Err(ShardError::OutOfRange { index, count });
        }
        Ok(ShardSpec { index, count })
    }

    /// Parses `K/N`.
    pub fn parse(text: &str) -> Result<ShardSpec, ShardError> {
        let bad = || ShardError::NotKOverN(text.to_string());
        let (k, n) = text.trim().split_once('/').ok_or_else(bad)?;
        let k: u32 = k.trim().parse().map_err(|_| bad())?;
        let n: u32 = n.trim().parse().map_err(|_| bad())?;
        ShardSpec::new(k, n)
    }

    /// The shard a batch scheduler assigned, from its environment (`get`
    /// reads a variable): Kubernetes Indexed Jobs give the 0-based
    /// `JOB_COMPLETION_INDEX` (the total comes from `--shards`); Slurm job
    /// arrays give `SLURM_ARRAY_TASK_ID`, `SLURM_ARRAY_TASK_MIN` and
    /// `SLURM_ARRAY_TASK_COUNT` (so `--array=1-8` and `--array=0-7` both
    /// work; a stepped array is refused, since its ids are not contiguous).
    pub fn from_env(
        total: Option<u32>,
        get: &dyn Fn(&str) -> Option<String>,
    ) -> Result<ShardSpec, ShardError> {
        let num =
            |name: &str| -> Result<Option<u32>, ShardError> {
                match get(name) {
                    None => Ok(None),
                    Some(v) => v.trim().parse().map(Some).map_err(|_| {
                        ShardError::Auto(format!("{name}={v:?} is not a whole number"))
                    }),
                }
            };
        if let Some(i) = num("JOB_COMPLETION_INDEX")? {
            let n = total.ok_or_else(|| {
                ShardError::Auto(
                    "JOB_COMPLETION_INDEX is set but not the number of shards; give --shards N (the Job's completions)".into(),
                )
            })?;
            return ShardSpec::new(i.saturating_add(1), n);
        }
        if let Some(id) = num("SLURM_ARRAY_TASK_ID")? {
            let count = match (num("SLURM_ARRAY_TASK_COUNT")?, total) {
                (Some(c), Some(t)) if c != t => {
                    return Err(ShardError::Auto(format!(
                        "SLURM_ARRAY_TASK_COUNT is {c} but --shards says {t}"
                    )))
                }
                (Some(c), _) | (None, Some(c)) => c,
                (None, None) => return Err(ShardError::Auto(
                    "SLURM_ARRAY_TASK_ID is set but not SLURM_ARRAY_TASK_COUNT; give --shards N"
                        .into(),
                )),
            };
            let min = num("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
            if let (Some(max), Some(step)) =
                (num("SLURM_ARRAY_TASK_MAX")?, num("SLURM_ARRAY_TASK_STEP")?)
            {
                if step != 1 || max.checked_sub(min).map(|d| d + 1) != Some(count) {
                    return Err(ShardError::Auto(format!(
                        "the Slurm array {min}-{max}:{step} is not contiguous; use --array=0-{}",
                        count.saturating_sub(1)
                    )));
                }
            }
            let k = id.checked_sub(min).ok_or_else(|| {
                ShardError::Auto(format!(
                    "SLURM_ARRAY_TASK_ID {id} is below SLURM_ARRAY_TASK_MIN {min}"
                ))
            })?;
            return ShardSpec::new(k.saturating_add(1), count);
        }
        Err(ShardError::Auto(
            "neither JOB_COMPLETION_INDEX (Kubernetes Indexed Job) nor SLURM_ARRAY_TASK_ID (Slurm array) is set; give --shard K/N".into(),
        ))
    }

    /// `K/N`.
    pub fn label(&self) -> String {
        format!("{}/{}", self.index, self.count)
    }
}

/// What the weights of a plan are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Balance {
    /// Source size in bytes.
    Size,
    /// A previous session's per-file time in nanoseconds (files it lacks:
    /// their size times the session's nanoseconds per byte).
    Session,
}

impl Balance {
    pub fn as_str(self) -> &'static str {
        match self {
            Balance::Size => "size",
            Balance::Session => "session",
        }
    }
}

/// One planned file with its weight and shard.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlanFile {
    pub path: String,
    pub module: String,
    pub weight: u64,
    /// The 1-based shard the file belongs to.
    pub shard: u32,
}

/// `plan.json`: the whole plan a shard was cut from, written once when the
/// shard's session is created.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ShardPlan {
    pub schema_version: u32,
    /// SHA-256 of the canonical plan ([`ShardPlan::compute_digest`]).
    pub digest: String,
    pub target: Target,
    pub threshold_ms: u64,
    pub shards: u32,
    pub balance: Balance,
    /// Every planned file, in path order.
    pub files: Vec<PlanFile>,
}

/// A file to plan: path, module and weight.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Weighted {
    pub path: String,
    pub module: String,
    pub weight: u64,
}

impl ShardPlan {
    /// Cuts `files` into `shards` shards (longest-processing-time first).
    pub fn cut(
        target: Target,
        threshold_ms: u64,
        shards: u32,
        balance: Balance,
        mut files: Vec<Weighted>,
    ) -> ShardPlan {
        files.sort_by(|a, b| a.path.cmp(&b.path));
        let assigned = partition(&files, shards.max(1));
        let files = files
            .into_iter()
            .zip(assigned)
            .map(|(f, s)| PlanFile {
                path: f.path,
                module: f.module,
                weight: f.weight,
                shard: s,
            })
            .collect();
        let mut p = ShardPlan {
            schema_version: PLAN_SCHEMA_VERSION,
            digest: String::new(),
            target,
            threshold_ms,
            shards: shards.max(1),
            balance,
            files,
        };
        p.digest = p.compute_digest();
        p
    }

    /// The SHA-256 of the canonical text of the plan (what the files are,
    /// not which shard each got: that follows from it).
    pub fn compute_digest(&self) -> String {
        let mut text = String::with_capacity(64 + self.files.len() * 64);
        let kind = match self.target.kind {
            TargetKind::Folder => "folder",
            TargetKind::Project => "project",
            TargetKind::File => "file",
        };
        text.push_str(&format!(
            "leanscope plan {}\ntarget {kind} {:?}\nthreshold {}\nshards {}\nbalance {}\n",
            PLAN_SCHEMA_VERSION,
            self.target.path,
            self.threshold_ms,
            self.shards,
            self.balance.as_str()
        ));
        for f in &self.files {
            text.push_str(&format!("{:?} {:?} {}\n", f.path, f.module, f.weight));
        }
        crate::sha256_hex(text.as_bytes())
    }

    /// Parses and checks a plan: version, digest, path order and shards.
    pub fn from_json(bytes: &[u8]) -> Result<ShardPlan, String> {
        let p: ShardPlan = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
        if p.schema_version == 0 || p.schema_version > PLAN_SCHEMA_VERSION {
            return Err(format!(
                "unsupported plan schema version {} (this leanscope reads up to version {PLAN_SCHEMA_VERSION})",
                p.schema_version
            ));
        }
        if p.shards == 0 || p.shards > MAX_SHARDS {
            return Err(format!("{} shards is outside 1..={MAX_SHARDS}", p.shards));
        }
        for w in p.files.windows(2) {
            if w[0].path >= w[1].path {
                return Err(format!(
                    "files are not in path order (or repeat): {:?} then {:?}",
                    w[0].path, w[1].path
                ));
            }
        }
        if let Some(f) = p.files.iter().find(|f| f.shard == 0 || f.shard > p.shards) {
            return Err(format!(
                "{} is in shard {} of {}",
                f.path, f.shard, p.shards
            ));
        }
        let weighted: Vec<Weighted> = p
            .files
            .iter()
            .map(|f| Weighted {
                path: f.path.clone(),
                module: f.module.clone(),
                weight: f.weight,
            })
            .collect();
        let assigned = partition(&weighted, p.shards);
        if let Some((f, s)) = p.files.iter().zip(&assigned).find(|(f, s)| f.shard != **s) {
            return Err(format!(
                "{} is in shard {}, but the plan puts it in shard {s}",
                f.path, f.shard
            ));
        }
        let digest = p.compute_digest();
        if digest != p.digest {
            return Err(format!(
                "its digest {} is not the digest of its content ({digest})",
                p.digest
            ));
        }
        Ok(p)
    }

    pub fn to_json(&self) -> Vec<u8> {
        // Serializing plain data into a Vec cannot fail.
        let mut v = serde_json::to_vec(self).unwrap_or_default();
        v.push(b'\n');
        v
    }

    /// The files of shard `index`, in path order.
    pub fn files_of(&self, index: u32) -> impl Iterator<Item = &PlanFile> {
        self.files.iter().filter(move |f| f.shard == index)
    }
}

/// For each file (in the given order), its 1-based shard: heaviest first,
/// ties by position, each to the lightest shard so far, ties to the lowest.
pub fn partition(files: &[Weighted], shards: u32) -> Vec<u32> {
    let shards = shards.max(1) as usize;
    let mut order: Vec<usize> = (0..files.len()).collect();
    order.sort_by(|&a, &b| files[b].weight.cmp(&files[a].weight).then(a.cmp(&b)));
    // A min-heap of (load, shard).
    let mut heap: std::collections::BinaryHeap<std::cmp::Reverse<(u128, usize)>> =
        (0..shards).map(|s| std::cmp::Reverse((0, s))).collect();
    let mut out = vec![0u32; files.len()];
    for i in order {
        if let Some(std::cmp::Reverse((load, s))) = heap.pop() {
            out[i] = s as u32 + 1;
            heap.push(std::cmp::Reverse((load + u128::from(files[i].weight), s)));
        }
    }
    out
}

/// The shard facts a shard's `session.json` carries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ShardInfo {
    /// 1-based.
    pub index: u32,
    pub count: u32,
    /// The digest of the plan in `plan.json`.
    pub plan_digest: String,
    /// Files in the whole plan.
    pub plan_files: u64,
    pub balance: Balance,
    /// The project's Git commit (`HEAD`) when it is a Git checkout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_commit: Option<String>,
}

impl ShardInfo {
    /// `K/N`.
    pub fn label(&self) -> String {
        format!("{}/{}", self.index, self.count)
    }
}

/// What a merged session's `session.json` says about its shards.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MergeInfo {
    pub plan_digest: String,
    pub shard_count: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_commit: Option<String>,
    /// The shards merged, in the order given.
    pub shards: Vec<MergedShard>,
    /// Planned files no merged shard captured, in path order.
    pub missing: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MergedShard {
    pub index: u32,
    /// The shard's session directory as given to the merge.
    pub session: String,
    /// Its files (committed or not).
    pub files: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(path: &str, weight: u64) -> Weighted {
        Weighted {
            path: path.into(),
            module: path.trim_end_matches(".lean").into(),
            weight,
        }
    }

    fn target() -> Target {
        Target {
            kind: TargetKind::Project,
            path: String::new(),
        }
    }

    #[test]
    fn parses_k_over_n_and_refuses_the_rest() {
        assert_eq!(
            ShardSpec::parse("2/3"),
            Ok(ShardSpec { index: 2, count: 3 })
        );
        assert_eq!(ShardSpec::parse(" 1 / 1 ").unwrap().label(), "1/1");
        for bad in ["2", "a/3", "2/b", "", "/3"] {
            assert_eq!(
                ShardSpec::parse(bad),
                Err(ShardError::NotKOverN(bad.into()))
            );
        }
        assert_eq!(
            ShardSpec::parse("0/3"),
            Err(ShardError::OutOfRange { index: 0, count: 3 })
        );
        assert_eq!(
            ShardSpec::parse("4/3"),
            Err(ShardError::OutOfRange { index: 4, count: 3 })
        );
        assert!(ShardSpec::parse(&format!("1/{MAX_SHARDS}")).is_ok());
        assert_eq!(
            ShardSpec::parse(&format!("1/{}", MAX_SHARDS + 1)),
            Err(ShardError::TooMany {
                count: MAX_SHARDS + 1
            })
        );
    }

    #[test]
    fn auto_reads_kubernetes_and_slurm() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v.to_string())
            }
        };
        let k8s = env(&[("JOB_COMPLETION_INDEX", "0")]);
        assert_eq!(
            ShardSpec::from_env(Some(4), &k8s),
            Ok(ShardSpec { index: 1, count: 4 })
        );
        assert!(ShardSpec::from_env(None, &k8s)
            .unwrap_err()
            .to_string()
            .contains("give --shards N"));
        let slurm = env(&[
            ("SLURM_ARRAY_TASK_ID", "8"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_MAX", "8"),
            ("SLURM_ARRAY_TASK_STEP", "1"),
            ("SLURM_ARRAY_TASK_COUNT", "8"),
        ]);
        assert_eq!(
            ShardSpec::from_env(None, &slurm),
            Ok(ShardSpec { index: 8, count: 8 })
        );
        assert!(ShardSpec::from_env(Some(7), &slurm)
            .unwrap_err()
            .to_string()
            .contains("SLURM_ARRAY_TASK_COUNT is 8 but --shards says 7"));
        let stepped = env(&[
            ("SLURM_ARRAY_TASK_ID", "2"),
            ("SLURM_ARRAY_TASK_MIN", "0"),
            ("SLURM_ARRAY_TASK_MAX", "6"),
            ("SLURM_ARRAY_TASK_STEP", "2"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ]);
        assert!(ShardSpec::from_env(None, &stepped)
            .unwrap_err()
            .to_string()
            .contains("not contiguous"));
        let none = env(&[]);
        assert!(ShardSpec::from_env(Some(2), &none)
            .unwrap_err()
            .to_string()
            .contains("neither JOB_COMPLETION_INDEX"));
        let bad = env(&[("JOB_COMPLETION_INDEX", "x")]);
        assert!(ShardSpec::from_env(Some(2), &bad)
            .unwrap_err()
            .to_string()
            .contains("JOB_COMPLETION_INDEX=\"x\" is not a whole number"));
    }

    #[test]
    fn longest_first_spreads_the_heaviest_files() {
        let files = vec![
            w("A.lean", 1),
            w("B.lean", 100),
            w("C.lean", 90),
            w("D.lean", 80),
            w("E.lean", 5),
            w("F.lean", 5),
        ];
        let s = partition(&files, 3);
        // B, C, D open the three shards; then E, F and A fill the lightest.
        assert_eq!(s, vec![2, 1, 2, 3, 3, 3]);
        let loads: Vec<u64> = (1..=3)
            .map(|k| {
                files
                    .iter()
                    .zip(&s)
                    .filter(|(_, &x)| x == k)
                    .map(|(f, _)| f.weight)
                    .sum()
            })
            .collect();
        assert_eq!(loads, vec![100, 91, 90]);
        // Every file in one shard; more shards than files leaves some empty.
        assert_eq!(partition(&files[..2], 4), vec![2, 1]);
    }

    #[test]
    fn the_digest_is_of_the_content_and_order_independent() {
        let a = ShardPlan::cut(
            target(),
            10,
            2,
            Balance::Size,
            vec![w("B.lean", 2), w("A.lean", 3)],
        );
        let b = ShardPlan::cut(
            target(),
            10,
            2,
            Balance::Size,
            vec![w("A.lean", 3), w("B.lean", 2)],
        );
        assert_eq!(a, b);
        assert_eq!(a.files[0].path, "A.lean");
        let back = ShardPlan::from_json(&a.to_json()).unwrap();
        assert_eq!(back, a);
        for other in [
            ShardPlan::cut(
                target(),
                11,
                2,
                Balance::Size,
                vec![w("A.lean", 3), w("B.lean", 2)],
            ),
            ShardPlan::cut(
                target(),
                10,
                3,
                Balance::Size,
                vec![w("A.lean", 3), w("B.lean", 2)],
            ),
            ShardPlan::cut(
                target(),
                10,
                2,
                Balance::Session,
                vec![w("A.lean", 3), w("B.lean", 2)],
            ),
            ShardPlan::cut(
                target(),
                10,
                2,
                Balance::Size,
                vec![w("A.lean", 4), w("B.lean", 2)],
            ),
            ShardPlan::cut(target(), 10, 2, Balance::Size, vec![w("A.lean", 3)]),
        ] {
            assert_ne!(other.digest, a.digest);
        }
        let mut tampered = a.clone();
        tampered.files[0].weight = 9;
        let e = ShardPlan::from_json(&tampered.to_json()).unwrap_err();
        assert!(e.contains("is not the digest of its content"), "{e}");
        let mut unordered = a.clone();
        unordered.files.swap(0, 1);
        let e = ShardPlan::from_json(&unordered.to_json()).unwrap_err();
        assert!(e.contains("not in path order"), "{e}");
        let mut off = a.clone();
        off.files[0].shard = 3;
        let e = ShardPlan::from_json(&off.to_json()).unwrap_err();
        assert!(e.contains("is in shard 3 of 2"), "{e}");
        let mut moved = a;
        moved.files[0].shard = 3 - moved.files[0].shard;
        let e = ShardPlan::from_json(&moved.to_json()).unwrap_err();
        assert!(e.contains("but the plan puts it in shard"), "{e}");
    }
}
