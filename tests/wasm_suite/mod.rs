// The wasm test suite, run in Node by tests/wasm_node.rs and in headless Chromium by
// tests/wasm_browser.rs. It goes through the exported JS API: what a JS caller receives.

use crate::common::{block_from_json, normalized, vectors, whole_messages};
use clew::parser::{parse_assistant_message as parse_native, Block, ToolSet};
use clew::wasm::{parse_assistant_message, AssistantMessageParser};
use js_sys::Reflect;
use streams::code_of;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;

fn blocks_from_js(value: JsValue) -> Vec<Block> {
    let text = js_sys::JSON::stringify(&value).unwrap().as_string().unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    json.as_array().unwrap().iter().map(block_from_json).collect()
}

#[wasm_bindgen_test]
fn every_vector_parses_like_the_reference_through_js() {
    let all = vectors();
    assert_eq!(all.len(), 7005);
    for v in &all {
        let blocks = blocks_from_js(parse_assistant_message(v.input.as_str().into(), None).unwrap().into());
        assert_eq!(normalized(&blocks), normalized(&v.blocks), "{}", v.id);
    }
}

#[wasm_bindgen_test]
fn blocks_are_plain_objects_with_the_reference_field_names() {
    let blocks =
        parse_assistant_message("Hi\n<read_file><path>a</path><start_line>2</start_line></read_file>".into(), None)
            .unwrap();
    let tool = blocks.get(1);
    let object: &js_sys::Object = tool.unchecked_ref();
    let keys: Vec<String> = js_sys::Object::keys(object).iter().filter_map(|k| k.as_string()).collect();
    assert_eq!(keys, ["type", "name", "params", "partial", "isNativeToolCall"]);
    let params = Reflect::get(&tool, &"params".into()).unwrap();
    assert_eq!(js_sys::Object::get_prototype_of(&params), js_sys::Object::get_prototype_of(&js_sys::Object::new()));
    assert!(!params.is_instance_of::<js_sys::Map>());
    assert_eq!(Reflect::get(&params, &"path".into()).unwrap().as_string().as_deref(), Some("a"));
    let names: Vec<String> =
        js_sys::Object::keys::<JsValue>(params.unchecked_ref()).iter().filter_map(|k| k.as_string()).collect();
    assert_eq!(names, ["path", "start_line"], "params keep insertion order");
}

#[wasm_bindgen_test]
fn parser_pushed_one_code_point_at_a_time_equals_full_parses() {
    let tools = ToolSet::reference();
    for v in whole_messages() {
        let mut parser = AssistantMessageParser::new(None).unwrap();
        let mut before: Vec<Block> = Vec::new();
        // A code point at a time: strings cross into wasm as UTF-8, so halves of a surrogate
        // pair are rejoined by the package's JS subclass (tested in pkg-tests).
        for (at, c) in v.input.char_indices() {
            let end = at + c.len_utf8();
            let first_changed = parser.push(&v.input[at..end]);
            let prefix = &v.input[..end];
            let now = blocks_from_js(parser.blocks().into());
            assert_eq!(normalized(&now), normalized(&parse_native(prefix, &tools)), "{} at byte {end}", v.id);
            assert_eq!(parser.length(), now.len());
            let kept = first_changed.min(before.len());
            assert_eq!(now[..kept], before[..kept], "{}: push claimed blocks before {first_changed} unchanged", v.id);
            before = now;
        }
        assert_eq!(parser.text(), v.input);
    }
}

#[wasm_bindgen_test]
fn block_past_the_end_is_undefined() {
    let mut parser = AssistantMessageParser::new(None).unwrap();
    parser.push("text");
    assert!(parser.block(0.into()).unwrap().is_object());
    assert!(parser.block(1.into()).unwrap().is_undefined());
    assert!(parser.block((2f64.powi(32)).into()).unwrap().is_undefined(), "indices do not wrap");
    assert_eq!(code_of(&parser.block("0".into()).err().unwrap()), "CLEW_INVALID_ARGUMENT");
    assert_eq!(code_of(&parse_assistant_message(JsValue::from(123), None).err().unwrap()), "CLEW_INVALID_ARGUMENT");
}

#[wasm_bindgen_test]
fn custom_tool_set_is_recognised() {
    let spec = js_sys::JSON::parse(r#"{"tools":["lookup"],"params":["term"]}"#).unwrap();
    let blocks = blocks_from_js(
        parse_assistant_message("<lookup><term>x</term></lookup>".into(), Some(spec.unchecked_into())).unwrap().into(),
    );
    assert_eq!(
        blocks,
        [Block::ToolUse { name: "lookup".into(), params: vec![("term".into(), "x".into())], partial: false }]
    );
}

#[wasm_bindgen_test]
fn bad_tool_set_is_a_type_error_with_a_code() {
    for spec in [r#"{"tools":["a b"],"params":[]}"#, r#"{"tools":"read_file"}"#, "42"] {
        let error =
            AssistantMessageParser::new(Some(js_sys::JSON::parse(spec).unwrap().unchecked_into())).err().unwrap();
        assert!(error.is_instance_of::<js_sys::TypeError>(), "{spec}");
        let code = Reflect::get(&error, &"code".into()).unwrap().as_string().unwrap();
        assert!(code == "CLEW_INVALID_TOOL_SET" || code == "CLEW_INVALID_ARGUMENT", "{spec}: {code}");
    }
}
mod streams;
mod task;
