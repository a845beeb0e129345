//! JSON-RPC errors of `leanscope serve`: a code per kind of failure and a
//! message a user can act on. Error `data` carries `kind` (a stable name)
//! and, where there is one, the `path` concerned and Lean's `stderr` tail.
//! The README and `schemas/rpc/serve.schema.json` list them.

use std::path::Path;

use serde_json::{json, Value};
use tower_lsp_server::jsonrpc::{Error, ErrorCode};

use crate::capture::process::RunError;
use crate::capture::project::ProjectError;
use crate::capture::{Backend, CaptureError};

/// The file (source, recording or output directory) does not exist.
pub const NO_SUCH_FILE: i64 = -32010;
/// The file exists but is not a readable leanscope recording.
pub const NOT_A_RECORDING: i64 = -32011;
/// The source file is not inside a Lean project.
pub const NOT_IN_PROJECT: i64 = -32012;
/// No `lake` was found where it was looked for.
pub const TOOLCHAIN_NOT_FOUND: i64 = -32013;
/// Lean failed, timed out or printed what cannot be understood, or the
/// recording could not be written; nothing was written.
pub const CAPTURE_FAILED: i64 = -32014;
/// `leanscope/compare`: an input that cannot be read or summarized, or two
/// inputs whose rows cannot be compared (the message says which).
pub const CANNOT_COMPARE: i64 = -32015;
/// Every request slot is taken and the queue behind them is full.
pub const SERVER_BUSY: i64 = -32016;

fn error(code: ErrorCode, message: impl Into<String>, data: Value) -> Error {
    Error {
        code,
        message: message.into().into(),
        data: Some(data),
    }
}

/// Parameters that parse but make no sense (a relative path, a URI that is
/// not a local file, a zero timeout).
pub fn invalid_params(message: impl Into<String>) -> Error {
    Error::invalid_params(message.into())
}

/// The `measure` of a capture and its threshold, checked: `thresholdMs` belongs to time
/// captures and `thresholdHeartbeats` to heartbeat captures; a threshold in the other unit, or
/// an unknown measure, is `-32602` naming it.
pub fn measure(
    name: Option<&str>,
    threshold_ms: Option<u64>,
    threshold_heartbeats: Option<u64>,
) -> Result<(recording::Measure, u64), Error> {
    use recording::Measure;
    let measure = match name {
        None => Measure::Time,
        Some(n) => Measure::parse(n)
            .filter(|m| Measure::MEASURABLE.contains(m))
            .ok_or_else(|| {
                invalid_params(format!(
                    "unknown measure {n:?}; the accepted measures are \"time\", \"heartbeats\""
                ))
            })?,
    };
    let threshold = match (measure, threshold_ms, threshold_heartbeats) {
        (Measure::Time | Measure::Untimed, _, Some(_)) => return Err(invalid_params(
            "thresholdHeartbeats is for measure \"heartbeats\"; a time capture takes thresholdMs",
        )),
        (Measure::Heartbeats, Some(_), _) => return Err(invalid_params(
            "thresholdMs is for time captures; measure \"heartbeats\" takes thresholdHeartbeats",
        )),
        (Measure::Time | Measure::Untimed, ms, None) => ms,
        (Measure::Heartbeats, None, hb) => hb,
    };
    Ok((
        measure,
        threshold.unwrap_or(crate::capture::default_threshold(measure)),
    ))
}

/// The `backend` of a capture, checked: none is [`Backend::Stock`]; an
/// unknown one is `-32602` with a message naming it and the accepted ones
/// (`data`: `kind` `unknownBackend`, `value`, `accepted`).
pub fn backend(name: Option<&str>) -> Result<Backend, Error> {
    let Some(name) = name else {
        return Ok(Backend::Stock);
    };
    Backend::from_name(name).ok_or_else(|| {
        let accepted: Vec<&str> = Backend::ALL.iter().map(|b| b.name()).collect();
        let quoted: Vec<String> = accepted.iter().map(|a| format!("{a:?}")).collect();
        error(
            ErrorCode::InvalidParams,
            format!(
                "unknown capture backend {name:?}; the accepted backends are {}",
                quoted.join(", ")
            ),
            json!({"kind": "unknownBackend", "value": name, "accepted": accepted}),
        )
    })
}

