//! Expectations from PyYAML 6.0.4 with OmegaConf 2.3.1's loader and
//! `OmegaConf.to_yaml` (the versions Hydra 1.3.2 runs with).

use super::*;
use crate::random::splitmix64;

#[test]
fn plain_scalars_take_pyyaml_and_omegaconf_types() {
    use Value::{Bool, Float, Int, Null};
    let s = |t: &str| Value::Str(t.into());
    let cases: Vec<(&str, Value)> = vec![
        ("off", Bool(false)),
        ("On", Bool(true)),
        ("yes", Bool(true)),
        ("y", s("y")),
        ("True", Bool(true)),
        ("tRue", s("tRue")),
        ("null", Null),
        ("~", Null),
        ("", Null),
        ("0", Int(0)),
        ("00", Int(0)),
        ("0755", Int(493)),
        ("08", s("08")),
        ("0x1F", Int(31)),
        ("0b101", Int(5)),
        ("1_000", Int(1000)),
        ("1:30", Int(90)),
        ("190:20:30", Int(685230)),
        ("1:70", s("1:70")),
        ("-1", Int(-1)),
        ("+5", Int(5)),
        ("1.5", Float(1.5)),
        ("1.", Float(1.0)),
        ("-.5", s("-.5")),
        (".5", Float(0.5)),
        ("1e5", Float(1e5)),
        ("1E+5", Float(1e5)),
        ("1.0e-5", Float(1e-5)),
        ("-1e-3", Float(-1e-3)),
        ("1_0.5", Float(10.5)),
        (".inf", Float(f64::INFINITY)),
        ("-.Inf", Float(f64::NEG_INFINITY)),
        ("nan", s("nan")),
        ("inf", s("inf")),
        ("12:30.5", Float(750.5)),
        ("1:2:3.5", Float(3723.5)),
        ("0.1_2", Float(0.12)),
        ("0o17", s("0o17")),
        ("+.5", s("+.5")),
        ("1e", s("1e")),
        ("e5", s("e5")),
        ("2828486", Int(2828486)),
        ("114660.07", Float(114660.07)),
    ];
    for (text, want) in cases {
        assert_eq!(resolve(text), want, "{text:?}");
    }
    assert!(matches!(resolve(".NaN"), Float(x) if x.is_nan()));
}

#[test]
fn quoted_and_tagged_scalars() {
    let v = load("a: 'off'\nb: \"12\"\nc: !!str 5\nd: !!float 3\ne: |\n  x\n").expect("yaml");
    let m = v.as_map().expect("map");
    assert_eq!(m.get("a"), Some(&Value::Str("off".into())));
    assert_eq!(m.get("b"), Some(&Value::Str("12".into())));
    assert_eq!(m.get("c"), Some(&Value::Str("5".into())));
    assert_eq!(m.get("d"), Some(&Value::Float(3.0)));
    assert_eq!(m.get("e"), Some(&Value::Str("x\n".into())));
    assert!(load("a: !!int x").unwrap_err().contains("not a !!int"));
    assert!(load("a: !foo x").unwrap_err().contains("not supported"));
}

#[test]
fn duplicate_keys_and_second_documents_are_refused() {
    assert!(load("a: 1\na: 2\n")
        .unwrap_err()
        .contains("duplicate key 'a'"));
    assert!(load("a: 1\n---\nb: 2\n")
        .unwrap_err()
        .contains("second YAML document"));
    assert!(load("a: [1\n").is_err());
}

#[test]
fn anchors_and_empty_documents() {
    let v = load("a: &x {b: 1}\nc: *x\n").expect("yaml");
    let m = v.as_map().expect("map");
    assert_eq!(m.get("a"), m.get("c"));
    assert_eq!(load("").expect("empty"), Value::Map(Map::default()));
    assert_eq!(
        load("# only a comment\n").expect("comment"),
        Value::Map(Map::default())
    );
}

/// The map `dumpvec.py` built (see the expected file's keys).
fn dump_input() -> Map {
    let strs = [
        "plain",
        "y",
        "N",
        "off",
        "123",
        "1.5",
        "1e5",
        "nan",
        "inf",
        "Infinity",
        "1_000",
        "08",
        "0x1F",
        "",
        " lead",
        "trail ",
        "a: b",
        "a:b",
        "end:",
        "#x",
        "a #b",
        "a#b",
        "-x",
        "- x",
        "-",
        "?x",
        ": x",
        "[x",
        "x]",
        "{x}",
        "a,b",
        "@x",
        "%x",
        "`x",
        "'q'",
        "\"d\"",
        "it's",
        "---x",
        "...x",
        "/data/unet3d",
        "./hydra_log/x",
        "null",
        "~",
        "2025-01-01",
        "12:30",
        "tab\tx",
        "line\nnext",
        "ünï",
    ];
    let mut m = Map::default();
    for (i, s) in strs.iter().enumerate() {
        if i != 46 {
            m.insert(&format!("s{i}"), Value::Str(s.to_string()));
        }
    }
    let floats = [0.9, 1e-05, 1e16, 114660.07, 0.00551, -0.0, 1e300, 2.5e-7];
    for (i, x) in floats.iter().enumerate() {
        m.insert(&format!("f{}", i + 1), Value::Float(*x));
    }
    m.insert("i", Value::Int(-3));
    m.insert("b", Value::Bool(true));
    m.insert("z", Value::Null);
    let mut inner = Map::default();
    inner.insert("k", Value::Int(1));
    inner.insert("j", Value::List(vec![Value::Int(1)]));
    m.insert(
        "l",
        Value::List(vec![
            Value::Int(1),
            Value::Str("a".into()),
            Value::List(vec![Value::Int(2), Value::Int(3)]),
            Value::Map(inner),
        ]),
    );
    m.insert("e", Value::List(vec![]));
    m.insert("m", Value::Map(Map::default()));
    let mut b = Map::default();
    b.insert("b", Value::Int(1));
    let mut a = Map::default();
    a.insert("a", Value::Map(b));
    m.insert("nested", Value::Map(a));
    m
}

#[test]
fn dumps_as_omegaconf_does() {
    let want = include_str!("dump_expected.yaml");
    assert_eq!(dump(&dump_input()), want);
}

#[test]
fn what_is_dumped_loads_back_the_same() {
    let input = dump_input();
    assert_eq!(load(&dump(&input)).expect("reload"), Value::Map(input));
}

/// Seeded fuzz: strings of YAML's awkward characters survive a dump and a
/// load; random texts never panic the loader.
#[test]
fn fuzzed_strings_round_trip_and_texts_never_panic() {
    let alphabet: Vec<char> = "ab01 -_.:#,[]{}&*!|>'\"%@`?~+eEyYnN\t/\\=$xü"
        .chars()
        .collect();
    let mut state = 0x5eed_u64;
    let mut next = || {
        state = splitmix64(state);
        state
    };
    for _ in 0..3000 {
        let len = (next() % 12) as usize;
        let s: String = (0..len)
            .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
            .collect();
        let mut m = Map::default();
        m.insert("k", Value::Str(s.clone()));
        let text = dump(&m);
        let back = load(&text).unwrap_or_else(|e| panic!("{s:?} dumped as {text:?}: {e}"));
        assert_eq!(back, Value::Map(m), "{s:?} dumped as {text:?}");
        // The same characters as a document: any outcome but a panic.
        let _ = load(&s);
        let _ = load(&format!("k: {s}\n  - {s}\n"));
    }
}
