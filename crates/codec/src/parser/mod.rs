//! The assistant-message parser: model text in, text and tool-use blocks out.
//!
//! It accepts exactly what the reference loop's `parseAssistantMessageV2` accepts (see
//! `TOOL-FORMAT.md`): known tool and parameter tags, nothing else, no escaping, no nesting,
//! JavaScript trimming, and the `write_to_file` last-`</content>` rule. What it leaves to
//! others: deciding what a tool call means, validating parameters, and display clean-ups.
//!
//! - [`parse_assistant_message`] parses a whole message;
//! - [`IncrementalParser`] parses a stream, equal to a full parse after every push;
//! - [`ToolSet`] is the data that says which tags exist.

mod block;
mod full;
mod incremental;
mod scanner;
mod span;
mod tool_set;
mod trim;

#[cfg(test)]
mod tests;

pub use block::{Block, BlockRef, RawBlock, RawParam, RawToolUse};
pub use full::{parse_assistant_message, parse_raw};
pub use incremental::IncrementalParser;
pub use span::Span;
pub use tool_set::{ParamId, ToolId, ToolSet, ToolSetError, MAX_NAME_LEN, REFERENCE_PARAMS, REFERENCE_TOOLS};
pub use trim::is_js_whitespace;
