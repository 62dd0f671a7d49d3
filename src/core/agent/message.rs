//! The user-facing transcript: say and ask messages, updated in place while partial.
//!
//! Every message has a `ts` that is unique and strictly increasing within a task (it keys
//! the updates, so two messages in one millisecond get consecutive values). A partial
//! update carries the `ts` of the message it updates.

use serde::{Deserialize, Serialize};

use crate::core::conversation::ImageSource;

macro_rules! kinds {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident = $text:literal,)* }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum $name { $($(#[$vdoc])* $variant,)* }

        impl $name {
            /// The reference's name of this kind.
            pub fn as_str(self) -> &'static str {
                match self { $(Self::$variant => $text,)* }
            }
        }
    };
}

kinds!(
    /// What a say message reports (the reference's `ClineSay` names).
    SayKind {
        /// The task's text, first message of a task.
        Task = "task",
        /// A problem the user should see.
        Error = "error",
        /// A failed request that will be retried (JSON text).
        ErrorRetry = "error_retry",
        /// One model request (JSON text with tokens and cost once finished).
        ApiReqStarted = "api_req_started",
        /// A request the user chose to retry.
        ApiReqRetried = "api_req_retried",
        /// Reply text.
        Text = "text",
        /// Reasoning text.
        Reasoning = "reasoning",
        /// The result offered by attempt_completion.
        CompletionResult = "completion_result",
        /// What the user answered, shown in the transcript.
        UserFeedback = "user_feedback",
        /// A tool call that runs without asking (JSON text).
        Tool = "tool",
        /// A checkpoint was saved.
        CheckpointCreated = "checkpoint_created",
        /// A notice.
        Info = "info",
        /// A hook ran.
        HookStatus = "hook_status",
    }
);

kinds!(
    /// What an ask message asks (the reference's `ClineAsk` names).
    AskKind {
        /// A question from the model (JSON text `{question, options}`).
        Followup = "followup",
        /// Accept the result, or reply to it.
        CompletionResult = "completion_result",
        /// Approve a tool call (JSON text).
        Tool = "tool",
        /// A request failed: retry it?
        ApiReqFailed = "api_req_failed",
        /// The model keeps making mistakes: go on?
        MistakeLimitReached = "mistake_limit_reached",
    }
);

/// Say or ask, with its kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageKind {
    /// A message that needs no answer.
    Say(SayKind),
    /// A message the user answers (partial asks are never answered).
    Ask(AskKind),
}

/// One transcript message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// Unique, strictly increasing key within the task.
    pub ts: u64,
    /// Say or ask, and which.
    pub kind: MessageKind,
    /// The text (JSON for tool, followup and request messages).
    pub text: String,
    /// Images attached by the user.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<ImageSource>,
    /// `Some(true)` while streaming, `Some(false)` once a streamed message is final, `None`
    /// for a message that was never partial.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partial: Option<bool>,
}

impl Message {
    /// Whether the message may still change.
    pub fn is_partial(&self) -> bool {
        self.partial == Some(true)
    }
}

/// How the user answered an ask.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum AskResponse {
    /// Approve, retry, proceed, accept.
    #[serde(rename = "yesButtonClicked")]
    Yes,
    /// Deny, cancel.
    #[serde(rename = "noButtonClicked")]
    No,
    /// The user typed a message.
    #[serde(rename = "messageResponse")]
    Message,
}

/// An answer to an ask.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AskAnswer {
    /// Which button, or a message.
    pub response: AskResponse,
    /// What the user typed (empty when nothing).
    #[serde(default)]
    pub text: String,
    /// Images the user attached.
    #[serde(default)]
    pub images: Vec<ImageSource>,
}

impl AskAnswer {
    /// A bare button press.
    pub fn button(response: AskResponse) -> Self {
        Self { response, text: String::new(), images: Vec::new() }
    }

    /// A typed message.
    pub fn message(text: impl Into<String>) -> Self {
        Self { response: AskResponse::Message, text: text.into(), images: Vec::new() }
    }

    /// Whether the user typed text or attached images.
    pub fn has_feedback(&self) -> bool {
        !self.text.is_empty() || !self.images.is_empty()
    }
}

/// The transcript, with the `ts` clock.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Transcript {
    messages: Vec<Message>,
    last_ts: u64,
}

impl Transcript {
    /// Every message, oldest first.
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// A fresh `ts` at `now`: `now`, or one more than the last one if that is not later.
    pub fn next_ts(&mut self, now: u64) -> u64 {
        self.last_ts = now.max(self.last_ts.saturating_add(1));
        self.last_ts
    }

    /// Appends a message and returns its `ts`.
    pub(crate) fn append(
        &mut self,
        now: u64,
        kind: MessageKind,
        text: String,
        images: Vec<ImageSource>,
        partial: Option<bool>,
    ) -> u64 {
        let ts = self.next_ts(now);
        self.messages.push(Message { ts, kind, text, images, partial });
        ts
    }

    /// The message keyed `ts`.
    pub fn get(&self, ts: u64) -> Option<&Message> {
        // NOTE: ts values are strictly increasing, so the list is sorted by ts.
        self.messages.binary_search_by_key(&ts, |m| m.ts).ok().and_then(|i| self.messages.get(i))
    }

    /// The message keyed `ts`, to update in place.
    pub(crate) fn get_mut(&mut self, ts: u64) -> Option<&mut Message> {
        let index = self.messages.binary_search_by_key(&ts, |m| m.ts).ok()?;
        self.messages.get_mut(index)
    }

    /// Marks every partial message final, without telling anyone (abort).
    /// Marks every partial message final; returns their ts.
    pub(crate) fn finish_all_partial(&mut self) -> Vec<u64> {
        let mut finished = Vec::new();
        for message in &mut self.messages {
            if message.partial == Some(true) {
                message.partial = Some(false);
                finished.push(message.ts);
            }
        }
        finished
    }

    /// The newest message.
    pub fn last(&self) -> Option<&Message> {
        self.messages.last()
    }
}
