// The asks: one table from each ask kind to its controls (the buttons and the text field
// under the ask's row), and the verdict shown once it is answered.
import { button, parseJson } from "./dom.js";
import { rows } from "./state.js";

const yes = { response: "yesButtonClicked" };
const no = { response: "noButtonClicked" };
const reply = (text) => ({ response: "messageResponse", text });

/**
 * Each ask kind's controls: `placeholder` for its text field (none: no field) and
 * `controls(done, text, message)`, the buttons, each answering with `done(answer)`; `text()`
 * is what the field holds. A kind not here gets an OK button.
 */
const APPROVAL = {
  placeholder: "optional feedback",
  controls: (done, text) => [
    button("Approve", "approve", () => done({ ...yes, text: text() || undefined })),
    button("Deny", "deny", () => done(text() ? reply(text()) : no))],
};
const ASKS = {
  tool: APPROVAL,
  use_mcp_server: APPROVAL,
  followup: {
    placeholder: "your answer",
    controls: (done, text, message) => {
      const options = parseJson(parseJson(message.text)?.options ?? "") ?? [];
      return [
        ...(Array.isArray(options) ? options : []).map((option) => button(String(option), "option", () => done(reply(String(option))))),
        button("Answer", "answer", () => done(reply(text())))];
    },
  },
  completion_result: {
    placeholder: "reply to ask for changes",
    controls: (done, text) => [button("Accept", "accept", () => done(yes)), button("Reply", "reply", () => done(reply(text())))],
  },
  api_req_failed: {
    controls: (done) => [button("Retry", "retry", () => done(yes)), button("End", "end", () => done(no))],
  },
  mistake_limit_reached: {
    placeholder: "guidance for the model",
    controls: (done, text) => [
      button("Continue", "continue", () => done(text() ? reply(text()) : yes)),
      button("Stop", "end", () => done(no))],
  },
};
const OK = { controls: (done) => [button("OK", "approve", () => done(yes))] };

/** Marks an ask's row with its answer. */
export function showAnswer(message, answer) {
  const row = rows.get(message.ts);
  row.li.classList.add("answered");
  const verdict = document.createElement("div");
  verdict.className = "verdict";
  verdict.textContent = answer?.response === "yesButtonClicked" ? "✓ approved" : answer?.response === "noButtonClicked" ? "✗ declined" : `↳ ${answer?.text || "answered"}`;
  row.li.append(verdict);
}

/** Shows the ask's controls under its row and resolves with the user's answer. */
export function answerUi(message) {
  return new Promise((resolve) => {
    const ask = Object.hasOwn(ASKS, message.ask) ? ASKS[message.ask] : OK;
    const controls = document.createElement("div");
    controls.className = "ask-controls";
    const input = document.createElement("input");
    input.placeholder = ask.placeholder ?? "";
    const done = (answer) => {
      controls.remove();
      showAnswer(message, answer);
      resolve(answer);
    };
    const buttons = ask.controls(done, () => input.value.trim(), message);
    // NOTE: a follow-up's options come before its field, as the answers it suggests.
    const options = buttons.filter((b) => b.className === "option");
    controls.append(...options, ...(ask.placeholder ? [input] : []), ...buttons.filter((b) => b.className !== "option"));
    rows.get(message.ts).li.append(controls);
    input.addEventListener("keydown", (event) => { if (event.key === "Enter") controls.querySelector("button:last-of-type")?.click(); });
  });
}
