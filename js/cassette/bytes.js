// clew/cassette's bytes: a body as the tape keeps it (its text, or base64 when it is not
// UTF-8), and a replayed body's reads as views of its bytes.

import { tapeError } from "./format.js";

/** The one UTF-8 encoder the cassette modules share. */
export const encoder = new TextEncoder();
// NOTE: `ignoreBOM` keeps a leading byte order mark in the text (it is one of the body's bytes).
const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Bytes as a binary string (one char per byte). */
export const binary = (bytes) => {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return s;
};

/** A binary string's bytes. */
export const unbinary = (text) => {
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
};

/** Bytes as the tape keeps them: `text` when they are UTF-8, else `base64`. */
export function readOf(bytes) {
  try {
    return { text: strict.decode(bytes) };
  } catch {
    return { base64: btoa(binary(bytes)) };
  }
}

/** The bytes of a tape's `{ text }` or `{ base64 }`. */
export function bytesOf(read) {
  return typeof read.text === "string" ? encoder.encode(read.text) : unbinary(atob(read.base64));
}

/** A body's reads as one array. */
export function concat(chunks) {
  const bytes = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const chunk of chunks) { bytes.set(chunk, at); at += chunk.length; }
  return bytes;
}

/**
 * One buffer for the text bodies of `responses` (version 2), each slot its reads' total
 * length: encoding them into it is several times quicker than one `encode` each. Gives each
 * response's slot (undefined for a body that goes its own way).
 */
export function bodyPool(responses) {
  const slots = new Map();
  let total = 0;
  for (const response of responses) {
    if (Array.isArray(response.reads) || typeof response.text !== "string") continue;
    let size = 0;
    for (const length of response.reads.bytes) size += length;
    // NOTE: a body that cannot be that long is left to `BodyReads` to report.
    if (size > response.text.length * 3) continue;
    slots.set(response, [total, size]);
    total += size;
  }
  const pool = new Uint8Array(total);
  return (response) => {
    const slot = slots.get(response);
    return slot && pool.subarray(slot[0], slot[0] + slot[1]);
  };
}

/**
 * A replayed body's reads. The tape keeps a body whole (`text`, or `base64` when it is not
 * UTF-8) with its reads' orders, times and byte lengths side by side (`reads: { n, at,
 * bytes }`, version 2); version 1 kept each read as an object of its own. `piece(i)` is read
 * `i`'s bytes. (Bytes, not text: the task's read loop copies bytes into the wasm with one
 * `set`, where text is encoded character by character.)
 */
export class BodyReads {
  /**
   * @param {object} response a response of the tape (checked by `readTape`)
   * @param {string} where its place, for the error when its reads do not add up to its body
   * @param {Uint8Array} [into] where to encode a text body (see `bodyPool`)
   */
  constructor(response, where, into) {
    const reads = response.reads;
    if (Array.isArray(reads)) {
      this.n = reads.map((r) => r.n);
      this.at = reads.map((r) => r.at);
      this.list = reads;
      return;
    }
    this.n = reads.n;
    this.at = reads.at;
    this.ends = [];
    let end = 0;
    for (const length of reads.bytes) this.ends.push(end += length);
    const text = response.text;
    if (into && into.length === end && typeof text === "string") {
      const { read, written } = encoder.encodeInto(text, into);
      this.bytes = read === text.length && written === end ? into : null;
    } else {
      this.bytes = bytesOf(response);
      if (this.bytes.length !== end) this.bytes = null;
    }
    if (!this.bytes) {
      throw tapeError("CLEW_INVALID_CASSETTE", `the cassette's ${where}.reads.bytes add up to ${end} bytes, the body has ${bytesOf(response).length}`);
    }
  }

  get length() {
    return this.n.length;
  }

  /** Read `i`: a view of the body's bytes (the task copies what it reads; nothing keeps or transfers it). */
  piece(i) {
    if (this.list) return bytesOf(this.list[i]);
    return this.bytes.subarray(i ? this.ends[i - 1] : 0, this.ends[i]);
  }
}
