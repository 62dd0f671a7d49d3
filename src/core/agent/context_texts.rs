//! Context management's texts and pure helpers (CONTEXT §4, §6): the summarize round's
//! instruction and `summarize_task` tool, the continuation that follows a summary, the
//! markers and error results of a summary, the task reminder after a provider compaction,
//! the required files read from a summary, and which models summarize or compact natively.
//! Deciding when to compact, and building the view, are the loop's and the history's jobs.

use super::config::{ParamSpec, ATTEMPT_COMPLETION};
use super::texts;
use crate::core::json::Json;
use crate::core::request::ToolDefinition;

/// The tool the model calls with its summary of the conversation.
pub(crate) const SUMMARIZE_TASK: &str = "summarize_task";
/// At most this many paths are taken from a summary's required files.
pub(crate) const MAX_REQUIRED_PATHS: usize = 10;
/// At most this many of the files read after a summary are kept.
pub(crate) const MAX_KEPT_FILES: usize = 8;
/// At most this many characters of file content are kept after a summary, in all.
pub(crate) const MAX_KEPT_CHARS: usize = 100_000;
/// Ends the content of the file cut at [`MAX_KEPT_CHARS`]. NOTE: ASCII, so its length in
/// bytes is its length in characters.
const CUT_NOTE: &str = "\n[... cut: read the file for the rest]";

const CONTEXT_PARAM: &str = "The summary, in its ten numbered sections.";
const PROGRESS_PARAM: &str = "Optional: your checklist of the task, up to date.";

/// The instruction appended to the summarize round's user message: why and what to do now,
/// the ten sections of the summary, how to call `summarize_task` (XML tags unless `native`),
/// and the host's `focus` (`summarize.instructions`) when it gives one.
pub(crate) fn summarize_instruction(native: bool, focus: Option<&str>) -> String {
    let mut text = [
        "<explicit_instructions type=\"summarize_task\">\nThe conversation is about to overflow the context window: \
summarize it now, in detail, since the work goes on from your summary alone. Only attempt_completion (if the whole \
task is done) or summarize_task may be called now; any other call is not run.\n\nFirst think it over",
        if native { "" } else { " in <thinking> tags" },
        ": each request of the user, what you did, decisions and why, files and code, errors and their fixes, the \
user's feedback.\n\nThen write these ten numbered sections:\n\
1. Request and intent: all the user asked for, in detail.\n\
2. Technical concepts: technologies, frameworks and conventions in use.\n\
3. Files and code: each file read, changed or created, and what changed.\n\
4. Problems solved: problems met and how each was solved.\n\
5. Pending tasks: what is asked and not done.\n\
6. How the task evolved: the user's corrections and changes of mind.\n\
7. Current work: exactly what was being done last.\n\
8. Next step: only if it follows from the latest requests; quote them word for word.\n\
9. Required files: the files to read again (at most 10), one per line as \"- path\", or \"- none\".\n\
10. Latest user message: word for word.\n\n",
        if native {
            "Call the summarize_task tool with the summary as `context`; `task_progress` (your checklist, up to date) \
is optional."
        } else {
            "Call summarize_task with the summary as `context`; `task_progress` (your checklist, up to date) is \
optional:\n<summarize_task>\n<context>\n1. Request and intent: ...\n</context>\n<task_progress>\n- [x] done\n- [ ] \
to do\n</task_progress>\n</summarize_task>"
        },
    ]
    .concat();
    if let Some(focus) = focus.map(|f| trim(f, b"")).filter(|f| !f.is_empty()) {
        text.push_str("\n\nGive particular attention to the following:\n");
        text.push_str(focus);
    }
    text.push_str("\n</explicit_instructions>");
    text
}

/// The parameters of `summarize_task`: `context` (required) and `task_progress`.
pub(crate) fn summarize_params() -> Vec<ParamSpec> {
    let param = |name: &str, description: &str, required| ParamSpec {
        name: name.to_owned(),
        description: description.to_owned(),
        required,
    };
    vec![param("context", CONTEXT_PARAM, true), param("task_progress", PROGRESS_PARAM, false)]
}

