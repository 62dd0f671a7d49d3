// Timing helper shared by the wasm-in-Node benchmarks.

/** Minimum wall time of `f` in ms over `runs` runs, after warm-up runs that let the JIT settle. */
export function minTime(runs, f) {
  for (let i = 0; i < 5; i++) f();
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    f();
    best = Math.min(best, Number(process.hrtime.bigint() - start) / 1e6);
  }
  return best;
}
