//! When context management acts, in the loop (CONTEXT §1.3, §3.2, §5, §8, §9): the check
//! before each round's request, the reactive truncation after a context-window error, the
//! figure each finished request leaves, the loop breaker, and the compaction say.

use super::super::effect::{codes, Outcome};
use super::super::message::SayKind;
use super::super::round_state::Round;
use super::super::task::Ctx;
use super::super::texts;
use super::context_texts;
use super::{edit_pass, next_truncation_after, view, Keep, Strategy, ViewPlan};
use crate::core::conversation::{Content, ContentBlock, Message, Role};
use crate::core::json::Json;
use crate::core::request::{KeepThinking, NativeContext, ServerEdits};
use crate::core::stream::{Format, Usage};

/// What a compaction did, for its say (§9.1).
pub(crate) struct Compaction<'a> {
    /// `truncate`, `edit`, `summary` or `native`.
    pub(crate) kind: &'a str,
    /// Whether it failed (`reason` says why).
    pub(crate) failed: bool,
    /// The figure that triggered it, when known.
    pub(crate) before: Option<u64>,
    /// The context size measured right after it, when known.
    pub(crate) after: Option<u64>,
    /// The summary, where there is one to show.
    pub(crate) summary: Option<&'a str>,
    /// Why it failed.
    pub(crate) reason: Option<&'a str>,
}

impl Ctx {
    /// The context limit (§1.1).
    pub(crate) fn context_limit(&self) -> u64 {
        self.config.context.limit(&self.config.info)
    }

    /// The strategy in force.
    pub(crate) fn strategy(&self) -> Strategy {
        self.config.context.effective(self.context.fell_back)
    }

    /// The check before a round's request (the history holds its user message): acts when
    /// the previous request's figure reached the limit. Returns the outcome that ends the
    /// task when the loop breaker trips.
    pub(crate) fn check_context(&mut self) -> Option<Outcome> {
        self.context.compacted = false;
        // NOTE: a summarize round that gave no summary is over (it counted as a compaction).
        self.context.summarizing = false;
        self.context.manual = false;
        if let Some(instructions) = self.context.condense.take() {
            let focus = Some(instructions.as_str()).filter(|i| !i.is_empty());
            let figure = self.context.figure.take();
            self.start_summary(figure, true, focus);
            return None;
        }
        let limit = self.context_limit();
        let unmeasured = std::mem::take(&mut self.context.unmeasured);
        let over = self.context.figure.filter(|figure| *figure >= limit);
        if over.is_none() && !unmeasured {
            return None;
        }
        if let Some(outcome) = self.breaker(limit) {
            return Some(outcome);
        }
        let figure = over?;
        let strategy = self.strategy();
        let native = &self.config.context.native;
        let server_edits = strategy == Strategy::Native && native.server_edits;
        let edit_configured = self.config.context.edit.is_some() && !server_edits;
        if strategy == Strategy::Native && !native.endpoint && !edit_configured {
            // The provider compacts inline; the figure feeds only the loop breaker.
            return None;
        }
        self.context.figure = None;
        let mut left = figure;
        if let Some(edit) = self.config.context.edit.as_ref().filter(|_| edit_configured) {
            let from = self.context.range.map_or(1, |range| range.end + 1);
            let (state, saved) = edit_pass(&self.history, from, &self.context.edits, edit, self.config.format);
            if saved > 0 {
                self.context.edits = state;
                left = figure.saturating_sub(saved);
                self.count_compaction();
                self.say_compaction(&Compaction {
                    kind: "edit",
                    failed: false,
                    before: Some(figure),
                    after: None,
                    summary: None,
                    reason: None,
                });
            }
        }
        if strategy == Strategy::Summarize {
            // NOTE: skipped, the request going as it is, when too little is left to summarize.
            let from = self.context.range.map_or(2, |range| range.end + 1);
            if self.history.len().saturating_sub(from) > 2 {
                self.start_summary(Some(figure), false, None);
            }
            return None;
        }
        let truncates = match strategy {
            Strategy::Truncate => true,
            Strategy::Edit => left >= limit,
            _ => false,
        };
        if truncates {
            // NOTE: the reference compares figure / 2 > limit in floating point.
            let keep = if figure > limit.saturating_mul(2) { Keep::Quarter } else { Keep::Half };
            self.truncate(keep, Some(figure));
        }
        None
    }

