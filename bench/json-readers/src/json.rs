//! The package's JSON reader, its own files.
#[path = "../../../src/core/json/number.rs"]
mod number;
#[path = "../../../src/core/json/read.rs"]
mod read;
#[path = "../../../src/core/json/value.rs"]
mod value;
#[path = "../../../src/core/json/write.rs"]
mod write;
pub use number::Number;
pub use read::{JsonError, Reader};
pub use value::Json;
