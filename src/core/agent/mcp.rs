//! MCP servers' tools as the task's tools (AGENT-LOOP §6.4, §9, §10.1, §13.1).
//!
//! The host only connects, lists and calls: before each request it hands the task each
//! server's raw listing (its tools as `tools/list` gives them, its resources and resource
//! templates). This room turns a listing into the task's [`McpCatalog`]: a [`ToolSpec`] per
//! server tool (source [`ToolSource::Mcp`], read-only from its `readOnlyHint`, auto-approval
//! and timeout from the server's options), one per server for its resources, the native
//! definitions named `<server>0mcp0<tool>`, and the system prompt's section. The model calls
//! them with the reference's two tools, `use_mcp_tool` and `access_mcp_resource` (natively,
//! a server tool's own name runs as `use_mcp_tool`).

use super::texts;
use super::tool_job::param;
use super::tool_spec::{McpServerSettings, ParamSpec, ToolSource, ToolSpec};
use crate::core::json::Json;
use crate::core::parser::ToolSet;
use crate::core::text::{contains, find};

/// The reference tool that calls an MCP server's tool.
pub const USE_MCP_TOOL: &str = "use_mcp_tool";
/// The reference tool that reads an MCP server's resource.
pub const ACCESS_MCP_RESOURCE: &str = "access_mcp_resource";
/// What joins a server's name and a tool's name in a native tool's name.
pub(crate) const NATIVE_SEPARATOR: &str = "0mcp0";
/// How long an MCP call may run when its server's options set no `timeoutMs` (the
/// reference's default).
pub const DEFAULT_MCP_TIMEOUT_MS: u64 = 60_000;
/// How long the task waits for its MCP servers' listing when the options set no
/// `timeouts.mcpListingMs` (the servers still being listed then are left out).
pub const DEFAULT_MCP_LISTING_MS: u64 = 10_000;

/// What the task knows of the connected MCP servers, from the host's last listing.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct McpCatalog {
    /// The connected servers' names.
    pub servers: Vec<String>,
    /// Their tools ([`ToolSource::Mcp`], named `<server>0mcp0<tool>`) and, for each server,
    /// its resources ([`ToolSource::McpResources`], named `access_mcp_resource`).
    pub tools: Vec<ToolSpec>,
    /// The system prompt's section on the servers.
    pub prompt: String,
    /// Whether a server has resources or resource templates (native mode offers
    /// `access_mcp_resource` then; XML mode always describes it, as the reference does).
    pub resources: bool,
    /// Whether the model's replies may call the two MCP tools: a server is connected, or a
    /// restored task's were (its listing comes before the next request).
    pub calls_known: bool,
    /// The listing this catalog was read from, as the host gave it (JSON text; empty before
    /// the first): snapshots keep it, so a restored task knows its servers' tools (their
    /// read-only hints, auto-approval and timeouts) before it lists them again.
    pub listing: String,
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

/// Whether `names` holds `name`.
pub(crate) fn named(names: &[String], name: &str) -> bool {
    for each in names {
        if each == name {
            return true;
        }
    }
    false
}

/// Whether `name` is one of the two MCP tools.
pub(crate) fn is_mcp_tool(name: &str) -> bool {
    name == USE_MCP_TOOL || name == ACCESS_MCP_RESOURCE
}

/// The array at `value[key]` (empty when it is not one).
pub(crate) fn items<'a>(value: &'a Json, key: &str) -> &'a [Json] {
    value.get(key).and_then(Json::as_array).unwrap_or_default()
}

/// The string at `value[key]` (empty when it is not one).
fn text_of<'a>(value: &'a Json, key: &str) -> &'a str {
    value.get(key).and_then(Json::as_str).unwrap_or_default()
}

/// Appends `parts` to `out`.
fn push(out: &mut String, parts: &[&str]) {
    for part in parts {
        out.push_str(part);
    }
}

/// The milliseconds a call on the server named `server` may run.
pub(crate) fn timeout_ms(settings: &[McpServerSettings], server: &str) -> u64 {
    settings.iter().find(|s| s.name == server).and_then(|s| s.timeout_ms).unwrap_or(DEFAULT_MCP_TIMEOUT_MS)
}

