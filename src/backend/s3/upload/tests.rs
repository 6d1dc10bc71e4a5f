//! The completion decision, over parts sent and parts listed: the shapes
//! that must never complete (holes, a short list, other ETags or sizes,
//! parts nobody sent) and the checks of the completed object.

use super::*;

const M: u64 = 1 << 20;

/// The ETags SeaweedFS answered for 5 MiB parts of bytes 1, 2 and 3 (each
/// the MD5 of its part), and its ETag of the object joined from them.
const ETAGS: [&str; 3] = [
    "\"08b46181d7094b5ece88bb389c7499af\"",
    "\"d76f89e449720d99d4b92c79040f4882\"",
    "\"9ca655158ca025aa00a818b6b81f9e48\"",
];
const JOINED: &str = "\"7963734f49ea50ecaa07c23da9006ef4-3\"";

fn sent(number: u32, etag: &str, size: u64) -> Sent {
    Sent {
        number,
        etag: etag.into(),
        size,
    }
}

/// Parts 1..=n of 5 MiB, part k sent by task (k-1) / per_task.
fn five_mib(n: u32, per_task: u32) -> Vec<Part> {
    (1..=n)
        .map(|k| Part {
            sent: sent(k, &format!("\"e{k}\""), 5 * M),
            task: Some(((k - 1) / per_task) as usize),
        })
        .collect()
}

fn listed(part: &Part) -> ListedPart {
    ListedPart {
        number: part.sent.number,
        etag: part.sent.etag.clone(),
        size: Some(part.sent.size),
    }
}

#[test]
fn parts_merge_in_order_the_last_sending_counting() {
    let lists = vec![
        (Some(1), vec![sent(4, "a", 5), sent(3, "b", 5)]),
        (
            Some(0),
            vec![sent(2, "c", 5), sent(1, "d", 5), sent(2, "e", 5)],
        ),
    ];
    let merged = merge(lists).unwrap();
    let numbers: Vec<(u32, &str, Option<usize>)> = merged
        .iter()
        .map(|p| (p.sent.number, p.sent.etag.as_str(), p.task))
        .collect();
    let want = [
        (1, "d", Some(0)),
        (2, "e", Some(0)),
        (3, "b", Some(1)),
        (4, "a", Some(1)),
    ];
    assert_eq!(numbers, want);
    let twice = vec![
        (Some(0), vec![sent(1, "a", 5)]),
        (Some(2), vec![sent(1, "a", 5)]),
    ];
    assert_eq!(
        merge(twice).unwrap_err(),
        "part 1 was sent by task 0 and by task 2"
    );
}

#[test]
fn holes_below_the_last_part_are_found_and_named_as_runs() {
    // A shared object of 4 tasks' 200 MiB blocks, each stopped after its
    // first 5 MiB part: parts 1, 41, 81 and 121.
    let stopped: Vec<Part> = [1, 41, 81, 121]
        .iter()
        .map(|&n| Part {
            sent: sent(n, "e", 5 * M),
            task: Some(n as usize / 40),
        })
        .collect();
    let holes = holes(&stopped);
    assert_eq!(holes.len(), 117);
    assert_eq!(runs(&holes), "2-40, 42-80, 82-120");
    // Parts missing at the end only: the object is shorter, not moved.
    assert!(super::holes(&five_mib(3, 1)).is_empty());
    assert_eq!(runs(&[2, 4, 5, 7]), "2, 4-5, 7");
    assert_eq!(runs(&[]), "");
}

