//! One round's state: the open stream, the reply as it is parsed, the blocks in the order
//! they are presented, and what the presenter waits for.

use std::rc::Rc;

use super::effect::Outcome;
use super::failure::Failure;
use super::tags::TaskState;
use super::tool_job::ToolJob;
use super::turn::Part;
use crate::core::conversation::ContentBlock;
use crate::core::parser::{BlockRef, IncrementalParser, ToolSet};
use crate::core::stream::{StreamDecoder, ToolCall, ToolCallAssembler, Usage};

/// Where the round's model stream is.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) enum StreamPhase {
    /// The request waits for the MCP servers' listing ([`Effect::ListMcpServers`](super::Effect::ListMcpServers)):
    /// it goes out with the catalog the listing gives once no server is being listed, or at
    /// `deadline` without the servers still being listed (`Ctx::mcp_listed`, each reported
    /// and left out).
    Listing {
        /// When the task stops waiting (`None`: never).
        deadline: Option<u64>,
    },
    /// Open, waiting for more of the reply.
    Open {
        /// When silence becomes a failure.
        deadline: Option<u64>,
        /// What arrived so far.
        received: Received,
    },
    /// A request failed before any content: its retry waits.
    Retry(Retry),
    /// The reply is complete (or was cut short by the loop itself): every block is final,
    /// the assistant turn is in the history and `api_req_started` has its figures.
    #[default]
    Ended,
    /// The stream failed after content arrived: what streamed is in the history, with the
    /// interruption notice.
    FailedMidStream {
        /// What went wrong.
        failure: Failure,
    },
}

/// A failed request's retry, waiting: held by the round (a failure before any content, sent
/// again in the same round) and by the task between rounds (a failure that ended its round).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Retry {
    /// Sent again automatically at `until`.
    Delay {
        /// When.
        until: u64,
    },
    /// The user is asked whether to send it again.
    Ask {
        /// The `api_req_failed` ask.
        ts: u64,
    },
}

impl Retry {
    /// What a task waiting for this retry waits for.
    pub(crate) fn state(self) -> TaskState {
        match self {
            Self::Delay { .. } => TaskState::RetryDelay,
            Self::Ask { .. } => TaskState::Answer,
        }
    }
}

/// What an open stream delivered so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Received {
    /// Not a byte: silence is a first-byte timeout, a failure is retried in the round.
    #[default]
    Nothing,
    /// Bytes, but no text, reasoning or tool call yet: a failure is still retried in the round.
    Bytes,
    /// Content: a failure is mid-stream, and what streamed is kept.
    Content,
}

/// Which blocks of the reply are no longer run, after a denial or (serial mode) after the
/// first tool result. The stream is cut at the next chunk.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Skip {
    /// Every block is presented.
    #[default]
    Nothing,
    /// A tool already ran in this message (serial mode): later tools are skipped.
    AfterToolUse,
    /// The user denied a tool: later tools are skipped with a notice saying so.
    AfterRejection,
}

/// A block in presentation order: text and XML tool uses from the parser, native tool calls
/// from the assembler, in order of first appearance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Item {
    /// Parser block `n`.
    Parsed(usize),
    /// Native call `n`.
    Native(usize),
}

/// What the presenter waits for before it can move past the current block.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) enum Wait {
    /// Nothing: presentation runs when asked (stored as `"idle"`).
    #[default]
    Nothing,
    /// The initial checkpoint, before a tool that writes.
    Checkpoint(ToolJob),
    /// The PreToolUse hook.
    PreHook { id: u64, job: ToolJob },
    /// The user's approval.
    Approval { ask_ts: u64, job: ToolJob },
    /// The tool itself.
    Tool { id: u64, job: ToolJob, deadline: Option<u64> },
    /// The PostToolUse hook, with the result text it was given and the blocks to push after it.
    PostHook { id: u64, job: ToolJob, text: String, result: Vec<ContentBlock> },
    /// The answer to a follow-up question.
    Followup { ask_ts: u64, job: ToolJob },
    /// The TaskComplete hook.
    CompletionHook { id: u64, job: ToolJob },
    /// The user's verdict on a completion.
    CompletionAnswer { ask_ts: u64, job: ToolJob },
    /// The task's outcome is decided while the reply still streams: the rest is read so that
    /// the round's usage counts in full, then the task ends with `outcome`.
    StreamEnd { outcome: Outcome },
}

