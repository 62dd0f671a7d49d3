// clew/cassette's format: its name and version, what a placeholder looks like and which model
// format a tape assumes (each declared here only), and the small pieces recording, replaying
// and `tapeModel` share: what a tape keeps of a value, an error and an MCP client, and how a
// recorded error or an unread response comes back. read-tape.js checks a tape against it.

/** The format's name and the version this release writes (and the newest it reads). */
export const FORMAT = "clew-cassette";
export const VERSION = 2;

/** What every placeholder starts with. */
const REDACTED = "redacted-";
/** What a placeholder looks like: `redacted-<n>`, the same one everywhere its value was. */
export const PLACEHOLDER = new RegExp(`^${REDACTED}\\d+$`);
/** The placeholder of the `n`th value redacted (from 1). */
export const placeholder = (n) => REDACTED + n;
/** What stands for the API key, wherever a model or a tool repeated it. */
export const KEY_PLACEHOLDER = REDACTED + "key";

/** The model format of model settings: theirs, else clew's default (the provider's wire format). */
export const modelFormat = (model) => model.format ?? "anthropic";

/** A `TypeError` with a `code`, like the rest of the package's argument errors. */
export function tapeError(code, message) {
  return Object.assign(new TypeError(message), { code });
}

/** A recorded error (`{ message, name }`), made an error again to throw. */
export const rethrow = (e) => Object.assign(new Error(e.message), { name: e.name });

/**
 * A recorded response whose body was never read (none, or the task did not read it), replayed
 * without one: a null-body status (204, 304) takes no body at all. Null for any other response.
 */
export function unreadResponse(response) {
  const reads = Array.isArray(response.reads) ? response.reads.length : response.reads.n.length;
  return response.stream || response.end || reads ? null : new Response(null, { status: response.status, headers: response.headers ?? {} });
}

/** An error's message and name, as the tape keeps them. */
export const errorOf = (e) => ({ message: String(e?.message ?? e), name: typeof e?.name === "string" ? e.name : "Error" });
/**
 * A value as plain JSON (what a tool returned, an answer, an MCP result): null for one JSON
 * cannot hold (a BigInt, a cycle, a function), which the task reads as nothing either.
 */
export function plain(v) {
  try {
    const text = JSON.stringify(v);
    return text === undefined ? null : JSON.parse(text);
  } catch {
    return null;
  }
}

/** The MCP client methods a tape records. */
export const MCP_METHODS = ["listTools", "listResources", "listResourceTemplates", "callTool", "readResource"];
