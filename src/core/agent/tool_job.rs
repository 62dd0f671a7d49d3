//! What a tool call is, apart from running it: whether it is auto-approved, its parameters
//! and job from a block, its result blocks (`[desc] Result:` text, or a tool_result with the
//! provider's call id), and the definitions sent for native tool calling.

use super::config::{TaskConfig, ASK_FOLLOWUP_QUESTION};
use super::mcp;
use super::round_state::{Item, Round, ToolJob};
use super::task::Ctx;
use super::texts;
use crate::core::conversation::{Content, ContentBlock, ImageSource};
use crate::core::json::Json;
use crate::core::parser::REFERENCE_TOOLS;
use crate::core::request::ToolDefinition;
use crate::core::stream::NativeToolCall;

/// Whether a call of `name` with `params` runs without asking.
pub(crate) fn auto_approved(config: &TaskConfig, name: &str, params: &[(String, String)]) -> bool {
    let read_only = config.tool(name).is_some_and(|t| t.read_only);
    config.yolo
        || config.auto_approve.all
        || (read_only && config.auto_approve.read_only)
        || (mcp::is_mcp_call(config, name) && mcp::auto_approved(config, name, params))
}

/// Whether a call only reads: it need not wait for the initial checkpoint, and runs again
/// when a restored task was interrupted while it ran.
pub(crate) fn reads_only(config: &TaskConfig, name: &str, params: &[(String, String)]) -> bool {
    config.tool(name).is_some_and(|t| t.read_only) || mcp::reads_only(config, name, params)
}

/// A native call's parameters: string values as they are, others as JSON text.
pub(crate) fn native_params(call: &NativeToolCall) -> Vec<(String, String)> {
    call.arguments.members().map(|(k, v)| (k.to_owned(), v.to_owned())).collect()
}

/// A native call's arguments as an object, from what was read (for invalid JSON).
pub(crate) fn params_object(call: &NativeToolCall) -> Json {
    Json::from_members(native_params(call).into_iter().map(|(k, v)| (k, Json::String(v))))
}

/// The tool definitions sent for native tool calling: the task's tools, then each tool of
/// the connected MCP servers as `<server>0mcp0<tool>`.
pub(crate) fn definitions(config: &TaskConfig) -> Vec<ToolDefinition> {
    let mut definitions = Vec::new();
    for (name, description, params) in texts::all_tools(config) {
        let schema = config
            .tool(&name)
            .and_then(|t| t.input_schema.as_deref())
            .and_then(|s| Json::parse(s).ok())
            .unwrap_or_else(|| {
                let properties = params.iter().map(|p| {
                    (p.name.clone(), Json::object().with("type", "string").with("description", &p.description))
                });
                let required: Vec<Json> = params.iter().filter(|p| p.required).map(|p| Json::from(&p.name)).collect();
                Json::object()
                    .with("type", "object")
                    .with("properties", Json::from_members(properties))
                    .with("required", required)
            });
        definitions.push(ToolDefinition { name, description, input_schema: schema });
    }
    definitions.extend(config.mcp.definitions.iter().cloned());
    definitions
}

/// The name, parameters and provider call id (native calls) of the block `item`.
pub(crate) fn call_of(
    config: &TaskConfig,
    round: &Round,
    item: Item,
) -> (String, Vec<(String, String)>, Option<String>) {
    match item {
        Item::Parsed(n) => match round.parsed(n) {
            Some(block) => (
                block.tool_name().unwrap_or_default().to_owned(),
                block.params().map(|(k, v)| (k.to_owned(), v.to_owned())).collect(),
                None,
            ),
            None => (String::new(), Vec::new(), None),
        },
        Item::Native(n) => match round.natives.calls().get(n) {
            Some(call) => match mcp::split_native_name(&call.name).filter(|_| !config.mcp.servers.is_empty()) {
                // NOTE: a server tool's native call runs as use_mcp_tool (AGENT-LOOP §6.4);
                // without servers, a user's tool may have such a name.
                Some((server, tool)) => {
                    let raw = call.arguments.raw().trim();
                    let arguments = if raw.is_empty() { "{}" } else { raw };
                    let params = vec![
                        ("server_name".to_owned(), server.to_owned()),
                        ("tool_name".to_owned(), tool.to_owned()),
                        ("arguments".to_owned(), arguments.to_owned()),
                    ];
                    (mcp::USE_MCP_TOOL.to_owned(), params, Some(call.id.clone()))
                }
                None => (call.name.clone(), native_params(call), Some(call.id.clone())),
            },
            None => (String::new(), Vec::new(), None),
        },
    }
}

/// The job for the block `item`, with its result header.
pub(crate) fn job_of(ctx: &Ctx, round: &Round, item: Item) -> ToolJob {
    let (name, params, call_id) = call_of(&ctx.config, round, item);
    let description = describe(ctx, &name, &params);
    ToolJob { name, params, call_id, description }
}

