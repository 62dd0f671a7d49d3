//! One-shot parsing of a whole message.

use super::block::{Block, BlockRef, RawBlock};
use super::scanner::Scanner;
use super::tool_set::ToolSet;

/// Parses a whole assistant message into blocks, as the reference `parseAssistantMessageV2`.
///
/// Never fails: any text gives a (possibly empty) list. Text is trimmed as JavaScript trims;
/// the last text block is `partial`; an unclosed tool is `partial` with what it has so far.
///
/// ```
/// use clew_codec::parser::{parse_assistant_message, Block, ToolSet};
/// let blocks = parse_assistant_message("Hi.\n<read_file><path>a.md</path></read_file>", &ToolSet::reference());
/// assert_eq!(blocks[0], Block::Text { content: "Hi.".into(), partial: false });
/// assert_eq!(blocks[1], Block::ToolUse {
///     name: "read_file".into(),
///     params: vec![("path".into(), "a.md".into())],
///     partial: false,
/// });
/// ```
pub fn parse_assistant_message(text: &str, tools: &ToolSet) -> Vec<Block> {
    parse_raw(text, tools).iter().map(|raw| BlockRef::new(raw, text, tools).to_block()).collect()
}

/// Parses a whole message into blocks in span form (spans index `text`): no string copied.
pub fn parse_raw(text: &str, tools: &ToolSet) -> Vec<RawBlock> {
    let mut scanner = Scanner::new();
    scanner.advance(text, tools);
    scanner.into_blocks()
}
