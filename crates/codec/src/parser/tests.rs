//! One test per edge case of TOOL-FORMAT.md (§3 consequences, §4, §5, §7, §8), named after it.

use super::*;

fn parse(text: &str) -> Vec<Block> {
    parse_assistant_message(text, &ToolSet::reference())
}

fn text(content: &str, partial: bool) -> Block {
    Block::Text { content: content.into(), partial }
}

fn tool(name: &str, params: &[(&str, &str)], partial: bool) -> Block {
    Block::ToolUse {
        name: name.into(),
        params: params.iter().map(|(k, v)| ((*k).into(), (*v).into())).collect(),
        partial,
    }
}

#[test]
fn empty_or_whitespace_input_gives_no_blocks() {
    assert!(parse("").is_empty());
    assert!(parse(" \n\t\u{3000} ").is_empty());
}

#[test]
fn whitespace_between_two_tools_gives_no_text_block() {
    let blocks = parse("<read_file><path>a</path></read_file>\n\n<read_file><path>b</path></read_file>");
    assert_eq!(blocks, [tool("read_file", &[("path", "a")], false), tool("read_file", &[("path", "b")], false)]);
}

#[test]
fn text_before_a_tool_is_complete_and_the_final_text_is_partial() {
    let blocks = parse("Before.\n<list_files><path>.</path></list_files>\nAfter.");
    assert_eq!(blocks, [text("Before.", false), tool("list_files", &[("path", ".")], false), text("After.", true)]);
}

#[test]
fn unclosed_tool_is_partial_with_completed_params() {
    assert_eq!(parse("<read_file><path>a</path>"), [tool("read_file", &[("path", "a")], true)]);
}

#[test]
fn param_open_tag_with_nothing_after_it_is_an_empty_value() {
    assert_eq!(parse("<read_file><path>"), [tool("read_file", &[("path", "")], true)]);
}

#[test]
fn partial_closing_tag_stays_in_a_streamed_value() {
    assert_eq!(parse("<read_file><path>src/a.ts</pa"), [tool("read_file", &[("path", "src/a.ts</pa")], true)]);
}

#[test]
fn partial_opening_tag_stays_in_text() {
    assert_eq!(parse("Let me check <read_fi"), [text("Let me check <read_fi", true)]);
}

#[test]
fn partial_tag_inside_a_tool_body_is_dropped() {
    assert_eq!(parse("<read_file><pa"), [tool("read_file", &[], true)]);
}

#[test]
fn tag_spelling_variants_are_plain_text() {
    for variant in ["<read_file path=\"x\">", "< read_file>", "<read_file >", "<READ_FILE>", "<br/>", "<div>"] {
        assert_eq!(parse(variant), [text(variant, true)], "{variant}");
    }
}

#[test]
fn close_tag_without_open_is_plain_text() {
    assert_eq!(parse("done </read_file>"), [text("done </read_file>", true)]);
}

#[test]
fn param_tags_outside_a_tool_are_plain_text() {
    assert_eq!(parse("<path>x</path>"), [text("<path>x</path>", true)]);
}

#[test]
fn tool_tag_inside_thinking_opens_a_tool_that_swallows_the_rest() {
    let blocks = parse("<thinking>I'll call <read_file> next</thinking> and more");
    assert_eq!(blocks, [text("<thinking>I'll call", false), tool("read_file", &[], true)]);
}

#[test]
fn second_open_tag_of_the_same_tool_is_ignored() {
    let blocks = parse("<read_file><path>a</path><read_file><path>b</path></read_file>");
    assert_eq!(blocks, [tool("read_file", &[("path", "b")], false)]);
}

#[test]
fn repeated_param_overwrites_in_its_first_position() {
    let blocks = parse("<search_files><path>a</path><regex>r</regex><path>b</path></search_files>");
    assert_eq!(blocks, [tool("search_files", &[("path", "b"), ("regex", "r")], false)]);
}

