//! Tool calls (AGENT-LOOP §9 to §11): gates, approval, execution, results, the built-ins.
//!
//! A complete call becomes a job that moves through its steps: gates (unknown tool,
//! missing parameters), the initial checkpoint for tools that write, the PreToolUse hook,
//! approval, the call itself, the PostToolUse hook, then its result joins the next user
//! content. Each step that waits sets the round's [`Wait`]; the event that ends the wait
//! resumes the job where it stopped.

use super::calls::Known;
use super::config::{ASK_FOLLOWUP_QUESTION, ATTEMPT_COMPLETION};
use super::context::texts::SUMMARIZE_TASK;
use super::effect::{codes, Effect, HookKind, HookResult, Outcome, ToolOutput};
use super::message::{AskAnswer, AskKind, AskResponse, MessageKind, SayKind};
use super::round_loop::hook_context;
use super::round_state::{Round, Skip, Wait};
use super::task::Ctx;
use super::texts;
use crate::core::conversation::{Content, ContentBlock};

use super::tool_job::{get, result_blocks, result_blocks_raw, ToolJob};
use crate::core::json::Json;

/// Identical calls in a row after which the next round starts at the mistake limit.
const IDENTICAL_LIMIT: u32 = 5;

impl Ctx {
    /// Starts the job of a complete tool block.
    pub(crate) fn start_tool(&mut self, round: &mut Round, job: ToolJob) {
        if let Some(blocks) = self.summary_gate(&job) {
            self.finish_block_message(round);
            self.push_result(round, &job, blocks);
            return;
        }
        let known = job.name == ATTEMPT_COMPLETION
            || job.name == ASK_FOLLOWUP_QUESTION
            || job.name == SUMMARIZE_TASK
            || self.known(&job.name).is_some();
        if !known {
            let mut names = String::new();
            for (i, (name, ..)) in texts::all_tools(&self.config, &self.catalog).iter().enumerate() {
                if i > 0 {
                    names.push_str(", ");
                }
                names.push_str(name);
            }
            self.mistakes += 1;
            self.say(SayKind::Error, format!("The model called a tool that does not exist: {}", job.name));
            self.push_result(round, &job, result_blocks_raw(&job, texts::unknown_tool(&job.name, &names)));
            return;
        }
        let repeats = self.identical.peek(&job.name, &job.params);
        if repeats > IDENTICAL_LIMIT {
            // NOTE: the fifth identical call in a row already set the mistake limit for the
            // next round; the ones after it in the same reply (parallel mode) are not run.
            self.finish_block_message(round);
            let text = texts::tool_error(&texts::repeated_call_not_run(&job.name, repeats));
            self.push_result(round, &job, result_blocks_raw(&job, text));
            return;
        }
        // NOTE: a missing parameter, or an MCP call that cannot run (no such server or tool,
        // arguments that are not a JSON object, a required argument missing), is a mistake.
        let spec = texts::params_of(&self.config, &self.catalog, &job.name);
        let problem = match spec.iter().find(|p| p.required && get(&job, &p.name).trim().is_empty()) {
            Some(missing) => Some((
                texts::missing_param_notice(&job.name, &missing.name),
                texts::missing_param(&job.name, &missing.name, job.call_id.is_some()),
            )),
            None if matches!(self.known(&job.name), Some(Known::Mcp)) => {
                self.catalog.check(&job.name, &job.params).map(|p| (p.clone(), texts::tool_error(&p)))
            }
            None => None,
        };
        if let Some((notice, text)) = problem {
            self.mistakes += 1;
            self.finish_block_message(round);
            self.say(SayKind::Error, notice);
            self.push_result(round, &job, result_blocks_raw(&job, text));
            return;
        }
        match job.name.as_str() {
            ATTEMPT_COMPLETION => {
                self.mistakes = 0;
                let result = get(&job, "result").to_owned();
                self.final_block_message(round, MessageKind::Say(SayKind::CompletionResult), result);
                if self.config.hooks.task_complete {
                    let id = self.new_id();
                    self.hook(id, HookKind::TaskComplete, Some(job.name.clone()), job.params.clone(), None);
                    round.wait = Wait::CompletionHook { id, job };
                } else {
                    self.ask_completion(round, job);
                }
            }
            SUMMARIZE_TASK => self.summarize_call(round, job),
            ASK_FOLLOWUP_QUESTION if self.config.yolo => {
                self.finish_block_message(round);
                self.say(SayKind::Info, get(&job, "question").to_owned());
                self.push_result(round, &job, result_blocks(&job, texts::yolo_followup(), Vec::new(), false));
            }
            ASK_FOLLOWUP_QUESTION => {
                let text = Json::object().with("question", get(&job, "question")).with("options", get(&job, "options"));
                let ask_ts = self.final_block_message(round, MessageKind::Ask(AskKind::Followup), text.to_string());
                round.wait = Wait::Followup { ask_ts, job };
            }
            name => {
                if !self.reads_only(name, &job.params) && self.initial_checkpoint.is_some() {
                    round.wait = Wait::Checkpoint(job);
                } else {
                    self.before_approval(round, job);
                }
            }
        }
    }

