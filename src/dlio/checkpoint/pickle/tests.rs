//! Fixtures made by `torch.save` (PyTorch 2.15, CPython 3.11) of the same
//! structures: the length and SHA-256 of `data.pkl`, and its bytes when
//! short.

use std::rc::Rc;

use sha2::{Digest, Sha256};

use super::*;
use crate::dlio::checkpoint::model::Dtype;

fn fresh(i: usize) -> Key {
    Key::Fresh(i.to_string())
}

fn t(dtype: Dtype, numel: u64) -> Value {
    Value::Tensor(Tensor { dtype, numel })
}

fn indexed(sizes: &[i64], dtype: Dtype) -> Value {
    Value::Dict(Rc::new(Dict::indexed(sizes, dtype)))
}

fn dict(items: Vec<(Key, Value)>) -> Rc<Dict> {
    Rc::new(Dict(items))
}

fn check(state: Rc<Dict>, len: usize, sha: &str, hex: Option<&str>) -> Pickled {
    let p = pickle(&state);
    if let Some(hex) = hex {
        let got: String = p.bytes.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(got, hex);
    }
    assert_eq!(p.bytes.len(), len);
    let digest: String = Sha256::digest(&p.bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(digest, sha);
    p
}

#[test]
fn a_zero3_model_of_two_layers() {
    let mut items = vec![(fresh(0), indexed(&[1000], Dtype::Fp16))];
    for l in 1..=2 {
        items.push((fresh(l), indexed(&[16, 48, 16, 16, 96, 48], Dtype::Fp16)));
    }
    items.push((fresh(3), indexed(&[1000], Dtype::Fp16)));
    items.push((fresh(4), indexed(&[16], Dtype::Fp16)));
    let p = check(
        dict(items),
        1031,
        "7fa40709f5d36d6d385dbf01a113745a13eab0b4ec88624ffbaef4dfa4aefeb6",
        None,
    );
    let numels: Vec<u64> = p.storages.iter().map(|s| s.numel).collect();
    assert_eq!(
        numels,
        [1000, 16, 48, 16, 16, 96, 48, 16, 48, 16, 16, 96, 48, 1000, 16]
    );
}

#[test]
fn sizes_of_every_integer_opcode() {
    let sizes = [300, 70000, 3_000_000_000, 20480];
    let items = sizes
        .iter()
        .enumerate()
        .map(|(i, &n)| (fresh(i), t(Dtype::Fp32, n)))
        .collect();
    check(dict(items), 354, "2a46b0bbb6158613ee4ab8df311ff4d0f4a4ff7c5f8c9ecc6373690b5a140c66", Some("80027d710028580100000030710163746f7263682e5f7574696c730a5f72656275696c645f74656e736f725f76320a71022828580700000073746f72616765710363746f7263680a466c6f617453746f726167650a71045801000000307105580300000063707571064d2c01747107514b004d2c018571084b018571098963636f6c6c656374696f6e730a4f726465726564446963740a710a2952710b74710c52710d580100000031710e6802282868036804580100000031710f68064a70110100747110514b004a701101008571114b0185711289680a2952711374711452711558010000003271166802282868036804580100000032711768068a05005ed0b200747118514b008a05005ed0b2008571194b0185711a89680a2952711b74711c52711d580100000033711e6802282868036804580100000033711f68064d0050747120514b004d00508571214b0185712289680a29527123747124527125752e"));
}

#[test]
fn one_dict_under_every_layer_is_pickled_once() {
    let shared = Rc::new(Dict::indexed(&[32, 0, 64], Dtype::Int8));
    let items = (1..4)
        .map(|l| (fresh(l), Value::Dict(shared.clone())))
        .collect();
    let p = check(dict(items), 252, "a8bc8ff9f7242bbe91bb17d003aee1f3250ef5ac0057471a2b4065c9fd98b46e", Some("80027d71002858010000003171017d710228580100000030710363746f7263682e5f7574696c730a5f72656275696c645f74656e736f725f76320a71042828580700000073746f72616765710563746f7263680a4368617253746f726167650a71065801000000307107580300000063707571084b20747109514b004b2085710a4b0185710b8963636f6c6c656374696f6e730a4f726465726564446963740a710c2952710d74710e52710f58010000003271106804282868056806580100000031711168084b40747112514b004b408571134b0185711489680c29527115747116527117755801000000327118680258010000003371196802752e"));
    assert_eq!(p.storages.len(), 2);
}

#[test]
fn literal_keys_are_one_object() {
    let pair = |n| {
        dict(vec![
            (Key::Literal("a"), t(Dtype::Int8, n)),
            (Key::Literal("b"), t(Dtype::Int8, n)),
        ])
    };
    let items = vec![
        (fresh(0), Value::Dict(pair(100))),
        (fresh(2), Value::Dict(pair(50))),
        (Key::Literal("combined"), t(Dtype::Int8, 150)),
    ];
    check(dict(items), 411, "f0996d42ac5e0953d9cd6f9ff91776b585976d6937798d18678df98979ebecf6", Some("80027d71002858010000003071017d710228580100000061710363746f7263682e5f7574696c730a5f72656275696c645f74656e736f725f76320a71042828580700000073746f72616765710563746f7263680a4368617253746f726167650a71065801000000307107580300000063707571084b64747109514b004b6485710a4b0185710b8963636f6c6c656374696f6e730a4f726465726564446963740a710c2952710d74710e52710f58010000006271106804282868056806580100000031711168084b64747112514b004b648571134b0185711489680c295271157471165271177558010000003271187d71192868036804282868056806580100000032711a68084b3274711b514b004b3285711c4b0185711d89680c2952711e74711f52712068106804282868056806580100000033712168084b32747122514b004b328571234b0185712489680c29527125747126527127755808000000636f6d62696e656471286804282868056806580100000034712968084b9674712a514b004b9685712b4b0185712c89680c2952712d74712e52712f752e"));
}

#[test]
fn a_single_item_is_a_setitem() {
    let state = dict(vec![(Key::Literal("a"), t(Dtype::Int8, 10240))]);
    check(state, 163, "ac7eb675e1a5df7a5f738f321594eda3627902b9d9dcbfce56dacf8b7077c616", Some("80027d7100580100000061710163746f7263682e5f7574696c730a5f72656275696c645f74656e736f725f76320a71022828580700000073746f72616765710363746f7263680a4368617253746f726167650a71045801000000307105580300000063707571064d0028747107514b004d00288571084b018571098963636f6c6c656374696f6e730a4f726465726564446963740a710a2952710b74710c52710d732e"));
}

#[test]
fn memo_indices_past_255_and_three_storage_classes() {
    let kinds = [Dtype::Bf16, Dtype::Uint8, Dtype::Fp64];
    let items = (0..300).map(|i| (fresh(i), t(kinds[i % 3], 3))).collect();
    check(
        dict(items),
        24685,
        "12a4e5c95a73c662ca6795fe6692d97590f4731ead5bc1d59c61a67914abdb06",
        None,
    );
}

#[test]
fn setitems_batches_of_a_thousand() {
    let empties = |n| {
        dict(
            (0..n)
                .map(|i| (fresh(i), Value::Dict(Rc::new(Dict::default()))))
                .collect(),
        )
    };
    check(
        empties(1000),
        18135,
        "cdeecddbe6e0012705b27c8ab24d661d5cd109e9e5af9caed5f3621eb384a51d",
        None,
    );
    check(
        empties(1001),
        18155,
        "8b3e0e98422547794aeaecd7544210c538a2ca8cdaca8a12f51bb4fd75d9e131",
        None,
    );
    check(
        dict(Vec::new()),
        6,
        "ad2598304a8af697d0c335a50a3e5a1ba06c82d9b63ef5f9d3e730b54cf9148a",
        Some("80027d71002e"),
    );
}
