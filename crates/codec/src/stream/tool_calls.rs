//! Native tool calls assembled from their streamed pieces.
//!
//! Pieces of one call share an id; their argument text is read by a [`PartialJsonObject`],
//! so the parameters known so far are available at any point of the stream.

use crate::hash::StrMap;

use super::chunk::ToolCall;
use super::partial_json::PartialJsonObject;

/// One native tool call, as far as it has arrived.
#[derive(Clone, Debug)]
pub struct NativeToolCall {
    /// The provider's id of the call.
    pub id: String,
    /// The tool's name (empty until a piece names it).
    pub name: String,
    /// The arguments read so far.
    pub arguments: PartialJsonObject,
    /// Gemini: the call's `thoughtSignature`.
    pub signature: Option<String>,
}

/// Collects the pieces of every native tool call of one reply, in order of first piece.
#[derive(Clone, Debug, Default)]
pub struct ToolCallAssembler {
    calls: Vec<NativeToolCall>,
    /// Where each id sits in `calls`, so many calls cost linear time.
    positions: StrMap,
}

impl ToolCallAssembler {
    /// An empty assembler.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a piece; returns the index of the call it belongs to. A piece without any id
    /// belongs to the latest call; a [`whole`](ToolCall::whole) piece replaces its arguments.
    pub fn push(&mut self, piece: &ToolCall) -> usize {
        let function = &piece.function;
        let id = function.id.as_deref().or(piece.call_id.as_deref());
        let index = match id {
            Some(id) => match self.positions.get(id.as_bytes()) {
                Some(index) => index,
                None => self.open(id),
            },
            None if self.calls.is_empty() => self.open(""),
            None => self.calls.len() - 1,
        };
        if let Some(call) = self.calls.get_mut(index) {
            if let Some(name) = function.name.as_deref().filter(|n| !n.is_empty()) {
                if call.name.is_empty() {
                    call.name = name.to_owned();
                }
            }
            if let Some(signature) = piece.signature.as_deref().filter(|s| !s.is_empty()) {
                call.signature = Some(signature.to_owned());
            }
            if piece.whole {
                call.arguments = PartialJsonObject::new();
            }
            if let Some(arguments) = &function.arguments {
                call.arguments.push(arguments);
            }
        }
        index
    }

    fn open(&mut self, id: &str) -> usize {
        self.positions.insert(id.as_bytes(), self.calls.len());
        self.calls.push(NativeToolCall {
            id: id.to_owned(),
            name: String::new(),
            arguments: PartialJsonObject::new(),
            signature: None,
        });
        self.calls.len() - 1
    }

    /// The calls, in order of their first piece.
    pub fn calls(&self) -> &[NativeToolCall] {
        &self.calls
    }
}