    /// A reply that held a provider compaction has ended (§6.2, §6.3): its say, counted for
    /// the loop breaker; a failed one (no content) is no boundary. Returns whether the
    /// response paused after the compaction.
    pub(crate) fn provider_compacted(&mut self, round: &Round) -> bool {
        let blocks = self.history.last().map(|m| m.content.blocks()).unwrap_or_default();
        let Some(ContentBlock::Compaction { content, .. }) =
            blocks.iter().rev().find(|b| matches!(b, ContentBlock::Compaction { .. }))
        else {
            return false;
        };
        let usage = &round.attempt;
        let anthropic = self.config.format == Format::Anthropic;
        let input = input_side(usage);
        let failed = anthropic && content.is_none();
        // NOTE: a compaction that brought the figure under the limit ends the run (§8); a
        // failed one, or one the usage does not measure, counts.
        let limit = self.context_limit();
        if failed || self.context.figure.map_or(true, |figure| figure >= limit) {
            self.context.consecutive += 1;
        }
        self.context.unmeasured = self.context.figure.is_none();
        let paused = round.stop_reason.as_deref() == Some("compaction");
        if anthropic && !failed && !paused {
            self.context.reminder = true;
        }
        let content = content.clone();
        self.say_compaction(&Compaction {
            kind: "native",
            failed,
            before: if anthropic { usage.compaction_tokens.or(Some(input)) } else { Some(input) },
            after: if anthropic { usage.context_tokens } else { None },
            summary: content.as_deref(),
            reason: failed.then_some("the provider returned no summary"),
        });
        paused && !failed
    }

    /// `auto` switches to its fallback for the rest of the task when the provider refused its
    /// native request (§7): reported once; the request goes again at once without the native
    /// fields. `false` under any other strategy (an explicit `native` fails as it is).
    pub(crate) fn fall_back_from_native(&mut self, message: &str) -> bool {
        if self.config.context.strategy != Strategy::Auto || self.strategy() != Strategy::Native {
            return false;
        }
        self.context.fell_back = true;
        self.say_compaction(&Compaction {
            kind: "native",
            failed: true,
            before: None,
            after: None,
            summary: None,
            reason: Some(message),
        });
        true
    }

    /// Ends the task when `maxConsecutiveCompactions` compactions in a row left the context
    /// over `limit` and another one is needed (§8).
    fn breaker(&mut self, limit: u64) -> Option<Outcome> {
        let count = self.context.consecutive;
        if count < self.config.context.max_consecutive_compactions {
            return None;
        }
        let message = format!(
            "The context stayed over its limit of {limit} tokens after {count} compactions in a row; the task stops."
        );
        self.say(SayKind::Error, message.clone());
        Some(Outcome::failed(codes::CONTEXT_WINDOW_EXCEEDED, message))
    }

    /// Counts a compaction for the request being made (§8).
    pub(crate) fn count_compaction(&mut self) {
        if !self.context.compacted {
            self.context.compacted = true;
            self.context.consecutive += 1;
        }
    }

    /// Truncates `keep` more of the history (§3.2); returns whether anything more was removed.
    pub(crate) fn truncate(&mut self, keep: Keep, before: Option<u64>) -> bool {
        let range = next_truncation_after(&self.history, self.truncation_head(), self.context.range, keep);
        if range == self.context.range {
            return false;
        }
        self.context.range = range;
        self.count_compaction();
        self.say_compaction(&Compaction {
            kind: "truncate",
            failed: false,
            before,
            after: None,
            summary: None,
            reason: None,
        });
        true
    }

