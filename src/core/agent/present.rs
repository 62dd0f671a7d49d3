//! The presenter (AGENT-LOOP §7, §8): chunks into the reply, blocks into messages, paced.
//!
//! A pass walks the blocks from the current index: text becomes a `text` say (partial while
//! it streams), a tool call a partial tool message while it streams and a tool job once
//! complete. The index moves only past complete blocks (or skipped ones), so a block that is
//! still being written is re-read by the next pass. A pass never starts inside another: the
//! machine handles one event at a time, and a wait (approval, tool) stops the pass until the
//! event that ends it. Partial updates of one message are paced: the first at once, then at
//! most one per interval, with the newest state held back and sent by a wake-up; and once the
//! message's text is 1 KiB long, an update goes out only when the text grew by an eighth
//! since the last one sent (each update carries the whole text: this bounds what the partial
//! updates of a long message carry to about nine times its final text, however fast or slow
//! the machine). The final version is always sent.

use super::calls;
use super::config::{ASK_FOLLOWUP_QUESTION, ATTEMPT_COMPLETION};
use super::display::{display_text, without_closing_tag};
use super::message::{AskKind, MessageKind, SayKind};
use super::round_state::{Item, Paced, Received, Round, Skip, StreamPhase, Wait};
use super::task::Ctx;
use super::texts;
use super::turn;
use crate::core::conversation::ContentBlock;
use crate::core::json::Json;
use crate::core::stream::Chunk;

/// From this length (bytes) of a partial message's text, its next partial update waits for
/// the text to grow by an eighth.
const GROWTH_FROM: usize = 1024;

/// Whether a partial update whose text is `len` bytes long may follow one of `last` bytes of
/// the same message: always below [`GROWTH_FROM`], else once the text grew by an eighth.
fn grown_enough(last: usize, len: usize) -> bool {
    last < GROWTH_FROM || len >= last.saturating_add(last / 8)
}

impl Ctx {
    /// Takes one decoded chunk; returns whether reading must stop (a tool was denied, or one
    /// already ran in serial mode).
    pub(crate) fn take_chunk(&mut self, round: &mut Round, chunk: Chunk) -> bool {
        if let StreamPhase::Open { received, .. } = &mut round.stream {
            if !matches!(chunk, Chunk::Usage(_) | Chunk::Stop { .. }) {
                *received = Received::Content;
            }
        }
        match chunk {
            Chunk::Text { text } => {
                if round.reasoning_ts.is_some() {
                    self.finish_reasoning(round);
                }
                turn::add_text(&mut round.parts, round.parser.text().len());
                round.parser.push(&text);
                round.sync_parsed();
            }
            Chunk::TextEnd { signature, phase } => {
                turn::end_text(&mut round.parts, round.parser.text().len(), signature, phase);
            }
            Chunk::Reasoning { reasoning, signature, redacted_data, encrypted_content, summary } => {
                round.reasoning.push_str(&reasoning);
                match redacted_data {
                    Some(data) => turn::add_block(&mut round.parts, ContentBlock::RedactedThinking { data }),
                    None => {
                        let signature = signature.filter(|s| !s.is_empty());
                        turn::add_reasoning(&mut round.parts, &reasoning, signature, encrypted_content, summary);
                    }
                }
                let before_text = round.parser.text().is_empty() && round.natives.calls().is_empty();
                if !reasoning.is_empty() && before_text {
                    self.show_partial(round, Paced::Reasoning);
                }
            }
            Chunk::Item { item } => turn::add_block(&mut round.parts, turn::item(self.config.format, item)),
            Chunk::Compaction { content, encrypted_content, id } => {
                let provider = self.config.format;
                // NOTE: an empty summary is a failed compaction, as the builder sends it back.
                let content = content.filter(|c| !c.is_empty());
                round.compaction = true;
                turn::add_block(
                    &mut round.parts,
                    ContentBlock::Compaction { provider, content, encrypted_content, id },
                );
            }
            Chunk::ToolCalls { tool_call } => {
                let known = round.natives.calls().len();
                let index = round.natives.push(&tool_call);
                if index >= known {
                    if round.natives_from.is_none() {
                        round.natives_from = Some(round.items.len());
                    }
                    round.items.push(Item::Native(index));
                    turn::add_call(&mut round.parts, index);
                }
            }
            Chunk::Usage(usage) => {
                self.add_usage(round, &usage);
                return false;
            }
            Chunk::Stop { reason, .. } => {
                round.stop_reason = Some(reason);
                return false;
            }
        }
        round.skip != Skip::Nothing
    }

