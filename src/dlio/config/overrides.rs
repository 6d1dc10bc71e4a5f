//! Hydra 1.3's command-line overrides: `key=value` (the key must exist),
//! `+key=value` (it must not), `++key=value` (either), `~key[=value]`
//! (delete), and `group=option` (`workload=unet3d_h100`). Values are typed
//! as Hydra's grammar types them: int, float, bool, null (case-insensitive
//! words), quoted strings, `[lists]`, `{dicts}`, otherwise strings.

use super::value::{Map, Value};

/// What an override does to its key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// `key=value`: changes a key that exists.
    Change,
    /// `+key=value`: adds a key that does not.
    Add,
    /// `++key=value`: adds or changes.
    Force,
    /// `~key` or `~key=value`: deletes (if the value matches).
    Delete,
}

/// One override as given.
#[derive(Debug, Clone, PartialEq)]
pub struct Override {
    pub action: Action,
    /// The dotted key, split.
    pub key: Vec<String>,
    /// `None` for a `~key` without a value.
    pub value: Option<Value>,
    /// The argument as typed (what `overrides.yaml` records).
    pub text: String,
}

impl Override {
    pub fn dotted(&self) -> String {
        self.key.join(".")
    }
}

/// Parses one command-line argument.
pub fn parse(arg: &str) -> Result<Override, String> {
    let (action, rest) = if let Some(r) = arg.strip_prefix("++") {
        (Action::Force, r)
    } else if let Some(r) = arg.strip_prefix('+') {
        (Action::Add, r)
    } else if let Some(r) = arg.strip_prefix('~') {
        (Action::Delete, r)
    } else {
        (Action::Change, arg)
    };
    let (key, value) = match rest.split_once('=') {
        Some((k, v)) => (k, Some(v)),
        None if action == Action::Delete => (rest, None),
        None => {
            return Err(format!(
                "'{arg}' is not an override (key=value, +key=value, ++key=value or ~key)"
            ))
        }
    };
    let key = parse_key(key.trim()).ok_or_else(|| format!("'{arg}': '{key}' is not a key"))?;
    let value = match value {
        Some(v) => Some(parse_value(v).map_err(|e| format!("'{arg}': {e}"))?),
        None => None,
    };
    Ok(Override {
        action,
        key,
        value,
        text: arg.to_string(),
    })
}

/// `a.b.c`: identifiers (letters, digits, `_`, `-`) joined by dots.
fn parse_key(key: &str) -> Option<Vec<String>> {
    let parts: Vec<String> = key.split('.').map(str::to_string).collect();
    let ident = |p: &String| {
        !p.is_empty()
            && p.chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
    };
    parts.iter().all(ident).then_some(parts)
}

/// A value: an element, unless it is a comma-separated sweep (which needs
/// `--multirun`, which pario does not run).
pub fn parse_value(text: &str) -> Result<Value, String> {
    let mut p = Cursor {
        s: text.as_bytes(),
        at: 0,
        text,
    };
    let value = p.element()?;
    p.spaces();
    if p.peek() == Some(b',') {
        return Err(format!(
            "'{text}' is a sweep; use [a,b] for a list or quote it for a string (pario does not run --multirun)"
        ));
    }
    if p.at < p.s.len() {
        return Err(format!("unexpected '{}' in '{text}'", &text[p.at..]));
    }
    Ok(value)
}

struct Cursor<'a> {
    s: &'a [u8],
    at: usize,
    text: &'a str,
}

