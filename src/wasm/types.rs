//! Hand-written TypeScript types for the values that cross the boundary as plain objects.

use wasm_bindgen::prelude::wasm_bindgen;

#[wasm_bindgen]
extern "C" {
    /// `ToolSetSpec` on the JS side: typed in TypeScript, read field by field in Rust.
    #[wasm_bindgen(typescript_type = "ToolSetSpec")]
    pub type ToolSetSpecJs;

    /// A `string[]` on the JS side (images as data URLs), checked element by element in Rust.
    #[wasm_bindgen(typescript_type = "string[]")]
    pub type StringArrayJs;
}

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r#"
/** Free text between tool calls, trimmed as JavaScript trims. */
export interface TextBlock {
  type: "text";
  content: string;
  /** Always true for the last text block of a message. */
  partial: boolean;
}

/** A tool call written as tags in the model's text. */
export interface ToolUseBlock {
  type: "tool_use";
  name: string;
  /** Parameter values in first-seen order. */
  params: Record<string, string>;
  /** True until the closing tag arrives. */
  partial: boolean;
  isNativeToolCall: false;
}

/** One block of an assistant message. */
export type Block = TextBlock | ToolUseBlock;

/**
 * Which tags exist. Omitted: the reference loop's 27 tools and 45 parameters.
 * Names use 1 to 64 characters from A-Z a-z 0-9 _ - . :
 */
export interface ToolSetSpec {
  tools: string[];
  params: string[];
}
"#;

#[wasm_bindgen(typescript_custom_section)]
const TS_STREAM_TYPES: &'static str = r#"
/**
 * A stream format: Anthropic Messages SSE, OpenAI Chat Completions SSE, OpenAI Responses SSE,
 * Google Gemini `streamGenerateContent?alt=sse`, or clew's own chunk lines.
 */
export type StreamFormat = "anthropic" | "openai" | "openai-responses" | "gemini" | "chunks";

/**
 * Token counts of a reply; the usage chunks of one reply add up to its totals (a `whole` one
 * replaces them).
 */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheWriteTokens?: number;
  cacheReadTokens?: number;
  /** How many of `outputTokens` were reasoning (already inside them: never add them again). */
  reasoningTokens?: number;
  /** The cost the provider reported, in US dollars. */
  totalCost?: number;
  /**
   * The context size of the reply's last model pass (its input, cache writes, cache reads and
   * output) when it differs from the billed sum: with Anthropic compaction, the last `message`
   * iteration. The last chunk that has it wins.
   */
  contextTokens?: number;
  /** With Anthropic compaction: the input side (input, cache writes, cache reads) of the compaction iteration. */
  compactionTokens?: number;
  /** Anthropic context editing: the `applied_edits` the server reports, as sent (`[]` is normal). The last chunk that has them wins. */
  appliedEdits?: unknown[];
  /**
   * The counts are the reply's whole counts so far: they replace what the reply's earlier usage
   * chunks said instead of adding to it (Gemini, when a count goes down).
   */
  whole?: boolean;
}

/** One piece of a model's reply, shaped as the reference loop's stream chunks. */
export type Chunk =
  | { type: "text"; text: string }
  /** The end of a text part, with what it is sent back with (Gemini's signature, a Responses message's phase). */
  | { type: "text_end"; signature?: string; phase?: string }
  /**
   * Reasoning text; `signature` (Anthropic, a Gemini thought part), `redacted_data` (Anthropic),
   * and for an OpenAI Responses reasoning item's end its `encrypted_content` and `summary`.
   */
  | { type: "reasoning"; reasoning: string; signature?: string; redacted_data?: string; encrypted_content?: string; summary?: string[] }
  /** A piece of a native call; `signature` is Gemini's; `whole` arguments replace the pieces before. */
  | { type: "tool_calls"; tool_call: { call_id?: string; function: { id?: string; name?: string; arguments?: string }; signature?: string; whole?: boolean } }
  /** An output item clew keeps whole (an OpenAI Responses `file_search_call`, a Gemini `executableCode` part…). */
  | { type: "item"; item: unknown }
  /**
   * The provider's compaction of the conversation, whole: Anthropic's `compaction` block
   * (`content`: the summary, absent when the compaction failed; `encrypted_content` when sent)
   * or an OpenAI Responses `compaction` item (`id`, `encrypted_content`). Never reply text,
   * never a tool call; sent back as received.
   */
  | { type: "compaction"; content?: string; encrypted_content?: string; id?: string }
  | ({ type: "usage" } & Usage)
  /**
   * Why the model stopped. For OpenAI Responses and Gemini, clew's words: `end_turn`, `tool_use`,
   * `max_tokens`, `content_filter`, `malformed_tool_call`…, with the provider's own in `raw`.
   */
  | { type: "stop"; reason: string; raw?: string };

