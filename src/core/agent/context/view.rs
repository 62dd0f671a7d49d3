//! The view (CONTEXT §0, §2): what a request sends, built from the history (never shortened)
//! with the deleted range, the edits and the compaction boundary applied, every turn whole.
//!
//! - **R1** With a range, message 1 (the first reply) goes as one text block, the truncation
//!   notice, without its reasoning, signatures, calls and items; a user message there (an
//!   empty first reply) stays, and the notice opens the first kept message instead.
//! - **R2** In the first kept message, each result (its call is gone) becomes a text block
//!   with the result's text (images dropped).
//! - **R3** A net, per turn: a call without a result gets an "unavailable" error result first
//!   in its turn's user half (the call is never rewritten: reasoning and signatures stay
//!   valid); a result without its call becomes text. Views built by the strategies never need
//!   it.
//! - **R4** A rule that drops a block drops its signature; none moves one.

use super::edit::{self, EditState};
use super::ranges::DeletedRange;
use crate::core::agent::texts;
use crate::core::conversation::{Content, ContentBlock, Message, Role};

/// What shapes a view besides the history.
#[derive(Clone, Copy, Debug, Default)]
pub struct ViewPlan<'a> {
    /// Messages left out (a truncation, a summary).
    pub range: Option<DeletedRange>,
    /// Message 0's first block goes as clew's continue marker (after a summary).
    pub task_replaced: bool,
    /// The edit state and how cleared results and calls read (`placeholder`, clear inputs).
    pub edits: Option<(&'a EditState, &'a str, bool)>,
    /// The view starts at this history message, a compaction's carrier (`dropCompacted`).
    pub from: Option<usize>,
    /// Reasoning before this history index is not sent (models that refuse reasoning from
    /// before a compaction).
    pub thinking_before: Option<usize>,
}

/// A result's text, images dropped.
fn result_text(content: &Content) -> String {
    let mut text = String::new();
    let blocks = match content {
        Content::Text(only) => return only.clone(),
        Content::Blocks(blocks) => blocks,
    };
    for block in blocks {
        if let ContentBlock::Text { text: part, .. } = block {
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(part);
        }
    }
    text
}

/// Every result block of `blocks` as a text block (R2).
pub(crate) fn results_as_text(mut blocks: Vec<ContentBlock>) -> Vec<ContentBlock> {
    for block in &mut blocks {
        if let ContentBlock::ToolResult { content, .. } = block {
            *block = ContentBlock::text(result_text(content));
        }
    }
    blocks
}

/// Whether `block` is reasoning.
fn is_reasoning(block: &ContentBlock) -> bool {
    matches!(block, ContentBlock::Thinking { .. } | ContentBlock::RedactedThinking { .. })
}

