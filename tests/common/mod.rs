#![allow(dead_code, clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]

// Shared by the native and wasm test binaries through `include!`: loads the conformance
// vectors (made by running the reference parser) and compares blocks to them.

use clew_codec::parser::Block;
use serde_json::Value;
use std::collections::BTreeMap;

/// One line of `fixtures/parse-v2.jsonl`.
pub(crate) struct Vector {
    pub(crate) id: String,
    pub(crate) input: String,
    pub(crate) blocks: Vec<Block>,
}

pub(crate) const PARSE_V2_JSONL: &str = include_str!("../fixtures/parse-v2.jsonl");

pub(crate) fn vectors() -> Vec<Vector> {
    PARSE_V2_JSONL
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let value: Value = serde_json::from_str(line).unwrap();
            Vector {
                id: value["id"].as_str().unwrap().to_owned(),
                input: value["input"].as_str().unwrap().to_owned(),
                blocks: value["blocks"].as_array().unwrap().iter().map(block_from_json).collect(),
            }
        })
        .collect()
}

/// Only the whole messages (ids without `@K`), for the split-everywhere tests.
pub(crate) fn whole_messages() -> Vec<Vector> {
    vectors().into_iter().filter(|v| !v.id.contains('@')).collect()
}

pub(crate) fn block_from_json(value: &Value) -> Block {
    let partial = value["partial"].as_bool().unwrap();
    match value["type"].as_str().unwrap() {
        "text" => Block::Text { content: value["content"].as_str().unwrap().to_owned(), partial },
        "tool_use" => {
            assert_eq!(value["isNativeToolCall"], Value::Bool(false));
            Block::ToolUse {
                name: value["name"].as_str().unwrap().to_owned(),
                params: value["params"]
                    .as_object()
                    .unwrap()
                    .iter()
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_owned()))
                    .collect(),
                partial,
            }
        }
        other => panic!("unknown block type {other}"),
    }
}

/// Blocks with params sorted by name: the vectors compare params as a map.
pub(crate) fn normalized(blocks: &[Block]) -> Vec<Block> {
    blocks
        .iter()
        .map(|block| match block {
            Block::ToolUse { name, params, partial } => Block::ToolUse {
                name: name.clone(),
                params: params.iter().cloned().collect::<BTreeMap<_, _>>().into_iter().collect(),
                partial: *partial,
            },
            text => text.clone(),
        })
        .collect()
}
