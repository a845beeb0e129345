//! Any bytes as the editor's input to `leanscope serve`: LSP frames read one after another,
//! each body read as a JSON-RPC message. A frame, a message, or the error JSON-RPC names
//! (what the server answers), never a panic; a frame's length over the limit is skipped.
#![no_main]

use std::sync::OnceLock;

use leanscope::protocol::json_rpc::{self, Incoming};
use leanscope::protocol::lsp_framing::{read_frame, Frame};
use libfuzzer_sys::fuzz_target;

fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a current-thread runtime")
    })
}

fuzz_target!(|data: &[u8]| {
    runtime().block_on(async {
        let mut input = data;
        // Each frame consumes at least its header line, so this ends.
        while let Ok(Some(frame)) = read_frame(&mut input).await {
            if let Frame::Body(body) = frame {
                check(json_rpc::parse(&body));
            }
        }
    });
    // The whole input as one message body.
    check(json_rpc::parse(data));
});

/// A refusal carries a JSON-RPC error code (-32700 or -32600) and a message.
fn check(incoming: Incoming) {
    if let Incoming::Invalid { error, .. } = incoming {
        let code = error.code.code();
        assert!(code == -32700 || code == -32600, "code {code}");
        assert!(!error.message.is_empty());
    }
}
