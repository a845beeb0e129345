//! Any bytes as one line an agent sends to `leanscope mcp`: read as the stdio transport reads
//! it (an MCP JSON-RPC message), a tool call's arguments read by leanscope's one reader of
//! them, and any JSON object as every tool's arguments: arguments or a message that names what
//! is wrong, never a panic. Any JSON as a tool's reply, and any text as its summary, is cut to
//! the reply bounds.
#![no_main]

use leanscope::protocol::mcp_bounds::{fit, summary, MAX_MCP_STRING_CHARS, MAX_MCP_SUMMARY_BYTES};
use leanscope::protocol::mcp_tools::read_call;
use libfuzzer_sys::fuzz_target;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, JsonRpcMessage};
use serde_json::Value;

const TOOLS: [&str; 6] = [
    "profile_file",
    "profile_declaration",
    "query",
    "hot_spots",
    "compare",
    "revisions",
];

fuzz_target!(|data: &[u8]| {
    if let Ok(JsonRpcMessage::Request(request)) = serde_json::from_slice::<ClientJsonRpcMessage>(data) {
        if let ClientRequest::CallToolRequest(call) = request.request {
            if let Err(message) = read_call(&call.params.name, call.params.arguments) {
                assert!(!message.is_empty());
            }
        }
    }
    if let Ok(text) = std::str::from_utf8(data) {
        assert!(summary(text.to_string()).len() <= MAX_MCP_SUMMARY_BYTES);
    }
    let Ok(value) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    if let Value::Object(args) = &value {
        for tool in TOOLS {
            if let Err(message) = read_call(tool, Some(args.clone())) {
                assert!(message.contains(tool), "{message}");
            }
        }
    }
    let mut reply = value;
    fit(&mut reply);
    assert_strings_cut(&reply);
});

/// Every string of a fitted reply is at most MAX_MCP_STRING_CHARS characters and the `…`.
fn assert_strings_cut(v: &Value) {
    match v {
        Value::String(s) => assert!(s.chars().count() <= MAX_MCP_STRING_CHARS + 1),
        Value::Array(items) => items.iter().for_each(assert_strings_cut),
        Value::Object(o) => o.values().for_each(assert_strings_cut),
        _ => {}
    }
}