    /// One presentation pass.
    pub(crate) fn present(&mut self, round: &mut Round) {
        while matches!(round.wait, Wait::Nothing) {
            let Some(item) = round.items.get(round.index).copied() else { return };
            let partial = round.is_partial(round.index);
            if partial && matches!(round.stream, StreamPhase::FailedMidStream { .. }) {
                // A block cut by a failure stays as last shown; it is never run.
                return;
            }
            let skipping = round.skip != Skip::Nothing;
            let is_tool = match item {
                Item::Parsed(n) => round.parsed(n).is_some_and(|b| b.tool_name().is_some()),
                Item::Native(_) => true,
            };
            if skipping {
                self.finish_block_message(round);
                if is_tool {
                    let job = calls::job_of(self, round, item);
                    let notice = if round.skip == Skip::AfterRejection {
                        texts::skipped_after_rejection(partial, &job.description)
                    } else {
                        texts::one_tool_per_message(&job.name)
                    };
                    calls::push_notice(round, &job, notice);
                }
            } else if partial || (is_tool && self.asks_after_the_reply(round, item)) {
                // NOTE: a complete call that asks a person waits, shown as it stands, for the
                // end of the reply (AGENT-LOOP §6.4, issue 28): the turn is then stored and
                // its usage counted before anyone is asked, so a wait for a person never
                // holds an open stream.
                self.show_partial(round, Paced::Block);
                if !partial {
                    return;
                }
            } else if is_tool {
                let job = calls::job_of(self, round, item);
                self.start_tool(round, job);
                if !matches!(round.wait, Wait::Nothing) {
                    return;
                }
            } else {
                let text = self.block_view(round).map(|(_, text)| text).unwrap_or_default();
                self.final_block_message(round, MessageKind::Say(SayKind::Text), text);
            }
            if !partial || skipping {
                round.index += 1;
                round.index_ts = None;
            } else {
                return;
            }
        }
    }

    /// Whether the complete call `item` would ask a person (an approval, a follow-up
    /// question, a completion's verdict) while the reply still streams: it then waits for the
    /// reply's end. Calls that run without asking, and calls the gates refuse, go on at once.
    fn asks_after_the_reply(&self, round: &Round, item: Item) -> bool {
        if !matches!(round.stream, StreamPhase::Open { .. }) {
            return false;
        }
        let (name, params, _) = calls::call_of(&self.catalog, round, item);
        match name.as_str() {
            ATTEMPT_COMPLETION => true,
            ASK_FOLLOWUP_QUESTION => !self.config.yolo,
            name if self.known(name).is_some() => !self.auto_approved(name, &params),
            _ => false,
        }
    }

    /// Moves past the current (complete) block once its tool job is done, and goes on.
    pub(crate) fn complete_block(&mut self, round: &mut Round) {
        round.wait = Wait::Nothing;
        round.index += 1;
        round.index_ts = None;
        self.present(round);
    }

    /// What the current block shows while partial: the message kind and its text.
    fn block_view(&self, round: &Round) -> Option<(MessageKind, String)> {
        let pos = round.index;
        let item = round.items.get(pos).copied()?;
        let partial = round.is_partial(pos);
        if let Item::Parsed(n) = item {
            if let Some(content) = round.parsed(n)?.text_content() {
                return Some((MessageKind::Say(SayKind::Text), display_text(content, partial)));
            }
        }
        let (name, params, _) = calls::call_of(&self.catalog, round, item);
        let value = |name: &str| {
            let raw = super::tool_job::param(&params, name);
            without_closing_tag(raw, name, partial)
        };
        match name.as_str() {
            ATTEMPT_COMPLETION => Some((MessageKind::Say(SayKind::CompletionResult), value("result"))),
            ASK_FOLLOWUP_QUESTION => {
                let text = Json::object().with("question", value("question")).with("options", value("options"));
                Some((MessageKind::Ask(AskKind::Followup), text.to_string()))
            }
            name if self.known(name).is_some() => {
                let (say, ask, text) = self.shown(name, &params, &value);
                let kind =
                    if self.auto_approved(name, &params) { MessageKind::Say(say) } else { MessageKind::Ask(ask) };
                Some((kind, text))
            }
            _ => None,
        }
    }

