// The playground's state: the one module that holds what changes while the page runs. Every
// other module reads and sets it here and holds none of its own.
import { Workspace } from "./workspace.js";

/** What the page holds between events. */
export const state = {
  /** The task on screen (started, restored or replayed), or null. */
  task: null,
  /** Its outcome once it ended (for the transcript's export). */
  lastOutcome: null,
  /** The TaskStore while "keep in this browser" is on, or null. */
  store: null,
  /** The task being kept: `{ task, app: { settings, environment, finished, mcp }, timer, whole }`. */
  kept: null,
  /** A stored remote model's task (what the store loaded), waiting for the Resume button. */
  savedTask: null,
  /** The path of the file the workspace panel shows. */
  shown: "README.md",
  /** The built-in tape's load: a promise of the tape, or of null when it failed (then retried). */
  builtinTapeLoad: null,
  /** Why the built-in tape last failed to load. */
  builtinTapeError: null,
};

/** The timeline's rows by message `ts`: `{ li, message }`. */
export const rows = new Map();

/** The connected MCP servers, in the order they connected: `{ name, url, client, tools, readOnly, unwatch }`. */
export const mcpServers = [];

/** The workspace's files and the agent's tools over them. */
export const workspace = new Workspace();
