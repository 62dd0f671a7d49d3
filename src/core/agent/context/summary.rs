//! The summarize strategy and the manual condense (CONTEXT §4.2): the summarize round, the
//! `summarize_task` call, the files a summary needs (read by the host), and the continuation
//! the task goes on from.

use std::rc::Rc;

use super::super::config::{ToolCalling, ATTEMPT_COMPLETION};
use super::super::effect::Effect;
use super::super::message::{AskKind, MessageKind, SayKind};
use super::super::round_state::{Round, Wait};
use super::super::task::Ctx;
use super::super::tool_job::{get, result_blocks, result_blocks_raw, ToolJob};
use super::manage::Compaction;
use super::texts::{self as context_texts, SUMMARIZE_TASK};
use super::{DeletedRange, Strategy};
use crate::core::conversation::{Content, ContentBlock};
use crate::core::json::Json;

impl Ctx {
    /// Whether `summarize_task` is a tool of the task now: the summarize strategy is in force,
    /// or a summarize round runs.
    pub(crate) fn can_summarize(&self) -> bool {
        self.strategy() == Strategy::Summarize || self.context.summarizing
    }

    /// Makes the parser know `summarize_task` and its parameters (XML tool calling).
    pub(crate) fn know_summarize_tool(&mut self) {
        if self.tools.tool_id(SUMMARIZE_TASK).is_some() {
            return;
        }
        let mut tools = (*self.tools).clone();
        // NOTE: the options reader refuses no name this adds: a user tool of this name was
        // refused when the task may summarize, and a failed add leaves the parser as it was.
        if tools.add_tool(SUMMARIZE_TASK).is_ok() {
            for param in ["context", "task_progress"] {
                if tools.param_id(param).is_none() {
                    let _ = tools.add_param(param);
                }
            }
            self.tools = Rc::new(tools);
        }
    }

    /// Makes the round's request (its user message is the history's last) a summarize round's:
    /// the instruction follows its content (§4.2-2). `before` is the figure that triggered it;
    /// a manual condense is not counted for the loop breaker.
    pub(crate) fn start_summary(&mut self, before: Option<u64>, manual: bool, focus: Option<&str>) {
        self.know_summarize_tool();
        let native = self.config.tool_calling == ToolCalling::Native;
        let focus = focus.or(self.config.context.summarize.instructions.as_deref());
        let instruction = context_texts::summarize_instruction(native, focus);
        if let Some(message) = self.history.last_mut() {
            let mut content = message.content.blocks();
            content.push(ContentBlock::text(instruction));
            message.content = Content::Blocks(content);
        }
        self.context.summarizing = true;
        self.context.manual = manual;
        self.context.summary_before = before;
        if !manual {
            self.count_compaction();
        }
    }

    /// A call other than `summarize_task` or `attempt_completion` in a summarize round, or
    /// `summarize_task` outside one: not run, an error result. `None` when the call goes on.
    pub(crate) fn summary_gate(&self, job: &ToolJob) -> Option<Vec<ContentBlock>> {
        let text = if self.context.summarizing {
            if job.name == SUMMARIZE_TASK || job.name == ATTEMPT_COMPLETION {
                return None;
            }
            context_texts::only_summary_tools_now(&job.name)
        } else if job.name == SUMMARIZE_TASK {
            context_texts::summarize_outside_round()
        } else {
            return None;
        };
        Some(result_blocks_raw(job, text))
    }

    /// `summarize_task` in a summarize round (§4.2-4): shown as the reference's
    /// `summarizeTask`; a manual condense asks the user first.
    pub(crate) fn summarize_call(&mut self, round: &mut Round, job: ToolJob) {
        let summary = get(&job, "context").to_owned();
        let shown = Json::object().with("tool", "summarizeTask").with("content", summary.as_str());
        self.final_block_message(round, MessageKind::Say(SayKind::Tool), shown.to_string());
        if self.context.manual {
            let ask_ts = self.ask(AskKind::Condense, summary);
            round.wait = Wait::Approval { ask_ts, job };
        } else {
            self.read_required_files(round, job);
        }
    }

