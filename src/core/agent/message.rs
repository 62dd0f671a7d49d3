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

            /// The kind named `name`, if clew knows it.
            pub fn parse(name: &str) -> Option<Self> {
                match name { $($text => Some(Self::$variant),)* _ => None }
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
        /// A call of an MCP server's tool or resource that runs without asking (JSON text
        /// `{type, serverName, toolName?, arguments?, uri?}`).
        UseMcpServer = "use_mcp_server",
        /// An MCP call started.
        McpServerRequestStarted = "mcp_server_request_started",
        /// What an MCP server answered (text and images).
        McpServerResponse = "mcp_server_response",
        /// A compaction of the context (clew's own kind, CONTEXT §9.1: JSON text `{id, kind,
        /// provider?, status, tokensBefore, tokensAfter?, summary?, reason?}`).
        Compaction = "compaction",
        /// A kind clew does not emit, kept from a transcript given to `Task::from_history`
        /// (its name is in [`Message::other_kind`]).
        Other = "other",
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
        /// Approve a call of an MCP server's tool or resource (JSON text `{type, serverName,
        /// toolName?, arguments?, uri?}`).
        UseMcpServer = "use_mcp_server",
        /// A request failed: retry it?
        ApiReqFailed = "api_req_failed",
        /// The model keeps making mistakes: go on?
        MistakeLimitReached = "mistake_limit_reached",
        /// The task was interrupted and restored from its history: resume it?
        ResumeTask = "resume_task",
        /// A task that had offered its result was restored from its history: go on with it?
        ResumeCompletedTask = "resume_completed_task",
        /// A manual condense's summary: apply it? (a message instead is the model's answer).
        Condense = "condense",
        /// A kind clew does not ask, kept from a transcript given to `Task::from_history`
        /// (its name is in [`Message::other_kind`]).
        Other = "other",
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
    /// The kind's own name when the kind is `Other` (a message kept from a transcript
    /// given to `Task::from_history`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub other_kind: Option<String>,
}

impl Message {
    /// Whether the message may still change.
    pub fn is_partial(&self) -> bool {
        self.partial == Some(true)
    }

    /// The kind's name (`say` or `ask` value of the JS shape).
    pub fn kind_name(&self) -> &str {
        match (self.kind, &self.other_kind) {
            (MessageKind::Say(SayKind::Other) | MessageKind::Ask(AskKind::Other), Some(name)) => name,
            (MessageKind::Say(kind), _) => kind.as_str(),
            (MessageKind::Ask(kind), _) => kind.as_str(),
        }
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
    /// The first message changed since [`take_changes`](Self::take_changes) (none: `len`).
    #[serde(skip)]
    changed_from: usize,
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
        self.changed_from = self.changed_from.min(self.messages.len());
        self.messages.push(Message { ts, kind, text, images, partial, other_kind: None });
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
        self.changed_from = self.changed_from.min(index);
        self.messages.get_mut(index)
    }

    /// Marks every partial message final, without telling anyone (abort).
    /// Marks every partial message final; returns their ts.
    pub(crate) fn finish_all_partial(&mut self) -> Vec<u64> {
        let mut finished = Vec::new();
        for (index, message) in self.messages.iter_mut().enumerate() {
            if message.partial == Some(true) {
                self.changed_from = self.changed_from.min(index);
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

    /// The last `ts` given out.
    pub(crate) fn last_ts(&self) -> u64 {
        self.last_ts
    }

    /// A transcript of `messages` whose clock continues after `last_ts` (and after every
    /// message's `ts`). Every message counts as changed.
    pub(crate) fn from_parts(messages: Vec<Message>, last_ts: u64) -> Self {
        let last_ts = messages.iter().map(|m| m.ts).fold(last_ts, u64::max);
        Self { messages, last_ts, changed_from: 0 }
    }

    /// Where the messages changed since the last call begin (every message changed from
    /// there on, or none when it is the length), and forgets the changes.
    pub(crate) fn take_changes(&mut self) -> usize {
        std::mem::replace(&mut self.changed_from, self.messages.len())
    }
}
