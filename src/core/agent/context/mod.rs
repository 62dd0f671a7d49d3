//! Context management (CONTEXT.md): keeping a long task's requests within its model's
//! context. The limit is the smaller of the window's budget and the host's cap; the figure is
//! the context size of the previous request's last model pass; the strategies (truncate,
//! summarize, edit, native, auto) make the view smaller, whole turns at a time; a loop
//! breaker ends a task whose context stays over the limit.
//!
//! - `config.rs`: the options.
//! - `ranges.rs`: truncation's ranges; `edit.rs`: the edit pre-pass; `view.rs`: what a
//!   request sends.
//! - `manage.rs`: when each acts, in the loop; `native.rs`: the provider's compaction; `summary.rs`: the summarize strategy and the
//!   manual condense; `texts.rs`: the model-facing texts, the required files read from a
//!   summary, and which models summarize or compact natively.

mod config;
mod edit;
mod files;
mod manage;
mod models;
mod native;
mod ranges;
mod summary;
pub(crate) mod texts;
mod view;

pub use config::{ContextConfig, EditConfig, NativeConfig, Strategy, SummarizeConfig};
pub use edit::{edit_pass, EditState};
pub use ranges::{next_truncation, next_truncation_after, DeletedRange, Keep};
pub use view::{view, ViewPlan};

/// The context budget of a model of window `context_window` (the reference's table: 128,000
/// when absent or 0; the window less 27k, 30k or 40k for 64k, 128k and 200k; else the larger
/// of the window less 40k and 80 % of it).
pub fn max_allowed_tokens(context_window: Option<u64>) -> u64 {
    let window = context_window.filter(|w| *w > 0).unwrap_or(128_000);
    match window {
        64_000 => window - 27_000,
        128_000 => window - 30_000,
        200_000 => window - 40_000,
        _ => window.saturating_sub(40_000).max(window / 5 * 4),
    }
}

/// What context management keeps between requests (in the snapshot from format 4).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ContextState {
    /// Messages left out of requests.
    pub range: Option<DeletedRange>,
    /// The context size of the previous request's last model pass; `None` when unknown or
    /// already acted on (CONTEXT §1.3).
    pub figure: Option<u64>,
    /// Automatic compactions in a row that left the context over the limit (§8).
    pub consecutive: u64,
    /// `auto` fell back from native for the rest of the task (§7).
    pub fell_back: bool,
    /// The next request is a summarize round's (§4.2).
    pub summarizing: bool,
    /// Message 0's first block goes as the continue marker (after a summary).
    pub task_replaced: bool,
    /// What the edit passes cleared.
    pub edits: EditState,
    /// The next round's user message starts with a reminder of the task (after a provider
    /// compaction that did not pause).
    pub reminder: bool,
    /// The request being made was compacted for (its `api_req_started` says so).
    pub compacted: bool,
    /// The summarize round is a manual condense (asks before it applies; not counted).
    pub manual: bool,
    /// The figure that triggered the summarize round, for its say.
    pub summary_before: Option<u64>,
    /// A manual condense was asked for: the next round is a summarize round with these
    /// instructions (empty: none).
    pub condense: Option<String>,
    /// The previous response held a provider compaction that left no figure (§8: the next
    /// request counts as needing one).
    pub unmeasured: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::stream::model::ModelInfo;

    #[test]
    fn context_budget_per_window() {
        let table = [
            (Some(64_000), 37_000),
            (Some(128_000), 98_000),
            (Some(200_000), 160_000),
            (Some(272_000), 232_000),
            (Some(400_000), 360_000),
            (Some(1_000_000), 960_000),
            (None, 98_000),
            (Some(0), 98_000),
        ];
        for (window, budget) in table {
            assert_eq!(max_allowed_tokens(window), budget, "window {window:?}");
        }
    }

    #[test]
    fn the_limit_is_the_smaller_of_the_budget_and_the_cap() {
        for window in [Some(64_000), Some(128_000), Some(200_000), Some(272_000), Some(400_000), Some(1_000_000), None]
        {
            for cap in [None, Some(40_000), Some(100_000)] {
                let info = ModelInfo { context_window: window, ..ModelInfo::default() };
                let config = ContextConfig { max_context_tokens: cap, ..ContextConfig::default() };
                let budget = max_allowed_tokens(window);
                assert_eq!(config.limit(&info), cap.map_or(budget, |c| c.min(budget)), "{window:?} {cap:?}");
            }
        }
    }
}
