//! The output items of a Responses stream, keyed by `output_index`, and the small helpers
//! the decoder shares with them (kept out of line: the codec is built for speed, and every
//! inlined copy would cost its size again).

use super::super::chunk::Chunk;
use super::Kind;
use crate::json::Json;

/// One output item and what it has delivered so far; the fields a kind does not use stay
/// empty.
#[derive(Clone, Debug, Default)]
pub(super) struct Slot {
    /// Its `output_index`.
    pub(super) index: u64,
    pub(super) kind: Kind,
    /// Its `.done` came (a repeated one is ignored).
    pub(super) closed: bool,
    /// A message's text, or a call's arguments, delivered so far.
    pub(super) delivered: String,
    /// A message's `phase` of `.added`; a reasoning item's `encrypted_content` of `.added`
    /// (for when `.done` has none); a call's final arguments that came before it could be
    /// announced.
    pub(super) kept: Option<String>,
    /// Reasoning: the part of the latest delta (is a summary part, its index).
    pub(super) part: Option<(bool, u64)>,
    /// A call was announced, with [`Slot::id`] and [`Slot::name`].
    pub(super) announced: bool,
    /// A call's id: its `call_id`, else its `id`, else one made up from its index.
    pub(super) id: String,
    /// A call's name.
    pub(super) name: String,
    /// A call's final arguments were delivered: nothing more is.
    pub(super) settled: bool,
}

/// The item at `index`, added as an item of `kind` when it is not there yet (the items stay
/// sorted by index).
pub(super) fn slot_at(slots: &mut Vec<Slot>, index: u64, kind: Kind) -> Option<&mut Slot> {
    let at = slots.partition_point(|slot| slot.index < index);
    if slots.get(at).map_or(true, |slot| slot.index != index) {
        slots.insert(at, Slot { index, kind, ..Slot::default() });
    }
    slots.get_mut(at)
}

impl Slot {
    /// Delivers a call's final arguments once: nothing when they are what was delivered,
    /// the rest when they extend it, else the whole of them, replacing every piece before.
    pub(super) fn settle(&mut self, arguments: &str, out: &mut Vec<Chunk>) {
        if !self.announced || self.settled {
            return;
        }
        self.settled = true;
        let (piece, whole) = match arguments.strip_prefix(self.delivered.as_str()) {
            Some(rest) => (rest, false),
            None => (arguments, true),
        };
        if !piece.is_empty() || whole {
            let mut chunk = Chunk::tool_call(&self.id, Some(&self.name), Some(piece));
            if let Chunk::ToolCalls { tool_call } = &mut chunk {
                tool_call.whole = whole;
            }
            emit(out, chunk);
        }
        arguments.clone_into(&mut self.delivered);
    }
}

/// The content or summary parts in `parts` (a JSON array) whose `type` is one of `kinds`
/// (or is missing, when `untyped`): their texts joined by `separator`, each of them, and
/// whether one of them is of the second kind (a message's refusal).
pub(super) fn texts(
    parts: Option<&Json>,
    kinds: &[&str],
    untyped: bool,
    separator: &str,
) -> (String, Vec<String>, bool) {
    let (mut joined, mut each, mut second) = (String::new(), Vec::new(), false);
    for part in parts.and_then(Json::as_array).unwrap_or_default() {
        let Some(members) = part.as_object() else { continue };
        let at = match string(part, "type") {
            Some(kind) => pick(kinds, kind),
            None if untyped => 0,
            None => kinds.len(),
        };
        if at >= kinds.len() {
            continue;
        }
        second |= at == 1;
        // Its first `text` or `refusal` string (a refusal's text is its `refusal`).
        let text = members.iter().find_map(|(key, value)| match key.as_str() {
            "text" | "refusal" => value.as_str(),
            _ => None,
        });
        let text = text.unwrap_or_default();
        if !each.is_empty() {
            append(&mut joined, separator);
        }
        append(&mut joined, text);
        each.push(owned(text));
    }
    (joined, each, second)
}

/// The count `key` of the object `outer` of a usage (of the usage itself when `outer` is
/// empty).
pub(super) fn count(usage: &Json, outer: &str, key: &str) -> Option<u64> {
    let outer = if outer.is_empty() { Some(usage) } else { usage.get(outer) };
    outer?.get(key)?.as_u64()
}

/// `text` as a `String`.
// NOTE: not inlined, nor are `emit` and `append`: one copy of the allocation and of the
// growth in the wasm instead of one at each use (measured: about 400 B gzipped).
#[inline(never)]
pub(super) fn owned(text: &str) -> String {
    text.to_owned()
}

/// Appends `chunk` to `out`.
#[inline(never)]
pub(super) fn emit(out: &mut Vec<Chunk>, chunk: Chunk) {
    out.push(chunk);
}

/// Appends `text` to `to`.
#[inline(never)]
pub(super) fn append(to: &mut String, text: &str) {
    to.push_str(text);
}

/// The place of `name` in `names`, else `names.len()`.
// NOTE: not inlined: a loop over a table is much smaller than a `match` on strings (about
// 500 B gzipped for the event types). The members of every event are still matched in the
// reader's closure: a call there for each member costs 8% of the decoding time.
#[inline(never)]
pub(super) fn pick(names: &[&str], name: &str) -> usize {
    names.iter().position(|n| *n == name).unwrap_or(names.len())
}

/// The string member `key` of an object.
pub(super) fn string<'a>(value: &'a Json, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Json::as_str)
}

/// Takes the member `key` out of an object (the last one when repeated), `null` when missing.
pub(super) fn take(value: &mut Json, key: &str) -> Json {
    match value {
        Json::Object(members) => {
            members.iter_mut().rev().find(|(k, _)| k == key).map(|(_, v)| std::mem::take(v)).unwrap_or_default()
        }
        _ => Json::Null,
    }
}