    /// The initial checkpoint was saved: a job waiting for it goes on.
    pub(crate) fn checkpoint_ready(&mut self, round: &mut Round) {
        if let Wait::Checkpoint(job) = std::mem::take(&mut round.wait) {
            self.before_approval(round, job);
            if matches!(round.wait, Wait::Nothing) {
                self.complete_block(round);
            }
        }
    }

    fn before_approval(&mut self, round: &mut Round, job: ToolJob) {
        if self.config.hooks.pre_tool_use {
            let id = self.new_id();
            self.hook(id, HookKind::PreToolUse, Some(job.name.clone()), job.params.clone(), None);
            round.wait = Wait::PreHook { id, job };
        } else {
            self.approve(round, job);
        }
    }

    fn approve(&mut self, round: &mut Round, job: ToolJob) {
        let (say, ask, text) = self.shown(&job.name, &job.params, &|k| get(&job, k).to_owned());
        if self.auto_approved(&job.name, &job.params) {
            self.final_block_message(round, MessageKind::Say(say), text);
            self.run(round, job);
        } else {
            let ask_ts = self.final_block_message(round, MessageKind::Ask(ask), text);
            round.wait = Wait::Approval { ask_ts, job };
        }
    }

    fn run(&mut self, round: &mut Round, job: ToolJob) {
        let id = self.new_id();
        let timeout = self.timeout_of(&job);
        if self.goes_to_a_server(&job.name, &job.params) {
            self.say(SayKind::McpServerRequestStarted, String::new());
        }
        self.effects.push_back(Effect::RunTool { id, name: job.name.clone(), params: job.params.clone() });
        round.wait = Wait::Tool { id, job, deadline: timeout.map(|ms| self.now.saturating_add(ms)) };
    }

    fn ask_completion(&mut self, round: &mut Round, job: ToolJob) {
        let ask_ts = self.ask(AskKind::CompletionResult, String::new());
        round.wait = Wait::CompletionAnswer { ask_ts, job };
    }

    /// A tool call finished.
    pub(crate) fn tool_done(&mut self, round: &mut Round, id: u64, output: ToolOutput) {
        let Wait::Tool { id: running, .. } = round.wait else { return };
        if running != id {
            return;
        }
        let Wait::Tool { job, .. } = std::mem::take(&mut round.wait) else { return };
        if self.goes_to_a_server(&job.name, &job.params) && !output.is_error {
            self.say_with_images(SayKind::McpServerResponse, output.text.clone(), output.images.clone());
        }
        let (text, failed) = if output.is_error {
            let message = format!("Error executing {}: {}", job.name, output.text);
            self.say(SayKind::Error, message.clone());
            (texts::tool_error(&message), true)
        } else {
            self.mistakes = 0;
            (output.text, false)
        };
        let blocks = result_blocks(&job, &text, output.images, failed);
        if self.config.hooks.post_tool_use {
            let id = self.new_id();
            self.hook(id, HookKind::PostToolUse, Some(job.name.clone()), job.params.clone(), Some(text.clone()));
            round.wait = Wait::PostHook { id, job, text, result: blocks };
        } else {
            self.finish_tool(round, &job, blocks);
        }
    }