/// The parameter the reference names its tools' results by (the first one present).
const SUBJECTS: [(&str, &[&str]); 13] = [
    ("execute_command", &["command"]),
    ("read_file", &["path", "absolutePath"]),
    ("list_files", &["path", "absolutePath"]),
    ("list_code_definition_names", &["path", "absolutePath"]),
    ("write_to_file", &["path", "absolutePath"]),
    ("replace_in_file", &["path", "absolutePath"]),
    ("new_rule", &["path", "absolutePath"]),
    ("browser_action", &["action"]),
    ("use_mcp_tool", &["server_name"]),
    ("access_mcp_resource", &["server_name"]),
    ("web_fetch", &["url"]),
    ("web_search", &["query"]),
    (ASK_FOLLOWUP_QUESTION, &["question"]),
];

/// The reference's headers that name no parameter.
const FIXED_HEADERS: [(&str, &str); 3] = [
    ("new_task", "[new_task for creating a new task]"),
    ("apply_patch", "[apply_patch for patch application]"),
    ("use_subagents", "[subagents]"),
];

/// The header of a call's results, `[name for '…']` (AGENT-LOOP §9.3): the tool's own
/// `describe` when it has one and it answers, else the reference's wording for the
/// reference's tool names, else the first required parameter (or the first one).
pub(crate) fn describe(ctx: &Ctx, name: &str, params: &[(String, String)]) -> String {
    let value = |key: &str| params.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str()).filter(|v| !v.is_empty());
    let own = ctx.config.tool(name).filter(|t| t.describe).and_then(|_| ctx.describer.describe(name, params));
    if let Some(subject) = own.filter(|s| !s.is_empty()) {
        return format!("[{name} for '{subject}']");
    }
    if let Some((_, header)) = FIXED_HEADERS.iter().find(|(tool, _)| *tool == name) {
        return (*header).to_owned();
    }
    let subject = match name {
        "search_files" => value("regex").map(|regex| match value("file_pattern") {
            Some(pattern) => format!("{regex}' in '{pattern}"),
            None => regex.to_owned(),
        }),
        "use_skill" => {
            return value("skill_name").map_or_else(|| format!("[{name}]"), |s| format!("[{name} for \"{s}\"]"))
        }
        _ => match SUBJECTS.iter().find(|(tool, _)| *tool == name) {
            Some((_, keys)) => keys.iter().find_map(|key| value(key)).map(str::to_owned),
            None if REFERENCE_TOOLS.contains(&name) => None,
            None => {
                let spec = texts::params_of(&ctx.config, name);
                spec.iter().find(|p| p.required).or(spec.first()).and_then(|p| value(&p.name)).map(str::to_owned)
            }
        },
    };
    match subject {
        Some(subject) => format!("[{name} for '{subject}']"),
        None => format!("[{name}]"),
    }
}

/// Pushes a notice for `job` (a plain text block, or a tool_result for a native call).
pub(crate) fn push_notice(round: &mut Round, job: &ToolJob, text: String) {
    let block = match &job.call_id {
        None => ContentBlock::text(text),
        Some(id) => ContentBlock::ToolResult { tool_use_id: id.clone(), content: Content::Text(text), is_error: true },
    };
    round.user_content.push(block);
}

/// The result blocks of `job`: `[desc] Result:\n…` with any images.
pub(crate) fn result_blocks(job: &ToolJob, text: &str, images: Vec<ImageSource>, is_error: bool) -> Vec<ContentBlock> {
    let body = if text.is_empty() && images.is_empty() { texts::EMPTY_RESULT } else { text };
    let header = ContentBlock::text(format!("{} Result:\n{body}", job.description));
    let images = images.into_iter().map(|source| ContentBlock::Image { source });
    match &job.call_id {
        None => std::iter::once(header).chain(images).collect(),
        Some(id) => {
            let mut blocks: Vec<ContentBlock> = std::iter::once(header).chain(images).collect();
            let content = match (blocks.len(), blocks.pop()) {
                (1, Some(ContentBlock::Text { text, .. })) => Content::Text(text),
                (_, Some(last)) => {
                    blocks.push(last);
                    Content::Blocks(blocks)
                }
                (_, None) => Content::Text(String::new()),
            };
            vec![ContentBlock::ToolResult { tool_use_id: id.clone(), content, is_error }]
        }
    }
}

/// The value of parameter `name` of `job` (empty when missing).
pub(crate) fn get<'a>(job: &'a ToolJob, name: &str) -> &'a str {
    job.params.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str()).unwrap_or_default()
}

/// A notice-like error result (no `[desc] Result:` header for XML; a failed tool_result for
/// native calls).
pub(crate) fn result_blocks_raw(job: &ToolJob, text: String) -> Vec<ContentBlock> {
    match &job.call_id {
        None => vec![ContentBlock::text(text)],
        Some(id) => {
            vec![ContentBlock::ToolResult { tool_use_id: id.clone(), content: Content::Text(text), is_error: true }]
        }
    }
}
