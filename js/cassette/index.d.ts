// clew/cassette: record a whole task on tape, replay it offline on a virtual clock.
import type { Task as BaseTask, TaskOptions, TaskOutcome, ModelSettings } from "clew";

/** How a task uses its tape. */
export interface CassetteOptions {
  /**
   * `"record"`: run live and keep everything the task gets; `"replay"`: answer the task from
   * `data`; `"auto"` (the default): replay when `data` is given, else record.
   */
  mode?: "record" | "replay" | "auto";
  /** The tape to replay (a `Cassette` or its JSON text). */
  data?: Cassette | string;
  /** Replaying: run the tools (`"live"`) instead of answering from the tape (`"tape"`, the default). */
  tools?: "tape" | "live";
  /**
   * Replaying: call `ask` for the answers (`"live"`) instead of answering from the tape
   * (`"tape"`, the default: `ask` is still called, to show each ask, a complete one with the
   * tape's answer as its second argument `{ answer }`, and what it returns is not used).
   */
  asks?: "tape" | "live";
  /** A live tool whose result differs from the tape: end the task (`"fail"`, the default) or warn and go on with the recorded result. */
  onDivergence?: "fail" | "warn";
  /** Where `onDivergence: "warn"` reports (default `console.warn`). */
  onWarning?: (message: string) => void;
  /** Replaying: do not fail when the task ends with recorded interactions never used. */
  allowUnused?: boolean;
  /** Recording: more JSON paths of the requests to redact (`$.metadata.user_id`, `$.messages[*].content`). */
  redact?: string[];
  /** JSON paths of the requests left out of their digest and of the comparison when replaying. */
  ignore?: string[];
  /** Recording: your own JSON kept on the tape as `meta` (what the app needs to replay it: settings, the task's text). */
  meta?: unknown;
  /** Replaying: how long (real ms) the task may go without asking for the tape's next input before it fails (5000; 0 is never). */
  stallMs?: number;
}

/** `new Task(options)`'s options, with `cassette`. */
export interface CassetteTaskOptions extends TaskOptions {
  cassette?: CassetteOptions;
}

/** A stamp: the input's place in the order the task got its inputs, and its time in ms from the task's start. */
export interface CassetteStamp {
  n: number;
  at: number;
}

/**
 * A body's reads, side by side: each read's place in the order (`n`), its time in ms from the
 * task's start (`at`) and its length in bytes (`bytes`), which add up to the body.
 */
export interface CassetteReads {
  n: number[];
  at: number[];
  bytes: number[];
}

/** A model request and its response. */
export interface CassetteRequest {
  type: "request";
  /** Its place among the task's requests. */
  call: number;
  /** When the task made it (ms from the start). */
  at: number;
  /**
   * The provider body clew builds for it, redacted; null matches any request (an imported
   * body). A top-level array whose first items are the previous request's (the conversation)
   * starts with `{ "$previous": n }` in their place, so a tape grows with the conversation,
   * not with its square.
   */
  body: unknown;
  /** `sha256:<hex>` of the canonical body (sorted keys, without the `ignore` paths), or null. */
  digest: string | null;
  response?: CassetteStamp & {
    status: number;
    /** `content-type` and `retry-after`, when the response had them. */
    headers: Record<string, string>;
    /** The request callback gave a bare stream rather than a `Response`. */
    stream?: boolean;
    /** The whole body as it arrived: `text` when it is UTF-8, else `base64`. */
    text?: string;
    base64?: string;
    /** How it arrived, read by read (version 1 kept a list of `{ n, at, text | base64 }`, still read). */
    reads: CassetteReads;
    /** How the body ended; `abort` when the task cancelled it. */
    end?: (CassetteStamp & { type: "end" }) | (CassetteStamp & { type: "error"; message: string; name: string }) | { type: "abort" };
  };
  /** The request failed before a response. */
  error?: CassetteStamp & { message: string; name: string };
}

/** A tool call, an ask or an MCP call, with what came back. */
export interface CassetteCall {
  type: "tool" | "ask" | "mcp";
  call: number;
  at: number;
  /** Tools: the name and parameters. */
  name?: string;
  params?: unknown;
  /** Asks: the ask's kind and text. */
  ask?: string;
  text?: string;
  /** MCP: the server and the client method. */
  server?: string;
  method?: string;
  /** A tool call cancelled by the task (abort, timeout): nothing came back. */
  cancelled?: boolean;
  outcome?: CassetteStamp & { result?: unknown; answer?: unknown; error?: { message: string; name: string } };
}

/** A tape: one JSON document, versioned and promised like snapshots. */
export interface Cassette {
  format: "clew-cassette";
  version: number;
  /** The clew that recorded it. */
  clew: string;
  model: { format: string; id: string };
  /** The task's start, ms since the epoch: every `at` counts from it. */
  startedAt: number;
  /** Whether the task had an `ask` callback. */
  asks?: boolean;
  redaction?: { redact: string[]; ignore: string[] };
  interactions: Array<CassetteRequest | CassetteCall>;
  /** The task's timer firing, with the time it was set for (`due`). */
  wakes: Array<CassetteStamp & { due: number }>;
  /** The application's own data, from `CassetteOptions.meta`. */
  meta?: unknown;
  /** The MCP servers' capabilities and the client methods they had, by name. */
  mcp?: Record<string, { capabilities: unknown; methods?: string[] }>;
}

/** clew's `Task`, with `options.cassette`. */
export declare class Task extends BaseTask {
  constructor(options: CassetteTaskOptions);
  start(text: string, images?: string[]): Promise<TaskOutcome>;
  /** The tape: recording, what happened so far, redacted; replaying, the tape being replayed. */
  cassette(): Promise<Cassette>;
}

/**
 * A one-round tape from a provider's recorded body (SSE, or `chunks` JSON lines): its request
 * matches any request, and the body comes one event per read (or `readSize` bytes).
 */
export declare function fromSse(
  body: string | Uint8Array,
  options: { format: string; id?: string; status?: number; contentType?: string; readSize?: number; startedAt?: number },
): Cassette;

/** Why a `tapeModel` went live: the tape had no request `call` (`"ended"`), or it differs (`"differs"`) at `path` ("digest" when only the digest tells). */
export type TapeModelLive =
  | { call: number; reason: "ended" }
  | { call: number; reason: "differs"; path: string; recorded: string; actual: string };

/** `tapeModel`'s options. */
export interface TapeModelOptions {
  /** Real ms between two reads of a replayed body (0, the default: as fast as the task reads), or `"recorded"`: the tape's times. */
  pace?: number | "recorded";
  /** Called once, when the first request the tape does not answer goes to the live model. */
  onLive?: (why: TapeModelLive) => void;
}

/**
 * `model` with its requests answered from a tape while each is the request recorded in its
 * place (compared as a replay compares them); from the first one that is not, or past the
 * tape's last, every request goes to `model` itself (its `request`, else its `fetch`, else
 * the global `fetch`). Tools, asks and the clock stay the task's own: replay ten rounds, go
 * live for the eleventh. The live model gets the conversation without the signatures and
 * encrypted reasoning that the tape holds as placeholders (call ids stay, paired). The
 * settings returned answer through `request` (in place of `fetch`).
 */
export declare function tapeModel(data: Cassette | string, model: ModelSettings, options?: TapeModelOptions): ModelSettings;

/** What a redacted value looks like on a tape (`redacted-<n>`; the API key is `redacted-key`). */
export declare const PLACEHOLDER: RegExp;
