//! Context management's model-facing texts (CONTEXT §4, §6): the summarize round's
//! instruction and `summarize_task` tool, the continuation that follows a summary, the
//! markers and error results of a summary, the task reminder after a provider compaction.

use super::super::config::{ParamSpec, ATTEMPT_COMPLETION};
use super::super::texts;
use super::files::{trim, trim_start};
use crate::core::json::Json;
use crate::core::request::ToolDefinition;

/// The tool the model calls with its summary of the conversation.
pub(crate) const SUMMARIZE_TASK: &str = "summarize_task";

const CONTEXT_PARAM: &str = "The summary, in its ten numbered sections.";
const PROGRESS_PARAM: &str = "Optional: your checklist of the task, up to date.";

/// The instruction appended to the summarize round's user message: why and what to do now,
/// the ten sections of the summary, how to call `summarize_task` (XML tags unless `native`),
/// and the host's `focus` (`summarize.instructions`) when it gives one.
pub(crate) fn summarize_instruction(native: bool, focus: Option<&str>) -> String {
    let mut text = [
        "<explicit_instructions type=\"summarize_task\">\nThe conversation is about to overflow the context window: \
summarize it now, in detail, since the work goes on from your summary alone. Only attempt_completion (if the whole \
task is done) or summarize_task may be called now; any other call is not run.\n\nFirst think it over",
        if native { "" } else { " in <thinking> tags" },
        ": each request of the user, what you did, decisions and why, files and code, errors and their fixes, the \
user's feedback.\n\nThen write these ten numbered sections:\n\
1. Request and intent: all the user asked for, in detail.\n\
2. Technical concepts: technologies, frameworks and conventions in use.\n\
3. Files and code: each file read, changed or created, and what changed.\n\
4. Problems solved: problems met and how each was solved.\n\
5. Pending tasks: what is asked and not done.\n\
6. How the task evolved: the user's corrections and changes of mind.\n\
7. Current work: exactly what was being done last.\n\
8. Next step: only if it follows from the latest requests; quote them word for word.\n\
9. Required files: the files to read again (at most 10), one per line as \"- path\", or \"- none\".\n\
10. Latest user message: word for word.\n\n",
        if native {
            "Call the summarize_task tool with the summary as `context`; `task_progress` (your checklist, up to date) \
is optional."
        } else {
            "Call summarize_task with the summary as `context`; `task_progress` (your checklist, up to date) is \
optional:\n<summarize_task>\n<context>\n1. Request and intent: ...\n</context>\n<task_progress>\n- [x] done\n- [ ] \
to do\n</task_progress>\n</summarize_task>"
        },
    ]
    .concat();
    if let Some(focus) = focus.map(|f| trim(f, b"")).filter(|f| !f.is_empty()) {
        text.push_str("\n\nGive particular attention to the following:\n");
        text.push_str(focus);
    }
    text.push_str("\n</explicit_instructions>");
    text
}

/// The parameters of `summarize_task`: `context` (required) and `task_progress`.
pub(crate) fn summarize_params() -> Vec<ParamSpec> {
    let param = |name: &str, description: &str, required| ParamSpec {
        name: name.to_owned(),
        description: description.to_owned(),
        required,
    };
    vec![param("context", CONTEXT_PARAM, true), param("task_progress", PROGRESS_PARAM, false)]
}

/// The native definition of `summarize_task`, sent in every request while the task can
/// summarize (adding it for one request would break the cached prefix).
pub(crate) fn summarize_tool_definition() -> ToolDefinition {
    let string = |description| Json::object().with("type", "string").with("description", description);
    let properties =
        Json::from_members([("context", string(CONTEXT_PARAM)), ("task_progress", string(PROGRESS_PARAM))]);
    ToolDefinition {
        name: SUMMARIZE_TASK.to_owned(),
        description: "Replace the conversation by your summary of it, when a message asks for one.".to_owned(),
        input_schema: Json::object()
            .with("type", "object")
            .with("properties", properties)
            .with("required", vec![Json::from("context")]),
    }
}

/// The plain text blocks that follow a summary: the continuation, the summary, then one
/// block per file (`(path, content)`) headed by its path.
pub(crate) fn continuation(summary: &str, files: &[(String, String)]) -> Vec<String> {
    let mut blocks = Vec::with_capacity(files.len() + 2);
    blocks.push(
        [
            "[Context summarized] Your summary below replaces the earlier conversation. Go on with the task from \
where it stopped, without asking the user questions or redoing what is done.",
            if files.is_empty() { "" } else { " The files it needs follow, as they are now." },
        ]
        .concat(),
    );
    blocks.push(summary.to_owned());
    blocks.extend(files.iter().map(|(path, content)| ["Content of ", path, ":\n\n", content].concat()));
    blocks
}

/// The one line of `summarize_task`'s tool_result in native mode; the continuation follows
/// as text blocks.
pub(crate) fn summary_accepted() -> &'static str {
    "Summary accepted."
}

/// Replaces the first block of message 0 (the `<task>` text) once a summary carries the task.
pub(crate) fn continue_marker() -> &'static str {
    "[Keep assisting: the summary below carries the task.]"
}

/// The error result of a call of any tool but `summarize_task` and `attempt_completion`
/// during a summarize round; the call is not run.
pub(crate) fn only_summary_tools_now(tool: &str) -> String {
    texts::tool_error(
        &["Tool [", tool, "] was not run: only summarize_task and ", ATTEMPT_COMPLETION, " may be called now."]
            .concat(),
    )
}

/// The error result of `summarize_task` called outside a summarize round.
pub(crate) fn summarize_outside_round() -> String {
    texts::tool_error("summarize_task runs only when a message asks for a summary; nothing was summarized.")
}

/// The reminder of the original task after a provider compaction (§6.2 Pause), from message
/// 0's first block: wrapped in `<task>` tags unless it already is.
pub(crate) fn task_reminder(task_text: &str) -> String {
    let wrapped = trim_start(task_text, b"").starts_with("<task>");
    [
        "[Context compacted] The task, as a reminder:\n\n",
        if wrapped { "" } else { "<task>\n" },
        task_text,
        if wrapped { "" } else { "\n</task>" },
    ]
    .concat()
}

#[cfg(test)]
#[path = "texts_tests.rs"]
mod tests;
