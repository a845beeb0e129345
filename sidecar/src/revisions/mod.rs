//! Exact-revision profiling: did a branch make Lean slower, and where?
//! `plan` reads what changed from Git objects (`git` is the one reader of
//! Git's plumbing output; `roots` decides which files are the library's);
//! `run` measures both sides: `materialize` writes each side's tree from
//! blobs, `sandbox` confines every Lean process (bubblewrap), `measure`
//! runs it under GNU time, `report` compares and flags, `job_summary`
//! says it on a CI run's page.

pub mod git;
pub mod job_summary;
pub mod materialize;
pub mod measure;
pub mod merge;
pub mod plan;
pub mod profile;
pub mod report;
pub mod roots;
pub mod run;
pub mod sandbox;
pub mod shard;
