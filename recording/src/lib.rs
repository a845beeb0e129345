//! The leanscope recording: file format, event model and timing math.
//!
//! This crate is the single source of truth for what a recording is and how
//! time is attributed. The sidecar and the WebAssembly viewer both use it.
//! It does no I/O beyond `std::io::Read`/`Write` and the atomic file publish
//! of [`RecordingWriter`].

pub mod columns;
pub mod compare;
pub mod error;
mod generated;
pub mod headroom;
pub mod hotspots;
pub mod interner;
pub mod limits;
pub mod measure;
pub mod memory;
pub mod model;
pub mod reader;
pub mod repeats;
pub mod session;
pub mod source_check;
pub mod source_range;
pub mod status_emoji;
pub mod strings;
pub mod summary;
pub mod synth;
pub mod text;
pub mod types;
mod varint;
pub mod writer;

pub use error::RecordingError;
pub use measure::Measure;
pub use model::{Recording, ValidationIssue};
pub use reader::{ChunkReader, DecodedBatch, RecordingFile};
pub use types::*;
pub use writer::{AtomicFile, Encoder, NewEvent, Publish, RecordingWriter};

/// The schema version this build writes and the newest it reads.
pub const SCHEMA_VERSION: u16 = 1;

/// The 8 bytes every recording starts with.
pub const MAGIC: [u8; 8] = [0x89, b'L', b'S', b'R', b'E', b'C', b'\r', b'\n'];

/// The 8 bytes every complete recording ends with (after the footer offset).
pub const END_MAGIC: [u8; 8] = *b"LSRECEND";

/// Size of the trailer: footer offset (u64 LE) + [`END_MAGIC`].
pub const TRAILER_LEN: usize = 16;

/// The usual file extension of a recording.
pub const FILE_EXTENSION: &str = "lsrec";
