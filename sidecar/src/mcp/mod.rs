//! `leanscope mcp`: a Model Context Protocol server on stdio (the official Rust SDK,
//! `rmcp`), so that agents can profile, explain and compare. One module per tool; each
//! calls the code the CLI and `leanscope serve` call (the capture, the session engine,
//! `recording`'s model, the hot-spots document, the comparison, the revision run), so
//! nothing is computed twice. Every result is bounded (`bounds.rs`); every failure is a
//! tool error (`isError: true`) that says what to do, and the server keeps serving.

mod call;
mod capture;
mod compare;
mod hot_spots;
mod profile_declaration;
mod profile_file;
mod query;
mod report;
mod resources;
mod revisions;
mod state;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorCode,
    Implementation, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ServerCapabilities,
    ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use schemars::JsonSchema;
use serde_json::Value;

use call::Call;
use leanscope::protocol::mcp_bounds as bounds;
use leanscope::protocol::mcp_tools::{read_call, ToolCall};
use state::State;

/// How long the process waits, once the client is gone, for stopped work to end.
const STOP_WAIT: Duration = Duration::from_secs(5);

/// A failure the agent can act on: the message says what went wrong and what to do.
#[derive(Debug)]
pub struct ToolError {
    message: String,
    /// A partial result worth having (a profile of a file with errors).
    data: Option<Value>,
}

impl ToolError {
    pub fn new(message: impl Into<String>) -> ToolError {
        ToolError {
            message: message.into(),
            data: None,
        }
    }
}

/// A tool's answer: a short text for people and the structured result.
pub struct Reply {
    pub summary: String,
    pub data: Value,
}

/// The tool `P` describes, with its JSON Schema.
fn tool<P: JsonSchema + 'static>(name: &'static str, description: &'static str) -> Tool {
    Tool::new(
        name,
        description,
        rmcp::handler::server::common::schema_for_type::<P>(),
    )
}

fn tools() -> Vec<Tool> {
    vec![
        profile_file::tool(),
        profile_declaration::tool(),
        query::tool(),
        hot_spots::tool(),
        compare::tool(),
        revisions::tool(),
    ]
}

struct Server {
    state: Arc<State>,
}

impl Server {
    async fn dispatch(&self, call: &Call, p: CallToolRequestParams) -> Result<Reply, ToolError> {
        match read_call(&p.name, p.arguments).map_err(ToolError::new)? {
            ToolCall::ProfileFile(p) => profile_file::call(call, p).await,
            ToolCall::ProfileDeclaration(p) => profile_declaration::call(call, p).await,
            ToolCall::Query(p) => query::call(call, p).await,
            ToolCall::HotSpots(p) => hot_spots::call(call, p).await,
            ToolCall::Compare(p) => compare::call(call, p).await,
            ToolCall::Revisions(p) => revisions::call(call, p).await,
        }
    }
}

fn result(reply: Result<Reply, ToolError>) -> CallToolResult {
    match reply {
        Ok(Reply { summary, mut data }) => {
            bounds::fit(&mut data);
            let mut r = CallToolResult::structured(data);
            r.content = vec![ContentBlock::text(bounds::summary(summary))];
            r
        }
        Err(ToolError { message, data }) => {
            let mut r = match data {
                Some(mut d) => {
                    bounds::fit(&mut d);
                    CallToolResult::structured_error(d)
                }
                None => CallToolResult::error(vec![]),
            };
            r.content = vec![ContentBlock::text(bounds::summary(message))];
            r
        }
    }
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build(),
        )
        .with_server_info(Implementation::new("leanscope", env!("CARGO_PKG_VERSION")))
        .with_instructions(
            "leanscope profiles Lean 4 files: profile_file captures a whole file (time or heartbeats) \
             and reports where its time went; profile_declaration does so for one declaration, in the \
             context of its whole file; query, hot_spots and compare read recordings and sessions \
             (paths or leanscope:// resources); revisions plans or measures two Git revisions.",
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        tools().into_iter().find(|t| t.name == name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let call = Call::new(
            self.state.clone(),
            context.peer.clone(),
            context.meta.get_progress_token(),
            context.ct.clone(),
        );
        Ok(result(self.dispatch(&call, request).await).into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let state = self.state.clone();
        let listed = tokio::task::spawn_blocking(move || resources::list(&state))
            .await
            .map_err(|e| McpError::internal_error(e.to_string(), None))?;
        Ok(ListResourcesResult::with_all_items(listed))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let state = self.state.clone();
        let uri = request.uri.clone();
        let read = tokio::task::spawn_blocking(move || resources::read(&state, &uri))
            .await
            .map_err(|e| McpError::internal_error(e.to_string(), None))?;
        match read {
            Ok(contents) => Ok(ReadResourceResult::new(vec![contents]).into()),
            Err(e) => Err(McpError::new(
                ErrorCode::RESOURCE_NOT_FOUND,
                e.message,
                Some(serde_json::json!({"uri": request.uri})),
            )),
        }
    }
}

/// Serves on stdin/stdout until the client closes them. Work still running then is
/// stopped (Lean's process group too) before the process ends.
pub fn run(root: Option<PathBuf>, lake: Option<PathBuf>) -> anyhow::Result<u8> {
    let root = match root {
        Some(r) => std::path::absolute(r)?,
        None => std::env::current_dir()?,
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let mut state = State::new(root);
    state.lake = lake.map(std::path::absolute).transpose()?;
    let state = Arc::new(state);
    let server = Server {
        state: state.clone(),
    };
    let served = rt.block_on(async move {
        let service = server.serve(rmcp::transport::stdio()).await?;
        service.waiting().await?;
        anyhow::Ok(())
    });
    state.running.cancel_all();
    rt.shutdown_timeout(STOP_WAIT);
    served?;
    Ok(crate::exit::OK)
}
