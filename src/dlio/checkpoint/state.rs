//! What a checkpoint file holds: the nested dict of tensors DLIO hands to
//! `torch.save`, with the object identities its pickle depends on.

use std::rc::Rc;

use super::model::Dtype;

/// A one-dimensional tensor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tensor {
    pub dtype: Dtype,
    pub numel: u64,
}

impl Tensor {
    pub fn bytes(&self) -> u64 {
        self.numel * self.dtype.size()
    }
}

/// A dict key. Python pickles a string object once and refers back to it
/// afterwards, so whether two equal keys are one object changes the bytes:
/// DLIO's `str(index)` makes a new string each time, a literal in its
/// source (`'a'`, `"combined"`) is one object wherever it appears.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Key {
    Fresh(String),
    Literal(&'static str),
}

impl Key {
    pub fn text(&self) -> &str {
        match self {
            Key::Fresh(s) => s,
            Key::Literal(s) => s,
        }
    }
}

/// A dict value.
#[derive(Debug, Clone)]
pub enum Value {
    Tensor(Tensor),
    /// A dict; the same `Rc` under several keys is one Python object
    /// (pickled once, its tensors stored once).
    Dict(Rc<Dict>),
}

/// A dict in insertion order.
#[derive(Debug, Clone, Default)]
pub struct Dict(pub Vec<(Key, Value)>);

impl Dict {
    /// Python's truth value: a dict with no items is false, and DLIO skips
    /// the file of a false state.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// A dict of tensors keyed `"0"`, `"1"`, ... by position, skipping the
    /// sizes that are not positive (DLIO's `if state > 0`).
    pub fn indexed(sizes: &[i64], dtype: Dtype) -> Dict {
        Dict(
            sizes
                .iter()
                .enumerate()
                .filter(|(_, &n)| n > 0)
                .map(|(i, &n)| {
                    let t = Tensor {
                        dtype,
                        numel: n as u64,
                    };
                    (Key::Fresh(i.to_string()), Value::Tensor(t))
                })
                .collect(),
        )
    }

    /// Bytes of every tensor, each stored once (as `torch.save` stores
    /// them).
    pub fn tensor_bytes(&self) -> u64 {
        let mut seen: Vec<*const Dict> = Vec::new();
        self.bytes_once(&mut seen)
    }

    fn bytes_once(&self, seen: &mut Vec<*const Dict>) -> u64 {
        let mut sum = 0;
        for (_, v) in &self.0 {
            sum += match v {
                Value::Tensor(t) => t.bytes(),
                Value::Dict(d) if seen.contains(&Rc::as_ptr(d)) => 0,
                Value::Dict(d) => {
                    seen.push(Rc::as_ptr(d));
                    d.bytes_once(seen)
                }
            };
        }
        sum
    }
}
