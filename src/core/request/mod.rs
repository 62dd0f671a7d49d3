//! Provider requests: system prompt, history ([`crate::core::conversation`]), tools and
//! settings to a fetch request. Each builder converts the history's Anthropic-shaped
//! content blocks to its provider's shape. Every request streams and asks for usage. The API key is
//! optional: a host that sends requests through its own `fetch` (a proxy, a Worker binding)
//! never hands it over.

mod anthropic;
mod context;
mod convert;
mod gemini;
mod headers;
mod openai;
mod responses;

#[cfg(test)]
mod context_tests;
#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

use crate::core::conversation::Message;
use crate::core::json::Json;
use crate::core::stream::Format;

pub use anthropic::build_anthropic;
pub use context::{KeepThinking, NativeContext, ServerEdits};
pub use convert::{model_info_from_json, usage_from_json};
pub use gemini::{build_gemini, MADE_UP_CALL_ID};
pub use headers::Headers;
pub use openai::build_openai;
pub use responses::build_responses;

/// Everything one model call needs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelRequest {
    /// The system prompt.
    #[serde(default)]
    pub system: String,
    /// The conversation so far.
    #[serde(default)]
    pub messages: Vec<Message>,
    /// Tools for native tool calling; none means the model answers in text (and writes
    /// tool calls as tags, for the parser).
    #[serde(default)]
    pub tools: Vec<ToolDefinition>,
    /// Model and connection settings.
    pub model: ModelSettings,
    /// The native context management asked of the provider (Anthropic, OpenAI Responses;
    /// the other formats ignore it); none asks for none. (Boxed: most requests have none, and
    /// the request travels inside every `OpenStream` effect.)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<Box<NativeContext>>,
}

/// A tool the model may call natively.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolDefinition {
    /// The tool's name.
    pub name: String,
    /// What it does, for the model.
    #[serde(default)]
    pub description: String,
    /// JSON Schema of its arguments object.
    pub input_schema: Json,
}

impl ToolDefinition {
    /// `{name, description, <schema_key>: schema}`: how every provider declares a tool, each
    /// under its own key for the schema.
    fn declaration(&self, schema_key: &str) -> Json {
        Json::object()
            .with("name", &self.name)
            .with("description", &self.description)
            .with(schema_key, self.input_schema.clone())
    }
}

/// Every tool's [declaration](ToolDefinition::declaration).
fn declarations(tools: &[ToolDefinition], schema_key: &str) -> Vec<Json> {
    let mut out = Vec::with_capacity(tools.len());
    for tool in tools {
        out.push(tool.declaration(schema_key));
    }
    out
}

/// Which model, how to call it, and where.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelSettings {
    /// The provider's model id (empty when a custom request function picks the model).
    #[serde(default)]
    pub id: String,
    /// Most output tokens (default 8192).
    #[serde(default)]
    pub max_tokens: Option<u64>,
    /// Sampling temperature (default 0; not sent when reasoning is on).
    #[serde(default)]
    pub temperature: Option<f64>,
    /// Tokens the model may spend reasoning (Anthropic extended thinking); 0 or none is off.
    #[serde(default)]
    pub reasoning_budget: Option<u64>,
    /// Reasoning effort for OpenAI-style reasoning models (`"low"`, `"medium"`, `"high"`).
    #[serde(default)]
    pub reasoning_effort: Option<String>,
    /// Extra HTTP headers; they override the builder's own.
    #[serde(default)]
    pub headers: Headers,
    /// The API's base URL (default the provider's public API).
    #[serde(default)]
    pub base_url: Option<String>,
    /// The API key; omit it when the host's `fetch` adds credentials itself.
    #[serde(default)]
    pub api_key: Option<String>,
    /// Whether the model supports prompt caching (Anthropic cache breakpoints).
    #[serde(default)]
    pub prompt_cache: bool,
    /// Whether the request is sent from a browser (Anthropic then needs a consent header).
    #[serde(default)]
    pub browser: bool,
    /// OpenAI Responses: whether the provider stores the response (default `false`: a page
    /// or a Worker keeps no server state, so every turn is sent back whole).
    #[serde(default)]
    pub store: Option<bool>,
}

impl ModelSettings {
    /// Most output tokens, 8192 by default.
    pub fn max_tokens(&self) -> u64 {
        self.max_tokens.unwrap_or(8192)
    }

    /// The reasoning budget when reasoning is on.
    pub fn reasoning_budget(&self) -> Option<u64> {
        self.reasoning_budget.filter(|budget| *budget > 0)
    }
}

/// A request ready for `fetch`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HttpRequest {
    /// Where to send it.
    pub url: String,
    /// Always `POST`.
    pub method: String,
    /// Header names (lowercase) and values.
    pub headers: Headers,
    /// The JSON body.
    pub body: String,
}

impl HttpRequest {
    fn post(url: String, mut headers: Headers, body: &Json, extra: &Headers) -> Self {
        headers.insert("content-type", "application/json");
        for (name, value) in extra.iter() {
            headers.insert(name, value);
        }
        Self { url, method: "POST".into(), headers, body: body.to_string() }
    }
}

/// Builds the request for `format` (`Chunks` has no request shape and uses OpenAI's).
pub fn build_request(format: Format, request: &ModelRequest) -> HttpRequest {
    match format {
        Format::Anthropic => build_anthropic(request),
        Format::OpenAi | Format::Chunks => build_openai(request),
        Format::OpenAiResponses => build_responses(request),
        Format::Gemini => build_gemini(request),
    }
}

/// Sets `key` on a JSON object (a no-op on anything else, which never happens here).
fn join_url(base: Option<&str>, default: &str, path: &str) -> String {
    let base = base.map(str::trim).filter(|b| !b.is_empty()).unwrap_or(default);
    format!("{}{path}", crate::core::text::trim_end_by(base, |c| c == '/'))
}