    /// Running tools past their deadline are cancelled and fail.
    pub(crate) fn tool_timeouts(&mut self, round: &mut Round) {
        if let Wait::Tool { id, deadline: Some(deadline), .. } = round.wait {
            if deadline <= self.now {
                self.effects.push_back(Effect::CancelTool { id });
                let text = match &round.wait {
                    Wait::Tool { job, .. } => self.timed_out(job),
                    _ => String::new(),
                };
                self.tool_done(round, id, ToolOutput::error(text));
            }
        }
    }

    pub(crate) fn finish_tool(&mut self, round: &mut Round, job: &ToolJob, blocks: Vec<ContentBlock>) {
        self.push_result(round, job, blocks);
        self.count_identical(round, job);
        self.complete_block(round);
    }

    /// Pushes a result; in serial mode no other tool runs in this message after it.
    fn push_result(&mut self, round: &mut Round, job: &ToolJob, blocks: Vec<ContentBlock>) {
        if let Some(id) = &job.call_id {
            let answered = round.user_content.iter().any(|b| {
                matches!(b, ContentBlock::ToolResult { tool_use_id, content, .. } if tool_use_id == id && content != &Content::Text(String::new()))
            });
            if answered {
                return;
            }
        }
        round.user_content.extend(blocks);
        if !self.config.parallel_tool_calling {
            round.skip = round.skip.max(Skip::AfterToolUse);
        }
    }

    /// The same call with identical parameters: a warning at 3, the mistake limit at 5.
    fn count_identical(&mut self, round: &mut Round, job: &ToolJob) {
        match self.identical.record(&job.name, &job.params) {
            3 => round.user_content.push(ContentBlock::text(texts::repeated_call(&job.name))),
            IDENTICAL_LIMIT => self.mistakes = self.config.max_consecutive_mistakes,
            _ => {}
        }
    }

    fn push_feedback(&mut self, round: &mut Round, answer: &AskAnswer) {
        if !answer.has_feedback() {
            return;
        }
        self.say_with_images(SayKind::UserFeedback, answer.text.clone(), answer.images.clone());
        round.user_content.push(ContentBlock::text(texts::feedback(&answer.text)));
        round.user_content.extend(answer.images.iter().cloned().map(|source| ContentBlock::Image { source }));
    }

