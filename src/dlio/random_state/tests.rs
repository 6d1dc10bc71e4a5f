//! Vectors from numpy 2.4.6 (`np.random.RandomState`), and DLIO's own
//! (dlio.md §3: the first files' dimensions of unet3d and cosmoflow).

use super::*;

fn hex(x: f64) -> u64 {
    x.to_bits()
}

/// `float.hex()` spellings of numpy's doubles, as bits.
fn from_hex(s: &str) -> u64 {
    let (sign, rest) = match s.strip_prefix('-') {
        Some(r) => (1u64 << 63, r),
        None => (0, s),
    };
    let rest = rest.strip_prefix("0x1.").expect("normal hex float");
    let (mantissa, exp) = rest.split_once('p').expect("exponent");
    let mantissa = u64::from_str_radix(mantissa, 16).expect("mantissa");
    let exp: i64 = exp.parse().expect("exponent value");
    sign | (((exp + 1023) as u64) << 52) | mantissa
}

#[test]
fn outputs_after_a_seed_are_numpys() {
    let mut rs = RandomState::new(10);
    let got: Vec<u32> = (0..5).map(|_| rs.next_u32()).collect();
    assert_eq!(
        got,
        [3312796937, 1283169405, 89128932, 2124247567, 2721498432]
    );
    let mut rs = RandomState::new(0);
    let got: Vec<u32> = (0..3).map(|_| rs.next_u32()).collect();
    assert_eq!(got, [2357136044, 2546248239, 3071714933]);
    let mut rs = RandomState::new(u32::MAX);
    let got: Vec<u32> = (0..3).map(|_| rs.next_u32()).collect();
    assert_eq!(got, [419326371, 479346978, 3918654476]);
}

#[test]
fn doubles_and_gaussians_are_numpys() {
    let mut rs = RandomState::new(123);
    let want = [
        "0x1.64979beda10f5p-1",
        "0x1.2501b5b6d822ap-2",
        "0x1.d0977eb0ddd44p-3",
        "0x1.1a45edee068f0p-1",
    ];
    for w in want {
        assert_eq!(hex(rs.random_sample()), from_hex(w));
    }
    let mut rs = RandomState::new(10);
    let want = [
        "0x1.54e2da6707fffp+0",
        "0x1.6e390bb51d7a3p-1",
        "-0x1.8b9f5a81d8c43p+0",
        "-0x1.12b8d4a0f837fp-7",
        "0x1.3e1fbfaf60378p-1",
    ];
    for w in want {
        assert_eq!(hex(rs.normal(0.0, 1.0)), from_hex(w));
    }
}

#[test]
fn a_double_between_gaussians_does_not_touch_the_cached_one() {
    let mut rs = RandomState::new(7);
    let got = [
        rs.normal(1.0, 2.0),
        rs.random_sample(),
        rs.normal(1.0, 2.0),
        rs.normal(1.0, 2.0),
    ];
    let want = [
        "0x1.186325716f594p+2",
        "0x1.f4bb0a93b67b2p-1",
        "0x1.170a82f15f598p-4",
        "0x1.2fb3764202a66p+0",
    ];
    for (g, w) in got.iter().zip(want) {
        assert_eq!(hex(*g), from_hex(w));
    }
    rs.seed(7);
    rs.gauss();
    rs.seed(7);
    assert_eq!(hex(rs.gauss()), from_hex("0x1.b0c64ae2deb29p+0"));
}

#[test]
fn dlio_dimensions_of_unet3d_and_cosmoflow() {
    // DLIO: seed(10), then normal(dim, dstd) truncated toward zero, >= 1.
    let dims = |record: f64, stdev: f64| {
        let dim = record.sqrt() as i64;
        let dstd = stdev / 2.0 / record.sqrt();
        let mut rs = RandomState::new(10);
        (0..16)
            .map(|_| (rs.normal(dim as f64, dstd) as i64).max(1))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        dims(146600628.0, 68341808.0),
        [
            15865, 14125, 7745, 12083, 13860, 10074, 12856, 12413, 12119, 11614, 13329, 15502,
            9383, 15009, 12752, 13363
        ]
    );
    assert_eq!(
        dims(2828486.0, 71311.0),
        [
            1709, 1696, 1648, 1680, 1694, 1665, 1686, 1683, 1681, 1677, 1690, 1706, 1660, 1702,
            1685, 1690
        ]
    );
}

#[test]
fn randint_255_bytes_are_numpys() {
    let mut rs = RandomState::new(10);
    let mut got = [0u8; 40];
    rs.randint_u8_255().fill(&mut got);
    let want = "094575c57d9c7b4ce44f050f729d7e40c536a2716d69717b9cb1bf9c24f8d4d9279e7fdd925495f0";
    let want: Vec<u8> = (0..want.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&want[i..i + 2], 16).expect("hex"))
        .collect();
    assert_eq!(got.as_slice(), want.as_slice());
}

