//! The package's JSON reader, its own files.
#[path = "../../../crates/codec/src/core/json/number.rs"]
mod number;
#[path = "../../../crates/codec/src/core/json/read.rs"]
mod read;
#[path = "../../../crates/codec/src/core/json/value.rs"]
mod value;
#[path = "../../../crates/codec/src/core/json/write.rs"]
mod write;
pub use number::Number;
pub use read::{JsonError, Reader};
pub use value::Json;
