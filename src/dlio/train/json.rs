//! JSON as Python's `json.dump(..., indent=4)` writes DLIO's files: keys in
//! the order DLIO inserts them, four spaces, and `NaN` for a mean of
//! nothing (numpy's), which JSON proper has no spelling for.

use std::io;
use std::path::Path;

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

/// A JSON value with ordered keys.
#[derive(Debug, Clone, PartialEq)]
pub enum J {
    Num(f64),
    Int(i64),
    Str(String),
    List(Vec<J>),
    Obj(Vec<(String, J)>),
}

/// What a NaN is written as before the text is put right.
const NAN_MARK: &str = "\u{1}NaN\u{1}";

impl Serialize for J {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            J::Num(v) if v.is_finite() => s.serialize_f64(*v),
            J::Num(_) => s.serialize_str(NAN_MARK),
            J::Int(v) => s.serialize_i64(*v),
            J::Str(v) => s.serialize_str(v),
            J::List(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for i in items {
                    seq.serialize_element(i)?;
                }
                seq.end()
            }
            J::Obj(pairs) => {
                let mut map = s.serialize_map(Some(pairs.len()))?;
                for (k, v) in pairs {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

impl J {
    pub fn obj() -> J {
        J::Obj(Vec::new())
    }

    /// Adds a key (builder style).
    pub fn with(mut self, key: &str, value: J) -> J {
        self.set(key, value);
        self
    }

    /// Sets a key: a new one at the end, an existing one in its place (as a
    /// Python dict).
    pub fn set(&mut self, key: &str, value: J) {
        if let J::Obj(pairs) = self {
            match pairs.iter_mut().find(|(k, _)| k == key) {
                Some((_, v)) => *v = value,
                None => pairs.push((key.to_string(), value)),
            }
        }
    }

    pub fn nums(values: &[f64]) -> J {
        J::List(values.iter().map(|v| J::Num(*v)).collect())
    }

    pub fn str(s: impl Into<String>) -> J {
        J::Str(s.into())
    }

    /// `/proc` pairs as a dict.
    pub fn pairs(pairs: &[(String, String)]) -> J {
        J::Obj(
            pairs
                .iter()
                .map(|(k, v)| (k.clone(), J::Str(v.clone())))
                .collect(),
        )
    }

    /// The text, as DLIO's files have it.
    pub fn text(&self) -> String {
        let mut out = Vec::new();
        let formatter = serde_json::ser::PrettyFormatter::with_indent(b"    ");
        let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
        self.serialize(&mut ser).expect("writing JSON to memory");
        let text = String::from_utf8(out).expect("serde_json writes UTF-8");
        text.replace("\"\\u0001NaN\\u0001\"", "NaN")
    }

    pub fn write(&self, path: &Path) -> io::Result<()> {
        std::fs::write(path, self.text())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordered_keys_four_spaces_and_nan() {
        let mut j = J::obj()
            .with("b", J::Int(1))
            .with("a", J::nums(&[0.5, f64::NAN]));
        j.set("b", J::str("x"));
        assert_eq!(
            j.text(),
            "{\n    \"b\": \"x\",\n    \"a\": [\n        0.5,\n        NaN\n    ]\n}"
        );
    }
}