pub fn no_such_file(what: &str, path: &Path) -> Error {
    error(
        ErrorCode::ServerError(NO_SUCH_FILE),
        format!("{what} {} does not exist or is not a file", path.display()),
        json!({"kind": "noSuchFile", "path": path}),
    )
}

pub fn no_such_directory(what: &str, path: &Path) -> Error {
    error(
        ErrorCode::ServerError(NO_SUCH_FILE),
        format!(
            "{what} {} does not exist or is not a directory",
            path.display()
        ),
        json!({"kind": "noSuchFile", "path": path}),
    )
}

/// A recording that cannot be read.
pub fn recording(path: &Path, e: &recording::RecordingError) -> Error {
    if let recording::RecordingError::Io(io) = e {
        if io.kind() == std::io::ErrorKind::NotFound {
            return no_such_file("the recording", path);
        }
        return error(
            ErrorCode::ServerError(NOT_A_RECORDING),
            format!("cannot read the recording {}: {io}", path.display()),
            json!({"kind": "unreadable", "path": path}),
        );
    }
    error(
        ErrorCode::ServerError(NOT_A_RECORDING),
        format!("{} is not a usable recording: {e}", path.display()),
        json!({"kind": "notARecording", "path": path}),
    )
}

/// A capture that failed; a cancelled one answers RequestCancelled.
pub fn capture(file: &Path, e: CaptureError) -> Error {
    let message = e.to_string();
    let (code, data) = match &e {
        CaptureError::NoSuchFile(_) | CaptureError::Project(ProjectError::Missing(_)) => {
            return no_such_file("the Lean file", file);
        }
        CaptureError::Run(RunError::Cancelled) => return cancelled(),
        CaptureError::Project(ProjectError::OutsideProject { .. }) => (
            NOT_IN_PROJECT,
            json!({"kind": "notInProject", "path": file}),
        ),
        CaptureError::Project(ProjectError::NoLake { .. }) => {
            (TOOLCHAIN_NOT_FOUND, json!({"kind": "noLake"}))
        }
        CaptureError::Run(RunError::Spawn { program, .. }) => (
            TOOLCHAIN_NOT_FOUND,
            json!({"kind": "cannotStart", "path": program}),
        ),
        CaptureError::Run(RunError::TimedOut(_)) => (CAPTURE_FAILED, json!({"kind": "timedOut"})),
        CaptureError::Run(RunError::MemoryLimit { .. }) => {
            (CAPTURE_FAILED, json!({"kind": "memoryLimit"}))
        }
        CaptureError::Run(RunError::OutputTooLarge { .. }) => {
            (CAPTURE_FAILED, json!({"kind": "outputTooLarge"}))
        }
        CaptureError::Run(RunError::Io(_)) | CaptureError::Io(_) => {
            (CAPTURE_FAILED, json!({"kind": "io"}))
        }
        CaptureError::LeanFailed { stderr, .. } => (
            CAPTURE_FAILED,
            json!({"kind": "leanFailed", "stderr": stderr}),
        ),
        CaptureError::BadOutput(_) => (CAPTURE_FAILED, json!({"kind": "badOutput"})),
        CaptureError::BadSource(_) => (CAPTURE_FAILED, json!({"kind": "badSource", "path": file})),
        CaptureError::Write(path, _) => {
            (CAPTURE_FAILED, json!({"kind": "cannotWrite", "path": path}))
        }
    };
    error(ErrorCode::ServerError(code), message, data)
}

/// A directory that is not a readable session (`what` says why).
pub fn not_a_session(dir: &Path, why: &str) -> Error {
    error(
        ErrorCode::ServerError(NOT_A_RECORDING),
        why.to_owned(),
        json!({"kind": "notASession", "path": dir}),
    )
}

/// A file the session does not list.
pub fn not_in_session(dir: &Path, file: &str) -> Error {
    error(
        ErrorCode::ServerError(NOT_A_RECORDING),
        format!(
            "the session {} does not list {file}; give the file's path as the session lists it \
             (relative to the project root) or its absolute path",
            dir.display()
        ),
        json!({"kind": "notInSession", "path": dir}),
    )
}

