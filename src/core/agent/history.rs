//! The model-facing conversation: what each request sends, truncation to fit the context
//! window (AGENT-LOOP §13.3, §13.5), and the pairing of native tool calls with their results.

use crate::core::hash::StrMap;

use serde::{Deserialize, Serialize};

use super::texts;
use crate::core::conversation::{Content, ContentBlock, Message, Role};

/// How much of the middle of the history a truncation removes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Truncation {
    /// Half of the messages after the first exchange.
    Half,
    /// Three quarters of them.
    Quarter,
}

/// Messages removed from what requests send, `[start, end]` inclusive; the history itself
/// keeps everything (the user still sees it all).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeletedRange {
    /// First removed index (always 2: the first exchange is kept).
    pub start: usize,
    /// Last removed index (an assistant message).
    pub end: usize,
}

/// The next deleted range: keeps the first user/assistant exchange and removes `how` much of
/// what follows the current range, in whole user/assistant pairs, ending on an assistant
/// message. `None` when nothing more can be removed.
pub fn next_truncation(history: &[Message], current: Option<DeletedRange>, how: Truncation) -> Option<DeletedRange> {
    let rest_start = current.map_or(2, |range| range.end + 1);
    let rest = history.len().checked_sub(rest_start)?;
    let remove = match how {
        Truncation::Half => rest / 2,
        Truncation::Quarter => rest * 3 / 4,
    };
    let remove = remove / 2 * 2;
    if remove == 0 {
        return current;
    }
    let mut end = rest_start + remove - 1;
    while end >= rest_start && history.get(end).is_some_and(|m| m.role != Role::Assistant) {
        end -= 1;
    }
    if end < rest_start {
        return current;
    }
    Some(DeletedRange { start: 2, end })
}

/// What a request sends: the history without the deleted range (with a notice where the gap
/// is), every native tool call paired with its result or turned into text.
pub fn request_messages(history: &[Message], range: Option<DeletedRange>) -> Vec<Message> {
    request_messages_sourced(history, range).0
}

/// [`request_messages`], and for each message the index of the history message it is
/// unchanged from (`None` for a message the request changed), so that its JSON can be reused.
pub(crate) fn request_messages_sourced(
    history: &[Message],
    range: Option<DeletedRange>,
) -> (Vec<Message>, Vec<Option<usize>>) {
    let mut out: Vec<Message> = Vec::with_capacity(history.len());
    let mut sources = Vec::with_capacity(history.len());
    for (i, message) in history.iter().enumerate() {
        if let Some(range) = range {
            if (range.start..=range.end).contains(&i) {
                continue;
            }
            if i == range.end + 1 {
                let mut blocks = vec![ContentBlock::text(texts::history_truncated().to_owned())];
                blocks.extend(message.content.blocks());
                out.push(Message { role: message.role, content: Content::Blocks(blocks) });
                sources.push(None);
                continue;
            }
        }
        out.push(message.clone());
        sources.push(Some(i));
    }
    for changed in pair_tool_calls(&mut out) {
        if let Some(source) = sources.get_mut(changed) {
            *source = None;
        }
    }
    (out, sources)
}

/// A set of ids. NOTE: a map to the block's place rather than a set, because the decoders
/// already link this map's code.
type Ids = StrMap;

/// The ids `pick` finds in the blocks of `message`.
fn ids(message: &Message, pick: fn(&ContentBlock) -> Option<&String>) -> Ids {
    let mut ids = Ids::default();
    if let Content::Blocks(blocks) = &message.content {
        for (at, id) in blocks.iter().enumerate().filter_map(|(at, b)| Some((at, pick(b)?))) {
            ids.insert(id.as_bytes(), at);
        }
    }
    ids
}

/// The ids of the tool calls in `message`.
fn call_ids(message: &Message) -> Ids {
    ids(message, |b| match b {
        ContentBlock::ToolUse { id, .. } => Some(id),
        _ => None,
    })
}

/// The call ids that the tool results in `message` answer.
fn result_ids(message: &Message) -> Ids {
    ids(message, |b| match b {
        ContentBlock::ToolResult { tool_use_id, .. } => Some(tool_use_id),
        _ => None,
    })
}

