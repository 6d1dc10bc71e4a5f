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
    Grammar::new(
        "toy",
        vec![
            flag('v', &["verbose"], "help text", count(|t| &mut t.verbose)),
            flag('w', &["writeFile"], "help text", on(|t| &mut t.write)),
            value(
                'b',
                &["blockSize"],
                "help text",
                set(|t, s| {
                    crate::units::parse_size(s.value())?;
                    t.size = s.value().into();
                    Ok(())
                }),
            ),
            value(
                'o',
                &["testFile"],
                "help text",
                text(|t| &mut t.name, "test file name"),
            ),
            value(
                'f',
                &["scriptFile"],
                "help text",
                some_text(|t| &mut t.script, "script"),
            ),
            spec(
                Some('O'),
                &["directives"],
                ArgKind::Directives,
                "help text",
                set(|_, _| Ok(())),
            ),
            OptSpec {
                short: None,
                names: vec!["posix.odirect", "useO_DIRECT"],
                kind: ArgKind::Flag,
                shown: Shown::Text("".into()),
                help: "odirect".into(),
                module: "POSIX",
                directive_only: false,
                list: false,
                store: Store::Module,
            },
        ],
    )
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
fn help_shows_defaults_from_the_parameters() {
    #[derive(Clone, Default)]
    struct Sizes {
        block: u64,
        name: String,
        progress: bool,
        modules: BTreeMap<String, String>,
    }
    impl ModuleOptions for Sizes {
        fn module_options(&mut self) -> &mut BTreeMap<String, String> {
            &mut self.modules
        }
    }
    let grammar: Grammar<Sizes> = Grammar::new(
        "sized",
        vec![
            value(
                'b',
                &["blockSize"],
                "block",
                parsed(|t| &mut t.block, crate::units::parse_size),
            ),
            value(
                'o',
                &["testFile"],
                "name",
                shown("FILE", text(|t| &mut t.name, "name")),
            ),
            long_value(&["progress"], "live", on_value(|t| &mut t.progress)),
        ],
    );
    let help = grammar.help_text();
    assert!(help.contains("  -b=0 "), "{help}");
    assert!(help.contains("  -o=FILE "), "{help}");
    assert!(help.contains("  --progress=0 "), "{help}");
    let parsed = grammar
        .parse_command_line(
            &["-b".into(), "2k".into(), "--progress=1".into()],
            Sizes::default(),
        )
        .unwrap()
        .params;
    assert_eq!((parsed.block, parsed.progress), (2048, true));
    let empty = grammar.parse_command_line(&["-o".into(), " ".into()], Sizes::default());
    assert_eq!(empty.err().unwrap().0, "-o  : the name is empty");
}

#[test]
fn an_operand_takes_the_arguments_that_are_not_options() {
    let mut grammar = toy();
    grammar.operand = Some(|t, s| {
        t.name = s.value().to_string();
        Ok(())
    });
    let parsed = grammar
        .parse_command_line(&["config.ini".into(), "-w".into()], Toy::default())
        .unwrap()
        .params;
    assert_eq!((parsed.name.as_str(), parsed.write), ("config.ini", true));
    let refused = toy().parse_command_line(&["config.ini".into()], Toy::default());
    assert!(refused
        .err()
        .unwrap()
        .0
        .contains("unexpected argument 'config.ini'"));
}

#[test]
fn a_table_lifted_into_a_larger_type_keeps_its_defaults() {
    #[derive(Default)]
    struct Inner {
        depth: u64,
        name: Option<String>,
    }
    struct Outer {
        inner: Inner,
    }
    impl Default for Outer {
        fn default() -> Self {
            Outer {
                inner: Inner {
                    depth: 16,
                    name: None,
                },
            }
        }
    }
    let inner: Vec<OptSpec<Inner>> = vec![
        long_value(
            &["x.depth"],
            "depth",
            blank_keeps(parsed(|i| &mut i.depth, crate::units::parse_count)),
        ),
        long_value(&["x.name"], "name", given_text(|i| &mut i.name)),
    ];
    let outer: Vec<OptSpec<Outer>> = inner
        .into_iter()
        .map(|s| s.lifted(|o: &mut Outer| &mut o.inner))
        .collect();
    // The default shown is the outer type's.
    assert_eq!(outer[0].described().shown, "16");
    let mut o = Outer::default();
    outer[0].set_field(&mut o, Setting::Value(" ")).unwrap();
    outer[1].set_field(&mut o, Setting::Value("  ")).unwrap();
    assert_eq!((o.inner.depth, o.inner.name.as_deref()), (16, None));
    outer[0].set_field(&mut o, Setting::Value("2k")).unwrap();
    outer[1].set_field(&mut o, Setting::Value(" a ")).unwrap();
    assert_eq!((o.inner.depth, o.inner.name.as_deref()), (2048, Some("a")));
    let e = outer[0].set_field(&mut o, Setting::Value("x")).unwrap_err();
    assert!(e.0.starts_with("--x.depth=x: 'x' is not a size"), "{e:?}");
    assert!(outer[1].takes("X.NAME") && !outer[1].takes("x.depth"));
}