/// A file the session lists but has no recording of (pending, failed or
/// skipped).
pub fn not_captured(dir: &Path, f: &recording::session::FileEntry) -> Error {
    error(
        ErrorCode::ServerError(NOT_A_RECORDING),
        format!(
            "{} is {} in the session {}: it has no recording{}",
            f.path,
            f.status.as_str(),
            dir.display(),
            f.error
                .as_deref()
                .and_then(|e| e.lines().next())
                .map(|e| format!(" ({e})"))
                .unwrap_or_default()
        ),
        json!({"kind": "notCaptured", "path": dir}),
    )
}

/// Runs of a file that recorded different sources (`path`: the run that
/// differs).
pub fn other_source(message: String, path: &Path) -> Error {
    error(
        ErrorCode::ServerError(NOT_A_RECORDING),
        message,
        json!({"kind": "otherSource", "path": path}),
    )
}

/// Two inputs that `leanscope/compare` cannot compare.
pub fn cannot_compare(message: String) -> Error {
    error(
        ErrorCode::ServerError(CANNOT_COMPARE),
        message,
        json!({"kind": "cannotCompare"}),
    )
}

/// A request refused because `running` requests hold every slot and
/// `waiting` more wait for one.
pub fn busy(running: usize, waiting: usize) -> Error {
    error(
        ErrorCode::ServerError(SERVER_BUSY),
        format!(
            "the server is busy: {running} requests run and {waiting} wait, the most it \
             queues; try again when one has finished"
        ),
        json!({"kind": "serverBusy", "running": running, "waiting": waiting}),
    )
}

/// A folder capture that was cancelled: the session says `cancelled` and
/// is unlocked (completed files are kept).
pub fn session_cancelled(dir: &Path) -> Error {
    error(
        ErrorCode::RequestCancelled,
        format!(
            "cancelled; Lean was stopped, the session {} is marked cancelled and keeps its \
             completed files",
            dir.display()
        ),
        json!({"kind": "cancelled", "path": dir}),
    )
}

/// A revision run that was cancelled: its workspace keeps what was
/// measured (and a report that says `error`).
pub fn cancelled_at(workspace: &Path) -> Error {
    error(
        ErrorCode::RequestCancelled,
        format!(
            "cancelled; Lean was stopped, the workspace {} keeps what was measured",
            workspace.display()
        ),
        json!({"kind": "cancelled", "path": workspace}),
    )
}

/// The LSP RequestCancelled error (-32800).
pub fn cancelled() -> Error {
    Error {
        code: ErrorCode::RequestCancelled,
        message: "cancelled; Lean was stopped and no recording was written".into(),
        data: None,
    }
}

/// Something inside the server went wrong (a worker thread panicked).
pub fn internal(message: impl Into<String>) -> Error {
    Error {
        code: ErrorCode::InternalError,
        message: message.into().into(),
        data: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capture_errors_get_their_codes() {
        let f = Path::new("/p/A.lean");
        let e = capture(
            f,
            CaptureError::LeanFailed {
                status: "exited with code 3".into(),
                stderr: "PANIC at foo".into(),
            },
        );
        assert_eq!(e.code, ErrorCode::ServerError(CAPTURE_FAILED));
        assert_eq!(
            e.data,
            Some(json!({"kind": "leanFailed", "stderr": "PANIC at foo"}))
        );
        assert!(e.message.contains("exited with code 3"), "{}", e.message);
        let e = capture(f, CaptureError::Run(RunError::Cancelled));
        assert_eq!(e.code, ErrorCode::RequestCancelled);
        let e = capture(f, CaptureError::NoSuchFile("/p/A.lean".into()));
        assert_eq!(e.code, ErrorCode::ServerError(NO_SUCH_FILE));
        assert_eq!(
            e.message,
            "the Lean file /p/A.lean does not exist or is not a file"
        );
    }

    #[test]
    fn a_missing_recording_is_a_missing_file() {
        let p = Path::new("/nope.lsrec");
        let io = std::io::Error::from(std::io::ErrorKind::NotFound);
        let e = recording(p, &recording::RecordingError::Io(io));
        assert_eq!(e.code, ErrorCode::ServerError(NO_SUCH_FILE));
        let e = recording(p, &recording::RecordingError::WrongMagic);
        assert_eq!(e.code, ErrorCode::ServerError(NOT_A_RECORDING));
        assert!(e.message.contains("wrong magic bytes"), "{}", e.message);
    }
}
