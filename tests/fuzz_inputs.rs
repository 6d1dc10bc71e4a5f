//! Parsers of outside input fed random bytes and mutated real samples,
//! with a fixed seed (`common::fuzz`): S3's answers (the XML reader, the
//! error, listing and delete-result readers), io500's ini files, ior's
//! `-f` scripts and `pario concurrent`'s files of groups, in this process.
//! None may panic or hang; a refusal is one line. The files go through the
//! tools' own checks (`ior -f FILE`, `io500 FILE`, `pario concurrent FILE`
//! parsed and checked, nothing run), non-UTF-8 bytes included.
//!
//! Longer runs: `PARIO_FUZZ_CASES=100000 PARIO_FUZZ_SEED=7 cargo test
//! --release --test suite -- fuzz_inputs::`.

use crate::common::fuzz::{self, assert_one_line, setting, Bytes};
use pario::backend::s3::client::{self, buckets, parts, uploads, Page};
use pario::backend::s3::xml;
use pario::cli::TOOLS;

/// Cases per parser: a few thousand in all, a few seconds of a debug build.
fn cases(default: u64) -> u64 {
    setting("PARIO_FUZZ_CASES", default)
}

/// Answers as S3 servers write them.
const S3_ANSWERS: &[&str] = &[
    r#"<?xml version="1.0" encoding="UTF-8"?>
<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>bench</Name><Prefix>io500/</Prefix><KeyCount>3</KeyCount><MaxKeys>1000</MaxKeys><Delimiter>/</Delimiter><IsTruncated>true</IsTruncated><Contents><Key>io500/a&amp;b</Key><LastModified>2026-11-28T09:34:38.500Z</LastModified><ETag>&quot;9b2cf535f27731c974343645a3985328&quot;</ETag><Size>3901</Size><Owner><ID>pario</ID><DisplayName>pario</DisplayName></Owner><StorageClass>STANDARD</StorageClass></Contents><Contents><Key>io500/file~00000000000000047008</Key><Size>47008</Size></Contents><CommonPrefixes><Prefix>io500/mdtest-easy/</Prefix></CommonPrefixes><CommonPrefixes><Prefix>io500/x&#x41;&#65;/</Prefix></CommonPrefixes><NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken></ListBucketResult>"#,
    r#"<ListAllMyBucketsResult><Owner><ID>pario</ID></Owner><Buckets><Bucket><Name>bench</Name><CreationDate>2026-11-28T09:34:38Z</CreationDate></Bucket><Bucket><Name>ior3af0-tmp-keptb-1</Name></Bucket></Buckets></ListAllMyBucketsResult>"#,
    r#"<ListMultipartUploadsResult><Bucket>bench</Bucket><KeyMarker></KeyMarker><UploadIdMarker></UploadIdMarker><IsTruncated>false</IsTruncated><Upload><Key>int/file.00000000</Key><UploadId>VXBsb2FkIElEIGZvciA2aWWpbmcncyBteS1tb3ZpZS5tMnRzIHVwbG9hZA</UploadId><Initiated>2026-11-28T09:34:38.000Z</Initiated></Upload><Upload><Key>int/file.00000001</Key><UploadId>b2</UploadId></Upload></ListMultipartUploadsResult>"#,
    r#"<ListPartsResult><Bucket>bench</Bucket><Key>rt/file</Key><UploadId>u</UploadId><PartNumberMarker>0</PartNumberMarker><NextPartNumberMarker>2</NextPartNumberMarker><MaxParts>1000</MaxParts><IsTruncated>true</IsTruncated><Part><PartNumber>1</PartNumber><LastModified>2026-11-28T09:34:38.000Z</LastModified><ETag>"7778aef83f66abc1fa1e8477f296d394"</ETag><Size>5242880</Size></Part><Part><PartNumber>2</PartNumber><ETag>&quot;aaaa&quot;</ETag><Size>1048576</Size></Part></ListPartsResult>"#,
    r#"<DeleteResult><Deleted><Key>a</Key></Deleted><Error><Key>b</Key><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error><Error><Key>c&lt;d</Key><Code>AccessDenied</Code><Message>Access Denied</Message></Error></DeleteResult>"#,
    r#"<?xml version="1.0" encoding="UTF-8"?>
<Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match the signature you provided. Check your key and signing method.</Message><Resource>/bench/bad/file</Resource><RequestId>4442587FB7D0A2F9</RequestId></Error>"#,
    r#"<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>"#,
    "<html><body><h1>503 Service Unavailable</h1></body></html>",
];

/// S3's element names and entities.
const XML_TOKENS: &[&str] = &[
    "<",
    ">",
    "</",
    "/>",
    "<?xml version=\"1.0\"?>",
    "&amp;",
    "&lt;",
    "&#x",
    "&#",
    "&#1114112;",
    "&#xD800;",
    "&#x1F600;",
    "&quot",
    "<Key>",
    "</Key>",
    "<Key/>",
    "<Size>",
    "</Size>",
    "<Contents>",
    "</Contents>",
    "<CommonPrefixes><Prefix>",
    "</Prefix></CommonPrefixes>",
    "<IsTruncated>true</IsTruncated>",
    "<NextContinuationToken>",
    "</NextContinuationToken>",
    "<Part><PartNumber>",
    "</PartNumber><ETag>",
    "</ETag></Part>",
    "<NextPartNumberMarker>",
    "<Upload><Key>",
    "</Key><UploadId>",
    "</UploadId></Upload>",
    "<Bucket><Name>",
    "</Name></Bucket>",
    "<Error><Code>",
    "</Code><Message>",
    "</Message></Error>",
    "<LastModified>",
    "<KeyCount>",
];

