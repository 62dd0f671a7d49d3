//! The conversation to and from JSON (the shapes JavaScript users pass and get). Reading
//! names the offending place (`messages[2].content[0]`) in its error; unknown members are
//! ignored, as `JSON.parse` users expect.

use crate::core::first::First;
use crate::core::json::fields::{self, object, required, string};
use crate::core::json::Json;

use super::{Content, ContentBlock, ImageSource, Message, Role};
use crate::core::stream::Format;

/// Strings as a JSON array.
pub(crate) fn strings_json(strings: &[String]) -> Json {
    let mut items = Vec::with_capacity(strings.len());
    for text in strings {
        items.push(Json::from(text));
    }
    Json::Array(items)
}

/// A reasoning item's summary: absent, or an array of strings (`None` for anything else).
fn summary(value: Option<&Json>) -> Option<Option<Vec<String>>> {
    let items = match value {
        None | Some(Json::Null) => return Some(None),
        Some(Json::Array(items)) => items,
        Some(_) => return None,
    };
    let mut parts = Vec::with_capacity(items.len());
    for item in items {
        parts.push(item.as_str()?.to_owned());
    }
    Some(Some(parts))
}

fn put(object: &mut Json, key: &str, value: Option<&String>) {
    if let Some(value) = value {
        object.set(key, value);
    }
}

/// Why a value could not be read: where, and what is wrong.
type Error = String;

fn flag(value: &Json, at: &str, field: &str) -> Result<bool, Error> {
    Ok(fields::flag(value, at, field)?.unwrap_or(false))
}

impl Message {
    /// Reads one history message (`{role, content}`); `at` names it in errors.
    pub fn from_json(value: &Json, at: &str) -> Result<Self, Error> {
        let value = object(value, at)?;
        let role = match value.get("role").and_then(Json::as_str) {
            Some("user") => Role::User,
            Some("assistant") => Role::Assistant,
            _ => return Err(format!("{at}.role must be \"user\" or \"assistant\"")),
        };
        let content = Content::from_json(value.get("content").unwrap_or(&Json::Null), &format!("{at}.content"))?;
        Ok(Self { role, content })
    }

    /// The message as JSON.
    pub fn to_json(&self) -> Json {
        let role = match self.role {
            Role::User => "user",
            Role::Assistant => "assistant",
        };
        Json::object().with("role", role).with("content", self.content.to_json())
    }

    /// Messages as a JSON array.
    pub fn list_to_json(messages: &[Self]) -> Json {
        Json::Array(messages.iter().map(Self::to_json).collect())
    }
}

impl Content {
    fn from_json(value: &Json, at: &str) -> Result<Self, Error> {
        match value {
            Json::String(text) => Ok(Self::Text(text.clone())),
            Json::Array(items) => {
                let mut blocks = Vec::with_capacity(items.len());
                for (i, block) in items.iter().enumerate() {
                    blocks.push(ContentBlock::from_json(block, &format!("{at}[{i}]"))?);
                }
                Ok(Self::Blocks(blocks))
            }
            _ => Err(format!("{at} must be a string or an array of content blocks")),
        }
    }

    fn to_json(&self) -> Json {
        match self {
            Self::Text(text) => Json::from(text),
            Self::Blocks(blocks) => Json::Array(blocks.iter().map(ContentBlock::to_json).collect()),
        }
    }
}

impl ContentBlock {
    /// Reads one content block; `at` names it in errors.
    pub fn from_json(value: &Json, at: &str) -> Result<Self, Error> {
        let value = object(value, at)?;
        let mut first = First::default();
        let block = match value.get("type").and_then(Json::as_str) {
            Some("text") => Self::Text {
                text: first.take(required(value, at, "text")),
                signature: first.take(string(value, at, "signature")),
                phase: first.take(string(value, at, "phase")),
            },
            Some("image") => Self::Image {
                source: ImageSource::from_json(value.get("source").unwrap_or(&Json::Null), &format!("{at}.source"))?,
            },
            Some("tool_use") => Self::ToolUse {
                id: first.take(required(value, at, "id")),
                name: first.take(required(value, at, "name")),
                input: value.get("input").filter(|v| !v.is_null()).cloned().unwrap_or_else(Json::object),
                signature: first.take(string(value, at, "signature")),
            },
            Some("tool_result") => Self::ToolResult {
                tool_use_id: first.take(required(value, at, "tool_use_id")),
                content: match value.get("content") {
                    None | Some(Json::Null) => Content::Text(String::new()),
                    Some(content) => Content::from_json(content, &format!("{at}.content"))?,
                },
                is_error: first.take(flag(value, at, "is_error")),
            },
            Some("thinking") => Self::Thinking {
                thinking: first.take(required(value, at, "thinking")),
                signature: first.take(string(value, at, "signature")),
                encrypted_content: first.take(string(value, at, "encrypted_content")),
                summary: first.take(
                    summary(value.get("summary")).ok_or_else(|| format!("{at}.summary must be an array of strings")),
                ),
            },
            Some("redacted_thinking") => Self::RedactedThinking { data: first.take(required(value, at, "data")) },
            Some("compaction") => Self::Compaction {
                provider: first.take(format_of(value, at, "provider")),
                content: first.take(string(value, at, "content")),
                encrypted_content: first.take(string(value, at, "encrypted_content")),
                id: first.take(string(value, at, "id")),
            },
            Some("item") => Self::Item {
                format: first.take(format_of(value, at, "format")),
                item: first.take(value.get("item").cloned().ok_or_else(|| format!("{at}.item is required"))),
            },
            Some(other) => return Err(format!("{at}.type \"{other}\" is not a content block type")),
            None => return Err(format!("{at}.type is required")),
        };
        first.or(block)
    }

