//! The JavaScript binding: thin wrappers that convert arguments, call the core, and convert
//! results back. Compiled only for `wasm32`; nothing here holds logic the core could hold.

//! Rust code (the wasm tests) can call the exports directly through the re-exports below.

// NOTE: some exported items are reached only from JavaScript, not from Rust paths.
#![allow(unreachable_pub)]

mod allocator;
mod args;
mod blocks_js;
mod decoding;
#[cfg(not(feature = "without-task"))]
mod driver;
mod error;
mod inbox;
#[cfg(not(feature = "without-task"))]
mod js_call;
mod json_js;
mod parser;
mod request;
mod stream;
#[cfg(not(feature = "without-task"))]
mod task;
#[cfg(not(feature = "without-task"))]
mod task_convert;
#[cfg(not(feature = "without-task"))]
mod task_options;
mod tool_calls;

pub use parser::{parse_assistant_message, AssistantMessageParser};
pub use request::{build_request, model_cost};
pub use stream::{read_model_stream, sse_decoder, StreamDecoder};
#[cfg(not(feature = "without-task"))]
pub use task::Task;
pub use tool_calls::ToolCallAssembler;
pub use types::ToolSetSpecJs;
mod types;

#[cfg(feature = "bench")]
mod bench;

// NOTE: talc instead of the default dlmalloc: smaller code in the wasm (scripts/bench
// measures the package size) and well maintained; small blocks are recycled in front of it
// (allocator.rs).
// SAFETY: a wasm instance of this package is single-threaded, which is what
// `TalckWasm::new_global` and `Recycling` require.
#[global_allocator]
static ALLOCATOR: allocator::Recycling = unsafe { allocator::Recycling::new(talc::TalckWasm::new_global()) };
