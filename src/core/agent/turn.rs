//! The assistant turn as the provider sent it: reasoning, text parts, native calls and
//! opaque items in the order they came, with what each must be sent back with (signatures,
//! encrypted reasoning, a message's phase). The history's assistant message is built from
//! it when the reply stops delivering.
//!
//! Text is not copied here: a text part is a range of the parser's text (which holds the
//! whole reply text, for the tag parser), from its first byte to the next text part's.

use crate::core::conversation::ContentBlock;
use crate::core::json::Json;
use crate::core::stream::{Format, NativeToolCall};

/// One part of the reply, in arrival order.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Part {
    /// Reasoning: one thinking block, reasoning item or thought part (a
    /// [`ContentBlock::Thinking`]), or redacted reasoning or an opaque item kept as it came.
    /// `open` while later reasoning chunks still add to it.
    Block {
        /// The block so far.
        block: ContentBlock,
        /// Whether reasoning chunks still extend it.
        open: bool,
    },
    /// Reply text from byte `from` of the parser's text up to the next text part (or the end).
    Text {
        /// Where the part starts in the reply text.
        from: usize,
        /// Gemini: the part's `thoughtSignature`.
        signature: Option<String>,
        /// OpenAI Responses: the message item's `phase`.
        phase: Option<String>,
        /// Whether more text joins it (a `text_end` chunk closes it).
        open: bool,
    },
    /// The assembler's native call `n`.
    Call(usize),
}

/// Adds reasoning text and what closes it (a signature, encrypted content, a summary).
pub(crate) fn add_reasoning(
    parts: &mut Vec<Part>,
    text: &str,
    signature: Option<String>,
    encrypted_content: Option<String>,
    summary: Option<Vec<String>>,
) {
    let closes = signature.is_some() || encrypted_content.is_some() || summary.is_some();
    if text.is_empty() && !closes {
        return;
    }
    let open_block = match parts.last_mut() {
        Some(Part::Block { block: block @ ContentBlock::Thinking { .. }, open: true }) => Some(block),
        _ => None,
    };
    let block = match open_block {
        Some(block) => block,
        None => {
            parts.push(Part::Block {
                block: ContentBlock::Thinking {
                    thinking: String::new(),
                    signature: None,
                    encrypted_content: None,
                    summary: None,
                },
                open: true,
            });
            match parts.last_mut() {
                Some(Part::Block { block, .. }) => block,
                _ => return,
            }
        }
    };
    if let ContentBlock::Thinking { thinking, signature: s, encrypted_content: e, summary: p } = block {
        thinking.push_str(text);
        if signature.is_some() {
            *s = signature;
        }
        if encrypted_content.is_some() {
            *e = encrypted_content;
        }
        if summary.is_some() {
            *p = summary;
        }
    }
    if closes {
        close_reasoning(parts);
    }
}

/// Closes the open reasoning block, if any: the next reasoning starts a block of its own.
fn close_reasoning(parts: &mut [Part]) {
    if let Some(Part::Block { open, .. }) = parts.last_mut() {
        *open = false;
    }
}

/// Adds a block kept as it came (redacted reasoning, an opaque item).
pub(crate) fn add_block(parts: &mut Vec<Part>, block: ContentBlock) {
    close_reasoning(parts);
    parts.push(Part::Block { block, open: false });
}

/// Notes that text starts at byte `at` of the reply text: it joins the open text part, or
/// starts one.
pub(crate) fn add_text(parts: &mut Vec<Part>, at: usize) {
    let open_text = parts.iter().rev().find_map(|part| match part {
        Part::Text { open, .. } => Some(*open),
        _ => None,
    });
    if open_text != Some(true) {
        close_reasoning(parts);
        parts.push(Part::Text { from: at, signature: None, phase: None, open: true });
    }
}

/// Ends the open text part with what it is sent back with; with no open text part, the
/// part is one of its own with empty text starting at byte `at`.
pub(crate) fn end_text(parts: &mut Vec<Part>, at: usize, signature: Option<String>, phase: Option<String>) {
    let last_text = parts.iter_mut().rev().find(|part| matches!(part, Part::Text { .. }));
    if let Some(Part::Text { open: open @ true, signature: s, phase: p, .. }) = last_text {
        *open = false;
        *s = signature;
        *p = phase;
    } else if signature.is_some() || phase.is_some() {
        close_reasoning(parts);
        parts.push(Part::Text { from: at, signature, phase, open: false });
    }
}

