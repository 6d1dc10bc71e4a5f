//! `--plan=OUT.ini`: the user's configuration with the proposed keys
//! changed in place (comments and everything else kept), and the probed
//! rates as comment lines the run reads back for its pre-flight check.

/// The rate a probe measured for a write phase, over `tasks` tasks: GiB/s
/// for ior, kIOPS for mdtest (the units of the phase's score).
#[derive(Debug, Clone, PartialEq)]
pub struct PlanRate {
    pub phase: String,
    pub rate: f64,
    pub tasks: usize,
    /// The margin the plan sized with (`None`: a plan's line without one).
    pub margin: Option<f64>,
}

/// How the first line of a planned configuration starts (a new plan
/// replaces it).
pub const HEADER: &str = "# io500 --plan";

/// The comment lines' prefix:
/// `# plan-rate ior-easy-write = 1.234567 over 4 tasks, margin 1.50`.
const RATE: &str = "# plan-rate ";

impl PlanRate {
    /// Its comment line.
    pub fn line(&self) -> String {
        let line = format!(
            "{RATE}{} = {:.6} over {} tasks",
            self.phase, self.rate, self.tasks
        );
        match self.margin {
            Some(m) => format!("{line}, margin {m:.2}"),
            None => line,
        }
    }

    /// The rate of one task (the plan assumes each task keeps its rate).
    pub fn per_task(&self) -> f64 {
        self.rate / self.tasks.max(1) as f64
    }

    fn parse(line: &str) -> Option<PlanRate> {
        let rest = line.trim().strip_prefix(RATE)?;
        let (phase, rest) = rest.split_once('=')?;
        let mut words = rest.split_whitespace();
        let rate = words.next()?.parse().ok()?;
        let tasks = match (words.next(), words.next()) {
            (Some("over"), Some(n)) => n.parse().ok()?,
            _ => return None,
        };
        let margin = match (words.nth(1), words.next()) {
            (Some("margin"), Some(m)) => Some(m.parse().ok().filter(|m: &f64| *m >= 1.0)?),
            _ => None,
        };
        Some(PlanRate {
            phase: phase.trim().to_string(),
            rate,
            tasks,
            margin,
        })
    }
}

/// The rates a plan left in a configuration's text (none: no plan made it).
pub fn rates(text: &str) -> Vec<PlanRate> {
    text.lines().filter_map(PlanRate::parse).collect()
}

/// A key set to a new value in a section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub section: &'static str,
    pub key: &'static str,
    pub value: String,
}

/// `text` with each change made: the key's lines in its section rewritten
/// (every occurrence, so the last one, which wins, has the new value), or
/// the key added at the end of the section's last block, or the section
/// added; an earlier plan's lines replaced by `header` (which starts
/// with [`HEADER`]) and `rates` at the top.
pub fn rewrite(text: &str, changes: &[Change], header: &str, rates: &[PlanRate]) -> String {
    let mut lines: Vec<String> = text
        .lines()
        .filter(|l| PlanRate::parse(l).is_none() && !l.starts_with(HEADER))
        .map(str::to_string)
        .collect();
    for c in changes {
        set(&mut lines, c);
    }
    let mut out = String::from(header);
    out.push('\n');
    for r in rates {
        out.push_str(&r.line());
        out.push('\n');
    }
    for l in lines {
        out.push_str(&l);
        out.push('\n');
    }
    out
}

/// The section a header line opens (lower case), if it is one.
fn header_of(line: &str) -> Option<String> {
    let t = line.trim();
    let inner = t.strip_prefix('[')?.split(']').next()?;
    Some(inner.trim().to_ascii_lowercase())
}

/// The key a `key = value` line sets (lower case), if it is one.
fn key_of(line: &str) -> Option<String> {
    let t = line.trim();
    if t.starts_with(['#', ';', '[']) {
        return None;
    }
    let (k, _) = t.split_once('=')?;
    Some(k.trim().to_ascii_lowercase())
}

fn set(lines: &mut Vec<String>, c: &Change) {
    let new = format!("{} = {}", c.key, c.value);
    let (section, key) = (c.section.to_ascii_lowercase(), c.key.to_ascii_lowercase());
    let mut current = None;
    let mut found = false;
    let mut end_of_section = None;
    for (i, line) in lines.iter_mut().enumerate() {
        if let Some(h) = header_of(line) {
            current = Some(h);
            continue;
        }
        if current.as_deref() != Some(section.as_str()) {
            continue;
        }
        if !line.trim().is_empty() {
            end_of_section = Some(i + 1);
        }
        if key_of(line).as_deref() == Some(key.as_str()) {
            *line = new.clone();
            found = true;
        }
    }
    match (found, end_of_section) {
        (true, _) => {}
        (false, Some(at)) => lines.insert(at, new),
        (false, None) => match lines
            .iter()
            .rposition(|l| header_of(l).as_deref() == Some(&section))
        {
            Some(at) => lines.insert(at + 1, new),
            None => {
                lines.push(String::new());
                lines.push(format!("[{}]", c.section));
                lines.push(new);
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io500::config::Config;

    fn change(section: &'static str, key: &'static str, value: &str) -> Change {
        Change {
            section,
            key,
            value: value.into(),
        }
    }

    #[test]
    fn keys_are_changed_added_and_sections_made() {
        let text = "# mine\n[global]\ndatadir = /d ; here\n\n[ior-easy]\nblocksize = 1m\ntransferSize = 1m\n\n[mdtest-easy]\n\n[find]\nnproc = 1\n";
        let changes = [
            change("ior-easy", "blockSize", "8m"),
            change("mdtest-easy", "n", "100"),
            change("ior-hard", "segmentCount", "7"),
        ];
        let probed = [PlanRate {
            phase: "ior-easy-write".into(),
            rate: 1.5,
            tasks: 2,
            margin: Some(1.75),
        }];
        let out = rewrite(text, &changes, "# io500 --plan here", &probed);
        assert!(out.starts_with(
            "# io500 --plan here\n# plan-rate ior-easy-write = 1.500000 over 2 tasks, margin 1.75\n# mine\n"
        ));
        let c = Config::parse("out.ini", &out).unwrap();
        assert_eq!(c.value("ior-easy", "blockSize"), "8m");
        assert_eq!(c.value("ior-easy", "transferSize"), "1m");
        assert_eq!(c.value("mdtest-easy", "n"), "100");
        assert_eq!(c.value("ior-hard", "segmentCount"), "7");
        assert_eq!(c.value("global", "datadir"), "/d");
        assert_eq!(rates(&out), probed.to_vec());
        // A second plan over the first replaces its lines.
        let again = rewrite(&out, &changes, "# io500 --plan here", &[]);
        assert!(rates(&again).is_empty());
        assert_eq!(again.matches("# io500 --plan here").count(), 1);
        assert_eq!(Config::parse("again.ini", &again).unwrap(), c);
    }

    #[test]
    fn malformed_rate_lines_are_not_rates() {
        for line in [
            "# plan-rate x = y over 2 tasks",
            "# plan-rate x = 1.0",
            "# plan-rate x = 1.0 under 2 tasks",
            "# plan-rate x = 1.0 over 2 tasks, margin 0.5",
            "# plan-rate x = 1.0 over 2 tasks, margin many",
            "plan-rate x = 1.0 over 2 tasks",
        ] {
            assert!(rates(line).is_empty(), "{line}");
        }
    }
}