impl McpCatalog {
    /// Reads the host's listing: `{ servers: [{ name, tools: [tool], resources: [{ uri, name?,
    /// description?, mimeType? }], templates: [{ uriTemplate, … }], readResource? }], errors:
    /// [{ server?, message }] }` (without `server`, the message is told as it is;
    /// `readResource: false` for a client that cannot read resources), each tool as the server listed it (`name`, `description` or `title`,
    /// `inputSchema`, `annotations.readOnlyHint`, `execution.taskSupport`). A tool that
    /// requires MCP's task-based execution is left out (a plain call cannot run it), and so
    /// is a server the options do not name or the task left out (`left_out`: neither its
    /// listing nor its failure is read). Gives the catalog and, for each failed server, what
    /// to tell the user.
    pub(crate) fn read(
        listing: &Json,
        settings: &[McpServerSettings],
        native: bool,
        left_out: &[String],
    ) -> (Self, Vec<String>) {
        let mut catalog = Self { listing: listing.to_string(), ..Self::default() };
        let mut prompt = String::new();
        for listed in items(listing, "servers") {
            let server = text_of(listed, "name");
            let Some(options) = settings.iter().find(|s| s.name == server) else { continue };
            if named(left_out, server) {
                continue;
            }
            let timeout = Some(timeout_ms(settings, server));
            push(&mut prompt, &["\n## ", server, "\n"]);
            let mut heading = "\n### Tools\n";
            for tool in items(listed, "tools") {
                let name = text_of(tool, "name");
                let task_only = tool.get("execution").is_some_and(|e| text_of(e, "taskSupport") == "required");
                if name.is_empty() || task_only {
                    continue;
                }
                let description = tool.get("description").or_else(|| tool.get("title")).and_then(Json::as_str);
                let description = description.unwrap_or_default();
                let schema = tool.get("inputSchema").filter(|s| s.is_object()).cloned();
                let schema = schema.unwrap_or_else(|| Json::object().with("type", "object"));
                let mut parameters = Vec::new();
                for required in items(&schema, "required").iter().filter_map(Json::as_str) {
                    parameters.push(ParamSpec {
                        name: required.to_owned(),
                        description: String::new(),
                        required: true,
                    });
                }
                let read_only = tool.get("annotations").and_then(|a| a.get("readOnlyHint")).and_then(Json::as_bool);
                let schema = schema.to_string();
                push(&mut prompt, &[heading, "- ", name, ": ", description, "\n    Input schema: ", &schema, "\n"]);
                heading = "";
                catalog.tools.push(ToolSpec {
                    name: [server, NATIVE_SEPARATOR, name].concat(),
                    description: description.to_owned(),
                    parameters,
                    input_schema: Some(schema),
                    read_only: read_only == Some(true),
                    auto_approve: options.auto_approve.iter().any(|t| t == name),
                    timeout_ms: timeout,
                    source: ToolSource::Mcp { server: server.to_owned(), tool: name.to_owned() },
                    ..ToolSpec::default()
                });
            }
            for (key, title, uri) in
                [("resources", "Resources", "uri"), ("templates", "Resource templates", "uriTemplate")]
            {
                let mut heading = ["\n### ", title, "\n"];
                for item in items(listed, key).iter().filter(|r| r.get(uri).and_then(Json::as_str).is_some()) {
                    let name = text_of(item, "name");
                    let (open, close) = if name.is_empty() { ("", "") } else { (" (", ")") };
                    let description = item.get("description").or_else(|| item.get("mimeType")).and_then(Json::as_str);
                    let (uri, description) = (text_of(item, uri), description.unwrap_or_default());
                    push(&mut prompt, &heading);
                    push(&mut prompt, &["- ", uri, open, name, close, ": ", description, "\n"]);
                    heading = [""; 3];
                    catalog.resources = true;
                }
            }
            // NOTE: a server whose client cannot read resources has no resources to call.
            if listed.get("readResource").and_then(Json::as_bool) != Some(false) {
                catalog.tools.push(ToolSpec {
                    name: ACCESS_MCP_RESOURCE.to_owned(),
                    read_only: true,
                    timeout_ms: timeout,
                    source: ToolSource::McpResources { server: server.to_owned() },
                    ..ToolSpec::default()
                });
            }
            catalog.servers.push(server.to_owned());
        }
        if !catalog.servers.is_empty() {
            catalog.calls_known = true;
            let how = if native {
                "Each of their tools is one of your tools, named <server>0mcp0<tool>; read a resource with access_mcp_resource."
            } else {
                "Call a server's tool with use_mcp_tool (its arguments as a JSON object that follows the tool's input schema) and read a resource with access_mcp_resource."
            };
            push(&mut catalog.prompt, &["\n# MCP servers\n\nThese MCP (Model Context Protocol) servers are connected; they give you more tools and resources. ", how, "\n", &prompt]);
        }
        let mut errors = Vec::new();
        for error in items(listing, "errors") {
            match (text_of(error, "server"), text_of(error, "message")) {
                ("", message) => errors.push(message.to_owned()),
                (server, message) if !named(left_out, server) => errors.push(texts::mcp_left_out(server, message)),
                _ => {}
            }
        }
        (catalog, errors)
    }

