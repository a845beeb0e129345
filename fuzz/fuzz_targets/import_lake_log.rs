//! Any bytes as a `lake build` log: jobs or a specific error, never a panic, and every job
//! line read names a known action with a caption.
#![no_main]

use leanscope::interop::lake_log::read;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(log) = read(data) {
        assert!(!log.jobs.is_empty());
        for j in &log.jobs {
            assert!(!j.caption.is_empty());
        }
    }
});