/// Turns tool_use blocks without a result in the next user message, and tool_result blocks
/// without a call in the previous assistant message, into text: providers reject both.
/// Returns the indices of the messages it changed.
fn pair_tool_calls(messages: &mut [Message]) -> Vec<usize> {
    let mut changed = Vec::new();
    let calls: Vec<Ids> = messages.iter().map(call_ids).collect();
    let results: Vec<Ids> = messages.iter().map(result_ids).collect();
    let empty = Ids::default();
    for (i, message) in messages.iter_mut().enumerate() {
        let Content::Blocks(blocks) = &mut message.content else { continue };
        let answered = if message.role == Role::Assistant { results.get(i + 1) } else { None };
        let asked = if message.role == Role::User && i > 0 { calls.get(i - 1) } else { None };
        let (answered, asked) = (answered.unwrap_or(&empty), asked.unwrap_or(&empty));
        for block in blocks.iter_mut() {
            let text = match block {
                ContentBlock::ToolUse { id, name, input, .. }
                    if message.role != Role::Assistant || !answered.contains_key(id.as_bytes()) =>
                {
                    format!("[called {name} with {}]", input.to_string())
                }
                ContentBlock::ToolResult { tool_use_id, content, .. }
                    if message.role != Role::User || !asked.contains_key(tool_use_id.as_bytes()) =>
                {
                    let body: Vec<String> = content
                        .blocks()
                        .into_iter()
                        .filter_map(|b| match b {
                            ContentBlock::Text { text, .. } => Some(text),
                            _ => None,
                        })
                        .collect();
                    body.join("\n")
                }
                _ => continue,
            };
            *block = ContentBlock::text(text);
            if changed.last() != Some(&i) {
                changed.push(i);
            }
        }
    }
    changed
}

/// After a failure mid-stream: each native call of `reply` (the stored assistant turn) that
/// has no result in `content` (it never ran: a native call runs once the reply has ended)
/// gets one saying so, first in `content`, so that every request pairs each call with its
/// result.
pub(crate) fn answer_cut_off_calls(reply: Option<&Message>, content: &mut Vec<ContentBlock>) {
    let Some(Content::Blocks(reply)) = reply.filter(|m| m.role == Role::Assistant).map(|m| &m.content) else {
        return;
    };
    let mut results = Vec::new();
    for block in reply {
        let ContentBlock::ToolUse { id, name, .. } = block else { continue };
        let answered =
            content.iter().any(|b| matches!(b, ContentBlock::ToolResult { tool_use_id, .. } if tool_use_id == id));
        if !answered {
            results.push(ContentBlock::ToolResult {
                tool_use_id: id.clone(),
                content: Content::Text(texts::tool_error(&texts::cut_off_call(name))),
                is_error: true,
            });
        }
    }
    results.append(content);
    *content = results;
}

/// The context budget of a model: above it, the history is truncated before the request.
pub fn max_allowed_tokens(context_window: Option<u64>) -> u64 {
    let window = context_window.filter(|w| *w > 0).unwrap_or(128_000);
    match window {
        64_000 => window - 27_000,
        128_000 => window - 30_000,
        200_000 => window - 40_000,
        _ => window.saturating_sub(40_000).max(window / 5 * 4),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::json::Json;

    fn text(role: Role, text: &str) -> Message {
        Message { role, content: Content::Text(text.into()) }
    }

    fn conversation(pairs: usize) -> Vec<Message> {
        (0..pairs).flat_map(|i| [text(Role::User, &format!("u{i}")), text(Role::Assistant, &format!("a{i}"))]).collect()
    }

    #[test]
    fn truncation_keeps_the_first_exchange_and_removes_whole_pairs() {
        let history = conversation(10);
        let range = next_truncation(&history, None, Truncation::Quarter);
        assert_eq!(range, Some(DeletedRange { start: 2, end: 13 }));
        let half = next_truncation(&history, None, Truncation::Half);
        assert_eq!(half, Some(DeletedRange { start: 2, end: 9 }));
        let sent = request_messages(&history, range);
        assert_eq!(sent.len(), 8);
        assert_eq!(sent.get(2).map(|m| m.role), Some(Role::User));
    }

    #[test]
    fn truncation_is_cumulative() {
        let history = conversation(20);
        let first = next_truncation(&history, None, Truncation::Half);
        let second = next_truncation(&history, first, Truncation::Half);
        assert!(second.unwrap().end > first.unwrap().end);
    }

    #[test]
    fn a_tool_use_is_never_split_from_its_result() {
        let call = ContentBlock::ToolUse {
            id: "t1".into(),
            name: "read".into(),
            input: Json::object().with("path", "a"),
            signature: None,
        };
        let result =
            ContentBlock::ToolResult { tool_use_id: "t1".into(), content: Content::Text("ok".into()), is_error: false };
        let history = vec![
            text(Role::User, "task"),
            Message { role: Role::Assistant, content: Content::Blocks(vec![call]) },
            Message { role: Role::User, content: Content::Blocks(vec![result]) },
            text(Role::Assistant, "a1"),
            text(Role::User, "u2"),
            text(Role::Assistant, "a2"),
        ];
        let sent = request_messages(&history, Some(DeletedRange { start: 2, end: 3 }));
        let has_tool_use = sent.iter().any(|m| !call_ids(m).is_empty());
        assert!(!has_tool_use, "the call lost its result, so it became text");
        let kept = request_messages(&history, None);
        assert_eq!(kept, history);
    }

    #[test]
    fn context_budget_per_window() {
        assert_eq!(max_allowed_tokens(Some(200_000)), 160_000);
        assert_eq!(max_allowed_tokens(None), 98_000);
        assert_eq!(max_allowed_tokens(Some(64_000)), 37_000);
        assert_eq!(max_allowed_tokens(Some(1_000_000)), 960_000);
    }
}
