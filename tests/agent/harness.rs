//! A driver for native tests: a scripted model (bytes per request), scripted answers and
//! tools, and a fake clock. Effects are answered through a queue of events, as a real
//! driver's promises would be.

use std::collections::VecDeque;

use clew::agent::{
    AskAnswer, AskResponse, Effect, HookKind, HookResult, Message, MessageKind, Outcome, Task, TaskConfig, ToolOutput,
};
use clew::conversation::{ContentBlock, Role};
use clew::request::ModelRequest;
use clew::stream::{Format, StreamError};

/// What the model does for one request.
#[derive(Clone, Debug)]
pub enum Reply {
    /// These byte pieces, then the end of the body.
    Bytes(Vec<Vec<u8>>),
    /// These pieces, then a failure.
    FailAfter(Vec<Vec<u8>>, StreamError),
    /// No byte ever (a timeout test).
    Silent,
}

/// Chunk lines (format "chunks") of a text reply, one piece per text part.
pub fn text(parts: &[&str]) -> Reply {
    Reply::Bytes(parts.iter().map(|p| text_line(p)).collect())
}

/// One chunk line of text.
pub fn text_line(text: &str) -> Vec<u8> {
    let mut line = serde_json::json!({ "type": "text", "text": text }).to_string().into_bytes();
    line.push(b'\n');
    line
}

/// One chunk line of any chunk JSON.
pub fn line(value: serde_json::Value) -> Vec<u8> {
    let mut line = value.to_string().into_bytes();
    line.push(b'\n');
    line
}

/// A failure before any content.
pub fn fail(error: StreamError) -> Reply {
    Reply::FailAfter(Vec::new(), error)
}

/// An HTTP error.
pub fn http(status: u16, body: &str) -> StreamError {
    StreamError::from_http(status, None, body, None)
}

type AskFn = Box<dyn FnMut(&Message) -> Option<AskAnswer>>;
type ToolFn = Box<dyn FnMut(&str, &[(String, String)]) -> Option<ToolOutput>>;
type HookFn = Box<dyn FnMut(HookKind) -> HookResult>;

#[derive(Debug)]
enum Event {
    Bytes(u64, Vec<u8>),
    End(u64),
    Failed(u64, StreamError),
    Answer(u64, AskAnswer),
    ToolDone(u64, ToolOutput),
    Checkpoint(u64),
    Hook(u64, HookResult),
    Mcp(u64, String),
    McpResult(u64, String),
    Files(u64, Vec<(String, String)>),
}

/// The test driver.
pub struct Harness {
    pub task: Task,
    pub now: u64,
    /// Milliseconds the clock moves per event.
    pub step: u64,
    pub model: VecDeque<Reply>,
    pub requests: Vec<ModelRequest>,
    pub effects: Vec<Effect>,
    pub ask: AskFn,
    pub tool: ToolFn,
    /// Answers the calls of the two MCP tools with the server's raw result (JSON text), as
    /// a host's glue does (`None`: they run as other tools, through `tool`).
    pub mcp_result: Option<Box<dyn FnMut(&str, &[(String, String)]) -> String>>,
    pub hook: HookFn,
    /// Checkpoints are saved only when the test says so (`None`: at once).
    pub hold_checkpoints: bool,
    pub held_checkpoints: Vec<u64>,
    queue: VecDeque<Event>,
    /// Each open stream's events not yet delivered: one is queued at a time, so other
    /// events (answers, tool results) interleave with reads as on a real network.
    streams: Vec<(u64, VecDeque<Event>)>,
    wake: Option<u64>,
    /// Tool calls the tool function left running.
    pub running_tools: Vec<u64>,
    pub tool_calls: Vec<(String, Vec<(String, String)>)>,
    /// Stop processing events when this returns true (checked before each event).
    pub pause: Option<Box<dyn FnMut(&Task) -> bool>>,
    /// The MCP catalog the next listing answers (taken: later listings answer "", nothing
    /// changed, until a test sets it again).
    pub mcp_catalog: Option<String>,
    /// The listings after that one, in order (then "").
    pub later_listings: VecDeque<String>,
    /// A persist whose reason is this fails, as the host reports it: `task.fail(…)`.
    pub failing_persist: Option<&'static str>,
    /// Reads the files a summary names (`None`: the read never answers).
    pub files: Box<dyn FnMut(&[String]) -> Option<Vec<(String, String)>>>,
    /// The paths each `ReadRequiredFiles` asked for.
    pub file_reads: Vec<Vec<String>>,
}

