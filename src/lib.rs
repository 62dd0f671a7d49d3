//! clew: Cline's agent loop for the browser and the edge.
//!
//! The crate is a pure Rust core (the [`agent`] loop, the [`conversation`] it keeps, the
//! [`request`] builders, from `clew-codec` the [`parser`] and [`stream`] decoding, and from
//! `clew-base` the [`json`] and [`utf8`]) plus a thin binding layer compiled only for `wasm32` that exports the npm
//! package `clew`. The core never names a JavaScript type and tests with plain
//! `cargo test`.

pub mod core;

pub use crate::core::{agent, conversation, json, parser, request, stream, utf8};

#[cfg(target_arch = "wasm32")]
pub mod wasm;