/** A native tool call as far as it has arrived (ToolCallAssembler). */
export interface NativeToolCall {
  id: string;
  name: string;
  /** Arguments known so far: strings as they are (the one streaming included), others as JSON text. */
  params: Record<string, string>;
  /** The arguments' JSON object is closed. */
  complete: boolean;
  /** The arguments are not a JSON object. */
  invalid: boolean;
}

/** A history content block, in Anthropic's shape. */
export type ContentBlock =
  /** `signature`: Gemini's, on the part it came with; `phase`: an OpenAI Responses message's. */
  | { type: "text"; text: string; signature?: string; phase?: string }
  | { type: "image"; source: { type: "base64"; media_type: string; data: string } | { type: "url"; url: string } }
  | { type: "tool_use"; id: string; name: string; input: unknown; signature?: string }
  | { type: "tool_result"; tool_use_id: string; content: string | ContentBlock[]; is_error?: boolean }
  /** `encrypted_content` and `summary`: an OpenAI Responses reasoning item's, sent back only with the former. */
  | { type: "thinking"; thinking: string; signature?: string; encrypted_content?: string; summary?: string[] }
  | { type: "redacted_thinking"; data: string }
  /**
   * A provider's compaction of the conversation before it (Anthropic's `compaction` block:
   * `content` is the summary, absent when the compaction failed; an OpenAI Responses
   * `compaction` item: `id` and `encrypted_content`), sent back verbatim, in place, to its own
   * format only. The message holding it is where requests start (`native.dropCompacted`).
   */
  | { type: "compaction"; provider: StreamFormat; content?: string; encrypted_content?: string; id?: string }
  /** An output item of another kind, sent back whole to its own format only. */
  | { type: "item"; format: StreamFormat; item: unknown };

/** Everything one model call needs. */
export interface ModelRequest {
  system?: string;
  messages?: { role: "user" | "assistant"; content: string | ContentBlock[] }[];
  /** Tools for native tool calling, each with a JSON Schema of its arguments. */
  tools?: { name: string; description?: string; inputSchema: unknown }[];
  model: ModelSettings;
  /**
   * Native context management asked of the provider (Anthropic: `context_management` with
   * its betas; OpenAI Responses: `compact_threshold`; the other formats ignore it). A task
   * sets it under the strategy "native" (or "auto" resolved to it).
   */
  context?: NativeContext;
}

/** `ModelRequest.context`: what the provider is asked to do about a long context. */
export interface NativeContext {
  /** Input tokens past which the provider compacts (and Anthropic's server edits clear); absent: no compaction. */
  compactThreshold?: number;
  /** Anthropic: the compaction summary's prompt, replacing the provider's own. */
  instructions?: string;
  /** Anthropic: the response ends after the compaction block (`stop_reason: "compaction"`). */
  pauseAfterCompaction?: boolean;
  /** Anthropic: server-side clearing of old tool uses and thinking. */
  edits?: { keepToolUses?: number; keepThinkingTurns?: number | "all"; excludeTools?: string[]; clearToolInputs?: boolean; clearAtLeast?: number };
}

