#!/usr/bin/env bash
# bench/json-readers/run.sh: prints a table row per reader: wasm size (wasm-opt -O, gzip -9)
# and native time per data line of bench/fixtures/sse-openai-5000.txt.
set -euo pipefail
cd "$(dirname "$0")"
export PATH="$HOME/.cargo/bin:/usr/local/bin:$PATH"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-../../target/json-readers}"
echo "| reader | wasm (wasm-opt -O) | gzipped | native, per data line |"
echo "|---|---|---|---|"
for reader in mini hand; do
  cargo build -q --release --target wasm32-unknown-unknown --features "$reader"
  wasm-opt -O --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext --enable-mutable-globals \
    --enable-reference-types --enable-multivalue --strip-debug "$CARGO_TARGET_DIR/wasm32-unknown-unknown/release/ms.wasm" -o "$CARGO_TARGET_DIR/ms-$reader.wasm"
  raw=$(stat -c %s "$CARGO_TARGET_DIR/ms-$reader.wasm")
  gz=$(gzip -9 -c "$CARGO_TARGET_DIR/ms-$reader.wasm" | wc -c)
  per=$(cargo run -q --release --example speed --features "$reader" | sed 's/.*(\([0-9]*\) ns\/line).*/\1/')
  name=$([ "$reader" = mini ] && echo "miniserde 0.1 derive" || echo "clew's pull reader")
  echo "| $name | $raw B | $gz B | $per ns |"
done
