//! The history's own repairs: a reply cut off by a failure gets a result for each of its
//! native calls (what requests send is built in [`super::context`]).

use super::texts;
use crate::core::conversation::{Content, ContentBlock, Message, Role};

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
