//! Chapter 10's mechanism figures agree with their runs (each figure function checks its
//! own run and fails otherwise), and the probes behind 10.2's and 10.3's predictions:
//! `cargo test -p figures --test reduction -- --nocapture` prints what the pages quote.

use figures::reduction::{self, probe, sum_atomic, sum_racy};

/// Every figure is drawn from a run that matches its counters and its definition.
#[test]
fn reduction_figures_match_their_runs() {
    let figs = reduction::reduction_figures().unwrap();
    assert_eq!(figs.len(), 5);
    for f in &figs {
        assert!(
            f.svg.starts_with("<svg ") && f.svg.ends_with("</svg>\n"),
            "{}",
            f.name
        );
        assert!(f.svg.contains("SIMT emulator"), "{}: no caption", f.name);
    }
}

/// 10.2: a plain `sum += x` from every thread loses updates and is reported as a race;
/// 10.3: one atomic per element loses none, with one atomic lane per element.
#[test]
fn racy_sum_loses_updates_and_atomic_sum_does_not() {
    let (n, block) = (1000, 256);
    let racy = probe(&sum_racy::KERNEL, n, block).unwrap();
    let atomic = probe(&sum_atomic::KERNEL, n, block).unwrap();
    println!(
        "10.2 sum_racy: {n} ones, <<<{}, {block}>>>: sum {}, races reported {}, overwritten stores {}",
        n.div_ceil(block),
        racy.sum,
        racy.findings,
        racy.counters.overwritten_stores
    );
    println!(
        "10.3 sum_atomic: {n} ones, <<<{}, {block}>>>: sum {}, races reported {}, g.atomics {}, worst.ser {}",
        n.div_ceil(block),
        atomic.sum,
        atomic.findings,
        atomic.counters.global_atomic_lanes,
        atomic.counters.global_atomic_max_depth
    );
    assert!(
        racy.sum < n && racy.findings > 0,
        "the race must lose updates and be reported"
    );
    assert_eq!(atomic.sum, n);
    assert_eq!(atomic.findings, 0);
    assert_eq!(atomic.counters.global_atomic_lanes, n as u64);
}