    /// The block as JSON (Anthropic's content block shape).
    pub fn to_json(&self) -> Json {
        let block = |kind: &str| Json::object().with("type", kind);
        match self {
            Self::Text { text, signature, phase } => {
                let mut out = block("text").with("text", text);
                put(&mut out, "signature", signature.as_ref());
                put(&mut out, "phase", phase.as_ref());
                out
            }
            Self::Image { source } => block("image").with("source", source.to_json()),
            Self::ToolUse { id, name, input, signature } => {
                let mut out = block("tool_use").with("id", id).with("name", name).with("input", input.clone());
                put(&mut out, "signature", signature.as_ref());
                out
            }
            Self::ToolResult { tool_use_id, content, is_error } => {
                let result = block("tool_result").with("tool_use_id", tool_use_id).with("content", content.to_json());
                if *is_error {
                    result.with("is_error", true)
                } else {
                    result
                }
            }
            Self::Thinking { thinking, signature, encrypted_content, summary } => {
                let mut out = block("thinking").with("thinking", thinking);
                put(&mut out, "signature", signature.as_ref());
                put(&mut out, "encrypted_content", encrypted_content.as_ref());
                if let Some(parts) = summary {
                    out.set("summary", strings_json(parts));
                }
                out
            }
            Self::RedactedThinking { data } => block("redacted_thinking").with("data", data),
            Self::Compaction { provider, content, encrypted_content, id } => {
                let mut out = block("compaction").with("provider", provider.name());
                put(&mut out, "content", content.as_ref());
                put(&mut out, "encrypted_content", encrypted_content.as_ref());
                put(&mut out, "id", id.as_ref());
                out
            }
            Self::Item { format, item } => block("item").with("format", format.name()).with("item", item.clone()),
        }
    }
}

impl ImageSource {
    /// The image as a data URL (or its web address): how the transcript's JS shape holds it.
    pub fn to_url_text(&self) -> String {
        match self {
            Self::Base64 { media_type, data } => format!("data:{media_type};base64,{data}"),
            Self::Url { url } => url.clone(),
        }
    }

    /// An image from a data URL (base64) or a web address.
    pub fn from_url_text(text: &str) -> Self {
        match text.strip_prefix("data:").and_then(split_base64) {
            Some((media_type, data)) => Self::Base64 { media_type: media_type.to_owned(), data: data.to_owned() },
            None => Self::Url { url: text.to_owned() },
        }
    }

    fn from_json(value: &Json, at: &str) -> Result<Self, Error> {
        let value = object(value, at)?;
        match value.get("type").and_then(Json::as_str) {
            Some("base64") => {
                Ok(Self::Base64 { media_type: required(value, at, "media_type")?, data: required(value, at, "data")? })
            }
            Some("url") => Ok(Self::Url { url: required(value, at, "url")? }),
            _ => Err(format!("{at}.type must be \"base64\" or \"url\"")),
        }
    }

    fn to_json(&self) -> Json {
        match self {
            Self::Base64 { media_type, data } => {
                Json::object().with("type", "base64").with("media_type", media_type).with("data", data)
            }
            Self::Url { url } => Json::object().with("type", "url").with("url", url),
        }
    }
}

/// The stream format `value[key]` names.
fn format_of(value: &Json, at: &str, key: &str) -> Result<Format, Error> {
    match value.get(key).and_then(Json::as_str).map(str::parse::<Format>) {
        Some(Ok(format)) => Ok(format),
        _ => Err(format!("{at}.{key} must name a stream format")),
    }
}

/// A data URL's rest after `data:` split at `;base64,` into media type and data.
fn split_base64(rest: &str) -> Option<(&str, &str)> {
    let at = crate::core::text::find(rest, ";base64,")?;
    Some((rest.get(..at)?, rest.get(at + ";base64,".len()..)?))
}