/// A `pause` that stops at the task's `stop_at`-th waiting point with no stream open (a
/// person, a tool, a checkpoint, a retry delay or a hook): where a snapshot is taken.
pub fn at_waiting_point(stop_at: usize) -> Box<dyn FnMut(&Task) -> bool> {
    let mut seen = 0;
    Box::new(move |task: &Task| {
        let waiting =
            !task.is_streaming() && matches!(task.state(), "answer" | "tool" | "checkpoint" | "retryDelay" | "hook");
        if waiting {
            seen += 1;
        }
        waiting && seen == stop_at
    })
}

/// Answers every ask with "yes".
pub fn approve_all() -> AskFn {
    Box::new(|m: &Message| (!m.is_partial()).then(|| AskAnswer::button(AskResponse::Yes)))
}

impl Harness {
    /// A harness over a task with `config` and the model's `replies`; tools echo their
    /// parameters, asks are approved.
    pub fn new(config: TaskConfig, replies: Vec<Reply>) -> Self {
        let task = Task::new(config).expect("config");
        Self {
            task,
            now: 1_000,
            step: 1,
            model: replies.into(),
            requests: Vec::new(),
            effects: Vec::new(),
            ask: approve_all(),
            tool: Box::new(|name: &str, params: &[(String, String)]| {
                let args: Vec<String> = params.iter().map(|(k, v)| format!("{k}={v}")).collect();
                Some(ToolOutput::text(format!("{name} ran with {}", args.join(", "))))
            }),
            mcp_result: None,
            hook: Box::new(|_| HookResult::default()),
            hold_checkpoints: false,
            held_checkpoints: Vec::new(),
            queue: VecDeque::new(),
            streams: Vec::new(),
            wake: None,
            running_tools: Vec::new(),
            tool_calls: Vec::new(),
            pause: None,
            mcp_catalog: None,
            later_listings: Default::default(),
            failing_persist: None,
            files: Box::new(|paths: &[String]| {
                Some(paths.iter().map(|p| (p.clone(), format!("contents of {p}"))).collect())
            }),
            file_reads: Vec::new(),
        }
    }

    /// Starts the task and runs it until it ends or nothing more can happen.
    pub fn start(&mut self, text: &str) -> &mut Self {
        self.task.start(self.now, text, Vec::new());
        self.run()
    }

    /// Runs until the task ends, or no event is queued and no wake-up is due.
    pub fn run(&mut self) -> &mut Self {
        loop {
            self.drain();
            if self.task.outcome().is_some() {
                self.drain();
                return self;
            }
            if let Some(pause) = self.pause.as_mut() {
                if pause(&self.task) {
                    return self;
                }
            }
            if !self.next_event() {
                return self;
            }
        }
    }

    /// Performs pending effects, then delivers one event (or the due wake-up).
    pub fn step_once(&mut self) {
        self.drain();
        self.next_event();
        self.drain();
    }

    /// Delivers the next queued event, or else the due wake-up; false when there is neither.
    pub fn next_event(&mut self) -> bool {
        if let Some(event) = self.queue.pop_front() {
            self.now += self.step;
            let stream = match &event {
                Event::Bytes(id, _) => Some(*id),
                _ => None,
            };
            self.deliver(event);
            if let Some(id) = stream {
                self.queue_next_read(id);
            }
            return true;
        }
        let Some(at) = self.wake.take() else { return false };
        self.now = self.now.max(at);
        self.task.handle(self.now, clew::agent::Event::Timer);
        true
    }

    fn queue_next_read(&mut self, id: u64) {
        if let Some((_, events)) = self.streams.iter_mut().find(|(s, _)| *s == id) {
            if let Some(next) = events.pop_front() {
                self.queue.push_back(next);
            }
        }
    }

