use super::*;

fn ior_like(transfer: u64, fpp: bool, api: &str) -> Workload {
    let mut w = Build::new("ior");
    w.size("transfer", transfer, "transfers");
    w.either("files", fpp, ("file per process", "shared file"));
    w.way("direct", false, ("O_DIRECT", "buffered"));
    w.count("tasks", 2, "task", "tasks");
    w.count("nodes", 1, "node", "nodes");
    w.name("API", api);
    w.count("repetitions", 3, "repetition", "repetitions");
    w.0
}

#[test]
fn differences_are_named_in_one_line() {
    let a = ior_like(8 << 20, true, "POSIX");
    let b = ior_like(16 << 20, false, "POSIX");
    let d = differences(&a, &b);
    assert_eq!(
        line(&d).as_deref(),
        Some("workloads differ: transfer 8 MiB vs 16 MiB; file per process vs shared file")
    );
    let c = ior_like(8 << 20, true, "AIO");
    assert_eq!(
        line(&differences(&a, &c)).as_deref(),
        Some("workloads differ: API POSIX vs AIO")
    );
    // Repetitions describe a run; they do not make another workload.
    let mut again = a.clone();
    again.settings.last_mut().unwrap().value = Value::Count(5);
    assert_eq!(line(&differences(&a, &again)), None);
    let m = Workload {
        tool: "mdtest",
        settings: Vec::new(),
    };
    assert_eq!(
        line(&differences(&a, &m)).as_deref(),
        Some("workloads differ: tool ior vs mdtest")
    );
}

#[test]
fn the_workload_in_a_sentence() {
    let a = ior_like(1 << 20, true, "POSIX");
    // Buffered is the default: not said, though compared.
    assert_eq!(
        a.words(),
        "1 MiB transfers, file per process, 2 tasks on 1 node, POSIX, 3 repetitions"
    );
    assert_eq!(a.get("direct"), None);
    assert_eq!(a.get("files"), Some("file per process"));
    assert_eq!(sweep(&[4, 2, 1]), "4, 2, 1");
    assert_eq!(sweep(&[1, 2, 4, 8, 16]), "1 to 16");
}

#[test]
fn module_options_are_read_from_the_command_line() {
    let c = "ior -a AIO --aio.max-pending=32 -t 4k";
    assert_eq!(option_value(c, "aio.max-pending"), Some("32"));
    let c = "ior -a AIO --aio.max-pending 8";
    assert_eq!(option_value(c, "aio.max-pending"), Some("8"));
    assert_eq!(option_value("ior -a AIO", "aio.max-pending"), None);
}

#[test]
fn dlio_workloads_name_their_sizes() {
    let r = DlioReport {
        tool: "dlio_benchmark".into(),
        workload: "unet3d".into(),
        ranks: 2,
        config: serde_json::json!({
            "dataset": {"format": "npz", "record_length_bytes": 146600628.0,
                        "num_files_train": 168, "num_samples_per_file": 1},
            "reader": {"batch_size": 4}
        }),
        ..DlioReport::default()
    };
    let mut other = r.clone();
    other.config["reader"]["batch_size"] = 7.into();
    other.workload = "resnet50".into();
    let w = of_dlio(&r);
    assert_eq!(
        w.words(),
        "unet3d, npz, 140 MiB records, 168 files, 1 sample per file, 4 samples a batch, 2 tasks"
    );
    assert_eq!(
        line(&differences(&w, &of_dlio(&other))).as_deref(),
        Some("workloads differ: workload unet3d vs resnet50; batch 4 vs 7")
    );
}
