use super::*;

const ORIG: &str = include_str!("../../../tests/data/io500/config-orig.ini");
const EFFECTIVE: &str = include_str!("../../../tests/data/io500/config.ini");

fn parsed(text: &str) -> Config {
    Config::parse("c.ini", text).unwrap()
}

fn error(text: &str) -> String {
    Config::parse("c.ini", text).unwrap_err().to_string()
}

#[test]
fn the_effective_configuration_and_hash_are_the_harness() {
    let c = Config::parse("config-orig.ini", ORIG).unwrap();
    assert_eq!(c.effective_ini(), EFFECTIVE);
    assert_eq!(c.config_hash(), 0xD5E32655);
    // Its own effective file reads back to the same values.
    assert_eq!(parsed(EFFECTIVE), c);
    assert_eq!(c.get_uint("debug", "stonewall-time"), Some(2));
    assert_eq!(c.get_size("ior-easy", "transferSize"), Some(65536));
    assert_eq!(c.get_float("mdworkbench", "waitingTime"), Some(0.0));
    assert_eq!(c.get("mdtest-hard", "files-per-dir"), None);
    assert_eq!(c.api_for("ior-easy-write", "ior-easy"), "POSIX");
}

#[test]
fn the_hash_sees_values_as_the_harness_stores_them() {
    let base = parsed(ORIG).config_hash();
    // Names in any case, booleans in any spelling, empty values and
    // comments change nothing.
    let same = format!(
        "{ORIG}\n[IOR-EASY]\nFILEPERPROC = 1 # as before\nrun =\n; note\n[Global]\napi = POSIX\t\n"
    );
    assert_eq!(parsed(&same).config_hash(), base);
    assert_ne!(
        parsed(&format!("{ORIG}\n[find]\nrun = false\n")).config_hash(),
        base
    );
    assert_eq!(
        parsed("[find]\nrun = false\n").get("find", "run"),
        Some("FALSE")
    );
    // The later of two values wins.
    assert_eq!(
        parsed("[mdtest-easy]\nn = 5\nn = 7\n").get_uint("mdtest-easy", "n"),
        Some(7)
    );
}

#[test]
fn lookups_follow_the_harness_precedence() {
    let text =
        "[global]\napi = POSIX --posix.odirect\n[ior-hard]\nAPI = MPIIO\ncollective = TRUE\n\
                verbosity = 2\n[ior-hard-read]\napi = MMAP ; a comment\ncollective = false\n\
                [MDTEST-EASY]\nRUN = false\n[mdtest-hard-read]\nrun = 0\n";
    let c = parsed(text);
    assert_eq!(
        c.api_for("ior-easy-write", "ior-easy"),
        "POSIX --posix.odirect"
    );
    assert_eq!(c.api_for("ior-hard-write", "ior-hard"), "MPIIO");
    assert_eq!(c.api_for("ior-hard-read", "ior-hard"), "MMAP");
    assert!(c.collective_for("ior-hard-write", "ior-hard"));
    assert!(!c.collective_for("ior-hard-read", "ior-hard"));
    assert!(!c.collective_for("ior-easy-write", "ior-easy"));
    assert!(!c.run_for("mdtest-easy-stat", "mdtest-easy"));
    assert!(!c.run_for("mdtest-hard-read", "mdtest-hard"));
    assert!(c.run_for("mdtest-hard-stat", "mdtest-hard"));
    assert_eq!(c.verbosity_for("ior-hard"), 2);
    assert_eq!(c.verbosity_for("ior-easy"), 0);
}

#[test]
fn errors_name_the_file_line_and_key() {
    // One case a line: the file (`|` for a line break) => the error.
    const CASES: &str = "\
[global]|datadir = x|[ior-easy]|blockSiz = 1m => c.ini:4: unknown key 'blockSiz' in section [ior-easy]
# c|[nosuch] => c.ini:2: unknown section [nosuch]
datadir = x => c.ini:1: 'datadir' comes before any [section]
[debug]|stonewall-time = -3 => c.ini:2: '-3' is not a whole number, 0 or more (key stonewall-time in [debug])
[find]|pfind-queue-length = 1k => c.ini:2: '1k' is not a whole number (key pfind-queue-length in [find])
[global]|scc = maybe => c.ini:2: 'maybe' is not TRUE, FALSE, 1 or 0 (key scc in [global])
[mdworkbench]|waitingTime = abc => c.ini:2: 'abc' is not a number (key waitingTime in [mdworkbench])
[ior-easy]|transferSize = 64x => c.ini:2: '64x' has an unknown size suffix 'x' (use k, m, g, t, p or e) (key transferSize in [ior-easy])
[global]|just words => c.ini:2: 'just words' is neither [section] nor key = value
[ior easy] => c.ini:1: '[ior easy]' is neither [section] nor key = value
[global]|datadir = /a#b => c.ini:2: 'datadir = /a#b': '#' starts a comment only after a blank (values cannot hold '#' or ';')
[mdworkbench]||filesPerProc = 20 => c.ini:3: [mdworkbench] filesPerProc needs precreatePerSet too (both or neither)
[global]|io-buffers-on-gpu = true => c.ini:2: io-buffers-on-gpu = TRUE: pario has no GPU support
";
    for case in CASES.lines() {
        let (text, message) = case.split_once(" => ").unwrap();
        assert_eq!(error(&text.replace('|', "\n")), message, "{text}");
    }
    // What the harness skips is skipped: an empty value, even of an
    // unknown key or before any section.
    parsed("nosuch =\n[global]\nnosuch = ; empty\n\n   # indented comment\n");
}

#[test]
fn the_list_has_help_and_leaves_out_extended_sections_when_asked() {
    let c = parsed(ORIG);
    let all = c.list(false);
    assert!(all.starts_with("# Supported and current values of the ini file:\n[global]\n# "));
    assert!(all.contains("\n# ior-easy's transfer size\ntransferSize = 64k\n"));
    assert!(all.contains("[find-hard]") && all.contains("[mdworkbench]"));
    let mandatory = c.list(true);
    assert!(mandatory.contains("[find]") && mandatory.contains("[ior-rnd4K-easy-read]"));
    assert!(!mandatory.contains("[find-hard]") && !mandatory.contains("[mdworkbench"));
    // The list is itself a configuration with the same values.
    assert_eq!(parsed(&all), c);
}

#[test]
fn the_table_has_one_spelling_per_name() {
    for (i, s) in SECTIONS.iter().enumerate() {
        assert!(is_name(s.name, "_-"), "{}", s.name);
        assert_eq!(section_index(s.name), Some(i), "{}", s.name);
        for (k, key) in s.keys.iter().enumerate() {
            assert!(is_name(key.name, "_.-"), "{}", key.name);
            assert_eq!(key_index(i, key.name), Some(k), "[{}] {}", s.name, key.name);
            if let Some(d) = key.default.filter(|d| !d.is_empty()) {
                assert_eq!(
                    checked(key.ty, d).as_deref(),
                    Ok(d),
                    "[{}] {}",
                    s.name,
                    key.name
                );
            }
        }
    }
}
