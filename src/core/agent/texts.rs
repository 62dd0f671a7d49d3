//! The fixed texts the loop writes into the conversation, in clew's own words, and the
//! default system prompt. Markers the reference makes visible in the history are kept
//! byte for byte (`[Response interrupted by user]`, `Failure: I did not provide a response.`).
//! What the model reads of an MCP server's answer is made in `texts/mcp_result.rs`.

mod mcp_result;

pub use mcp_result::mcp_result;

use super::calls::{known, Known};
use super::config::{ParamSpec, TaskConfig, ToolCalling, ASK_FOLLOWUP_QUESTION, ATTEMPT_COMPLETION};
use super::mcp::{self, McpCatalog};

/// Appended to a reply the user cancelled.
pub const INTERRUPTED_BY_USER: &str = "\n\n[Response interrupted by user]";
/// Appended to a reply cut by an API error.
pub const INTERRUPTED_BY_API_ERROR: &str = "\n\n[Response interrupted by API Error]";
/// The assistant turn recorded for an empty reply.
pub const EMPTY_REPLY: &str = "Failure: I did not provide a response.";
/// The result of a denied tool call.
pub const TOOL_DENIED: &str = "The user denied this operation.";
/// The result of a tool that returned nothing.
pub const EMPTY_RESULT: &str = "(tool did not return anything)";

/// The error result of a tool that was running when its task was snapshotted, and which is
/// neither read-only nor idempotent: running it again could do its work twice.
pub const TOOL_INTERRUPTED: &str =
    "the task stopped while this tool ran: whether it finished, and what it changed, is unknown. Check the current state before calling it again.";

/// The result of a native call that never ran because its reply failed before its end.
pub(crate) fn cut_off_call(name: &str) -> String {
    format!(
        "{name} was not run: the reply was cut off by an error before its end. Call it again if it is still needed."
    )
}

/// How long ago `ms` milliseconds was, in words.
fn ago(ms: u64) -> String {
    let minutes = ms / 60_000;
    let (count, unit) = match minutes {
        0 => return "less than a minute ago".to_owned(),
        1..=59 => (minutes, "minute"),
        60..=1409 => ((minutes + 30) / 60, "hour"),
        _ => ((minutes + 720) / 1440, "day"),
    };
    format!("{count} {unit}{} ago", if count == 1 { "" } else { "s" })
}

/// The text sent when a task restored from its history goes on: when it stopped, that its
/// work may or may not have finished and the world may have moved, and what the user said.
pub fn resumption_notice(elapsed_ms: u64, completed: bool, feedback: &str) -> String {
    let mut text = if completed {
        format!(
            "[Task resumed] You offered a result for this task {} and the user has come back to it. Things may have \
changed since: check the current state before building on earlier steps.",
            ago(elapsed_ms)
        )
    } else {
        format!(
            "[Task resumed] This task stopped {} and goes on now. The step in progress may or may not have finished, and \
files or other state may have changed since: check where things stand first. A tool call that got no result counts as \
not done; verify before repeating it.",
            ago(elapsed_ms)
        )
    };
    if !feedback.is_empty() {
        text.push_str(&format!("\n\nThe user added:\n<user_message>\n{feedback}\n</user_message>"));
    }
    text
}

/// The reminder sent after a reply that used no tool.
/// The next user content after a reply the provider ended because the model wrote a tool
/// call it could not read (Gemini's `MALFORMED_FUNCTION_CALL`).
pub fn malformed_tool_call() -> &'static str {
    "[ERROR] Your previous tool call was malformed: the provider could not read it as a call of one of the tools (check the tool's name and that its arguments are a JSON object matching its schema). Call the tool again.\n(This is an automated message; do not answer it conversationally.)"
}

/// The next user content after a reply without a tool call.
pub fn no_tools_used(native: bool) -> String {
    let mut text =
        String::from("[ERROR] Your previous response did not use a tool. Every response must call exactly one tool.");
    if !native {
        text.push_str(
            "\n\n# Tool call format\n\nWrite a tool call as XML tags: the tool's name encloses one tag per parameter.\n\n<tool_name>\n<parameter_name>value</parameter_name>\n</tool_name>",
        );
    }
    text.push_str(
        "\n\n# Next steps\n\nIf the task is done, call attempt_completion. If you need information only the user has, call ask_followup_question. Otherwise continue with the next step of the task.\n(This is an automated message; do not answer it conversationally.)",
    );
    text
}

/// The user content that replaces the pending one when the user answers the mistake-limit
/// ask with a message.
pub fn too_many_mistakes(feedback: &str) -> String {
    format!("You seem to be stuck, and the user gave this guidance:\n<feedback>\n{feedback}\n</feedback>")
}

/// A failed tool call's result.
pub fn tool_error(message: &str) -> String {
    format!("The tool call failed:\n<error>\n{message}\n</error>")
}

/// The notice for a block left because the user rejected an earlier tool.
pub fn skipped_after_rejection(partial: bool, description: &str) -> String {
    let what = if partial { "was interrupted and not run" } else { "was skipped" };
    format!("Tool {what} because the user rejected an earlier tool in this message. {description}")
}