    /// Delivers an event through the machine's one entry, `Task::handle`.
    fn deliver(&mut self, event: Event) {
        use clew::agent::Event as E;
        let now = self.now;
        let event = match &event {
            Event::Bytes(stream, bytes) => E::StreamBytes { stream: *stream, bytes },
            Event::End(stream) => E::StreamEnded { stream: *stream },
            Event::Failed(stream, error) => E::StreamFailed { stream: *stream, error: error.clone() },
            Event::Answer(ts, answer) => E::AskAnswered { ts: *ts, answer: answer.clone() },
            Event::ToolDone(id, output) => E::ToolDone { id: *id, output: output.clone() },
            Event::Checkpoint(id) => E::CheckpointSaved { id: *id, ok: true },
            Event::Hook(id, result) => E::HookDone { id: *id, result: result.clone() },
            Event::Mcp(id, catalog) => E::McpServersListed { id: *id, catalog },
            Event::McpResult(id, result) => E::McpResult { id: *id, result },
            Event::Files(id, files) => E::RequiredFilesRead { id: *id, files: files.clone() },
        };
        self.task.handle(now, event);
    }

    /// Performs every pending effect.
    pub fn drain(&mut self) {
        while let Some(effect) = self.task.poll_effect() {
            self.effects.push(effect.clone());
            match effect {
                Effect::OpenStream { stream, request, .. } => {
                    self.requests.push(request);
                    let mut events: VecDeque<Event> = VecDeque::new();
                    match self.model.pop_front() {
                        Some(Reply::Bytes(pieces)) => {
                            events.extend(pieces.into_iter().map(|p| Event::Bytes(stream, p)));
                            events.push_back(Event::End(stream));
                        }
                        Some(Reply::FailAfter(pieces, error)) => {
                            events.extend(pieces.into_iter().map(|p| Event::Bytes(stream, p)));
                            events.push_back(Event::Failed(stream, error));
                        }
                        Some(Reply::Silent) => {}
                        None => events
                            .push_back(Event::Failed(stream, StreamError::Network { message: "script ended".into() })),
                    }
                    self.streams.push((stream, events));
                    self.queue_next_read(stream);
                }
                Effect::Ask(message) if !message.is_partial() => {
                    if let Some(answer) = (self.ask)(&message) {
                        self.queue.push_back(Event::Answer(message.ts, answer));
                    }
                }
                Effect::RunTool { id, name, params } => {
                    self.tool_calls.push((name.clone(), params.clone()));
                    let mcp = ["use_mcp_tool", "access_mcp_resource"].contains(&name.as_str());
                    if let Some(answer) = self.mcp_result.as_mut().filter(|_| mcp) {
                        self.queue.push_back(Event::McpResult(id, answer(&name, &params)));
                        continue;
                    }
                    match (self.tool)(&name, &params) {
                        Some(output) => self.queue.push_back(Event::ToolDone(id, output)),
                        None => self.running_tools.push(id),
                    }
                }
                Effect::SaveCheckpoint { id, .. } => {
                    if self.hold_checkpoints {
                        self.held_checkpoints.push(id);
                    } else {
                        self.queue.push_back(Event::Checkpoint(id));
                    }
                }
                Effect::RunHook { id, kind, .. } => {
                    let result = (self.hook)(kind);
                    if kind != HookKind::TaskCancel {
                        self.queue.push_back(Event::Hook(id, result));
                    }
                }
                Effect::ListMcpServers { id } => {
                    let catalog = self.mcp_catalog.take().or_else(|| self.later_listings.pop_front());
                    let catalog = catalog.unwrap_or_default();
                    self.queue.push_back(Event::Mcp(id, catalog));
                }
                Effect::ReadRequiredFiles { id, paths } => {
                    self.file_reads.push(paths.clone());
                    if let Some(files) = (self.files)(&paths) {
                        self.queue.push_back(Event::Files(id, files));
                    }
                }
                Effect::WakeAt(at) => self.wake = at,
                Effect::Persist { reason, .. } if Some(reason.as_str()) == self.failing_persist => {
                    assert!(self.effects.len() < 10_000, "the task keeps asking for persists");
                    self.task.fail(self.now, clew::agent::codes::PERSIST_FAILED, "disk full");
                }
                _ => {}
            }
        }
    }