/**
 * Which model, how to reach it, and what it costs: one type for `buildRequest` and `new Task`.
 * `format`, `info`, `fetch` and `request` are read by Task only.
 */
export interface ModelSettings {
  /** The provider's model id. */
  id?: string;
  /** Most output tokens (default 8192). */
  maxTokens?: number;
  temperature?: number;
  /** Anthropic extended thinking budget, in tokens. */
  reasoningBudget?: number;
  /** OpenAI-style reasoning effort. */
  reasoningEffort?: string;
  headers?: Record<string, string>;
  baseUrl?: string;
  /** Omit when your own fetch adds credentials. */
  apiKey?: string;
  /** Anthropic prompt-caching breakpoints on the system prompt and the last two user messages. */
  promptCache?: boolean;
  /** Sent from a browser: adds Anthropic's direct-browser-access header. */
  browser?: boolean;
  /**
   * OpenAI Responses: let the provider store the response (default false: a page or a Worker
   * keeps no server state, so each turn goes back whole, reasoning as its encrypted content).
   */
  store?: boolean;
  /** The format of the response body (Task; default "anthropic"). */
  format?: StreamFormat;
  /** Limits and prices: drive cost and context management (Task). */
  info?: ModelInfo;
  /** Used instead of the global fetch (Task). */
  fetch?: (url: string, init: { method: string; headers: Record<string, string>; body: string; signal: AbortSignal }) => Promise<Response>;
  /** Replaces the built-in HTTP call (Task): returns a Response, or the body's bytes in `format`. */
  request?: (req: ModelRequest, init: { signal: AbortSignal }) => Response | ReadableStream<Uint8Array> | Promise<Response | ReadableStream<Uint8Array>>;
}

/** A request ready for fetch(url, { method, headers, body }). */
export interface HttpRequest {
  url: string;
  method: "POST";
  headers: Record<string, string>;
  body: string;
}

/** A model's limits and prices (US dollars per million tokens). */
export interface ModelInfo {
  contextWindow?: number;
  maxOutput?: number;
  inputPrice?: number;
  outputPrice?: number;
  cacheWritePrice?: number;
  cacheReadPrice?: number;
  supportsPromptCache?: boolean;
  /**
   * The model compacts on the provider's side (Anthropic compaction): lets
   * `contextManagement.strategy` "native" (and "auto") use it on a model clew does not list.
   */
  supportsCompaction?: boolean;
}
"#;

#[wasm_bindgen(typescript_custom_section)]
const TS_TASK_TYPES: &'static str = r#"
/** A say or ask message of a task's transcript. */
export interface TaskMessage {
  /** Unique and strictly increasing within a task; a partial update carries the ts of the message it updates. */
  ts: number;
  type: "say" | "ask";
  /**
   * The reference's say kind: "task", "text", "reasoning", "tool", "completion_result", "error", "error_retry",
   * "api_req_started" (its text: `ApiReqStartedSay`), "user_feedback", "use_mcp_server", "mcp_server_request_started",
   * "mcp_server_response"…, and clew's own "compaction" (its text: `CompactionSay`).
   */
  say?: string;
  /**
   * The reference's ask kind: "tool", "use_mcp_server", "followup", "completion_result", "api_req_failed",
   * "mistake_limit_reached", "resume_task", "resume_completed_task", "condense" (a summary asked for with
   * `task.condense()`, its text: yes applies it, a message answers the model instead).
   */
  ask?: string;
  text?: string;
  /** Data URLs (or web addresses). */
  images?: string[];
  /** true while streaming, false once a streamed message is final; absent for a message never partial. */
  partial?: boolean;
}

