//! The edit pre-pass (CONTEXT §5): old tool results and reasoning left out of what requests
//! send, the newest kept, every call still paired with its result. A pure function of the
//! history, the previous state and the settings; its state is sticky (what was cleared stays
//! cleared), so the cached prefix of the requests breaks once per pass, never every round.

use serde::{Deserialize, Serialize};

use super::config::EditConfig;
use crate::core::conversation::{Content, ContentBlock, Message, Role};
use crate::core::hash::StrMap;
use crate::core::stream::Format;

/// What the edit passes cleared so far.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EditState {
    /// The results that are cleared, oldest first, each as `"<index of the history message
    /// holding it>:<call id>"` (call ids alone are not unique: Gemini's made-up ids restart
    /// at every reply).
    pub cleared: Vec<String>,
    /// Reasoning of the assistant messages before this history index is not sent.
    pub thinking_before: usize,
}

/// The key of the result of call `id` in history message `at`.
pub(super) fn result_key(at: usize, id: &str) -> String {
    let mut key = at.to_string();
    key.push(':');
    key.push_str(id);
    key
}

/// The blocks of `message` (none for plain text).
fn blocks(message: &Message) -> &[ContentBlock] {
    match &message.content {
        Content::Blocks(blocks) => blocks,
        Content::Text(_) => &[],
    }
}

/// Characters of a result's text (its estimated size is a quarter of it in tokens).
fn result_chars(content: &Content) -> usize {
    match content {
        Content::Text(text) => text.len(),
        Content::Blocks(blocks) => blocks
            .iter()
            .map(|b| match b {
                ContentBlock::Text { text, .. } => text.len(),
                _ => 0,
            })
            .sum(),
    }
}

/// One pass over the messages from `from` (the first one requests send after the task):
/// the results of all but the newest `keepToolUses` calls are cleared (unless their tool is
/// excluded), and the reasoning of all but the newest `keepThinkingTurns` assistant messages
/// (never on Gemini, whose signatures must go back). Returns the new state and the estimated
/// tokens it saves over `previous`; a pass that saves fewer than `clearAtLeast` returns
/// `previous` unchanged.
pub fn edit_pass(
    history: &[Message],
    from: usize,
    previous: &EditState,
    config: &EditConfig,
    format: Format,
) -> (EditState, u64) {
    let mut next = previous.clone();
    let mut saved = 0usize;
    // The calls in order, by the key of their result (in the next message), with their
    // tool's name; the results by key, with their size.
    let mut calls: Vec<(String, &str)> = Vec::new();
    let mut sizes = StrMap::default();
    for (at, message) in history.iter().enumerate().skip(from) {
        for block in blocks(message) {
            match block {
                ContentBlock::ToolUse { id, name, .. } => calls.push((result_key(at + 1, id), name)),
                ContentBlock::ToolResult { tool_use_id, content, .. } => {
                    sizes.insert(result_key(at, tool_use_id).as_bytes(), result_chars(content));
                }
                _ => {}
            }
        }
    }
    let done = cleared_set(previous);
    let keep = usize::try_from(config.keep_tool_uses).unwrap_or(usize::MAX);
    let older = calls.len().saturating_sub(keep);
    for (key, name) in calls.into_iter().take(older) {
        if config.exclude_tools.iter().any(|t| t == name) || done.contains_key(key.as_bytes()) {
            continue;
        }
        let Some(size) = sizes.get(key.as_bytes()) else { continue };
        next.cleared.push(key);
        saved += size;
    }
    if let (Some(turns), false) = (config.keep_thinking_turns, format == Format::Gemini) {
        let assistants: Vec<usize> =
            (from..history.len()).filter(|&i| history.get(i).is_some_and(|m| m.role == Role::Assistant)).collect();
        let keep = usize::try_from(turns).unwrap_or(usize::MAX).max(1);
        if let Some(&first_kept) = assistants.len().checked_sub(keep).and_then(|at| assistants.get(at)) {
            for message in history.iter().take(first_kept).skip(next.thinking_before.max(from)) {
                saved += blocks(message)
                    .iter()
                    .map(|b| match b {
                        ContentBlock::Thinking { thinking, encrypted_content, .. } => {
                            thinking.len() + encrypted_content.as_ref().map_or(0, String::len)
                        }
                        ContentBlock::RedactedThinking { data } => data.len(),
                        _ => 0,
                    })
                    .sum::<usize>();
            }
            next.thinking_before = next.thinking_before.max(first_kept);
        }
    }
    let saved = (saved / 4) as u64;
    if saved < config.clear_at_least.max(1) {
        return (previous.clone(), 0);
    }
    (next, saved)
}

/// The cleared call ids of `state` as a set, for [`edited`] (built once per request).
pub(super) fn cleared_set(state: &EditState) -> StrMap {
    let mut set = StrMap::default();
    for (at, id) in state.cleared.iter().enumerate() {
        set.insert(id.as_bytes(), at);
    }
    set
}
