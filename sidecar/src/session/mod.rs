//! Folder and project captures: sessions on disk (see `recording::session`
//! for the format), discovery of the files, the engine that captures them,
//! resumes, merges, the reader side used by `leanscope query`, and the
//! staged directory a new session (or a published site) is written into.

pub mod committed;
pub mod discover;
pub mod engine;
pub mod entry;
pub mod group_commit;
pub mod merge;
pub mod regular;
pub mod shard;
pub mod staged_dir;
pub mod store;

/// Who wrote a session this build writes (`session.json`'s `producer`).
pub const PRODUCER: &str = concat!("leanscope ", env!("CARGO_PKG_VERSION"));
