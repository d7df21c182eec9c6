//! Determinism: the same launch gives byte-identical reports (counters, per-line
//! counters, findings, errors) and memory, run after run, on any OS thread; a seeded
//! block order is reproducible too.

// Kernels read like CUDA C: `i % 2 == 0` rather than `i.is_multiple_of(2)`.
#![allow(clippy::manual_is_multiple_of)]

mod common;

use common::device;
use gpu::prelude::*;
use gpu_host::{Config, Device, LaunchConfig};

/// The naive histogram: racy on purpose, so there is plenty to report.
#[kernel]
fn naive_histogram(data: GlobalSlice<u32>, histo: GlobalSlice<u32>) {
    let bins = shared_array![u32; 8];
    let t = thread::thread_idx_x();
    if t < 8 {
        bins.store(t, 0);
    }
    thread::sync_threads();
    let mut i = thread::index_1d();
    while i < data.len() {
        let b = data.load(i);
        let v = bins.load(b);
        bins.store(b, v + 1);
        let g = histo.load(b);
        histo.store(b, g + 1);
        i += thread::grid_stride_x();
    }
    thread::sync_threads();
    if t < 8 {
        histo.atomic_add(t, bins.load(t));
    }
}

/// Two barriers that threads reach at different sites: an error report.
#[allow(clippy::if_same_then_else)] // two call sites: the point of the test
#[kernel]
fn divergent_barrier(data: GlobalSlice<u32>) {
    if data.load(thread::thread_idx_x()) % 2 == 0 {
        thread::sync_threads();
    } else {
        thread::sync_threads();
    }
}

fn input() -> Vec<u32> {
    (0..3000u32).map(|i| (i * 7 + i / 3) % 8).collect()
}

/// The whole outcome of one launch, as bytes: report JSON, memory, error text.
fn run(dev: &mut Device) -> String {
    let d = dev.upload(&input()).unwrap();
    let h = dev.alloc::<u32>(8).unwrap();
    let r = dev
        .launch(
            &naive_histogram::KERNEL,
            LaunchConfig::linear(3, 96),
            (d.slice(), h.slice()),
        )
        .unwrap();
    let report = serde_json::to_string(r.emulator.as_ref().unwrap()).unwrap();
    let memory = format!("{:?}", dev.download(&h).unwrap());
    let e = dev
        .launch(
            &divergent_barrier::KERNEL,
            LaunchConfig::linear(1, 96),
            (d.slice(),),
        )
        .unwrap_err();
    let error = serde_json::to_string(&e).unwrap();
    format!("{report}\n{memory}\n{error}\n{e}")
}

#[test]
fn the_same_launch_gives_byte_identical_reports() {
    let first = run(&mut device());
    for _ in 0..3 {
        assert_eq!(run(&mut device()), first);
    }
    // Launch reports include findings of every kind this kernel has.
    for needle in [
        "ConflictingStores",
        "SharedHazard",
        "GlobalHazard",
        "BarrierDivergence",
        "\"barriers\":",
    ] {
        assert!(first.contains(needle), "{needle} in {first}");
    }
}

#[test]
fn launches_on_other_os_threads_and_under_the_watchdog_agree() {
    let here = run(&mut device());
    let threads: Vec<_> = (0..2)
        .map(|_| std::thread::spawn(|| run(&mut Device::emulator())))
        .collect();
    for t in threads {
        assert_eq!(t.join().unwrap(), here);
    }
}

/// Thread 0 of each block takes a ticket: the order in which blocks ran.
#[kernel]
fn block_order(counter: GlobalSlice<u32>, order: GlobalSlice<u32>) {
    if thread::thread_idx_x() == 0 {
        order.store(thread::block_idx_x(), counter.atomic_add(0, 1));
    }
}

fn order(seed: Option<u64>) -> Vec<u32> {
    let mut dev = Device::emulator_with(Config {
        watchdog: None,
        block_order_seed: seed,
        ..Config::default()
    });
    let counter = dev.alloc::<u32>(1).unwrap();
    let order = dev.alloc::<u32>(16).unwrap();
    dev.launch(
        &block_order::KERNEL,
        LaunchConfig::linear(16, 32),
        (counter.slice(), order.slice()),
    )
    .unwrap();
    dev.download(&order).unwrap()
}

#[test]
fn blocks_run_in_order_or_in_a_reproducible_seeded_permutation() {
    assert_eq!(order(None), (0..16).collect::<Vec<u32>>());
    let shuffled = order(Some(1));
    assert_ne!(shuffled, (0..16).collect::<Vec<u32>>());
    let mut sorted = shuffled.clone();
    sorted.sort();
    assert_eq!(sorted, (0..16).collect::<Vec<u32>>(), "a permutation");
    assert_eq!(order(Some(1)), shuffled);
    assert_ne!(order(Some(2)), shuffled);
}
