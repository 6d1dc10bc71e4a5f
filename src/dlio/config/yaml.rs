//! YAML as Hydra reads and writes it: OmegaConf loads with PyYAML's YAML 1.1
//! resolver (so `off`, `yes`, `0755` and `1_000` are not strings) with its
//! own float pattern added (`1e5` is a float) and no timestamps; it writes
//! with PyYAML's block style and quotes a string that would read back as
//! something else. saphyr-parser gives the structure and each scalar's
//! style; the types are given here ([`resolve`]).

use std::collections::HashMap;

use saphyr_parser::{Event, Parser, ScalarStyle, Tag};

use super::value::{python_float, Map, Value};

/// Parses one YAML document (an empty text is an empty map).
pub fn load(text: &str) -> Result<Value, String> {
    let mut events = Vec::new();
    for event in Parser::new_from_str(text) {
        let (event, span) = event.map_err(|e| {
            let m = e.marker();
            format!("{} (line {}, column {})", e.info(), m.line(), m.col() + 1)
        })?;
        events.push((event, span.start.line()));
    }
    let mut builder = Builder {
        events,
        at: 0,
        anchors: HashMap::new(),
    };
    builder.document()
}

struct Builder<'a> {
    events: Vec<(Event<'a>, usize)>,
    at: usize,
    anchors: HashMap<usize, Value>,
}

impl<'a> Builder<'a> {
    fn next(&mut self) -> Result<(Event<'a>, usize), String> {
        let event = self.events.get(self.at).cloned();
        self.at += 1;
        event.ok_or_else(|| "unexpected end of the YAML text".to_string())
    }

    fn document(&mut self) -> Result<Value, String> {
        let mut root = None;
        while self.at < self.events.len() {
            let (event, line) = self.next()?;
            match event {
                Event::StreamStart | Event::DocumentEnd | Event::Nothing => {}
                Event::StreamEnd => break,
                Event::DocumentStart(_) if root.is_some() => {
                    return Err(format!("a second YAML document at line {line}"))
                }
                Event::DocumentStart(_) => root = Some(self.node()?),
                _ => return Err(format!("unexpected YAML at line {line}")),
            }
        }
        Ok(match root {
            None | Some(Value::Null) => Value::Map(Map::default()),
            Some(v) => v,
        })
    }

    fn node(&mut self) -> Result<Value, String> {
        let (event, line) = self.next()?;
        let (value, anchor) = match event {
            Event::Scalar(text, style, anchor, tag) => {
                (scalar(&text, style, tag.as_deref(), line)?, anchor)
            }
            Event::SequenceStart(anchor, _) => (self.sequence()?, anchor),
            Event::MappingStart(anchor, _) => (self.mapping(line)?, anchor),
            Event::Alias(id) => {
                let v = self.anchors.get(&id).cloned();
                return v.ok_or_else(|| format!("unknown alias at line {line}"));
            }
            _ => return Err(format!("unexpected YAML at line {line}")),
        };
        if anchor > 0 {
            self.anchors.insert(anchor, value.clone());
        }
        Ok(value)
    }

