//! Requests, model settings, model info and usage to and from JSON (the shapes JavaScript users
//! pass and get).
//!
//! Reading names the offending place (`messages[2].content[0]`) in its error; unknown
//! members are ignored, as `JSON.parse` users expect.

use crate::core::first::First;
use crate::core::json::fields::{amount, count, list, number, object, object_member, required, string};
use crate::core::json::{fields, Json};
use crate::core::stream::model::ModelInfo;
use crate::core::stream::Usage;

use super::{
    Headers, HttpRequest, KeepThinking, ModelRequest, ModelSettings, NativeContext, ServerEdits, ToolDefinition,
};
use crate::core::conversation::Message;

/// Why a value could not be read: where, and what is wrong.
type Error = String;

fn flag(value: &Json, at: &str, field: &str) -> Result<bool, Error> {
    Ok(fields::flag(value, at, field)?.unwrap_or(false))
}

fn put(object: &mut Json, key: &str, value: Option<&String>) {
    if let Some(value) = value {
        object.set(key, value);
    }
}

impl ModelRequest {
    /// Reads a request (`{system?, messages?, tools?, model, context?}`).
    pub fn from_json(value: &Json) -> Result<Self, Error> {
        let value = object(value, "request")?;
        let mut first = First::default();
        let mut messages = Vec::new();
        for (i, message) in first.take(list(value, "request", "messages")).iter().enumerate() {
            let message = Message::from_json(message, &format!("request.messages[{i}]"));
            messages.extend(first.take(message.map(Some)));
        }
        let mut tools = Vec::new();
        for (i, tool) in first.take(list(value, "request", "tools")).iter().enumerate() {
            tools.extend(first.take(ToolDefinition::from_json(tool, &format!("request.tools[{i}]")).map(Some)));
        }
        let model = match value.get("model") {
            Some(model) => first.take(ModelSettings::from_json(model, "request.model")),
            None => {
                first.note("request.model is required".into());
                ModelSettings::default()
            }
        };
        let context = first.take(object_member(value, "request", "context")).and_then(|context| {
            first.take(NativeContext::from_json(context, "request.context").map(|c| Some(Box::new(c))))
        });
        let system = first.take(string(value, "request", "system")).unwrap_or_default();
        first.or(Self { system, messages, tools, model, context })
    }

    /// The request as JSON, in the shape [`ModelRequest::from_json`] reads.
    pub fn to_json(&self) -> Json {
        let out = Json::object()
            .with("system", &self.system)
            .with("messages", Message::list_to_json(&self.messages))
            .with("tools", self.tools.iter().map(ToolDefinition::to_json).collect::<Vec<_>>())
            .with("model", self.model.to_json());
        match &self.context {
            Some(context) => out.with("context", context.to_json()),
            None => out,
        }
    }
}

impl NativeContext {
    /// Reads `{compactThreshold?, instructions?, pauseAfterCompaction?, edits?}`.
    fn from_json(value: &Json, at: &str) -> Result<Self, Error> {
        let mut first = First::default();
        let edits = first
            .take(object_member(value, at, "edits"))
            .and_then(|edits| first.take(ServerEdits::from_json(edits, &format!("{at}.edits")).map(Some)));
        let context = Self {
            compact_threshold: first.take(count(value, at, "compactThreshold")),
            instructions: first.take(string(value, at, "instructions")),
            pause_after_compaction: first.take(flag(value, at, "pauseAfterCompaction")),
            edits,
        };
        first.or(context)
    }

    fn to_json(&self) -> Json {
        let mut out = Json::object();
        if let Some(n) = self.compact_threshold {
            out.set("compactThreshold", n);
        }
        put(&mut out, "instructions", self.instructions.as_ref());
        out.set("pauseAfterCompaction", self.pause_after_compaction);
        if let Some(edits) = &self.edits {
            out.set("edits", edits.to_json());
        }
        out
    }
}

impl ServerEdits {
    /// Reads `{keepToolUses?, keepThinkingTurns?: number | "all", excludeTools?,
    /// clearToolInputs?, clearAtLeast?}`; what is absent takes its default.
    fn from_json(value: &Json, at: &str) -> Result<Self, Error> {
        let default = Self::default();
        let keep_thinking_turns = match value.get("keepThinkingTurns").and_then(Json::as_str) {
            Some("all") => KeepThinking::All,
            _ => count(value, at, "keepThinkingTurns")
                .map_err(|_| format!("{at}.keepThinkingTurns must be a number or \"all\""))?
                .map_or(default.keep_thinking_turns, KeepThinking::Turns),
        };
        let mut exclude_tools = Vec::new();
        for tool in list(value, at, "excludeTools")? {
            let tool = tool.as_str().ok_or_else(|| format!("{at}.excludeTools must be an array of strings"))?;
            exclude_tools.push(tool.to_owned());
        }
        Ok(Self {
            keep_tool_uses: count(value, at, "keepToolUses")?.unwrap_or(default.keep_tool_uses),
            keep_thinking_turns,
            exclude_tools,
            clear_tool_inputs: flag(value, at, "clearToolInputs")?,
            clear_at_least: count(value, at, "clearAtLeast")?.unwrap_or(0),
        })
    }

    fn to_json(&self) -> Json {
        let keep_thinking = match self.keep_thinking_turns {
            KeepThinking::Turns(n) => Json::from(n),
            KeepThinking::All => Json::from("all"),
        };
        Json::object()
            .with("keepToolUses", self.keep_tool_uses)
            .with("keepThinkingTurns", keep_thinking)
            .with("excludeTools", self.exclude_tools.iter().map(Json::from).collect::<Vec<_>>())
            .with("clearToolInputs", self.clear_tool_inputs)
            .with("clearAtLeast", self.clear_at_least)
    }
}

