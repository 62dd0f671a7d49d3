// Compiled by types.test.mjs with tsc --strict: the package's types accept real use and
// reject misuse (each @ts-expect-error must be an error).
import {
  AssistantMessageParser, parseAssistantMessage, readModelStream, sseDecoder, StreamDecoder,
  ToolCallAssembler, buildRequest, modelCost,
  type Block, type Chunk, type ClewStreamError, type HttpRequest, type NativeToolCall,
} from "clew";

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
  }
  // @ts-expect-error: not a stream format
  await readModelStream(response, "gemini");
}
void stream;

const piped: TransformStream<Uint8Array | ArrayBuffer | string, Chunk> = sseDecoder("openai");
const decoder = new StreamDecoder("chunks");
const decoded: Chunk[] = decoder.push(new Uint8Array([123]));
const request: HttpRequest = buildRequest("openai", { model: { id: "gpt-4.1", apiKey: "k" }, messages: [{ role: "user", content: "hi" }] });
const cost: number = modelCost({ inputPrice: 3 }, { inputTokens: 1, outputTokens: 2 });
function isStreamError(e: unknown): e is ClewStreamError { return e instanceof Error && e.name === "ClewStreamError"; }
void piped; void decoded; void request; void cost; void isStreamError;

// @ts-expect-error: the model id is required
buildRequest("anthropic", { model: {} });