/** The text of an `api_req_started` say, as JSON: one model request. */
export interface ApiReqStartedSay {
  /** What the request sent, in short. */
  request: string;
  /** Tokens and cost (US dollars), once the reply has ended. */
  tokensIn?: number;
  tokensOut?: number;
  cacheWrites?: number;
  cacheReads?: number;
  cost?: number;
  /** The context size this request produced (its last model pass), once known: what the next request's check compares with the limit. */
  contextTokens?: number;
  /** The request's view was cut for it (a truncation or an edit; a retry after a context-window error keeps the message). */
  contextTruncated?: true;
  /** A compaction pass: the summarize request, or a response holding a provider compaction. */
  compactionPass?: "summary" | "native";
  /** The reply was cut: `"user_cancelled"` (abort) or `"streaming_failed"`, with the error's text. */
  cancelReason?: string;
  streamingFailedMessage?: string;
  /** Part of the usage never arrived (the task was restored mid-reply): the figures may be short. */
  usageComplete?: false;
}

/**
 * The text of a `compaction` say, as JSON (clew's own kind, shaped as the Agent Client
 * Protocol's `compaction_update`): one per compaction, at its place in the transcript, never
 * partial. A host that ignores unknown kinds loses nothing.
 */
export interface CompactionSay {
  /** Unique within the task. */
  id: number;
  /** What made the context smaller: truncation, the edit pre-pass, a summary, the provider's compaction. */
  kind: "truncate" | "edit" | "summary" | "native";
  /** The format that compacted (kind "native"). */
  provider?: StreamFormat;
  status: "completed" | "failed";
  /** The context size that triggered it (`null` when not known). */
  tokensBefore: number | null;
  /** The size right after it, when measured then; otherwise the next `api_req_started`'s `contextTokens` says it. */
  tokensAfter?: number;
  /** The summary (kind "summary", and Anthropic's compaction; never OpenAI's, which is opaque). */
  summary?: string;
  /** Why it failed: no summary, or the provider's message when "auto" fell back from "native". */
  reason?: string;
}

/** How a task keeps its requests within the model's context (`ContextManagementOptions.strategy`). */
export type ContextStrategy = "truncate" | "summarize" | "edit" | "native" | "auto";

/**
 * `TaskOptions.contextManagement`: keeping a long task within its model's context. Before each
 * request, the previous request's context size (its last model pass: input, cache writes and
 * reads, output) is compared with the limit, the smaller of the window's budget (from
 * `model.info.contextWindow`: 200,000 gives 160,000) and `maxContextTokens`; at or over it, the
 * strategy makes the request smaller. `history` keeps everything; only what requests send
 * shrinks. A bad setting is a `TypeError` (code `CLEW_INVALID_OPTIONS`) at `new Task`.
 */
export interface ContextManagementOptions {
  /**
   * "truncate" (default, Cline's): the oldest half (or three quarters) of the conversation after
   * the task goes, whole turns at a time, with a notice in its place. "summarize" (Cline's
   * auto-condense): the model summarizes the task in a `summarize_task` call and goes on from its
   * summary (Claude 4+, GPT-5, Gemini 2.5+ and the reference's other "next-gen" models, or any
   * with `summarize.models: "all"`; truncation on others). "edit": old tool results and thinking
   * are cleared, then truncation if that was not enough. "native": the provider compacts (OpenAI
   * Responses; Anthropic on a model that can, with a limit of 50,000 or more; else a TypeError).
   * "auto": native where it can, else summarize, else truncate; a provider that refuses the native
   * request switches it to its fallback for the rest of the task.
   */
  strategy?: ContextStrategy;
  /** A cap on a request's context, in tokens (a positive whole number): compact well before the window is full. */
  maxContextTokens?: number;
  /**
   * Automatic compactions in a row that leave the context over the limit before the task ends
   * `failed` with `CLEW_CONTEXT_WINDOW_EXCEEDED` (default 3): no compaction loop. A request under the
   * limit resets the count; `task.condense()` is not counted.
   */
  maxConsecutiveCompactions?: number;
  /** The edit pre-pass before any strategy (always on with strategy "edit"): `true` for its defaults. */
  edit?: boolean | ContextEditOptions;
  /** The summarize strategy's settings (and `task.condense()`'s). */
  summarize?: {
    /** "next-gen" (default): only the models Cline summarizes with; "all": any model. */
    models?: "next-gen" | "all";
    /** Appended to the summary's instruction: what it should pay attention to. */
    instructions?: string;
    /**
     * Reads the files the summary lists as required (at most 10 paths; clew has no file
     * system): the first 8 entries, 100,000 characters in all, follow the summary. Run like a
     * tool (a waiting point; `signal` fires on abort). A throw, a rejection or anything but a
     * list of `{ path, content }` gives no files; entries of another shape are skipped.
     */
    readRequiredFiles?(paths: string[], context: { signal: AbortSignal; taskId: string }): RequiredFile[] | void | Promise<RequiredFile[] | void>;
  };
  /** The native strategy's settings. */
  native?: {
    /** Anthropic: the compaction summary's prompt, replacing the provider's own. */
    instructions?: string;
    /** Anthropic: the response stops after the compaction block, and the task goes on in a request of its own that reminds the model of the task (default true). */
    pauseAfterCompaction?: boolean;
    /** Requests start at the newest compaction (default true); false sends the whole history with it. */
    dropCompacted?: boolean;
    /** OpenAI Responses: compact inline, in the response (the only mode so far; `/responses/compact` is not supported yet). */
    openai?: "inline";
    /** Anthropic: the server clears old tool uses and thinking (instead of the edit pre-pass). */
    serverEdits?: boolean;
  };
}

