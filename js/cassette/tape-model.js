// clew/cassette's tape model: model settings whose requests a tape answers while the task
// follows it, and the live model from the first request it does not. The tools, the asks
// and the clock stay the task's own (live). Replay ten expensive rounds, then go live for
// the eleventh; the playground's offline model is the built-in tape with its script past it.
import { buildRequest } from "clew";
import { tapeError, rethrow, unreadResponse, modelFormat, PLACEHOLDER } from "./format.js";
import { readTape } from "./read-tape.js";
import { BodyReads } from "./bytes.js";
import { RequestMatcher } from "./match.js";

/** The abort error of `signal` (its reason when it is an error). */
const abortError = (signal) => (signal.reason instanceof Error ? signal.reason : new DOMException("The request was aborted", "AbortError"));

/**
 * `model` with its requests answered from `data` (a tape, or its JSON text) while each is
 * the request recorded in its place (compared as the replay compares them); from the first
 * one that is not, or past the tape's last, every request goes to `model` itself (its
 * `request`, else its `fetch`, else the global `fetch`), and `options.onLive` hears why,
 * once. `options.pace`: real ms between two reads of a body (0, the default: as fast as the
 * task reads), or `"recorded"` (the times on the tape). The bytes and their reads come back as
 * recorded, their timing does not: which partial states the task shows between two reads
 * follows the real clock (the cassette's replay, on a virtual clock, gives those back too).
 * The live model gets the conversation without the signatures and encrypted reasoning the
 * tape holds as placeholders (see `handOver`). The settings returned have a `request`
 * callback in place of `fetch`.
 */
export function tapeModel(data, model, options = {}) {
  const tape = readTape(data);
  if (!model || typeof model !== "object") throw tapeError("CLEW_INVALID_ARGUMENT", "tapeModel needs the model settings to go live with");
  const format = modelFormat(model);
  if (tape.model.format !== format) {
    throw tapeError("CLEW_INVALID_CASSETTE", `the cassette was recorded with model.format "${tape.model.format}", the model settings say "${format}"`);
  }
  const { pace = 0, onLive } = options ?? {};
  if (pace !== "recorded" && !(typeof pace === "number" && pace >= 0 && pace < 2 ** 31)) {
    throw tapeError("CLEW_INVALID_ARGUMENT", 'tapeModel\'s pace must be a number of ms (0 or more) or "recorded"');
  }
  if (onLive !== undefined && typeof onLive !== "function") throw tapeError("CLEW_INVALID_ARGUMENT", "tapeModel's onLive must be a function");
  const entries = [];
  const reads = [];
  for (const [i, entry] of tape.interactions.entries()) {
    if (entry.type !== "request") continue;
    entries.push(entry);
    reads.push(entry.response ? new BodyReads(entry.response, `interactions[${i}].response`) : null);
  }
  const matcher = new RequestMatcher(entries, tape.redaction?.ignore ?? []);
  let next = 0;
  let live = false;

  /** The recorded answer to the next request (body `text`), or null once the task left the tape. */
  async function answer(text, signal) {
    if (live) return null;
    const call = next++;
    const entry = entries[call];
    let left = entry ? null : { call, reason: "ended" };
    if (entry) {
      let d = matcher.check(call, text);
      if (d?.then) d = await d;
      if (d) left = { call, reason: "differs", ...d };
    }
    if (left) {
      live = true;
      try { onLive?.(left); } catch {}
      return null;
    }
    return replay(entry, reads[call], pace, signal);
  }

  /** The live model's answer to `req`: their `request`, else the HTTP call clew would make. */
  function goLive(req, init) {
    const handed = handOver(req);
    if (typeof model.request === "function") return model.request(handed, init);
    const http = buildRequest(format, handed);
    return (model.fetch ?? globalThis.fetch)(http.url, { method: http.method, headers: http.headers, body: http.body, signal: init?.signal });
  }

  // NOTE: always a `request` callback, also for settings with `fetch`: going live needs the
  // request as clew holds it (to leave out what only the tape could sign), and the body it
  // builds is the one clew's own fetch would send.
  const settings = { ...model };
  delete settings.fetch;
  return { ...settings, request: async (req, init) => (await answer(buildRequest(format, req).body, init?.signal)) ?? goLive(req, init) };
}