/// The view of `history` under `plan`, and for each of its messages the history message it is
/// unchanged from (`None` for one the view changed), so that its JSON can be reused.
///
/// NOTE: one pass over each message's blocks applies every rule (measured: a chain of rewrites,
/// each its own `collect`, cost several KB of wasm).
pub fn view(history: &[Message], plan: &ViewPlan<'_>) -> (Vec<Message>, Vec<Option<usize>>) {
    let mut out: Vec<Message> = Vec::with_capacity(history.len());
    let mut sources: Vec<Option<usize>> = Vec::with_capacity(history.len());
    let from = plan.from.unwrap_or(0);
    // NOTE: a range belongs to the view's head (the task, or a carrier): one made before the
    // newest carrier lies before the view.
    let range = plan.range.filter(|range| range.start == from + 2);
    let (state, placeholder, clear_inputs) = match plan.edits {
        Some((state, placeholder, clear_inputs)) => (Some(state), placeholder, clear_inputs),
        None => (None, "", false),
    };
    let cleared = state.map(edit::cleared_set).unwrap_or_default();
    let first_reply_is_user = history.get(from + 1).is_some_and(|m| m.role == Role::User);
    for (i, message) in history.iter().enumerate().skip(from) {
        let assistant = message.role == Role::Assistant;
        let (notice_only, results_to_text) = match range {
            Some(r) if (r.start..=r.end).contains(&i) => continue,
            Some(r) => (assistant && i == from + 1, i == r.end + 1),
            None => (false, false),
        };
        let task_text;
        let blocks = match &message.content {
            Content::Blocks(blocks) => blocks.as_slice(),
            Content::Text(text) if i == 0 && plan.task_replaced => {
                task_text = [ContentBlock::text(text.clone())];
                &task_text
            }
            Content::Text(_) => {
                out.push(message.clone());
                sources.push(Some(i));
                continue;
            }
        };
        let drop_thinking =
            assistant && (state.is_some_and(|s| i < s.thinking_before) || plan.thinking_before.is_some_and(|b| i < b));
        // A carrier starts at its (last) compaction unless a call of its turn comes before it.
        let mut skip = 0;
        if plan.from == Some(i) {
            let at = blocks.iter().rposition(|b| matches!(b, ContentBlock::Compaction { .. })).unwrap_or(0);
            if !blocks.iter().take(at).any(|b| matches!(b, ContentBlock::ToolUse { .. })) {
                skip = at;
            }
        }
        // A result's key is its own message's; a call's, the next message's (where its result is).
        let key_at = if assistant { i + 1 } else { i };
        let is_cleared =
            |id: &str| !cleared.is_empty() && cleared.contains_key(edit::result_key(key_at, id).as_bytes());
        let touched = notice_only
            || results_to_text
            || skip > 0
            || (i == 0 && plan.task_replaced)
            || blocks.iter().any(|b| match b {
                ContentBlock::ToolResult { tool_use_id, .. } => is_cleared(tool_use_id),
                ContentBlock::ToolUse { id, .. } => clear_inputs && is_cleared(id),
                other => drop_thinking && is_reasoning(other),
            });
        if !touched {
            out.push(message.clone());
            sources.push(Some(i));
            continue;
        }
        let mut content = Vec::with_capacity(blocks.len() + 1);
        if notice_only || (results_to_text && first_reply_is_user) {
            content.push(ContentBlock::text(texts::history_truncated().to_owned()));
        }
        for (at, block) in blocks.iter().enumerate().skip(skip) {
            if notice_only || (drop_thinking && is_reasoning(block)) {
                continue;
            }
            content.push(match block {
                _ if at == 0 && i == 0 && plan.task_replaced => {
                    ContentBlock::text(super::texts::continue_marker().to_owned())
                }
                ContentBlock::ToolResult { content, .. } if results_to_text => ContentBlock::text(result_text(content)),
                ContentBlock::ToolResult { tool_use_id, is_error, .. } if is_cleared(tool_use_id) => {
                    ContentBlock::ToolResult {
                        tool_use_id: tool_use_id.clone(),
                        content: Content::Text(placeholder.to_owned()),
                        is_error: *is_error,
                    }
                }
                ContentBlock::ToolUse { id, name, signature, .. } if clear_inputs && is_cleared(id) => {
                    ContentBlock::ToolUse {
                        id: id.clone(),
                        name: name.clone(),
                        input: crate::core::json::Json::object(),
                        signature: signature.clone(),
                    }
                }
                other => other.clone(),
            });
        }
        out.push(Message { role: message.role, content: Content::Blocks(content) });
        sources.push(None);
    }
    repair(&mut out, &mut sources);
    (out, sources)
}

/// Whether `message` holds a call (`calls`) or a result of `id`.
fn holds(message: &Message, calls: bool, id: &str) -> bool {
    let Content::Blocks(blocks) = &message.content else { return false };
    blocks.iter().any(|b| match b {
        ContentBlock::ToolUse { id: call, .. } => calls && call == id,
        ContentBlock::ToolResult { tool_use_id, .. } => !calls && tool_use_id == id,
        _ => false,
    })
}

/// The repair net (R3), per turn: a call without a result in the next message gets an
/// "unavailable" error result first there; a result without its call in the message before
/// becomes text. The messages it changes lose their source.
pub(crate) fn repair(messages: &mut [Message], sources: &mut [Option<usize>]) {
    for i in 0..messages.len() {
        let mut missing = Vec::new();
        let mut orphans = Vec::new();
        if let Some(Message { role, content: Content::Blocks(blocks) }) = messages.get(i) {
            for (at, block) in blocks.iter().enumerate() {
                match block {
                    ContentBlock::ToolUse { id, name, .. }
                        if *role == Role::Assistant
                            && !messages
                                .get(i + 1)
                                .is_some_and(|next| next.role == Role::User && holds(next, false, id)) =>
                    {
                        missing.push(ContentBlock::ToolResult {
                            tool_use_id: id.clone(),
                            content: Content::Text(texts::tool_error(&texts::result_unavailable(name))),
                            is_error: true,
                        });
                    }
                    ContentBlock::ToolResult { tool_use_id, .. }
                        if *role != Role::User
                            || !i.checked_sub(1).and_then(|p| messages.get(p)).is_some_and(|previous| {
                                previous.role == Role::Assistant && holds(previous, true, tool_use_id)
                            }) =>
                    {
                        orphans.push(at);
                    }
                    _ => {}
                }
            }
        }
        if let Some(Message { content: Content::Blocks(blocks), .. }) = messages.get_mut(i) {
            for at in &orphans {
                if let Some(block @ ContentBlock::ToolResult { .. }) = blocks.get_mut(*at) {
                    if let ContentBlock::ToolResult { content, .. } = block {
                        *block = ContentBlock::text(result_text(content));
                    }
                }
            }
        }
        if !orphans.is_empty() {
            if let Some(source) = sources.get_mut(i) {
                *source = None;
            }
        }
        if missing.is_empty() {
            continue;
        }
        if let Some(next) = messages.get_mut(i + 1).filter(|m| m.role == Role::User) {
            missing.extend(next.content.blocks());
            next.content = Content::Blocks(missing);
            if let Some(source) = sources.get_mut(i + 1) {
                *source = None;
            }
        }
    }
}