/// A partial message whose newest state was held back by pacing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Paced {
    /// The message of the block being presented.
    Block,
    /// The reasoning message.
    Reasoning,
}

/// Everything of one round.
#[derive(Clone, Debug)]
pub(crate) struct Round {
    /// The next user content being collected (tool results, feedback, notices).
    pub(crate) user_content: Vec<ContentBlock>,
    /// The round's `api_req_started` message.
    pub(crate) api_req_ts: u64,
    /// The current stream's id.
    pub(crate) stream_id: u64,
    /// Where the stream is.
    pub(crate) stream: StreamPhase,
    pub(crate) decoder: Option<StreamDecoder>,
    pub(crate) parser: IncrementalParser,
    pub(crate) natives: ToolCallAssembler,
    /// The reply text read from a snapshot, until [`Round::restore`] rebuilds the parser.
    pub(crate) saved_text: String,
    /// The native calls read from a snapshot, until [`Round::restore`] rebuilds the assembler.
    pub(crate) saved_natives: Vec<ToolCall>,
    /// Reasoning so far, as shown (every reasoning part of the reply, joined).
    pub(crate) reasoning: String,
    /// The reply's parts as the provider sent them, for the history.
    pub(crate) parts: Vec<Part>,
    /// The reasoning message, while it streams.
    pub(crate) reasoning_ts: Option<u64>,
    /// Blocks in presentation order.
    pub(crate) items: Vec<Item>,
    /// How many parser blocks are in `items`.
    pub(crate) parsed_known: usize,
    /// Position in `items` of the first native call: text before it is final.
    pub(crate) natives_from: Option<usize>,
    /// The block being presented.
    pub(crate) index: usize,
    /// The message showing the current block.
    pub(crate) index_ts: Option<u64>,
    /// What the presenter waits for.
    pub(crate) wait: Wait,
    /// Which later blocks are skipped.
    pub(crate) skip: Skip,
    /// Context-window truncation already retried this round.
    pub(crate) context_retry_used: bool,
    /// The round's usage.
    pub(crate) usage: Usage,
    /// Why the model stopped, once a stop chunk came.
    pub(crate) stop_reason: Option<String>,
    /// A held-back partial update, and when it is due.
    pub(crate) paced: Option<(Paced, u64)>,
    /// The last partial update sent: message ts, time (or the time the growth rule last
    /// dropped a state of that message, when building its text) and its text's length in
    /// bytes.
    pub(crate) last_partial: Option<(u64, u64, usize)>,
    /// The reply was cut at a complete block when a restored task resumed, so part of its
    /// usage never arrived. (Not in snapshots: it is read when the reply ends, in the same
    /// call that set it.)
    pub(crate) usage_incomplete: bool,
    /// A usage chunk came for this attempt (a request without one leaves no context figure).
    pub(crate) usage_seen: bool,
    /// The usage of this attempt alone (`usage` sums the round's attempts): the context
    /// figure is its. (Not in snapshots: a restored round's stream is sent again.)
    pub(crate) attempt: Usage,
    /// The reply holds a provider compaction (a compaction pass, CONTEXT §9.2).
    pub(crate) compaction: bool,
    /// The response paused after its compaction (CONTEXT §6.2): the round goes on with the
    /// re-insertion. (Not in snapshots: set and read in the same call.)
    pub(crate) paused: bool,
}

impl Default for Round {
    /// An empty round whose parser knows no tool. NOTE: not derived: the parser's own default
    /// builds the reference's whole tool set, which every new round then dropped (measured:
    /// 3.6% of a 50-round task's time).
    fn default() -> Self {
        Self {
            user_content: Vec::new(),
            api_req_ts: 0,
            stream_id: 0,
            stream: StreamPhase::default(),
            decoder: None,
            parser: IncrementalParser::new(ToolSet::empty()),
            natives: ToolCallAssembler::new(),
            saved_text: String::new(),
            saved_natives: Vec::new(),
            reasoning: String::new(),
            parts: Vec::new(),
            reasoning_ts: None,
            items: Vec::new(),
            parsed_known: 0,
            natives_from: None,
            index: 0,
            index_ts: None,
            wait: Wait::default(),
            skip: Skip::default(),
            context_retry_used: false,
            usage: Usage::default(),
            stop_reason: None,
            paced: None,
            last_partial: None,
            usage_incomplete: false,
            usage_seen: false,
            attempt: Usage::default(),
            compaction: false,
            paused: false,
        }
    }
}

