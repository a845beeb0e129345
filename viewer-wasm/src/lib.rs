//! The leanscope viewer's model in WebAssembly: recordings are fed to it as
//! byte chunks (as they arrive from `fetch()`) and decoded incrementally.

use recording::model::{Recording, RecordingBuilder};
use recording::reader::{Item, StreamDecoder};
use wasm_bindgen::prelude::*;

/// A recording being streamed into the viewer.
#[wasm_bindgen]
pub struct RecordingStream {
    decoder: StreamDecoder,
    builder: Option<RecordingBuilder>,
    done: Option<Recording>,
}

#[wasm_bindgen]
impl RecordingStream {
    #[wasm_bindgen(constructor)]
    pub fn new() -> RecordingStream {
        RecordingStream {
            decoder: StreamDecoder::new(),
            builder: None,
            done: None,
        }
    }

    /// Feeds the next bytes of the file; decodes every chunk that is complete.
    pub fn push(&mut self, bytes: &[u8]) -> Result<(), JsError> {
        self.decoder.feed(bytes);
        while let Some(item) = self.decoder.next_item().map_err(to_js)? {
            match item {
                Item::Header(h) => self.builder = Some(RecordingBuilder::new(*h)),
                Item::Batch(b) => {
                    if let Some(builder) = &mut self.builder {
                        builder.add_batch(b);
                    }
                }
                Item::End(_) => {
                    if let Some(builder) = self.builder.take() {
                        self.done = Some(builder.finish());
                    }
                }
            }
        }
        Ok(())
    }

    /// Call when the download ended; fails if the recording is incomplete.
    pub fn finish(&mut self) -> Result<(), JsError> {
        self.decoder.finish().map_err(to_js)
    }

    /// Events decoded so far.
    #[wasm_bindgen(js_name = eventCount)]
    pub fn event_count(&self) -> usize {
        match (&self.done, &self.builder) {
            (Some(r), _) => r.len(),
            (None, Some(b)) => b.event_count(),
            _ => 0,
        }
    }
}

impl Default for RecordingStream {
    fn default() -> Self {
        Self::new()
    }
}

fn to_js(e: recording::RecordingError) -> JsError {
    JsError::new(&e.to_string())
}
