//! The pure Rust core: no JavaScript types, no IO, no clock. Builds and tests on the host.
//!
//! The hot path (parser, stream decoding, JSON) lives in the `clew-codec` crate, built for
//! speed; it is re-exported here under the same paths. The agent loop and the request
//! builders, which run once per round, are compiled with this crate, for size.

pub use clew_codec::core::{json, parser, utf8};

pub mod agent;

pub mod stream {
    //! Model streams: a provider's response body (bytes) to the loop's chunks
    //! (`clew-codec`), and the requests that open those streams ([`request`]).

    pub use clew_codec::core::stream::*;

    pub mod request;
}
