//! A call in the task's context: the tool it reaches (a user's, or an MCP server's: the one
//! known-tool lookup), whether it runs without asking, how it is shown and asked about, how
//! long it may run, and the `[name for '…']` header of its results. What a job is as data
//! (its parameters, result blocks, native definitions) is tool_job.rs's.

use super::config::{TaskConfig, ToolSource, ToolSpec, ASK_FOLLOWUP_QUESTION};
use super::mcp::{self, McpCatalog};
use super::message::{AskKind, SayKind};
use super::round_state::{Item, Round};
use super::task::Ctx;
use super::texts;
use super::tool_job::{native_params, param, ToolJob};
use crate::core::conversation::{Content, ContentBlock};
use crate::core::json::Json;
use crate::core::parser::REFERENCE_TOOLS;

/// What a tool name the task knows (besides its built-ins) reaches.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Known<'a> {
    /// The user's tool of that name.
    Options(&'a ToolSpec),
    /// One of the two MCP tools, while their calls are known (the server and tool its
    /// parameters name are checked at the call's gates).
    Mcp,
}

/// Whether the task knows a tool named `name`, and what it reaches: the one answer to "is
/// this a known tool?" (the built-ins aside).
#[inline(never)]
pub(crate) fn known<'a>(config: &'a TaskConfig, catalog: &McpCatalog, name: &str) -> Option<Known<'a>> {
    if catalog.handles(name) {
        return Some(Known::Mcp);
    }
    config.tool(name).map(Known::Options)
}

impl Ctx {
    /// What a call of `name` reaches, if the task knows the tool ([`known`]).
    pub(crate) fn known(&self, name: &str) -> Option<Known<'_>> {
        known(&self.config, &self.catalog, name)
    }

    /// The tool a call of `name` with `params` reaches: the user's tool of that name, or the
    /// MCP server's tool or resources that one of the two MCP tools names.
    pub(crate) fn spec_of(&self, name: &str, params: &[(String, String)]) -> Option<&ToolSpec> {
        self.config.tool(name).or_else(|| self.catalog.target(name, params))
    }

    /// Whether a call only reads: it need not wait for the initial checkpoint, and runs
    /// again when a restored task was interrupted while it ran.
    pub(crate) fn reads_only(&self, name: &str, params: &[(String, String)]) -> bool {
        self.spec_of(name, params).is_some_and(|t| t.read_only)
    }

    /// Whether a call runs without asking: everything is approved, its tool is (its MCP
    /// server's `autoApprove` list), or it only reads and read-only tools are.
    pub(crate) fn auto_approved(&self, name: &str, params: &[(String, String)]) -> bool {
        let (listed, read_only) = self.spec_of(name, params).map_or((false, false), |t| (t.auto_approve, t.read_only));
        let config = &self.config;
        config.yolo || config.auto_approve.all || listed || (read_only && config.auto_approve.read_only)
    }

    /// The milliseconds a call of `job` may run: its tool's `timeoutMs` (an MCP server's,
    /// 60 000 by default, also before a restored task's servers are listed again).
    pub(crate) fn timeout_of(&self, job: &ToolJob) -> Option<u64> {
        match self.spec_of(&job.name, &job.params) {
            Some(spec) => spec.timeout_ms,
            None if matches!(self.known(&job.name), Some(Known::Mcp)) => {
                Some(mcp::timeout_ms(&self.config.mcp_servers, param(&job.params, "server_name")))
            }
            None => None,
        }
    }

    /// What a call of `job` that ran past its time fails with.
    pub(crate) fn timed_out(&self, job: &ToolJob) -> String {
        let ms = self.timeout_of(job).unwrap_or_default();
        if self.goes_to_a_server(&job.name, &job.params) {
            let server = param(&job.params, "server_name");
            format!("the MCP server '{server}' did not answer within {ms} ms; the call was cancelled")
        } else {
            format!("the tool timed out after {ms} ms")
        }
    }

    /// Whether a call goes to an MCP server (shown as `use_mcp_server`, with the server's
    /// request and response told).
    pub(crate) fn goes_to_a_server(&self, name: &str, params: &[(String, String)]) -> bool {
        match self.spec_of(name, params) {
            Some(spec) => spec.source != ToolSource::Options,
            None => matches!(self.known(name), Some(Known::Mcp)),
        }
    }

    /// How a call of a tool is shown: the say and ask kinds, and the text from its parameter
    /// values (`value`, for the names in `params`). An MCP server's tool is a
    /// `use_mcp_server` message in the reference's shape; any other tool a `tool` message
    /// with its parameters.
    pub(crate) fn shown(
        &self,
        name: &str,
        params: &[(String, String)],
        value: &dyn Fn(&str) -> String,
    ) -> (SayKind, AskKind, String) {
        if self.goes_to_a_server(name, params) {
            (SayKind::UseMcpServer, AskKind::UseMcpServer, mcp::approval_text(name, value))
        } else {
            let mut members = Vec::with_capacity(params.len());
            for (name, _) in params {
                members.push((name.clone(), Json::from(value(name))));
            }
            let params = Json::Object(members);
            (SayKind::Tool, AskKind::Tool, Json::object().with("tool", name).with("params", params).to_string())
        }
    }
}

/// The name, parameters and provider call id (native calls) of the block `item`.
pub(crate) fn call_of(
    catalog: &McpCatalog,
    round: &Round,
    item: Item,
) -> (String, Vec<(String, String)>, Option<String>) {
    match item {
        Item::Parsed(n) => match round.parsed(n) {
            Some(block) => {
                let mut params = Vec::new();
                for (name, value) in block.params() {
                    params.push((name.to_owned(), value.to_owned()));
                }
                (block.tool_name().unwrap_or_default().to_owned(), params, None)
            }
            None => (String::new(), Vec::new(), None),
        },
        Item::Native(n) => match round.natives.calls().get(n) {
            Some(call) => match mcp::split_native_name(&call.name).filter(|_| catalog.calls_known) {
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
    let (name, params, call_id) = call_of(&ctx.catalog, round, item);
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
    let value = |key: &str| Some(param(params, key)).filter(|v| !v.is_empty());
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
                let spec = texts::params_of(&ctx.config, &ctx.catalog, name);
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
