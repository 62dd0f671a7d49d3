//! What rounds share: the transcript and its say/ask effects, retries, the model request,
//! history records, usage, and the wake-up time.

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use super::config::{TaskConfig, ToolCalling};
use super::effect::{Effect, HookKind};
use super::mcp::{self, McpCatalog};
use super::message::{AskKind, MessageKind, SayKind};
use super::round_state::{Received, Retry, Round, StreamPhase, Wait};
use super::task::{Ctx, Phase};
use super::texts;
use super::turn;
use crate::core::conversation::{self, Content, ImageSource, Role};
use crate::core::json::Json;
use crate::core::request::ModelRequest;
use crate::core::stream::Usage;

impl Ctx {
    /// Every input starts here: the clock moves (never back), and the stored snapshot is
    /// no longer current.
    pub(crate) fn tick(&mut self, now: u64) {
        self.now = self.now.max(now);
        self.persist_due = true;
    }

    pub(crate) fn new_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// Emits the message `ts` as a say or ask effect.
    pub(crate) fn emit_message(&mut self, ts: u64) {
        if let Some(message) = self.transcript.get(ts) {
            let effect = match message.kind {
                MessageKind::Say(_) => Effect::Say(message.clone()),
                MessageKind::Ask(_) => Effect::Ask(message.clone()),
            };
            self.effects.push_back(effect);
        }
    }

    /// Emits the final version of the message `ts` that was shown partial and will not be
    /// completed: a say goes out; an ask does not (a complete ask is a question to answer,
    /// and this one is no longer asked), it is final in the transcript only.
    pub(crate) fn emit_final(&mut self, ts: u64) {
        if self.transcript.get(ts).is_some_and(|m| matches!(m.kind, MessageKind::Say(_))) {
            self.emit_message(ts);
        }
    }

    /// Appends and emits a say.
    pub(crate) fn say(&mut self, kind: SayKind, text: String) -> u64 {
        self.say_with_images(kind, text, Vec::new())
    }

    /// Appends and emits a say with images.
    pub(crate) fn say_with_images(&mut self, kind: SayKind, text: String, images: Vec<ImageSource>) -> u64 {
        let ts = self.transcript.append(self.now, MessageKind::Say(kind), text, images, None);
        self.emit_message(ts);
        ts
    }

    /// Appends and emits a complete ask; returns its ts.
    pub(crate) fn ask(&mut self, kind: AskKind, text: String) -> u64 {
        let ts = self.transcript.append(self.now, MessageKind::Ask(kind), text, Vec::new(), None);
        self.emit_message(ts);
        ts
    }

    pub(super) fn reissue_ask(&mut self, ts: u64) {
        self.emit_message(ts);
    }

    pub(crate) fn hook(
        &mut self,
        id: u64,
        kind: HookKind,
        tool: Option<String>,
        params: Vec<(String, String)>,
        result: Option<String>,
    ) {
        self.effects.push_back(Effect::RunHook { id, kind, tool, params, result });
    }

    /// The request for the next stream, and for each of its messages the history message
    /// it is unchanged from ([`Effect::OpenStream`]).
    pub(crate) fn model_request(&self) -> (ModelRequest, Vec<Option<usize>>) {
        let tools = if self.config.tool_calling == ToolCalling::Native {
            let mut tools = super::tool_job::definitions(&self.config, &self.catalog);
            if self.can_summarize() {
                tools.push(super::context::texts::summarize_tool_definition());
            }
            tools
        } else {
            Vec::new()
        };
        let (messages, unchanged) = self.request_view();
        let request = ModelRequest {
            system: self.system_prompt(),
            messages,
            tools,
            model: Default::default(),
            context: self.native_context(),
        };
        (request, unchanged)
    }

