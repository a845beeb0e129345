//! Any bytes given to the chrome importer: a recording or a specific error,
//! never a panic, never unbounded memory; and the importer's fast path
//! agrees with its general one (serde_json) on every input.
#![no_main]

use leanscope::interop::{chrome, import_from_bytes, Format};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(bytes) = import_from_bytes(data, Format::Chrome) {
        // What the importer wrote must read back.
        recording::Recording::from_bytes(&bytes).expect("an import reads back");
    }
    let [fast, general] = chrome::import_both_ways(data, &std::env::temp_dir());
    assert_eq!(fast, general, "the fast path differs from the general one");
});
