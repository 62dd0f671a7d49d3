// clew/cassette's replay events: a tape's inputs as the replaying sequencer hands them over,
// in their recorded order, each keyed by what in the task waits for it (replay-keys.js) and
// described for messages, a body's consecutive reads as one run.

import { BodyReads, bodyPool } from "./bytes.js";
import { callKey, bodyKey, bodyCall, WAKE } from "./replay-keys.js";

/** What a replayed event is, for messages. */
export const whatOf = (event) => event.what ?? `a read of request ${bodyCall(event.key)}'s body (order ${event.run.reads.n[event.run.i]})`;

/**
 * The events of `tape` (checked by `readTape`) in their recorded order (`n`): each response or
 * error of a request, its body's reads (in runs) and end, each tool, ask and MCP outcome, and
 * each firing of the task's timer. A `TypeError` when a body's reads do not add up to it.
 */
export function replayEvents(tape) {
  const events = [];
  const bodies = [];
  // NOTE: the responses `readTape` checked: a request's, when it has no error.
  const slot = bodyPool(tape.interactions.filter((e) => e.type === "request" && !e.error).map((e) => e.response));
  for (const [index, entry] of tape.interactions.entries()) {
    const key = callKey(entry.type, entry.call);
    if (entry.type === "request") {
      if (entry.error) events.push({ ...entry.error, key, what: `the error of request ${entry.call}` });
      else {
        events.push({ ...entry.response, key, what: `the response to request ${entry.call}` });
        const reads = new BodyReads(entry.response, `interactions[${index}].response`, slot(entry.response));
        if (reads.length) bodies.push({ key: bodyKey(entry.call), reads });
        if (entry.response.end && entry.response.end.type !== "abort") {
          events.push({ ...entry.response.end, key: bodyKey(entry.call), what: `the end of request ${entry.call}'s body` });
        }
      }
    } else if (entry.outcome) {
      events.push({ ...entry.outcome, key, what: `the ${entry.type === "mcp" ? "MCP " + entry.method : entry.type} result of call ${entry.call}` });
    }
  }
  for (const wake of tape.wakes ?? []) events.push({ ...wake, key: WAKE, what: `the timer at ${wake.at} ms` });
  events.push(...readRuns(bodies, events));
  return events.sort((a, b) => a.n - b.n);
}

/**
 * The bodies' reads as runs: each run is reads of one body with no other event between them
 * on the tape (by `n`), handed over one by one (one object per run, not per read).
 */
function readRuns(bodies, others) {
  const ns = others.map((e) => e.n).sort((a, b) => a - b);
  const runs = [];
  for (const { key, reads } of bodies) {
    const n = reads.n;
    // NOTE: `before` counts the other events ordered before the read looked at; a body's
    // reads come in order, so it only moves forward.
    let before = 0;
    const count = (at) => { while (before < ns.length && ns[before] < at) before++; return before; };
    let from = 0, last = count(n[0]);
    for (let j = 1; j <= n.length; j++) {
      const now = j < n.length ? count(n[j]) : -1;
      if (now === last) continue;
      runs.push({ key, n: n[from], run: { reads, i: from, to: j } });
      from = j;
      last = now;
    }
  }
  return runs;
}
