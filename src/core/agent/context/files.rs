//! The files a summary needs (CONTEXT §4.2-4): the paths its "required files" section lists,
//! and which of the files the host read are kept.

/// At most this many paths are taken from a summary's required files.
pub(crate) const MAX_REQUIRED_PATHS: usize = 10;
/// At most this many of the files read after a summary are kept.
pub(crate) const MAX_KEPT_FILES: usize = 8;
/// At most this many characters of file content are kept after a summary, in all.
pub(crate) const MAX_KEPT_CHARS: usize = 100_000;
/// Ends the content of the file cut at [`MAX_KEPT_CHARS`]. NOTE: ASCII, so its length in
/// bytes is its length in characters.
pub(super) const CUT_NOTE: &str = "\n[... cut: read the file for the rest]";

/// The paths listed under a summary's "required files" section (§4.2-4), found by its
/// title in any case and with any number or heading marks ("9. Required Files:",
/// "## 8. Required files", "9. **Required Files**:"); the section ends at the next heading,
/// or numbered line that is not a path. List markers, backticks and quotes are stripped,
/// "none"-like lines skipped; at most [`MAX_REQUIRED_PATHS`], no duplicates. A numbered
/// item that is a bare word ("1. Makefile") reads as the next section's title.
///
/// NOTE: written over bytes (every mark it strips is ASCII, so every cut falls between
/// characters): the `str` pattern searchers it would otherwise use cost about 4 KB of wasm.
pub(crate) fn required_files(summary: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let mut lines = pieces(summary, b'\n');
    let Some(after_title) = lines.by_ref().find_map(section_title_rest) else {
        return paths;
    };
    add_paths(after_title, &mut paths);
    for line in lines {
        if paths.len() >= MAX_REQUIRED_PATHS || ends_section(line) {
            break;
        }
        add_paths(list_item(trim(line, b"")), &mut paths);
    }
    paths
}

/// The pieces of `text` between its ASCII bytes `byte`.
fn pieces(text: &str, byte: u8) -> impl Iterator<Item = &str> {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let text = rest?;
        let (piece, after) = crate::core::text::split_once_byte(text, byte).map_or((text, None), |(a, b)| (a, Some(b)));
        rest = after;
        Some(piece)
    })
}

/// `text` without the white space and the `marks` at either end.
pub(super) fn trim<'a>(text: &'a str, marks: &[u8]) -> &'a str {
    trim_end(trim_start(text, marks), marks)
}

/// `text` without the white space and the `marks` it starts with.
pub(super) fn trim_start<'a>(text: &'a str, marks: &[u8]) -> &'a str {
    let skip = text.bytes().take_while(|b| b.is_ascii_whitespace() || marks.contains(b)).count();
    text.get(skip..).unwrap_or_default()
}

/// `text` without the white space and the `marks` it ends with.
fn trim_end<'a>(text: &'a str, marks: &[u8]) -> &'a str {
    let drop = text.bytes().rev().take_while(|b| b.is_ascii_whitespace() || marks.contains(b)).count();
    text.get(..text.len() - drop).unwrap_or_default()
}

/// The number of ASCII digits `text` starts with.
pub(super) fn digit_count(text: &str) -> usize {
    text.bytes().take_while(u8::is_ascii_digit).count()
}

/// What follows the first `:` of a "required files" title line, or `None` if `line` is not one.
fn section_title_rest(line: &str) -> Option<&str> {
    const TITLE: &str = "required file";
    let text = trim_start(line, b"#*_");
    let text = trim_start(numbered(text).unwrap_or(text), b"*_");
    if !text.get(..TITLE.len())?.eq_ignore_ascii_case(TITLE) {
        return None;
    }
    let rest = text.get(TITLE.len()..)?;
    let rest = trim_start(rest.strip_prefix('s').or_else(|| rest.strip_prefix('S')).unwrap_or(rest), b"*_");
    match rest.bytes().next() {
        None => Some(""),
        Some(b':' | b'(') => Some(crate::core::text::split_once_byte(rest, b':').map_or("", |(_, items)| items)),
        Some(_) => None,
    }
}

