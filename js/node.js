// Node entry (ESM): the inlined wasm, compiled synchronously, so that server bundlers
// (Next.js, esbuild --platform=node) need no asset. CommonJS `require` gets index.cjs, a
// bundle of the same entry.
export * from "./inline.js";