/// The native definition of `summarize_task`, sent in every request while the task can
/// summarize (adding it for one request would break the cached prefix).
pub(crate) fn summarize_tool_definition() -> ToolDefinition {
    let string = |description| Json::object().with("type", "string").with("description", description);
    let properties =
        Json::from_members([("context", string(CONTEXT_PARAM)), ("task_progress", string(PROGRESS_PARAM))]);
    ToolDefinition {
        name: SUMMARIZE_TASK.to_owned(),
        description: "Replace the conversation by your summary of it, when a message asks for one.".to_owned(),
        input_schema: Json::object()
            .with("type", "object")
            .with("properties", properties)
            .with("required", vec![Json::from("context")]),
    }
}

/// The plain text blocks that follow a summary: the continuation, the summary, then one
/// block per file (`(path, content)`) headed by its path.
pub(crate) fn continuation(summary: &str, files: &[(String, String)]) -> Vec<String> {
    let mut blocks = Vec::with_capacity(files.len() + 2);
    blocks.push(
        [
            "[Context summarized] Your summary below replaces the earlier conversation. Go on with the task from \
where it stopped, without asking the user questions or redoing what is done.",
            if files.is_empty() { "" } else { " The files it needs follow, as they are now." },
        ]
        .concat(),
    );
    blocks.push(summary.to_owned());
    blocks.extend(files.iter().map(|(path, content)| ["Content of ", path, ":\n\n", content].concat()));
    blocks
}

/// The one line of `summarize_task`'s tool_result in native mode; the continuation follows
/// as text blocks.
pub(crate) fn summary_accepted() -> &'static str {
    "Summary accepted."
}

/// Replaces the first block of message 0 (the `<task>` text) once a summary carries the task.
pub(crate) fn continue_marker() -> &'static str {
    "[Keep assisting: the summary below carries the task.]"
}

/// The error result of a call of any tool but `summarize_task` and `attempt_completion`
/// during a summarize round; the call is not run.
pub(crate) fn only_summary_tools_now(tool: &str) -> String {
    texts::tool_error(
        &["Tool [", tool, "] was not run: only summarize_task and ", ATTEMPT_COMPLETION, " may be called now."]
            .concat(),
    )
}

/// The error result of `summarize_task` called outside a summarize round.
pub(crate) fn summarize_outside_round() -> String {
    texts::tool_error("summarize_task runs only when a message asks for a summary; nothing was summarized.")
}

/// The reminder of the original task after a provider compaction (§6.2 Pause), from message
/// 0's first block: wrapped in `<task>` tags unless it already is.
pub(crate) fn task_reminder(task_text: &str) -> String {
    let wrapped = trim_start(task_text, b"").starts_with("<task>");
    [
        "[Context compacted] The task, as a reminder:\n\n",
        if wrapped { "" } else { "<task>\n" },
        task_text,
        if wrapped { "" } else { "\n</task>" },
    ]
    .concat()
}

/// The paths listed under a summary's "required files" section (§4.2-4), found by its
/// title in any case and with any number or heading marks ("9. Required Files:",
/// "## 8. Required files", "9. **Required Files**:"); the section ends at the next heading,
/// or numbered line that is not a path. List markers, backticks and quotes are stripped,
/// "none"-like lines skipped; at most [`MAX_REQUIRED_PATHS`], no duplicates. A numbered
/// item that is a bare word ("1. Makefile") reads as the next section's title.
///
/// NOTE: written over bytes (every mark it strips is ASCII, so every cut falls between
/// characters): the `str` pattern searchers it would otherwise use cost about 4 KB of wasm.
pub(crate) fn required_files(summary: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let mut lines = pieces(summary, b'\n');
    let Some(after_title) = lines.by_ref().find_map(section_title_rest) else {
        return paths;
    };
    add_paths(after_title, &mut paths);
    for line in lines {
        if paths.len() >= MAX_REQUIRED_PATHS || ends_section(line) {
            break;
        }
        add_paths(list_item(trim(line, b"")), &mut paths);
    }
    paths
}

/// The pieces of `text` between its ASCII bytes `byte`.
fn pieces(text: &str, byte: u8) -> impl Iterator<Item = &str> {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let text = rest?;
        let (piece, after) = crate::core::text::split_once_byte(text, byte).map_or((text, None), |(a, b)| (a, Some(b)));
        rest = after;
        Some(piece)
    })
}

