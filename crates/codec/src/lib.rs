//! clew's streaming work: the streaming tool-call parser and model stream decoding (lines,
//! server-sent events, provider formats, partial JSON), over the JSON of `clew-base`.
//!
//! Everything here runs for every chunk the model sends; the JSON reading under it, several
//! passes over every event, is `clew-base`, built at `opt-level = 3`, while this crate is
//! built for size like the loop (Cargo.toml says what each choice measured). The `clew`
//! crate re-exports every module under the same names (`clew::parser`, `clew::stream`, ...):
//! use it rather than this crate.

pub use clew_base::{hash, json, text, utf8};
pub mod parser;
pub mod stream;
