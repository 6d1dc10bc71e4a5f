//! dlio_benchmark's result document (read back through the report type
//! that wrote it, `DlioReport`, as `ResultFile::Dlio`) and its figures for
//! `compare` and `report`: training's
//! and evaluation's AU and samples/s per epoch (the epochs are the
//! repetitions) and each checkpoint's GB/s (saved during training, or saved
//! and loaded by a checkpoint-only run).

use serde_json::Value;

use crate::concurrent::tools::Sample;
use crate::dlio::report::DlioReport;

/// Whether `doc` is dlio_benchmark's.
pub fn is_dlio(doc: &Value) -> bool {
    doc["tool"] == "dlio_benchmark"
}

/// Every repetition of every figure of a dlio_benchmark result.
pub fn samples(r: &DlioReport) -> Vec<Sample<()>> {
    let mut out = Vec::new();
    let figure = |what: &str, unit: &str, v: f64| Sample::new(what.into(), None, unit, v, ());
    if let Some(t) = &r.training {
        for (name, s) in [("train", Some(&t.train)), ("eval", t.eval.as_ref())] {
            let Some(s) = s else { continue };
            out.extend(s.au.iter().map(|&v| figure(&format!("{name} AU"), "%", v)));
            let what = format!("{name} throughput");
            out.extend(s.throughput.iter().map(|&v| figure(&what, "samples/s", v)));
        }
        let saves = t.checkpoints.iter().map(|c| c.throughput);
        out.extend(saves.map(|v| figure("checkpoint save", "GB/s", v)));
    }
    if let Some(c) = &r.checkpoint {
        for (what, d) in [("checkpoint save", &c.saves), ("checkpoint load", &c.loads)] {
            out.extend(d.steps.iter().map(|s| figure(what, "GB/s", s.throughput)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn training_figures_are_per_epoch() {
        let mut r = DlioReport {
            tool: "dlio_benchmark".into(),
            ..DlioReport::default()
        };
        let mut t = crate::dlio::train::report::TrainReport::default();
        t.train.au = vec![50.0, 60.0];
        t.train.throughput = vec![10.0, 12.0];
        t.checkpoints = vec![crate::dlio::train::plan::SaveRecord {
            throughput: 1.5,
            ..Default::default()
        }];
        r.training = Some(t);
        let doc = serde_json::to_value(&r).expect("serialises");
        assert!(is_dlio(&doc));
        let back: Box<DlioReport> = crate::concurrent::tools::typed(&doc).expect("reads back");
        let got: Vec<(String, String, Option<f64>)> = samples(&back)
            .into_iter()
            .map(|s| (s.figure, s.unit, s.value))
            .collect();
        let want = |f: &str, u: &str, v: f64| (f.to_string(), u.to_string(), Some(v));
        assert_eq!(
            got,
            [
                want("train AU", "%", 50.0),
                want("train AU", "%", 60.0),
                want("train throughput", "samples/s", 10.0),
                want("train throughput", "samples/s", 12.0),
                want("checkpoint save", "GB/s", 1.5),
            ]
        );
    }
}
