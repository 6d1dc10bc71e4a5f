//! The `data.pkl` record of `torch.save`: CPython's C pickler at protocol 2
//! over a dict of tensors, byte for byte, and the storages in the order it
//! meets them (their records follow in that order).
//!
//! A tensor pickles as `torch._utils._rebuild_tensor_v2(storage, 0,
//! (numel,), (1,), False, OrderedDict())`, the storage as the persistent id
//! `('storage', torch.<Type>Storage, '<key>', 'cpu', numel)`. Every object
//! is memoized (`BINPUT`) when first written and referred to afterwards
//! (`BINGET`): the globals, the constant strings `'storage'` and `'cpu'`,
//! literal keys, and a dict met twice.

use std::collections::HashMap;
use std::rc::Rc;

use super::state::{Dict, Key, Tensor, Value};

const PROTO: u8 = 0x80;
const STOP: u8 = b'.';
const MARK: u8 = b'(';
const EMPTY_DICT: u8 = b'}';
const EMPTY_TUPLE: u8 = b')';
const SETITEM: u8 = b's';
const SETITEMS: u8 = b'u';
const TUPLE: u8 = b't';
const TUPLE1: u8 = 0x85;
const REDUCE: u8 = b'R';
const BINPERSID: u8 = b'Q';
const NEWFALSE: u8 = 0x89;
const BINUNICODE: u8 = b'X';
const GLOBAL: u8 = b'c';
const BININT: u8 = b'J';
const BININT1: u8 = b'K';
const BININT2: u8 = b'M';
const LONG1: u8 = 0x8a;
const BINPUT: u8 = b'q';
const LONG_BINPUT: u8 = b'r';
const BINGET: u8 = b'h';
const LONG_BINGET: u8 = b'j';
/// Items a `SETITEMS` batch holds at most (`BATCHSIZE`).
const BATCH: usize = 1000;

/// What the memo identifies objects by.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Object {
    Global(&'static str, String),
    Constant(&'static str),
    Dict(*const Dict),
}

/// The pickle and the storages, in key order (`data/0`, `data/1`, ...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pickled {
    pub bytes: Vec<u8>,
    pub storages: Vec<Tensor>,
}

/// Pickles `state` as `torch.save` does.
pub fn pickle(state: &Rc<Dict>) -> Pickled {
    let mut p = Pickler {
        out: vec![PROTO, 2],
        memo: HashMap::new(),
        next: 0,
        storages: Vec::new(),
    };
    p.dict(state);
    p.out.push(STOP);
    Pickled {
        bytes: p.out,
        storages: p.storages,
    }
}

struct Pickler {
    out: Vec<u8>,
    memo: HashMap<Object, u32>,
    next: u32,
    storages: Vec<Tensor>,
}

impl Pickler {
    fn put(&mut self, object: Option<Object>) {
        let i = self.next;
        self.next += 1;
        if let Some(o) = object {
            self.memo.insert(o, i);
        }
        match u8::try_from(i) {
            Ok(b) => self.out.extend([BINPUT, b]),
            Err(_) => {
                self.out.push(LONG_BINPUT);
                self.out.extend(i.to_le_bytes());
            }
        }
    }

    /// Refers back to a memoized object; false when it is new.
    fn get(&mut self, object: &Object) -> bool {
        let Some(&i) = self.memo.get(object) else {
            return false;
        };
        match u8::try_from(i) {
            Ok(b) => self.out.extend([BINGET, b]),
            Err(_) => {
                self.out.push(LONG_BINGET);
                self.out.extend(i.to_le_bytes());
            }
        }
        true
    }

    fn string(&mut self, text: &str, identity: Option<Object>) {
        if identity.as_ref().is_some_and(|o| self.get(o)) {
            return;
        }
        self.out.push(BINUNICODE);
        self.out.extend((text.len() as u32).to_le_bytes());
        self.out.extend(text.as_bytes());
        self.put(identity);
    }

    fn key(&mut self, key: &Key) {
        match key {
            Key::Fresh(s) => self.string(s, None),
            Key::Literal(s) => self.string(s, Some(Object::Constant(s))),
        }
    }

    fn global(&mut self, module: &'static str, name: &str) {
        let o = Object::Global(module, name.to_string());
        if self.get(&o) {
            return;
        }
        self.out.push(GLOBAL);
        self.out.extend(format!("{module}\n{name}\n").as_bytes());
        self.put(Some(o));
    }

    /// `save_long` at protocol 2.
    fn int(&mut self, n: u64) {
        if n <= 0xff {
            self.out.extend([BININT1, n as u8]);
        } else if n <= 0xffff {
            self.out.push(BININT2);
            self.out.extend((n as u16).to_le_bytes());
        } else if n <= 0x7fff_ffff {
            self.out.push(BININT);
            self.out.extend((n as u32).to_le_bytes());
        } else {
            // Two's complement, little-endian, as short as the sign allows.
            let len = (64 - n.leading_zeros() as usize) / 8 + 1;
            self.out.extend([LONG1, len as u8]);
            let bytes = n.to_le_bytes();
            self.out.extend(&bytes[..len.min(8)]);
            self.out
                .extend(std::iter::repeat_n(0, len.saturating_sub(8)));
        }
    }

    fn dict(&mut self, dict: &Rc<Dict>) {
        let o = Object::Dict(Rc::as_ptr(dict));
        if self.get(&o) {
            return;
        }
        self.out.push(EMPTY_DICT);
        self.put(Some(o));
        let items = &dict.0;
        if items.len() == 1 {
            self.item(&items[0]);
            self.out.push(SETITEM);
            return;
        }
        if items.is_empty() {
            return;
        }
        // Batches of 1000; a full last batch is followed by an empty one.
        for batch in items.chunks(BATCH) {
            self.out.push(MARK);
            batch.iter().for_each(|item| self.item(item));
            self.out.push(SETITEMS);
        }
        if items.len() % BATCH == 0 {
            self.out.extend([MARK, SETITEMS]);
        }
    }

    fn item(&mut self, (key, value): &(Key, Value)) {
        self.key(key);
        match value {
            Value::Tensor(t) => self.tensor(*t),
            Value::Dict(d) => self.dict(d),
        }
    }

    fn tensor(&mut self, t: Tensor) {
        self.global("torch._utils", "_rebuild_tensor_v2");
        self.out.extend([MARK, MARK]);
        self.string("storage", Some(Object::Constant("storage")));
        self.global("torch", t.dtype.storage_class());
        let key = self.storages.len().to_string();
        self.storages.push(t);
        self.string(&key, None);
        self.string("cpu", Some(Object::Constant("cpu")));
        self.int(t.numel);
        self.out.push(TUPLE);
        self.put(None);
        self.out.push(BINPERSID);
        self.int(0);
        self.int(t.numel);
        self.out.push(TUPLE1);
        self.put(None);
        self.int(1);
        self.out.push(TUPLE1);
        self.put(None);
        self.out.push(NEWFALSE);
        self.global("collections", "OrderedDict");
        self.out.extend([EMPTY_TUPLE, REDUCE]);
        self.put(None);
        self.out.push(TUPLE);
        self.put(None);
        self.out.push(REDUCE);
        self.put(None);
    }
}

#[cfg(test)]
mod tests;
