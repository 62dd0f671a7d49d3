// Records www/offline-tape.json, the playground's built-in tape: the offline task run in the
// playground (headless Chromium, the installed package) with its approvals given, the
// follow-up answered "No, that's all" and the result accepted, as a visitor's "Download tape"
// saves it. Run it again when clew's requests change on purpose: until then the playground's
// test of the built-in tape fails with CLEW_CASSETTE_MISMATCH, naming where, and its offline
// model leaves the tape for its script at that request (the page's status says so). Run
// again, the old tape answers as far as it still matches and the script the rest.
//   node support/make-offline-tape.mjs
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { serve } from "./static-server.mjs";
import { packageDir, repoRoot } from "./package-dir.mjs";
import { finishTheTask, openPlayground } from "./playground.mjs";

/** The tape as JSON text with one line per member and per interaction (www/ keeps files short). */
function tapeText(tape) {
  const member = ([key, value]) => key === "interactions"
    ? ` "interactions": [\n${value.map((item) => `  ${JSON.stringify(item)}`).join(",\n")}\n ]`
    : ` ${JSON.stringify(key)}: ${JSON.stringify(value)}`;
  return `{\n${Object.entries(tape).map(member).join(",\n")}\n}\n`;
}

const server = await serve({ "/pkg/": packageDir, "/": join(repoRoot, "www") });
const browser = await openPlayground(server.url);
try {
  const { page, errors } = browser;
  await page.click("#start");
  await finishTheTask(page);
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#tape")]);
  const file = join(repoRoot, "www/offline-tape.json");
  await download.saveAs(file);
  if (errors.length) throw new Error(`the page failed: ${errors.join("; ")}`);
  const tape = JSON.parse(readFileSync(file, "utf8"));
  writeFileSync(file, tapeText(tape));
  console.log("wrote www/offline-tape.json:", tape.interactions.length, "interactions");
} finally {
  await browser.close();
  await server.close();
}
