// scripts/demo --cli "task text": the playground's offline model and workspace in Node, with
// no terminal needed. Asks are answered here (tools approved, follow-ups answered, the
// completion accepted); one line is printed per final message: `<say|ask> <kind>: <text>`.
import { Task } from "../pkg/node.js";
import { Workspace } from "../www/workspace.js";
import { offlineRequest, OFFLINE_MODEL_INFO } from "../www/offline-model.js";

const text = process.argv[2] || "Fix the typos in the README.";
const workspace = new Workspace();
const oneLine = (s) => String(s ?? "").replace(/\r?\n/g, "\\n");
const print = (message) => {
  if (message.partial) return;
  const kind = message.type === "say" ? message.say : message.ask;
  console.log(`${message.type} ${kind}: ${oneLine(message.text)}`);
};
const answers = {
  tool: { response: "yesButtonClicked" },
  followup: { response: "messageResponse", text: "No, that's all" },
  completion_result: { response: "yesButtonClicked" },
  api_req_failed: { response: "noButtonClicked" },
  mistake_limit_reached: { response: "noButtonClicked" },
};
const task = new Task({
  model: { format: "anthropic", id: "clew-offline", info: OFFLINE_MODEL_INFO, request: offlineRequest({ delayMs: 0 }) },
  tools: workspace.tools(),
  autoApprove: { readOnly: true },
  environment: `The workspace holds: ${[...workspace.files.keys()].join(", ")}.`,
  say: print,
  ask: (message) => {
    print(message);
    return message.partial ? undefined : answers[message.ask] ?? { response: "noButtonClicked" };
  },
});
const outcome = await task.start(text);
const usage = task.usage;
console.log(`outcome ${outcome.status}: ${oneLine(outcome.result ?? outcome.error?.message)}`);
console.log(`usage: ${usage.inputTokens} in, ${usage.outputTokens} out, $${usage.totalCost.toFixed(4)}, ${usage.requests} requests`);
process.exitCode = outcome.status === "completed" ? 0 : 1;
