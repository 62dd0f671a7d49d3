//! Conformance: every reference vector, parsed whole and streamed in several ways.

#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

#[path = "../../../tests/common/mod.rs"]
mod common;

use clew_codec::parser::{parse_assistant_message, IncrementalParser, ToolSet};
use common::{normalized, vectors, whole_messages};

#[test]
fn every_vector_parses_like_the_reference() {
    let tools = ToolSet::reference();
    let all = vectors();
    assert_eq!(all.len(), 7005);
    let failures: Vec<&str> = all
        .iter()
        .filter(|v| normalized(&parse_assistant_message(&v.input, &tools)) != normalized(&v.blocks))
        .map(|v| v.id.as_str())
        .collect();
    assert!(failures.is_empty(), "{} vectors differ, first: {:?}", failures.len(), &failures[..failures.len().min(10)]);
}

#[test]
fn every_vector_streamed_char_by_char_ends_like_the_reference() {
    for v in vectors() {
        let mut parser = IncrementalParser::default();
        for c in v.input.chars() {
            parser.push(c.encode_utf8(&mut [0; 4]));
        }
        assert_eq!(normalized(&parser.to_blocks()), normalized(&v.blocks), "{}", v.id);
    }
}

#[test]
fn every_whole_message_equals_a_full_reparse_after_every_byte() {
    let tools = ToolSet::reference();
    for v in whole_messages() {
        let mut parser = IncrementalParser::default();
        for (i, byte) in v.input.bytes().enumerate() {
            parser.push_bytes(&[byte]);
            if v.input.is_char_boundary(i + 1) {
                let prefix = &v.input[..=i];
                assert_eq!(parser.to_blocks(), parse_assistant_message(prefix, &tools), "{} at byte {}", v.id, i + 1);
            }
        }
    }
}

#[test]
fn every_whole_message_split_once_anywhere_equals_the_whole_parse() {
    for v in whole_messages() {
        let bytes = v.input.as_bytes();
        for cut in 0..=bytes.len() {
            let mut parser = IncrementalParser::default();
            parser.push_bytes(&bytes[..cut]);
            parser.push_bytes(&bytes[cut..]);
            assert_eq!(normalized(&parser.to_blocks()), normalized(&v.blocks), "{} cut at {cut}", v.id);
        }
    }
}
