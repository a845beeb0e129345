//! What the editor and agents send to the sidecar, read and checked before any work:
//! the Language Server Protocol's framing and JSON-RPC messages (`leanscope serve`), and the
//! MCP tools' arguments and reply bounds (`leanscope mcp`). In the library so that the fuzz
//! targets `json_rpc_message` and `mcp_message` reach the same readers the commands use.

pub mod json_rpc;
pub mod lsp_framing;
pub mod mcp_bounds;
pub mod mcp_tools;
