//! The fidelity run (`bench/fidelity.py`) and the emulator name the same
//! Nsight Compute metrics: every metric of `Counters::ncu_metrics` has a short name in the
//! script (or its table would print raw metric names and its bounds would not apply). The
//! anchors the book includes the committed table by are checked with every include
//! (`integrity.rs`).

use gpu_host::Counters;

#[test]
fn the_fidelity_script_knows_every_metric_the_emulator_models() {
    let root = course_tests::workspace_root();
    let script =
        std::fs::read_to_string(root.join("bench/fidelity.py")).expect("bench/fidelity.py");
    let names = Counters::default().ncu_metrics().map(|(name, _)| name);
    for name in names {
        assert!(
            script.contains(&format!("\"{name}\":")),
            "fidelity.py's COUNTERS has no short name for {name}"
        );
    }
    let unique: std::collections::BTreeSet<_> = names.iter().collect();
    assert_eq!(unique.len(), names.len(), "a metric is named twice");
}