/** `ContextManagementOptions.edit`: what the edit pre-pass clears. */
export interface ContextEditOptions {
  /** The newest tool results kept whole (default 3). */
  keepToolUses?: number;
  /** The newest assistant turns whose reasoning is sent (default 1), or "all". Never on Gemini. */
  keepThinkingTurns?: number | "all";
  /** Tools whose results are never cleared. */
  excludeTools?: string[];
  /** A cleared result's call is sent with `{}` as its input (default false). */
  clearToolInputs?: boolean;
  /** A pass that would save fewer tokens (estimated as characters / 4) does nothing (default 0). */
  clearAtLeast?: number;
  /** What a cleared result holds (default: a short bracketed notice). */
  placeholder?: string;
}

/** A file `readRequiredFiles` read. */
export interface RequiredFile {
  path: string;
  content: string;
}

/** The user's answer to a complete ask. */
export interface AskAnswer {
  response: "yesButtonClicked" | "noButtonClicked" | "messageResponse";
  text?: string;
  images?: string[];
}

/** A tool's result: text, or text with images (data URLs). */
export type ToolResult = string | { text: string; images?: string[]; isError?: boolean };

/** A tool the model may call. */
export interface TaskTool {
  name: string;
  description?: string;
  parameters?: { name: string; description?: string; required?: boolean }[];
  /** JSON Schema sent for native tool calling (default: derived from `parameters`). */
  inputSchema?: object;
  /** Read-only tools may be auto-approved as such and do not wait for the initial checkpoint; one running when the task was snapshotted runs again on resume. */
  readOnly?: boolean;
  /** Running it twice does no more than once: one running when the task was snapshotted runs again on resume (any other tool gets an error result saying its outcome is unknown). */
  idempotent?: boolean;
  /** Cancel the call (its signal aborts) and report a failure after this many milliseconds. */
  timeoutMs?: number;
  execute(params: Record<string, string>, context: { signal: AbortSignal; taskId: string }): ToolResult | Promise<ToolResult>;
  /**
   * The subject of this tool's result headers (`[name for '<subject>'] Result:`), from a
   * call's parameters. Called synchronously; keep it pure. Without it, or when it returns
   * no string, the header names the first required parameter's value.
   */
  describe?(params: Record<string, string>): string | undefined;
}

/** What a hook receives. */
export interface HookInput {
  taskId: string;
  tool?: string;
  params?: Record<string, string>;
  /** The tool's result text (postToolUse). */
  result?: string;
}

/** What a hook may answer: cancel (the task, or for preToolUse the call) and context for the model. */
export interface HookOutput {
  cancel?: boolean;
  context?: string;
}