/// Notes native call `n` (its first piece just came).
pub(crate) fn add_call(parts: &mut Vec<Part>, n: usize) {
    close_reasoning(parts);
    parts.push(Part::Call(n));
}

/// The turn's parts as history blocks, in order. `text` is the whole reply text, `marker`
/// is appended to the last text (a part of its own before the first call when there is no
/// text); `input` turns a native call into its arguments object.
pub(crate) fn blocks(
    parts: &[Part],
    text: &str,
    marker: Option<&str>,
    calls: &[NativeToolCall],
    input: impl Fn(&NativeToolCall) -> Json,
) -> Vec<ContentBlock> {
    let mut starts = Vec::new();
    for part in parts {
        if let Part::Text { from, .. } = part {
            starts.push(*from);
        }
    }
    let last_text = parts.iter().rposition(|part| matches!(part, Part::Text { .. }));
    let mut blocks = Vec::with_capacity(parts.len() + 1);
    let mut texts_seen = 0;
    // The marker goes on the last text; with none, before the first call (or at the end).
    let mut marked = marker.is_none() || last_text.is_some();
    for (at, part) in parts.iter().enumerate() {
        match part {
            Part::Block { block, .. } => {
                let keep = match block {
                    ContentBlock::Thinking { thinking, signature, encrypted_content, summary } => {
                        !thinking.is_empty() || signature.is_some() || encrypted_content.is_some() || summary.is_some()
                    }
                    _ => true,
                };
                if keep {
                    blocks.push(block.clone());
                }
            }
            Part::Text { from, signature, phase, .. } => {
                texts_seen += 1;
                let to = starts.get(texts_seen).copied().unwrap_or(text.len());
                let mut piece = text.get(*from..to.max(*from)).unwrap_or_default().to_owned();
                if Some(at) == last_text {
                    piece.push_str(marker.unwrap_or_default());
                }
                // NOTE: blank text is not worth a block, unless the provider needs it back.
                if !piece.trim().is_empty() || signature.is_some() || phase.is_some() {
                    blocks.push(ContentBlock::Text { text: piece, signature: signature.clone(), phase: phase.clone() });
                }
            }
            Part::Call(n) => {
                if let Some(call) = calls.get(*n) {
                    if !marked {
                        blocks.push(ContentBlock::text(marker.unwrap_or_default().to_owned()));
                        marked = true;
                    }
                    blocks.push(ContentBlock::ToolUse {
                        id: call.id.clone(),
                        name: call.name.clone(),
                        input: input(call),
                        signature: call.signature.clone(),
                    });
                }
            }
        }
    }
    if !marked {
        blocks.push(ContentBlock::text(marker.unwrap_or_default().to_owned()));
    }
    blocks
}

/// The parts a format-2 snapshot's round implies: its redacted reasoning, its reasoning
/// (one block, with the signature), its text from the start, then its native calls: the
/// order format 2's history had.
pub(crate) fn from_format_2(
    reasoning: &str,
    signature: Option<String>,
    redacted: Vec<String>,
    calls: usize,
) -> Vec<Part> {
    let mut parts = Vec::with_capacity(redacted.len() + 2 + calls);
    for data in redacted {
        parts.push(Part::Block { block: ContentBlock::RedactedThinking { data }, open: false });
    }
    if !reasoning.is_empty() {
        let block = ContentBlock::Thinking {
            thinking: reasoning.to_owned(),
            signature,
            encrypted_content: None,
            summary: None,
        };
        parts.push(Part::Block { block, open: true });
    }
    parts.push(Part::Text { from: 0, signature: None, phase: None, open: true });
    for call in 0..calls {
        parts.push(Part::Call(call));
    }
    parts
}

/// An opaque item of `format` as a history block.
pub(crate) fn item(format: Format, item: Json) -> ContentBlock {
    ContentBlock::Item { format, item }
}