#[test]
fn a_call_drops_the_bytes_left_of_its_last_output() {
    let mut rs = RandomState::new(10);
    let (mut a, mut b) = ([0u8; 3], [0u8; 3]);
    rs.randint_u8_255().fill(&mut a);
    rs.randint_u8_255().fill(&mut b);
    assert_eq!((a, b), ([9, 69, 117], [125, 156, 123]));
}

#[test]
fn a_million_bytes_in_uneven_pieces_are_numpys() {
    // numpy: randint(255, size=1_000_000, dtype=uint8) after seed(10): sum,
    // last eight, a hash of the first 5000, then the next output.
    let mut rs = RandomState::new(10);
    let mut all = vec![0u8; 1_000_000];
    {
        let mut call = rs.randint_u8_255();
        let mut at = 0;
        for (k, piece) in [1usize, 2, 3, 5, 7, 4093, 65536, 11]
            .iter()
            .cycle()
            .enumerate()
        {
            let end = (at + piece + k % 3).min(all.len());
            call.fill(&mut all[at..end]);
            at = end;
            if at == all.len() {
                break;
            }
        }
    }
    let sum: u64 = all.iter().map(|&b| u64::from(b)).sum();
    assert_eq!(sum, 127020473);
    assert_eq!(*all.iter().max().expect("bytes"), 254);
    assert_eq!(all[all.len() - 8..], [49, 220, 104, 39, 11, 52, 143, 13]);
    let hash = all[..5000]
        .iter()
        .fold(0u64, |h, &b| h.wrapping_mul(31).wrapping_add(u64::from(b)));
    assert_eq!(hash, 14322548725681099289);
    assert_eq!(rs.next_u32(), 3133183916);
}

#[test]
fn shuffles_and_permutations_are_numpys() {
    let mut rs = RandomState::new(124);
    let mut list: Vec<u32> = (0..10).collect();
    rs.shuffle(&mut list);
    assert_eq!(list, [6, 8, 3, 5, 4, 0, 9, 2, 7, 1]);
    let mut rs = RandomState::new(124);
    assert_eq!(
        rs.permutation(20),
        [12, 16, 3, 1, 10, 19, 18, 8, 15, 6, 11, 5, 13, 4, 0, 9, 2, 7, 17, 14]
    );
    let mut rs = RandomState::new(125);
    let mut range: Vec<u64> = (1000..1100).collect();
    rs.shuffle(&mut range);
    assert_eq!(
        range[..10],
        [1065, 1002, 1049, 1006, 1083, 1073, 1033, 1008, 1054, 1048]
    );
    let mut rs = RandomState::new(3);
    let mut big: Vec<u32> = (0..100_000).collect();
    rs.shuffle(&mut big);
    assert_eq!(big[..5], [79528, 53876, 9777, 6167, 22020]);
    assert_eq!(big[big.len() - 3..], [77049, 67224, 71530]);
}

#[test]
fn computation_time_distributions_are_numpys() {
    let check = |draw: &dyn Fn(&mut RandomState) -> f64, want: [&str; 3]| {
        let mut rs = RandomState::new(7);
        for w in want {
            assert_eq!(hex(draw(&mut rs)), from_hex(w), "{w}");
        }
    };
    check(
        &|rs| rs.uniform(0.5, 2.0),
        [
            "0x1.3a9ad1f5d315cp-1",
            "0x1.ab7d230f4f87dp+0",
            "0x1.2859618ef4672p+0",
        ],
    );
    check(
        &|rs| rs.exponential(0.3),
        [
            "0x1.86274448ae6eep-6",
            "0x1.d106d38185019p-2",
            "0x1.627f6678a64ecp-3",
        ],
    );
    check(
        &|rs| rs.gamma(2.5, 0.1),
        [
            "0x1.3d9283a56c41ap-3",
            "0x1.ebbb1c27cac7cp-4",
            "0x1.bc5b36eed4d0cp-3",
        ],
    );
    check(
        &|rs| rs.gamma(0.4, 0.1),
        [
            "0x1.515552962a5cep-13",
            "0x1.a10338b7d0518p-7",
            "0x1.e95ad5f0f42fdp-9",
        ],
    );
    check(
        &|rs| rs.gamma(1.0, 0.1),
        [
            "0x1.041a2d85c99f4p-7",
            "0x1.36048d0103567p-3",
            "0x1.d8a9ddf63313cp-5",
        ],
    );
    let mut rs = RandomState::new(7);
    let small: Vec<i64> = (0..8).map(|_| rs.poisson(3.5)).collect();
    assert_eq!(small, [2, 4, 4, 1, 4, 5, 4, 4]);
    let mut rs = RandomState::new(7);
    let big: Vec<i64> = (0..8).map(|_| rs.poisson(42.0)).collect();
    assert_eq!(big, [41, 42, 37, 45, 40, 38, 36, 54]);
}

#[test]
fn the_ff_byte_test_finds_every_position() {
    for shift in [0, 8, 16, 24] {
        assert!(has_ff_byte(0xffu32 << shift));
        assert!(!has_ff_byte(0xfeu32 << shift));
    }
    assert!(!has_ff_byte(0x7f7f_7f7f));
    assert!(has_ff_byte(u32::MAX));
}