    /// Releases held checkpoints.
    pub fn release_checkpoints(&mut self) -> &mut Self {
        for id in std::mem::take(&mut self.held_checkpoints) {
            self.queue.push_back(Event::Checkpoint(id));
        }
        self.run()
    }

    /// How the task ended.
    pub fn outcome(&self) -> Option<&Outcome> {
        self.task.outcome()
    }

    /// Final (non-partial) messages as `say kind: text` / `ask kind: text` lines.
    pub fn transcript(&self) -> Vec<String> {
        self.task
            .messages()
            .iter()
            .map(|m| match m.kind {
                MessageKind::Say(kind) => format!("say {}: {}", kind.as_str(), m.text),
                MessageKind::Ask(kind) => format!("ask {}: {}", kind.as_str(), m.text),
            })
            .collect()
    }

    /// The final text of the first `text` message.
    pub fn first_text(&self) -> String {
        let texts = self.says_of("text");
        let ts = texts.first().map(|m| m.ts);
        texts.iter().filter(|m| Some(m.ts) == ts).last().map(|m| m.text.clone()).unwrap_or_default()
    }

    /// Kinds of final messages, in order, without api_req_started.
    pub fn kinds(&self) -> Vec<String> {
        self.transcript()
            .into_iter()
            .filter(|l| !l.starts_with("say api_req_started"))
            .map(|l| l.split(':').next().unwrap_or_default().to_owned())
            .collect()
    }

    /// Every user content block's text of history message `index`.
    pub fn history_texts(&self, index: usize) -> Vec<String> {
        self.task.history().get(index).map(|m| block_texts(&m.content.blocks())).unwrap_or_default()
    }

    /// Roles of the history.
    pub fn roles(&self) -> Vec<Role> {
        self.task.history().iter().map(|m| m.role).collect()
    }

    /// Say effects of kind `kind` (partial updates included).
    pub fn says_of(&self, kind: &str) -> Vec<Message> {
        self.effects
            .iter()
            .filter_map(|e| match e {
                Effect::Say(m) if matches!(m.kind, MessageKind::Say(k) if k.as_str() == kind) => Some(m.clone()),
                _ => None,
            })
            .collect()
    }

    /// The delays (ms) of the error_retry says, from their JSON.
    pub fn retry_delays(&self) -> Vec<u64> {
        self.says_of("error_retry")
            .iter()
            .filter_map(|m| serde_json::from_str::<serde_json::Value>(&m.text).ok())
            .filter(|v| v.get("failed").is_none())
            .filter_map(|v| v.get("delaySeconds").and_then(serde_json::Value::as_u64))
            .collect()
    }
}

/// Texts of content blocks (tool results' texts included).
pub fn block_texts(blocks: &[ContentBlock]) -> Vec<String> {
    blocks
        .iter()
        .flat_map(|b| match b {
            ContentBlock::Text { text, .. } => vec![text.clone()],
            ContentBlock::ToolResult { content, .. } => block_texts(&content.blocks()),
            ContentBlock::ToolUse { name, input, .. } => vec![format!("tool_use {name} {}", input.to_string())],
            ContentBlock::Image { .. } => vec!["[image]".into()],
            ContentBlock::Thinking { thinking, .. } => vec![format!("thinking {thinking}")],
            ContentBlock::RedactedThinking { .. } => vec!["[redacted]".into()],
            ContentBlock::Item { item, .. } => vec![format!("item {}", item.to_string())],
            ContentBlock::Compaction { content, .. } => {
                vec![format!("compaction {}", content.as_deref().unwrap_or("null"))]
            }
        })
        .collect()
}

