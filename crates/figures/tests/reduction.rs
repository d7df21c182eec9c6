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

/// 10.6 with the barrier after each round left out: a round reads words that other
/// warps write in the round before, with nothing between them.
#[gpu::kernel]
fn tree_halving_no_barrier(data: gpu::GlobalSlice<u32>, sum: gpu::GlobalSlice<u32>) {
    use gpu::prelude::*;
    let s = shared_array![u32; 128];
    let t = thread::thread_idx_x();
    s.store(t, data.load(thread::index_1d()));
    thread::sync_threads();
    let mut stride = thread::block_dim_x() / 2;
    while stride > 0 {
        if t < stride {
            s.store(t, s.load(t) + s.load(t + stride));
        }
        stride /= 2;
    }
    if t == 0 {
        sum.atomic_add(0, s.load(0));
    }
}

/// The book's 10.6 says a missing barrier is reported as a hazard on shared memory.
#[test]
fn a_tree_without_its_barriers_is_reported() {
    let p = probe(&tree_halving_no_barrier::KERNEL, 128, 128).unwrap();
    println!(
        "10.6 without barriers: 128 ones, <<<1, 128>>>: sum {}, findings {}: {}",
        p.sum,
        p.findings,
        p.first_finding.as_deref().unwrap_or("-")
    );
    assert!(p.findings > 0, "the missing barrier must be reported");
}
