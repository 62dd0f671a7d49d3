//! The tag scanner: one left-to-right pass that turns text into [`RawBlock`]s.
//!
//! A tag is recognised when its `>` arrives, and since tags hold exactly one `<`, the only
//! candidate ending at a `>` starts at the last `<` before it (and after the previous `>`),
//! no further back than the longest tag. So the scanner jumps from `>` to `>` with memchr and
//! looks behind each one once. The scanner keeps no text: it is handed the same text again,
//! longer each time, and resumes where it stopped, which makes feeding a message in any
//! number of pieces cost the same as parsing it whole.
//!
//! States follow the reference (TOOL-FORMAT.md §3): outside a tool only tool open tags count;
//! inside a tool, parameter open tags and the tool's own close tag; inside a parameter only
//! its own close tag. Everything else inside a tool body is dropped.

use memchr::{memchr_iter, memrchr};

use super::block::{RawBlock, RawToolUse};
use super::span::Span;
use super::tool_set::{ParamId, ToolId, ToolSet};
use super::trim::{trim_span, TrimTracker};

/// The tool whose closed body gets the last-index rule for one parameter.
const LAST_INDEX_TOOL: &str = "write_to_file";
/// The parameter that rule recomputes.
const LAST_INDEX_PARAM: &[u8] = b"content";
/// `<content>`'s length.
const LAST_INDEX_OPEN_LEN: usize = LAST_INDEX_PARAM.len() + 2;

/// Scanner state between two `>`.
#[derive(Clone, Debug)]
pub(crate) struct Scanner {
    blocks: Vec<RawBlock>,
    mode: Mode,
    /// Trimmed span of the open region: the text after the last tool, or the open parameter.
    region: TrimTracker,
    /// Whether `blocks.last()` is the still-open text block of `region`.
    open_text: bool,
    /// Bytes of the text already scanned.
    scanned: usize,
    /// One past the last `>` seen: a tag cannot start before it.
    after_gt: usize,
    /// Lowest block index changed since the last [`Scanner::take_first_changed`].
    first_changed: usize,
}

#[derive(Clone, Debug)]
enum Mode {
    Text,
    Tool(OpenTool),
    Param(OpenTool, ParamId),
}

#[derive(Clone, Debug)]
struct OpenTool {
    tool: ToolId,
    last_index: Option<LastIndexRule>,
}

/// `write_to_file`'s rule (TOOL-FORMAT.md §5): on close, `content` is recomputed from the
/// first `<content>` to the last `</content>` of the body.
#[derive(Clone, Debug)]
struct LastIndexRule {
    param: ParamId,
    first_open: Option<usize>,
    last_close: Option<usize>,
}

impl Default for Scanner {
    fn default() -> Self {
        Self::new()
    }
}

impl Scanner {
    pub(crate) fn new() -> Self {
        Self {
            blocks: Vec::new(),
            mode: Mode::Text,
            region: TrimTracker::new(0),
            open_text: false,
            scanned: 0,
            after_gt: 0,
            first_changed: usize::MAX,
        }
    }

    pub(crate) fn blocks(&self) -> &[RawBlock] {
        &self.blocks
    }

    pub(crate) fn into_blocks(self) -> Vec<RawBlock> {
        self.blocks
    }

    /// The lowest block index changed since the previous call (the block count if none).
    pub(crate) fn take_first_changed(&mut self) -> usize {
        let first = self.first_changed.min(self.blocks.len());
        self.first_changed = usize::MAX;
        first
    }

    /// Scans what `text` holds beyond the previous call. `text` must extend the text of
    /// every earlier call.
    pub(crate) fn advance(&mut self, text: &str, tools: &ToolSet) {
        let bytes = text.as_bytes();
        let from = self.scanned.min(bytes.len());
        let fresh = bytes.get(from..).unwrap_or_default();
        for offset in memchr_iter(b'>', fresh) {
            self.on_gt(text, from + offset, tools);
        }
        self.scanned = bytes.len();
        self.refresh_tail(text);
    }

    fn touch(&mut self, index: usize) {
        self.first_changed = self.first_changed.min(index);
    }

