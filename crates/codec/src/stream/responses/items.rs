//! The output items of a Responses stream, keyed by `output_index`, and what each has
//! delivered so far: a message's text, a reasoning item's parts, a call's arguments.

use super::super::chunk::{Chunk, ToolCall, ToolCallFunction};
use super::wire::Item;

/// One output item.
#[derive(Clone, Debug)]
pub(super) struct Slot {
    /// Its `output_index`.
    pub(super) index: u64,
    /// Its `.done` came (a repeated one is ignored).
    pub(super) closed: bool,
    pub(super) state: SlotState,
}

/// What an output item has delivered so far, by kind.
#[derive(Clone, Debug)]
pub(super) enum SlotState {
    Message {
        /// The `phase` of `.added`.
        phase: Option<String>,
        /// The text delivered, to deliver only the rest of the `.done` text.
        delivered: String,
    },
    Reasoning {
        /// The `encrypted_content` of `.added`, for when `.done` has none.
        encrypted_content: Option<String>,
        /// The part of the latest reasoning delivered: (is a summary part, its index).
        part: Option<(bool, u64)>,
    },
    Call(Call),
    /// An item kept whole when it is done.
    Other,
}

/// A `function_call` item.
#[derive(Clone, Debug, Default)]
pub(super) struct Call {
    /// The call's id and name, once announced.
    pub(super) announced: Option<(String, String)>,
    /// The arguments delivered.
    pub(super) delivered: String,
    /// Final arguments that came before the call could be announced.
    pub(super) final_arguments: Option<String>,
    /// The final arguments were delivered: nothing more is.
    pub(super) settled: bool,
}

impl SlotState {
    /// The empty state of an item of type `kind`.
    pub(super) fn new(kind: &str) -> Self {
        match kind {
            "message" => Self::Message { phase: None, delivered: String::new() },
            "reasoning" => Self::Reasoning { encrypted_content: None, part: None },
            "function_call" => Self::Call(Call::default()),
            _ => Self::Other,
        }
    }

    /// Whether the state is the one of an item of type `kind`.
    pub(super) fn is(&self, kind: &str) -> bool {
        std::mem::discriminant(self) == std::mem::discriminant(&Self::new(kind))
    }
}

/// The item at `index`, added with `new` when it is not there yet.
pub(super) fn slot_at(slots: &mut Vec<Slot>, index: u64, new: impl FnOnce() -> SlotState) -> Option<&mut Slot> {
    // Most events are about the latest item.
    let at = match slots.last() {
        Some(last) if last.index == index => slots.len() - 1,
        _ => match slots.binary_search_by_key(&index, |slot| slot.index) {
            Ok(at) => at,
            Err(at) => {
                slots.insert(at, Slot { index, closed: false, state: new() });
                at
            }
        },
    };
    slots.get_mut(at)
}

/// The call id of a `function_call` item: its `call_id`, else its id, else one made up.
pub(super) fn call_id(item: &mut Item, index: u64) -> String {
    item.call_id.take().or_else(|| item.id.take()).unwrap_or_else(|| format!("call_{index}"))
}

impl Call {
    /// Announces the call, with its first arguments when it has some.
    pub(super) fn announce(&mut self, id: String, name: String, arguments: Option<&str>, out: &mut Vec<Chunk>) {
        let arguments = arguments.filter(|a| !a.is_empty());
        out.push(Chunk::tool_call(&id, Some(&name), arguments));
        self.delivered.push_str(arguments.unwrap_or_default());
        self.announced = Some((id, name));
    }

    /// Delivers the final arguments once: nothing when they are what was delivered, the
    /// rest when they extend it, else the whole of them, replacing every piece before.
    pub(super) fn settle(&mut self, arguments: &str, out: &mut Vec<Chunk>) {
        let Some((id, name)) = self.announced.as_ref().filter(|_| !self.settled) else { return };
        self.settled = true;
        match arguments.strip_prefix(self.delivered.as_str()) {
            Some("") => {}
            Some(rest) => out.push(Chunk::tool_call(id, Some(name), Some(rest))),
            None => out.push(Chunk::ToolCalls {
                tool_call: ToolCall {
                    call_id: Some(id.clone()),
                    function: ToolCallFunction {
                        id: Some(id.clone()),
                        name: Some(name.clone()),
                        arguments: Some(arguments.to_owned()),
                    },
                    signature: None,
                    whole: true,
                },
            }),
        }
        arguments.clone_into(&mut self.delivered);
    }
}
