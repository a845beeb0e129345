//! Every limit of the viewer's WebAssembly, in one place: what it lays out, lists and keeps of a
//! recording or a session. The limits of the recording format and of session files are
//! `recording::limits` (the viewer reads them as the sidecar does: index lines are bounded by
//! `MAX_INDEX_LINE_BYTES`, warnings kept by `MAX_REPORTED_WARNINGS`).

/// Most operations listed under a declaration, a line or an event.
pub const MAX_LISTED_OPERATIONS: usize = 200;

/// Most bytes [`RecordingLoad::space`](crate::file::RecordingLoad::space) makes room for at once.
pub const MAX_READ_BYTES: usize = 16 << 20;

/// Widest timeline layout asked for, in pixels.
pub const MAX_WIDTH_PX: u32 = 16_384;

/// Most index rows of a session kept.
pub const MAX_INDEX_ROWS: usize = 20_000_000;

/// Most rows a ranking returns.
pub const MAX_RANKING_ROWS: usize = 5_000;

/// Most files a session may list in the viewer.
pub const MAX_SESSION_FILES: usize = 1_000_000;

/// Most rows of a hot-spot table sent to the page.
pub const MAX_HOT_ROWS: usize = 5_000;

/// Most nodes of a callers' or callees' tree sent to the page.
pub const MAX_SANDWICH_NODES: usize = 400;

/// Most occurrences of a key listed.
pub const MAX_OCCURRENCES: usize = 200;

/// Most nodes of a flame graph sent to the page at once (the narrowest are left out;
/// zooming in asks again).
pub const MAX_FLAME_NODES: usize = 30_000;

/// Most files a folder's flame graph merges (their recordings streamed one at a time),
/// and most events in all of them: past either, the flame graph says so and merges the
/// largest files up to the cap.
pub const MAX_MERGED_FILES: usize = 400;
pub const MAX_MERGED_EVENTS: u64 = 30_000_000;

/// Most points of a memory lane sent to the page (each the highest sample of its stretch).
pub const MAX_LANE_POINTS: usize = 2000;
