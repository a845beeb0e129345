//! Any bytes as radar's measurement lines: measurements or a specific error, never a panic;
//! what reads is a summary or a specific error.
#![no_main]

use leanscope::interop::radar::{read, to_summary};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(ms) = read(data) {
        let _ = to_summary(&ms);
    }
});
