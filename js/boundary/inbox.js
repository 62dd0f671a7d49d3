// An inbox in the wasm's memory (src/wasm/inbox.rs): a read loop writes each piece of bytes
// there by one `set` on a view of the memory kept from piece to piece, and hands the wasm only
// its length. The inbox's place is `room * 2 ** 32 + address`: given when the read loop starts,
// then answered by every push (the wasm may move or grow it).

const ROOM = 4294967296; // 2 ** 32

export function inbox(memory, place) {
  let heap = new Uint8Array(memory.buffer), room = Math.floor(place / ROOM), at = place % ROOM;
  return {
    // `piece`'s length once written at the inbox; -1 when it is not bytes or does not fit.
    put(piece) {
      if (!(piece instanceof Uint8Array) || piece.length > room) return -1;
      // NOTE: a view on a buffer the memory outgrew is detached (length 0).
      if (heap.length === 0) heap = new Uint8Array(memory.buffer);
      heap.set(piece, at);
      return piece.length;
    },
    // The place a push answered.
    moved(place) {
      room = Math.floor(place / ROOM);
      at = place % ROOM;
    },
  };
}
