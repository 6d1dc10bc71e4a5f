//! The requests of `torch.load`, against strace of PyTorch 2.15 on CPython
//! 3.11 reading files `torch.save` wrote (4 KiB blocks).

use std::ffi::CString;
use std::os::unix::fs::FileExt;
use std::rc::Rc;

use super::*;
use crate::backend::posix::Posix;
use crate::backend::{Access, Backend, OpenSpec};
use crate::dlio::checkpoint::container::{image, Piece};
use crate::dlio::checkpoint::model::Dtype;
use crate::dlio::checkpoint::state::{Dict, Key, Tensor, Value};
use crate::dlio::train::pyfile::Scratch;

fn t(dtype: Dtype, numel: u64) -> Value {
    Value::Tensor(Tensor { dtype, numel })
}

/// The requests `torch_load` makes on the file of `state`, and its size.
fn requests(state: Dict, max_request: usize) -> (u64, Vec<(u64, usize, usize)>) {
    let img = image(&Rc::new(state), &[b'1'; 40]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.pt");
    // Sparse: tensor data is a hole.
    let out = std::fs::File::create(&path).unwrap();
    let mut at = 0;
    for p in &img.pieces {
        if let Piece::Bytes { at: from, len } = *p {
            out.write_all_at(&img.blob[from..from + len], at).unwrap();
        }
        at += p.len();
    }
    out.set_len(at).unwrap();
    let size = at;
    let cpath = CString::new(path.to_str().unwrap()).unwrap();
    let spec = OpenSpec {
        access: Access::Read,
        create: false,
        reads_too: false,
        file_size: size,
        rank: 0,
        sequential: true,
        blocks: None,
        segment: 0,
        transfer: 0,
    };
    let mut file = Posix::new(false).open(&cpath, &spec).unwrap();
    let mut scratch = Scratch::new();
    scratch.trace = Some(Vec::new());
    scratch.max_request = max_request;
    let mut f = PyFile::new(file.as_mut(), &mut scratch, size, 4096);
    torch_load(&mut f, &img).unwrap();
    file.close().unwrap();
    (size, scratch.trace.unwrap())
}

fn lit(k: &'static str) -> Key {
    Key::Literal(k)
}

#[test]
fn small_records_from_the_buffer_large_ones_direct() {
    // {"0": {"0": fp16[64], "1": fp16[300000]}, "1": fp32[500000]}
    let inner = Dict(vec![
        (lit("0"), t(Dtype::Fp16, 64)),
        (lit("1"), t(Dtype::Fp16, 300000)),
    ]);
    let state = Dict(vec![
        (lit("0"), Value::Dict(Rc::new(inner))),
        (lit("1"), t(Dtype::Fp32, 500000)),
    ]);
    let (size, got) = requests(state.clone(), 0x7fff_f000);
    assert_eq!(size, 2602081);
    let strace = [
        (0, 4096, 4096),
        (0, 4096, 4096),
        (2597985, 4096, 4096),
        (2602059, 4096, 22),
        (2602039, 4096, 42),
        (2601983, 4096, 98),
        (2601400, 4096, 681),
        (2601234, 4096, 847),
        (2601104, 4096, 977),
        (389, 4096, 4096),
        (0, 4096, 4096),
        (4096, 596928, 596928),
        (601040, 4096, 4096),
        (605136, 1995952, 1995952),
    ];
    assert_eq!(got, strace);
    // pario's bounded requests: the large reads in pieces of 1 MiB.
    let (_, capped) = requests(state, 1 << 20);
    let big: Vec<usize> = capped.iter().filter(|r| r.1 > 4096).map(|r| r.1).collect();
    assert_eq!(big, [596928, 1 << 20, 1995952 - (1 << 20)]);
}

#[test]
fn a_record_starting_past_the_buffer_is_read_direct() {
    // {"0": fp16[150e6], "1": {"0": fp32[1000]}, "2": fp32[3000]}
    let inner = Dict(vec![(lit("0"), t(Dtype::Fp32, 1000))]);
    let state = Dict(vec![
        (lit("0"), t(Dtype::Fp16, 150_000_000)),
        (lit("1"), Value::Dict(Rc::new(inner))),
        (lit("2"), t(Dtype::Fp32, 3000)),
    ]);
    let (size, got) = requests(state, 0x7fff_f000);
    assert_eq!(size, 300018017);
    let strace = [
        (0, 4096, 4096),
        (0, 4096, 4096),
        (300013921, 4096, 4096),
        (300017995, 4096, 22),
        (300017975, 4096, 42),
        (300017919, 4096, 98),
        (300017336, 4096, 681),
        (300017170, 4096, 847),
        (300017072, 4096, 945),
        (392, 4096, 4096),
        (0, 4096, 4096),
        (4096, 299996800, 299996800),
        (300000912, 4096, 4096),
        (300005056, 12000, 12000),
    ];
    assert_eq!(got, strace);
}