    /// Whether the collection ends here (and steps over its end).
    fn ends(&mut self, end: fn(&Event<'_>) -> bool) -> bool {
        let at_end = self.events.get(self.at).is_none_or(|(e, _)| end(e));
        if at_end {
            self.at += 1;
        }
        at_end
    }

    fn sequence(&mut self) -> Result<Value, String> {
        let mut items = Vec::new();
        while !self.ends(|e| matches!(e, Event::SequenceEnd)) {
            items.push(self.node()?);
        }
        Ok(Value::List(items))
    }

    fn mapping(&mut self, start: usize) -> Result<Value, String> {
        let mut map = Map::default();
        while !self.ends(|e| matches!(e, Event::MappingEnd)) {
            let key = match self.node()? {
                Value::Str(s) => s,
                Value::Int(i) => i.to_string(),
                other => return Err(format!("a key is {} ({other}), not a name", other.kind())),
            };
            let value = self.node()?;
            if map.get(&key).is_some() {
                return Err(format!(
                    "duplicate key '{key}' in the mapping at line {start}"
                ));
            }
            map.0.push((key, value));
        }
        Ok(Value::Map(map))
    }
}

/// A scalar: quoted and block scalars are strings, plain ones are typed by
/// [`resolve`]; the core tags `!!str`, `!!int`, `!!float`, `!!bool` and
/// `!!null` force a type.
fn scalar(text: &str, style: ScalarStyle, tag: Option<&Tag>, line: usize) -> Result<Value, String> {
    if let Some(tag) = tag {
        let typed = match (tag.handle.as_str(), tag.suffix.as_str()) {
            ("!!", "str") | ("tag:yaml.org,2002:", "str") => Some(Value::Str(text.into())),
            ("!!", kind) | ("tag:yaml.org,2002:", kind) => {
                let v = resolve(text);
                let ok = matches!(
                    (kind, &v),
                    ("int", Value::Int(_))
                        | ("float", Value::Float(_))
                        | ("bool", Value::Bool(_))
                        | ("null", Value::Null)
                );
                let v = match (kind, v) {
                    ("float", Value::Int(i)) => Some(Value::Float(i as f64)),
                    (_, v) => ok.then_some(v),
                };
                v.map(Some)
                    .ok_or_else(|| format!("'{text}' is not a !!{kind} (line {line})"))?
            }
            _ => None,
        };
        return typed.ok_or_else(|| {
            format!(
                "the tag {}{} is not supported (line {line})",
                tag.handle, tag.suffix
            )
        });
    }
    Ok(match style {
        ScalarStyle::Plain => resolve(text),
        _ => Value::Str(text.into()),
    })
}

/// The type a plain scalar takes, by PyYAML's resolvers in their order
/// (bool, float, int, null), then OmegaConf's float; a string otherwise.
pub fn resolve(s: &str) -> Value {
    if let Some(b) = bool_word(s) {
        return Value::Bool(b);
    }
    if let Some(x) = yaml_float(s) {
        return Value::Float(x);
    }
    if let Some(v) = yaml_int(s) {
        return v;
    }
    if matches!(s, "" | "~" | "null" | "Null" | "NULL") {
        return Value::Null;
    }
    if let Some(x) = exponent_float(s) {
        return Value::Float(x);
    }
    Value::Str(s.to_string())
}

fn bool_word(s: &str) -> Option<bool> {
    match s {
        "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => Some(true),
        "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => Some(false),
        _ => None,
    }
}

fn strip_sign(s: &str) -> (bool, &str) {
    match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    }
}

fn all(s: &str, f: impl Fn(u8) -> bool) -> bool {
    s.bytes().all(f)
}

fn digits_(s: &str) -> bool {
    all(s, |b| b.is_ascii_digit() || b == b'_')
}

/// `[0-9][0-9_]*`
fn int_part(s: &str) -> bool {
    s.as_bytes().first().is_some_and(u8::is_ascii_digit) && digits_(s)
}

/// `[eE][-+][0-9]+` (PyYAML's) or `[eE][-+]?[0-9]+` (OmegaConf's).
fn exponent(s: &str, sign_required: bool) -> bool {
    let Some(rest) = s.strip_prefix(['e', 'E']) else {
        return false;
    };
    let digits = match rest.strip_prefix(['-', '+']) {
        Some(d) => d,
        None if sign_required => return false,
        None => rest,
    };
    !digits.is_empty() && all(digits, |b| b.is_ascii_digit())
}

/// `[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+` (unsigned here) and its value, base
/// 60; the int form wants a first digit that is not 0.
fn sexagesimal(s: &str, int_form: bool) -> Option<f64> {
    let mut parts = s.split(':');
    let first = parts.next()?;
    if !int_part(first) || (int_form && first.starts_with('0')) {
        return None;
    }
    let mut value: f64 = first.replace('_', "").parse().ok()?;
    let mut any = false;
    for part in parts {
        let ok = matches!(part.len(), 1 | 2)
            && all(part, |b| b.is_ascii_digit())
            && (part.len() == 1 || part.as_bytes()[0] <= b'5');
        if !ok {
            return None;
        }
        value = value * 60.0 + part.parse::<f64>().ok()?;
        any = true;
    }
    any.then_some(value)
}

