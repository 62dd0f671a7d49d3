// `new Task(options)`'s options copied as JSON for the core (src/wasm/task_options.rs), and
// the MCP servers' glue, loaded when a task first lists its servers.

// What a string needs escaped in JSON; a string without it is written as it is, in quotes
// (JSON.stringify costs a call into the runtime for each key and value).
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;
const quoted = (text) => ESCAPED.test(text) ? JSON.stringify(text) : '"' + text + '"';

export function clew_options(options, fns, clients, last) {
  // The options as JSON text, written as they are walked (no copy for JSON.stringify to walk
  // again), each function as {"$fn": n} (its place in `fns`) and each MCP client, an object
  // with listTools and callTool methods, as {"$mcp": n} (its place in `clients`: the core
  // reads where one is expected); the rest as JSON.stringify writes a plain copy of the
  // options' own enumerable keys. A cycle, a throwing getter, a proxy or a NaN is thrown as
  // the reason (a string). `undefined` when the text is `last`'s, the text the core's last
  // reading was of: then it is not copied into the wasm again. `keys` is the way from
  // `options` to the value being written, made into a path only for an error.
  const within = [];
  const keys = [];
  let bad = null;
  const path = () => 'options' + keys.map((k) => typeof k === 'number' ? '[' + k + ']' : '.' + k).join('');
  function text(v) {
    switch (typeof v) {
      case 'string': return quoted(v);
      case 'boolean': return v ? 'true' : 'false';
      case 'number':
        if (Number.isFinite(v)) return '' + v;
        bad = bad ?? 'a number that is not finite at ' + path();
        return 'null';
      case 'function': return '{"$fn":' + (fns.push(v) - 1) + '}';
      case 'bigint': bad = bad ?? 'a BigInt at ' + path(); return 'null';
      case 'object': break;
      default: return undefined; // undefined and symbols, which JSON leaves out
    }
    if (v === null) return 'null';
    if (typeof v.listTools === 'function' && typeof v.callTool === 'function') return '{"$mcp":' + (clients.push(v) - 1) + '}';
    if (within.includes(v)) throw new TypeError('they hold a cycle');
    if (within.length > 64) throw new TypeError('they are nested too deeply');
    within.push(v);
    let out;
    if (Array.isArray(v)) {
      out = '[';
      for (let i = 0; i < v.length; i++) {
        keys.push(i);
        const item = text(v[i]);
        keys.pop();
        out += (i === 0 ? '' : ',') + (item === undefined ? 'null' : item);
      }
      out += ']';
    } else {
      out = '{';
      for (const key of Object.keys(v)) {
        keys.push(key);
        const value = text(v[key]);
        keys.pop();
        if (value !== undefined) out += (out.length === 1 ? '' : ',') + quoted(key) + ':' + value;
      }
      out += '}';
    }
    within.pop();
    return out;
  }
  let json;
  try {
    json = text(options) ?? 'null';
  } catch (error) {
    throw String(error && error.message || error);
  }
  if (bad !== null) throw 'they hold ' + bad;
  return json === last ? undefined : json;
}

// The MCP servers' glue for `servers`, [name, client, …] as the core read options.mcpServers:
// the code that lists the servers and calls them is mcp-servers.js at the package's root,
// loaded only when a task with servers first lists them. It registers itself under a global
// symbol: an application that imports "clew/mcp" (or "clew/mcp-servers") has it in its
// bundle; otherwise the entries that can import it from beside the package at run time
// (Node, browsers) said how (`clew_mcp_import`). The workerd and edge entries cannot: there
// the application imports it. `list()` gives the servers' listing as JSON
// (src/core/agent/mcp.rs `McpCatalog::read`), or "" when nothing changed.
const MCP_SERVERS = Symbol.for('clew.mcpServers');
let mcpImport = () => Promise.resolve();
export function clew_mcp_import(load) { mcpImport = () => load('./mcp-servers.js'); }
export function clew_mcp(servers) {
  let loaded, told = false;
  const load = () => loaded ??= (globalThis[MCP_SERVERS] ? Promise.resolve() : mcpImport()).then(() => {
    if (typeof globalThis[MCP_SERVERS] !== 'function') throw new Error('it is not in this bundle');
    return globalThis[MCP_SERVERS](servers);
  });
  const run = (op) => (a, b) => load().then(
    (glue) => glue[op](a, b),
    (e) => {
      e = 'the MCP support could not be loaded (' + String(e && e.message || e) + '); import "clew/mcp" once in the application';
      if (op !== 'list') throw Error(e);
      return told ? '' : (told = true, JSON.stringify({ errors: [{ message: e }] }));
    });
  return { list: run('list'), call: run('call'), read: run('read') };
}