    /// The system prompt. While no MCP server is listed it depends on the config alone, and
    /// the last one made is kept for the requests of every task of the same config (tasks
    /// made with the same options share it): it is made once, not for every request.
    fn system_prompt(&self) -> String {
        thread_local! {
            static KEPT: RefCell<Option<(Weak<TaskConfig>, String)>> = const { RefCell::new(None) };
        }
        if !self.catalog.servers.is_empty() || !self.catalog.prompt.is_empty() {
            return texts::system_prompt(&self.config, &self.catalog);
        }
        let config = Rc::as_ptr(&self.config);
        let kept = KEPT.try_with(|kept| {
            let kept = kept.try_borrow().ok()?;
            kept.as_ref().filter(|(of, _)| std::ptr::eq(of.as_ptr(), config)).map(|(_, prompt)| prompt.clone())
        });
        if let Some(prompt) = kept.ok().flatten() {
            return prompt;
        }
        let prompt = texts::system_prompt(&self.config, &self.catalog);
        // NOTE: a `Weak` keeps the config's allocation, so no other config can take its address.
        let _ = KEPT.try_with(|kept| {
            kept.try_borrow_mut().map(|mut kept| *kept = Some((Rc::downgrade(&self.config), prompt.clone())))
        });
        prompt
    }

    /// Takes `catalog` as what the task knows of its MCP servers: the parser knows the two
    /// MCP tools while their calls are known.
    pub(crate) fn set_catalog(&mut self, catalog: McpCatalog) {
        self.catalog = catalog;
        // NOTE: the options reader refused user tools of the MCP tools' names, and the task
        // was made with these options: this cannot fail.
        if let Ok(mut tools) = self.config.validate() {
            self.catalog.add_tools(&mut tools);
            self.tools = Rc::new(tools);
        }
    }

    /// Sends the round's request as it stands, the stream open and waiting for its first
    /// byte; with MCP servers not left out, once they are listed (the round waits in
    /// [`StreamPhase::Listing`] until [`Task::handle_mcp_servers`](super::Task::handle_mcp_servers)
    /// or the listing's deadline sends it).
    pub(crate) fn open_stream(&mut self, round: &mut Round) {
        self.mcp_listed.clear();
        for server in &self.config.mcp_servers {
            if !mcp::named(&self.mcp_left_out, &server.name) {
                self.mcp_listed.push(server.name.clone());
            }
        }
        if self.mcp_listed.is_empty() {
            self.send_request(round);
        } else {
            let deadline = self.config.mcp_listing_ms.map(|ms| self.now.saturating_add(ms));
            round.stream = StreamPhase::Listing { deadline };
            self.effects.push_back(Effect::ListMcpServers { id: round.stream_id });
        }
    }

    /// Sends the round's request as it stands, the stream open and waiting for its first
    /// byte.
    pub(crate) fn send_request(&mut self, round: &mut Round) {
        round.stream = StreamPhase::Open {
            deadline: self.config.timeouts.first_byte_ms.map(|ms| self.now.saturating_add(ms)),
            received: Received::Nothing,
        };
        let (request, unchanged) = self.model_request();
        let format = self.config.format;
        self.effects.push_back(Effect::OpenStream { stream: round.stream_id, request, format, unchanged });
    }

    /// Adds the assistant turn of `round` to the history, with `marker` appended to its text.
    /// Called once a round, when its stream stops delivering.
    pub(crate) fn record_reply(&mut self, round: &Round, marker: Option<&str>) {
        let blocks = turn::blocks(&round.parts, round.parser.text(), marker, round.natives.calls(), |call| {
            Json::parse(call.arguments.raw())
                .ok()
                .filter(Json::is_object)
                .unwrap_or_else(|| super::tool_job::params_object(call))
        });
        if !blocks.is_empty() {
            self.history.push(conversation::Message { role: Role::Assistant, content: Content::Blocks(blocks) });
        }
    }