/// Every reader of S3's answers, on one text: none panics, and an error
/// made of it is one line naming the status.
fn read_s3_answer(text: &str) {
    for tag in ["Key", "Size", "Code", "Prefix", "UploadId", "Keys", ""] {
        let _ = xml::first(text, tag);
        xml::elements(text, tag).for_each(|e| drop(xml::unescape(e)));
    }
    xml::leaves(text).for_each(|(_, t)| drop(xml::unescape(t)));
    let _ = (Page::parse(text), buckets(text), uploads(text), parts(text));
    if let Some((key, code)) = client::delete_failure(text) {
        let line = format!("bucket b, key {key}: DeleteObjects: {code}");
        assert_one_line("DeleteObjects' reader", &text, &line);
    }
    for status in [200, 403, 404, 503] {
        let e = client::s3_error(status, text, "bench", "k").to_string();
        assert_one_line("S3's error reader", &text, &e);
        assert!(e.contains(&format!("HTTP {status} ")), "{e}");
    }
}

#[test]
fn s3_answers_are_read_without_panic() {
    fuzz::run(
        "an S3 answer's reader",
        cases(2000),
        |rng| String::from_utf8_lossy(&fuzz::input(rng, S3_ANSWERS, XML_TOKENS)).into_owned(),
        |text| read_s3_answer(text),
    );
}

/// `tool ARGS` parsed and checked (nothing runs) on `cases` files made
/// from `samples` and `tokens`, its bytes as they are (`args` puts the
/// file's path in the command line): it succeeds or fails in one line.
fn check_files(
    tool: &'static str,
    cases: u64,
    samples: &'static [&'static str],
    tokens: Vec<String>,
    args: fn(String) -> Vec<String>,
) {
    let command = *TOOLS.iter().find(|t| t.name() == tool).unwrap();
    let dir = tempfile::tempdir().unwrap();
    fuzz::run(
        tool,
        cases,
        move |rng| Bytes(fuzz::input(rng, samples, &tokens)),
        move |bytes| {
            let path = dir.path().join("input");
            std::fs::write(&path, &bytes.0).unwrap();
            if let Err(e) = command.check(tool, &args(path.display().to_string())) {
                assert_one_line(tool, bytes, &e.to_string());
            }
        },
    );
}

/// io500's files: IO500's own sample, the one pario writes in full (every
/// key), and an S3 one with pario's sections.
const INI_FILES: &[&str] = &[
    include_str!("data/io500/config-orig.ini"),
    include_str!("data/io500/config.ini"),
    "[global]\ndatadir = s3://bench/io500 ; comment\napi = S3 --s3.max-pending=2\n\
     resultdir = ./results\n\n[debug]\nstonewall-time = 1\n\n[ior-easy]\ntransferSize = 1m\n\
     blockSize = 5m\n\n[mdworkbench]\nprecreatePerSet = 4\nfilesPerProc = 2\nwaitingTime = 0.5\n\n\
     [concurrent]\nrun = FALSE\n\n[ior-hard]\nsegmentCount = 20\n# the end\n",
];

/// The ini's sections and keys, and values of every type.
fn ini_tokens() -> Vec<&'static str> {
    let mut tokens = vec![
        "\n[",
        "]\n",
        " = ",
        "\nkey = ",
        "TRUE",
        "FALSE",
        "true",
        "0.5",
        "1.0",
        "-3",
        "64k",
        "9920000m",
        " --posix.odirect",
        "S3",
        "S3-libs3 --S3-libs3.host=",
        "DUMMY",
        "POSIX",
        "MMAP",
        "AIO",
        " ;",
        " #",
    ];
    for section in pario::io500::config::SECTIONS {
        tokens.push(section.name);
        tokens.extend(section.keys.iter().map(|k| k.name));
    }
    tokens
}

#[test]
fn io500_ini_files_are_read_or_refused_in_one_line() {
    let tokens = ini_tokens();
    fuzz::run(
        "io500's ini reader",
        cases(1500),
        move |rng| String::from_utf8_lossy(&fuzz::input(rng, INI_FILES, &tokens)).into_owned(),
        |text| {
            if let Err(e) = pario::io500::config::Config::parse("c.ini", text) {
                assert_one_line("io500's ini reader", text, &e.to_string());
            }
        },
    );
    // As files, through the checks of every phase.
    let tokens = ini_tokens().into_iter().map(String::from).collect();
    check_files("io500", cases(300), INI_FILES, tokens, |path| vec![path]);
}

