//! JSON text out: strings escaped as `JSON.stringify` escapes them.

use super::value::Json;

/// Appends `text` to `out` as a JSON string literal.
///
/// ```
/// let mut out = String::new();
/// clew_base::json::write_string(&mut out, "a\"b\n\u{1}é");
/// assert_eq!(out, r#""a\"b\n\u0001é""#);
/// ```
pub fn write_string(out: &mut String, text: &str) {
    out.reserve(text.len() + 2);
    out.push('"');
    let bytes = text.as_bytes();
    // Each escape first copies the bytes since the last one in one go.
    let mut from = 0;
    while let Some(at) = next_escape(bytes, from) {
        out.push_str(text.get(from..at).unwrap_or_default());
        push_escape(out, bytes.get(at).copied().unwrap_or_default());
        from = at + 1;
    }
    out.push_str(text.get(from..).unwrap_or_default());
    out.push('"');
}

/// `"key":`, after a `,` when `comma`: a member's key that needs no escapes (a writer's own
/// names). With [`write_u64`], what a hand-written JSON writer needs besides
/// [`write_string`], compiled with the codec's speed settings.
///
/// ```
/// let mut out = String::from("{");
/// clew_base::json::write_key(&mut out, false, "a");
/// clew_base::json::write_u64(&mut out, 1_796_182_937_574);
/// clew_base::json::write_key(&mut out, true, "b");
/// clew_base::json::write_u64(&mut out, 0);
/// assert_eq!(out, r#"{"a":1796182937574,"b":0"#);
/// ```
pub fn write_key(out: &mut String, comma: bool, key: &str) {
    out.reserve(key.len() + 4);
    if comma {
        out.push(',');
    }
    out.push('"');
    out.push_str(key);
    out.push_str("\":");
}

/// The decimal digits of `value`.
pub fn write_u64(out: &mut String, mut value: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        if let Some(slot) = digits.get_mut(at) {
            *slot = b'0' + (value % 10) as u8;
        }
        value /= 10;
        if value == 0 || at == 0 {
            break;
        }
    }
    out.reserve(digits.len() - at);
    for &digit in digits.get(at..).unwrap_or_default() {
        out.push(char::from(digit));
    }
}

/// The escape of `b` (`"`, `\\` or a control character).
fn push_escape(out: &mut String, b: u8) {
    out.push('\\');
    match b {
        b'"' | b'\\' => out.push(char::from(b)),
        b'\n' => out.push('n'),
        b'\r' => out.push('r'),
        b'\t' => out.push('t'),
        0x08 => out.push('b'),
        0x0c => out.push('f'),
        _ => {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.push_str("u00");
            out.push(char::from(HEX.get(usize::from(b >> 4)).copied().unwrap_or(b'0')));
            out.push(char::from(HEX.get(usize::from(b & 15)).copied().unwrap_or(b'0')));
        }
    }
}

/// Where the first byte from `from` on that needs an escape is: eight bytes at a time while
/// none does (most of a long text), each escape written byte by byte (no small copies, which
/// cost a call each in wasm).
fn next_escape(bytes: &[u8], mut from: usize) -> Option<usize> {
    loop {
        let rest = bytes.get(from..)?;
        let (word, last) = match rest.get(..8) {
            Some(word) => (<[u8; 8]>::try_from(word).ok()?, false),
            None => {
                // NOTE: the last bytes, padded with a letter: one test serves every word.
                let mut word = [b'a'; 8];
                word.get_mut(..rest.len())?.copy_from_slice(rest);
                (word, true)
            }
        };
        let mask = escape_mask(u64::from_le_bytes(word));
        if mask != 0 {
            // NOTE: the lowest flagged byte is always a true one (a false flag comes only from a
            // borrow out of a lower, true one).
            return Some(from + (mask.trailing_zeros() / 8) as usize);
        }
        if last {
            return None;
        }
        from += 8;
    }
}

/// The high bit of each of the eight bytes of `word` that is a control character, `"` or
/// `\\` (the classic bit tests for a byte below a bound and for a zero byte), and perhaps of
/// some bytes above a flagged one.
fn escape_mask(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let below = |w: u64, n: u64| w.wrapping_sub(ONES * n) & !w & HIGHS;
    let zero = |w: u64| below(w, 1);
    below(word, 0x20) | zero(word ^ (ONES * u64::from(b'"'))) | zero(word ^ (ONES * u64::from(b'\\')))
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
