//! The snapshot's part of a round's reply: its native calls, its parts as the provider sent
//! them (format 3 on), and the blocks in presentation order.

use crate::core::conversation::ContentBlock;
use crate::core::json::write_u64;
use crate::core::stream::{ToolCall, ToolCallFunction};

use super::super::round_state::{Item, Round};
use super::super::tags::tags;
use super::super::turn::Part;
use super::visit::{index, variant, Visit};

/// The reply's native calls: written from the assembler, read into `saved_natives`.
pub(super) fn natives(v: &mut dyn Visit, round: &mut Round) {
    let mut calls: Vec<([String; 3], Option<String>)> = Vec::new();
    for call in round.natives.calls() {
        calls.push(([call.id.clone(), call.name.clone(), call.arguments.raw().to_owned()], call.signature.clone()));
    }
    let mut count = calls.len();
    v.begin_list("natives", &mut count);
    calls.resize_with(count, Default::default);
    for (i, ([id, name, arguments], signature)) in calls.iter_mut().enumerate() {
        v.item(i);
        v.text("id", id);
        v.text("name", name);
        v.text("arguments", arguments);
        if v.version() >= 3 {
            v.optional_text("signature", signature);
        }
        v.end();
    }
    v.end();
    if v.reading() {
        for ([id, name, arguments], signature) in calls {
            let function = ToolCallFunction { id: Some(id.clone()), name: Some(name), arguments: Some(arguments) };
            round.saved_natives.push(ToolCall { call_id: Some(id), function, signature, whole: false });
        }
    }
}

tags!(Part {
    "block" => Part::Block { .. } = Part::Block { block: ContentBlock::text(String::new()), open: false },
    "text" => Part::Text { .. } = Part::Text { from: 0, signature: None, phase: None, open: false },
    "call" => Part::Call(_) = Part::Call(0),
});

/// The reply's parts (format 3 on).
pub(super) fn parts(v: &mut dyn Visit, parts: &mut Vec<Part>) {
    let mut count = parts.len();
    v.begin_list("parts", &mut count);
    parts.resize_with(count, || Part::Call(0));
    for (i, part) in parts.iter_mut().enumerate() {
        v.item(i);
        variant(v, "kind", part);
        match part {
            Part::Block { block, open } => {
                let mut blocks = vec![block.clone()];
                v.blocks("block", &mut blocks);
                v.flag("open", open);
                if let (true, Some(read)) = (v.reading(), blocks.pop()) {
                    *block = read;
                }
            }
            Part::Text { from, signature, phase, open } => {
                index(v, "from", from);
                v.optional_text("signature", signature);
                v.optional_text("phase", phase);
                v.flag("open", open);
            }
            Part::Call(n) => index(v, "call", n),
        }
        v.end();
    }
    v.end();
}

/// Blocks in presentation order, as `p<n>` (parser block) and `n<n>` (native call).
pub(super) fn items(v: &mut dyn Visit, round: &mut Round) {
    let mut texts = Vec::new();
    for item in &round.items {
        // NOTE: without `format!`, whose machinery was a sixth of the cost of writing the state.
        let (letter, n) = match item {
            Item::Parsed(n) => ('p', n),
            Item::Native(n) => ('n', n),
        };
        let mut code = String::with_capacity(4);
        code.push(letter);
        write_u64(&mut code, *n as u64);
        texts.push(code);
    }
    v.strings("items", &mut texts);
    if v.reading() {
        round.items.clear();
        for text in &texts {
            let number = text
                .get(1..)
                .and_then(|rest| crate::core::text::digits(rest).and_then(|n| usize::try_from(n).ok()))
                .unwrap_or(usize::MAX);
            round.items.push(match text.get(..1) {
                Some("n") => Item::Native(number),
                Some("p") => Item::Parsed(number),
                _ => Item::Parsed(usize::MAX),
            });
        }
    }
}
