//! The numbers that cross the seam between the wasm and its JavaScript glue, named alike on
//! both sides (as the state words are held to the TypeScript unions in tests/agent).
#![allow(clippy::expect_used, clippy::indexing_slicing, clippy::string_slice)]

/// The `Name = number` pairs of the enum `name` in a Rust source, names in SCREAMING_SNAKE.
fn rust_enum(source: &str, name: &str) -> Vec<(String, u32)> {
    let start = source.find(&format!("enum {name} {{")).expect(name);
    let body = &source[start..start + source[start..].find('}').expect("the enum's end")];
    body.lines()
        .map(str::trim)
        .filter(|line| !line.starts_with("//"))
        .filter_map(|line| line.trim_end_matches(',').split_once(" = "))
        .map(|(variant, number)| (screaming_snake(variant), number.parse().expect(number)))
        .collect()
}

/// `WholeToolCall` as `WHOLE_TOOL_CALL`.
fn screaming_snake(camel: &str) -> String {
    let mut out = String::new();
    for (i, c) in camel.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_uppercase());
    }
    out
}

/// The `NAME = number` pairs of the one `const` line that starts with `const {first} =`.
fn js_consts(source: &str, first: &str) -> Vec<(String, u32)> {
    let line = source.lines().find(|l| l.starts_with(&format!("const {first} = "))).expect(first);
    line.trim_start_matches("const ")
        .trim_end_matches(';')
        .split(", ")
        .map(|pair| pair.split_once(" = ").expect(pair))
        .map(|(name, number)| (name.to_owned(), number.parse().expect(number)))
        .collect()
}

fn read(path: &str) -> String {
    std::fs::read_to_string(format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))).expect(path)
}

#[test]
fn the_chunk_kinds_have_the_same_names_and_numbers_in_rust_and_javascript() {
    let rust = rust_enum(&read("src/wasm/stream.rs"), "ChunkKind");
    let js = js_consts(&read("js/boundary/chunks.js"), "TEXT");
    assert_eq!(rust.len(), 8, "{rust:?}");
    assert_eq!(rust, js);
}

#[test]
fn every_chunk_kind_has_its_case_in_the_javascript_builder() {
    let js = read("js/boundary/chunks.js");
    for (name, _) in js_consts(&js, "TEXT") {
        assert!(js.contains(&format!("case {name}:")), "clew_chunk has no case for {name}");
    }
}