type Hook = (input: HookInput) => void | HookOutput | Promise<void | HookOutput>;

/** The model settings of a task (the same type as `ModelRequest["model"]`). */
export type TaskModel = ModelSettings;

/** Options of `new Task`. */
export interface TaskOptions {
  model: TaskModel;
  tools?: TaskTool[];
  say?: (message: TaskMessage) => void;
  /** Called for every ask; a partial ask's return value is ignored. Without it, every ask is declined (no tool that asks runs, no question is answered, a result is not accepted). */
  ask?: (message: TaskMessage) => AskAnswer | void | Promise<AskAnswer | void>;
  autoApprove?: { readOnly?: boolean; all?: boolean };
  yolo?: boolean;
  maxConsecutiveMistakes?: number;
  parallelToolCalling?: boolean;
  toolCalling?: "xml" | "native";
  retry?: { maxRetries?: number; baseDelayMs?: number; maxDelayMs?: number };
  /**
   * 0 turns a timeout off. `firstByteMs` and `idleMs` (120 s each): how long a model stream
   * may stay silent. `mcpListingMs` (10 s): how long the task waits for its MCP servers'
   * listing before a request; a server still being listed then is reported and left out.
   */
  timeouts?: { firstByteMs?: number; idleMs?: number; mcpListingMs?: number };
  limits?: { maxRequests?: number; maxCost?: number };
  presentationIntervalMs?: number;
  systemPrompt?: string;
  rules?: string;
  environment?: string;
  checkpoint?: { save?: () => void | Promise<void>; initial?: () => void | Promise<void> };
  /** Hooks run again when a task is resumed while they ran: make them idempotent. */
  hooks?: { taskStart?: Hook; taskCancel?: Hook; taskComplete?: Hook; preToolUse?: Hook; postToolUse?: Hook };
  /**
   * Called, and awaited, at every waiting point before the wait starts (before an ask
   * reaches `ask`, a tool, hook or checkpoint runs, a retry delay's timer is set, the next
   * request after a round entered the history, and when the task ends) with what changed
   * since the last call (for a restored task, since the snapshot it was restored from):
   * store it, and `Task.mergeSnapshot(stored, changes)` gives the snapshot `Task.restore`
   * takes. `info.wakeAt` (ms since the epoch) is when the task next needs its timer (a retry
   * delay's end, a timeout): a host that may be stopped meanwhile sets its own alarm. It is
   * also called when a reply enters the history while the task already waits (reason
   * `"round"`). A throw or rejection ends the task `failed` (`CLEW_PERSIST_FAILED`). The
   * history entries in `changes` are frozen: the task's requests are made from the same objects.
   */
  persist?: (changes: TaskSnapshotChanges, info: { reason: PersistReason; wakeAt?: number }) => void | Promise<void>;
  /**
   * MCP servers whose tools and resources the model may use (Cline's `use_mcp_tool` and
   * `access_mcp_resource`; in native mode each tool is sent as `<name>0mcp0<tool>`). They are
   * listed before the first request (at most `timeouts.mcpListingMs`, 10 s by default; a
   * server that fails or is not listed by then is reported with an
   * `error` say and left out) and again when one says its tools changed.
   */
  mcpServers?: McpServerOption[];
  /**
   * The task's clock: every time the task reads (transcript `ts`, retry delays, timeouts,
   * pacing) comes from `now()` (ms since the epoch), and its one timer from `setTimeout`
   * and `clearTimeout` when given (both or neither; else the runtime's). For fake timers in
   * tests; `clew/cassette` replays a tape on one.
   */
  clock?: TaskClock;
  /** How a long task stays within its model's context (default: Cline's truncation at the window's budget). */
  contextManagement?: ContextManagementOptions;
}

/** `TaskOptions.clock`. */
export interface TaskClock {
  now(): number;
  setTimeout?(callback: () => void, ms: number): unknown;
  clearTimeout?(handle: unknown): void;
}

