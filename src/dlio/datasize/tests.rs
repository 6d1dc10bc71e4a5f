use super::*;

fn args(text: &str) -> Vec<String> {
    text.split_whitespace().map(str::to_string).collect()
}

/// dlio.md §9: one 128 GiB client, 8 accelerators.
#[test]
fn mlpstorage_figures_for_one_client_and_eight_accelerators() {
    for (model, files, by_memory) in [
        ("unet3d", 28000, false),
        ("resnet50", 4790, true),
        ("cosmoflow", 242954, true),
    ] {
        let input = parse(&args(&format!(
            "--model {model} --accelerator-type h100 --max-accelerators 8 --client-host-memory-in-gb 128 --num-client-hosts 1"
        )))
        .expect("parse");
        let config = workload(&input).expect("workload");
        let s = size(&config, 8, 128 << 30);
        assert_eq!(s.files, files, "{model}");
        assert_eq!(s.by_memory > s.by_steps, by_memory, "{model}");
        let out = text(&input, &s);
        assert!(
            out.contains(&format!("RESULT: Number of training files: {files}\n")),
            "{out}"
        );
    }
}

#[test]
fn params_and_hosts() {
    let input = parse(&args(
        "-m unet3d -g a100 -ma 4 -cm 64 --hosts a,b --params reader.batch_size=10",
    ))
    .expect("parse");
    assert_eq!(input.client_hosts, 2);
    let config = workload(&input).expect("workload");
    assert_eq!(config.reader.batch_size, 10);
    assert_eq!(size(&config, 4, 128 << 30).by_steps, 20000);
}

#[test]
fn refusals_are_one_line() {
    for bad in [
        "--model bert --accelerator-type h100 --max-accelerators 1 --client-host-memory-in-gb 1",
        "--model unet3d --accelerator-type v100 --max-accelerators 1 --client-host-memory-in-gb 1",
        "--model unet3d --accelerator-type h100 --client-host-memory-in-gb 1",
        "--model unet3d --accelerator-type h100 --max-accelerators x --client-host-memory-in-gb 1",
        "--bogus 1",
    ] {
        let e = parse(&args(bad)).unwrap_err();
        assert!(!e.contains('\n'), "{e}");
    }
}
