//! The pure Rust core: no JavaScript types, no IO, no clock. Builds and tests on the host.
//!
//! The parser and model stream decoding live in the `clew-codec` crate and the JSON they
//! read in `clew-base` (built for speed); both are re-exported here under their own names. The agent loop, the
//! conversation it keeps and the request builders, which run once per round, are compiled
//! with this crate, for size.

pub use clew_codec::{hash, json, parser, stream, text, utf8};

pub mod agent;
pub mod conversation;
pub(crate) mod first;
pub mod request;
