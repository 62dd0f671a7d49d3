// The change watching of MCP clients (js/mcp-servers.js and clew/mcp): who is told when a
// server says its tools changed (`notifications/tools/list_changed`): the tasks that use the
// client, which list the server again before their next request, and the applications'
// callbacks (`watchMcpTools`). Each client is wrapped once, however many watch it.

const TOOLS_CHANGED = "notifications/tools/list_changed";

/**
 * For each client, who is told when its tools change: the states of the tasks that use it
 * (held weakly: a finished task's go) and the applications' callbacks (`watchMcpTools`).
 */
const watchers = new WeakMap();

/** Marks `state` stale when its server says its tools changed, so it is listed again before the next request. */
export function watch(client, state) {
  subscribe(client, new WeakRef(state));
}

/**
 * Adds `watcher` (a task state's WeakRef, or a function) to those told when `client`'s server
 * says its tools changed; gives the function that removes it, or undefined when the client
 * cannot be watched. The official SDK's Client calls `fallbackNotificationHandler` for a
 * notification it has no handler of its own for; a handler the application set for this one
 * (its own, or the SDK's `listChanged` option) is wrapped instead. Each client is wrapped
 * once, however many tasks and callbacks watch it.
 */
function subscribe(client, watcher) {
  let set = watchers.get(client);
  if (!set) {
    try {
      const notify = () => {
        for (const entry of set) {
          if (typeof entry === "function") {
            tell(entry);
            continue;
          }
          const s = entry.deref();
          if (!s) set.delete(entry);
          else if (s.connected) s.stale = true;
        }
      };
      const handlers = client._notificationHandlers;
      const own = handlers instanceof Map ? handlers.get(TOOLS_CHANGED) : undefined;
      if (typeof own === "function") {
        handlers.set(TOOLS_CHANGED, (notification) => { notify(); return own(notification); });
      } else if ("fallbackNotificationHandler" in client || typeof client.setNotificationHandler === "function") {
        const fallback = client.fallbackNotificationHandler;
        client.fallbackNotificationHandler = async (notification) => {
          if (notification && notification.method === TOOLS_CHANGED) notify();
          if (typeof fallback === "function") return fallback.call(client, notification);
        };
      }
      set = new Set();
      watchers.set(client, set);
    } catch {
      // NOTE: a client that refuses this only misses the refresh.
      return undefined;
    }
  }
  set.add(watcher);
  return () => { set.delete(watcher); };
}

/** Calls an application's `onChange`; what it throws or rejects with is not the client's problem. */
function tell(onChange) {
  try {
    Promise.resolve(onChange()).catch(() => {});
  } catch {
    // NOTE: a throwing callback must not stop the others, nor the SDK's handler.
  }
}

/**
 * Calls `onChange()` each time the server of `client` says its tools changed
 * (`notifications/tools/list_changed`), beside the tasks that use the client (they list the
 * server again before their next request). Gives the function that stops it.
 */
export function watchMcpTools(client, onChange) {
  if (!client || typeof client !== "object") throw new TypeError("watchMcpTools(client, onChange): client must be a connected MCP client");
  if (typeof onChange !== "function") throw new TypeError("watchMcpTools(client, onChange): onChange must be a function");
  // NOTE: a wrapper of its own, so the same function watched twice is stopped once at a time.
  const watcher = () => onChange();
  return subscribe(client, watcher) ?? (() => {});
}
