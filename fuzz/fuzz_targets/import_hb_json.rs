//! Any bytes as Lean's `.hb.json`: entries or a specific error, never a panic; entries that
//! read write a recording that reads back, placed in a source made of the same bytes.
#![no_main]

use leanscope::interop::hb_json::{parse, write_recording, HbFacts, ModuleSource};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(entries) = parse(data) {
        let source = ModuleSource {
            path: "Fuzz.lean".into(),
            text: String::from_utf8_lossy(data).into_owned(),
        };
        if let Ok((bytes, _)) =
            write_recording(&entries, Some(&source), &HbFacts::default(), Vec::new())
        {
            recording::Recording::from_bytes(&bytes).expect("a heartbeat recording reads back");
        }
    }
});