/// `-f` scripts as IOR's documentation and tests write them.
const SCRIPTS: &[&str] = &[
    "IOR START\n  api=POSIX\n  testFile=testFile\n  repetitions=2\n  \
     multiFile=0\n  interTestDelay=0\n  readFile=1\n  writeFile=1\n  filePerProc=0\n  \
     checkWrite=0\n  checkRead=0\n  keepFile=0\n  quitOnError=0\n  segmentCount=1\n  \
     blockSize=1m\n  transferSize=256k\n  verbose=0\n  setTimeStampSignature=0\n  \
     collective=0\n  useO_DIRECT=0\n  randomOffset=0\nRUN\n  filePerProc=1\n  \
     transferSize=64k # smaller\nRUN\nIOR STOP\n",
    "IOR START\n  transferSize=4k\n  blockSize=8k  # small\n  testFile=scripted\nRUN\n  \
     filePerProc=1\nRUN\nIOR STOP\n",
    "ior start\n  api=DUMMY, blockSize=16m, transferSize=1m\n  summaryFormat=JSON\nrun\n\
     segmentCount=4\n  stoneWallingWearOut=1\n  deadlineForStonewalling=1\nior stop\ntrailing\n",
];

/// Every directive of ior's table, and the script's own words.
fn script_tokens() -> Vec<String> {
    let ior = TOOLS.iter().find(|t| t.name() == "ior").unwrap();
    let mut tokens: Vec<String> = ["IOR START\n", "\nRUN\n", "IOR STOP", "=", ",", "\n  "]
        .map(String::from)
        .to_vec();
    for o in ior.options().into_iter().filter(|o| o.directive) {
        tokens.push(format!("\n{}=", o.name.trim_start_matches('-')));
    }
    tokens
}

#[test]
fn ior_scripts_are_read_or_refused_in_one_line() {
    let args = |path| vec!["-f".into(), path];
    check_files("ior", cases(600), SCRIPTS, script_tokens(), args);
}

/// `pario concurrent`'s files of groups.
const GROUP_FILES: &[&str] = &[
    include_str!("data/concurrent/dummy.txt"),
    "# io500's shape\n60% ior -a DUMMY -w -t 1m -b 16m -F\n\n20% ior -a DUMMY -r -t 47008 \
     -b 47008 -s 8 -z\n20% md-workbench -a DUMMY -I 2 -P 2 -D 1 -R 2\n",
    "50% mdtest -a DUMMY -n 10 -d /dev/shm/x\n50% ior -a DUMMY -w -O stoneWallingWearOut=1\n",
];

#[test]
fn concurrent_group_files_are_read_or_refused_in_one_line() {
    let tokens = [
        "%",
        "100%",
        "0%",
        "ior",
        "mdtest",
        "md-workbench",
        " -a DUMMY",
        " -a ",
        "\n",
    ];
    let tokens = tokens.map(String::from).to_vec();
    check_files("concurrent", cases(300), GROUP_FILES, tokens, |path| {
        vec![path]
    });
}

/// What Linux shows a node's describer: mountinfo (an escaped mount
/// point, optional fields, a Lustre source), cpuinfo of x86 and Arm,
/// meminfo; as this machine and others write them.
const PROC_FILES: &[&str] = &[
    "22 27 0:21 / /proc rw,relatime - proc proc rw\n\
     25 24 0:23 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=24683584k\n\
     27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard,resv_strict\n\
     61 27 0:52 / /lustre/fs\\0401 rw,flock shared:5 master:2 - lustre 10.0.0.1@o2ib:/fs1 rw\n\
     62 27 0:53 / /home rw - nfs4 srv:/export/home rw,vers=4.2\n",
    "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC\nphysical id\t: 0\n\
     siblings\t: 2\ncpu cores\t: 2\n\nprocessor\t: 1\nmodel name\t: AMD EPYC\nphysical id\t: 0\n",
    "processor : 0\nBogoMIPS : 108.00\nFeatures : fp asimd\nModel : Raspberry Pi 4 Model B\n",
    "MemTotal:       24683584 kB\nMemFree:         1076472 kB\nCached:   20031720 kB\n",
];

#[test]
fn proc_files_are_read_without_panic() {
    use pario::run::system::{host, mounts};
    let tokens = [
        " - ",
        " ",
        ":",
        "\\",
        "\\040",
        "\\777",
        "\\0",
        "MemTotal:",
        "processor",
        "physical id",
        "model name",
        "\t: ",
        "0:0",
        "4294967296:1",
        "/",
        "\n",
    ];
    fuzz::run(
        "the system's /proc readers",
        cases(1500),
        move |rng| String::from_utf8_lossy(&fuzz::input(rng, PROC_FILES, &tokens)).into_owned(),
        |text| {
            for m in mounts::parse_mountinfo(text) {
                assert!(!m.fs_type.is_empty(), "{m:?}");
                let _ = mounts::holding(
                    std::slice::from_ref(&m),
                    std::path::Path::new("/a/b"),
                    Some(m.dev),
                );
            }
            let cpu = host::cpu_of(text);
            assert!(cpu.logical >= 1 && cpu.sockets >= 1, "{cpu:?}");
            let _ = host::memory_of(text);
        },
    );
}
