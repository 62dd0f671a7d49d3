//! JSON text out: strings escaped as `JSON.stringify` escapes them.

use super::value::Json;

/// Appends `text` to `out` as a JSON string literal.
///
/// ```
/// let mut out = String::new();
/// clew_codec::json::write_string(&mut out, "a\"b\n\u{1}é");
/// assert_eq!(out, r#""a\"b\n\u0001é""#);
/// ```
pub fn write_string(out: &mut String, text: &str) {
    out.reserve(text.len() + 2);
    out.push('"');
    let mut run = 0;
    for (i, b) in text.bytes().enumerate() {
        let escape = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0..=0x1f => "",
            _ => continue,
        };
        out.push_str(text.get(run..i).unwrap_or_default());
        if escape.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.push_str("\\u00");
            out.push(char::from(HEX.get(usize::from(b >> 4)).copied().unwrap_or(b'0')));
            out.push(char::from(HEX.get(usize::from(b & 15)).copied().unwrap_or(b'0')));
        } else {
            out.push_str(escape);
        }
        run = i + 1;
    }
    out.push_str(text.get(run..).unwrap_or_default());
    out.push('"');
}

pub(super) fn write_value(value: &Json, out: &mut String) {
    match value {
        Json::Null => out.push_str("null"),
        Json::Bool(true) => out.push_str("true"),
        Json::Bool(false) => out.push_str("false"),
        Json::Number(n) => out.push_str(n.as_str()),
        Json::String(s) => write_string(out, s),
        Json::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(item, out);
            }
            out.push(']');
        }
        Json::Object(members) => {
            out.push('{');
            for (i, (key, item)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(out, key);
                out.push(':');
                write_value(item, out);
            }
            out.push('}');
        }
    }
}