#[test]
fn a_list_short_of_the_parts_sent_names_each_missing_part_and_its_task() {
    // The case seen under load: 8 parts sent by 4 tasks, 3 listed.
    let sent = five_mib(8, 2);
    let short: Vec<ListedPart> = [0, 3, 6].iter().map(|&i| listed(&sent[i])).collect();
    let why = listed_otherwise(&sent, &short).unwrap();
    assert_eq!(
        why,
        "the server lists 3 parts, 8 were sent: part 2 (task 0) is missing, part 3 (task 1) is \
         missing, part 5 (task 2) is missing, part 6 (task 2) is missing, part 8 (task 3) is \
         missing"
    );
    let all: Vec<ListedPart> = sent.iter().map(listed).collect();
    assert_eq!(listed_otherwise(&sent, &all), None);
}

#[test]
fn other_etags_and_sizes_are_named_quotes_and_case_aside() {
    let one = vec![Part {
        sent: sent(1, "\"ABC\"", 5 * M),
        task: None,
    }];
    let mut on_server = vec![ListedPart {
        number: 1,
        etag: "abc".into(),
        size: None,
    }];
    assert_eq!(listed_otherwise(&one, &on_server), None);
    on_server[0].size = Some(3 * M);
    let why = listed_otherwise(&one, &on_server).unwrap();
    assert!(
        why.ends_with("part 1 holds 3145728 bytes there, 5242880 sent"),
        "{why}"
    );
    on_server[0].etag = "\"other\"\n".into();
    let why = listed_otherwise(&one, &on_server).unwrap();
    assert!(
        why.ends_with("part 1 has ETag \"other\" there, \"ABC\" sent"),
        "{why}"
    );
    // A part the server holds that no task sent.
    let unsent = ListedPart {
        number: 2,
        etag: "abc".into(),
        size: None,
    };
    let why = listed_otherwise(&one[..0], &[unsent]).unwrap();
    assert_eq!(
        why,
        "the server lists 1 parts, 0 were sent: part 2 is there, not sent"
    );
    // Many differences: the first eight, and a count of the others.
    let many = five_mib(20, 20);
    let why = listed_otherwise(&many, &[]).unwrap();
    assert!(
        why.ends_with("part 8 (task 0) is missing, and 12 more"),
        "{why}"
    );
}

/// SeaweedFS's three parts of 5 MiB, as sent by one writer.
fn seaweed_parts() -> Vec<Part> {
    let lists = vec![(
        None,
        (1..=3)
            .map(|n| sent(n, ETAGS[n as usize - 1], 5 * M))
            .collect(),
    )];
    merge(lists).unwrap()
}

#[test]
fn the_joined_etag_is_the_md5_of_the_parts_md5s() {
    let parts = seaweed_parts();
    assert_eq!(multipart_etag(&parts).unwrap(), JOINED.trim_matches('"'));
    // ETags that are no MD5 (encrypted objects, other servers): unknown.
    assert_eq!(multipart_etag(&five_mib(2, 1)), None);
}

#[test]
fn a_completed_object_must_be_the_parts_sent() {
    let parts = seaweed_parts();
    assert_eq!(check_completed(&parts, Some(JOINED), Some(15 * M)), Ok(()));
    // A server's own ETag (no part count) leaves the size to tell.
    assert_eq!(
        check_completed(&parts, Some("\"xyz\""), Some(15 * M)),
        Ok(())
    );
    assert_eq!(check_completed(&parts, None, Some(15 * M)), Ok(()));
    let short = check_completed(&parts, Some(JOINED), Some(10 * M)).unwrap_err();
    assert_eq!(
        short,
        "the completed object holds 10485760 bytes, the 3 parts sent 15728640"
    );
    let fewer = check_completed(&parts, Some("\"0123-2\""), Some(15 * M)).unwrap_err();
    assert!(fewer.starts_with("the server joined 2 parts"), "{fewer}");
    let other = format!("\"{}-3\"", "f".repeat(32));
    let wrong = check_completed(&parts, Some(&other), Some(15 * M)).unwrap_err();
    assert!(wrong.contains("the 3 parts sent make 7963734f"), "{wrong}");
    let gone = check_completed(&parts, Some(JOINED), None).unwrap_err();
    assert_eq!(gone, "the completed object is not there");
}
