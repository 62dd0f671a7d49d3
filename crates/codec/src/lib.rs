//! clew's hot path, built for speed: the streaming tool-call parser, model stream decoding
//! (lines, server-sent events, provider formats, partial JSON) and the package's JSON.
//!
//! Everything here runs for every byte or chunk the model sends, so the workspace compiles
//! it at `opt-level = 3` while the `clew` crate (the agent loop, request builders and the
//! wasm binding) is compiled for size. The `clew` crate re-exports every module under the
//! same names (`clew::parser`, `clew::stream`, ...): use it rather than this crate.

pub mod hash;
pub mod json;
pub mod parser;
pub mod stream;
pub mod text;
pub mod utf8;
