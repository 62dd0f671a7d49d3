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

#[cfg(test)]
mod tests {
    use super::*;

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
