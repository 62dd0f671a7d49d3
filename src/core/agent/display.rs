//! What the user sees of a block: reply text without thinking tags or a half-written tag,
//! and tool parameters without a half-written closing tag (AGENT-LOOP §8.2, §10.2).

use crate::core::parser::is_js_whitespace;
use crate::core::text::{contains, find, find_byte, rfind_byte, trim_by, trim_end_by};

const PAIRED_TAGS: [&str; 3] = ["thinking", "think", "function_calls"];

/// The text of a text block as shown to the user.
///
/// Thinking-style tags are removed with one adjacent whitespace character, a trailing
/// tag still being written is cut away, and a complete block loses a trailing code-fence
/// opener such as "```xml".
pub fn display_text(content: &str, partial: bool) -> String {
    let mut text = content.to_owned();
    if !text.is_empty() {
        for tag in PAIRED_TAGS {
            text = remove_tag(&text, &format!("<{tag}>"), Side::After);
            text = remove_tag(&text, &format!("</{tag}>"), Side::Before);
        }
        text = cut_partial_tag(text);
    }
    if !partial {
        strip_fence_opener(&mut text);
    }
    text
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Before,
    After,
}

/// `text` without every `tag`, each taking at most one whitespace character on `side`.
fn remove_tag(text: &str, tag: &str, side: Side) -> String {
    if !contains(text, tag) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = find(rest, tag) {
        let head = rest.get(..at).unwrap_or_default();
        let tail = rest.get(at + tag.len()..).unwrap_or_default();
        match side {
            Side::Before => {
                let mut chars = head.chars();
                let head = match chars.next_back() {
                    Some(c) if is_js_whitespace(c) => chars.as_str(),
                    _ => head,
                };
                out.push_str(head);
                rest = tail;
            }
            Side::After => {
                out.push_str(head);
                let mut chars = tail.chars();
                rest = match chars.next() {
                    Some(c) if is_js_whitespace(c) => chars.as_str(),
                    _ => tail,
                };
            }
        }
    }
    out.push_str(rest);
    out
}

/// Cuts a trailing `<name` or `</name` that has no `>` yet, then trims both ends.
fn cut_partial_tag(text: String) -> String {
    let Some(at) = rfind_byte(&text, b'<') else { return text };
    let tail = text.get(at..).unwrap_or_default();
    if find_byte(tail, b'>').is_some() {
        return text;
    }
    let name = tail.strip_prefix("</").or_else(|| tail.strip_prefix('<')).unwrap_or(tail);
    let name = trim_by(name, is_js_whitespace);
    let bare = tail == "<" || tail == "</";
    let word = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphabetic() || c == '_');
    if bare || word {
        trim_by(text.get(..at).unwrap_or_default(), is_js_whitespace).to_owned()
    } else {
        text
    }
}

/// Removes "```" followed by one or more of `[A-Za-z0-9_-]` at the (trimmed) end.
fn strip_fence_opener(text: &mut String) {
    let trimmed = trim_end_by(text, is_js_whitespace);
    let word = trimmed.len() - trim_end_by(trimmed, |c| c.is_ascii_alphanumeric() || c == '_' || c == '-').len();
    if word == 0 {
        return;
    }
    let before_word = trimmed.len() - word;
    if trimmed.get(..before_word).is_some_and(|head| head.ends_with("```")) {
        let cut = before_word - 3;
        text.truncate(cut);
    }
}

/// A parameter value as shown while its block streams: a trailing `<`, `</` or closing
/// tag of `param` still being written (with one whitespace character before it) is cut.
pub fn without_closing_tag(value: &str, param: &str, partial: bool) -> String {
    if !partial {
        return value.to_owned();
    }
    let Some(at) = rfind_byte(value, b'<') else { return value.to_owned() };
    let tail = value.get(at + 1..).unwrap_or_default();
    let tail = tail.strip_prefix('/').unwrap_or(tail);
    let mut wanted = param.chars();
    let in_order = tail.chars().all(|c| wanted.by_ref().any(|w| w == c));
    if !in_order {
        return value.to_owned();
    }
    let head = value.get(..at).unwrap_or_default();
    let mut chars = head.chars();
    match chars.next_back() {
        Some(c) if c.is_whitespace() => chars.as_str().to_owned(),
        _ => head.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_examples_of_the_spec_table() {
        let cases = [
            ("Hello <read_fi", true, "Hello"),
            ("Hello <", true, "Hello"),
            ("Hello </", true, "Hello"),
            ("x < y", false, "x"),
            ("a <= b", false, "a <= b"),
            ("text < spaced word", false, "text < spaced word"),
            ("abc <1", true, "abc <1"),
            ("tag <my-tag", true, "tag <my-tag"),
            ("<thinking>\nplan\n</thinking>\nDone", false, "plan\nDone"),
            ("<thinking>", true, ""),
            ("<think>hm</think> ok", false, "hm ok"),
            ("<thinking>a</thinking>b", false, "ab"),
            ("q\n<thinking>  x", true, "q\n x"),
            ("Here:\n```xml", false, "Here:\n"),
            ("Here:\n```xml", true, "Here:\n```xml"),
            ("code ````", false, "code ````"),
            ("end </read_file>", false, "end </read_file>"),
        ];
        for (content, partial, shown) in cases {
            assert_eq!(display_text(content, partial), shown, "{content:?} partial={partial}");
        }
    }

    #[test]
    fn closing_tag_of_a_streaming_param_is_cut() {
        assert_eq!(without_closing_tag("src/a.ts</pa", "path", true), "src/a.ts");
        assert_eq!(without_closing_tag("value <", "path", true), "value");
        assert_eq!(without_closing_tag("a <b", "path", true), "a <b");
        assert_eq!(without_closing_tag("src/a.ts</pa", "path", false), "src/a.ts</pa");
    }
}
