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
    let bytes = text.as_bytes();
    let (mut run, mut i) = (0, 0);
    while let Some(&b) = bytes.get(i) {
        // Eight bytes at a time while none needs an escape (most of a long text).
        if let Some(word) = bytes.get(i..i + 8).and_then(|w| <[u8; 8]>::try_from(w).ok()) {
            if !needs_escape(u64::from_le_bytes(word)) {
                i += 8;
                continue;
            }
        }
        i += 1;
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
        out.push_str(text.get(run..i - 1).unwrap_or_default());
        if escape.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.push_str("\\u00");
            out.push(char::from(HEX.get(usize::from(b >> 4)).copied().unwrap_or(b'0')));
            out.push(char::from(HEX.get(usize::from(b & 15)).copied().unwrap_or(b'0')));
        } else {
            out.push_str(escape);
        }
        run = i;
    }
    out.push_str(text.get(run..).unwrap_or_default());
    out.push('"');
}

/// Whether any of the eight bytes of `word` is a control character, `"` or `\\`: the
/// classic bit tests for a byte below a bound and for a zero byte. They miss no such byte;
/// a word they wrongly flag would only take the byte-by-byte path.
fn needs_escape(word: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let below = |w: u64, n: u64| w.wrapping_sub(ONES * n) & !w & HIGHS;
    let zero = |w: u64| below(w, 1);
    (below(word, 0x20) | zero(word ^ (ONES * u64::from(b'"'))) | zero(word ^ (ONES * u64::from(b'\\')))) != 0
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