    /// The answer to an ask of the presenter; returns the outcome when it ends the task.
    pub(crate) fn answer(&mut self, round: &mut Round, ts: u64, answer: AskAnswer) -> Option<Outcome> {
        match std::mem::take(&mut round.wait) {
            Wait::Approval { ask_ts, job } if ask_ts == ts && job.name == SUMMARIZE_TASK => {
                self.condense_answered(round, job, answer.response == AskResponse::Yes, &answer.text);
            }
            Wait::Approval { ask_ts, job } if ask_ts == ts => {
                self.push_feedback(round, &answer);
                if answer.response == AskResponse::Yes {
                    self.run(round, job);
                } else {
                    round.skip = Skip::AfterRejection;
                    self.finish_tool(round, &job, result_blocks(&job, texts::TOOL_DENIED, Vec::new(), true));
                }
            }
            Wait::Followup { ask_ts, job } if ask_ts == ts => {
                self.say_with_images(SayKind::UserFeedback, answer.text.clone(), answer.images.clone());
                self.mistakes = 0;
                let text = format!("<answer>\n{}\n</answer>", answer.text);
                self.finish_tool(round, &job, result_blocks(&job, &text, answer.images, false));
            }
            Wait::CompletionAnswer { ask_ts, job } if ask_ts == ts => {
                let accepted = answer.response == AskResponse::Yes
                    || (answer.response == AskResponse::Message && !answer.has_feedback());
                if accepted {
                    return Some(Outcome::Completed { result: get(&job, "result").to_owned() });
                }
                if !answer.has_feedback() {
                    return Some(Outcome::ended(codes::COMPLETION_DECLINED, "the user declined the result"));
                }
                self.say_with_images(SayKind::UserFeedback, answer.text.clone(), answer.images.clone());
                let mut blocks = vec![
                    ContentBlock::text("[attempt_completion] Result: Done".to_owned()),
                    ContentBlock::text(texts::completion_feedback().to_owned()),
                    ContentBlock::text(format!("<feedback>\n{}\n</feedback>", answer.text)),
                ];
                blocks.extend(answer.images.into_iter().map(|source| ContentBlock::Image { source }));
                let blocks = match &job.call_id {
                    None => blocks,
                    Some(id) => vec![ContentBlock::ToolResult {
                        tool_use_id: id.clone(),
                        content: Content::Blocks(blocks),
                        is_error: false,
                    }],
                };
                self.finish_tool(round, &job, blocks);
            }
            other => round.wait = other,
        }
        None
    }

    /// A hook finished; returns whether it cancels the task.
    pub(crate) fn hook_done(&mut self, round: &mut Round, id: u64, result: HookResult) -> bool {
        match std::mem::take(&mut round.wait) {
            Wait::PreHook { id: waiting, job } if waiting == id => {
                if let Some(context) = result.context.as_deref().filter(|c| !c.is_empty()) {
                    round.user_content.push(ContentBlock::text(hook_context("PreToolUse", context)));
                }
                if result.cancel {
                    let text = texts::tool_error("The PreToolUse hook blocked this tool call.");
                    self.finish_tool(round, &job, result_blocks(&job, &text, Vec::new(), true));
                } else {
                    self.approve(round, job);
                }
            }
            Wait::PostHook { id: waiting, job, result: blocks, .. } if waiting == id => {
                self.push_result(round, &job, blocks);
                if let Some(context) = result.context.as_deref().filter(|c| !c.is_empty()) {
                    round.user_content.push(ContentBlock::text(hook_context("PostToolUse", context)));
                }
                if result.cancel {
                    return true;
                }
                self.count_identical(round, &job);
                self.complete_block(round);
            }
            Wait::CompletionHook { id: waiting, job } if waiting == id => self.ask_completion(round, job),
            other => round.wait = other,
        }
        false
    }

    /// After a restore: asks again for what the presenter waited for.
    pub(crate) fn reissue_wait(&mut self, round: &mut Round) {
        match &round.wait {
            Wait::Approval { ask_ts, .. } | Wait::Followup { ask_ts, .. } | Wait::CompletionAnswer { ask_ts, .. } => {
                self.emit_message(*ask_ts);
            }
            Wait::Tool { id, job, .. } if job.name == SUMMARIZE_TASK => {
                self.ask_required_files(*id, job);
            }
            Wait::Tool { id, job, .. } => {
                self.effects.push_back(Effect::RunTool { id: *id, name: job.name.clone(), params: job.params.clone() });
            }
            Wait::PreHook { id, job } => {
                self.hook(*id, HookKind::PreToolUse, Some(job.name.clone()), job.params.clone(), None)
            }
            Wait::PostHook { id, job, text, .. } => {
                let text = Some(text.clone());
                self.hook(*id, HookKind::PostToolUse, Some(job.name.clone()), job.params.clone(), text);
            }
            Wait::CompletionHook { id, job } => {
                self.hook(*id, HookKind::TaskComplete, Some(job.name.clone()), job.params.clone(), None);
            }
            Wait::Checkpoint(_) | Wait::StreamEnd { .. } | Wait::Nothing => {}
        }
    }
}
