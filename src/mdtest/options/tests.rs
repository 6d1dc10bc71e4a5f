use super::*;
use crate::output::Format;

fn args(s: &str) -> Vec<String> {
    s.split_whitespace().map(str::to_string).collect()
}

/// `n` tasks, all on one node.
fn tasks(n: usize) -> crate::tool::Tasks {
    crate::tool::Tasks {
        total: n,
        here: n,
        threads: true,
    }
}

fn help() -> String {
    grammar().help_text()
}

fn parse_ok(s: &str) -> MdtestParams {
    parse(&args(s)).unwrap().unwrap().0
}

fn parse_err(s: &str) -> String {
    match parse(&args(s)) {
        Err(e) => e.0,
        Ok(_) => panic!("{s} should be rejected"),
    }
}

#[test]
fn defaults_run_every_phase() {
    let p = parse_ok("-n 10");
    assert!(
        p.phases.create && p.phases.stat && p.phases.read && p.phases.remove && p.phases.rename
    );
    assert!(p.directory_phases() && p.file_phases());
    assert_eq!(p.dirs, ["./out"]);
    let c = parse_ok("-n 10 -C");
    assert!(
        c.phases.create && !c.phases.stat && !c.phases.read && !c.phases.remove && !c.phases.rename
    );
    let u = parse_ok("-n 10 -U");
    assert!(u.phases.rename && !u.phases.create);
}

#[test]
fn io500_command_lines_parse() {
    let easy = parse_ok("-n 1000000 -u -L -F -P -N 1 -d /data/mdtest-easy -x /res/st -C -Y -W 300");
    assert!(
        easy.tree.unique_dir
            && easy.tree.leaf_only
            && easy.phases.files_only
            && easy.output.print_rate_and_time
    );
    assert_eq!(
        (easy.tree.items, easy.order.nstride, easy.stonewall.seconds),
        (1_000_000, 1, 300)
    );
    assert_eq!(easy.stonewall.file.as_deref(), Some("/res/st"));
    assert!(easy.data.call_sync && easy.phases.create && !easy.phases.stat);
    let hard =
        parse_ok("-n 1000000 -t -w 3901 -e 3901 -P -N 1 -F -d /data/mdtest-hard -x st -E -X -G 5");
    assert!(hard.order.time_unique_dir_overhead && hard.data.verify_read && hard.phases.read);
    assert_eq!((hard.data.write_bytes, hard.data.read_bytes), (3901, 3901));
}

#[test]
fn values_clusters_and_long_names() {
    let p = parse_ok("-vvv -n1k -w=4k -e 4k -z 2 -b 3 -I 8 -V 2 --dataPacketType=o");
    assert_eq!(p.output.verbose, 2, "-V sets the level after -vvv");
    assert_eq!(
        (p.tree.items, p.data.write_bytes, p.data.read_bytes),
        (1024, 4096, 4096)
    );
    assert_eq!(
        (p.tree.depth, p.tree.branch_factor, p.tree.items_per_dir),
        (2, 3, 8)
    );
    assert_eq!(p.data.data_packet_type, PacketType::Offset);
    let q = parse_ok("-n 3 --random-seed=7 -R --verify-write -w 8 -e 8 --verify-read");
    assert!(q.order.randomize && q.data.verify_write && q.data.verify_read);
    assert_eq!(q.order.random_seed, 7);
    let d = parse_ok("-u -d a@b@c -n 1");
    assert_eq!(d.dirs, ["a", "b", "c"]);
    let o = parse_ok("-n 1 -O summaryFormat=JSON,summaryFile=x.json --posix.odirect -w 4096");
    assert_eq!(o.output.summary.formats, [Format::Json]);
    assert_eq!(o.output.summary.file.as_deref(), Some("x.json"));
    assert_eq!(
        o.module_options.get("posix.odirect").map(String::as_str),
        Some("1")
    );
    let s = parse_ok("-n 4 -f 1 -l 3 -s 2");
    assert_eq!(sweep(&s, 4), [1, 3]);
    assert_eq!(sweep(&parse_ok("-n 1"), 4), [4]);
}