/**
 * `req` made fit for a live model after replayed rounds: the tape's placeholders stand where
 * the provider's signatures and encrypted reasoning were, which no provider would take back.
 * Reasoning whose signature or encrypted content is a placeholder goes without it (so the
 * request builder leaves it out, as for reasoning from another model), a placeholder signature
 * on a text or a call goes (Gemini's builder puts its stand-in on an unsigned call), redacted
 * thinking that is a placeholder goes, and so does an output item's placeholder `id`. Call ids
 * stay: they only pair a call with its result. `req` itself is not changed.
 */
function handOver(req) {
  const placeholder = (v) => typeof v === "string" && PLACEHOLDER.test(v);
  const without = (block, keys) => {
    const out = { ...block };
    for (const key of keys) if (placeholder(out[key])) delete out[key];
    return out;
  };
  const fit = (block) => {
    switch (block?.type) {
      case "thinking": return without(block, ["signature", "encrypted_content"]);
      case "text": case "tool_use": return without(block, ["signature"]);
      case "redacted_thinking": return placeholder(block.data) ? null : block;
      case "item": return block.item && typeof block.item === "object" ? { ...block, item: without(block.item, ["id"]) } : block;
      default: return block;
    }
  };
  if (!Array.isArray(req?.messages)) return req;
  const messages = req.messages.map((message) => Array.isArray(message?.content)
    ? { ...message, content: message.content.map(fit).filter((block) => block !== null) }
    : message);
  return { ...req, messages };
}

/** Waits `ms` real ms (none for 0); rejects when `signal` aborts first. */
function wait(ms, signal) {
  if (signal?.aborted) return Promise.reject(abortError(signal));
  if (!(ms > 0)) return undefined;
  return new Promise((resolve, reject) => {
    const done = () => { clearTimeout(timer); reject(abortError(signal)); };
    const timer = setTimeout(() => { signal?.removeEventListener?.("abort", done); resolve(); }, ms);
    signal?.addEventListener?.("abort", done, { once: true });
  });
}

/**
 * A recorded request's outcome, replayed: its error thrown, or its response (a bare stream
 * when the request callback gave one, else a `Response`) whose body comes read by
 * read, paced, and ends as recorded. A body whose recording stops short (the task cancelled
 * it) fails there with `CLEW_CASSETTE_EXHAUSTED`, and the task's retry goes live.
 */
async function replay(entry, reads, pace, signal) {
  const recorded = (from, to) => (pace === "recorded" ? Math.max(0, to - from) : pace);
  if (entry.error) {
    await wait(pace === "recorded" ? recorded(entry.at, entry.error.at) : 0, signal);
    throw rethrow(entry.error);
  }
  const response = entry.response;
  await wait(pace === "recorded" ? recorded(entry.at, response.at) : 0, signal);
  const unread = unreadResponse(response);
  if (unread) return unread;
  const headers = response.headers ?? {};
  let i = 0;
  let last = response.at;
  const body = new ReadableStream({
    async pull(controller) {
      const end = response.end;
      const at = i < reads.length ? reads.at[i] : end?.at ?? last;
      // NOTE: `pace` ms go between two reads (not before the first, which the response's
      // own wait covered), and before a recorded end when pacing by the tape's times.
      if (i > 0 || pace === "recorded") await wait(i < reads.length || pace === "recorded" ? recorded(last, at) : 0, signal);
      last = at;
      if (i < reads.length) {
        controller.enqueue(reads.piece(i++).slice());
      } else if (end?.type === "end") {
        controller.close();
      } else if (end?.type === "error") {
        controller.error(rethrow(end));
      } else {
        controller.error(tapeError("CLEW_CASSETTE_EXHAUSTED", `the cassette's response to request ${entry.call} stops here: the task stopped reading it when it was recorded`));
      }
    },
  }, { highWaterMark: 0 });
  return response.stream ? body : new Response(body, { status: response.status, headers });
}