    /// After a context-window error (AGENT-LOOP §13.3): three quarters go. `Err` with the
    /// reason when the task must end instead (nothing left to remove, or the loop breaker).
    pub(crate) fn reactive_truncation(&mut self) -> Result<(), String> {
        let limit = self.context_limit();
        if self.context.consecutive >= self.config.context.max_consecutive_compactions {
            return Err(format!(
                "the context stayed over its limit of {limit} tokens after {} compactions in a row",
                self.context.consecutive
            ));
        }
        self.context.compacted = false;
        let figure = self.context.figure.take();
        if self.truncate(Keep::Quarter, figure) {
            Ok(())
        } else {
            Err("the history cannot be truncated further".into())
        }
    }

    /// Takes the figure a finished request left (§1.2, §1.3): the last pass's context size,
    /// none without usage or after a provider compaction the usage does not measure; a figure
    /// under the limit ends a run of compactions (§8).
    pub(crate) fn record_figure(&mut self, round: &Round, compaction: bool) {
        let usage = &round.attempt;
        let sum = input_side(usage).saturating_add(usage.output_tokens);
        self.context.figure = match (round.usage_seen, usage.context_tokens, compaction) {
            (false, _, _) => None,
            (true, Some(context), _) => Some(context),
            (true, None, true) => None,
            (true, None, false) => Some(sum),
        };
        if self.context.figure.is_some_and(|figure| figure < self.context_limit()) {
            self.context.consecutive = 0;
        }
    }

    /// Sets `key: true` on the `api_req_started` message `ts` (a reactive truncation's retry
    /// reuses its request's message, §9.2).
    pub(crate) fn mark_api_req(&mut self, ts: u64, key: &str) {
        let Some(message) = self.transcript.get_mut(ts) else { return };
        let mut info = Json::parse(&message.text).ok().filter(Json::is_object).unwrap_or_else(Json::object);
        info.set(key, true);
        message.text = info.to_string();
    }

    /// The server cleared context (Anthropic context editing, §6.2 "Server-side edit"): one
    /// `edit` say when its `applied_edits` list anything.
    pub(crate) fn server_edited(&mut self, round: &Round) {
        let Some(edits) = round.attempt.applied_edits.as_ref().and_then(Json::as_array) else { return };
        if edits.is_empty() {
            return;
        }
        let cleared: u64 = edits.iter().filter_map(|e| e.get("cleared_input_tokens").and_then(Json::as_u64)).sum();
        let before = self.context.figure.map(|figure| figure.saturating_add(cleared));
        self.say_compaction(&Compaction {
            kind: "edit",
            failed: false,
            before,
            after: None,
            summary: None,
            reason: None,
        });
    }

    /// Emits the compaction say (§9.1): `{id, kind, provider?, status, tokensBefore,
    /// tokensAfter?, summary?, reason?}`.
    pub(crate) fn say_compaction(&mut self, c: &Compaction<'_>) {
        let id = self.new_id();
        let mut text = Json::object().with("id", id).with("kind", c.kind);
        if c.kind == "native" {
            text.set("provider", self.config.format.name());
        }
        text.set("status", if c.failed { "failed" } else { "completed" });
        text.set("tokensBefore", c.before.map_or(Json::Null, Json::from));
        if let Some(after) = c.after {
            text.set("tokensAfter", after);
        }
        if let Some(summary) = c.summary {
            text.set("summary", summary);
        }
        if let Some(reason) = c.reason {
            text.set("reason", reason);
        }
        self.say(SayKind::Compaction, text.to_string());
    }

    /// The reminder of the task that opens the user message after a provider compaction
    /// (§6.2): message 0's first text.
    pub(crate) fn task_reminder(&self) -> String {
        let task = self.history.first().map(|m| m.content.blocks()).unwrap_or_default();
        let text = task.iter().find_map(|b| match b {
            ContentBlock::Text { text, .. } => Some(text.as_str()),
            _ => None,
        });
        context_texts::task_reminder(text.unwrap_or_default())
    }