#[test]
fn bad_values_name_the_option() {
    assert!(parse_err("-n -5").starts_with("-n -5: "));
    assert!(parse_err("-z x").starts_with("-z x: "));
    assert!(parse_err("-i 0").contains("at least 1"));
    assert!(parse_err("--dataPacketType=q").contains("packet type"));
    assert!(parse_err("-d a@").contains("empty"));
    assert!(parse_err("--random-seed=-1").contains("between"));
    assert!(parse_err("--nope").contains("unknown option '--nope'"));
    assert!(parse_err("-a S3-4c").contains("not supported"));
    assert!(parse_err("-a MMAP").contains("POSIX, AIO or DUMMY"));
    assert!(parse_err("--savePerOpDataCSV=f").contains("not built"));
}

#[test]
fn combinations_mdtest_rejects() {
    for (line, needle) in [
        ("-n 10 -I 3", "multiple of the items per directory"),
        ("-n 10 -I 5 -u", "cannot both be given with -u"),
        ("-z 1 -b 0", "branching factor of at least 1"),
        ("-W 5 -b 2", "branching factor of 1"),
        ("-W 5 -B", "needs barriers"),
        ("-W 5 -c", "-c"),
        ("-W 5 -n 10 -I 5", "one test directory per iteration"),
        ("-B -N 1", "-B cannot be combined with -N 1"),
        ("-c -S", "-c cannot be combined with -S"),
        ("-c -u -d a@b", "several test directories"),
        ("-c -B", "-c cannot be combined with -B"),
        ("-u -S", "-u cannot be combined with -S"),
        ("-S -D", "-D"),
        ("-u -N 1 -d a@b", "stride between tasks"),
        ("-d a@b", "need -u"),
        ("-k -w 1", "mknod"),
        ("-k -c", "made twice"),
        ("-k -S", "made twice"),
        ("-X -C -e 8", "needs the read phase"),
        ("-X -e 0", "-e (bytes to read) above 0"),
        ("-C -E -e 9 -w 8", "cannot read more bytes"),
        ("--verify-write", "needs -w"),
        ("-E -X -e 8", "needs -G"),
        ("-a DUMMY -w 8 --verify-write", "stores none"),
        ("--posix.odirect -w 100", "multiples of 4096"),
        ("-f 3 -l 2", "larger than the last"),
        ("-f 2", "-f needs -l"),
        ("--summaryFile=x", "--summaryFormat"),
        ("--warningAsErrors -n 1", "Read bytes is 0"),
    ] {
        let e = parse_err(line);
        assert!(e.contains(needle), "{line}: {e}");
    }
}

#[test]
fn task_counts_are_checked_at_run_time() {
    let p = parse_ok("-n 1 -l 4");
    assert!(validate_tasks(&p, tasks(4)).is_ok());
    assert!(validate_tasks(&p, tasks(3))
        .unwrap_err()
        .0
        .contains("only 3 tasks"));
    let d = parse_ok("-n 1 -u -d a@b@c");
    assert!(validate_tasks(&d, tasks(2))
        .unwrap_err()
        .0
        .contains("3 test directories"));
    let x = parse_ok("-n 1 -S -w 8 -e 8 -X");
    assert!(validate_tasks(&x, tasks(1)).is_ok());
    assert!(validate_tasks(&x, tasks(2)).is_err());
}

#[test]
fn help_lists_every_option() {
    let h = help();
    assert!(h.starts_with("Synopsis mdtest\n"));
    for c in "abBcCdDeEfFgGiIklLnNpPrRsStTuUvVwWxXyYzZ".chars() {
        assert!(h.contains(&format!("  -{c}")), "-{c} missing");
    }
    for long in [
        "--random-seed",
        "--verify-write",
        "--dataPacketType",
        "--run-cmd-before-phase",
        "--run-cmd-after-phase",
        "--showRankStatistics",
        "--print-all-procs",
        "--posix.odirect",
    ] {
        assert!(h.contains(long), "{long} missing");
    }
}