/// Characters an unquoted value may hold besides letters and digits.
const UNQUOTED: &[u8] = b"_-+./\\$%*@?|: \t";

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.at).copied()
    }

    fn spaces(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.at += 1;
        }
    }

    fn element(&mut self) -> Result<Value, String> {
        self.spaces();
        match self.peek() {
            Some(b'[') => self.list(),
            Some(b'{') => self.dict(),
            Some(b'\'' | b'"') => {
                let s = self.quoted()?;
                self.spaces();
                Ok(Value::Str(s))
            }
            _ => self.primitive(),
        }
    }

    fn list(&mut self) -> Result<Value, String> {
        self.at += 1;
        let mut items = Vec::new();
        self.spaces();
        if self.peek() == Some(b']') {
            self.at += 1;
            return Ok(Value::List(items));
        }
        loop {
            items.push(self.element()?);
            self.spaces();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b']') => {
                    self.at += 1;
                    return Ok(Value::List(items));
                }
                _ => return Err(format!("unclosed list in '{}'", self.text)),
            }
        }
    }

    fn dict(&mut self) -> Result<Value, String> {
        self.at += 1;
        let mut map = Map::default();
        self.spaces();
        if self.peek() == Some(b'}') {
            self.at += 1;
            return Ok(Value::Map(map));
        }
        loop {
            self.spaces();
            let start = self.at;
            while self
                .peek()
                .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
            {
                self.at += 1;
            }
            let key = self.text[start..self.at].to_string();
            self.spaces();
            if key.is_empty() || self.peek() != Some(b':') {
                return Err(format!("a dict needs key: value items in '{}'", self.text));
            }
            self.at += 1;
            let value = self.element()?;
            map.insert(&key, value);
            self.spaces();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    return Ok(Value::Map(map));
                }
                _ => return Err(format!("unclosed dict in '{}'", self.text)),
            }
        }
    }

    fn quoted(&mut self) -> Result<String, String> {
        let quote = self.s[self.at];
        self.at += 1;
        let mut out = Vec::new();
        while let Some(b) = self.peek() {
            self.at += 1;
            if b == b'\\' && matches!(self.peek(), Some(q) if q == quote || q == b'\\') {
                out.push(self.s[self.at]);
                self.at += 1;
            } else if b == quote {
                return String::from_utf8(out).map_err(|_| "not UTF-8".to_string());
            } else {
                out.push(b);
            }
        }
        Err(format!("unterminated quote in '{}'", self.text))
    }

    /// Unquoted text up to a structural character; typed if it is one
    /// int, float, bool or null.
    fn primitive(&mut self) -> Result<Value, String> {
        let mut out = String::new();
        while let Some(b) = self.peek() {
            if b == b'\\' {
                if let Some(&next) = self.s.get(self.at + 1) {
                    if b"\\()[]{}:=, \t".contains(&next) {
                        out.push(next as char);
                        self.at += 2;
                        continue;
                    }
                }
            }
            if b == b'$' && self.s.get(self.at + 1) == Some(&b'{') {
                let end = self.text[self.at..]
                    .find('}')
                    .ok_or_else(|| format!("unclosed interpolation in '{}'", self.text))?;
                out.push_str(&self.text[self.at..self.at + end + 1]);
                self.at += end + 1;
                continue;
            }
            let ch = self.text[self.at..].chars().next().expect("in bounds");
            if ch.is_alphanumeric() || (b.is_ascii() && UNQUOTED.contains(&b)) {
                out.push(ch);
                self.at += ch.len_utf8();
            } else if b"],}".contains(&b) {
                break;
            } else {
                return Err(format!(
                    "'{ch}' is not allowed in an unquoted value ('{}'); quote the value",
                    self.text
                ));
            }
        }
        // Hydra's functions (choice(), range()...) stop at '(' above.
        Ok(typed(out.trim()))
    }
}

/// Hydra's primitive types: `null`, `true`/`false` (any case), INT
/// (`[+-]?(0|[1-9](_?[0-9])*)`), FLOAT (with '.', an exponent, `inf` or
/// `nan`); anything else stays a string.
pub fn typed(s: &str) -> Value {
    let lower = s.to_ascii_lowercase();
    match lower.as_str() {
        "null" => return Value::Null,
        "true" => return Value::Bool(true),
        "false" => return Value::Bool(false),
        _ => {}
    }
    let (negative, body) = match lower.as_bytes().first() {
        Some(b'-') => (true, &lower[1..]),
        Some(b'+') => (false, &lower[1..]),
        _ => (false, lower.as_str()),
    };
    if is_int(body) {
        let clean = body.replace('_', "");
        if let Ok(v) = clean.parse::<i64>() {
            return Value::Int(if negative { -v } else { v });
        }
    }
    if body == "inf" || body == "nan" || is_float(body) {
        if let Ok(x) = body.replace('_', "").parse::<f64>() {
            return Value::Float(if negative { -x } else { x });
        }
    }
    Value::Str(s.to_string())
}

fn is_int(s: &str) -> bool {
    s == "0" || (s.starts_with(|c: char| matches!(c, '1'..='9')) && digits(s))
}

/// `[0-9](_?[0-9])*`.
fn digits(s: &str) -> bool {
    !s.is_empty()
        && !s.ends_with('_')
        && !s.contains("__")
        && s.bytes().all(|b| b.is_ascii_digit() || b == b'_')
        && s.as_bytes()[0].is_ascii_digit()
}

/// POINT_FLOAT or EXPONENT_FLOAT.
fn is_float(s: &str) -> bool {
    let (mantissa, exp) = match s.split_once('e') {
        Some((m, e)) => (m, Some(e)),
        None => (s, None),
    };
    if let Some(e) = exp {
        let e = e.strip_prefix(['+', '-']).unwrap_or(e);
        if !digits(e) {
            return false;
        }
    }
    let point = match mantissa.split_once('.') {
        Some(("", frac)) => digits(frac),
        Some((int, "")) => is_int(int),
        Some((int, frac)) => is_int(int) && digits(frac),
        None => false,
    };
    point || (exp.is_some() && is_int(mantissa))
}

#[cfg(test)]
mod tests;
