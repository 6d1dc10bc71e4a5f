use super::*;
use crate::dlio::config::overrides::parse;

fn compose_args(args: &[&str], dir: Option<&Path>) -> Result<Composed, String> {
    let o: Vec<Override> = args.iter().map(|a| parse(a).expect(a)).collect();
    compose(&o, dir)
}

fn at<'a>(c: &'a Composed, path: &str) -> Option<&'a Value> {
    let parts: Vec<&str> = path.split('.').collect();
    c.root.at(&parts)
}

#[test]
fn the_default_workload_and_a_choice() {
    let c = compose_args(&[], None).expect("default");
    assert_eq!(c.workload, "default");
    assert_eq!(
        at(&c, "workload.dataset.format"),
        Some(&Value::Str("npz".into()))
    );
    let c = compose_args(&["workload=unet3d_h100"], None).expect("unet3d");
    assert_eq!(c.source, Source::Bundled);
    assert_eq!(
        at(&c, "workload.train.computation_time"),
        Some(&Value::Float(0.323))
    );
    let c = compose_args(&["workload=unet3d_datagen"], None).expect("mlperf's");
    assert_eq!(c.source, Source::BundledMlperf);
}

#[test]
fn hydras_override_rules() {
    let c = compose_args(
        &[
            "workload=unet3d_h100",
            "workload.reader.batch_size=3",
            "+workload.reader.prefetch_size=4",
            "++workload.dataset.num_files_train=28",
            "++workload.new.deep.key=x",
            "~workload.metric",
        ],
        None,
    )
    .expect("compose");
    assert_eq!(at(&c, "workload.reader.batch_size"), Some(&Value::Int(3)));
    assert_eq!(
        at(&c, "workload.reader.prefetch_size"),
        Some(&Value::Int(4))
    );
    assert_eq!(
        at(&c, "workload.dataset.num_files_train"),
        Some(&Value::Int(28))
    );
    assert_eq!(
        at(&c, "workload.new.deep.key"),
        Some(&Value::Str("x".into()))
    );
    assert_eq!(at(&c, "workload.metric"), None);
    assert_eq!(c.task_overrides.len(), 6);
    for (args, says) in [
        (vec!["workload.reader.nothing=1"], "could not override"),
        (vec!["+workload.reader.batch_size=1"], "exists"),
        (vec!["~workload.nothing"], "could not override"),
        (vec!["~workload.reader.batch_size=9"], "is 7"),
        (
            vec!["workload.reader.batch_size.x=1"],
            "a value, not a mapping",
        ),
        (
            vec!["workload=nothing_like_it"],
            "no workload 'nothing_like_it'",
        ),
        (vec!["workload=../etc/passwd"], "not a workload name"),
        (vec!["++other.key=1"], "not read"),
        (vec!["++hydra.job.chdir=True"], "not hydra.job.chdir"),
    ] {
        let mut a = vec!["workload=unet3d_h100"];
        a.extend(args.iter());
        let e = compose_args(&a, None).unwrap_err();
        assert!(e.contains(says), "{args:?}: {e}");
        assert!(!e.contains('\n'), "{e}");
    }
}

#[test]
fn config_dir_comes_after_dlios_files_and_before_mlperfs() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join("workload")).expect("mkdir");
    for name in ["unet3d_h100", "unet3d_datagen", "mine"] {
        std::fs::write(
            dir.path().join(format!("workload/{name}.yaml")),
            "model:\n  name: from_dir\n",
        )
        .expect("write");
    }
    let name = |w: &str| {
        let c = compose_args(&[&format!("workload={w}")], Some(dir.path())).expect(w);
        (at(&c, "workload.model.name").cloned(), c.source)
    };
    assert_eq!(name("unet3d_h100").0, Some(Value::Str("unet3d".into())));
    let (model, source) = name("unet3d_datagen");
    assert_eq!(model, Some(Value::Str("from_dir".into())));
    assert!(matches!(source, Source::File(_)));
    assert_eq!(name("mine").0, Some(Value::Str("from_dir".into())));
}

#[test]
fn hydra_settings_and_interpolations() {
    let c = compose_args(
        &[
            "workload=resnet50_h100",
            "++hydra.run.dir=/r/x",
            "++hydra.output_subdir=dlio_config",
        ],
        None,
    )
    .expect("compose");
    assert_eq!(c.hydra.run_dir, "/r/x");
    assert_eq!(c.hydra.output_subdir.as_deref(), Some("dlio_config"));
    assert_eq!(c.hydra_overrides.len(), 2);
    assert_eq!(c.task_overrides, ["workload=resnet50_h100"]);
    let now = chrono::Local::now();
    let resolved = resolved(&c.root, &now).expect("resolve");
    let dir = interpolate(DEFAULT_RUN_DIR, &resolved, &now, 0).expect("run dir");
    let want = format!("./hydra_log/resnet50/{}", now.format("%Y-%m-%d-%H-%M-%S"));
    assert_eq!(dir, Value::Str(want));
    let lone = interpolate("${workload.reader.batch_size}", &resolved, &now, 0).expect("lone");
    assert_eq!(lone, Value::Int(400));
    assert!(interpolate("${oc.decode:x}", &resolved, &now, 0).is_err());
    assert!(interpolate("${workload.none}", &resolved, &now, 0).is_err());
}
