use super::*;

fn config(train: u64, eval: u64) -> Config {
    let mut c = Config::default();
    c.dataset.num_files_train = train;
    c.dataset.num_files_eval = eval;
    c.dataset.data_folder = "data/unet3d".into();
    c.dataset.format = Format::Npz;
    c
}

#[test]
fn names_are_padded_to_the_count_train_then_valid() {
    let d = Dataset::of(&config(12, 3));
    let names: Vec<&str> = d.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(names[0], "data/unet3d/train/img_00_of_12.npz");
    assert_eq!(names[11], "data/unet3d/train/img_11_of_12.npz");
    assert_eq!(names[12], "data/unet3d/valid/img_0_of_3.npz");
    assert_eq!(d.files[12].index, 12);
    assert_eq!(
        d.folders,
        ["data/unet3d", "data/unet3d/train", "data/unet3d/valid"]
    );
}

#[test]
fn subfolders_take_files_round_robin() {
    let mut c = config(12, 0);
    c.dataset.num_subfolders_train = 10;
    let d = Dataset::of(&c);
    assert_eq!(d.files[3].path, "data/unet3d/train/03/img_03_of_12.npz");
    assert_eq!(d.files[11].path, "data/unet3d/train/01/img_11_of_12.npz");
    assert_eq!(d.folders.len(), 3 + 10);
    assert_eq!(d.folders[3], "data/unet3d/train/00");
}

#[test]
fn unet3d_and_cosmoflow_dimensions_are_dlios() {
    // dlio.md §3, seed 10: the first four files.
    let mut c = config(4, 0);
    c.dataset.record_length_bytes = 146600628.0;
    c.dataset.record_length_bytes_stdev = 68341808.0;
    let dims: Vec<(u64, u64)> = Dataset::of(&c)
        .files
        .iter()
        .map(|f| (f.dim1, f.dim2))
        .collect();
    assert_eq!(
        dims,
        [
            (15865, 14125),
            (7745, 12083),
            (13860, 10074),
            (12856, 12413)
        ]
    );
    c.dataset.record_length_bytes = 2828486.0;
    c.dataset.record_length_bytes_stdev = 71311.0;
    let dims: Vec<(u64, u64)> = Dataset::of(&c)
        .files
        .iter()
        .map(|f| (f.dim1, f.dim2))
        .collect();
    assert_eq!(
        dims,
        [(1709, 1696), (1648, 1680), (1694, 1665), (1686, 1683)]
    );
}

#[test]
fn resnet50_records_are_fixed() {
    let mut c = config(3, 0);
    c.dataset.record_length_bytes = 114660.07;
    c.dataset.format = Format::Tfrecord;
    let d = Dataset::of(&c);
    assert!(d.files.iter().all(|f| f.dim1 == 338 && f.dim2 == 338));
    assert_eq!(
        tfrecord_index(&c, &d.files[1]),
        "data/unet3d/index/train/img_1_of_3.tfrecord.idx"
    );
    assert!(d.folders.contains(&"data/unet3d/index/valid".to_string()));
}

#[test]
fn ranks_take_every_size_th_file() {
    let d = Dataset::of(&config(7, 0));
    let mine: Vec<u64> = d.of_rank(1, 3).map(|f| f.index).collect();
    assert_eq!(mine, [1, 4]);
    let all: usize = (0..3).map(|r| d.of_rank(r, 3).count()).sum();
    assert_eq!(all, 7);
}
