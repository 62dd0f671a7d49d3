// Node entry: compiles the wasm module from the file beside this one, synchronously.
import { readFileSync } from "node:fs";
import { initSync } from "./clew.js";

initSync({ module: readFileSync(new URL("./clew_bg.wasm", import.meta.url)) });

export * from "./clew.js";
export { AssistantMessageParser } from "./parser.js";
