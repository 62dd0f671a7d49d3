//! The wasm test suite in Node (`wasm-pack test --node`).

#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

mod common;
mod wasm_suite;
