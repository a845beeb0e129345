//! Feeds arbitrary bytes to every recording reader: none may panic, and the
//! pull reader, the push reader and the random-access reader must agree on
//! whether the input is a valid recording.
#![no_main]

use libfuzzer_sys::fuzz_target;
use recording::reader::{RecordingFile, StreamDecoder};
use recording::Recording;

fuzz_target!(|data: &[u8]| {
    let pulled = Recording::read(data);
    let whole = Recording::from_bytes(data);
    let mut dec = StreamDecoder::new();
    // Feed in two pieces to exercise partial chunks.
    let (a, b) = data.split_at(data.len() / 2);
    let mut pushed_ok = true;
    for piece in [a, b] {
        dec.feed(piece);
        loop {
            match dec.next_item() {
                Ok(Some(_)) => {}
                Ok(None) => break,
                Err(_) => {
                    pushed_ok = false;
                    break;
                }
            }
        }
        if !pushed_ok {
            break;
        }
    }
    let pushed_ok = pushed_ok && dec.finish().is_ok();
    assert_eq!(pulled.is_ok(), pushed_ok, "pull and push readers disagree");
    if let Ok(rec) = &pulled {
        // A valid recording is also valid for the random-access reader,
        // and decodes to the same events.
        let whole = whole.expect("random-access reader refused a valid recording");
        assert_eq!(whole.events.start, rec.events.start);
        let _ = recording::model::declaration_times(rec);
        let _ = recording::model::line_rows(rec);
    }
    let _ = RecordingFile::from_bytes(data);
});
