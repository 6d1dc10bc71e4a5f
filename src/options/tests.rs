use std::collections::BTreeMap;

use super::script::parse_script;
use super::*;

#[derive(Debug, Clone, Default, PartialEq)]
struct Toy {
    verbose: u32,
    write: bool,
    size: String,
    name: String,
    modules: BTreeMap<String, String>,
    script: Option<String>,
}

impl ModuleOptions for Toy {
    fn module_options(&mut self) -> &mut BTreeMap<String, String> {
        &mut self.modules
    }
}

fn toy() -> Grammar<Toy> {
    let field = |short: Option<char>,
                 names: &[&'static str],
                 kind: ArgKind,
                 set: fn(&mut Toy, Setting<'_>) -> Result<(), String>| OptSpec {
        short,
        names: names.to_vec(),
        kind,
        default: "",
        help: "help text".into(),
        module: "",
        directive_only: false,
        list: false,
        store: Store::Field(set),
    };
    Grammar {
        tool: "toy",
        specs: vec![
            field(Some('v'), &["verbose"], ArgKind::Flag, |t, s| {
                t.verbose = s.flag_count(t.verbose)?;
                Ok(())
            }),
            field(Some('w'), &["writeFile"], ArgKind::Flag, |t, s| {
                t.write = s.flag_bool()?;
                Ok(())
            }),
            field(Some('b'), &["blockSize"], ArgKind::Value, |t, s| {
                crate::units::parse_size(s.value())?;
                t.size = s.value().into();
                Ok(())
            }),
            field(Some('o'), &["testFile"], ArgKind::Value, |t, s| {
                t.name = s.value().into();
                Ok(())
            }),
            field(Some('f'), &["scriptFile"], ArgKind::Value, |t, s| {
                t.script = Some(s.value().into());
                Ok(())
            }),
            field(Some('O'), &["directives"], ArgKind::Directives, |_, _| {
                Ok(())
            }),
            OptSpec {
                short: None,
                names: vec!["posix.odirect", "useO_DIRECT"],
                kind: ArgKind::Flag,
                default: "",
                help: "odirect".into(),
                module: "POSIX",
                directive_only: false,
                list: false,
                store: Store::Module,
            },
        ],
    }
}

fn parse(args: &[&str]) -> Result<Toy, UsageError> {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    toy()
        .parse_command_line(&args, Toy::default())
        .map(|c| c.params)
}

#[test]
fn grouped_flags_and_repeats() {
    let t = parse(&["-vwv", "-v"]).unwrap();
    assert_eq!((t.verbose, t.write), (3, true));
}

#[test]
fn attached_equals_and_separate_values() {
    assert_eq!(parse(&["-b16m"]).unwrap().size, "16m");
    assert_eq!(parse(&["-b=16m"]).unwrap().size, "16m");
    assert_eq!(parse(&["-b", "16m"]).unwrap().size, "16m");
    assert_eq!(parse(&["-wb", "4k"]).unwrap().size, "4k");
    assert_eq!(parse(&["-wb4k"]).unwrap().size, "4k");
    assert_eq!(parse(&["--blockSize=2m"]).unwrap().size, "2m");
    assert_eq!(parse(&["--blocksize", "2m"]).unwrap().size, "2m");
}

#[test]
fn values_keep_their_text() {
    assert_eq!(parse(&["-o", "/tmp/a b"]).unwrap().name, "/tmp/a b");
    assert_eq!(parse(&["-o=x=y"]).unwrap().name, "x=y");
}

#[test]
fn directives_are_case_insensitive_lists() {
    let t = parse(&["-O", "BLOCKSIZE=8k, writefile=1,verbose=2"]).unwrap();
    assert_eq!((t.size.as_str(), t.write, t.verbose), ("8k", true, 2));
    let t = parse(&["-O", "writeFile = 1 # trailing comment"]).unwrap();
    assert!(t.write);
    let t = parse(&["-Overbose=4"]).unwrap();
    assert_eq!(t.verbose, 4);
}

#[test]
fn module_options_from_every_spelling() {
    assert_eq!(
        parse(&["--posix.odirect"]).unwrap().modules["posix.odirect"],
        "1"
    );
    assert_eq!(
        parse(&["-O", "posix.odirect=1"]).unwrap().modules["posix.odirect"],
        "1"
    );
    assert_eq!(
        parse(&["-O", "useO_DIRECT=1"]).unwrap().modules["posix.odirect"],
        "1"
    );
    assert_eq!(
        parse(&["--posix.odirect=0"]).unwrap().modules["posix.odirect"],
        "0"
    );
}

#[test]
fn errors_name_the_option() {
    let e = |args: &[&str]| parse(args).unwrap_err().0;
    assert_eq!(e(&["-q"]), "unknown option '-q' (see 'toy -h')");
    assert_eq!(e(&["--bogus"]), "unknown option '--bogus' (see 'toy -h')");
    assert_eq!(e(&["-b"]), "-b needs a value");
    assert_eq!(e(&["--blockSize"]), "--blockSize needs a value");
    assert!(
        e(&["-b", "-5"]).starts_with("-b -5: "),
        "{}",
        e(&["-b", "-5"])
    );
    assert!(e(&["-b", "1x"]).contains("unknown size suffix 'x'"));
    assert_eq!(e(&["-w=1"]), "-w takes no value");
    assert_eq!(
        e(&["stray"]),
        "unexpected argument 'stray' (options start with '-'; see 'toy -h')"
    );
    assert_eq!(
        e(&["-O", "nokey"]),
        "directive 'nokey' is not of the form key=value"
    );
    assert_eq!(
        e(&["-O", "color=red"]),
        "unknown directive 'color' (see 'toy -h')"
    );
    assert!(e(&["-O", "verbose=lots"]).contains("'lots' is not an integer"));
}

#[test]
fn help_is_recognised_anywhere() {
    let args: Vec<String> = ["-w", "-h"].iter().map(|s| s.to_string()).collect();
    assert!(
        toy()
            .parse_command_line(&args, Toy::default())
            .unwrap()
            .help
    );
    let text = toy().help_text();
    assert!(text.starts_with("Synopsis toy\n"));
    assert!(text.contains("\nModule POSIX\n"));
    assert!(text.contains("  -b=                           help text\n"));
}

#[test]
fn scripts_make_one_test_per_run() {
    let text = "\
# a comment before the start
IOR START
  blockSize=4k   # inline comment
  writeFile=1
RUN
  verbose=2, testFile=/x
RUN
# comment inside
RUN
IOR STOP
  verbose=9
";
    let tests = parse_script(
        &toy(),
        "s",
        text,
        &Toy {
            name: "cli".into(),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(tests.len(), 3);
    assert_eq!(
        (
            tests[0].size.as_str(),
            tests[0].write,
            tests[0].name.as_str()
        ),
        ("4k", true, "cli")
    );
    assert_eq!(
        (
            tests[1].verbose,
            tests[1].name.as_str(),
            tests[1].size.as_str()
        ),
        (2, "/x", "4k")
    );
    assert_eq!(tests[2], tests[1]);
}

#[test]
fn trailing_directives_form_a_test() {
    let tests = parse_script(
        &toy(),
        "s",
        "ior start\nblockSize=1k\nRUN\nblockSize=2k\n",
        &Toy::default(),
    )
    .unwrap();
    assert_eq!(
        tests.iter().map(|t| t.size.as_str()).collect::<Vec<_>>(),
        ["1k", "2k"]
    );
    let single = parse_script(
        &toy(),
        "s",
        "IOR START\nwriteFile=1\nIOR STOP\n",
        &Toy::default(),
    )
    .unwrap();
    assert_eq!(single.len(), 1);
    // Nothing but the defaults: one test, with or without a RUN.
    for text in ["IOR START\nIOR STOP\n", "IOR START\nRUN\nIOR STOP\n"] {
        let tests = parse_script(&toy(), "s", text, &Toy::default()).unwrap();
        assert_eq!(tests, [Toy::default()], "{text:?}");
    }
}

#[test]
fn script_errors_name_file_and_line() {
    let e = parse_script(
        &toy(),
        "my.ior",
        "IOR START\nwriteFile=1\nbogus=3\n",
        &Toy::default(),
    )
    .unwrap_err();
    assert_eq!(
        e.0,
        "-f my.ior, line 3: unknown directive 'bogus' (see 'toy -h')"
    );
    let e = parse_script(&toy(), "my.ior", "writeFile=1\n", &Toy::default()).unwrap_err();
    assert_eq!(e.0, "-f my.ior: no 'IOR START' line in the script");
}

#[test]
fn operands_take_their_place_among_the_options() {
    let args: Vec<String> = ["a", "-o", "x", "b", "--", "-c", "--d"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let seen = |t: &mut Toy, s: Setting<'_>| {
        t.size.push_str(&format!("{}[{}]", s.value(), t.name));
        Ok(())
    };
    let parsed = toy()
        .parse_with_operands(&args, Toy::default(), seen)
        .unwrap();
    assert_eq!(parsed.params.size, "a[]b[x]-c[x]--d[x]");
    let refused = |_: &mut Toy, s: Setting<'_>| Err(format!("no '{}' here", s.value()));
    let e = toy().parse_with_operands(&args, Toy::default(), refused);
    assert_eq!(e.err().unwrap().0, "no 'a' here");
    let e = toy().parse_command_line(&args, Toy::default());
    assert!(e.err().unwrap().0.starts_with("unexpected argument 'a'"));
}
