//! MCP servers as tools (AGENT-LOOP §6.4, §9, §10.1, §13.1): what the task knows of each
//! connected server (its tools and resources, as the host listed them), and the two
//! reference tools that reach them, `use_mcp_tool` and `access_mcp_resource`.
//!
//! The host connects and lists; before each request the machine asks for the catalog
//! ([`Effect::ListMcpServers`](super::Effect::ListMcpServers)) and sends calls out as
//! [`Effect::RunTool`](super::Effect::RunTool) under those two names. In native mode each
//! server tool is its own definition named `<server>0mcp0<tool>`, and a call to it runs as
//! `use_mcp_tool`.

use std::rc::Rc;

use super::config::TaskConfig;
use super::effect::Effect;
use super::message::SayKind;
use super::round_state::StreamPhase;
use super::task::{Ctx, Phase, Task};
use crate::core::json::Json;
use crate::core::parser::IncrementalParser;
use crate::core::request::ToolDefinition;
use crate::core::text::{contains, find};

/// The reference tool that calls an MCP server's tool.
pub const USE_MCP_TOOL: &str = "use_mcp_tool";
/// The reference tool that reads an MCP server's resource.
pub const ACCESS_MCP_RESOURCE: &str = "access_mcp_resource";
/// What joins a server's name and a tool's name in a native tool's name.
pub(crate) const NATIVE_SEPARATOR: &str = "0mcp0";

/// What the host's listing of the MCP servers found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct McpCatalog {
    /// The connected servers.
    pub servers: Vec<McpServer>,
    /// The system prompt's section on them (their tools with input schemas, their
    /// resources, how to call them), written by the host.
    pub prompt: String,
    /// Each server tool as a native tool, named `<server>0mcp0<tool>`.
    pub definitions: Vec<ToolDefinition>,
    /// Whether a server has resources (native mode offers `access_mcp_resource` then; XML
    /// mode always describes it, as the reference does).
    pub resources: bool,
}

/// A connected MCP server.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct McpServer {
    /// Its name: the `server_name` the model writes.
    pub name: String,
    /// Its tools.
    pub tools: Vec<McpTool>,
}

/// A tool an MCP server lists.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct McpTool {
    /// Its name on the server.
    pub name: String,
    /// The arguments its input schema requires.
    pub required: Vec<String>,
    /// It declares `readOnlyHint`: it may be auto-approved as a read-only tool, and runs
    /// again when a restored task was interrupted while it ran.
    pub read_only: bool,
    /// The server's options list it among the tools that run without asking.
    pub auto_approve: bool,
}

impl McpServer {
    /// Its tool named `name`.
    pub fn tool(&self, name: &str) -> Option<&McpTool> {
        self.tools.iter().find(|t| t.name == name)
    }
}

/// Whether `name` is a server name the task accepts: 1 to 64 letters, digits, `_` or `-`,
/// without the native separator (it becomes part of native tool names).
pub(crate) fn valid_server_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        && !contains(name, NATIVE_SEPARATOR)
}

/// A native tool name split into server and tool, if it names an MCP tool.
pub(crate) fn split_native_name(name: &str) -> Option<(&str, &str)> {
    let at = find(name, NATIVE_SEPARATOR)?;
    let (server, tool) = (name.get(..at)?, name.get(at + NATIVE_SEPARATOR.len()..)?);
    (!server.is_empty() && !tool.is_empty()).then_some((server, tool))
}

/// Whether `name` is one of the two MCP tools.
pub(crate) fn is_mcp_tool(name: &str) -> bool {
    name == USE_MCP_TOOL || name == ACCESS_MCP_RESOURCE
}

/// Whether a call of `name` goes to an MCP server: one of the two MCP tools while servers
/// are connected (without servers, a user's tool may have either name).
pub(crate) fn is_mcp_call(config: &TaskConfig, name: &str) -> bool {
    is_mcp_tool(name) && !config.mcp.servers.is_empty()
}

/// The catalog, and what to tell the user of the servers whose listing failed.
type Listing = (McpCatalog, Vec<String>);