/// A config for chunk-format scripts with two tools: `read` (read-only) and `write`.
pub fn config() -> TaskConfig {
    use clew::agent::{ParamSpec, ToolSpec};
    let param = |name: &str| ParamSpec { name: name.into(), description: String::new(), required: true };
    TaskConfig {
        format: Format::Chunks,
        tools: vec![
            ToolSpec { name: "read".into(), parameters: vec![param("path")], read_only: true, ..ToolSpec::default() },
            ToolSpec { name: "write".into(), parameters: vec![param("path"), param("content")], ..ToolSpec::default() },
        ],
        ..TaskConfig::default()
    }
}

/// A reply that completes the task.
pub fn completion(result: &str) -> Reply {
    text(&[&format!("Done.\n<attempt_completion><result>{result}</result></attempt_completion>")])
}

/// One content block of a scripted Anthropic reply.
pub enum Part<'a> {
    /// A text block.
    Text(&'a str),
    /// A signed thinking block.
    Thinking(&'a str),
    /// A tool_use block whose arguments' JSON streams in these pieces.
    Tool { id: &'a str, name: &'a str, json: &'a [&'a str] },
}

/// One SSE event.
pub fn sse(name: &str, data: serde_json::Value) -> Vec<u8> {
    format!("event: {name}\ndata: {data}\n\n").into_bytes()
}

/// An Anthropic Messages reply with `parts`, 10 input tokens, and `output_tokens` reported
/// by the final `message_delta` (after every block).
pub fn anthropic_reply(parts: &[Part], output_tokens: u64) -> Reply {
    use serde_json::json;
    let blocks = parts
        .iter()
        .map(|part| match part {
            Part::Text(text) => (json!({"type":"text","text":""}), vec![json!({"type":"text_delta","text":text})]),
            Part::Thinking(thinking) => (
                json!({"type":"thinking","thinking":""}),
                vec![
                    json!({"type":"thinking_delta","thinking":thinking}),
                    json!({"type":"signature_delta","signature":"sig"}),
                ],
            ),
            Part::Tool { id, name, json: pieces } => (
                json!({"type":"tool_use","id":id,"name":name,"input":{}}),
                pieces.iter().map(|p| json!({"type":"input_json_delta","partial_json":p})).collect(),
            ),
        })
        .collect();
    anthropic_blocks(blocks, 10, "end_turn", output_tokens)
}

/// An Anthropic Messages reply whose content blocks are `blocks` (each its start and its
/// deltas), with `input` tokens in `message_start`, then `stop` and `output` tokens.
pub fn anthropic_blocks(
    blocks: Vec<(serde_json::Value, Vec<serde_json::Value>)>,
    input: u64,
    stop: &str,
    output: u64,
) -> Reply {
    use serde_json::json;
    let mut events = vec![sse(
        "message_start",
        json!({"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"m","usage":{"input_tokens":input,"output_tokens":1}}}),
    )];
    for (index, (start, deltas)) in blocks.into_iter().enumerate() {
        events.push(sse(
            "content_block_start",
            json!({"type":"content_block_start","index":index,"content_block":start}),
        ));
        for delta in deltas {
            events.push(sse("content_block_delta", json!({"type":"content_block_delta","index":index,"delta":delta})));
        }
        events.push(sse("content_block_stop", json!({"type":"content_block_stop","index":index})));
    }
    events.push(sse(
        "message_delta",
        json!({"type":"message_delta","delta":{"stop_reason":stop},"usage":{"output_tokens":output}}),
    ));
    events.push(sse("message_stop", json!({"type":"message_stop"})));
    Reply::Bytes(events)
}

impl Harness {
    /// Index in `effects` of the first effect matching `pick`.
    pub fn position(&self, pick: impl Fn(&Effect) -> bool) -> Option<usize> {
        self.effects.iter().position(pick)
    }

    /// The final `api_req_started` texts, parsed, in order.
    pub fn api_reqs(&self) -> Vec<serde_json::Value> {
        self.task
            .messages()
            .iter()
            .filter(|m| matches!(m.kind, MessageKind::Say(k) if k.as_str() == "api_req_started"))
            .filter_map(|m| serde_json::from_str(&m.text).ok())
            .collect()
    }
}
