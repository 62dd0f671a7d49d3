//! Snapshots: a task's whole state as JSON at any point where it waits, and a task continued
//! from one. What was pending is asked for again through effects; a stream that was open
//! resumes as a failed stream.

use serde::{Deserialize, Serialize};

use super::config::ConfigError;
use super::effect::{CheckpointKind, Effect, HookKind};
use super::round_state::StreamPhase;
use super::task::{Ctx, Phase, Task};
use crate::core::stream::StreamError;

#[derive(Serialize, Deserialize)]
struct Snapshot {
    version: u32,
    ctx: Ctx,
    phase: Phase,
}

impl Task {
    /// The task as JSON: everything needed to continue it with [`restore`](Self::restore).
    pub fn snapshot(&self) -> String {
        let mut phase = self.phase.clone();
        if let Phase::InRound(round) = &mut phase {
            round.prepare_snapshot();
        }
        let snapshot = Snapshot { version: 1, ctx: self.ctx.clone(), phase };
        // NOTE: every field is plain data with string keys, which always serializes.
        serde_json::to_string(&snapshot).unwrap_or_default()
    }

    /// A task continued from a [`snapshot`](Self::snapshot) at time `now`. What it waited for
    /// is asked again through effects (the pending ask, tool call, hook or checkpoint; the
    /// wake-up); a stream that was open resumes as a failed stream and is retried.
    ///
    /// # Errors
    /// A [`ConfigError`] when the JSON is not a snapshot of this version or its settings
    /// cannot work.
    pub fn restore(json: &str, now: u64) -> Result<Self, ConfigError> {
        let snapshot: Snapshot =
            serde_json::from_str(json).map_err(|e| ConfigError { field: "snapshot".into(), message: e.to_string() })?;
        if snapshot.version != 1 {
            return Err(ConfigError { field: "snapshot".into(), message: "unknown snapshot version".into() });
        }
        let mut task = Self { ctx: snapshot.ctx, phase: snapshot.phase };
        task.ctx.tools = std::rc::Rc::new(task.ctx.config.validate()?);
        task.ctx.tick(now);
        task.ctx.wake = None;
        task.reissue_pending();
        task.advance();
        Ok(task)
    }

    fn reissue_pending(&mut self) {
        if let Some(id) = self.ctx.initial_checkpoint {
            self.ctx.effects.push_back(Effect::SaveCheckpoint { id, kind: CheckpointKind::Initial });
        }
        match &mut self.phase {
            Phase::AwaitingStartHook { id, .. } => self.ctx.hook(*id, HookKind::TaskStart, None, Vec::new(), None),
            Phase::AwaitingRetryAnswer { ask_ts, .. } | Phase::AwaitingMistakeAnswer { ask_ts, .. } => {
                self.ctx.reissue_ask(*ask_ts);
            }
            Phase::AwaitingCheckpoint { id, .. } => {
                self.ctx.effects.push_back(Effect::SaveCheckpoint { id: *id, kind: CheckpointKind::Round });
            }
            Phase::InRound(round) => {
                round.restore(std::rc::Rc::clone(&self.ctx.tools));
                if let StreamPhase::RetryAsk { ask_ts } = round.stream {
                    self.ctx.reissue_ask(ask_ts);
                }
                self.ctx.reissue_wait(round);
                if matches!(round.stream, StreamPhase::Open { .. }) {
                    let error = StreamError::Incomplete { expected: "the end of the reply (the task was restored)" };
                    self.stream_failed(&error);
                }
            }
            _ => {}
        }
    }
}
