//! A file saved through POSIX: the image's bytes at their offsets, the
//! tensors' from the content's block, one request per `torch.save` write.

use std::ffi::CString;
use std::rc::Rc;

use super::*;
use crate::backend::posix::Posix;
use crate::dlio::checkpoint::container::image;
use crate::dlio::checkpoint::content::SLICE;
use crate::dlio::checkpoint::model::Dtype;
use crate::dlio::checkpoint::requests::requests;
use crate::dlio::checkpoint::state::{Dict, Key, Tensor, Value};

fn t(dtype: Dtype, numel: u64) -> Value {
    Value::Tensor(Tensor { dtype, numel })
}

/// Saves `img` with `aligned` content; the file's bytes and the block.
fn saved(img: &Image, aligned: bool) -> (Vec<u8>, Vec<u8>, Tally) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.pt");
    let backend = Posix::new(false);
    let content = Content::new(0, aligned).unwrap();
    let block = content.block().to_vec();
    let mut w = Writer {
        backend: &backend,
        rank: 0,
        content,
        stage: AlignedBuffer::new(PAGE, PAGE),
        fsync: true,
        part: 0,
        latency: LatencyRecorder::new(),
        tally: Tally::default(),
    };
    let cpath = CString::new(path.to_str().unwrap()).unwrap();
    w.save(&cpath, img, &requests(img, 4096, None)).unwrap();
    (std::fs::read(&path).unwrap(), block, w.tally)
}

#[test]
fn headers_in_place_and_tensors_from_the_block() {
    // {"0": fp16[64], "1": fp32[700000] (2.7 MiB: three slices), "2": fp16[1500]}
    let state = Dict(vec![
        (Key::Literal("0"), t(Dtype::Fp16, 64)),
        (Key::Literal("1"), t(Dtype::Fp32, 700_000)),
        (Key::Literal("2"), t(Dtype::Fp16, 1500)),
    ]);
    let img = image(&Rc::new(state), &[b'3'; 40]);
    let reqs = requests(&img, 4096, None);
    for aligned in [true, false] {
        let (file, block, tally) = saved(&img, aligned);
        assert_eq!(file.len() as u64, img.size());
        assert_eq!((tally.requests, tally.fsyncs), (reqs.len() as u64, 1));
        let mut at = 0;
        for p in &img.pieces {
            let here = &file[at..at + p.len() as usize];
            match *p {
                Piece::Bytes { at: from, len } => assert_eq!(here, &img.blob[from..from + len]),
                // Aligned (O_DIRECT): the block from its start, again every
                // slice; else each slice from some shift within a page.
                Piece::Tensor { .. } => {
                    for run in here.chunks(SLICE) {
                        let shifts = if aligned { 0..1 } else { 0..PAGE };
                        let found = shifts.into_iter().any(|s| &block[s..s + run.len()] == run);
                        assert!(found, "a tensor's run is not from the block");
                    }
                }
            }
            at += p.len() as usize;
        }
    }
}
