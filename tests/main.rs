//! Every integration test of pario, in one test binary (`cargo test --test
//! suite`): one build and one link of the shared helpers (`common`) instead
//! of one per file. Each file under `tests/` is a module of it, named after
//! the file; a test's full name is `file::test`, so `cargo test --test suite
//! -- mdtest_cli::` runs one file's tests.
//!
//! Adding a test file: write `tests/NAME.rs` (reaching the helpers with
//! `use crate::common::...`; a file that needs a feature starts with
//! `#![cfg(feature = "...")]` and has `mpi` or `hdf5` in its name) and add
//! `mod NAME;` below. The tests at the end of this file fail while a file
//! under `tests/` is in no test binary, or needs a feature under another name.
//!
//! The tests run as threads of one process, beside each other's: no test
//! may change the process's environment, current directory or signal
//! dispositions (pass variables to the commands it starts instead). A test
//! that changes the whole machine has a binary of its own (aio_disabled.rs).

mod common;

// The tools end to end, on local tasks (threads).
mod aio;
mod compare;
mod concurrent;
mod dlio;
mod dlio_checkpoint;
mod dlio_checkpoint_s3;
mod dlio_train;
mod dlio_train_s3;
mod explain;
mod full_and_readonly;
mod fuzz_inputs;
mod fuzz_options;
mod fuzz_results;
mod integrity;
mod interpose;
mod io500;
mod io500_bundle;
mod io500_concurrent;
mod io500_find;
mod io500_plan;
mod io500_preflight;
mod ior_cli;
mod ior_compat;
mod launch;
mod limits;
mod md_workbench;
mod md_workbench_latency;
mod mdtest_cli;
mod mdtest_paths;
mod mixed;
mod mixed_latency;
mod outputs;
mod pattern_reference;
mod report;
mod runners;
mod s3;
mod s3_buckets;
mod s3_io500;
mod signals;
mod stonewall;
mod sweep;
mod system_record;
mod timeline;

// The source and documents themselves.
mod docs;
mod guide;
mod layers;
mod reference;

// Real components started by the tests: mpirun (`--features mpi`), parallel
// HDF5 (`--features hdf5`), a browser.
mod concurrent_mpi;
mod dlio_checkpoint_mpi;
mod dlio_mpi;
mod dlio_train_mpi;
mod hdf5;
mod hdf5_reference;
mod integrity_mpi;
mod io500_mpi;
mod md_workbench_mpi;
mod mdtest_mpi;
mod mpi;
mod report_browser;
mod s3_mpi;
mod signals_mpi;
mod sweep_mpi;

// `#[ignore]`d groups that start a Slurm cluster or three hosts in network
// namespaces; scripts/test.sh runs them by name, beside the other tests:
// `cargo test --features mpi --test suite -- --ignored slurm:: multihost::`.
mod multihost;
mod slurm;
mod slurm_mpich;

/// Cargo builds only the test binaries Cargo.toml names (`autotests =
/// false`), so a file under `tests/` that no `mod` line and no `[[test]]`
/// names would silently never run.
#[test]
fn every_test_file_is_in_a_test_binary() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |name: &str| std::fs::read_to_string(root.join(name)).unwrap();
    let (suite, manifest) = (read("tests/main.rs"), read("Cargo.toml"));
    let mut unbuilt = Vec::new();
    for entry in std::fs::read_dir(root.join("tests")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        let Some(module) = name.strip_suffix(".rs") else {
            continue;
        };
        let declared = suite.lines().any(|l| l == format!("mod {module};"));
        let own_binary = manifest.contains(&format!("path = \"tests/{name}\""));
        if !declared && !own_binary {
            unbuilt.push(name);
        }
    }
    assert!(
        unbuilt.is_empty(),
        "add `mod NAME;` to tests/main.rs for {unbuilt:?}"
    );
}

/// scripts/test.sh runs, on the MPI build, only the tests whose names hold
/// `mpi` or `hdf5` (and the `#[ignore]`d groups by name): a file that needs a
/// feature and is named otherwise would never run there.
#[test]
fn files_that_need_a_feature_are_named_for_it() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let groups = ["slurm.rs", "multihost.rs"];
    let mut misnamed = Vec::new();
    for entry in std::fs::read_dir(&root).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(root.join(&name)).unwrap_or_default();
        let needs_feature = text.contains("#![cfg(feature");
        let chosen =
            name.contains("mpi") || name.contains("hdf5") || groups.contains(&name.as_str());
        if needs_feature && !chosen && name != "main.rs" {
            misnamed.push(name);
        }
    }
    assert!(misnamed.is_empty(), "name {misnamed:?} with mpi or hdf5");
}
