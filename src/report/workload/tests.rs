use super::*;
use crate::compare::workload::Value;

fn w(settings: &[(&'static str, &str, bool)]) -> Workload {
    let settings = settings
        .iter()
        .map(|(aspect, words, said)| Setting {
            aspect,
            value: Value::Name(words.to_string()),
            words: words.to_string(),
            said: *said,
        })
        .collect();
    Workload {
        tool: "ior",
        settings,
    }
}

#[test]
fn results_are_named_by_what_tells_them_apart() {
    let a = w(&[
        ("transfer", "1 MiB transfers", true),
        ("files", "shared file", true),
        ("API", "POSIX", true),
        ("repetitions", "5", true),
    ]);
    let b = w(&[
        ("transfer", "1 MiB transfers", true),
        ("files", "shared file", true),
        ("API", "AIO", true),
        ("repetitions", "3", true),
    ]);
    let c = w(&[
        ("transfer", "4 KiB transfers", true),
        ("files", "file per process", true),
        ("API", "POSIX", true),
        ("repetitions", "3", true),
    ]);
    let m = w(&[("items", "200 items per task", true)]);
    let named = names(&[
        (Tool::Ior, &a, "x.json"),
        (Tool::Ior, &b, "y.json"),
        (Tool::Ior, &c, "z.json"),
        (Tool::Mdtest, &m, "m.json"),
    ]);
    // The API alone tells b from both; a needs two aspects.
    assert_eq!(
        named,
        [
            "ior 1 MiB transfers, POSIX",
            "ior AIO",
            "ior 4 KiB transfers",
            "mdtest"
        ]
    );
    let named = names(&[
        (Tool::Ior, &a, "before.json"),
        (Tool::Ior, &a, "after.json"),
        (Tool::Ior, &b, "aio.json"),
    ]);
    assert_eq!(
        named,
        ["ior POSIX (before)", "ior POSIX (after)", "ior AIO"]
    );
    let named = names(&[(Tool::Ior, &a, "r.json"), (Tool::Ior, &a, "r.json")]);
    assert_eq!(named, ["r (1)", "r (2)"]);
}

#[test]
fn the_overview_says_the_shared_workload_once() {
    let a = w(&[
        ("transfer", "1 MiB transfers", true),
        ("direct", "buffered", false),
        ("API", "POSIX", true),
    ]);
    let b = w(&[
        ("transfer", "1 MiB transfers", true),
        ("direct", "O_DIRECT", true),
        ("API", "POSIX", true),
    ]);
    let m = w(&[("items", "200 items per task", true)]);
    let (shared, own) = shared_and_own(&[(Tool::Ior, &a), (Tool::Ior, &b), (Tool::Mdtest, &m)]);
    assert_eq!(
        shared,
        [
            (Tool::Ior, "1 MiB transfers, POSIX".to_string()),
            (Tool::Mdtest, "200 items per task".to_string())
        ]
    );
    assert_eq!(own, ["buffered", "O_DIRECT", ""]);
}

#[test]
fn an_aspect_one_lacks_does_not_name_alone() {
    let posix = w(&[("API", "POSIX", true)]);
    let aio = |depth: &str| w(&[("API", "AIO", true), ("queue depth", depth, true)]);
    let (one, four) = (aio("queue depth 1"), aio("queue depth 4"));
    let named = names(&[
        (Tool::Ior, &posix, "p.json"),
        (Tool::Ior, &one, "a.json"),
        (Tool::Ior, &four, "b.json"),
    ]);
    assert_eq!(
        named,
        [
            "ior POSIX",
            "ior AIO, queue depth 1",
            "ior AIO, queue depth 4"
        ]
    );
}