/// PyYAML's float pattern (a '.' is required) and its value.
fn yaml_float(s: &str) -> Option<f64> {
    let (negative, body) = strip_sign(s);
    let signed = |x: f64| if negative { -x } else { x };
    if matches!(body, ".inf" | ".Inf" | ".INF") {
        return Some(signed(f64::INFINITY));
    }
    if matches!(s, ".nan" | ".NaN" | ".NAN") {
        return Some(f64::NAN);
    }
    if body.contains(':') {
        let (int, frac) = body.rsplit_once('.')?;
        if !digits_(frac) {
            return None;
        }
        let whole = sexagesimal(int, false)?;
        let frac: f64 = format!("0.{}", frac.replace('_', ""))
            .parse()
            .unwrap_or(0.0);
        return Some(signed(whole + frac));
    }
    let (mantissa, exp) = match body.find(['e', 'E']) {
        Some(at) => (&body[..at], Some(&body[at..])),
        None => (body, None),
    };
    if exp.is_some_and(|e| !exponent(e, true)) {
        return None;
    }
    let (int, frac) = mantissa.split_once('.')?;
    let ok = if int.is_empty() {
        // `\.[0-9_]+`: no sign allowed.
        !negative && s.starts_with('.') && !frac.is_empty() && digits_(frac)
    } else {
        int_part(int) && digits_(frac)
    };
    ok.then(|| parse_float(s))?
}

/// OmegaConf's extra form: `[-+]?[0-9][0-9_]*[eE][-+]?[0-9]+`.
fn exponent_float(s: &str) -> Option<f64> {
    let (_, body) = strip_sign(s);
    let at = body.find(['e', 'E'])?;
    (int_part(&body[..at]) && exponent(&body[at..], false)).then(|| parse_float(s))?
}

fn parse_float(s: &str) -> Option<f64> {
    s.replace('_', "").parse().ok()
}

/// PyYAML's YAML 1.1 int: binary, octal (a leading 0), decimal, hex,
/// base 60.
fn yaml_int(s: &str) -> Option<Value> {
    let (negative, body) = strip_sign(s);
    let parse = |digits: &str, radix: u32| -> Option<Value> {
        let clean = digits.replace('_', "");
        let magnitude = i128::from_str_radix(&clean, radix).ok()?;
        let v = if negative { -magnitude } else { magnitude };
        Some(i64::try_from(v).map_or_else(|_| Value::Float(v as f64), Value::Int))
    };
    if let Some(bits) = body.strip_prefix("0b") {
        return all(bits, |b| matches!(b, b'0' | b'1' | b'_')).then(|| parse(bits, 2))?;
    }
    if let Some(hex) = body.strip_prefix("0x") {
        return all(hex, |b| b.is_ascii_hexdigit() || b == b'_').then(|| parse(hex, 16))?;
    }
    if body == "0" {
        return Some(Value::Int(0));
    }
    if let Some(oct) = body.strip_prefix('0') {
        return (!oct.is_empty() && all(oct, |b| matches!(b, b'0'..=b'7' | b'_')))
            .then(|| parse(oct, 8))?;
    }
    if body.contains(':') {
        let v = sexagesimal(body, true)?;
        return Some(Value::Int(if negative { -v as i64 } else { v as i64 }));
    }
    (int_part(body) && !body.starts_with('0')).then(|| parse(body, 10))?
}

/// Writes a map as `OmegaConf.to_yaml` does (PyYAML block style, indent 2,
/// sequences not indented under their key, keys in order).
pub fn dump(map: &Map) -> String {
    let mut out = String::new();
    if map.0.is_empty() {
        out.push_str("{}\n");
    }
    write_map(map, 0, &mut out);
    out
}

fn write_map(map: &Map, indent: usize, out: &mut String) {
    for (key, value) in &map.0 {
        out.push_str(&" ".repeat(indent));
        out.push_str(&quote(key));
        out.push(':');
        write_child(value, indent, out);
    }
}

fn write_child(value: &Value, indent: usize, out: &mut String) {
    match value {
        Value::Map(m) if !m.0.is_empty() => {
            out.push('\n');
            write_map(m, indent + 2, out);
        }
        Value::List(items) if !items.is_empty() => {
            out.push('\n');
            write_list(items, indent, out);
        }
        other => {
            out.push(' ');
            out.push_str(&scalar_text(other));
            out.push('\n');
        }
    }
}

