//! The partial-JSON reader and the tool-call assembler over random pieces: no panic; a
//! complete object's members agree with a whole parse of the same text.
#![no_main]

use clew::json::Json;
use clew::stream::{PartialJsonObject, ToolCall, ToolCallAssembler, ToolCallFunction};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut object = PartialJsonObject::new();
    let mut assembler = ToolCallAssembler::new();
    for (i, piece) in text.split('\u{1}').enumerate() {
        object.push(piece);
        let id = format!("call_{}", i % 3);
        let call = ToolCall {
            call_id: Some(id.clone()),
            function: ToolCallFunction { id: Some(id), name: Some("t".into()), arguments: Some(piece.to_owned()) },
        };
        assembler.push(&call);
    }
    if object.is_complete() {
        let whole = Json::parse(object.raw()).expect("a complete object parses");
        for (key, value) in object.members() {
            let expected = whole.get(key).expect("member present");
            match expected {
                Json::String(s) => assert_eq!(value, s),
                other => assert_eq!(Json::parse(value).ok().as_ref(), Some(other)),
            }
        }
    }
});
