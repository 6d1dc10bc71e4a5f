//! Expectations from Hydra 1.3.2's override parser.

use super::*;
use crate::random::splitmix64;

fn value_of(arg: &str) -> Value {
    parse(arg).expect(arg).value.expect("a value")
}

#[test]
fn values_are_typed_as_hydra_types_them() {
    use Value::{Bool, Float, Int, Null};
    let s = |t: &str| Value::Str(t.into());
    let cases = [
        ("a=1", Int(1)),
        ("a=-1", Int(-1)),
        ("a=+5", Int(5)),
        ("a=0", Int(0)),
        ("a=0123", s("0123")),
        ("a=1_000", Int(1000)),
        ("a=1__0", s("1__0")),
        ("a=1.5", Float(1.5)),
        ("a=1.", Float(1.0)),
        ("a=.5", Float(0.5)),
        ("a=1e5", Float(1e5)),
        ("a=1E-3", Float(1e-3)),
        ("a=inf", Float(f64::INFINITY)),
        ("a=-INF", Float(f64::NEG_INFINITY)),
        ("a=True", Bool(true)),
        ("a=FALSE", Bool(false)),
        ("a=null", Null),
        ("a=NULL", Null),
        ("a=", s("")),
        ("a= x y ", s("x y")),
        ("a=/data/unet3d", s("/data/unet3d")),
        ("a=20250101_120000", Int(20250101120000)),
        ("a=1a", s("1a")),
        ("a='off'", s("off")),
        ("a=\"q\\\"x\"", s("q\"x")),
        ("a=${b.c}", s("${b.c}")),
        ("a=x:y", s("x:y")),
        ("a=off", s("off")),
        ("a=foo@bar", s("foo@bar")),
        ("a=\\,x", s(",x")),
    ];
    for (arg, want) in cases {
        assert_eq!(value_of(arg), want, "{arg}");
    }
    assert!(matches!(value_of("a=nan"), Float(x) if x.is_nan()));
}

#[test]
fn lists_and_dicts() {
    let list = value_of("a=[a, 'b', [3]]");
    assert_eq!(
        list,
        Value::List(vec![
            Value::Str("a".into()),
            Value::Str("b".into()),
            Value::List(vec![Value::Int(3)])
        ])
    );
    let dict = value_of("a={x: 1, y: [2]}");
    let mut want = Map::default();
    want.insert("x", Value::Int(1));
    want.insert("y", Value::List(vec![Value::Int(2)]));
    assert_eq!(dict, Value::Map(want));
    assert_eq!(value_of("a=[]"), Value::List(vec![]));
}

#[test]
fn actions_and_keys() {
    let o = parse("++workload.x.y=3").expect("force");
    assert_eq!(
        (o.action, o.dotted()),
        (Action::Force, "workload.x.y".to_string())
    );
    assert_eq!(parse("+a.b=c").expect("add").action, Action::Add);
    let del = parse("~a").expect("delete");
    assert_eq!((del.action, del.value), (Action::Delete, None));
    assert_eq!(parse("~a=3").expect("delete").value, Some(Value::Int(3)));
    assert_eq!(
        parse("workload=unet3d_h100").expect("choice").action,
        Action::Change
    );
}

#[test]
fn what_hydra_refuses_is_refused_in_one_line() {
    for (arg, says) in [
        ("a=1,2", "sweep"),
        ("a=x#y", "not allowed"),
        ("a=f(1)", "not allowed"),
        ("a=x=y", "not allowed"),
        ("a=[1,2", "unclosed list"),
        ("a='x", "unterminated quote"),
        ("noequals", "not an override"),
        ("a..b=1", "not a key"),
        ("=1", "not a key"),
    ] {
        let e = parse(arg).unwrap_err();
        assert!(e.contains(says), "{arg}: {e}");
        assert!(!e.contains('\n'), "{arg}: {e}");
    }
}

/// Seeded fuzz: any argument gives an override or a one-line error.
#[test]
fn fuzzed_arguments_never_panic() {
    let alphabet: Vec<char> = "ab1._-+~=[]{},:'\"\\$ @#()eEnNtT0ü".chars().collect();
    let mut state = 7u64;
    for _ in 0..5000 {
        state = splitmix64(state);
        let len = (state % 16) as usize;
        let arg: String = (0..len)
            .map(|i| {
                let r = splitmix64(state ^ i as u64);
                alphabet[(r % alphabet.len() as u64) as usize]
            })
            .collect();
        if let Err(e) = parse(&arg) {
            assert!(!e.contains('\n'), "{arg:?}: {e}");
        }
    }
}