    /// Shows the newest partial state of the block or the reasoning, unless pacing holds it:
    /// the time rule (one update per interval) holds it for a wake-up; the growth rule (from
    /// 1 KiB on, an eighth more text than the last update sent) drops it, for a later state or
    /// the final version to supersede.
    pub(crate) fn show_partial(&mut self, round: &mut Round, which: Paced) {
        let ts = match which {
            Paced::Block => round.index_ts,
            Paced::Reasoning => round.reasoning_ts,
        };
        if let (Some(ts), Some((last_ts, at, len))) = (ts, round.last_partial) {
            if last_ts == ts {
                // NOTE: checked before the time rule, on a bound that costs no text: a state
                // that cannot have grown enough asks for no wake-up.
                if self.partial_len_bound(round, which).is_some_and(|bound| !grown_enough(len, bound)) {
                    if round.paced.is_some_and(|(w, _)| w == which) {
                        round.paced = None;
                    }
                    return;
                }
                let due = at.saturating_add(self.config.presentation_interval_ms);
                if self.now < due {
                    if let Some((other, _)) = round.paced.filter(|(other, _)| *other != which) {
                        self.send_partial(round, other, false);
                    }
                    round.paced = Some((which, due));
                    return;
                }
            }
        }
        self.send_partial(round, which, false);
    }

    /// Sends the held-back partial update if it is due (or `force`); the growth rule may
    /// still drop it.
    pub(crate) fn flush_paced(&mut self, round: &mut Round, force: bool) {
        if let Some((which, due)) = round.paced {
            if force || due <= self.now {
                self.send_partial(round, which, false);
            }
        }
    }

    /// An upper bound of the length of the text [`send_partial`](Self::send_partial) would
    /// build for `which`, when one is known without building it: the reasoning's length, a
    /// text block's content (what is shown of it is never longer). `None` for a tool call.
    fn partial_len_bound(&self, round: &Round, which: Paced) -> Option<usize> {
        match which {
            Paced::Reasoning => Some(round.reasoning.len()),
            Paced::Block => match round.items.get(round.index).copied()? {
                Item::Parsed(n) => round.parsed(n)?.text_content().map(str::len),
                Item::Native(_) => None,
            },
        }
    }

    /// Sends the newest partial state of `which`, unless it is the message's state already or
    /// (without `regardless_of_growth`) the growth rule drops it.
    fn send_partial(&mut self, round: &mut Round, which: Paced, regardless_of_growth: bool) {
        if round.paced.is_some_and(|(w, _)| w == which) {
            round.paced = None;
        }
        let (kind, text) = match which {
            Paced::Reasoning => (MessageKind::Say(SayKind::Reasoning), round.reasoning.clone()),
            Paced::Block => match self.block_view(round) {
                Some(view) => view,
                None => return,
            },
        };
        let len = text.len();
        let current = match which {
            Paced::Reasoning => round.reasoning_ts,
            Paced::Block => round.index_ts,
        };
        let existing = current.filter(|ts| self.transcript.get(*ts).is_some_and(|m| m.kind == kind));
        let ts = match existing {
            Some(ts) => {
                if let Some((_, _, last_len)) = round.last_partial.filter(|(last_ts, ..)| *last_ts == ts) {
                    if !regardless_of_growth && !grown_enough(last_len, len) {
                        // NOTE: this check cost a build of the text: the next one waits an
                        // interval, as after a send, so a stream of small reads does not
                        // build the text once per read.
                        round.last_partial = Some((ts, self.now, last_len));
                        return;
                    }
                }
                if let Some(message) = self.transcript.get_mut(ts) {
                    if message.text == text && message.is_partial() {
                        return;
                    }
                    message.text = text;
                    message.partial = Some(true);
                }
                ts
            }
            None => {
                if which == Paced::Block {
                    self.finish_block_message(round);
                }
                self.transcript.append(self.now, kind, text, Vec::new(), Some(true))
            }
        };
        match which {
            Paced::Reasoning => round.reasoning_ts = Some(ts),
            Paced::Block => round.index_ts = Some(ts),
        }
        round.last_partial = Some((ts, self.now, len));
        self.emit_message(ts);
    }

