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

/// The blocks of `message`.
fn blocks(message: &Message) -> Vec<ContentBlock> {
    message.content.blocks()
}

/// A result's text, images dropped.
fn result_text(content: &Content) -> String {
    let texts: Vec<String> = content
        .blocks()
        .into_iter()
        .filter_map(|b| match b {
            ContentBlock::Text { text, .. } => Some(text),
            _ => None,
        })
        .collect();
    texts.join("\n")
}

/// Every result block of `blocks` as a text block (R2).
pub(crate) fn results_as_text(blocks: Vec<ContentBlock>) -> Vec<ContentBlock> {
    blocks
        .into_iter()
        .map(|b| match b {
            ContentBlock::ToolResult { content, .. } => ContentBlock::text(result_text(&content)),
            other => other,
        })
        .collect()
}

/// The view of `history` under `plan`, and for each of its messages the history message it is
/// unchanged from (`None` for one the view changed), so that its JSON can be reused.
pub fn view(history: &[Message], plan: &ViewPlan<'_>) -> (Vec<Message>, Vec<Option<usize>>) {
    let mut out: Vec<Message> = Vec::with_capacity(history.len());
    let mut sources: Vec<Option<usize>> = Vec::with_capacity(history.len());
    let from = plan.from.unwrap_or(0);
    // NOTE: a range belongs to the view's head (the task, or a carrier): one made before the
    // newest carrier lies before the view.
    let range = plan.range.filter(|range| range.start == from + 2);
    let cleared = plan.edits.map(|(state, ..)| edit::cleared_set(state)).unwrap_or_default();
    let first_reply_is_user = history.get(from + 1).is_some_and(|m| m.role == Role::User);
    for (i, message) in history.iter().enumerate().skip(from) {
        if range.is_some_and(|r| (r.start..=r.end).contains(&i)) {
            continue;
        }
        let mut changed: Option<Message> = None;
        if i == 0 && plan.task_replaced {
            let mut content = blocks(message);
            if let Some(first) = content.first_mut() {
                *first = ContentBlock::text(super::context_texts::continue_marker().to_owned());
            }
            changed = Some(Message { role: message.role, content: Content::Blocks(content) });
        }
        if let Some(range) = range {
            if i == from + 1 && message.role == Role::Assistant {
                let notice = vec![ContentBlock::text(texts::history_truncated().to_owned())];
                changed = Some(Message { role: Role::Assistant, content: Content::Blocks(notice) });
            } else if i == range.end + 1 {
                let mut content = results_as_text(blocks(message));
                if first_reply_is_user {
                    content.insert(0, ContentBlock::text(texts::history_truncated().to_owned()));
                }
                changed = Some(Message { role: message.role, content: Content::Blocks(content) });
            }
        }
        if plan.from == Some(i) {
            changed = Some(carrier(changed.as_ref().unwrap_or(message)));
        }
        if let Some((state, placeholder, clear_inputs)) = plan.edits {
            let base = changed.as_ref().unwrap_or(message);
            if let Some(edited) = edit::edited(base, i, state, &cleared, placeholder, clear_inputs) {
                changed = Some(edited);
            }
        }
        if plan.thinking_before.is_some_and(|before| i < before) && message.role == Role::Assistant {
            let base = changed.as_ref().unwrap_or(message);
            let content: Vec<ContentBlock> = blocks(base)
                .into_iter()
                .filter(|b| !matches!(b, ContentBlock::Thinking { .. } | ContentBlock::RedactedThinking { .. }))
                .collect();
            changed = Some(Message { role: message.role, content: Content::Blocks(content) });
        }
        match changed {
            Some(message) => {
                out.push(message);
                sources.push(None);
            }
            None => {
                out.push(message.clone());
                sources.push(Some(i));
            }
        }
    }
    for changed in repair(&mut out) {
        if let Some(source) = sources.get_mut(changed) {
            *source = None;
        }
    }
    (out, sources)
}

/// The carrier as the view's first message: with the compaction first (Anthropic), as it is;
/// blocks before an OpenAI compaction item are left out unless one of them is a call (which
/// must keep its result, I2).
fn carrier(message: &Message) -> Message {
    let content = blocks(message);
    let at = content.iter().rposition(|b| matches!(b, ContentBlock::Compaction { .. })).unwrap_or(0);
    let calls_before = content.iter().take(at).any(|b| matches!(b, ContentBlock::ToolUse { .. }));
    let content = if calls_before { content } else { content.into_iter().skip(at).collect() };
    Message { role: message.role, content: Content::Blocks(content) }
}

/// The ids of the calls (assistant) or results (user) in `message`.
fn ids(message: &Message, calls: bool) -> Vec<String> {
    let Content::Blocks(blocks) = &message.content else { return Vec::new() };
    blocks
        .iter()
        .filter_map(|b| match b {
            ContentBlock::ToolUse { id, .. } if calls => Some(id.clone()),
            ContentBlock::ToolResult { tool_use_id, .. } if !calls => Some(tool_use_id.clone()),
            _ => None,
        })
        .collect()
}

/// The repair net (R3): returns the indices of the messages it changed.
pub(crate) fn repair(messages: &mut [Message]) -> Vec<usize> {
    let mut changed = Vec::new();
    let calls: Vec<Vec<String>> =
        messages.iter().map(|m| if m.role == Role::Assistant { ids(m, true) } else { Vec::new() }).collect();
    let results: Vec<Vec<String>> =
        messages.iter().map(|m| if m.role == Role::User { ids(m, false) } else { Vec::new() }).collect();
    let empty = Vec::new();
    for i in 0..messages.len() {
        let asked = if i > 0 { calls.get(i - 1).unwrap_or(&empty) } else { &empty };
        let Some(message) = messages.get_mut(i) else { continue };
        let role = message.role;
        let Content::Blocks(content) = &mut message.content else { continue };
        let mut touched = false;
        for block in content.iter_mut() {
            if let ContentBlock::ToolResult { tool_use_id, content: result, .. } = block {
                if role != Role::User || !asked.contains(tool_use_id) {
                    *block = ContentBlock::text(result_text(result));
                    touched = true;
                }
            }
        }
        if role == Role::Assistant {
            let answered = results.get(i + 1).unwrap_or(&empty);
            let missing: Vec<ContentBlock> = content
                .iter()
                .filter_map(|b| match b {
                    ContentBlock::ToolUse { id, name, .. } if !answered.contains(id) => {
                        Some(ContentBlock::ToolResult {
                            tool_use_id: id.clone(),
                            content: Content::Text(texts::tool_error(&texts::result_unavailable(name))),
                            is_error: true,
                        })
                    }
                    _ => None,
                })
                .collect();
            if !missing.is_empty() {
                if let Some(next) = messages.get_mut(i + 1).filter(|m| m.role == Role::User) {
                    let mut content = missing;
                    content.extend(next.content.blocks());
                    next.content = Content::Blocks(content);
                    changed.push(i + 1);
                }
            }
        }
        if touched {
            changed.push(i);
        }
    }
    changed.sort_unstable();
    changed.dedup();
    changed
}
