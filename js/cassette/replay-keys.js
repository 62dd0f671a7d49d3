// clew/cassette's replay keys: each event of a replayed tape is keyed by what in the task waits
// for it, and the keys are written and read only here. `request#3` is model request 3's
// response (or error), `body#3` a read or the end of its body, `tool#0`, `ask#0` and `mcp#0`
// a call's outcome, and `wake` a firing of the task's timer.

const REQUEST = "request#";
const BODY = "body#";

/** The key of call `call` of kind `type` (request, tool, ask or mcp): its response or outcome. */
export const callKey = (type, call) => `${type}#${call}`;

/** The key of request `call`'s body: its reads and its end. */
export const bodyKey = (call) => BODY + call;

/** The key of each firing of the task's timer. */
export const WAKE = "wake";

/** The key of the body of the request whose key is `key`; undefined when `key` is not a request's. */
export const bodyAfter = (key) => (key.startsWith(REQUEST) ? BODY + key.slice(REQUEST.length) : undefined);

/** The request call a body's key names. */
export const bodyCall = (key) => key.slice(BODY.length);
