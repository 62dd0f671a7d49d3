//! The pure Rust core: no JavaScript types, no IO, no clock. Builds and tests on the host.
//!
//! The hot path (the parser, model stream decoding, JSON) lives in the `clew-codec` crate,
//! built for speed, and is re-exported here under its own names. The agent loop, the
//! conversation it keeps and the request builders, which run once per round, are compiled
//! with this crate, for size.

pub use clew_codec::{hash, json, parser, stream, text, utf8};

pub mod agent;
pub mod conversation;
pub mod request;
