// Compiled by types.test.mjs with tsc --strict: the package's types accept real use and
// reject misuse (each @ts-expect-error must be an error).
import {
  AssistantMessageParser, parseAssistantMessage, readModelStream, sseDecoder, StreamDecoder,
  ToolCallAssembler, buildRequest, modelCost, Task, ClewStreamError, ClewTaskError, ClewError, ready,
  type Block, type Chunk, type HttpRequest, type NativeToolCall, type TaskMessage, type TaskOutcome,
  type ModelSettings, type ModelRequest, type TaskState, type TaskSnapshot, type TaskSnapshotChanges, type TaskSnapshotParts, type PersistReason,
  type McpClient, type McpServerOption, type HistoryMessage,
  type ContextManagementOptions, type CompactionSay, type ApiReqStartedSay, type RequiredFile, type ContentBlock,
} from "clew";
import { connectMcpServer } from "clew/mcp";
import "clew/mcp-servers";
import { Task as TapedTask, fromSse, tapeModel, type Cassette, type CassetteOptions, type TapeModelLive } from "clew/cassette";

const blocks: Block[] = parseAssistantMessage("<read_file><path>a</path></read_file>");
for (const block of blocks) {
  if (block.type === "tool_use") { const path: string | undefined = block.params.path; void path; }
  else { const text: string = block.content; void text; }
}
const parser = new AssistantMessageParser({ tools: ["lookup"], params: ["term"] });
const first: number = parser.push("chunk");
const maybe: Block | undefined = parser.block(first);
const held: number = parser.finish();
void maybe; void held; void parser.length;

async function stream(response: Response): Promise<void> {
  const chunks: ReadableStream<Chunk> = await readModelStream(response, "anthropic");
  const calls = new ToolCallAssembler();
  for await (const chunk of chunks as unknown as AsyncIterable<Chunk>) {
    if (chunk.type === "text") { const t: string = chunk.text; void t; }
    if (chunk.type === "usage") { const n: number = chunk.inputTokens; void n; }
    if (chunk.type === "tool_calls") { const call: NativeToolCall | undefined = calls.call(calls.push(chunk)); void call; }
    if (chunk.type === "text_end") { const phase: string | undefined = chunk.phase; void phase; }
    if (chunk.type === "reasoning") { const summary: string[] | undefined = chunk.summary; void summary; }
    if (chunk.type === "stop") { const raw: string | undefined = chunk.raw; void raw; }
  }
  await readModelStream(response, "gemini");
  await readModelStream(response, "openai-responses");
  // @ts-expect-error: not a stream format
  await readModelStream(response, "cohere");
}
void stream;

const piped: TransformStream<Uint8Array | ArrayBuffer | string, Chunk> = sseDecoder("openai");
const decoder = new StreamDecoder("chunks");
const decoded: Chunk[] = decoder.push(new Uint8Array([123]));
const request: HttpRequest = buildRequest("openai", { model: { id: "gpt-4.1", apiKey: "k" }, messages: [{ role: "user", content: "hi" }] });
const cost: number = modelCost({ inputPrice: 3 }, { inputTokens: 1, outputTokens: 2 });
function isStreamError(e: unknown): e is ClewStreamError { return e instanceof ClewStreamError && e.retryable; }
void piped; void decoded; void request; void cost; void isStreamError;

// @ts-expect-error: a model id is a string
buildRequest("anthropic", { model: { id: 5 } });