    /// Handles the `>` at byte `gt`.
    fn on_gt(&mut self, text: &str, gt: usize, tools: &ToolSet) {
        let bytes = text.as_bytes();
        let window_start = self.after_gt.max((gt + 1).saturating_sub(tools.longest_tag()));
        self.after_gt = gt + 1;
        let Some(lt) = bytes.get(window_start..gt).and_then(|w| memrchr(b'<', w)).map(|i| window_start + i) else {
            return;
        };
        let inner = bytes.get(lt + 1..gt).unwrap_or_default();
        let (closing, name) = match inner.split_first() {
            Some((b'/', rest)) => (true, rest),
            _ => (false, inner),
        };
        if name.is_empty() {
            return;
        }
        if let Mode::Tool(open) | Mode::Param(open, _) = &mut self.mode {
            if let Some(rule) = &mut open.last_index {
                if name == LAST_INDEX_PARAM {
                    if closing {
                        rule.last_close = Some(lt);
                    } else if rule.first_open.is_none() {
                        rule.first_open = Some(lt);
                    }
                }
            }
        }
        let roles = tools.roles(name);
        match std::mem::replace(&mut self.mode, Mode::Text) {
            Mode::Text => match roles.tool {
                Some(tool) if !closing => self.open_tool(text, lt, tool, tools),
                _ => {}
            },
            Mode::Tool(open) => match (closing, roles.param, roles.tool) {
                (false, Some(param), _) => self.open_param(open, param, gt),
                (true, _, Some(tool)) if tool == open.tool => self.close_tool(text, open, gt),
                _ => self.mode = Mode::Tool(open),
            },
            Mode::Param(open, param) => {
                if closing && roles.param == Some(param) {
                    let value = trim_span(text, self.region.start(), lt);
                    self.set_open_param(param, value);
                    // The same tag is examined again outside the parameter (TOOL-FORMAT §3,
                    // state P): when the name is also this tool's, it closes the tool too.
                    if roles.tool == Some(open.tool) {
                        self.close_tool(text, open, gt);
                    } else {
                        self.mode = Mode::Tool(open);
                    }
                } else {
                    self.mode = Mode::Param(open, param);
                }
            }
        }
    }

    fn open_tool(&mut self, text: &str, lt: usize, tool: ToolId, tools: &ToolSet) {
        if self.open_text {
            self.blocks.pop();
            self.open_text = false;
        }
        self.touch(self.blocks.len());
        let before = trim_span(text, self.region.start(), lt);
        if !before.is_empty() {
            self.blocks.push(RawBlock::Text { content: before, partial: false });
        }
        self.blocks.push(RawBlock::ToolUse(RawToolUse { tool, params: Vec::new(), partial: true }));
        let last_index = (tools.tool_name(tool) == LAST_INDEX_TOOL)
            .then(|| std::str::from_utf8(LAST_INDEX_PARAM).ok().and_then(|name| tools.param_id(name)))
            .flatten()
            .map(|param| LastIndexRule { param, first_open: None, last_close: None });
        self.mode = Mode::Tool(OpenTool { tool, last_index });
    }

    fn open_param(&mut self, open: OpenTool, param: ParamId, gt: usize) {
        self.region = TrimTracker::new(gt + 1);
        self.set_open_param(param, Span::empty_at(gt + 1));
        self.mode = Mode::Param(open, param);
    }

    fn set_open_param(&mut self, param: ParamId, value: Span) {
        let index = self.blocks.len().saturating_sub(1);
        if let Some(RawBlock::ToolUse(tool)) = self.blocks.last_mut() {
            tool.set_param(param, value);
            self.touch(index);
        }
    }

    fn close_tool(&mut self, text: &str, open: OpenTool, gt: usize) {
        let index = self.blocks.len().saturating_sub(1);
        if let Some(RawBlock::ToolUse(tool)) = self.blocks.last_mut() {
            if let Some(LastIndexRule { param, first_open: Some(first), last_close: Some(last) }) = open.last_index {
                if last > first {
                    tool.set_param(param, trim_span(text, first + LAST_INDEX_OPEN_LEN, last));
                }
            }
            tool.partial = false;
            self.touch(index);
        }
        self.region = TrimTracker::new(gt + 1);
        self.mode = Mode::Text;
    }

    /// Brings the open block at the end up to date with the text scanned so far.
    fn refresh_tail(&mut self, text: &str) {
        match &self.mode {
            Mode::Text => {
                let content = self.region.advance(text);
                if content.is_empty() {
                    return;
                }
                let index = self.blocks.len();
                if self.open_text {
                    if let Some(RawBlock::Text { content: old, .. }) = self.blocks.last_mut() {
                        if *old != content {
                            *old = content;
                            self.touch(index.saturating_sub(1));
                        }
                    }
                } else {
                    self.blocks.push(RawBlock::Text { content, partial: true });
                    self.open_text = true;
                    self.touch(index);
                }
            }
            Mode::Param(_, param) => {
                let param = *param;
                let value = self.region.advance(text);
                let index = self.blocks.len().saturating_sub(1);
                if let Some(RawBlock::ToolUse(tool)) = self.blocks.last_mut() {
                    let unchanged = tool.params.iter().any(|p| p.name == param && p.value == value);
                    if !unchanged {
                        tool.set_param(param, value);
                        self.touch(index);
                    }
                }
            }
            Mode::Tool(_) => {}
        }
    }
}