/// `text` without the white space and the `marks` at either end.
fn trim<'a>(text: &'a str, marks: &[u8]) -> &'a str {
    trim_end(trim_start(text, marks), marks)
}

/// `text` without the white space and the `marks` it starts with.
fn trim_start<'a>(text: &'a str, marks: &[u8]) -> &'a str {
    let skip = text.bytes().take_while(|b| b.is_ascii_whitespace() || marks.contains(b)).count();
    text.get(skip..).unwrap_or_default()
}

/// `text` without the white space and the `marks` it ends with.
fn trim_end<'a>(text: &'a str, marks: &[u8]) -> &'a str {
    let drop = text.bytes().rev().take_while(|b| b.is_ascii_whitespace() || marks.contains(b)).count();
    text.get(..text.len() - drop).unwrap_or_default()
}

/// The number of ASCII digits `text` starts with.
fn digit_count(text: &str) -> usize {
    text.bytes().take_while(u8::is_ascii_digit).count()
}

/// What follows the first `:` of a "required files" title line, or `None` if `line` is not one.
fn section_title_rest(line: &str) -> Option<&str> {
    const TITLE: &str = "required file";
    let text = trim_start(line, b"#*_");
    let text = trim_start(numbered(text).unwrap_or(text), b"*_");
    if !text.get(..TITLE.len())?.eq_ignore_ascii_case(TITLE) {
        return None;
    }
    let rest = text.get(TITLE.len()..)?;
    let rest = trim_start(rest.strip_prefix('s').or_else(|| rest.strip_prefix('S')).unwrap_or(rest), b"*_");
    match rest.bytes().next() {
        None => Some(""),
        Some(b':' | b'(') => Some(crate::core::text::split_once_byte(rest, b':').map_or("", |(_, items)| items)),
        Some(_) => None,
    }
}

/// The text after a leading `N.` or `N)` (one or two digits) and white space.
fn numbered(text: &str) -> Option<&str> {
    let digits = digit_count(text);
    let rest = text.get(digits..)?;
    let rest = rest.strip_prefix('.').or_else(|| rest.strip_prefix(')'))?;
    let spaced = rest.bytes().next().map_or(true, |b| matches!(b, b' ' | b'\t' | b'*'));
    ((1..=2).contains(&digits) && spaced).then(|| trim_start(rest, b""))
}

/// `text` without a leading list marker (`-`, `*`, `+`, `•`, `N.`, `N)`).
fn list_item(text: &str) -> &str {
    let marker = match text.bytes().next() {
        Some(b'-' | b'*' | b'+') => 1,
        _ if text.starts_with('•') => '•'.len_utf8(),
        _ => 0,
    };
    if marker > 0 {
        let rest = text.get(marker..).unwrap_or_default();
        if rest.bytes().next().map_or(true, |b| b == b' ' || b == b'\t') {
            return trim_start(rest, b"");
        }
    }
    numbered(text).unwrap_or(text)
}

/// Whether `line` starts the next section: a heading, or a numbered line or bold line whose
/// first word is not a path.
fn ends_section(line: &str) -> bool {
    let text = trim(line, b"");
    if text.starts_with('#') {
        return true;
    }
    let bold = text.strip_prefix("**").map(|t| trim_start(t, b"*"));
    let Some(item) = numbered(bold.unwrap_or(text)).or(bold) else {
        return false;
    };
    path_in(item).is_none()
}

/// Adds the paths in `text` (separated by commas) to `paths`, up to the limit.
fn add_paths(text: &str, paths: &mut Vec<String>) {
    for piece in pieces(text, b',') {
        let Some(path) = path_in(piece) else { continue };
        let none = ["none", "n/a", "nothing", "-"].iter().any(|n| path.eq_ignore_ascii_case(n));
        if !none && paths.len() < MAX_REQUIRED_PATHS && !paths.iter().any(|p| p == path) {
            paths.push(path.to_owned());
        }
    }
}

