//! The full and incremental parsers over random text, tool sets and splits: no panic, and
//! the incremental parser equals a full parse after every push.
#![no_main]

use clew::parser::{parse_assistant_message, IncrementalParser, ToolSet};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&control, rest)) = data.split_first() else { return };
    let text = String::from_utf8_lossy(rest);
    // The first bytes may name a custom tool set: `tools|params|text`.
    let (tools, text) = if control & 1 == 1 {
        let mut parts = text.splitn(3, '|');
        let (t, p, body) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""), parts.next().unwrap_or(""));
        let tools: Vec<&str> = t.split(',').filter(|s| !s.is_empty()).collect();
        let params: Vec<&str> = p.split(',').filter(|s| !s.is_empty()).collect();
        match ToolSet::from_names(&tools, &params) {
            Ok(set) => (set, body.to_owned()),
            Err(_) => return,
        }
    } else {
        (ToolSet::reference(), text.into_owned())
    };
    let whole = parse_assistant_message(&text, &tools);
    let mut parser = IncrementalParser::new(tools.clone());
    let step = usize::from(control >> 1).max(1);
    let mut at = 0;
    while at < text.len() {
        let mut end = (at + step).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        parser.push(&text[at..end]);
        assert_eq!(parser.to_blocks(), parse_assistant_message(&text[..end], &tools), "split at {end}");
        at = end;
    }
    assert_eq!(parser.to_blocks(), whole);
});