fn write_list(items: &[Value], indent: usize, out: &mut String) {
    for item in items {
        out.push_str(&" ".repeat(indent));
        out.push('-');
        match item {
            Value::Map(m) if !m.0.is_empty() => {
                // The first key on the dash's line, the others under it.
                let mut first = String::new();
                write_map(m, indent + 2, &mut first);
                out.push(' ');
                out.push_str(first.trim_start());
            }
            Value::List(inner) if !inner.is_empty() => {
                let mut nested = String::new();
                write_list(inner, indent + 2, &mut nested);
                out.push(' ');
                out.push_str(nested.trim_start());
            }
            other => {
                out.push(' ');
                out.push_str(&scalar_text(other));
                out.push('\n');
            }
        }
    }
}

/// A leaf as PyYAML writes it.
pub fn scalar_text(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Float(x) if x.is_nan() => ".nan".into(),
        Value::Float(x) if x.is_infinite() => if *x > 0.0 { ".inf" } else { "-.inf" }.into(),
        Value::Float(x) => {
            let text = python_float(*x);
            // PyYAML: '1e-05' is not a YAML float; it writes '1.0e-05'.
            if text.contains('e') && !text.contains('.') {
                text.replacen('e', ".0e", 1)
            } else {
                text
            }
        }
        Value::Str(s) => quote(s),
        Value::List(_) => "[]".into(),
        Value::Map(_) => "{}".into(),
    }
}

/// A string, plain when it reads back as the same string, else quoted.
pub fn quote(s: &str) -> String {
    if s.chars().any(|c| c.is_control() && c != '\t') || s.contains('\t') {
        return double_quoted(s);
    }
    if needs_quotes(s) {
        format!("'{}'", s.replace('\'', "''"))
    } else {
        s.to_string()
    }
}

fn needs_quotes(s: &str) -> bool {
    if s.is_empty() || s.trim() != s {
        return true;
    }
    // OmegaConf quotes what Python would take for a bool or a number.
    let omegaconf_words = [
        "y", "Y", "n", "N", "yes", "Yes", "YES", "no", "No", "NO", "true", "True", "TRUE", "false",
        "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF",
    ];
    if omegaconf_words.contains(&s) || python_number(s) {
        return true;
    }
    if !matches!(resolve(s), Value::Str(_)) || date_like(s) {
        return true;
    }
    let first = s.chars().next().unwrap_or(' ');
    let second = s.chars().nth(1);
    let spaced = |c: Option<char>| c.is_none_or(|c| c == ' ');
    if "#,[]{}&*!|>'\"%@`".contains(first) || ("?:-".contains(first) && spaced(second)) {
        return true;
    }
    s.starts_with("---")
        || s.starts_with("...")
        || s.contains(": ")
        || s.contains(" #")
        || s.ends_with(':')
}

/// PyYAML's writer still knows timestamps (`2025-01-01`, with a time after
/// it or not), though OmegaConf's reader does not: it quotes them.
fn date_like(s: &str) -> bool {
    let b = s.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| b.get(r).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    if !(digits(0..4) && b.get(4) == Some(&b'-')) {
        return false;
    }
    // -M[M]-D[D]
    let rest = &s[5..];
    let mut parts = rest.splitn(3, '-');
    let month = parts.next().unwrap_or("");
    let Some(tail) = parts.next() else {
        return false;
    };
    let day_len = tail.bytes().take_while(u8::is_ascii_digit).count();
    let after = &tail[day_len..];
    matches!(month.len(), 1 | 2)
        && month.bytes().all(|c| c.is_ascii_digit())
        && matches!(day_len, 1 | 2)
        && (after.is_empty() || after.starts_with(['T', 't', ' ', '\t']))
}

/// Whether Python's `int()` or `float()` takes the text.
fn python_number(s: &str) -> bool {
    let t = s.trim();
    let (_, body) = strip_sign(t);
    let lower = body.to_ascii_lowercase();
    if matches!(lower.as_str(), "inf" | "infinity" | "nan") {
        return true;
    }
    let clean = body.replace('_', "");
    let underscores_ok = !body.starts_with('_') && !body.ends_with('_') && !body.contains("__");
    underscores_ok
        && !clean.is_empty()
        && clean.parse::<f64>().is_ok()
        && !clean.contains(['i', 'I', 'n', 'N'])
}

fn double_quoted(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\x{:02X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests;
