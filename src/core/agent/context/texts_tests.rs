//! Tests of the context texts: the instruction, the continuation, required files, model lists.
use super::super::files::*;
use super::super::models::*;
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
    let title = summarize_instruction(true, None).lines().find(|l| l.starts_with("9. ")).unwrap_or_default().to_owned();
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
    let summary = "9. Required files:\n- `src/a b.rs` (spaces)\n- \"docs/x.md\"\n* 'y.txt'\n- src/z.rs - the parser\n\
3. src/w.rs: edited\n- **src/v.rs**\n- Makefile\n- C:\\work\\q.rs\n";
    assert_eq!(
        required_files(summary),
        ["src/a b.rs", "docs/x.md", "y.txt", "src/z.rs", "src/w.rs", "src/v.rs", "Makefile", "C:\\work\\q.rs"]
    );
}

#[test]
fn paths_on_the_title_line_and_comma_lists_are_read() {
    assert_eq!(required_files("9. Required Files: `a.rs`, b/c.rs\n- d.rs, e.rs"), ["a.rs", "b/c.rs", "d.rs", "e.rs"]);
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