// Task, with every option.
const settings: ModelSettings = {
  format: "anthropic", id: "claude", maxTokens: 1024, temperature: 0, reasoningBudget: 0, reasoningEffort: "low",
  headers: { "x-a": "b" }, baseUrl: "https://example.invalid", apiKey: "k", promptCache: true, browser: true,
  info: { contextWindow: 200000, maxOutput: 8192, inputPrice: 3, outputPrice: 15, cacheWritePrice: 3.75, cacheReadPrice: 0.3 },
  fetch: (url, init) => fetch(url, init),
  request: (req: ModelRequest, { signal }) => fetch("/proxy", { ...buildRequest("anthropic", req), signal }),
};
const responsesSettings: ModelSettings = { format: "openai-responses", id: "gpt-5", store: false, reasoningEffort: "medium" };
const geminiSettings: ModelSettings = { format: "gemini", id: "gemini-3-pro-preview", apiKey: "k" };
void responsesSettings;
void geminiSettings;
const task = new Task({
  model: settings,
  tools: [{
    name: "read_file", description: "read", readOnly: true, timeoutMs: 1000,
    parameters: [{ name: "path", description: "where", required: true }],
    inputSchema: { type: "object" },
    execute: async (params, { signal, taskId }) => { void signal; void taskId; return { text: params.path ?? "", images: ["data:image/png;base64,AA=="] }; },
  }, { name: "ping", execute: () => "pong", describe: (params) => params.host }],
  say: (message: TaskMessage) => { const ts: number = message.ts; void ts; },
  ask: async (message) => (message.partial ? undefined : { response: "yesButtonClicked", text: "ok" }),
  autoApprove: { readOnly: true, all: false }, yolo: false, maxConsecutiveMistakes: 3, parallelToolCalling: true,
  toolCalling: "native", retry: { maxRetries: 3, baseDelayMs: 2000, maxDelayMs: 60000 }, timeouts: { firstByteMs: 0, idleMs: 1000 },
  limits: { maxRequests: 10, maxCost: 1 }, presentationIntervalMs: 40, systemPrompt: "s", rules: "r", environment: "e",
  checkpoint: { save: async () => {}, initial: () => {} },
  hooks: { taskStart: () => ({ context: "c" }), taskCancel: () => {}, taskComplete: async () => {}, preToolUse: (input) => ({ cancel: input.tool === "x" }), postToolUse: () => undefined },
});
async function run(): Promise<void> {
  await ready;
  const outcome: TaskOutcome = await task.start("go", ["data:image/png;base64,AA=="]);
  if (outcome.status === "completed") { const result: string = outcome.result; void result; }
  else { const code: string = outcome.error.code; void code; }
  task.abort("stop");
  const state: TaskState = task.state;
  // @ts-expect-error: not a state a task can be in
  const wrong: typeof task.state = "running"; void wrong; const n: number = task.usage.totalCost + task.messages.length;
  void state; void n; void (new ClewTaskError("m", "C") instanceof ClewError);
  // @ts-expect-error: not a tool-calling mode
  new Task({ model: settings, toolCalling: "json" });
  // @ts-expect-error: an answer needs a known response
  new Task({ model: settings, ask: () => ({ response: "maybe" }) });
  // Durable tasks.
  let stored: TaskSnapshot | undefined;
  const kept = new Task({
    model: settings,
    tools: [{ name: "write", idempotent: true, execute: () => "ok" }],
    persist: async (changes: TaskSnapshotChanges, { reason, wakeAt }) => {
      const why: PersistReason = reason; void why; void (wakeAt ?? 0);
      stored = Task.mergeSnapshot(stored, changes);
    },
  });
  const snapshot: TaskSnapshot = kept.snapshot();
  const parts: TaskSnapshotParts = Task.snapshotParts(snapshot);
  const head: object = parts.head; void head;
  const firstEntry: HistoryMessage | undefined = parts.history.entries[parts.history.from]; void firstEntry;
  const joined: TaskSnapshot = Task.joinSnapshot(parts); void joined;
  // @ts-expect-error: parts hold a head
  Task.joinSnapshot({ history: parts.history, messages: parts.messages });
  const again: Task = Task.restore(JSON.stringify(snapshot), { model: settings });
  const resumed: TaskOutcome = await again.resume(); void resumed;
  Task.fromHistory({ history: snapshot.history, messages: snapshot.messages }, { model: settings });
  // @ts-expect-error: not a persist reason
  const badReason: PersistReason = "later"; void badReason;
  // MCP servers: a client of the SDK (clew/mcp) or any object with its methods.
  const client = await connectMcpServer("http://127.0.0.1:1/mcp", { headers: { authorization: "Bearer x" } });
  const plain: McpClient = { listTools: async () => ({ tools: [{ name: "t", annotations: { readOnlyHint: true } }] }), callTool: async () => ({}) };
  const servers: McpServerOption[] = [{ name: "sdk", client, autoApprove: ["t"], timeoutMs: 5000 }, { name: "plain", client: plain }];
  new Task({ model: settings, mcpServers: servers });
  // @ts-expect-error: a client needs callTool
  new Task({ model: settings, mcpServers: [{ name: "x", client: { listTools: plain.listTools } }] });
  // Record and replay (clew/cassette), and a task on a fake clock.
  const recorder = new TapedTask({ model: settings, cassette: { mode: "record", redact: ["$.metadata.user_id"] } });
  await recorder.start("go");
  const tape: Cassette = await recorder.cassette();
  const first = tape.interactions[0];
  if (first?.type === "request" && first.response) { const lengths: number[] = first.response.reads.bytes; const body: string | undefined = first.response.text; void lengths; void body; }
  const replay: CassetteOptions = { mode: "replay", data: tape, tools: "live", onDivergence: "warn", stallMs: 0 };
  const replayed: TaskOutcome = await new TapedTask({ model: settings, cassette: replay }).start("go"); void replayed;
  const imported: Cassette = fromSse("data: {}\n\n", { format: "openai" }); void imported;
  // @ts-expect-error: not a mode
  new TapedTask({ model: settings, cassette: { mode: "rewind" } });
  // A tape answers the model while the task follows it, then the live model.
  const seen: TapeModelLive[] = [];
  new Task({ model: tapeModel(tape, settings, { pace: "recorded", onLive: (why) => { seen.push(why); if (why.reason === "differs") void why.path; } }) });
  // @ts-expect-error: pace is ms or "recorded"
  tapeModel(tape, settings, { pace: "fast" });
  let time = 0;
  const onClock = new Task({ model: settings, clock: { now: () => time, setTimeout: (f: () => void, ms: number) => setTimeout(f, ms), clearTimeout: (h: unknown) => clearTimeout(h as number) } });
  onClock.fail("MY_WATCHDOG", "took too long");
  time = 1;
  // Context management: the options, condense, the compaction say and the history's block.
  const context: ContextManagementOptions = {
    strategy: "summarize", maxContextTokens: 100_000, maxConsecutiveCompactions: 2,
    edit: { keepToolUses: 2, keepThinkingTurns: "all", excludeTools: ["read_file"] },
    summarize: { models: "all", instructions: "the API", readRequiredFiles: async (paths, { signal }): Promise<RequiredFile[]> => (signal.aborted ? [] : paths.map((path) => ({ path, content: "" }))) },
    native: { openai: "inline", pauseAfterCompaction: false, dropCompacted: true, serverEdits: true },
  };
  const condensing = new Task({ model: { ...settings, info: { supportsCompaction: true } }, contextManagement: context, say: (m) => {
    if (m.say === "compaction" && m.text) { const c: CompactionSay = JSON.parse(m.text); const before: number | null = c.tokensBefore; void before; if (c.kind === "summary") void c.summary; }
    if (m.say === "api_req_started" && m.text) { const r: ApiReqStartedSay = JSON.parse(m.text); void r.contextTokens; void r.compactionPass; }
  } });
  condensing.condense();
  condensing.condense({ instructions: "keep the file names" });
  // @ts-expect-error: instructions are text
  condensing.condense({ instructions: 5 });
  // @ts-expect-error: not a strategy
  new Task({ model: settings, contextManagement: { strategy: "forget" } });
  const compacted: ContentBlock = { type: "compaction", provider: "anthropic", content: "summary" }; void compacted;
  const request: ModelRequest = { model: settings, context: { compactThreshold: 50_000, pauseAfterCompaction: true, edits: { keepThinkingTurns: "all" } } }; void request;
}
void run;
