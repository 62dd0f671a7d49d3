//! Property tests: the incremental parser equals a full reparse at every split, and no input
//! of any kind panics.

#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

#[path = "../../../tests/common/mod.rs"]
mod common;

use clew_codec::parser::{parse_assistant_message, IncrementalParser, ToolSet};
use proptest::prelude::*;

/// Pieces that exercise every state of the scanner: tool and param tags (whole, split and
/// misspelled), write_to_file's content tags, unicode, JS-only whitespace, and junk.
const FRAGMENTS: &[&str] = &[
    "<read_file>",
    "</read_file>",
    "<write_to_file>",
    "</write_to_file>",
    "<content>",
    "</content>",
    "<path>",
    "</path>",
    "<command>",
    "</command>",
    "<execute_command>",
    "</execute_command>",
    "<attempt_completion>",
    "</attempt_completion>",
    "<result>",
    "</result>",
    "<thinking>",
    "</thinking>",
    "<read_fi",
    "le>",
    "</pa",
    "th>",
    "<",
    ">",
    "/",
    "</",
    "<<",
    ">>",
    "< path>",
    "<READ_FILE>",
    "<br/>",
    " ",
    "\n",
    "\r\n",
    "\t",
    "\u{A0}",
    "\u{3000}",
    "\u{FEFF}",
    "\u{85}",
    "\u{2028}",
    "é",
    "中文",
    "🦀",
    "x",
    "hello world",
    "a.md",
    "-> =>",
    "```xml\n",
    "```",
];

fn message() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(FRAGMENTS), 0..40).prop_map(|parts| parts.concat())
}

/// Cut points (byte offsets, any of them, also inside characters).
fn cuts(len: usize) -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(0..=len, 0..12).prop_map(|mut cuts| {
        cuts.sort_unstable();
        cuts
    })
}

fn check_every_push(text: &str, cuts: &[usize]) {
    let tools = ToolSet::reference();
    let bytes = text.as_bytes();
    let mut parser = IncrementalParser::new(tools.clone());
    let mut at = 0;
    for &cut in cuts.iter().chain(std::iter::once(&bytes.len())) {
        let before = parser.to_blocks();
        let first_changed = parser.push_bytes(&bytes[at..cut]);
        at = cut;
        // Whatever was decoded so far (an unfinished character waits) parses the same whole.
        let decoded = parser.text().to_owned();
        let expected = parse_assistant_message(&decoded, &tools);
        let now = parser.to_blocks();
        assert_eq!(now, expected, "text {decoded:?}");
        // Blocks before the reported index did not change, and the count never decreases.
        assert!(now.len() >= before.len());
        assert!(first_changed <= now.len());
        assert_eq!(now[..first_changed.min(before.len())], before[..first_changed.min(before.len())]);
        if first_changed == now.len() {
            assert_eq!(now, before, "no change was reported");
        }
    }
    parser.finish_bytes();
    assert_eq!(parser.text(), text);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn incremental_equals_full_reparse_at_every_split(text in message(), cuts in cuts(400)) {
        let cuts: Vec<usize> = cuts.into_iter().filter(|&c| c <= text.len()).collect();
        check_every_push(&text, &cuts);
    }

    #[test]
    fn arbitrary_bytes_never_panic_and_match_lossy_decoding(bytes in prop::collection::vec(any::<u8>(), 0..300), cuts in cuts(300)) {
        let tools = ToolSet::reference();
        let mut parser = IncrementalParser::new(tools.clone());
        let mut at = 0;
        for &cut in cuts.iter().filter(|&&c| c <= bytes.len()).chain(std::iter::once(&bytes.len())) {
            parser.push_bytes(&bytes[at..cut]);
            at = cut;
        }
        parser.finish_bytes();
        let lossy = String::from_utf8_lossy(&bytes);
        prop_assert_eq!(parser.text(), &*lossy);
        prop_assert_eq!(parser.to_blocks(), parse_assistant_message(&lossy, &tools));
    }

    #[test]
    fn arbitrary_strings_never_panic(text in any::<String>(), cut in any::<prop::sample::Index>()) {
        let mut parser = IncrementalParser::default();
        let mut cut = cut.index(text.len() + 1);
        while !text.is_char_boundary(cut) { cut -= 1; }
        parser.push(&text[..cut]);
        parser.push(&text[cut..]);
        prop_assert_eq!(parser.to_blocks(), parse_assistant_message(&text, &ToolSet::reference()));
    }

    #[test]
    fn custom_tool_sets_stream_like_full_parses(text in message(), cuts in cuts(400)) {
        let tools = ToolSet::from_names(["read_file", "content"], ["path", "content", "read_file"]).unwrap();
        let mut parser = IncrementalParser::new(tools.clone());
        let mut at = 0;
        for &cut in cuts.iter().filter(|&&c| c <= text.len()).chain(std::iter::once(&text.len())) {
            parser.push_bytes(&text.as_bytes()[at..cut]);
            at = cut;
            prop_assert_eq!(parser.to_blocks(), parse_assistant_message(parser.text(), &tools));
        }
    }
}

#[test]
fn every_vector_at_random_splits_equals_full_reparse() {
    // Seeded so a failure can be replayed: CLEW_SPLIT_SEED=<n> cargo test.
    let mut seed: u64 = std::env::var("CLEW_SPLIT_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x5eed);
    for v in common::whole_messages() {
        let len = v.input.len();
        let mut cuts: Vec<usize> = (0..8)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                (seed % (len as u64 + 1)) as usize
            })
            .collect();
        cuts.sort_unstable();
        check_every_push(&v.input, &cuts);
    }
}
