// clew/mcp in workerd: as mcp.js, with the SDK's Workers-safe JSON Schema validator (it
// needs `@cfworker/json-schema`, an optional peer dependency of the SDK).
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { connectWith } from "./mcp.js";

export { listMcpTools, watchMcpTools, isReadOnlyMcpTool, mcpServersError } from "./mcp.js";

/** A connected SDK `Client` for the MCP server at `url` (see mcp.js). */
export async function connectMcpServer(url, options = {}) {
  return connectWith(url, options, options.jsonSchemaValidator ?? new CfWorkerJsonSchemaValidator());
}
