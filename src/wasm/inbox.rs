//! The inbox a read loop writes into (js/boundary/pump.js, and chunks.js `feeder`): a buffer
//! in the wasm's memory where JavaScript copies each piece of bytes that fits, handing over
//! only its length; the task's read loop (driver/model_stream.rs) and the decoders'
//! (decoding.rs) each keep one.

/// The bytes of a read the read loops can write into the wasm at once (the task's, and
/// `decoding.rs`'s); a longer read crosses as a value and is copied.
pub(super) const INBOX_BYTES: usize = 16 * 1024;

/// The most room an inbox announces (its answer to a read loop holds the room above 2^32).
const MAX_INBOX_ROOM: usize = 1 << 20;

/// Where `inbox` is, as a read loop reads it: `room * 2^32 + address`.
pub(super) fn room_of(inbox: &[u8]) -> f64 {
    let room = inbox.len().min(MAX_INBOX_ROOM) as f64;
    room * 4_294_967_296.0 + inbox.as_ptr() as usize as f64
}
