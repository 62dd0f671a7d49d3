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
  /** An output item of another kind, sent back whole to its own format only. */
  | { type: "item"; format: StreamFormat; item: unknown };

/** Everything one model call needs. */
export interface ModelRequest {
  system?: string;
  messages?: { role: "user" | "assistant"; content: string | ContentBlock[] }[];
  /** Tools for native tool calling, each with a JSON Schema of its arguments. */
  tools?: { name: string; description?: string; inputSchema: unknown }[];
  model: ModelSettings;
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
}
"#;

#[wasm_bindgen(typescript_custom_section)]
const TS_TASK_TYPES: &'static str = r#"
/** A say or ask message of a task's transcript. */
export interface TaskMessage {
  /** Unique and strictly increasing within a task; a partial update carries the ts of the message it updates. */
  ts: number;
  type: "say" | "ask";
  /** The reference's say kind: "task", "text", "reasoning", "tool", "completion_result", "error", "error_retry", "api_req_started", "user_feedback", "use_mcp_server", "mcp_server_request_started", "mcp_server_response"… */
  say?: string;
  /** The reference's ask kind: "tool", "use_mcp_server", "followup", "completion_result", "api_req_failed", "mistake_limit_reached", "resume_task", "resume_completed_task". */
  ask?: string;
  text?: string;
  /** Data URLs (or web addresses). */
  images?: string[];
  /** true while streaming, false once a streamed message is final; absent for a message never partial. */
  partial?: boolean;
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
  /** 0 turns a timeout off. */
  timeouts?: { firstByteMs?: number; idleMs?: number };
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
   * listed before the first request (10 s at most; a server that fails is reported with an
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
  /** The snapshot format (3; a snapshot of every earlier format restores). */
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
