//! When context management acts, in the loop (CONTEXT §1.3, §3.2, §5, §8, §9): the check
//! before each round's request, the reactive truncation after a context-window error, the
//! figure each finished request leaves, the loop breaker, the compaction say, and the view a
//! request sends (native compaction's part is `native.rs`).

use super::super::effect::{codes, Outcome};
use super::super::message::SayKind;
use super::super::round_state::Round;
use super::super::task::Ctx;
use super::super::texts;
use super::{edit_pass, next_truncation_after, view, Keep, Strategy, ViewPlan};
use crate::core::conversation::Message;
use crate::core::json::Json;
use crate::core::stream::Usage;

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
}

/// The input side of `usage`: input, cache writes and cache reads.
pub(super) fn input_side(usage: &Usage) -> u64 {
    usage
        .input_tokens
        .saturating_add(usage.cache_write_tokens.unwrap_or(0))
        .saturating_add(usage.cache_read_tokens.unwrap_or(0))
}
