//! The file of `pario concurrent`: one group per line, `SHARE% TOOL ARGS...`,
//! `#` comments; and the split of the tasks into the groups.

use std::ops::Range;

use crate::error::UsageError;
use crate::ior::Ior;
use crate::mdtest::Mdtest;
use crate::mdworkbench::MdWorkbench;
use crate::tool::Tool;

/// The tools a group can run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Ior,
    Mdtest,
    MdWorkbench,
}

impl Kind {
    pub const ALL: [Kind; 3] = [Kind::Ior, Kind::Mdtest, Kind::MdWorkbench];

    fn of(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            Kind::Ior => Ior::NAME,
            Kind::Mdtest => Mdtest::NAME,
            Kind::MdWorkbench => MdWorkbench::NAME,
        }
    }

    /// The tool's own options that stop it at `seconds` (and, for ior,
    /// keep it going until then: `minTimeDuration`), so every group ends
    /// at the same deadline.
    pub fn deadline_args(self, seconds: u64) -> Vec<String> {
        let s = seconds.to_string();
        match self {
            Kind::Ior => vec![
                "-D".into(),
                s.clone(),
                "-O".into(),
                format!("minTimeDuration={s}"),
            ],
            Kind::Mdtest => vec!["-W".into(), s],
            Kind::MdWorkbench => vec!["-w".into(), s],
        }
    }

    /// Parses and checks a command line with the tool's own parser.
    pub fn check(self, args: &[String]) -> Result<(), UsageError> {
        match self {
            Kind::Ior => Ior.parse(Ior::NAME, args).map(|_| ()),
            Kind::Mdtest => Mdtest.parse(Mdtest::NAME, args).map(|_| ()),
            Kind::MdWorkbench => MdWorkbench.parse(MdWorkbench::NAME, args).map(|_| ()),
        }
    }
}

/// One group: its share of the tasks and its command line.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    /// Its line in the file (1-based).
    pub line: usize,
    /// Percent of the tasks.
    pub share: u32,
    pub kind: Kind,
    pub args: Vec<String>,
    /// The same tool's untimed command line on the group's tasks before
    /// the first round (io500's md-workbench precreate before its
    /// benchmark); a file's groups have none.
    pub before: Option<Vec<String>>,
}

impl Group {
    /// The command line as a user would type it.
    pub fn command(&self) -> String {
        std::iter::once(self.kind.name().to_string())
            .chain(self.args.iter().map(|a| quoted(a)))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

fn quoted(arg: &str) -> String {
    match arg.is_empty() || arg.contains(char::is_whitespace) {
        true => format!("'{arg}'"),
        false => arg.to_string(),
    }
}

/// Parses the file's text; every line's command line is checked by its
/// tool's parser, and the shares must add up to 100.
pub fn parse(name: &str, text: &str) -> Result<Vec<Group>, UsageError> {
    let mut groups = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let content = raw.split_once('#').map_or(raw, |(before, _)| before).trim();
        if content.is_empty() {
            continue;
        }
        let at = |why: String| UsageError(format!("{name}:{line}: {why}"));
        let words = split_words(content).map_err(|e| at(e.to_string()))?;
        let (share, rest) = words.split_first().expect("a line with content has a word");
        let share = share
            .strip_suffix('%')
            .and_then(|s| s.parse::<u32>().ok())
            .filter(|s| (1..=100).contains(s))
            .ok_or_else(|| {
                at(format!(
                    "'{share}' is not a share: each line starts with a percentage such as 20%"
                ))
            })?;
        let Some((tool, args)) = rest.split_first() else {
            return Err(at("a tool and its arguments follow the share".into()));
        };
        let kind = Kind::of(tool).ok_or_else(|| {
            at(format!(
                "'{tool}' is not a tool a group can run: ior, mdtest or md-workbench"
            ))
        })?;
        kind.check(args)
            .map_err(|e| at(format!("{tool}: {}", e.0)))?;
        groups.push(Group {
            line,
            share,
            kind,
            args: args.to_vec(),
            before: None,
        });
    }
    if groups.is_empty() {
        return Err(UsageError(format!(
            "{name}: no group: each line is SHARE% TOOL ARGS..."
        )));
    }
    let total: u32 = groups.iter().map(|g| g.share).sum();
    if total != 100 {
        return Err(UsageError(format!(
            "{name}: the shares add up to {total}%, not 100%"
        )));
    }
    Ok(groups)
}

/// Words separated by blanks; single or double quotes keep blanks.
fn split_words(text: &str) -> Result<Vec<String>, &'static str> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut quote: Option<char> = None;
    for c in text.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.get_or_insert_with(String::new).push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                word.get_or_insert_with(String::new);
            }
            (None, c) if c.is_whitespace() => words.extend(word.take()),
            (None, c) => word.get_or_insert_with(String::new).push(c),
        }
    }
    if quote.is_some() {
        return Err("a quote is not closed");
    }
    words.extend(word);
    Ok(words)
}

