//! The wasm test suite in headless Chromium (`wasm-pack test --headless --chrome`).

#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod common;
mod wasm_suite;