/// The text after a leading `N.` or `N)` (one or two digits) and white space.
fn numbered(text: &str) -> Option<&str> {
    let digits = digit_count(text);
    let rest = text.get(digits..)?;
    let rest = rest.strip_prefix('.').or_else(|| rest.strip_prefix(')'))?;
    let spaced = rest.bytes().next().map_or(true, |b| matches!(b, b' ' | b'\t' | b'*'));
    ((1..=2).contains(&digits) && spaced).then(|| trim_start(rest, b""))
}

/// `text` without a leading list marker (`-`, `*`, `+`, `•`, `N.`, `N)`).
fn list_item(text: &str) -> &str {
    let marker = match text.bytes().next() {
        Some(b'-' | b'*' | b'+') => 1,
        _ if text.starts_with('•') => '•'.len_utf8(),
        _ => 0,
    };
    if marker > 0 {
        let rest = text.get(marker..).unwrap_or_default();
        if rest.bytes().next().map_or(true, |b| b == b' ' || b == b'\t') {
            return trim_start(rest, b"");
        }
    }
    numbered(text).unwrap_or(text)
}

/// Whether `line` starts the next section: a heading, or a numbered line or bold line whose
/// first word is not a path.
fn ends_section(line: &str) -> bool {
    let text = trim(line, b"");
    if text.starts_with('#') {
        return true;
    }
    let bold = text.strip_prefix("**").map(|t| trim_start(t, b"*"));
    let Some(item) = numbered(bold.unwrap_or(text)).or(bold) else {
        return false;
    };
    path_in(item).is_none()
}

/// Adds the paths in `text` (separated by commas) to `paths`, up to the limit.
fn add_paths(text: &str, paths: &mut Vec<String>) {
    for piece in pieces(text, b',') {
        let Some(path) = path_in(piece) else { continue };
        let none = ["none", "n/a", "nothing", "-"].iter().any(|n| path.eq_ignore_ascii_case(n));
        if !none && paths.len() < MAX_REQUIRED_PATHS && !paths.iter().any(|p| p == path) {
            paths.push(path.to_owned());
        }
    }
}

/// The path `piece` names: what backticks or quotes enclose, else its first word when that
/// looks like a path (has `/`, `\` or `.`) or is all there is. `None` for prose.
fn path_in(piece: &str) -> Option<&str> {
    let text = trim_start(piece, b"*(");
    let path = match text.bytes().next() {
        Some(quote @ (b'`' | b'"' | b'\'')) => {
            let inner = text.get(1..)?;
            crate::core::text::split_once_byte(inner, quote).map_or(inner, |(path, _)| path)
        }
        _ => {
            let end = text.bytes().position(|b| b.is_ascii_whitespace()).unwrap_or(text.len());
            let word = text.get(..end)?;
            let alone = end == trim_end(text, b"*)").len();
            if !alone && !word.bytes().any(|b| matches!(b, b'/' | b'\\' | b'.')) {
                return None;
            }
            word
        }
    };
    let path = trim_end(trim(path, b"*`\"':;()"), b".");
    (!path.is_empty()).then_some(path)
}

/// The files kept after a summary: the first [`MAX_KEPT_FILES`] entries, with at most
/// [`MAX_KEPT_CHARS`] characters of content in all. The file that crosses the total is cut
/// at a character boundary and ends with a note saying so (the note counts toward the
/// total); if not even the note fits, it is dropped. Files after it are dropped.
pub(crate) fn keep_files(entries: Vec<(String, String)>) -> Vec<(String, String)> {
    let mut left = MAX_KEPT_CHARS;
    let mut kept = Vec::new();
    for (path, mut content) in entries.into_iter().take(MAX_KEPT_FILES) {
        let count = content.chars().count();
        if count <= left {
            left -= count;
            kept.push((path, content));
            continue;
        }
        if let Some((cut, _)) = left.checked_sub(CUT_NOTE.len()).and_then(|n| content.char_indices().nth(n)) {
            content.truncate(cut);
            content.push_str(CUT_NOTE);
            kept.push((path, content));
        }
        break;
    }
    kept
}
