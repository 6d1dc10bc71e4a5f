use super::*;

fn args(s: &str) -> Vec<String> {
    s.split_whitespace().map(str::to_string).collect()
}

fn parse_ok(s: &str) -> MdtestParams {
    parse(&args(s)).unwrap().unwrap()
}

#[test]
fn defaults_run_every_phase() {
    let p = parse_ok("-n 10");
    assert!(p.create && p.stat && p.read && p.remove && p.rename);
    assert!(p.directory_phases() && p.file_phases());
    let c = parse_ok("-n 10 -C");
    assert!(c.create && !c.stat && !c.read && !c.remove && !c.rename);
}
