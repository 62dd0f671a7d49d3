//! A task rebuilt from its conversation alone (the reference's resume from history): the
//! history and the transcript an application kept, or that Cline saved
//! (`api_conversation_history.json`, `ui_messages.json`). It asks `resume_task`, or
//! `resume_completed_task` when the task had offered its result; the answer sends the
//! trailing user content with a resumption notice.

use crate::core::conversation::{Content, ContentBlock, Role};
use crate::core::json::Json;

use super::super::config::TaskConfig;
use super::super::message::{AskKind, Message, MessageKind, SayKind, Transcript};
use super::super::task::{Phase, Task, TaskUsage};
use super::super::texts;
use super::entries;
use super::SnapshotError;

/// The result given to a native tool call that never got one.
const NO_RESULT: &str = "the task was interrupted before this tool call got a result.";
/// How resumption notices begin, clew's and Cline's (an older one in the trailing content
/// is replaced).
const NOTICE_STARTS: [&str; 2] = ["[Task resumed]", "[TASK RESUMPTION]"];

impl Task {
    /// A task rebuilt at time `now` from `{ history, messages }` (JSON text: the shapes of
    /// `task.history` and `task.messages`; transcript kinds clew does not know are kept),
    /// set up with `config`. It waits for [`resume`](Self::resume), which asks whether to
    /// go on.
    ///
    /// # Errors
    /// A [`SnapshotError`] of kind `Invalid` naming what cannot be read, or settings in
    /// `config` that cannot work.
    pub fn from_history(
        json: &str,
        config: impl Into<std::rc::Rc<TaskConfig>>,
        now: u64,
    ) -> Result<Self, SnapshotError> {
        let value =
            Json::parse(json).map_err(|e| SnapshotError::invalid(format!("the saved task is not JSON: {e}")))?;
        let mut task =
            Self::new(config).map_err(|e| SnapshotError::invalid(format!("options.{}: {}", e.field, e.message)))?;
        task.rebuild(&value, now).map_err(SnapshotError::invalid)?;
        Ok(task)
    }

    fn rebuild(&mut self, value: &Json, now: u64) -> Result<(), String> {
        let list = |key: &str| match value.get(key) {
            None | Some(Json::Null) => Ok(&[][..]),
            Some(items) => items.as_array().ok_or_else(|| format!("saved.{key} must be an array")),
        };
        let mut history = entries::read_history(list("history")?, "saved.history")?;
        let mut messages = entries::read_messages(list("messages")?, "saved.messages", true)?;
        if history.is_empty() {
            return Err("saved.history is missing or empty: there is no conversation to resume".into());
        }
        let is_resume_ask =
            |m: &Message| matches!(m.kind, MessageKind::Ask(AskKind::ResumeTask | AskKind::ResumeCompletedTask));
        while messages.last().is_some_and(is_resume_ask) {
            messages.pop();
        }
        for message in &mut messages {
            if message.partial == Some(true) {
                message.partial = Some(false);
            }
        }
        let completed = messages.last().is_some_and(|m| {
            matches!(m.kind, MessageKind::Ask(AskKind::CompletionResult) | MessageKind::Say(SayKind::CompletionResult))
        });
        let since = messages.last().map_or(now, |m| m.ts);
        let mut trailing = match history.last() {
            Some(last) if last.role == Role::User => history.pop().map(|m| m.content.blocks()).unwrap_or_default(),
            _ => Vec::new(),
        };
        trailing.retain(
            |block| !matches!(block, ContentBlock::Text { text, .. } if NOTICE_STARTS.iter().any(|s| text.starts_with(s))),
        );
        answer_open_calls(history.last().map(|m| &m.content), &mut trailing);
        self.ctx.usage = usage_of(&messages);
        self.ctx.rounds = history.iter().filter(|m| m.role == Role::Assistant).count() as u64;
        self.ctx.history_given = 0;
        self.ctx.history = history;
        self.ctx.transcript = Transcript::from_parts(messages, 0);
        self.ctx.tick(now);
        let kind = if completed { AskKind::ResumeCompletedTask } else { AskKind::ResumeTask };
        let ask_ts = self.ctx.transcript.append(now, MessageKind::Ask(kind), String::new(), Vec::new(), None);
        self.phase = Phase::AwaitingResumeAnswer { ask_ts, content: trailing, since };
        self.ctx.resume_pending = true;
        Ok(())
    }
}

/// Adds an error result for each native call of the last assistant message that the
/// trailing user content does not answer: every call must have its result.
fn answer_open_calls(last: Option<&Content>, trailing: &mut Vec<ContentBlock>) {
    let Some(Content::Blocks(blocks)) = last else { return };
    let answered = |id: &str, trailing: &[ContentBlock]| {
        trailing.iter().any(|b| matches!(b, ContentBlock::ToolResult { tool_use_id, .. } if tool_use_id == id))
    };
    let mut missing = Vec::new();
    for block in blocks {
        if let ContentBlock::ToolUse { id, .. } = block {
            if !answered(id, trailing) {
                missing.push(ContentBlock::ToolResult {
                    tool_use_id: id.clone(),
                    content: Content::Text(NO_RESULT.to_owned()),
                    is_error: true,
                });
            }
        }
    }
    missing.append(trailing);
    *trailing = missing;
}

/// The task's usage as its `api_req_started` messages recorded it (the reference's metrics
/// over the transcript), so that limits carry on across the resume.
fn usage_of(messages: &[Message]) -> TaskUsage {
    let mut usage = TaskUsage::default();
    for message in messages.iter().filter(|m| m.kind == MessageKind::Say(SayKind::ApiReqStarted)) {
        usage.requests += 1;
        let Ok(info) = Json::parse(&message.text) else { continue };
        let tokens = |key: &str| info.get(key).and_then(Json::as_u64).unwrap_or(0);
        usage.input_tokens += tokens("tokensIn");
        usage.output_tokens += tokens("tokensOut");
        usage.cache_write_tokens += tokens("cacheWrites");
        usage.cache_read_tokens += tokens("cacheReads");
        usage.total_cost +=
            info.get("cost").and_then(Json::as_f64).filter(|c| c.is_finite() && *c > 0.0).unwrap_or(0.0);
    }
    usage
}

/// The user content a resumed task sends after the answer to its resume ask.
pub(crate) fn resumed_content(
    mut content: Vec<ContentBlock>,
    elapsed_ms: u64,
    completed: bool,
    answer: &super::super::message::AskAnswer,
) -> Vec<ContentBlock> {
    content.push(ContentBlock::text(texts::resumption_notice(elapsed_ms, completed, &answer.text)));
    for source in &answer.images {
        content.push(ContentBlock::Image { source: source.clone() });
    }
    content
}
