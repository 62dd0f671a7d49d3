//! Readers of the request types from JSON: a visitor for string-or-blocks content and flat
//! "wire" structs for the tagged block types.
//!
//! NOTE: written by hand instead of `#[serde(untagged)]` / `#[serde(tag = "type")]`, which
//! buffer every value first and were measured as the largest part of the wasm build.

use serde::Deserialize;

use super::{Content, ContentBlock, ImageSource};

impl<'de> Deserialize<'de> for Content {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ContentVisitor;
        impl<'de> serde::de::Visitor<'de> for ContentVisitor {
            type Value = Content;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string or an array of content blocks")
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Content, E> {
                Ok(Content::Text(text.to_owned()))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Content, A::Error> {
                let mut blocks = Vec::new();
                while let Some(block) = seq.next_element()? {
                    blocks.push(block);
                }
                Ok(Content::Blocks(blocks))
            }
        }
        deserializer.deserialize_any(ContentVisitor)
    }
}

/// Any content block's fields, flat.
#[derive(Deserialize)]
pub(super) struct WireBlock {
    #[serde(rename = "type")]
    kind: String,
    text: Option<String>,
    source: Option<ImageSource>,
    id: Option<String>,
    name: Option<String>,
    input: Option<serde_json::Value>,
    tool_use_id: Option<String>,
    content: Option<Content>,
    is_error: Option<bool>,
    thinking: Option<String>,
    signature: Option<String>,
    data: Option<String>,
}

fn required<T>(value: Option<T>, kind: &str, field: &str) -> Result<T, String> {
    value.ok_or_else(|| format!("a {kind} block needs `{field}`"))
}

impl TryFrom<WireBlock> for ContentBlock {
    type Error = String;

    fn try_from(w: WireBlock) -> Result<Self, String> {
        let kind = w.kind.as_str();
        Ok(match kind {
            "text" => Self::Text { text: required(w.text, kind, "text")? },
            "image" => Self::Image { source: required(w.source, kind, "source")? },
            "tool_use" => Self::ToolUse {
                id: required(w.id, kind, "id")?,
                name: required(w.name, kind, "name")?,
                input: w.input.unwrap_or_else(|| serde_json::Value::Object(serde_json::Map::new())),
            },
            "tool_result" => Self::ToolResult {
                tool_use_id: required(w.tool_use_id, kind, "tool_use_id")?,
                content: w.content.unwrap_or(Content::Text(String::new())),
                is_error: w.is_error.unwrap_or(false),
            },
            "thinking" => Self::Thinking { thinking: required(w.thinking, kind, "thinking")?, signature: w.signature },
            "redacted_thinking" => Self::RedactedThinking { data: required(w.data, kind, "data")? },
            other => return Err(format!("unknown content block type \"{other}\"")),
        })
    }
}

/// Any image source's fields, flat.
#[derive(Deserialize)]
pub(super) struct WireSource {
    #[serde(rename = "type")]
    kind: String,
    media_type: Option<String>,
    data: Option<String>,
    url: Option<String>,
}

impl TryFrom<WireSource> for ImageSource {
    type Error = String;

    fn try_from(w: WireSource) -> Result<Self, String> {
        match w.kind.as_str() {
            "base64" => Ok(Self::Base64 {
                media_type: required(w.media_type, "base64 image", "media_type")?,
                data: required(w.data, "base64 image", "data")?,
            }),
            "url" => Ok(Self::Url { url: required(w.url, "url image", "url")? }),
            other => Err(format!("unknown image source type \"{other}\"")),
        }
    }
}