/// The tasks of each group, contiguous ranks in the file's order: each
/// share of `tasks` rounded to whole tasks by largest remainder (ties to the
/// earlier line); a group left without a task is refused.
pub fn split(shares: &[u32], tasks: usize) -> Result<Vec<Range<usize>>, String> {
    let exact: Vec<u64> = shares.iter().map(|&s| s as u64 * tasks as u64).collect();
    let mut counts: Vec<usize> = exact.iter().map(|e| (e / 100) as usize).collect();
    let left = tasks - counts.iter().sum::<usize>();
    let mut order: Vec<usize> = (0..shares.len()).collect();
    order.sort_by_key(|&g| std::cmp::Reverse(exact[g] % 100));
    for &g in order.iter().cycle().take(left) {
        counts[g] += 1;
    }
    if let Some(g) = counts.iter().position(|&c| c == 0) {
        return Err(format!(
            "group {} ({}%) gets no task of {tasks}: every group needs at least one (run on more tasks or raise its share)",
            g + 1,
            shares[g]
        ));
    }
    let mut first = 0;
    Ok(counts
        .iter()
        .map(|&c| {
            let r = first..first + c;
            first += c;
            r
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_round_to_whole_tasks() {
        assert_eq!(split(&[20, 40, 40], 10).unwrap(), [0..2, 2..6, 6..10]);
        // 20/40/40 of 8: 1.6, 3.2, 3.2 -> 2, 3, 3.
        assert_eq!(split(&[20, 40, 40], 8).unwrap(), [0..2, 2..5, 5..8]);
        assert_eq!(
            split(&[50, 50], 3).unwrap(),
            [0..2, 2..3],
            "ties to the earlier line"
        );
        assert_eq!(split(&[100], 4).unwrap(), vec![Range { start: 0, end: 4 }]);
        let e = split(&[20, 40, 40], 2).unwrap_err();
        assert!(e.contains("group 1 (20%) gets no task of 2"), "{e}");
    }

    #[test]
    fn lines_comments_and_refusals() {
        let text =
            "# the IO500#56 mix\n20% ior -w -t 1m -b 4m -o 'a b'  # easy\n\n80% md-workbench -1\n";
        let groups = parse("mix", text).unwrap();
        assert_eq!(groups.len(), 2);
        assert_eq!(groups[0].line, 2);
        assert_eq!(groups[0].args.last().unwrap(), "a b");
        assert_eq!(groups[0].command(), "ior -w -t 1m -b 4m -o 'a b'");
        assert_eq!(groups[1].kind, Kind::MdWorkbench);
        for (bad, why) in [
            ("50% ior -w\n40% ior -r\n", "add up to 90%"),
            ("x ior -w\n", "'x' is not a share"),
            ("100% io500 x.ini\n", "not a tool a group can run"),
            ("100% ior -t 0\n", "mix:1: ior: -t 0"),
            ("100%\n", "a tool and its arguments"),
            ("# nothing\n", "no group"),
            ("100% ior -o 'open\n", "quote"),
        ] {
            let e = parse("mix", bad).unwrap_err().0;
            assert!(e.contains(why), "{bad}: {e}");
        }
    }
}