/// The notice for a tool left because one already ran in this message (serial mode).
pub fn one_tool_per_message(name: &str) -> String {
    format!(
        "Tool [{name}] was not run: a tool was already used in this message, and only one tool may be used per message. Wait for its result before calling the next."
    )
}

/// The result of a call missing a required parameter.
pub fn missing_param(tool: &str, param: &str, native: bool) -> String {
    let how = if native {
        "Call the tool again with every required argument."
    } else {
        "Write the tool call again with every required parameter as its own tag inside the tool's tag."
    };
    tool_error(&format!("Missing value for required parameter '{param}' of {tool}. {how}"))
}

/// The error shown to the user for a call missing a required parameter.
pub fn missing_param_notice(tool: &str, param: &str) -> String {
    format!("The model called {tool} without a value for the required parameter '{param}'. Retrying...")
}

/// The result of a native call to a tool that does not exist.
pub fn unknown_tool(name: &str, known: &str) -> String {
    tool_error(&format!("There is no tool named '{name}'. Available tools: {known}."))
}

/// The header of the user's feedback attached to an answer.
pub fn feedback(text: &str) -> String {
    if text.is_empty() {
        "The user attached the following to their answer:".to_owned()
    } else {
        format!("The user answered with feedback:\n<feedback>\n{text}\n</feedback>")
    }
}

/// The warning after the same call three times in a row.
pub fn repeated_call(name: &str) -> String {
    format!(
        "Tool [{name}] was called 3 times in a row with identical arguments. Its result will not change: try a different approach."
    )
}

/// The error result of an identical call that was not run (the `count`th in a row).
pub fn repeated_call_not_run(name: &str, count: u32) -> String {
    format!(
        "Tool [{name}] was not run: it is call {count} in a row with identical arguments, and its result would not change."
    )
}

/// The user-facing error for an empty reply.
pub fn empty_reply_error() -> String {
    "Invalid API response: the model returned no text and no tool call (empty or unparsable reply).".to_owned()
}

/// The instruction sent with the user's feedback on a completion.
pub fn completion_feedback() -> &'static str {
    "The user reviewed the result and gave feedback. Address it, then call attempt_completion again."
}

/// The result of ask_followup_question in YOLO mode.
pub fn yolo_followup() -> &'static str {
    "No user is available to answer questions (YOLO mode). Decide for yourself with the tools you have."
}

/// The user content after a reply cut by an API error, resumed in place.
pub fn resume_after_error() -> &'static str {
    "[Your previous response was cut off by an API error. Continue from where it stopped; do not repeat what you already wrote.]"
}

/// The user message a manual condense answers its ask with (CONTEXT §4.2-7).
pub fn condense_request(instructions: Option<&str>) -> String {
    let mut text = "Condense the conversation so far into a summary, then go on with the task.".to_owned();
    if let Some(focus) = instructions.filter(|i| !i.trim().is_empty()) {
        text.push_str("\nFocus on: ");
        text.push_str(focus);
    }
    text
}

/// What a cleared tool result holds (CONTEXT §5).
pub fn tool_result_cleared() -> &'static str {
    "[This tool result was cleared to save context.]"
}

/// The result a call gets when the view lost its result (CONTEXT §2.3 R3).
pub fn result_unavailable(name: &str) -> String {
    format!("The result of {name} is no longer available.")
}

/// The truncation notice: message 1 of a truncated view (CONTEXT §2.3 R1).
pub fn history_truncated() -> &'static str {
    "[NOTE] Some earlier messages of this conversation were removed to fit the context window."
}

/// The error for the YOLO mode mistake limit.
pub fn yolo_mistake_limit(count: u32) -> String {
    format!("[YOLO MODE] The model made {count} consecutive mistakes; the task stops.")
}

/// The text of the mistake-limit ask.
pub fn mistake_limit_guidance() -> &'static str {
    "The model seems to be stuck. Guidance from you may help it (e.g. \"Try breaking the task into smaller steps\")."
}

fn builtin_params(name: &str) -> Vec<ParamSpec> {
    let server = ("server_name", "The name of the MCP server.", true);
    let params: &[(&str, &str, bool)] = match name {
        ATTEMPT_COMPLETION => &[("result", "The final result of the task, for the user.", true)],
        ASK_FOLLOWUP_QUESTION => &[
            ("question", "The question for the user.", true),
            ("options", "Optional: a JSON array of 2 to 5 answers the user may pick.", false),
        ],
        // NOTE: all required (TOOL-FORMAT).
        mcp::USE_MCP_TOOL => &[
            server,
            ("tool_name", "The name of the server's tool.", true),
            ("arguments", "The tool's input: a JSON object following its input schema.", true),
        ],
        mcp::ACCESS_MCP_RESOURCE => &[server, ("uri", "The URI of the resource to read.", true)],
        _ => &[],
    };
    let mut specs = Vec::with_capacity(params.len());
    for &(name, description, required) in params {
        specs.push(ParamSpec { name: name.into(), description: description.into(), required });
    }
    specs
}