    /// Finalises the round's `api_req_started` message with its tokens and cost.
    /// Called once a round, when its stream stops delivering.
    pub(crate) fn finish_api_req(&mut self, round: &Round, cancel: Option<(&str, &str)>) {
        let usage = &round.usage;
        let cost = self.config.info.cost(usage);
        let compaction = round.compaction;
        self.record_figure(round, compaction);
        let figure = self.context.figure;
        let Some(message) = self.transcript.get_mut(round.api_req_ts) else { return };
        let mut info = Json::parse(&message.text).ok().filter(Json::is_object).unwrap_or_else(Json::object);
        info.set("tokensIn", usage.input_tokens);
        info.set("tokensOut", usage.output_tokens);
        info.set("cacheWrites", usage.cache_write_tokens.unwrap_or(0));
        info.set("cacheReads", usage.cache_read_tokens.unwrap_or(0));
        info.set("cost", cost);
        if let Some(figure) = figure {
            info.set("contextTokens", figure);
        }
        if compaction {
            info.set("compactionPass", "native");
        }
        if round.usage_incomplete {
            info.set("usageComplete", false);
        }
        if let Some((reason, text)) = cancel {
            info.set("cancelReason", reason);
            if !text.is_empty() {
                info.set("streamingFailedMessage", text);
            }
        }
        message.text = info.to_string();
        message.partial = Some(false);
        self.emit_message(round.api_req_ts);
    }

    /// Adds a usage chunk to the round and the task.
    pub(crate) fn add_usage(&mut self, round: &mut Round, usage: &Usage) {
        if usage.whole {
            // The provider's last word replaces what this reply said so far (the round's
            // earlier attempts still count).
            let said = std::mem::take(&mut round.attempt);
            self.count_usage(&said, true);
            round.usage.take_back(&said);
        }
        round.usage_seen = true;
        for total in [&mut round.usage, &mut round.attempt] {
            total.add(usage);
            if usage.context_tokens.is_some() {
                total.context_tokens = usage.context_tokens;
            }
            if usage.compaction_tokens.is_some() {
                total.compaction_tokens = usage.compaction_tokens;
            }
            if usage.applied_edits.is_some() {
                total.applied_edits.clone_from(&usage.applied_edits);
            }
        }
        self.count_usage(usage, false);
    }

    /// Adds `usage` to the task's, or takes it back out (`back`: a reply read again after a
    /// restore counts once).
    pub(crate) fn count_usage(&mut self, usage: &Usage, back: bool) {
        let count =
            |total: &mut u64, n: u64| *total = if back { total.saturating_sub(n) } else { total.saturating_add(n) };
        let task = &mut self.usage;
        count(&mut task.input_tokens, usage.input_tokens);
        count(&mut task.output_tokens, usage.output_tokens);
        count(&mut task.cache_write_tokens, usage.cache_write_tokens.unwrap_or(0));
        count(&mut task.cache_read_tokens, usage.cache_read_tokens.unwrap_or(0));
        let cost = self.config.info.cost(usage);
        if cost.is_finite() {
            task.total_cost = if back { (task.total_cost - cost).max(0.0) } else { task.total_cost + cost };
        }
    }

    /// Recomputes the earliest deadline and emits `WakeAt` when it changed.
    /// Asks for a wake-up when the earliest deadline is earlier than the one already asked
    /// for. A deadline that moved later (the idle timeout, at every read) keeps the armed
    /// wake-up: it fires early, finds nothing due and asks again, which is far cheaper than
    /// re-arming a timer per read.
    pub(super) fn update_wake(&mut self, phase: &Phase) {
        let mut wake: Option<u64> = None;
        let mut add = |t: u64| wake = Some(wake.map_or(t, |w: u64| w.min(t)));
        if let Some(Retry::Delay { until }) = phase.retry() {
            add(until);
        }
        if let Phase::InRound(round) = phase {
            if let StreamPhase::Open { deadline: Some(t), .. } | StreamPhase::Listing { deadline: Some(t), .. } =
                round.stream
            {
                add(t);
            }
            if let Wait::Tool { deadline: Some(t), .. } = round.wait {
                add(t);
            }
            if let Some((_, due)) = round.paced {
                add(due);
            }
        }
        let earlier = match (wake, self.wake) {
            (Some(want), Some(armed)) => want < armed,
            (Some(_), None) => true,
            (None, _) => false,
        };
        if earlier && !matches!(phase, Phase::Finished(_)) {
            self.wake = wake;
            self.effects.push_back(Effect::WakeAt(wake));
        }
    }
}
