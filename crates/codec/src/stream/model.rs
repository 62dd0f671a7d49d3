//! What a model can take and what it costs, and the cost of a reply's usage.

use serde::{Deserialize, Serialize};

use super::chunk::Usage;

/// A model's limits and prices. Prices are US dollars per million tokens; a missing price
/// counts as zero.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ModelInfo {
    /// Tokens of context (input plus output) the model accepts.
    pub context_window: Option<u64>,
    /// Most output tokens per reply.
    pub max_output: Option<u64>,
    /// Price of uncached input.
    pub input_price: Option<f64>,
    /// Price of output.
    pub output_price: Option<f64>,
    /// Price of input written to the prompt cache.
    pub cache_write_price: Option<f64>,
    /// Price of input read from the prompt cache.
    pub cache_read_price: Option<f64>,
    /// Whether the model supports prompt-caching breakpoints.
    pub supports_prompt_cache: bool,
    /// Whether the model compacts its context on the server (Anthropic models beyond the
    /// ones clew lists; CONTEXT §6.1).
    pub supports_compaction: bool,
}

impl ModelInfo {
    /// The cost of `usage` in US dollars: the provider's reported cost when there is one,
    /// else the counts times the prices.
    ///
    /// ```
    /// use clew_codec::stream::{model::ModelInfo, Usage};
    /// let info = ModelInfo { input_price: Some(3.0), output_price: Some(15.0), cache_read_price: Some(0.3), ..Default::default() };
    /// let usage = Usage { input_tokens: 1_000_000, output_tokens: 100_000, cache_read_tokens: Some(2_000_000), ..Default::default() };
    /// assert!((info.cost(&usage) - 5.1).abs() < 1e-9);
    /// ```
    pub fn cost(&self, usage: &Usage) -> f64 {
        if let Some(reported) = usage.total_cost {
            return reported;
        }
        let price = |tokens: u64, per_million: Option<f64>| tokens as f64 * per_million.unwrap_or(0.0) / 1e6;
        price(usage.input_tokens, self.input_price)
            + price(usage.output_tokens, self.output_price)
            + price(usage.cache_write_tokens.unwrap_or(0), self.cache_write_price)
            + price(usage.cache_read_tokens.unwrap_or(0), self.cache_read_price)
    }
}
