//! How fast the emulator runs: emulated lane-operations per second, on the launch the
//! course cares most about, a 256-thread-block shared-memory histogram over 2^20 bytes.
//!
//! `cargo bench -p simt --bench lane_ops` (the workspace's `bench` profile: release with
//! one codegen unit and fat LTO, see the root `Cargo.toml`). A lane-operation is one lane
//! taking part in one counted warp instruction (a load, store, atomic, collective or
//! barrier): `Counters::lane_ops`. Each one costs a coroutine switch into the lane and back,
//! plus the step's bookkeeping (checks and counters), so it is the emulator's unit of work.
//!
//! Prints the time of the whole launch (upload and download excluded) as the minimum and
//! median of several runs, and lane-operations per second at the median. An argument
//! (`cargo bench -p simt --bench lane_ops -- sandboxed`) runs only the launches whose name
//! contains it, to profile one of them alone.

use gpu::prelude::*;
use gpu_host::{Device, LaunchConfig};
use std::time::{Duration, Instant};

/// Bytes histogrammed.
const N: usize = 1 << 20;
/// Threads per block.
const BLOCK: u32 = 256;
/// Blocks: a few per SM of a small GPU; each thread handles `N / (GRID * BLOCK)` bytes.
const GRID: u32 = 32;
/// Timed launches (after one warm-up).
const RUNS: usize = 7;

/// The privatized histogram: per-block bins in shared memory, then one global atomic per
/// bin and block.
#[kernel]
fn histo_shared(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    let bins = shared_array![u32; 256];
    let t = thread::thread_idx_x();
    bins.store(t, 0);
    thread::sync_threads();
    let mut i = thread::index_1d();
    while i < data.len() {
        bins.atomic_add(data.load(i) as u32, 1);
        i += thread::grid_stride_x();
    }
    thread::sync_threads();
    histo.atomic_add(t, bins.load(t));
}

/// Warp-wide loads and stores only: the cheapest steps, to isolate the switch cost.
#[kernel]
fn copy(src: GlobalSlice<u32>, dst: GlobalSlice<u32>) {
    let mut i = thread::index_1d();
    while i < src.len() {
        dst.store(i, src.load(i));
        i += thread::grid_stride_x();
    }
}

fn time<F: FnMut() -> u64>(mut launch: F) -> (Duration, Duration, u64) {
    let lane_ops = launch();
    let mut times: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let t = Instant::now();
            let ops = launch();
            assert_eq!(ops, lane_ops, "the emulator is deterministic");
            t.elapsed()
        })
        .collect();
    times.sort();
    (times[0], times[RUNS / 2], lane_ops)
}

fn print(name: &str, (min, median, lane_ops): (Duration, Duration, u64)) {
    println!(
        "{name:<40} launch min {:>8.1} ms, median {:>8.1} ms; {lane_ops} lane-ops, {:.2} M lane-ops/s",
        min.as_secs_f64() * 1e3,
        median.as_secs_f64() * 1e3,
        lane_ops as f64 / median.as_secs_f64() / 1e6
    );
}

/// Does launch `name` run, given the command line's filter (cargo's own `--bench` flag
/// is not one)?
fn selected(name: &str) -> bool {
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    filters.is_empty() || filters.iter().any(|f| name.contains(f.as_str()))
}

fn main() {
    // A fixed pseudo-random input: the bench is deterministic.
    let mut s = 0x2545_f491_4f6c_dd1du64;
    let data: Vec<u8> = (0..N)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 24) as u8
        })
        .collect();
    let mut expect = vec![0u32; 256];
    for &b in &data {
        expect[b as usize] += 1;
    }

    let mut dev = Device::emulator();
    let d = dev.upload(&data).expect("upload");
    let h = dev.alloc::<u32>(256).expect("alloc");
    let name = format!("shared histogram, 2^20 bytes, {GRID}x{BLOCK}");
    if selected(&name) {
        let r = time(|| {
            dev.fill(&h, 0).expect("fill");
            let report = dev
                .launch(
                    &histo_shared::KERNEL,
                    LaunchConfig::linear(GRID, BLOCK),
                    (d.slice(), h.slice()),
                )
                .expect("the histogram runs");
            report.counters().expect("emulated").lane_ops
        });
        assert_eq!(dev.download(&h).expect("download"), expect);
        print(&name, r);
    }

    // The same launch of the course's reference 9.5 (the same algorithm, from
    // `solutions`), which the emulator runs in the sandbox: one WebAssembly instance per
    // lane, as every student and reference kernel runs.
    let name = format!("the same, sandboxed (solutions 9.5), {GRID}x{BLOCK}");
    if selected(&name) {
        let r = time(|| {
            dev.fill(&h, 0).expect("fill");
            let report = dev
                .launch(
                    &solutions::ch09::histo_private_shared::KERNEL,
                    LaunchConfig::linear(GRID, BLOCK),
                    (d.slice(), h.slice()),
                )
                .expect("the sandboxed histogram runs");
            report.counters().expect("emulated").lane_ops
        });
        assert_eq!(dev.download(&h).expect("download"), expect);
        print(&name, r);
    }

    let name = format!("copy, 2^18 u32, {GRID}x{BLOCK}");
    if !selected(&name) {
        return;
    }
    let words: Vec<u32> = (0..N as u32 / 4).collect();
    let src = dev.upload(&words).expect("upload");
    let dst = dev.alloc::<u32>(words.len()).expect("alloc");
    let r = time(|| {
        let report = dev
            .launch(
                &copy::KERNEL,
                LaunchConfig::linear(GRID, BLOCK),
                (src.slice(), dst.slice()),
            )
            .expect("the copy runs");
        report.counters().expect("emulated").lane_ops
    });
    assert_eq!(dev.download(&dst).expect("download"), words);
    print(&name, r);
}