    /// Makes the current block's message final with `text` (completing a partial one of the
    /// same kind in place, else appending a new one); returns its ts.
    pub(crate) fn final_block_message(&mut self, round: &mut Round, kind: MessageKind, text: String) -> u64 {
        if round.paced.is_some_and(|(w, _)| w == Paced::Block) {
            round.paced = None;
        }
        let existing = round.index_ts.filter(|ts| self.transcript.get(*ts).is_some_and(|m| m.kind == kind));
        let ts = match existing {
            Some(ts) => {
                if let Some(message) = self.transcript.get_mut(ts) {
                    message.text = text;
                    message.partial = Some(false);
                }
                ts
            }
            None => {
                self.finish_block_message(round);
                self.transcript.append(self.now, kind, text, Vec::new(), None)
            }
        };
        round.index_ts = Some(ts);
        self.emit_message(ts);
        ts
    }

    /// Marks the current block's partial message final as it stands, with the newest state
    /// pacing held back or dropped.
    pub(crate) fn finish_block_message(&mut self, round: &mut Round) {
        if round.paced.is_some_and(|(w, _)| w == Paced::Block) {
            self.send_partial(round, Paced::Block, true);
        } else {
            self.update_block_message(round);
        }
        let Some(ts) = round.index_ts.take() else { return };
        if let Some(message) = self.transcript.get_mut(ts) {
            if message.is_partial() {
                message.partial = Some(false);
                self.emit_final(ts);
            }
        }
    }

    /// Brings the current block's partial message to the block's newest state: one the
    /// growth rule dropped, or one no pass showed yet. A message of another kind (the block
    /// now shows as another) is left as it stands.
    fn update_block_message(&mut self, round: &mut Round) {
        let Some(ts) = round.index_ts else { return };
        let Some(shown) = self.transcript.get(ts).filter(|m| m.is_partial()).map(|m| m.kind) else { return };
        let Some((kind, text)) = self.block_view(round) else { return };
        if kind != shown || self.transcript.get(ts).is_some_and(|m| m.text == text) {
            return;
        }
        if let Some(message) = self.transcript.get_mut(ts) {
            message.text = text;
        }
        self.emit_message(ts);
    }

    /// After a failure mid-stream: the message being streamed becomes final as shown.
    pub(crate) fn finish_partial_message(&mut self, round: &mut Round) {
        let pos = round.index;
        if round.items.get(pos).is_some() && round.is_partial(pos) {
            self.finish_block_message(round);
        }
    }

    /// The reasoning message becomes final with all the reasoning (said once if it was
    /// never shown).
    pub(crate) fn finish_reasoning(&mut self, round: &mut Round) {
        if round.paced.is_some_and(|(w, _)| w == Paced::Reasoning) {
            round.paced = None;
        }
        match round.reasoning_ts {
            Some(ts) => {
                if let Some(message) = self.transcript.get_mut(ts) {
                    if message.is_partial() {
                        message.text = round.reasoning.clone();
                        message.partial = Some(false);
                        self.emit_message(ts);
                    }
                }
            }
            None if !round.reasoning.is_empty() => {
                let ts = self.transcript.append(
                    self.now,
                    MessageKind::Say(SayKind::Reasoning),
                    round.reasoning.clone(),
                    Vec::new(),
                    Some(false),
                );
                round.reasoning_ts = Some(ts);
                self.emit_message(ts);
            }
            None => {}
        }
    }
}
