//! clew's inner loops, built for speed: the package's JSON (a pull reader, a value and a
//! writer), byte search, UTF-8 boundaries and its one map.
//!
//! Every model event goes through the JSON reader several times over, and every persist
//! through the writer, so the workspace compiles this crate at `opt-level = 3` while the
//! code that drives it (decoders, parser, loop) is built for size. The `clew` crate
//! re-exports every module under the same names (`clew::json`, ...): use it rather than
//! this crate.

pub mod hash;
pub mod json;
pub mod text;
pub mod utf8;
