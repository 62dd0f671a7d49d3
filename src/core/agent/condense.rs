//! The host's inputs for context management: a manual condense (`task.condense()`, CONTEXT
//! §4.2-7) and the files a summary needs, read by the host.

use super::message::{AskAnswer, AskKind, AskResponse, MessageKind};
use super::round_state::Wait;
use super::task::{Phase, Task};
use super::texts;

impl Task {
    /// Condenses the conversation now: answers the ask the task waits on (a follow-up
    /// question, a completion, a resume or the mistake limit) with a message carrying the
    /// request, and makes the next request a summarize round, whatever the figure or the
    /// model. `instructions` say what the summary should focus on. The summary is asked
    /// about (`condense`) before it applies.
    ///
    /// # Errors
    /// What the task waits on when it is none of those asks (a tool's approval, a stream…).
    pub fn condense(&mut self, now: u64, instructions: Option<&str>) -> Result<(), String> {
        let Some(ts) = self.condensable_ask() else {
            return Err(format!(
                "condense() needs a task waiting on a follow-up question, a completion, a resume or the \
                 mistake limit; this one is {}",
                self.state()
            ));
        };
        self.ctx.context.condense = Some(instructions.unwrap_or_default().to_owned());
        let text = texts::condense_request(instructions);
        self.handle_ask_answer(now, ts, AskAnswer { response: AskResponse::Message, text, images: Vec::new() });
        Ok(())
    }

    /// The ask a condense may answer.
    fn condensable_ask(&self) -> Option<u64> {
        let ask = |ts: u64, kinds: &[AskKind]| {
            let message = self.ctx.transcript.get(ts)?;
            matches!(message.kind, MessageKind::Ask(kind) if kinds.contains(&kind)).then_some(ts)
        };
        match &self.phase {
            Phase::AwaitingMistakeAnswer { ask_ts, .. } => ask(*ask_ts, &[AskKind::MistakeLimitReached]),
            Phase::AwaitingResumeAnswer { ask_ts, .. } => {
                ask(*ask_ts, &[AskKind::ResumeTask, AskKind::ResumeCompletedTask])
            }
            Phase::InRound(round) => match &round.wait {
                Wait::Followup { ask_ts, .. } => ask(*ask_ts, &[AskKind::Followup]),
                Wait::CompletionAnswer { ask_ts, .. } => ask(*ask_ts, &[AskKind::CompletionResult]),
                _ => None,
            },
            _ => None,
        }
    }

    /// The host read the files of [`Effect::ReadRequiredFiles`](super::Effect::ReadRequiredFiles)
    /// `id`: each `(path, content)` it could read (none when it could not).
    pub fn handle_required_files(&mut self, now: u64, id: u64, files: Vec<(String, String)>) {
        self.ctx.tick(now);
        if let Phase::InRound(round) = &mut self.phase {
            self.ctx.required_files_read(round, id, files);
        }
        self.advance();
    }
}