#[test]
fn params_keep_insertion_order() {
    let blocks = parse("<search_files><regex>r</regex><file_pattern>*</file_pattern><path>p</path></search_files>");
    assert_eq!(blocks, [tool("search_files", &[("regex", "r"), ("file_pattern", "*"), ("path", "p")], false)]);
}

#[test]
fn any_param_name_opens_a_param_in_any_tool() {
    assert_eq!(parse("<read_file><command>ls</command></read_file>"), [tool("read_file", &[("command", "ls")], false)]);
}

#[test]
fn junk_inside_a_tool_body_is_dropped() {
    let blocks = parse("<read_file>words <div> </regex> <list_files><path>a</path> more</read_file>");
    assert_eq!(blocks, [tool("read_file", &[("path", "a")], false)]);
}

#[test]
fn block_count_never_decreases_and_text_can_shrink() {
    let mut parser = IncrementalParser::default();
    parser.push("Hello <read_file");
    assert_eq!(parser.to_blocks(), [text("Hello <read_file", true)]);
    parser.push(">");
    assert_eq!(parser.to_blocks(), [text("Hello", false), tool("read_file", &[], true)]);
}

#[test]
fn text_block_becomes_a_tool_at_the_same_index() {
    let mut parser = IncrementalParser::default();
    parser.push("<read_fil");
    assert_eq!(parser.to_blocks(), [text("<read_fil", true)]);
    assert_eq!(parser.push("e>"), 0);
    assert_eq!(parser.to_blocks(), [tool("read_file", &[], true)]);
}

#[test]
fn tag_like_text_inside_a_value_is_kept() {
    let blocks = parse("<execute_command><command>grep \"<div>\" a.html > out</command></execute_command>");
    assert_eq!(blocks, [tool("execute_command", &[("command", "grep \"<div>\" a.html > out")], false)]);
    let blocks = parse("<execute_command><command>echo <read_file> ok</command></execute_command>");
    assert_eq!(blocks, [tool("execute_command", &[("command", "echo <read_file> ok")], false)]);
}

#[test]
fn value_ends_at_the_first_own_close_tag() {
    let blocks = parse("<attempt_completion><result>Use </result> wisely</result></attempt_completion>");
    assert_eq!(blocks, [tool("attempt_completion", &[("result", "Use")], false)]);
}

#[test]
fn replace_in_file_diff_is_cut_at_the_first_close_tag() {
    let blocks = parse("<replace_in_file><path>a</path><diff>x </diff> y</diff></replace_in_file>");
    assert_eq!(blocks, [tool("replace_in_file", &[("path", "a"), ("diff", "x")], false)]);
}

#[test]
fn write_to_file_content_runs_to_the_last_close_tag() {
    let blocks =
        parse("<write_to_file><path>d.md</path><content>Use the </content> tag.\nMore.</content></write_to_file>");
    assert_eq!(
        blocks,
        [tool("write_to_file", &[("path", "d.md"), ("content", "Use the </content> tag.\nMore.")], false)]
    );
}

#[test]
fn write_to_file_rule_uses_the_first_content_open_tag() {
    let blocks = parse("<write_to_file><content><content>in</content> x </content> y</content></write_to_file>");
    assert_eq!(blocks, [tool("write_to_file", &[("content", "<content>in</content> x </content> y")], false)]);
}

#[test]
fn write_to_file_rule_can_reach_into_another_param() {
    let blocks = parse("<write_to_file><content>A</content><path>B</content></path></write_to_file>");
    assert_eq!(blocks, [tool("write_to_file", &[("content", "A</content><path>B"), ("path", "B</content>")], false)]);
}

#[test]
fn write_to_file_empty_content_stays_empty() {
    let blocks = parse("<write_to_file><path>p</path><content></content></write_to_file>");
    assert_eq!(blocks, [tool("write_to_file", &[("path", "p"), ("content", "")], false)]);
}

