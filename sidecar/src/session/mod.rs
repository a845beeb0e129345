//! Folder and project captures: sessions on disk (see `recording::session`
//! for the format), discovery of the files, the engine that captures them,
//! resumes, and the reader side used by `leanscope query`.

pub mod committed;
pub mod confined;
pub mod discover;
pub mod engine;
pub mod entry;
pub mod group_commit;
pub mod merge;
pub mod regular;
pub mod shard;
pub mod store;

/// Who wrote a session this build writes (`session.json`'s `producer`).
pub const PRODUCER: &str = concat!("leanscope ", env!("CARGO_PKG_VERSION"));