/// Reads a host's catalog (JSON text); `None` when `text` is not JSON. Entries that cannot be
/// read are left out (the catalog is the host's own).
///
/// The catalog: `{ prompt, resources, definitions: [{ name, description, inputSchema }], servers:
/// [{ name, tools: [{ name, required: [..], readOnly, autoApprove }] }], errors: [text] }`
/// (`errors`: an `error` say each, for the servers whose listing failed).
pub(crate) fn read_catalog(text: &str) -> Option<Listing> {
    let catalog = Json::parse(text).ok()?;
    let flag = |value: &Json, key: &str| value.get(key).and_then(Json::as_bool).unwrap_or(false);
    let mut servers = Vec::new();
    for listed in items(&catalog, "servers") {
        let mut tools = Vec::new();
        for tool in items(listed, "tools") {
            tools.push(McpTool {
                name: text_of(tool, "name"),
                required: items(tool, "required").iter().filter_map(Json::as_str).map(str::to_owned).collect(),
                read_only: flag(tool, "readOnly"),
                auto_approve: flag(tool, "autoApprove"),
            });
        }
        servers.push(McpServer { name: text_of(listed, "name"), tools });
    }
    let definitions =
        items(&catalog, "definitions").iter().filter_map(|d| ToolDefinition::from_json(d, "").ok()).collect();
    let errors = items(&catalog, "errors").iter().filter_map(Json::as_str).map(str::to_owned).collect();
    let resources = catalog.get("resources").and_then(Json::as_bool).unwrap_or(false);
    Some((McpCatalog { servers, prompt: text_of(&catalog, "prompt"), definitions, resources }, errors))
}

/// The array at `value[key]` (empty when it is not one).
fn items<'a>(value: &'a Json, key: &str) -> &'a [Json] {
    value.get(key).and_then(Json::as_array).unwrap_or_default()
}

/// The string at `value[key]` (empty when it is not one).
fn text_of(value: &Json, key: &str) -> String {
    value.get(key).and_then(Json::as_str).unwrap_or_default().to_owned()
}

/// The connected servers of `config`.
pub(crate) fn connected(config: &TaskConfig) -> impl Iterator<Item = &McpServer> {
    config.mcp.servers.iter()
}

/// The connected server named `name`.
pub(crate) fn server<'a>(config: &'a TaskConfig, name: &str) -> Option<&'a McpServer> {
    connected(config).find(|s| s.name == name)
}

/// The value of parameter `name` in `params` (empty when missing).
fn param<'a>(params: &'a [(String, String)], name: &str) -> &'a str {
    params.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str()).unwrap_or_default()
}

/// Whether a call of an MCP tool only reads: a resource, or a tool that declares
/// `readOnlyHint`.
pub(crate) fn reads_only(config: &TaskConfig, name: &str, params: &[(String, String)]) -> bool {
    match name {
        _ if config.mcp.servers.is_empty() => false,
        ACCESS_MCP_RESOURCE => true,
        USE_MCP_TOOL => server(config, param(params, "server_name"))
            .and_then(|s| s.tool(param(params, "tool_name")))
            .is_some_and(|t| t.read_only),
        _ => false,
    }
}

/// Whether a call of an MCP tool runs without asking (AGENT-LOOP §10.1, with Cline's
/// per-server `autoApprove` lists): the server's options list the tool, or it only reads and
/// read-only tools are approved.
pub(crate) fn auto_approved(config: &TaskConfig, name: &str, params: &[(String, String)]) -> bool {
    let listed = name == USE_MCP_TOOL
        && server(config, param(params, "server_name"))
            .and_then(|s| s.tool(param(params, "tool_name")))
            .is_some_and(|t| t.auto_approve);
    listed || (config.auto_approve.read_only && reads_only(config, name, params))
}