/// The path `piece` names: what backticks or quotes enclose, else its first word when that
/// looks like a path (has `/`, `\` or `.`) or is all there is. `None` for prose.
fn path_in(piece: &str) -> Option<&str> {
    let text = trim_start(piece, b"*(");
    let path = match text.bytes().next() {
        Some(quote @ (b'`' | b'"' | b'\'')) => {
            let inner = text.get(1..)?;
            crate::core::text::split_once_byte(inner, quote).map_or(inner, |(path, _)| path)
        }
        _ => {
            let end = text.bytes().position(|b| b.is_ascii_whitespace()).unwrap_or(text.len());
            let word = text.get(..end)?;
            let alone = end == trim_end(text, b"*)").len();
            if !alone && !word.bytes().any(|b| matches!(b, b'/' | b'\\' | b'.')) {
                return None;
            }
            word
        }
    };
    let path = trim_end(trim(path, b"*`\"':;()"), b".");
    (!path.is_empty()).then_some(path)
}

/// The files kept after a summary: the first [`MAX_KEPT_FILES`] entries, with at most
/// [`MAX_KEPT_CHARS`] characters of content in all. The file that crosses the total is cut
/// at a character boundary and ends with a note saying so (the note counts toward the
/// total); if not even the note fits, it is dropped. Files after it are dropped.
pub(crate) fn keep_files(entries: Vec<(String, String)>) -> Vec<(String, String)> {
    let mut left = MAX_KEPT_CHARS;
    let mut kept = Vec::new();
    for (path, mut content) in entries.into_iter().take(MAX_KEPT_FILES) {
        let count = content.chars().count();
        if count <= left {
            left -= count;
            kept.push((path, content));
            continue;
        }
        if let Some((cut, _)) = left.checked_sub(CUT_NOTE.len()).and_then(|n| content.char_indices().nth(n)) {
            content.truncate(cut);
            content.push_str(CUT_NOTE);
            kept.push((path, content));
        }
        break;
    }
    kept
}

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

#[cfg(test)]
mod tests {
    use super::*;

    fn files(entries: &[(&str, &str)]) -> Vec<(String, String)> {
        entries.iter().map(|(p, c)| ((*p).to_owned(), (*c).to_owned())).collect()
    }

    fn total_chars(files: &[(String, String)]) -> usize {
        files.iter().map(|(_, c)| c.chars().count()).sum()
    }

    #[test]
    fn the_instruction_names_the_two_tools_and_the_ten_sections_with_required_files_titled() {
        for native in [true, false] {
            let text = summarize_instruction(native, None);
            assert!(text.starts_with("<explicit_instructions type=\"summarize_task\">"));
            assert!(text.ends_with("</explicit_instructions>"));
            assert!(text.contains("attempt_completion") && text.contains("summarize_task"));
            for n in 1..=10 {
                assert!(text.contains(&format!("\n{n}. ")), "section {n}");
            }
            assert!(text.contains("\n9. Required files: "));
            assert!(text.contains("context") && text.contains("task_progress"));
        }
    }

    #[test]
    fn the_xml_instruction_shows_the_call_in_tags_and_asks_for_thinking_tags() {
        let xml = summarize_instruction(false, None);
        assert!(xml.contains("<summarize_task>\n<context>\n") && xml.contains("</context>\n<task_progress>"));
        assert!(xml.contains("</summarize_task>") && xml.contains("<thinking>"));
        let native = summarize_instruction(true, None);
        assert!(!native.contains("<summarize_task>") && !native.contains("<thinking>"));
        assert!(native.contains("summarize_task tool"));
    }

    #[test]
    fn a_focus_is_appended_before_the_closing_tag_and_a_blank_one_is_not() {
        let text = summarize_instruction(true, Some("  the database schema "));
        assert!(text.ends_with("attention to the following:\nthe database schema\n</explicit_instructions>"));
        assert_eq!(summarize_instruction(true, Some(" \n")), summarize_instruction(true, None));
    }

    #[test]
    fn the_summary_that_follows_the_instruction_finds_its_required_files() {
        // NOTE: the section's title as the instruction writes it is the one the parser finds.
        let title =
            summarize_instruction(true, None).lines().find(|l| l.starts_with("9. ")).unwrap_or_default().to_owned();
        let title = title.split(':').next().unwrap_or_default();
        let summary = format!("1. Request and intent: x\n{title}:\n- src/a.rs\n10. Latest user message: go");
        assert_eq!(required_files(&summary), ["src/a.rs"]);
    }