/// What the user is told of an MCP server left out of the task, and `why`.
pub(crate) fn mcp_left_out(server: &str, why: &str) -> String {
    ["The MCP server \"", server, "\" is left out: ", why].concat()
}

/// What the user is told of an MCP server whose listing did not end within `ms`
/// milliseconds (in seconds when they are whole).
pub(crate) fn mcp_not_listed(server: &str, ms: u64) -> String {
    let mut why = String::from("it did not list its tools within ");
    let (count, unit) = if ms % 1000 == 0 { (ms / 1000, " s") } else { (ms, " ms") };
    crate::core::json::write_u64(&mut why, count);
    why.push_str(unit);
    mcp_left_out(server, &why)
}

/// The parameters of a tool, built-ins and (with MCP servers) the MCP tools included.
pub fn params_of(config: &TaskConfig, catalog: &McpCatalog, name: &str) -> Vec<ParamSpec> {
    match name {
        ATTEMPT_COMPLETION | ASK_FOLLOWUP_QUESTION => builtin_params(name),
        super::context::texts::SUMMARIZE_TASK => super::context::texts::summarize_params(),
        name => match known(config, catalog, name) {
            Some(Known::Mcp) => builtin_params(name),
            Some(Known::Options(tool)) => tool.parameters.clone(),
            None => Vec::new(),
        },
    }
}

/// Every tool the model may call: `(name, description, parameters)`.
pub fn all_tools(config: &TaskConfig, catalog: &McpCatalog) -> Vec<(String, String, Vec<ParamSpec>)> {
    let mut tools = Vec::with_capacity(config.tools.len() + 4);
    for tool in &config.tools {
        tools.push((tool.name.clone(), tool.description.clone(), tool.parameters.clone()));
    }
    tools.push((
        ASK_FOLLOWUP_QUESTION.into(),
        "Ask the user a question when you need information to go on.".into(),
        builtin_params(ASK_FOLLOWUP_QUESTION),
    ));
    tools.push((
        ATTEMPT_COMPLETION.into(),
        "Present the result of the task once it is done. The user may accept it or reply.".into(),
        builtin_params(ATTEMPT_COMPLETION),
    ));
    // NOTE: in native mode each MCP tool is a tool of its own (`tool_job::definitions`).
    let xml = config.tool_calling == ToolCalling::Xml;
    let mcp_tools = [
        (mcp::USE_MCP_TOOL, "Call a tool of a connected MCP server.", xml),
        (mcp::ACCESS_MCP_RESOURCE, "Read a resource of a connected MCP server.", xml || catalog.resources),
    ];
    for (name, description, offered) in mcp_tools {
        if offered && !catalog.servers.is_empty() {
            tools.push((name.into(), description.into(), builtin_params(name)));
        }
    }
    tools
}

/// Appends `pieces` to `out`, in order.
fn push_all(out: &mut String, pieces: &[&str]) {
    for piece in pieces {
        out.push_str(piece);
    }
}

/// The system prompt: the introduction (the user's or clew's), the tools and, in XML mode,
/// how to call them, then the user's rules and environment.
pub fn system_prompt(config: &TaskConfig, catalog: &McpCatalog) -> String {
    let mut out = config.system_prompt.clone().unwrap_or_else(|| {
        "You are an agent that completes the user's task step by step with tools. Use one tool per message and wait for its result before the next step. When the task is done, present the result with attempt_completion.".to_owned()
    });
    let xml = config.tool_calling == ToolCalling::Xml;
    out.push_str("\n\n# Tools\n");
    if xml {
        out.push_str(
            "\nCall a tool by writing XML tags: the tool's name encloses one tag per parameter, for example\n\n<tool_name>\n<parameter1_name>value1</parameter1_name>\n</tool_name>\n\nWrite values as they are, without escaping.\n",
        );
    }
    for (name, description, params) in all_tools(config, catalog) {
        // NOTE: pieces pushed one by one rather than through `format!`: this runs for every
        // request, the first one included.
        push_all(&mut out, &["\n## ", &name, "\n", &description, "\n"]);
        if !params.is_empty() {
            out.push_str("Parameters:\n");
            for p in &params {
                let need = if p.required { " (required): " } else { " (optional): " };
                push_all(&mut out, &["- ", &p.name, need, &p.description, "\n"]);
            }
        }
        if xml {
            push_all(&mut out, &["Usage:\n<", &name, ">\n"]);
            for p in &params {
                push_all(&mut out, &["<", &p.name, ">...</", &p.name, ">\n"]);
            }
            push_all(&mut out, &["</", &name, ">\n"]);
        }
    }
    out.push_str(&catalog.prompt);
    if let Some(rules) = config.rules.as_deref().filter(|r| !r.trim().is_empty()) {
        push_all(&mut out, &["\n# Rules\n\n", rules, "\n"]);
    }
    if let Some(env) = config.environment.as_deref().filter(|e| !e.trim().is_empty()) {
        push_all(&mut out, &["\n# Environment\n\n", env, "\n"]);
    }
    out
}
