//! A tool job as data, apart from the task: the job a complete call becomes, its parameters
//! (looked up by name here only: [`param`]), its result blocks (`[desc] Result:` text, or a
//! tool_result with the provider's call id), and the definitions sent for native tool calling.
//! What the task makes of a call (the tool it reaches, approval, display, timeout) is
//! calls.rs's.

use super::config::{TaskConfig, ToolSource};
use super::mcp::McpCatalog;
use super::texts;
use crate::core::conversation::{Content, ContentBlock, ImageSource};
use crate::core::json::Json;
use crate::core::request::ToolDefinition;
use crate::core::stream::NativeToolCall;

/// A complete tool call on its way through the gates, approval and execution.
#[derive(Default, Clone, Debug, PartialEq)]
pub(crate) struct ToolJob {
    /// The tool's name.
    pub(crate) name: String,
    /// Its parameters.
    pub(crate) params: Vec<(String, String)>,
    /// The provider's call id (native calls), which the result must carry.
    pub(crate) call_id: Option<String>,
    /// `[name for '…']`, for results.
    pub(crate) description: String,
}

/// A native call's parameters: string values as they are, others as JSON text.
pub(crate) fn native_params(call: &NativeToolCall) -> Vec<(String, String)> {
    let mut params = Vec::new();
    for (name, value) in call.arguments.members() {
        params.push((name.to_owned(), value.to_owned()));
    }
    params
}

/// A native call's arguments as an object, from what was read (for invalid JSON).
pub(crate) fn params_object(call: &NativeToolCall) -> Json {
    let mut members = Vec::new();
    for (name, value) in call.arguments.members() {
        members.push((name.to_owned(), Json::from(value)));
    }
    Json::Object(members)
}

/// The tool definitions sent for native tool calling: the task's tools, then each tool of
/// the connected MCP servers as `<server>0mcp0<tool>`.
pub(crate) fn definitions(config: &TaskConfig, catalog: &McpCatalog) -> Vec<ToolDefinition> {
    let mut definitions = Vec::new();
    for (name, description, params) in texts::all_tools(config, catalog) {
        let schema = config
            .tool(&name)
            .and_then(|t| t.input_schema.as_deref())
            .and_then(|s| Json::parse(s).ok())
            .unwrap_or_else(|| {
                let (mut properties, mut required) = (Vec::with_capacity(params.len()), Vec::new());
                for param in &params {
                    let property = Json::object().with("type", "string").with("description", &param.description);
                    properties.push((param.name.clone(), property));
                    if param.required {
                        required.push(Json::from(&param.name));
                    }
                }
                Json::object()
                    .with("type", "object")
                    .with("properties", Json::Object(properties))
                    .with("required", required)
            });
        definitions.push(ToolDefinition { name, description, input_schema: schema });
    }
    let listed = catalog.tools.iter().filter(|t| matches!(t.source, ToolSource::Mcp { .. }));
    definitions.extend(listed.map(|t| ToolDefinition {
        name: t.name.clone(),
        description: t.description.clone(),
        input_schema: t.input_schema.as_deref().and_then(|s| Json::parse(s).ok()).unwrap_or_else(Json::object),
    }));
    definitions
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
    param(&job.params, name)
}

/// The value of the parameter `name` among a call's `params` (empty when missing): the one
/// lookup of a parameter by name.
pub(crate) fn param<'a>(params: &'a [(String, String)], name: &str) -> &'a str {
    params.iter().find(|(k, _)| k == name).map_or("", |(_, v)| v.as_str())
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
