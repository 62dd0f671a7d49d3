//! The pure Rust core: no JavaScript types, no IO, no clock. Builds and tests on the host.

pub mod agent;
pub mod json;
pub mod parser;
pub mod stream;
pub mod utf8;