    /// The files the summary names go to the host (a waiting point, asked again after a
    /// restore), or the summary is taken at once.
    pub(crate) fn read_required_files(&mut self, round: &mut Round, job: ToolJob) {
        let paths = super::files::required_files(get(&job, "context"));
        if !self.config.context.summarize.read_required_files || paths.is_empty() {
            self.accept_summary(round, job, Vec::new());
            return;
        }
        let id = self.new_id();
        self.effects.push_back(Effect::ReadRequiredFiles { id, paths });
        round.wait = Wait::Tool { id, job, deadline: None };
    }

    /// Asks the host again (after a restore) for the files the summary in `job` names (read
    /// `id`).
    pub(crate) fn ask_required_files(&mut self, id: u64, job: &ToolJob) {
        let paths = super::files::required_files(get(job, "context"));
        self.effects.push_back(Effect::ReadRequiredFiles { id, paths });
    }

    /// The host read (some of) the files a summary named (`files`: path and content).
    pub(crate) fn required_files_read(&mut self, round: &mut Round, id: u64, files: Vec<(String, String)>) {
        match std::mem::take(&mut round.wait) {
            Wait::Tool { id: waiting, job, .. } if waiting == id && job.name == SUMMARIZE_TASK => {
                self.accept_summary(round, job, files);
            }
            other => round.wait = other,
        }
    }

    /// Takes the summary (§4.2-5, §4.2-6): the range drops everything up to the summarize
    /// reply, message 0 goes as the continue marker, and the continuation (the summary and the
    /// files) is the call's result: in native mode one line in the result and the rest as
    /// plain text beside it, so that it stays when the call's turn goes.
    pub(crate) fn accept_summary(&mut self, round: &mut Round, job: ToolJob, files: Vec<(String, String)>) {
        let summary = get(&job, "context").to_owned();
        let files = super::files::keep_files(files);
        let parts = context_texts::continuation(&summary, &files);
        let blocks = match &job.call_id {
            Some(id) => {
                let mut blocks = vec![ContentBlock::ToolResult {
                    tool_use_id: id.clone(),
                    content: Content::Text(context_texts::summary_accepted().to_owned()),
                    is_error: false,
                }];
                blocks.extend(parts.into_iter().map(ContentBlock::text));
                blocks
            }
            None => result_blocks(&job, &parts.join("\n\n"), Vec::new(), false),
        };
        // NOTE: in XML mode the call runs while its reply still streams: the reply goes into
        // the history next, at its end.
        let reply = if round.stream_done() { self.history.len().saturating_sub(1) } else { self.history.len() };
        // NOTE: after a provider compaction (auto fell back from native) the view starts at its
        // carrier, and the range after the carrier's turn.
        let start = self.truncation_head() + 2;
        self.context.range = (reply >= start).then_some(DeletedRange { start, end: reply });
        self.context.task_replaced = true;
        self.context.summarizing = false;
        self.context.manual = false;
        self.context.figure = None;
        self.mistakes = 0;
        let before = self.context.summary_before.take();
        self.say_compaction(&Compaction {
            kind: "summary",
            failed: false,
            before,
            after: None,
            summary: Some(&summary),
            reason: None,
        });
        self.finish_tool(round, &job, blocks);
    }

    /// The answer to the `condense` ask: yes takes the summary; a message is the call's
    /// result and nothing is applied; no declines it.
    pub(crate) fn condense_answered(&mut self, round: &mut Round, job: ToolJob, yes: bool, text: &str) {
        self.context.summarizing = false;
        self.context.manual = false;
        if yes {
            self.read_required_files(round, job);
            return;
        }
        let text = if text.is_empty() { super::super::texts::TOOL_DENIED } else { text };
        self.finish_tool(round, &job, result_blocks(&job, text, Vec::new(), false));
    }
}