impl Round {
    /// A round sending `content`, parsing tags of `tools`.
    pub(crate) fn new(tools: Rc<ToolSet>) -> Self {
        Self { parser: IncrementalParser::new(tools), ..Self::default() }
    }

    /// Forgets everything the previous attempt streamed (a retry before any content).
    pub(crate) fn reset_stream(&mut self) {
        let tools = Rc::clone(self.parser.tool_set());
        self.parser = IncrementalParser::new(tools);
        self.natives = ToolCallAssembler::new();
        self.items.clear();
        self.parsed_known = 0;
        self.natives_from = None;
        self.index = 0;
        self.index_ts = None;
        self.reasoning.clear();
        self.parts.clear();
        self.stop_reason = None;
        self.reasoning_ts = None;
        self.paced = None;
        self.decoder = None;
        self.usage_seen = false;
        self.attempt = Usage::default();
    }

    /// Appends the parser's new blocks to the presentation order.
    pub(crate) fn sync_parsed(&mut self) {
        while self.parsed_known < self.parser.len() {
            self.items.push(Item::Parsed(self.parsed_known));
            self.parsed_known += 1;
        }
    }

    /// Whether the item at `pos` may still change.
    pub(crate) fn is_partial(&self, pos: usize) -> bool {
        let Some(item) = self.items.get(pos).copied() else { return true };
        if matches!(self.stream, StreamPhase::Ended) || self.natives_from.is_some_and(|first| pos < first) {
            return false;
        }
        // NOTE: a native call stays partial until the reply ends, even once its arguments'
        // JSON has closed (AGENT-LOOP §6.4): its approval, question or completion comes after
        // the stream, so the turn is saved and the usage counted before anyone is asked.
        match item {
            Item::Parsed(n) => self.parser.block(n).map_or(true, |b| b.is_partial()),
            Item::Native(_) => true,
        }
    }

    /// The parser block `n`.
    pub(crate) fn parsed(&self, n: usize) -> Option<BlockRef<'_>> {
        self.parser.block(n)
    }

    /// Whether any block is a tool call.
    pub(crate) fn has_tool_use(&self) -> bool {
        !self.natives.calls().is_empty() || self.parser.blocks().any(|b| b.tool_name().is_some())
    }

    /// Whether the reply had anything at all (text, even blank, or a native call).
    pub(crate) fn has_content(&self) -> bool {
        !self.parser.text().is_empty() || !self.natives.calls().is_empty()
    }

    /// Whether content arrived on the open stream (a failure now is mid-stream).
    pub(crate) fn got_content(&self) -> bool {
        matches!(self.stream, StreamPhase::Open { received: Received::Content, .. })
    }

    /// Whether the stream no longer delivers (ended or failed): the reply is in the history
    /// and `api_req_started` has its final figures.
    pub(crate) fn stream_done(&self) -> bool {
        matches!(self.stream, StreamPhase::Ended | StreamPhase::FailedMidStream { .. })
    }

    /// Whether the presenter has nothing left to do: every block handled (or, after a
    /// failure mid-stream, every complete one) and nothing awaited.
    pub(crate) fn presenter_done(&self) -> bool {
        if !matches!(self.wait, Wait::Nothing) || !self.stream_done() {
            return false;
        }
        self.index >= self.items.len()
            || (matches!(self.stream, StreamPhase::FailedMidStream { .. }) && self.is_partial(self.index))
    }

    /// Rebuilds the parser and assembler from a snapshot.
    pub(crate) fn restore(&mut self, tools: Rc<ToolSet>) {
        self.parser = IncrementalParser::new(tools);
        self.parser.push(&std::mem::take(&mut self.saved_text));
        self.natives = ToolCallAssembler::new();
        for piece in std::mem::take(&mut self.saved_natives) {
            self.natives.push(&piece);
        }
        self.usage_seen = self.usage != Usage::default();
        self.attempt = self.usage.clone();
        self.compaction =
            self.parts.iter().any(|p| matches!(p, Part::Block { block: ContentBlock::Compaction { .. }, .. }));
    }
}
