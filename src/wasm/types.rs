//! Hand-written TypeScript types for the values that cross the boundary as plain objects.

use wasm_bindgen::prelude::wasm_bindgen;

#[wasm_bindgen]
extern "C" {
    /// `ToolSetSpec` on the JS side: typed in TypeScript, read field by field in Rust.
    #[wasm_bindgen(typescript_type = "ToolSetSpec")]
    pub type ToolSetSpecJs;
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
/** A stream format: Anthropic Messages SSE, OpenAI Chat Completions SSE, or clew's own chunk lines. */
export type StreamFormat = "anthropic" | "openai" | "chunks";

/** Token counts of a reply; the usage chunks of one reply add up to its totals. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheWriteTokens?: number;
  cacheReadTokens?: number;
  /** The cost the provider reported, in US dollars. */
  totalCost?: number;
}

/** One piece of a model's reply, shaped as the reference loop's stream chunks. */
export type Chunk =
  | { type: "text"; text: string }
  | { type: "reasoning"; reasoning: string; signature?: string; redacted_data?: string }
  | { type: "tool_calls"; tool_call: { call_id?: string; function: { id?: string; name?: string; arguments?: string } } }
  | ({ type: "usage" } & Usage)
  | { type: "stop"; reason: string };

/** Thrown (or erroring a stream) for HTTP errors, malformed streams and provider errors. */
export interface ClewStreamError extends Error {
  name: "ClewStreamError";
  code: "CLEW_HTTP_ERROR" | "CLEW_NOT_SSE" | "CLEW_STREAM_INCOMPLETE" | "CLEW_PROVIDER_ERROR" | "CLEW_MALFORMED_JSON"
    | "CLEW_LINE_TOO_LONG" | "CLEW_EVENT_TOO_LARGE" | "CLEW_INVALID_UTF8";
  /** Whether sending the same request again may succeed. */
  retryable: boolean;
  status?: number;
  kind?: string;
  providerMessage?: string;
  retryAfterMs?: number;
  body?: string;
  line?: string;
  limit?: number;
  /** Chunks decoded before the error (StreamDecoder only). */
  chunks?: Chunk[];
}

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
  | { type: "text"; text: string }
  | { type: "image"; source: { type: "base64"; media_type: string; data: string } | { type: "url"; url: string } }
  | { type: "tool_use"; id: string; name: string; input: unknown }
  | { type: "tool_result"; tool_use_id: string; content: string | ContentBlock[]; is_error?: boolean }
  | { type: "thinking"; thinking: string; signature?: string }
  | { type: "redacted_thinking"; data: string };

/** Everything one model call needs. */
export interface ModelRequest {
  system?: string;
  messages?: { role: "user" | "assistant"; content: string | ContentBlock[] }[];
  /** Tools for native tool calling, each with a JSON Schema of its arguments. */
  tools?: { name: string; description?: string; inputSchema: unknown }[];
  model: {
    id: string;
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
  };
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
