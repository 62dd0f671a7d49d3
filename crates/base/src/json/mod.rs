//! JSON for the core, written for small wasm code: a pull [`Reader`] that decoders drive
//! field by field (nothing is built for the members they skip), a [`Json`] value for the
//! few places that hold arbitrary JSON (tool inputs, schemas, error bodies), and a writer.
//!
//! Numbers keep their source text ([`Number`]): nothing here formats or parses a float
//! with the standard library's tables, which are most of what a general JSON crate weighs
//! in wasm. Integers convert exactly; floats convert through [`Number::as_f64`] (exact for
//! the usual values: up to 15 significant digits, exponents up to 22) and are written with
//! [`Number::from_f64`] (integers exactly, other values with up to 12 decimals: prices,
//! costs and temperatures).
//!
//! Reading is lenient where JSON has no single answer: a repeated key is seen twice (the
//! last value wins for [`Json::get`], as in `JSON.parse`), and a lone UTF-16 surrogate
//! escape becomes U+FFFD. It is strict where JSON is: trailing commas, comments, control
//! characters in strings and nesting deeper than [`MAX_DEPTH`] are errors.

mod compact;
pub mod fields;
mod number;
mod read;
mod serde_impl;
mod value;
mod write;

// NOTE: the property tests need proptest, a native-only dev-dependency.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests;

pub use number::Number;
pub use read::{JsonError, Reader, MAX_DEPTH};
pub use value::Json;
pub use write::{write_key, write_string, write_u64};
