//! Any bytes given to the folded importer: a recording or a specific error,
//! never a panic, never unbounded memory.
#![no_main]

use leanscope::interop::{import_from_bytes, Format};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(bytes) = import_from_bytes(data, Format::Folded) {
        // What the importer wrote must read back.
        recording::Recording::from_bytes(&bytes).expect("an import reads back");
    }
});
