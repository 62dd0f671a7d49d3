//! Which models summarize and which compact natively (CONTEXT §4.1-1, §6.1), by their ids.

use super::files::{digit_count, trim};

/// The byte offsets of every `marker` in `id`.
fn occurrences<'a>(id: &'a str, marker: &'a str) -> impl Iterator<Item = usize> + 'a {
    let mut from = 0;
    std::iter::from_fn(move || {
        let at = from + crate::core::text::find(id.get(from..)?, marker)?;
        from = at + 1;
        Some(at)
    })
}

/// The version in `id` after one of the occurrences of `marker`, optionally after one `-`,
/// `_` or space: a number under 20 (not followed by `b`, as in `qwen-14b`), then the minor
/// number after `.` or `p` (`glm-4.5`, `deepseek-v3p2`), 0 when there is none.
fn version_after(id: &str, marker: &str) -> Option<(u32, u32)> {
    occurrences(id, marker).find_map(|at| {
        let rest = id.get(at + marker.len()..)?;
        let rest = match rest.bytes().next() {
            Some(b'-' | b'_' | b' ') => rest.get(1..)?,
            _ => rest,
        };
        let (major, rest) = leading_number(rest)?;
        if major >= 20 || rest.starts_with('b') {
            return None;
        }
        let minor = match rest.bytes().next() {
            Some(b'.' | b'p') => rest.get(1..).and_then(leading_number).map_or(0, |(minor, _)| minor),
            _ => 0,
        };
        Some((major, minor))
    })
}

/// The number (one or two digits) `text` starts with, and the text after it.
fn leading_number(text: &str) -> Option<(u32, &str)> {
    let end = digit_count(text);
    if !(1..=2).contains(&end) {
        return None;
    }
    let number = text.bytes().take(end).fold(0, |n, b| n * 10 + u32::from(b - b'0'));
    Some((number, text.get(end..)?))
}

/// Whether the lower-cased `id` is Claude 4 or later: the Claude Code aliases `opus` and
/// `sonnet`, the newer names (fable, mythos), or a version of 4 or more (the first number
/// after "claude" that is not a date, or after opus/sonnet/haiku when "claude" is absent).
fn is_claude_4_plus(id: &str) -> bool {
    let has = |name| crate::core::text::contains(id, name);
    if matches!(trim(id, b""), "opus" | "sonnet") || has("fable") || has("mythos") {
        return true;
    }
    if let Some(at) = crate::core::text::find(id, "claude") {
        let rest = id.get(at..).unwrap_or_default();
        let digits = rest.bytes().position(|b| b.is_ascii_digit()).and_then(|d| rest.get(d..));
        return digits.and_then(leading_number).is_some_and(|(major, _)| major >= 4);
    }
    ["opus", "sonnet", "haiku"].iter().any(|family| version_after(id, family).is_some_and(|(major, _)| major >= 4))
}

/// Whether `model_id` is "next-gen" by the reference's list, eligible for summaries under
/// `summarize.models: "next-gen"` (§4.1-1): Claude 4+, Gemini 2.5+, Grok 4+, GPT-5+,
/// gpt-oss, MiniMax, DeepSeek 3.2+ (not Speciale, which calls no tools), Kimi K2+, Qwen3+,
/// GLM-4.5+. Provider prefixes (`anthropic/`, `models/`, `us.anthropic.`), date and other
/// suffixes and any case are tolerated.
pub(crate) fn is_next_gen(model_id: &str) -> bool {
    let id = model_id.to_ascii_lowercase();
    let has = |name| crate::core::text::contains(&id, name);
    const AT_LEAST: [(&str, (u32, u32)); 7] = [
        ("gemini", (2, 5)),
        ("grok", (4, 0)),
        ("gpt", (5, 0)),
        ("kimi-k", (2, 0)),
        ("qwen", (3, 0)),
        ("glm", (4, 5)),
        ("deepseek-v", (3, 2)),
    ];
    let listed = AT_LEAST
        .iter()
        .enumerate()
        .any(|(i, (marker, min))| version_after(&id, marker).is_some_and(|v| v >= *min) && (i < 6 || !has("speciale")));
    listed || is_claude_4_plus(&id) || has("gpt-oss") || has("minimax")
}

/// Whether the anthropic `model_id` is one of the models §6.1 lists for the provider's
/// compaction, with any prefix (`anthropic/`, `us.anthropic.`), date or `-v1:0` suffix,
/// `@date`, and `.` for `-` (`claude-opus-4.6`). Another minor version is another model:
/// `claude-opus-4-5` and `claude-opus-5-1` are not listed.
pub(crate) fn supports_native_compaction(model_id: &str) -> bool {
    const LISTED: [&str; 11] = [
        "claude-opus-4-6",
        "claude-opus-4-7",
        "claude-opus-4-8",
        "claude-sonnet-4-6",
        "claude-opus-5",
        "claude-sonnet-5",
        "claude-fable-5",
        "claude-fable-5-1",
        "claude-mythos-5",
        "claude-mythos-5-1",
        "claude-mythos-preview",
    ];
    let id: String = model_id.chars().map(|c| if c == '.' { '-' } else { c.to_ascii_lowercase() }).collect();
    let word = |b: Option<u8>| b.is_some_and(|b| b.is_ascii_alphanumeric());
    LISTED.iter().any(|name| {
        occurrences(&id, name).any(|at| {
            let before = at.checked_sub(1).and_then(|i| id.as_bytes().get(i).copied());
            let rest = id.get(at + name.len()..).unwrap_or_default();
            // A date is 8 digits: `-1` to `-9999999` is another minor version.
            let minor = rest.strip_prefix('-').is_some_and(|r| (1..8).contains(&digit_count(r)));
            !word(before) && !word(rest.bytes().next()) && !minor
        })
    })
}