    /// Whether a call of `name` goes to an MCP server: one of the two MCP tools while their
    /// calls are known (without servers, a user's tool may have either name).
    pub(crate) fn handles(&self, name: &str) -> bool {
        self.calls_known && is_mcp_tool(name)
    }

    /// The tool a call of one of the two MCP tools reaches: the server's tool
    /// (`use_mcp_tool`) or the server's resources (`access_mcp_resource`).
    pub(crate) fn target(&self, name: &str, params: &[(String, String)]) -> Option<&ToolSpec> {
        let server = param(params, "server_name");
        self.tools.iter().find(|spec| match &spec.source {
            ToolSource::Mcp { server: s, tool } => {
                name == USE_MCP_TOOL && s == server && tool == param(params, "tool_name")
            }
            ToolSource::McpResources { server: s } => name == ACCESS_MCP_RESOURCE && s == server,
            ToolSource::Options => false,
        })
    }

    /// Why a complete call of one of the two MCP tools cannot run, as the error the model
    /// gets: a server that is not connected, a tool the server lacks, arguments that are not a
    /// JSON object, or a required argument missing. `None` when it can run.
    pub(crate) fn check(&self, name: &str, params: &[(String, String)]) -> Option<String> {
        let (server, tool_name) = (param(params, "server_name"), param(params, "tool_name"));
        let problem = match (self.servers.iter().any(|s| s == server), self.target(name, params)) {
            (false, _) => "no connected MCP server has that name".to_owned(),
            (_, Some(_)) if name == ACCESS_MCP_RESOURCE => return None,
            (_, None) if name == ACCESS_MCP_RESOURCE => "its client cannot read resources".to_owned(),
            (_, None) => "the server has no tool of that name".to_owned(),
            (_, Some(tool)) => match Json::parse(param(params, "arguments")) {
                Ok(arguments) if arguments.is_object() => {
                    let missing =
                        tool.parameters.iter().find(|p| arguments.get(&p.name).map_or(true, Json::is_null))?;
                    format!("the tool needs the argument '{}'", missing.name)
                }
                _ => "its arguments are not a valid JSON object".to_owned(),
            },
        };
        Some(format!(
            "The call of '{tool_name}' on the MCP server '{server}' cannot run: {problem}. The connected servers and their tools are listed in the system prompt."
        ))
    }

    /// Adds the two MCP tools and their parameters to the parser's `set` while their calls
    /// are known (their names are valid: adding them cannot fail; the options reader refuses
    /// user tools of the same names).
    pub(crate) fn add_tools(&self, set: &mut ToolSet) {
        if self.calls_known {
            let _ = set.add_tool(USE_MCP_TOOL);
            let _ = set.add_tool(ACCESS_MCP_RESOURCE);
            for param in ["server_name", "tool_name", "arguments", "uri"] {
                let _ = set.add_param(param);
            }
        }
    }
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
