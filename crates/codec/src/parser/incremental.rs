//! [`IncrementalParser`]: the streaming form of the parser.

use std::rc::Rc;

use super::block::{Block, BlockRef, RawBlock};
use super::scanner::Scanner;
use super::tool_set::ToolSet;
use crate::utf8::Utf8Stitcher;

/// Parses an assistant message as it streams in.
///
/// After every [`push`](Self::push), the blocks equal
/// [`parse_assistant_message`](super::parse_assistant_message) of all the text pushed so far,
/// whatever the chunk boundaries. Each byte is scanned once: total work is linear in the
/// message length, completed blocks are never rebuilt, and each push reports the first block
/// index it changed, so a presenter re-reads only the changed tail.
///
/// ```
/// use clew_codec::parser::{IncrementalParser, ToolSet};
/// let mut parser = IncrementalParser::new(ToolSet::reference());
/// assert_eq!(parser.push("Reading it.\n<read_fi"), 0);
/// assert_eq!(parser.block(0).and_then(|b| b.text_content()), Some("Reading it.\n<read_fi"));
/// assert_eq!(parser.push("le><path>a.md</path>"), 0); // block 0 shrank to "Reading it."
/// let tool = parser.block(1).map(|b| (b.tool_name(), b.param("path"), b.is_partial()));
/// assert_eq!(tool, Some((Some("read_file"), Some("a.md"), true)));
/// assert_eq!(parser.push("</read_file>"), 1);
/// assert_eq!(parser.push("   "), 2); // nothing changed: the block count
/// ```
#[derive(Clone, Debug)]
pub struct IncrementalParser {
    text: String,
    tools: Rc<ToolSet>,
    scanner: Scanner,
    utf8: Utf8Stitcher,
}

impl Default for IncrementalParser {
    /// A parser of the reference tool set.
    fn default() -> Self {
        Self::new(ToolSet::reference())
    }
}

impl IncrementalParser {
    /// A parser recognising the tags of `tools`. Parsers can share one set (an
    /// `Rc<ToolSet>`): a set is some kilobytes, a parser without its text a few dozen bytes.
    pub fn new(tools: impl Into<Rc<ToolSet>>) -> Self {
        Self { text: String::new(), tools: tools.into(), scanner: Scanner::new(), utf8: Utf8Stitcher::default() }
    }

    /// Appends `chunk` and parses it. Returns the index of the first block that changed, or
    /// the block count when none did.
    pub fn push(&mut self, chunk: &str) -> usize {
        if self.utf8.has_pending() {
            // Bytes of an unfinished character from push_bytes are followed by text: they
            // can no longer complete, so they become U+FFFD first.
            self.utf8.finish(&mut self.text);
        }
        self.text.push_str(chunk);
        self.scan()
    }

    /// Appends UTF-8 bytes split anywhere (inside a character too). An unfinished final
    /// character waits for the next call; invalid bytes become U+FFFD as in `TextDecoder`.
    /// Returns what [`push`](Self::push) returns.
    pub fn push_bytes(&mut self, bytes: &[u8]) -> usize {
        self.utf8.decode(bytes, &mut self.text);
        self.scan()
    }

    /// Ends a byte stream: an unfinished character left by [`push_bytes`](Self::push_bytes)
    /// becomes U+FFFD. Returns what [`push`](Self::push) returns.
    pub fn finish_bytes(&mut self) -> usize {
        self.utf8.finish(&mut self.text);
        self.scan()
    }

    #[inline]
    fn scan(&mut self) -> usize {
        self.scanner.advance(&self.text, &self.tools);
        self.scanner.take_first_changed()
    }

    /// All the text pushed so far.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The tool set the parser recognises.
    pub fn tool_set(&self) -> &Rc<ToolSet> {
        &self.tools
    }

    /// The number of blocks.
    pub fn len(&self) -> usize {
        self.scanner.blocks().len()
    }

    /// Whether there is no block yet.
    pub fn is_empty(&self) -> bool {
        self.scanner.blocks().is_empty()
    }

    /// The blocks in span form (spans index [`text`](Self::text)).
    pub fn raw_blocks(&self) -> &[RawBlock] {
        self.scanner.blocks()
    }

    /// Block `index`, read as strings; `None` past the end.
    pub fn block(&self, index: usize) -> Option<BlockRef<'_>> {
        self.scanner.blocks().get(index).map(|raw| BlockRef::new(raw, &self.text, &self.tools))
    }

    /// Every block, read as strings.
    pub fn blocks(&self) -> impl Iterator<Item = BlockRef<'_>> {
        self.scanner.blocks().iter().map(|raw| BlockRef::new(raw, &self.text, &self.tools))
    }

    /// Owned copies of every block.
    pub fn to_blocks(&self) -> Vec<Block> {
        self.blocks().map(|block| block.to_block()).collect()
    }
}