    #[test]
    fn the_tool_definition_requires_context_and_offers_task_progress() {
        let def = summarize_tool_definition();
        assert_eq!(def.name, SUMMARIZE_TASK);
        assert!(!def.description.is_empty());
        let schema = def.input_schema.to_string();
        assert!(schema.starts_with(r#"{"type":"object","properties":{"context":{"type":"string","description":"#));
        assert!(schema.contains(r#""task_progress":{"type":"string""#));
        assert!(schema.ends_with(r#""required":["context"]}"#));
        let params = summarize_params();
        let named: Vec<_> = params.iter().map(|p| (p.name.as_str(), p.required)).collect();
        assert_eq!(named, [("context", true), ("task_progress", false)]);
        assert_eq!(params.first().map(|p| p.description.as_str()), Some(CONTEXT_PARAM));
    }

    #[test]
    fn the_continuation_is_the_notice_the_summary_and_one_block_per_file() {
        let blocks = continuation("SUMMARY", &files(&[("src/a.rs", "fn a() {}"), ("b.md", "# B")]));
        assert_eq!(blocks.len(), 4);
        assert!(blocks[0].starts_with("[Context summarized]") && blocks[0].contains("without asking"));
        assert!(blocks[0].ends_with("as they are now."));
        assert_eq!(blocks[1], "SUMMARY");
        assert_eq!(blocks[2], "Content of src/a.rs:\n\nfn a() {}");
        assert_eq!(blocks[3], "Content of b.md:\n\n# B");
        let alone = continuation("S", &[]);
        assert_eq!(alone.len(), 2);
        assert!(!alone[0].contains("files"));
    }

    #[test]
    fn the_one_line_texts_are_short_and_bracketed_where_they_mark() {
        assert!(!summary_accepted().contains('\n'));
        assert!(continue_marker().starts_with('[') && continue_marker().ends_with(']'));
        assert!(continue_marker().len() < 100);
    }

    #[test]
    fn other_tools_in_a_summarize_round_get_an_error_naming_the_two_allowed() {
        let text = only_summary_tools_now("read_file");
        assert!(text.starts_with("The tool call failed:\n<error>\nTool [read_file] was not run"));
        assert!(text.contains("summarize_task and attempt_completion"));
        let outside = summarize_outside_round();
        assert!(outside.starts_with("The tool call failed:") && outside.contains("nothing was summarized"));
    }

    #[test]
    fn the_task_reminder_wraps_a_bare_task_and_keeps_a_wrapped_one() {
        let bare = task_reminder("fix the bug");
        assert!(bare.starts_with("[Context compacted]"));
        assert!(bare.ends_with("\n\n<task>\nfix the bug\n</task>"));
        let wrapped = task_reminder("<task>\nfix the bug\n</task>");
        assert!(wrapped.ends_with("\n\n<task>\nfix the bug\n</task>"));
        assert_eq!(wrapped.matches("<task>").count(), 1);
    }

    #[test]
    fn required_files_found_under_section_eight_or_nine() {
        for n in [8, 9] {
            let summary = format!(
                "{}. Current work: editing\n{n}. Required Files:\n- src/main.rs\n- `src/lib.rs`\n{}. Latest user message: \
- not/a/file.rs\n",
                n - 1,
                n + 1
            );
            assert_eq!(required_files(&summary), ["src/main.rs", "src/lib.rs"], "numbered {n}");
        }
    }

    #[test]
    fn required_files_under_markdown_headings_and_bold_titles() {
        let cases = [
            "## 9. Required Files\n\n- a.rs\n- b/c.ts\n\n## 10. Latest User Message\n- d.rs",
            "9. **Required Files**:\n   - a.rs\n   - b/c.ts\n10. **Latest User Message**: - d.rs",
            "**9. Required Files:**\n* a.rs\n* b/c.ts\n**10. Latest user message:**\n* d.rs",
            "### required files\n1. a.rs\n2. `b/c.ts`\n### Latest\n- d.rs",
            "9) REQUIRED FILES (to read again):\n+ a.rs\n+ b/c.ts\n10) Latest user message\n+ d.rs",
        ];
        for summary in cases {
            assert_eq!(required_files(summary), ["a.rs", "b/c.ts"], "{summary}");
        }
    }

    #[test]
    fn list_markers_backticks_quotes_and_annotations_are_stripped() {
        let summary =
            "9. Required files:\n- `src/a b.rs` (spaces)\n- \"docs/x.md\"\n* 'y.txt'\n- src/z.rs - the parser\n\
3. src/w.rs: edited\n- **src/v.rs**\n- Makefile\n- C:\\work\\q.rs\n";
        assert_eq!(
            required_files(summary),
            ["src/a b.rs", "docs/x.md", "y.txt", "src/z.rs", "src/w.rs", "src/v.rs", "Makefile", "C:\\work\\q.rs"]
        );
    }

    #[test]
    fn paths_on_the_title_line_and_comma_lists_are_read() {
        assert_eq!(
            required_files("9. Required Files: `a.rs`, b/c.rs\n- d.rs, e.rs"),
            ["a.rs", "b/c.rs", "d.rs", "e.rs"]
        );
    }

    #[test]
    fn none_like_entries_prose_and_blank_lines_are_skipped() {
        assert!(required_files("9. Required Files: None\n10. Latest user message: hi").is_empty());
        assert!(required_files("9. Required Files:\n- none\n- N/A\n- (none)\n- Nothing.\n").is_empty());
        let summary = "9. Required files:\n\nThese files must be read again:\n- src/a.rs\n\n- the config of the app\n";
        assert_eq!(required_files(summary), ["src/a.rs"]);
    }

    #[test]
    fn no_more_than_ten_paths_and_no_duplicates() {
        let mut summary = String::from("9. Required Files:\n- a.rs\n- `a.rs`\n");
        for i in 0..15 {
            summary.push_str(&format!("- f{i}.rs\n"));
        }
        let paths = required_files(&summary);
        assert_eq!(paths.len(), MAX_REQUIRED_PATHS);
        assert_eq!(paths.first().map(String::as_str), Some("a.rs"));
        assert_eq!(paths.last().map(String::as_str), Some("f8.rs"));
    }

    #[test]
    fn an_example_style_summary_without_the_section_loads_nothing() {
        let summary = "1. Primary Request and Intent: build it\n2. Key Technical Concepts:\n- src/a.rs\n\
8. Files and code:\n- src/b.rs\n9. Latest user message: the required files were read\nRequired files are listed above.";
        assert!(required_files(summary).is_empty());
        assert!(required_files("").is_empty());
    }

    #[test]
    fn a_mention_in_prose_or_a_list_item_is_not_the_section_title() {
        assert!(required_files("- Required files: src/a.rs\n- src/b.rs").is_empty());
        assert!(required_files("Required filesystem access: src/a.rs").is_empty());
    }

    #[test]
    fn files_kept_up_to_eight_and_100k_characters() {
        let many: Vec<_> = (0..10).map(|i| (format!("f{i}"), "x".repeat(10))).collect();
        let kept = keep_files(many);
        assert_eq!(kept.len(), MAX_KEPT_FILES);
        assert_eq!(kept.last().map(|(p, _)| p.as_str()), Some("f7"));

        let exact = keep_files(files(&[("a", &"x".repeat(60_000)), ("b", &"y".repeat(40_000)), ("c", "")]));
        assert_eq!(exact.len(), 3, "exactly the total, and an empty file, fit");
        assert_eq!(total_chars(&exact), MAX_KEPT_CHARS);
    }

    #[test]
    fn the_file_crossing_the_total_is_cut_with_a_note_and_later_files_dropped() {
        let kept = keep_files(files(&[("a", &"x".repeat(70_000)), ("b", &"y".repeat(50_000)), ("c", "z")]));
        assert_eq!(kept.iter().map(|(p, _)| p.as_str()).collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(total_chars(&kept), MAX_KEPT_CHARS);
        let b = &kept[1].1;
        assert!(b.ends_with(CUT_NOTE) && b.starts_with("yyy"));
        assert_eq!(b.len(), 30_000);
    }

    #[test]
    fn a_cut_never_splits_a_character() {
        // 4-byte characters: any byte cut would fall inside one.
        let kept = keep_files(files(&[("a", &"x".repeat(99_990)), ("b", &"𝄞".repeat(500))]));
        assert_eq!(kept.len(), 1, "the note does not fit in 10 characters: b is dropped");
        let kept = keep_files(files(&[("a", &"x".repeat(99_000)), ("b", &"𝄞".repeat(5_000))]));
        let b = &kept[1].1;
        assert_eq!(b.chars().filter(|&c| c == '𝄞').count(), 1_000 - CUT_NOTE.len());
        assert_eq!(total_chars(&kept), MAX_KEPT_CHARS);
        assert!(keep_files(files(&[("a", &"é".repeat(100_001))]))[0].1.starts_with("éé"));
    }

    #[test]
    fn next_gen_models_by_the_reference_list() {
        let yes = [
            "claude-opus-4-20250514",
            "claude-sonnet-4-5",
            "claude-haiku-4-5@20251001",
            "anthropic/claude-opus-4.1",
            "us.anthropic.claude-sonnet-4-20250514-v1:0",
            "claude-4-sonnet",
            "claude-opus-5",
            "claude-fable-5-1",
            "claude-mythos-preview",
            "sonnet",
            "opus",
            "sonnet-4",
            "gemini-2.5-pro",
            "models/gemini-2.5-flash-lite",
            "gemini-3-pro-preview",
            "google/gemini3-flash",
            "grok-4",
            "x-ai/grok-4.1-fast",
            "gpt-5",
            "openai/gpt-5.1-codex",
            "gpt5-mini",
            "gpt-6",
            "openai/gpt-oss-120b",
            "MiniMax-M2",
            "deepseek/deepseek-v3.2-exp",
            "accounts/fireworks/models/deepseek-v3p2",
            "deepseek-v4",
            "moonshotai/kimi-k2-instruct-0905",
            "kimi-k2.5",
            "Qwen/Qwen3-Coder-480B-A35B-Instruct",
            "qwen3-max",
            "z-ai/glm-4.5-air",
            "glm-4.6",
            "glm-4p5",
            "glm-5",
        ];
        for id in yes {
            assert!(is_next_gen(id), "{id}");
        }
    }

    #[test]
    fn older_and_unknown_models_are_not_next_gen() {
        let no = [
            "claude-3-7-sonnet-20250219",
            "anthropic.claude-3-5-sonnet-20240620-v1:0",
            "anthropic/claude-3.5-haiku",
            "claude-2.1",
            "claude-instant-1",
            "haiku",
            "gemini-2.0-flash",
            "gemini-1.5-pro-002",
            "gemini-exp-1206",
            "grok-3-mini",
            "grok-code-fast-1",
            "gpt-4o",
            "gpt-4.1",
            "chatgpt-4o-latest",
            "gpt-35-turbo",
            "gpt-image-1",
            "o3",
            "deepseek-chat",
            "deepseek-v3.1-terminus",
            "deepseek-v3-0324",
            "deepseek-v3.2-speciale",
            "deepseek-r1",
            "kimi-latest",
            "qwen2.5-coder-32b",
            "qwen-14b",
            "qwen-max-2025-01-25",
            "glm-4-plus",
            "glm-4.1v-thinking",
            "chatglm3-6b",
            "llama-4-maverick",
            "",
        ];
        for id in no {
            assert!(!is_next_gen(id), "{id}");
        }
    }

    #[test]
    fn native_compaction_only_for_the_listed_anthropic_models() {
        let yes = [
            "claude-opus-4-6",
            "claude-opus-4-7",
            "claude-opus-4-8-20261001",
            "claude-sonnet-4-6",
            "anthropic/claude-sonnet-4.6",
            "us.anthropic.claude-opus-4-6-v1:0",
            "claude-opus-4-6@20260205",
            "Claude-Opus-5",
            "claude-sonnet-5",
            "claude-fable-5",
            "claude-fable-5-1",
            "claude-mythos-5",
            "claude-mythos-5-1-20261201",
            "claude-mythos-preview",
        ];
        for id in yes {
            assert!(supports_native_compaction(id), "{id}");
        }
        let no = [
            "claude-opus-4-5",
            "claude-opus-4-5-20251101",
            "claude-sonnet-4",
            "claude-sonnet-4-20250514",
            "claude-sonnet-4-5",
            "claude-opus-4-1",
            "claude-opus-5-1",
            "claude-opus-4-60",
            "xclaude-opus-4-6",
            "claude-3-7-sonnet",
            "gpt-5",
            "",
        ];
        for id in no {
            assert!(!supports_native_compaction(id), "{id}");
        }
    }
}
