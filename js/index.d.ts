
// The entries' own exports (js/index.d.ts, appended to the generated declarations).

/**
 * Resolves once the wasm module is ready. Every entry but the browser one is ready at import;
 * the browser entry loads the module in the background: await `ready` before the first
 * synchronous call (`Task` and the async functions wait by themselves).
 */
export declare const ready: Promise<void>;

export interface AssistantMessageParser {
  /** Ends the stream: a held-back high surrogate is parsed as it is. Returns what `push` returns. */
  finish(): number;
}

/** An error of clew, with a stable `code`. */
export declare class ClewError extends Error {
  constructor(message: string, code: string);
  readonly code: string;
}

/** A model stream failed: its HTTP response, its framing, or its content. */
export declare class ClewStreamError extends ClewError {
  readonly code:
    | "CLEW_HTTP_ERROR" | "CLEW_NOT_SSE" | "CLEW_STREAM_INCOMPLETE" | "CLEW_PROVIDER_ERROR" | "CLEW_MALFORMED_JSON"
    | "CLEW_LINE_TOO_LONG" | "CLEW_EVENT_TOO_LARGE" | "CLEW_INVALID_UTF8" | "CLEW_NETWORK_ERROR" | "CLEW_TIMEOUT";
  /** Whether sending the same request again may succeed. */
  readonly retryable: boolean;
  readonly status?: number;
  readonly kind?: string;
  readonly providerMessage?: string;
  readonly retryAfterMs?: number;
  readonly body?: string;
  readonly line?: string;
  readonly limit?: number;
  /** Chunks decoded before the error (StreamDecoder only). */
  readonly chunks?: Chunk[];
}

/** Why a task did not complete (`outcome.error`). */
export declare class ClewTaskError extends ClewError {}

// NOTE: the web types the declarations above name, as empty global interfaces. They merge
// with the real ones where the program has them (the DOM library, @types/node,
// @cloudflare/workers-types) and let these declarations compile where it has none
// (`lib: ["ES2022"]`, a Node or Workers project without DOM types).
declare global {
  interface ReadableStream<R> {}
  interface TransformStream<I, O> {}
  interface Response {}
  interface AbortSignal {}
}

/** `Task`'s statics written in JavaScript (js/snapshot-parts.js); no need to await `ready`. */
export declare namespace Task {
  /**
   * A snapshot or a persist's changes cut into the parts an
   * application stores entry by entry: `head`, every member but the two lists (opaque: store
   * it whole, under one key), and each list's `entries` (the same objects) from index `from`
   * on (0 for a whole snapshot). `Task.joinSnapshot` puts them back together.
   * @throws TypeError (code `CLEW_INVALID_SNAPSHOT`) naming what cannot be read.
   */
  function snapshotParts(changes: TaskSnapshotChanges | TaskSnapshot): TaskSnapshotParts;
  /**
   * The snapshot whose parts an application stored (each list's entries from 0 on): the
   * object `Task.restore` takes. With a `from` above 0 it gives those changes instead
   * (`historyFrom` or `messagesFrom` set), for `Task.mergeSnapshot`.
   * @throws TypeError (code `CLEW_INVALID_SNAPSHOT`) naming what cannot be read.
   */
  function joinSnapshot(
    parts: { head: object; history?: { from?: number; entries: HistoryMessage[] }; messages?: { from?: number; entries: TaskMessage[] } },
  ): TaskSnapshot;
}
