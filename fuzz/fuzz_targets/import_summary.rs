//! Any bytes given to the summary readers (leanscope's and LeanProfiler's):
//! a summary that passes its own invariants, or a specific error.
#![no_main]

use leanscope::interop::{leanprofiler_summary, summary_json};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(v) = summary_json::read_json(data, "fuzz") {
        if let Ok(s) = summary_json::parse(&v) {
            s.check().expect("a parsed summary is consistent");
        }
        if let Ok(s) = leanprofiler_summary::parse(&v) {
            s.check().expect("a parsed summary is consistent");
        }
    }
});