#[test]
fn write_to_file_streaming_shows_the_normal_scan_until_close() {
    let mut parser = IncrementalParser::default();
    parser.push("<write_to_file><path>p</path><content>a </content> b</content>");
    assert_eq!(parser.to_blocks(), [tool("write_to_file", &[("path", "p"), ("content", "a")], true)]);
    parser.push("</write_to_file>");
    assert_eq!(parser.to_blocks(), [tool("write_to_file", &[("path", "p"), ("content", "a </content> b")], false)]);
}

#[test]
fn write_to_file_close_tag_inside_open_content_is_ignored() {
    let blocks = parse("<write_to_file><path>x</path><content>xyz</write_to_file>");
    assert_eq!(blocks, [tool("write_to_file", &[("path", "x"), ("content", "xyz</write_to_file>")], true)]);
}

#[test]
fn write_to_file_inner_close_after_content_close_ends_the_tool() {
    let blocks =
        parse("<write_to_file><path>x</path><content>alpha</content></write_to_file>omega</content></write_to_file>");
    assert_eq!(
        blocks,
        [
            tool("write_to_file", &[("path", "x"), ("content", "alpha")], false),
            text("omega</content></write_to_file>", true)
        ]
    );
}

#[test]
fn new_rule_gets_no_last_index_rule() {
    let blocks = parse("<new_rule><path>r</path><content>a </content> b</content></new_rule>");
    assert_eq!(blocks, [tool("new_rule", &[("path", "r"), ("content", "a")], false)]);
}

#[test]
fn trim_removes_feff_and_keeps_next_line() {
    assert_eq!(parse("\u{FEFF}hi\u{FEFF}"), [text("hi", true)]);
    assert_eq!(parse("\u{85}hi\u{85}"), [text("\u{85}hi\u{85}", true)]);
}

#[test]
fn crlf_is_kept_inside_values() {
    let blocks = parse("<execute_command>\r\n<command>a\r\nb</command>\r\n</execute_command>");
    assert_eq!(blocks, [tool("execute_command", &[("command", "a\r\nb")], false)]);
}

#[test]
fn custom_tool_set_recognises_exactly_its_names() {
    let tools = ToolSet::from_names(["lookup"], ["term"]).unwrap();
    let blocks = parse_assistant_message("<lookup><term>x</term><path>p</path></lookup><read_file>", &tools);
    assert_eq!(blocks, [tool("lookup", &[("term", "x")], false), text("<read_file>", true)]);
}

#[test]
fn push_reports_the_first_changed_block() {
    let mut parser = IncrementalParser::default();
    assert_eq!(parser.push(""), 0);
    assert_eq!(parser.push("Intro"), 0);
    assert_eq!(parser.push(" text"), 0);
    assert_eq!(parser.push("\n<read_file><path>a"), 0);
    assert_eq!(parser.push("b</path>"), 1);
    assert_eq!(parser.push("   junk "), 2);
    assert_eq!(parser.push("</read_file>\n"), 1);
    assert_eq!(parser.push("\n"), 2);
    assert_eq!(parser.push("Done."), 2);
    assert_eq!(parser.len(), 3);
}

#[test]
fn a_name_that_is_both_tool_and_param_closes_param_then_tool_at_one_tag() {
    // TOOL-FORMAT §3, state P: after `</p>` the same position is examined in state U, where
    // it is this tool's close tag when p is also the tool's name.
    let tools = ToolSet::from_names(["query"], ["query", "limit"]).unwrap();
    let blocks = parse_assistant_message("<query><query>x</query>after", &tools);
    assert_eq!(blocks, [tool("query", &[("query", "x")], false), text("after", true)]);
    let mut parser = IncrementalParser::new(tools.clone());
    for piece in ["<query><que", "ry>x</que", "ry>aft", "er"] {
        parser.push(piece);
    }
    assert_eq!(parser.to_blocks(), blocks);
    // Another tool's parameter of that name does not close this tool.
    let tools = ToolSet::from_names(["query", "search"], ["query"]).unwrap();
    let blocks = parse_assistant_message("<search><query>x</query>more", &tools);
    assert_eq!(blocks, [tool("search", &[("query", "x")], true)]);
}