    /// The user message after a paused compaction (§6.2): the task reminder, then the content
    /// the compacted request sent, results as text (their calls are inside the compaction).
    pub(crate) fn reinsertion(&self) -> Vec<ContentBlock> {
        let before = self.history.len().checked_sub(2).and_then(|at| self.history.get(at));
        let sent = before.filter(|m| m.role == Role::User).map(|m| m.content.blocks()).unwrap_or_default();
        let reminder = self.task_reminder();
        // NOTE: after a pause in a row, the content sent already opens with the reminder.
        let sent: Vec<ContentBlock> =
            sent.into_iter().filter(|b| !matches!(b, ContentBlock::Text { text, .. } if *text == reminder)).collect();
        let mut content = vec![ContentBlock::text(reminder)];
        content.extend(view::results_as_text(sent));
        content
    }

    /// The native context management the next request asks of its provider (§6), when the
    /// strategy in force is native.
    pub(crate) fn native_context(&self) -> Option<Box<NativeContext>> {
        if self.strategy() != Strategy::Native {
            return None;
        }
        let native = &self.config.context.native;
        let edits = match (&self.config.context.edit, native.server_edits && self.config.format == Format::Anthropic) {
            (_, false) => None,
            (edit, true) => {
                let edit = edit.clone().unwrap_or_default();
                Some(ServerEdits {
                    keep_tool_uses: edit.keep_tool_uses,
                    keep_thinking_turns: edit.keep_thinking_turns.map_or(KeepThinking::All, KeepThinking::Turns),
                    exclude_tools: edit.exclude_tools,
                    clear_tool_inputs: edit.clear_tool_inputs,
                    clear_at_least: edit.clear_at_least,
                })
            }
        };
        Some(Box::new(NativeContext {
            compact_threshold: (!native.endpoint).then(|| self.context_limit()),
            instructions: native.instructions.clone(),
            pause_after_compaction: native.pause_after_compaction,
            edits,
        }))
    }

    /// The messages of the next request, and for each the history message it is unchanged
    /// from (CONTEXT §0 "view").
    pub(crate) fn request_view(&self) -> (Vec<Message>, Vec<Option<usize>>) {
        let edit = self.config.context.edit.as_ref();
        let placeholder = edit.and_then(|e| e.placeholder.as_deref()).unwrap_or(texts::tool_result_cleared());
        let edits = edit.map(|e| (&self.context.edits, placeholder, e.clear_tool_inputs));
        let carrier = self.carrier();
        let native = &self.config.context.native;
        let plan = ViewPlan {
            range: self.context.range,
            task_replaced: self.context.task_replaced,
            edits: edits.filter(|(state, ..)| !state.cleared.is_empty() || state.thinking_before > 0),
            from: carrier.filter(|_| native.drop_compacted),
            thinking_before: carrier.filter(|_| !native.drop_compacted && self.config.context.refuses_old_thinking),
        };
        view(&self.history, &plan)
    }

    /// The newest carrier whose compaction is a boundary: an Anthropic block with content, or
    /// an OpenAI item with its encrypted state (§6.2, §6.3; a failed compaction is none).
    pub(crate) fn carrier(&self) -> Option<usize> {
        if !matches!(self.config.format, Format::Anthropic | Format::OpenAiResponses) {
            return None;
        }
        self.history.iter().rposition(|m| match &m.content {
            Content::Blocks(blocks) if m.role == Role::Assistant => blocks.iter().any(|b| match b {
                ContentBlock::Compaction { provider: Format::Anthropic, content, .. } => content.is_some(),
                ContentBlock::Compaction { encrypted_content, .. } => encrypted_content.is_some(),
                _ => false,
            }),
            _ => false,
        })
    }

    /// Where truncation's range starts from: the view's head (§6.3).
    pub(crate) fn truncation_head(&self) -> usize {
        self.carrier().filter(|_| self.config.context.native.drop_compacted).unwrap_or(0)
    }
}

/// The input side of `usage`: input, cache writes and cache reads.
fn input_side(usage: &Usage) -> u64 {
    usage
        .input_tokens
        .saturating_add(usage.cache_write_tokens.unwrap_or(0))
        .saturating_add(usage.cache_read_tokens.unwrap_or(0))
}
