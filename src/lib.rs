//! clew: Cline's agent loop for the browser and the edge.
//!
//! The crate is a pure Rust core ([`parser`], [`stream`], [`utf8`], and, as it lands, the
//! loop) plus a thin binding layer compiled only for `wasm32` that exports
//! the npm package `clew`. The core never names a JavaScript type and tests with plain
//! `cargo test`.

pub mod core;

pub use crate::core::{agent, json, parser, stream, utf8};

#[cfg(target_arch = "wasm32")]
pub mod wasm;