impl ToolDefinition {
    /// Reads a definition (`{name, description?, inputSchema}`; `at` names it in errors).
    pub(crate) fn from_json(value: &Json, at: &str) -> Result<Self, Error> {
        let value = object(value, at)?;
        let schema = value.get("inputSchema").ok_or_else(|| format!("{at}.inputSchema is required"))?;
        let mut first = First::default();
        let name = first.take(required(value, at, "name"));
        let description = first.take(string(value, at, "description")).unwrap_or_default();
        let input_schema =
            first.take(object(schema, &format!("{at}.inputSchema")).map(Some)).cloned().unwrap_or_default();
        first.or(Self { name, description, input_schema })
    }

    fn to_json(&self) -> Json {
        Json::object()
            .with("name", &self.name)
            .with("description", &self.description)
            .with("inputSchema", self.input_schema.clone())
    }
}

impl ModelSettings {
    /// Reads model settings (the fields of the package's `ModelSettings` other than
    /// `format`, `info`, `fetch` and `request`, which the binding reads itself).
    pub fn from_json(value: &Json, at: &str) -> Result<Self, Error> {
        let value = object(value, at)?;
        let mut first = First::default();
        let mut headers = Headers::new();
        match value.get("headers") {
            None | Some(Json::Null) => {}
            Some(Json::Object(members)) => {
                for (name, v) in members {
                    match v.as_str() {
                        None => first.note(format!("{at}.headers[\"{name}\"] must be a string")),
                        Some(v) if v.contains(['\r', '\n']) || name.contains(['\r', '\n', ':']) || name.is_empty() => {
                            first.note(format!("{at}.headers[\"{name}\"] is not a valid header (line breaks or `:`)"));
                        }
                        Some(v) => headers.insert(name, v),
                    }
                }
            }
            Some(_) => first.note(format!("{at}.headers must be an object")),
        }
        let settings = Self {
            id: first.take(string(value, at, "id")).unwrap_or_default(),
            max_tokens: first.take(count(value, at, "maxTokens")),
            temperature: first.take(number(value, at, "temperature")),
            reasoning_budget: first.take(count(value, at, "reasoningBudget")),
            reasoning_effort: first.take(string(value, at, "reasoningEffort")),
            headers,
            base_url: first.take(string(value, at, "baseUrl")),
            api_key: first.take(string(value, at, "apiKey")),
            prompt_cache: first.take(flag(value, at, "promptCache")),
            browser: first.take(flag(value, at, "browser")),
            store: first.take(fields::flag(value, at, "store")),
        };
        first.or(settings)
    }

    /// The settings as JSON (the API key included: this goes to the host's own code).
    pub fn to_json(&self) -> Json {
        let mut out = Json::object().with("id", &self.id);
        if let Some(n) = self.max_tokens {
            out.set("maxTokens", n);
        }
        if let Some(t) = self.temperature {
            out.set("temperature", t);
        }
        if let Some(n) = self.reasoning_budget {
            out.set("reasoningBudget", n);
        }
        put(&mut out, "reasoningEffort", self.reasoning_effort.as_ref());
        out.set("headers", headers_json(&self.headers));
        put(&mut out, "baseUrl", self.base_url.as_ref());
        put(&mut out, "apiKey", self.api_key.as_ref());
        if let Some(store) = self.store {
            out.set("store", store);
        }
        out.with("promptCache", self.prompt_cache).with("browser", self.browser)
    }
}

fn headers_json(headers: &Headers) -> Json {
    Json::Object(headers.iter().map(|(k, v)| (k.to_owned(), Json::from(v))).collect())
}

impl HttpRequest {
    /// The request as JSON: `{url, method, headers, body}`.
    pub fn to_json(&self) -> Json {
        Json::object()
            .with("url", &self.url)
            .with("method", &self.method)
            .with("headers", headers_json(&self.headers))
            .with("body", &self.body)
    }
}

/// Reads a model's limits and prices (`{contextWindow?, maxOutput?, inputPrice?, …}`).
pub fn model_info_from_json(value: &Json, at: &str) -> Result<ModelInfo, Error> {
    let value = object(value, at)?;
    let mut first = First::default();
    let info = ModelInfo {
        context_window: first.take(count(value, at, "contextWindow")),
        max_output: first.take(count(value, at, "maxOutput")),
        input_price: first.take(amount(value, at, "inputPrice")),
        output_price: first.take(amount(value, at, "outputPrice")),
        cache_write_price: first.take(amount(value, at, "cacheWritePrice")),
        cache_read_price: first.take(amount(value, at, "cacheReadPrice")),
        supports_prompt_cache: first.take(flag(value, at, "supportsPromptCache")),
        supports_compaction: first.take(flag(value, at, "supportsCompaction")),
    };
    first.or(info)
}

/// Reads token counts (`{inputTokens?, outputTokens?, cacheWriteTokens?, cacheReadTokens?,
/// totalCost?}`).
pub fn usage_from_json(value: &Json, at: &str) -> Result<Usage, Error> {
    let value = object(value, at)?;
    Ok(Usage {
        input_tokens: count(value, at, "inputTokens")?.unwrap_or(0),
        output_tokens: count(value, at, "outputTokens")?.unwrap_or(0),
        cache_write_tokens: count(value, at, "cacheWriteTokens")?,
        cache_read_tokens: count(value, at, "cacheReadTokens")?,
        total_cost: amount(value, at, "totalCost")?,
        reasoning_tokens: count(value, at, "reasoningTokens")?,
        ..Usage::default()
    })
}
