//! The containers against files numpy 2.4, pandas and TensorFlow wrote
//! with DLIO's own calls (testdata/, made by the scripts quoted in each
//! test), content drawn as DLIO draws it (`pario.content=exact`).

use super::content::Source;
use super::out::MemOut;
use super::*;
use crate::dlio::config::schema::Config;
use crate::dlio::options::Content;
use crate::dlio::random_state::RandomState;

fn spec(index: u64, dim1: u64, dim2: u64) -> FileSpec {
    FileSpec {
        index,
        path: format!("d/train/img_{index}.x"),
        split: "train",
        dim1,
        dim2,
    }
}

fn exact() -> Source {
    Source::new(Content::Exact, RandomState::new(10))
}

/// `np.random.seed(10); x = randint(255, size=(3,5,2), dtype=uint8);
/// np.save('t.npy', x); np.savez('t.npz', x=x, y=[0]*2)` (one file each,
/// from the same seed).
#[test]
fn npy_and_npz_are_numpys_bytes() {
    let mut out = MemOut::default();
    npz::write_npy(&mut out, &spec(0, 3, 5), 2, &mut exact()).expect("npy");
    assert_eq!(out.bytes, include_bytes!("testdata/t.npy"));
    let mut out = MemOut::default();
    npz::write_npz(&mut out, &spec(0, 3, 5), 2, &mut exact()).expect("npz");
    assert_eq!(out.bytes, include_bytes!("testdata/t.npz"));
}

#[test]
fn npz_sizes_follow_dlios_formula() {
    // dlio.md §3: dim1·dim2·n + 8n + 490 (numpy 2).
    for (d1, d2, n) in [(15865, 14125, 1), (338, 338, 1251), (7, 9, 3)] {
        let config = npz_config(n);
        let file = spec(0, d1, d2);
        assert_eq!(expected_size(&config, &file), d1 * d2 * n + 8 * n + 490);
    }
}

fn npz_config(n: u64) -> Config {
    let mut c = Config::default();
    c.dataset.format = Format::Npz;
    c.dataset.num_samples_per_file = n;
    c
}

/// pandas: `pd.DataFrame(data=[randint(255, size=6)]*2).to_csv(path)`.
#[test]
fn csv_is_pandas_text() {
    let mut out = MemOut::default();
    others::write_csv(&mut out, &spec(0, 2, 3), 2, &mut exact()).expect("csv");
    assert_eq!(
        String::from_utf8(out.bytes).expect("text"),
        ",0,1,2,3,4,5\n0,9,69,117,197,125,156\n1,9,69,117,197,125,156\n"
    );
}

/// TensorFlow's `TFRecordWriter` with DLIO's tf_generator.py calls: 3 files
/// of 2 records, record_length_bytes 4096 ± 1024 (dims drawn from seed 10),
/// one rank; the second file, after the first's draws.
#[test]
fn tfrecord_is_tensorflows_bytes() {
    let mut c = Config::default();
    c.dataset.format = Format::Tfrecord;
    c.dataset.num_files_train = 3;
    c.dataset.num_samples_per_file = 2;
    c.dataset.record_length_bytes = 4096.0;
    c.dataset.record_length_bytes_stdev = 1024.0;
    c.dataset.data_folder = "d".into();
    let dataset = Dataset::of(&c);
    let (_, state) = dataset::dimensions(&c, 3);
    let mut src = Source::new(Content::Exact, state);
    let mut first = MemOut::default();
    let index = write_format(&mut first, &c, &dataset.files[0], &mut src).expect("first");
    let mut second = MemOut::default();
    write_format(&mut second, &c, &dataset.files[1], &mut src).expect("second");
    assert_eq!(second.bytes, include_bytes!("testdata/tf_1_of_3.tfrecord"));
    // tfrecord2idx: "offset length" per record.
    let text = String::from_utf8(index[0].1.clone()).expect("index");
    let half = first.bytes.len() / 2;
    assert_eq!(text, format!("0 {half}\n{half} {half}\n"));
    assert_eq!(index[0].0, "d/index/train/img_0_of_3.tfrecord.idx");
}

#[test]
fn tfrecord_proto_sizes() {
    // dlio.md §3: proto = B + 43 below 2^21 bytes of image (resnet50:
    // 114287), B + 48 from there (cosmoflow).
    let (head, tail) = tfrecord::example(338 * 338, 338);
    assert_eq!(head.len() + tail.len(), 43);
    let (head, tail) = tfrecord::example(1709 * 1696, 1681);
    assert_eq!(head.len() + tail.len(), 48);
    assert_eq!(tfrecord::masked(0), 0xa282_ead8);
}

#[test]
fn indexed_binary_repeats_its_buffer_and_restarts_offsets() {
    let mut out = MemOut::default();
    let (off, sz) =
        others::write_indexed(&mut out, &spec(0, 2, 2), 5, 8, &mut exact()).expect("indexed");
    assert_eq!(out.bytes.len(), 20);
    assert_eq!(out.bytes[..8], out.bytes[8..16]);
    assert_eq!(out.bytes[..4], out.bytes[16..20]);
    let words = |b: &[u8]| -> Vec<u64> {
        b.chunks(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect()
    };
    assert_eq!(words(&off), [0, 4, 0, 4, 0]);
    assert_eq!(words(&sz), [4; 5]);
}

#[test]
fn fast_content_has_no_two_equal_blocks() {
    let mut src = Source::new(Content::Fast, RandomState::new(10));
    let mut out = MemOut::default();
    npz::write_npy(&mut out, &spec(0, 1024, 1024), 3, &mut src).expect("npy");
    let mut other = MemOut::default();
    npz::write_npy(&mut other, &spec(1, 1024, 1024), 3, &mut src).expect("npy");
    let mut blocks: Vec<&[u8]> = out
        .bytes
        .chunks(4096)
        .chain(other.bytes.chunks(4096))
        .collect();
    let n = blocks.len();
    blocks.sort_unstable();
    blocks.dedup();
    assert_eq!(blocks.len(), n);
}
