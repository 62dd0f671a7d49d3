//! The reader and writer held to serde_json: same values accepted, same text out.

use proptest::prelude::*;

use super::*;

#[allow(clippy::unwrap_used, clippy::panic)]
fn same_as_serde(text: &str) {
    let ours = Json::parse(text);
    let theirs = serde_json::from_str::<serde_json::Value>(text);
    match (&ours, &theirs) {
        (Ok(a), Ok(b)) => {
            let back: serde_json::Value = serde_json::from_str(&a.to_string()).unwrap();
            assert_eq!(&back, b, "{text:?}");
        }
        (Err(_), Err(_)) => {}
        _ => panic!("{text:?}: ours {ours:?}, serde_json {theirs:?}"),
    }
}

#[test]
fn reads_what_serde_json_reads() {
    for text in [
        "null",
        "true",
        " false ",
        "0",
        "-0",
        "12",
        "-3.5e-2",
        "1E+3",
        r#""a\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00""#,
        "[]",
        "[1,[2,[3]]]",
        "{}",
        r#"{"a":{"b":[null,true]},"c":"d"}"#,
        "[1,]",
        "{,}",
        "01",
        "1.",
        ".5",
        "-",
        "1e",
        "tru",
        r#""\x""#,
        "\"a\nb\"",
        "[1 2]",
        r#"{"a" 1}"#,
        r#"{"a":1,}"#,
        "\"abc",
        "[",
        "{\"a\":",
        "1 2",
        "\u{feff}1",
        "// c\n1",
        "NaN",
        "[-]",
    ] {
        same_as_serde(text);
    }
}

