use super::*;

#[test]
fn every_option_has_help_text() {
    assert_eq!(undocumented(), Vec::<String>::new());
}

#[test]
fn every_program_has_a_tool_and_a_man_page() {
    let names: Vec<&str> = TOOLS.iter().map(|t| t.name()).collect();
    for p in PROGRAMS {
        assert!(names.contains(&p.tool), "{}", p.tool);
    }
    let stems: Vec<&str> = man_pages().into_iter().map(|(s, _)| s).collect();
    assert_eq!(
        stems,
        [
            "ior",
            "mdtest",
            "md-workbench",
            "io500",
            "dlio_benchmark",
            "pario"
        ]
    );
}

#[test]
fn roff_escapes_dashes_backslashes_and_leading_dots() {
    assert_eq!(man::esc(".x -b \\n"), "\\&.x \\-b \\en");
}

#[test]
fn a_page_lists_every_spelling_of_its_table() {
    let ior = pages().into_iter().find(|p| p.tool == "ior").expect("ior");
    let page = man::program(&ior, &PROGRAMS[0]);
    for o in &ior.options {
        for s in o.spellings() {
            let s = s.replace('-', "\\-");
            assert!(page.contains(&s), "{s} not in ior.1");
        }
    }
    let md = markdown::reference(&pages(), &backends());
    assert!(md.contains("| `-b`, `--blockSize` | `1048576` |"), "{md}");
}
