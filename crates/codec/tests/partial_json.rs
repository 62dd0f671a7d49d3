//! Property tests of the partial JSON reader: any object, split anywhere, reads as
//! `JSON.parse` would, and what it shows mid-stream never contradicts the end.

#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use clew_codec::stream::PartialJsonObject;
use proptest::prelude::*;
use serde_json::{Map, Value};

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(Value::from),
        Just(Value::Null),
        "[a-z \"\\\\\n\t/é中🦀\u{1}]{0,12}".prop_map(Value::String),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z]{1,4}", inner, 0..4).prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// JSON text of `object` with random spacing and, where `ascii` is set, non-ASCII escaped
/// as `\uXXXX` (surrogate pairs for astral characters), as some providers send it.
fn encode(object: &Map<String, Value>, spaced: bool, ascii: bool) -> String {
    let mut text =
        if spaced { serde_json::to_string_pretty(object).unwrap() } else { serde_json::to_string(object).unwrap() };
    if ascii {
        text = text
            .chars()
            .map(|c| {
                if c.is_ascii() {
                    c.to_string()
                } else {
                    c.encode_utf16(&mut [0; 2]).iter().map(|u| format!("\\u{u:04x}")).collect()
                }
            })
            .collect();
    }
    text
}

fn expected(object: &Map<String, Value>) -> Vec<(String, String)> {
    object
        .iter()
        .map(|(k, v)| {
            (
                k.clone(),
                match v {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                },
            )
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1500))]

    #[test]
    fn any_object_split_anywhere_reads_like_json_parse(
        object in prop::collection::btree_map("[a-z_]{1,6}", value(), 0..6),
        spaced in any::<bool>(),
        ascii in any::<bool>(),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..8),
    ) {
        let object: Map<String, Value> = object.into_iter().collect();
        let text = encode(&object, spaced, ascii);
        let final_members = expected(&object);
        let mut cuts: Vec<usize> = cuts.iter().map(|i| i.index(text.len() + 1)).filter(|c| text.is_char_boundary(*c)).collect();
        cuts.sort_unstable();
        let mut reader = PartialJsonObject::new();
        let mut at = 0;
        for cut in cuts.into_iter().chain([text.len()]) {
            reader.push(&text[at..cut]);
            at = cut;
            prop_assert!(!reader.is_invalid(), "invalid at {at}: {text}");
            for (key, value) in reader.members() {
                let (_, last) = final_members.iter().find(|(k, _)| k == key).unwrap();
                // A shown value is final, or the start of a string still arriving.
                prop_assert!(last.starts_with(value), "{key}: {value:?} vs {last:?}");
            }
        }
        prop_assert!(reader.is_complete());
        let members: Vec<(String, String)> = reader.members().map(|(k, v)| (k.to_owned(), v.to_owned())).collect();
        prop_assert_eq!(members, final_members);
    }

    #[test]
    fn arbitrary_text_never_panics(text in ".{0,60}", cut in any::<prop::sample::Index>()) {
        let mut cut = cut.index(text.len() + 1);
        while !text.is_char_boundary(cut) { cut -= 1; }
        let mut reader = PartialJsonObject::new();
        reader.push(&text[..cut]);
        reader.push(&text[cut..]);
        let _ = reader.members().count();
    }
}
