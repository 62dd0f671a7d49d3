//! The parser's output: text and tool-use blocks.
//!
//! Two forms: [`RawBlock`] holds byte spans into the message text and tool-set ids (what the
//! parser builds and keeps, so no string is copied while streaming), and [`Block`] owns its
//! strings (what [`parse_assistant_message`](super::parse_assistant_message) returns).
//! [`BlockRef`] reads a raw block as strings without copying.

use super::span::Span;
use super::tool_set::{ParamId, ToolId, ToolSet};

/// A parsed block in span form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RawBlock {
    /// Free text between tool calls, trimmed.
    Text {
        /// The trimmed text.
        content: Span,
        /// Whether more text may still extend it (always true for the last text block).
        partial: bool,
    },
    /// A tool call written as tags.
    ToolUse(RawToolUse),
}

/// A tool call in span form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawToolUse {
    /// Which tool.
    pub tool: ToolId,
    /// Parameters in first-seen order; a repeated parameter overwrites its value in place.
    pub params: Vec<RawParam>,
    /// Whether the closing tag has not arrived yet.
    pub partial: bool,
}

/// One parameter of a [`RawToolUse`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawParam {
    /// Which parameter.
    pub name: ParamId,
    /// The trimmed value.
    pub value: Span,
}

impl RawToolUse {
    /// Sets `name` to `value`, keeping the position of an earlier value of the same name.
    pub(crate) fn set_param(&mut self, name: ParamId, value: Span) {
        match self.params.iter_mut().find(|param| param.name == name) {
            Some(param) => param.value = value,
            None => self.params.push(RawParam { name, value }),
        }
    }
}

/// A parsed block owning its strings, shaped like the reference parser's output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Block {
    /// Free text between tool calls, trimmed.
    Text {
        /// The trimmed text.
        content: String,
        /// Whether more text may still extend it (always true for the last text block).
        partial: bool,
    },
    /// A tool call written as tags.
    ToolUse {
        /// The tool's name.
        name: String,
        /// `(parameter, value)` pairs in first-seen order.
        params: Vec<(String, String)>,
        /// Whether the closing tag has not arrived yet.
        partial: bool,
    },
}

impl Block {
    /// Whether the block may still change.
    pub fn is_partial(&self) -> bool {
        match self {
            Self::Text { partial, .. } | Self::ToolUse { partial, .. } => *partial,
        }
    }
}

/// A [`RawBlock`] read against its text and tool set.
#[derive(Clone, Copy, Debug)]
pub struct BlockRef<'a> {
    raw: &'a RawBlock,
    text: &'a str,
    tools: &'a ToolSet,
}

impl<'a> BlockRef<'a> {
    /// Reads `raw`, whose spans point into `text` and whose ids come from `tools`.
    pub fn new(raw: &'a RawBlock, text: &'a str, tools: &'a ToolSet) -> Self {
        Self { raw, text, tools }
    }

    /// The span form.
    pub fn raw(&self) -> &'a RawBlock {
        self.raw
    }

    /// Whether the block may still change.
    pub fn is_partial(&self) -> bool {
        match self.raw {
            RawBlock::Text { partial, .. } => *partial,
            RawBlock::ToolUse(tool) => tool.partial,
        }
    }

    /// The content of a text block; `None` for a tool use.
    pub fn text_content(&self) -> Option<&'a str> {
        match self.raw {
            RawBlock::Text { content, .. } => Some(content.slice(self.text)),
            RawBlock::ToolUse(_) => None,
        }
    }

    /// The name of a tool use; `None` for text.
    #[inline]
    pub fn tool_name(&self) -> Option<&'a str> {
        match self.raw {
            RawBlock::Text { .. } => None,
            RawBlock::ToolUse(tool) => Some(self.tools.tool_name(tool.tool)),
        }
    }

    /// The parameters of a tool use (none for text), in first-seen order.
    pub fn params(&self) -> impl Iterator<Item = (&'a str, &'a str)> + 'a {
        let params: &'a [RawParam] = match self.raw {
            RawBlock::Text { .. } => &[],
            RawBlock::ToolUse(tool) => &tool.params,
        };
        let (text, tools) = (self.text, self.tools);
        params.iter().map(move |param| (tools.param_name(param.name), param.value.slice(text)))
    }

    /// One parameter's value, if the tool use has it.
    pub fn param(&self, name: &str) -> Option<&'a str> {
        self.params().find(|(key, _)| *key == name).map(|(_, value)| value)
    }

    /// An owned copy.
    pub fn to_block(&self) -> Block {
        match self.raw {
            RawBlock::Text { content, partial } => {
                Block::Text { content: content.slice(self.text).to_owned(), partial: *partial }
            }
            RawBlock::ToolUse(tool) => Block::ToolUse {
                name: self.tools.tool_name(tool.tool).to_owned(),
                params: self.params().map(|(k, v)| (k.to_owned(), v.to_owned())).collect(),
                partial: tool.partial,
            },
        }
    }
}