/** An MCP server of `TaskOptions.mcpServers`. */
export interface McpServerOption {
  /** 1 to 64 letters, digits, `_` or `-`: the `server_name` the model writes. */
  name: string;
  /** A connected client of `@modelcontextprotocol/sdk` (`clew/mcp`'s `connectMcpServer` makes one), or any object with its methods. */
  client: McpClient;
  /** The server's tools that run without asking (tools that declare `readOnlyHint` also do with `autoApprove.readOnly`). */
  autoApprove?: string[];
  /** Cancel a call (the server is told) and report a failure after this many milliseconds (default 60000). */
  timeoutMs?: number;
}

/** What clew uses of an MCP client (the official SDK's `Client` has it all). */
export interface McpClient {
  listTools(params?: { cursor?: string }): Promise<{ tools: { name: string; description?: string; inputSchema?: object; annotations?: { readOnlyHint?: boolean } }[]; nextCursor?: string }>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }, resultSchema?: unknown, options?: { signal?: AbortSignal; timeout?: number }): Promise<unknown>;
  listResources?(params?: { cursor?: string }): Promise<{ resources: { uri: string; name?: string; description?: string }[]; nextCursor?: string }>;
  listResourceTemplates?(params?: { cursor?: string }): Promise<{ resourceTemplates: { uriTemplate: string; name?: string; description?: string }[]; nextCursor?: string }>;
  readResource?(params: { uri: string }, options?: { signal?: AbortSignal; timeout?: number }): Promise<unknown>;
}

/** Why `options.persist` was called. */
export type PersistReason = "ask" | "tool" | "hook" | "checkpoint" | "retryDelay" | "round" | "finished";

/** A task's whole state, JSON-safe: `task.snapshot()`, or what `Task.mergeSnapshot` assembles. */
export interface TaskSnapshot {
  /** The snapshot format (4; a snapshot of every earlier format restores). */
  version: number;
  /** The names of the task's tools: `Task.restore`'s options must have each. */
  tools: string[];
  /** The MCP servers' last listing, when the task has servers (opaque). */
  mcp?: object;
  history: HistoryMessage[];
  messages: TaskMessage[];
  /** Counters, clocks and the waiting point (opaque: an array of them, in a fixed order). */
  state: object;
}

/** What changed since the last `persist`: history entries from `historyFrom` on, transcript entries from `messagesFrom` on (each replacing what was stored from there), and the whole `state`. The first call of a new task gives everything (both 0); a restored task's changes start from the snapshot it was restored from. */
export interface TaskSnapshotChanges extends TaskSnapshot {
  historyFrom: number;
  messagesFrom: number;
}

/** A snapshot cut by `Task.snapshotParts`: the head and each list's entries from an index on. */
export interface TaskSnapshotParts {
  /** Every member but the two lists (opaque: store it whole, under one key). */
  head: object;
  /** The history's entries from index `from` on. */
  history: { from: number; entries: HistoryMessage[] };
  /** The transcript's entries from index `from` on (each replaces the stored one at its index). */
  messages: { from: number; entries: TaskMessage[] };
}

/** A history message, as `task.history` gives it. */
export type HistoryMessage = { role: "user" | "assistant"; content: string | ContentBlock[] };

/** What a task waits for ("listing": its MCP servers are listed before the round's request). */
export type TaskState =
  | "idle" | "stream" | "answer" | "tool" | "hook" | "checkpoint" | "retryDelay" | "presenting" | "finished"
  | "listing";

/** How a task ended; `error` is a `ClewTaskError` with a stable `code`. */
export type TaskOutcome =
  | { status: "completed"; result: string }
  | { status: "ended" | "failed" | "aborted"; error: Error & { code: string } };

/** Tokens, cost and requests of a task. */
export interface TaskUsage {
  inputTokens: number;
  outputTokens: number;
  cacheWriteTokens: number;
  cacheReadTokens: number;
  totalCost: number;
  requests: number;
}
"#;
