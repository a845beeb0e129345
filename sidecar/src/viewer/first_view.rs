//! The first view of a session, computed by the server and put in the
//! page's configuration (`firstView`): the session's summary and its root
//! folder, so the page paints the folder view before the worker and its
//! WebAssembly are ready. They are the viewer model's own answers
//! (`viewer_wasm::session`, the code the worker runs), from the same
//! manifest (`session.json` with its journal replayed, as the server
//! serves it); the worker's answers replace them once it is ready.

use std::path::Path;

use recording::model::FolderTree;
use serde_json::{json, Value};
use viewer_wasm::session::SessionModel;

/// `{"summary", "folder"}` of the session in `dir`, or `None` when its
/// manifest cannot be read (the viewer then reports why, as before).
pub fn of_session(dir: &Path) -> Option<Value> {
    let manifest = crate::session::store::read_manifest(dir).ok()?;
    let text = String::from_utf8(manifest.to_json()).ok()?;
    of_manifest(&text)
}

/// The first view of a session from the text of its `session.json`.
pub fn of_manifest(text: &str) -> Option<Value> {
    let session = SessionModel::parse(text).ok()?;
    Some(json!({
        "summary": session.summary(),
        "folder": session.folder(FolderTree::ROOT)?,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MANIFEST: &str = r#"{"schemaVersion":1,"producer":"test","projectRoot":"/p",
        "target":{"kind":"project","path":""},"thresholdMs":10,"toolchains":["t"],
        "leanVersions":[],"startedUnixMs":0,"status":"complete",
        "counts":{"planned":2,"completed":1,"failed":1},"indexBytes":0,"nextCapture":2,
        "files":[
          {"id":0,"path":"A/B.lean","module":"A.B","status":"ok","capture":1,"recording":"r/1.lsrec",
           "elapsedMs":12.5,"tracedMs":10,"events":4,"declarations":1},
          {"id":1,"path":"A/C.lean","module":"A.C","status":"failed","error":"boom"}]}"#;

    #[test]
    fn first_view_is_the_viewer_models_summary_and_root_folder() {
        let v = of_manifest(MANIFEST).unwrap();
        let model = SessionModel::parse(MANIFEST).unwrap();
        assert_eq!(v["summary"], model.summary());
        assert_eq!(v["folder"], model.folder(FolderTree::ROOT).unwrap());
        assert_eq!(v["summary"]["failed"], 1);
        assert_eq!(v["folder"]["node"]["files"], 2);
    }

    #[test]
    fn unreadable_manifest_has_no_first_view() {
        assert!(of_manifest("{").is_none());
        assert!(of_session(Path::new("/nonexistent/leanscope")).is_none());
    }
}