/// The text of the `use_mcp_server` ask or say (the reference's shape), from the call's
/// parameter values.
pub(crate) fn approval_text(name: &str, value: &dyn Fn(&str) -> String) -> String {
    let text = Json::object().with("type", name).with("serverName", value("server_name"));
    let text = if name == USE_MCP_TOOL {
        text.with("toolName", value("tool_name")).with("arguments", value("arguments"))
    } else {
        text.with("uri", value("uri"))
    };
    text.to_string()
}

/// Why a complete call of an MCP tool cannot run, as the error the model gets: a server
/// that is not connected, a tool the server lacks, arguments that are not a JSON object,
/// or a required argument missing.
pub(crate) fn check_call(config: &TaskConfig, name: &str, params: &[(String, String)]) -> Option<String> {
    let (server_name, tool_name) = (param(params, "server_name"), param(params, "tool_name"));
    let server = server(config, server_name);
    let tool = server.and_then(|s| s.tool(tool_name));
    let problem = match (server, tool, Json::parse(param(params, "arguments"))) {
        (None, ..) => "no connected MCP server has that name".to_owned(),
        _ if name != USE_MCP_TOOL => return None,
        (_, None, _) => "the server has no tool of that name".to_owned(),
        (_, Some(tool), Ok(arguments)) if arguments.is_object() => {
            let missing = tool.required.iter().find(|r| arguments.get(r).map_or(true, Json::is_null))?;
            format!("the tool needs the argument '{missing}'")
        }
        _ => "its arguments are not a valid JSON object".to_owned(),
    };
    Some(format!(
        "The call of '{tool_name}' on the MCP server '{server_name}' cannot run: {problem}. The connected servers and their tools are listed in the system prompt."
    ))
}

impl Ctx {
    /// Opens stream `stream` with the request as it stands; with MCP servers, once they are
    /// listed ([`Effect::ListMcpServers`]; its answer opens the stream).
    pub(crate) fn push_open_stream(&mut self, stream: u64) {
        if self.config.mcp_configured {
            self.mcp_listing = Some(stream);
            self.effects.push_back(Effect::ListMcpServers { id: stream });
            return;
        }
        let (request, unchanged) = self.model_request();
        self.effects.push_back(Effect::OpenStream { stream, request, unchanged });
    }
}

impl Task {
    /// The answer to [`Effect::ListMcpServers`] `id`: the host's catalog of the MCP servers
    /// (JSON text: `{ prompt, resources, definitions: [{ name, description, inputSchema }],
    /// servers: [{ name, tools: [{ name, required, readOnly, autoApprove }] }], errors: [text]
    /// }`), or an empty text when nothing changed since the last one. The next requests describe the connected servers, the parser knows
    /// `use_mcp_tool` and `access_mcp_resource` while one is connected, and each failed
    /// server is reported (an `error` say naming it) and left out. Then the stream that
    /// waited opens. A catalog that is not JSON changes nothing.
    pub fn handle_mcp_servers(&mut self, now: u64, id: u64, catalog: &str) {
        self.ctx.tick(now);
        if self.ctx.mcp_listing != Some(id) {
            return;
        }
        self.ctx.mcp_listing = None;
        if let Some((mcp, errors)) = read_catalog(catalog) {
            self.ctx.config.mcp = mcp;
            // NOTE: the MCP tools' names are valid and the options reader refused user tools
            // of the same names: this cannot fail.
            if let Ok(tools) = self.ctx.config.validate() {
                self.ctx.tools = Rc::new(tools);
            }
            for error in errors {
                self.ctx.say(SayKind::Error, error);
            }
        }
        if let Phase::InRound(round) = &mut self.phase {
            if round.stream_id == id && !round.has_content() {
                round.parser = IncrementalParser::new(Rc::clone(&self.ctx.tools));
                // NOTE: the wait for the first byte starts now, not before the listing.
                if let StreamPhase::Open { deadline, .. } = &mut round.stream {
                    *deadline = self.ctx.config.timeouts.first_byte_ms.map(|ms| now.saturating_add(ms));
                }
                let (request, unchanged) = self.ctx.model_request();
                self.ctx.effects.push_back(Effect::OpenStream { stream: id, request, unchanged });
            }
        }
    }
}
