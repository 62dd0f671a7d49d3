// `new Task(options)`'s options copied as JSON for the core (src/wasm/task_options.rs), and
// the MCP servers' glue, loaded when a task first lists its servers.

export function clew_options(options, fns, clients) {
  // A plain copy of the options as JSON, each function replaced by {"$fn": n} (its place in
  // `fns`) and each MCP client, an object with listTools and callTool methods, by {"$mcp": n}
  // (its place in `clients`: the core reads where one is expected); a cycle, a throwing
  // getter, a proxy or a NaN is thrown as the reason (a string). `keys` is the way from
  // `options` to the value being copied, made into a path only for an error.
  const seen = new Set();
  const keys = [];
  let bad = null;
  const path = () => 'options' + keys.map((k) => typeof k === 'number' ? '[' + k + ']' : '.' + k).join('');
  function copy(v) {
    if (typeof v === 'function') { fns.push(v); return { $fn: fns.length - 1 }; }
    if (typeof v === 'number' && !Number.isFinite(v)) { bad = bad ?? 'a number that is not finite at ' + path(); return null; }
    if (typeof v === 'bigint') { bad = bad ?? 'a BigInt at ' + path(); return null; }
    if (v === null || typeof v !== 'object') return v;
    if (typeof v.listTools === 'function' && typeof v.callTool === 'function') { clients.push(v); return { $mcp: clients.length - 1 }; }
    if (seen.has(v)) throw new TypeError('they hold a cycle');
    if (keys.length > 64) throw new TypeError('they are nested too deeply');
    seen.add(v);
    let out;
    if (Array.isArray(v)) {
      out = [];
      for (let i = 0; i < v.length; i++) { keys.push(i); out.push(copy(v[i])); keys.pop(); }
    } else {
      out = {};
      for (const key of Object.keys(v)) {
        keys.push(key);
        const value = copy(v[key]);
        keys.pop();
        // NOTE: a key named __proto__ is defined, not assigned (which would set the prototype).
        if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
        else out[key] = value;
      }
    }
    seen.delete(v);
    return out;
  }
  let json;
  try {
    json = JSON.stringify(copy(options));
  } catch (error) {
    throw String(error && error.message || error);
  }
  if (bad !== null) throw 'they hold ' + bad;
  return json ?? 'null';
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
