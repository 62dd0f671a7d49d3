//! What the model reads of an MCP server's answer: the host hands the result object as the
//! server sent it (JSON text), and this room makes it the call's text, images and failure.
//!
//! Texts are those of JavaScript's own conversions, because they were written by the host's
//! glue before they were the core's: a value put in a line reads as `String(value)` does
//! (`undefined` for a missing member, `[object Object]` for an object), a value shown as JSON
//! as `JSON.stringify` writes it, and whether a member is set as JavaScript's truthiness.

use super::super::effect::ToolOutput;
use super::super::mcp::items;
use crate::core::conversation::ImageSource;
use crate::core::json::{write_u64, Json};

/// The result of an MCP call as the model reads it, from the server's `result` object:
/// a resource read (`resources/read`, `resource`) gives the text of each of its `contents`
/// and its images; a tool call (`tools/call`) each item of its `content` in order (text as
/// it is, images as images, audio, resource links and binary resources as a line that says
/// what they are, embedded resources as their text, any other item as its JSON), or with no
/// content its `structuredContent` as JSON, or the older protocol's `toolResult`; the texts
/// are joined by a blank line, and `isError` makes it a failure.
pub fn mcp_result(result: &Json, resource: bool) -> ToolOutput {
    let mut out = Parts { text: String::new(), texts: 0, images: Vec::new() };
    if resource {
        for item in items(result, "contents") {
            out.embedded(item);
        }
        return out.output(false);
    }
    let content = result.get("content").and_then(Json::as_array);
    if let (None, Some(legacy)) = (content, result.get("toolResult")) {
        out.next();
        out.json(legacy);
        return out.output(false);
    }
    for item in content.unwrap_or_default() {
        out.item(item);
    }
    if let (0, true, Some(structured)) = (out.texts, out.images.is_empty(), result.get("structuredContent")) {
        out.next();
        out.json(structured);
    }
    out.output(truthy(result.get("isError")))
}

/// The texts and images of a result so far.
struct Parts {
    text: String,
    /// How many texts `text` joins (an empty one counts).
    texts: usize,
    images: Vec<ImageSource>,
}

impl Parts {
    /// Starts the next text, after a blank line when one came before.
    fn next(&mut self) {
        if self.texts > 0 {
            self.text.push_str("\n\n");
        }
        self.texts += 1;
    }

    /// Appends `text`.
    fn push(&mut self, text: &str) {
        self.text.push_str(text);
    }

    /// Appends `String(value)`.
    fn put(&mut self, value: Option<&Json>) {
        put(&mut self.text, value);
    }

    /// Appends `value || fallback`.
    fn put_or(&mut self, value: Option<&Json>, fallback: &str) {
        put_or(&mut self.text, value, fallback);
    }

    /// Appends a string as it is, anything else as its JSON.
    fn json(&mut self, value: &Json) {
        match value {
            Json::String(s) => self.text.push_str(s),
            other => other.write(&mut self.text),
        }
    }

    /// Adds the image `data:{mime || fallback};base64,{data}`.
    fn image(&mut self, mime: Option<&Json>, fallback: &str, data: Option<&Json>) {
        let mut url = String::from("data:");
        put_or(&mut url, mime, fallback);
        url.push_str(";base64,");
        put(&mut url, data);
        self.images.push(ImageSource::from_url_text(&url));
    }

    /// One item of a tool's `content`.
    fn item(&mut self, item: &Json) {
        let kind = match item {
            Json::Object(_) => item.get("type").and_then(Json::as_str).unwrap_or_default(),
            Json::Array(_) => "",
            _ => return,
        };
        match kind {
            "image" => return self.image(item.get("mimeType"), "image/png", item.get("data")),
            "resource" => return self.embedded(item.get("resource").unwrap_or(&Json::Null)),
            _ => self.next(),
        }
        match kind {
            "text" => match item.get("text") {
                None | Some(Json::Null) => {}
                text => self.put(text),
            },
            "audio" => {
                self.push("[audio: ");
                self.put_or(item.get("mimeType"), "unknown type");
                self.push("]");
            }
            "resource_link" => {
                self.push("[resource: ");
                self.put(item.get("uri"));
                if truthy(item.get("name")) {
                    self.push(" (");
                    self.put(item.get("name"));
                    self.push(")");
                }
                if truthy(item.get("description")) {
                    self.push(": ");
                    self.put(item.get("description"));
                }
                self.push("]");
            }
            _ => item.write(&mut self.text),
        }
    }

    /// An embedded resource, or one of a read's `contents`: its text, an image blob as an
    /// image, another blob as a line with its size.
    fn embedded(&mut self, resource: &Json) {
        if let Some(text) = resource.get("text").and_then(Json::as_str) {
            self.next();
            return self.push(text);
        }
        let Some(blob) = resource.get("blob").and_then(Json::as_str) else { return };
        let mime = resource.get("mimeType");
        let mut kind = String::new();
        put_or(&mut kind, mime, "");
        if kind.starts_with("image/") {
            return self.image(mime, "", resource.get("blob"));
        }
        // NOTE: the length JavaScript gives a string, in UTF-16 units: one per character, two
        // for one of four UTF-8 bytes.
        let mut units = 0u64;
        for byte in blob.bytes() {
            units += u64::from(byte & 0xC0 != 0x80) + u64::from(byte >= 0xF0);
        }
        self.next();
        self.push("[binary resource ");
        self.put(resource.get("uri"));
        self.push(" (");
        self.put_or(mime, "unknown type");
        self.push("), ");
        write_u64(&mut self.text, units * 3 / 4);
        self.push(" bytes]");
    }

    fn output(self, is_error: bool) -> ToolOutput {
        ToolOutput { text: self.text, images: self.images, is_error }
    }
}

/// Whether JavaScript reads `value` as true (`undefined` when absent).
fn truthy(value: Option<&Json>) -> bool {
    match value {
        None | Some(Json::Null) => false,
        Some(Json::Bool(b)) => *b,
        // NOTE: a zero is written with no digit but 0 ("0", "-0", "0.0e5").
        Some(Json::Number(n)) => {
            !n.as_str().bytes().take_while(|&b| b | 0x20 != b'e').all(|b| matches!(b, b'0' | b'-' | b'.'))
        }
        Some(Json::String(s)) => !s.is_empty(),
        Some(_) => true,
    }
}

/// Appends `value || fallback`, as a template literal puts it.
fn put_or(out: &mut String, value: Option<&Json>, fallback: &str) {
    if truthy(value) {
        put(out, value);
    } else {
        out.push_str(fallback);
    }
}

/// Appends `String(value)` (`undefined` when absent).
fn put(out: &mut String, value: Option<&Json>) {
    match value {
        None => out.push_str("undefined"),
        Some(Json::String(s)) => out.push_str(s),
        Some(Json::Object(_)) => out.push_str("[object Object]"),
        Some(Json::Array(items)) => {
            // NOTE: an array reads as its items joined by commas, null ones empty.
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                if !item.is_null() {
                    put(out, Some(item));
                }
            }
        }
        Some(other) => other.write(out),
    }
}