#[test]
fn lone_surrogate_escapes_become_replacement_characters() {
    assert_eq!(Json::parse(r#""\ud800x""#).unwrap(), Json::from("\u{FFFD}x"));
    assert_eq!(Json::parse(r#""\udc00\ud800\u0041""#).unwrap(), Json::from("\u{FFFD}\u{FFFD}A"));
}

#[test]
fn nesting_deeper_than_the_limit_is_an_error_not_a_crash() {
    let deep = "[".repeat(100_000);
    assert_eq!(Json::parse(&deep).unwrap_err().reason, "nested too deeply");
    let ok = format!("{}{}", "[".repeat(MAX_DEPTH as usize), "]".repeat(MAX_DEPTH as usize));
    assert!(Json::parse(&ok).is_ok());
}

#[test]
fn integers_convert_exactly_and_saturate() {
    let n = |t: &str| Number::parse(t).unwrap();
    assert_eq!(n("9007199254740993").as_u64(), Some(9_007_199_254_740_993));
    assert_eq!(n("99999999999999999999999").as_u64(), Some(u64::MAX));
    assert_eq!(n("1e3").as_u64(), Some(1000));
    assert_eq!(n("1.5").as_u64(), None);
    assert_eq!(n("-1").as_u64(), None);
    assert_eq!(n("1e400").as_u64(), Some(u64::MAX));
    assert!(Number::parse("1.").is_none());
}

#[test]
fn floats_read_like_the_standard_library() {
    for text in
        ["0.1", "3.14159", "1e-7", "123456.789", "-2.5e10", "0.000123", "1e22", "1e-300", "1.7976931348623157e308"]
    {
        let ours = Number::parse(text).unwrap().as_f64();
        let std: f64 = text.parse().unwrap();
        assert!((ours - std).abs() <= std.abs() * 1e-14, "{text}: {ours} vs {std}");
    }
    assert_eq!(Number::parse("1e400").unwrap().as_f64(), f64::INFINITY);
}

#[test]
fn floats_are_written_with_at_most_twelve_decimals() {
    let w = |x: f64| Number::from_f64(x).map(|n| n.as_str().to_owned());
    assert_eq!(w(0.7).as_deref(), Some("0.7"));
    assert_eq!(w(0.1 + 0.2).as_deref(), Some("0.3"));
    assert_eq!(w(-12.0).as_deref(), Some("-12"));
    assert_eq!(w(0.0030000000000000005).as_deref(), Some("0.003"));
    assert_eq!(w(1e-13).as_deref(), Some("0"));
    assert_eq!(w(f64::NAN), None);
    assert_eq!(w(1e300).map(|s| s.len() > 10), Some(true));
}

fn arb_json() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::Bool),
        any::<u64>().prop_map(serde_json::Value::from),
        any::<i64>().prop_map(serde_json::Value::from),
        any::<String>().prop_map(serde_json::Value::String),
        "[a-z\"\\\\\u{0}-\u{1f}é😀]{0,8}".prop_map(serde_json::Value::String),
    ];
    leaf.prop_recursive(4, 40, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(serde_json::Value::Array),
            prop::collection::vec(("[a-z\"\\\\]{0,4}", inner), 0..6)
                .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #[test]
    fn any_value_round_trips_and_writes_like_serde_json(value in arb_json()) {
        let text = serde_json::to_string(&value).unwrap();
        let ours = Json::parse(&text).unwrap();
        prop_assert_eq!(ours.to_string(), text);
    }

    #[test]
    fn any_string_is_escaped_as_serde_json_escapes_it(text in "(\\PC|[\u{0}-\u{1f}\"\\\\]){0,40}") {
        let mut ours = String::new();
        write_string(&mut ours, &text);
        prop_assert_eq!(ours, serde_json::to_string(&text).unwrap());
    }

    #[test]
    fn long_runs_with_sparse_escapes_are_escaped_as_serde_json_escapes_them(
        text in "([a-zé ]{0,19}[\u{0}-\u{1f}\"\\\\]{0,3}){0,12}"
    ) {
        let mut ours = String::new();
        write_string(&mut ours, &text);
        prop_assert_eq!(ours, serde_json::to_string(&text).unwrap());
    }

    #[test]
    fn any_whole_number_is_written_as_its_decimal_digits(value in any::<u64>(), comma in any::<bool>()) {
        let mut ours = String::from("{");
        write_key(&mut ours, comma, "n");
        write_u64(&mut ours, value);
        let comma = if comma { "," } else { "" };
        prop_assert_eq!(ours, format!("{{{comma}\"n\":{value}"));
    }

    #[test]
    fn pretty_text_reads_the_same(value in arb_json()) {
        let pretty = serde_json::to_string_pretty(&value).unwrap();
        prop_assert_eq!(Json::parse(&pretty).unwrap().to_string(), serde_json::to_string(&value).unwrap());
    }

    #[test]
    fn arbitrary_text_is_accepted_exactly_when_serde_json_accepts_it(text in "[\\[\\]{}\",:0-9a-z\\\\. \\-eE+]{0,24}") {
        let ours = Json::parse(&text).is_ok();
        let theirs = serde_json::from_str::<serde_json::Value>(&text).is_ok();
        prop_assert_eq!(ours, theirs, "{:?}", text);
    }

    #[test]
    fn any_normal_float_text_reads_within_1e_14(x in any::<f64>().prop_filter("normal", |x| x.is_normal())) {
        let text = format!("{x:e}");
        let ours = Number::parse(&text).unwrap().as_f64();
        prop_assert!((ours - x).abs() <= x.abs() * 1e-14, "{} {} {}", text, ours, x);
    }
}

#[test]
fn compact_reading_has_no_depth_limit_and_writes_like_json_stringify() {
    let compact = |text: &str| {
        let mut reader = Reader::new(text);
        let mut out = String::new();
        reader.compact_value(&mut out).and_then(|()| reader.end()).map(|()| out)
    };
    let deep = format!("{}1{}", "[".repeat(100_000), "]".repeat(100_000));
    assert_eq!(compact(&deep).unwrap(), deep);
    assert_eq!(
        compact(r#" { "a" : [ 1 , "\u0041\/" , { } , [ ] ] , "b" : null } "#).unwrap(),
        r#"{"a":[1,"A/",{},[]],"b":null}"#
    );
    for bad in ["[1,]", "{\"a\" 1}", "[", "{\"a\":1,}", "[1 2]", "{,}"] {
        assert!(compact(bad).is_err(), "{bad}");
    }
}

proptest! {
    #[test]
    fn compact_reading_equals_parse_then_write(value in arb_json()) {
        let pretty = serde_json::to_string_pretty(&value).unwrap();
        let mut reader = Reader::new(&pretty);
        let mut out = String::new();
        reader.compact_value(&mut out).unwrap();
        prop_assert_eq!(out, Json::parse(&pretty).unwrap().to_string());
    }
}

#[test]
fn whole_numbers_at_the_edges_are_written_as_their_digits() {
    for value in [0, 9, 10, 99, 100, 1_796_182_937_574, u64::MAX] {
        let mut out = String::new();
        write_u64(&mut out, value);
        assert_eq!(out, value.to_string());
    }
}
