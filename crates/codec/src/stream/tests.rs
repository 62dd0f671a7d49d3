//! Unit tests of the stream layer's smaller pieces: partial JSON and tool-call assembly
//! (the request builders are tested beside them).
use super::{Chunk, PartialJsonObject, ToolCallAssembler};

fn members(object: &PartialJsonObject) -> Vec<(String, String)> {
    object.members().map(|(k, v)| (k.to_owned(), v.to_owned())).collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
}

#[test]
fn partial_string_value_is_shown_while_it_streams() {
    let mut object = PartialJsonObject::new();
    object.push(r#"{"path": "src/a.ts", "content": "line 1\nli"#);
    assert_eq!(members(&object), pairs(&[("path", "src/a.ts"), ("content", "line 1\nli")]));
    object.push(r#"ne 2", "count": 3"#);
    assert_eq!(members(&object), pairs(&[("path", "src/a.ts"), ("content", "line 1\nline 2")]), "3 may still grow");
    object.push(r#"}"#);
    assert!(object.is_complete());
    assert_eq!(members(&object), pairs(&[("path", "src/a.ts"), ("content", "line 1\nline 2"), ("count", "3")]));
}

#[test]
fn non_string_values_become_compact_json_and_numbers_keep_their_text() {
    let mut object = PartialJsonObject::new();
    object.push(r#"{ "flags" : [ true, { "a" : "}" } ], "n": null, "x": -1.5e3 }"#);
    assert_eq!(members(&object), pairs(&[("flags", r#"[true,{"a":"}"}]"#), ("n", "null"), ("x", "-1.5e3")]));
}

#[test]
fn unicode_escapes_and_surrogate_pairs_split_anywhere() {
    let text = r#"{"k\u00e9y": "a\"b\\c\u00e9\ud83e\udd80\ud800x\n"}"#;
    for cut in 0..=text.len() {
        let mut object = PartialJsonObject::new();
        object.push(&text[..cut]);
        object.push(&text[cut..]);
        assert_eq!(members(&object), pairs(&[("kéy", "a\"b\\cé🦀\u{FFFD}x\n")]), "cut at {cut}");
    }
}

#[test]
fn repeated_key_keeps_its_first_position_and_last_value() {
    let mut object = PartialJsonObject::new();
    object.push(r#"{"a": "1", "b": "2", "a": "3"}"#);
    assert_eq!(members(&object), pairs(&[("a", "3"), ("b", "2")]));
}

#[test]
fn text_that_is_not_an_object_is_invalid() {
    for text in ["[1]", "{\"a\" 1}", "{1: 2}", "{\"a\": tru }", "{\"a\": \"\\q\"}"] {
        let mut object = PartialJsonObject::new();
        object.push(text);
        assert!(object.is_invalid(), "{text}");
    }
}

#[test]
fn assembler_groups_pieces_by_id_and_exposes_params() {
    let mut calls = ToolCallAssembler::new();
    let pieces = [
        Chunk::tool_call("c1", Some("read_file"), None),
        Chunk::tool_call("c1", Some("read_file"), Some(r#"{"path":"a"#)),
        Chunk::tool_call("c2", Some("list_files"), Some(r#"{"path":"src"}"#)),
        Chunk::tool_call("c1", Some("read_file"), Some(r#".md"}"#)),
    ];
    let indices: Vec<usize> = pieces
        .iter()
        .map(|piece| match piece {
            Chunk::ToolCalls { tool_call } => calls.push(tool_call),
            _ => usize::MAX,
        })
        .collect();
    assert_eq!(indices, [0, 0, 1, 0]);
    let [first, second] = calls.calls() else { panic!("two calls") };
    assert_eq!((first.id.as_str(), first.name.as_str()), ("c1", "read_file"));
    assert_eq!(members(&first.arguments), pairs(&[("path", "a.md")]));
    assert!(first.arguments.is_complete() && second.arguments.is_complete());
}

#[test]
fn text_after_the_closing_brace_makes_the_object_invalid() {
    let mut object = PartialJsonObject::new();
    object.push(r#"{"a": 1} "#);
    assert!(object.is_complete() && !object.is_invalid());
    object.push("x");
    assert!(object.is_invalid(), "JSON.parse would reject it");
}

#[test]
fn many_members_cost_linear_time_and_keep_first_position_last_value() {
    let mut text = String::from("{");
    for i in 0..50_000 {
        text.push_str(&format!("\"k{i}\": {i}, "));
    }
    text.push_str("\"k7\": \"again\"}");
    let mut object = PartialJsonObject::new();
    object.push(&text);
    assert!(object.is_complete());
    let members: Vec<(&str, &str)> = object.members().collect();
    assert_eq!(members.len(), 50_000);
    assert_eq!(members[7], ("k7", "again"));
}

/// Inputs the fuzzer found where the partial reader called an object complete and valid
/// while `JSON.parse` rejects it.
#[test]
fn what_json_parse_rejects_is_invalid_fuzz_regressions() {
    for text in [
        "{\"a\": 1}x",
        "{\"k\":\"line\nbreak\"}",
        "{\"k\": 1,}",
        "{\"k\": false \u{c} }",
        "{\"k\": 1,\n\t}",
        "{\"k\": \"\\u0041\u{0}\"}",
        "{\"k\u{1}\": 1}",
    ] {
        let mut object = PartialJsonObject::new();
        object.push(text);
        assert!(object.is_invalid() || !object.is_complete(), "{text:?}");
        assert!(crate::json::Json::parse(text).is_err(), "{text:?}");
    }
}

#[test]
fn arguments_nested_deeper_than_any_limit_read_as_json_parse_reads_them() {
    let deep = format!("{}{}", "[".repeat(5_000), "]".repeat(5_000));
    let mut object = PartialJsonObject::new();
    object.push(&format!(r#"{{"deep": {deep}, "n": 1e400, "s": "ok"}}"#));
    assert!(object.is_complete() && !object.is_invalid());
    assert_eq!(members(&object), pairs(&[("deep", deep.as_str()), ("n", "1e400"), ("s", "ok")]));
}
