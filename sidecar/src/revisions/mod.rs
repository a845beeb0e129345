//! Exact-revision profiling: did a branch make Lean slower, and where?
//! `plan` reads what changed from Git objects; `git` is the one reader of
//! Git's plumbing output; `roots` decides which files are the library's.

pub mod git;
pub mod plan;
pub mod roots;
