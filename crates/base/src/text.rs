//! Substring search for the few places that look for a fixed word in a text.

/// The byte offset of the first `needle` in `hay` (0 for an empty needle), as `str::find`
/// gives it. A scan from each occurrence of the needle's first byte: the standard library's
/// two-way searcher costs about 3 KB of wasm, and the needles here are short fixed words.
///
/// ```
/// assert_eq!(clew_base::text::find("a <b> c", "<b>"), Some(2));
/// assert_eq!(clew_base::text::find("é<b>", "<b>"), Some(2));
/// assert_eq!(clew_base::text::find("aab", "abc"), None);
/// ```
pub fn find(hay: &str, needle: &str) -> Option<usize> {
    let (hay, needle) = (hay.as_bytes(), needle.as_bytes());
    let Some(&first) = needle.first() else { return Some(0) };
    let mut from = 0;
    while let Some(offset) = memchr::memchr(first, hay.get(from..)?) {
        let at = from + offset;
        if hay.get(at..at + needle.len())? == needle {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// The byte offset of the first ASCII byte `byte` in `hay` (a char boundary, splitting there
/// is safe): `str::find` with a char pattern, without its searcher's code.
pub fn find_byte(hay: &str, byte: u8) -> Option<usize> {
    memchr::memchr(byte, hay.as_bytes())
}

/// The byte offset of the last ASCII byte `byte` in `hay`.
pub fn rfind_byte(hay: &str, byte: u8) -> Option<usize> {
    memchr::memrchr(byte, hay.as_bytes())
}

/// `hay` split around its first ASCII byte `byte`.
pub fn split_once_byte(hay: &str, byte: u8) -> Option<(&str, &str)> {
    let at = find_byte(hay, byte)?;
    Some((hay.get(..at)?, hay.get(at + 1..)?))
}

/// Whether `hay` holds `needle`.
pub fn contains(hay: &str, needle: &str) -> bool {
    find(hay, needle).is_some()
}

/// `text` without the chars at its end for which `drop` holds: `str::trim_end_matches` with a
/// function pointer, so that every caller shares one copy of the code (each closure or char
/// pattern makes a copy of the standard library's).
///
/// ```
/// assert_eq!(clew_base::text::trim_end_by("a,b,,", |c| c == ','), "a,b");
/// ```
pub fn trim_end_by(text: &str, drop: fn(char) -> bool) -> &str {
    let mut end = text.len();
    for (at, c) in text.char_indices().rev() {
        if !drop(c) {
            break;
        }
        end = at;
    }
    text.get(..end).unwrap_or(text)
}

/// `text` without the chars at either end for which `drop` holds (`str::trim_matches` with
/// a function pointer).
///
/// ```
/// assert_eq!(clew_base::text::trim_by("  a b ", |c| c == ' '), "a b");
/// ```
pub fn trim_by(text: &str, drop: fn(char) -> bool) -> &str {
    let text = trim_end_by(text, drop);
    let start = text.char_indices().find(|&(_, c)| !drop(c)).map_or(text.len(), |(at, _)| at);
    text.get(start..).unwrap_or(text)
}

/// The number written by `text`, one or more ASCII digits and nothing else (no sign, no
/// space), or `None` (also when it passes `u64::MAX`): what the wire formats call a decimal
/// count, without the standard library's integer parsers (about 400 B of wasm each).
///
/// ```
/// assert_eq!(clew_base::text::digits("3000"), Some(3000));
/// assert_eq!(clew_base::text::digits("+1"), None);
/// assert_eq!(clew_base::text::digits("18446744073709551616"), None);
/// ```
pub fn digits(text: &str) -> Option<u64> {
    if text.is_empty() {
        return None;
    }
    text.bytes().try_fold(0u64, |n, b| match b {
        b'0'..=b'9' => n.checked_mul(10)?.checked_add(u64::from(b - b'0')),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trim_by_and_trim_end_by_match_the_standard_librarys_trims() {
        let space = |c: char| c == ' ' || c == '\u{a0}';
        for text in ["", " ", "  ", "a", " a ", "\u{a0}é b\u{a0} ", "é", " 🦀 🦀  "] {
            assert_eq!(trim_end_by(text, space), text.trim_end_matches(space), "{text:?}");
            assert_eq!(trim_by(text, space), text.trim_matches(space), "{text:?}");
        }
    }

    #[test]
    fn digits_reads_what_u64_parses_without_a_sign() {
        for text in [
            "0",
            "7",
            "0042",
            "3000",
            "18446744073709551615",
            "18446744073709551616",
            "",
            "+1",
            "-1",
            " 1",
            "1 ",
            "1a",
            "\u{661}",
        ] {
            let expected = text.parse::<u64>().ok().filter(|_| !text.starts_with('+'));
            assert_eq!(digits(text), expected, "{text:?}");
        }
    }

    #[test]
    fn byte_searches_find_what_char_searches_find() {
        for hay in ["", "a:b:c", "é:<x>", "::", "no"] {
            assert_eq!(find_byte(hay, b':'), hay.find(':'));
            assert_eq!(rfind_byte(hay, b':'), hay.rfind(':'));
            assert_eq!(split_once_byte(hay, b':'), hay.split_once(':'));
        }
    }

    #[test]
    fn finds_what_str_find_finds() {
        let hays = ["", "a", "abc", "ababac", "xxé<tag>é<tag>", "rate limit reached", "aaaaab"];
        let needles = ["", "a", "ab", "abac", "<tag>", "é", "limit", "aab", "zzz", "aaaaaab"];
        for hay in hays {
            for needle in needles {
                assert_eq!(find(hay, needle), hay.find(needle), "{hay:?} {needle:?}");
            }
        }
    }
}
