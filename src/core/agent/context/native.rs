//! Native compaction in the loop (CONTEXT §6, §7): what a request asks of its provider, a
//! provider's compaction at a response's end (its say, the breaker's count, the pause), the
//! carrier the view starts at, the task reminder and re-insertion after it, the server's
//! edits, and `auto`'s fallback when the provider refuses.

use super::super::round_state::Round;
use super::super::task::Ctx;
use super::manage::{input_side, Compaction};
use super::texts as context_texts;
use super::{view, Strategy};
use crate::core::conversation::{Content, ContentBlock, Role};
use crate::core::json::Json;
use crate::core::request::{KeepThinking, NativeContext, ServerEdits};
use crate::core::stream::Format;

impl Ctx {
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
