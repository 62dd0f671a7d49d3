//! Whole tasks driven natively: a scripted model, scripted answers and a fake clock. Each test
//! is named after the behaviour of AGENT-LOOP.md (or the issue) it shows.
#![allow(
    unreachable_pub,
    clippy::type_complexity,
    clippy::double_ended_iterator_last,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod harness;

mod abort;
mod context;
mod context_native;
mod context_summary;
mod context_turns;
mod from_history;
mod loop_rounds;
mod mcp;
mod mcp_listing;
mod native;
mod options;
mod presentation;
mod providers;
mod reference_snapshots;
mod retries;
mod snapshot;
mod tools;
mod usage;
