// A fetch `Response` read from the wasm (src/wasm/stream.rs): its status and body without a
// getter throwing into wasm, and the start of an error body, bounded in size and time.

export function clew_response(response) {
  try {
    if (response === null || typeof response !== 'object') return null;
    const status = response.status;
    if (typeof status !== 'number') return null;
    let retryAfter = null;
    try { retryAfter = response.headers.get('retry-after'); } catch {}
    const body = response.body ?? null;
    return { ok: response.ok === true, status, retryAfter, body, used: response.bodyUsed === true || !!(body && body.locked) };
  } catch { return null; }
}
export async function clew_error_body(body, limit, timeoutMs) {
  if (!body) return '';
  let reader, timer;
  try {
    reader = body.getReader();
    const late = new Promise((resolve) => { timer = setTimeout(() => resolve(null), timeoutMs); });
    const parts = [];
    let size = 0;
    while (size < limit) {
      const result = await Promise.race([reader.read(), late]);
      if (!result || result.done || !(result.value instanceof Uint8Array)) break;
      parts.push(result.value);
      size += result.value.length;
    }
    const bytes = new Uint8Array(Math.min(size, limit));
    let at = 0;
    for (const part of parts) {
      const piece = part.subarray(0, bytes.length - at);
      bytes.set(piece, at);
      at += piece.length;
    }
    return new TextDecoder().decode(bytes);
  } catch {
    return '';
  } finally {
    clearTimeout(timer);
    try { reader?.cancel().catch(() => {}); } catch {}
  }
}
