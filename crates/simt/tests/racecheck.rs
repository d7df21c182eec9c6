//! racecheck: hazards on shared memory between threads of different warps with no
//! barrier between them (write-write, read-after-write, write-after-read, plain vs
//! atomic), each reported once per pair of sites with how often it happened; none
//! inside a warp (unless `Config::lane_hazards` asks, where only a barrier or a
//! `__syncwarp` orders two lanes) or across a barrier; same-step conflicting stores.

mod common;

use common::{device, emu};
use gpu::prelude::*;
use gpu_host::LaunchConfig;
use simt::{Finding, ThreadRef};

const SRC: common::Src = src!("racecheck.rs");

fn thread(t: u32) -> ThreadRef {
    ThreadRef {
        block: [0, 0, 0],
        thread: [t, 0, 0],
    }
}

/// Warp 0 and warp 1 write the same 32 words at two sites, no barrier between.
#[kernel]
fn write_write(out: GlobalSlice<u32>) {
    let s = shared_array![u32; 32];
    let t = thread::thread_idx_x();
    let l = t % 32;
    if t < 32 {
        s.store(l, 1); // @waw-a
    } else {
        s.store(l, 2); // @waw-b
    }
    thread::sync_threads();
    out.store(t, s.load(l));
}

#[test]
fn write_write_across_warps_is_reported_once_with_both_sites() {
    let mut dev = device();
    let out = dev.alloc::<u32>(64).unwrap();
    let r = dev
        .launch(
            &write_write::KERNEL,
            LaunchConfig::linear(1, 64),
            (out.slice(),),
        )
        .unwrap();
    assert_eq!(
        dev.download(&out).unwrap(),
        vec![2; 64],
        "warp 1 stored last"
    );
    let (a, b) = (SRC.site("waw-a", "store"), SRC.site("waw-b", "store"));
    let f = &emu(&r).findings;
    assert_eq!(
        f,
        &vec![Finding::SharedHazard {
            kind: "Write-after-Write",
            first: (a.clone(), thread(0)),
            second: (b.clone(), thread(32)),
            offset: 0,
            count: 32,
        }]
    );
    assert_eq!(
        f[0].to_string(),
        format!(
            "racecheck: Write-after-Write hazard on __shared__ memory at byte offset 0: {a} by thread (0,0,0) \
             in block (0,0,0) and {b} by thread (32,0,0) in block (0,0,0), with no __syncthreads() between \
             them (32x)"
        )
    );
    assert!(emu(&r).has_race());
}

/// Each thread reads the element the mirror thread (in the other warp) wrote, with no
/// barrier.
#[kernel]
fn read_after_write(out: GlobalSlice<u32>) {
    let s = shared_array![u32; 64];
    let t = thread::thread_idx_x();
    s.store(t, t); // @raw-store
    let v = s.load(63 - t); // @raw-load
    out.store(t, v);
}

#[test]
fn read_after_write_across_warps() {
    let mut dev = device();
    let out = dev.alloc::<u32>(64).unwrap();
    let r = dev
        .launch(
            &read_after_write::KERNEL,
            LaunchConfig::linear(1, 64),
            (out.slice(),),
        )
        .unwrap();
    // Lockstep happens to store before it loads, so the data is right here; on a GPU the
    // other warp may not have stored yet. The report says so.
    let want: Vec<u32> = (0..64).rev().collect();
    assert_eq!(dev.download(&out).unwrap(), want);
    assert_eq!(
        emu(&r).findings,
        vec![Finding::SharedHazard {
            kind: "Read-after-Write",
            first: (SRC.site("raw-store", "store"), thread(63)),
            second: (SRC.site("raw-load", "load"), thread(0)),
            offset: 63 * 4,
            count: 64,
        }]
    );
}

/// Each thread reads the mirror element, then overwrites its own, with no barrier
/// between the read and the other warp's write.
#[kernel]
fn write_after_read(out: GlobalSlice<u32>) {
    let s = shared_array![u32; 64];
    let t = thread::thread_idx_x();
    s.store(t, t);
    thread::sync_threads();
    let v = s.load(63 - t); // @war-load
    s.store(t, v + 100); // @war-store
    thread::sync_threads();
    out.store(t, s.load(t));
}

#[test]
fn write_after_read_across_warps() {
    let mut dev = device();
    let out = dev.alloc::<u32>(64).unwrap();
    let r = dev
        .launch(
            &write_after_read::KERNEL,
            LaunchConfig::linear(1, 64),
            (out.slice(),),
        )
        .unwrap();
    let want: Vec<u32> = (0..64).rev().map(|v| v + 100).collect();
    assert_eq!(dev.download(&out).unwrap(), want);
    assert_eq!(
        emu(&r).findings,
        vec![Finding::SharedHazard {
            kind: "Write-after-Read",
            first: (SRC.site("war-load", "load"), thread(63)),
            second: (SRC.site("war-store", "store"), thread(0)),
            offset: 0,
            count: 64,
        }]
    );
}

/// Warp 0 adds atomically while a thread of warp 1 plain-stores the same word.
#[kernel]
fn plain_vs_atomic(out: GlobalSlice<u32>) {
    let s = shared_array![u32; 1];
    let t = thread::thread_idx_x();
    if t == 0 {
        s.store(0, 0);
    }
    thread::sync_threads();
    if t < 32 {
        s.atomic_add(0, 1); // @pva-atomic
    } else if t == 32 {
        s.store(0, 100); // @pva-store
    }
    thread::sync_threads();
    if t == 0 {
        out.store(0, s.load(0));
    }
}

#[test]
fn a_plain_store_races_with_another_warps_atomics() {
    let mut dev = device();
    let out = dev.alloc::<u32>(1).unwrap();
    let r = dev
        .launch(
            &plain_vs_atomic::KERNEL,
            LaunchConfig::linear(1, 64),
            (out.slice(),),
        )
        .unwrap();
    assert_eq!(dev.download(&out).unwrap(), vec![100]);
    assert_eq!(
        emu(&r).findings,
        vec![Finding::SharedHazard {
            kind: "Write-after-Write",
            first: (SRC.site("pva-atomic", "atomic_add"), thread(31)),
            second: (SRC.site("pva-store", "store"), thread(32)),
            offset: 0,
            count: 1,
        }]
    );
}

/// Neighbours inside one warp exchange through shared memory without a barrier; then
/// both warps exchange across a barrier.
#[kernel]
fn ordered(out: GlobalSlice<u32>) {
    let s = shared_array![u32; 64];
    let t = thread::thread_idx_x();
    s.store(t, t);
    let v = s.load(t ^ 1);
    thread::sync_threads();
    s.store(t, v);
    thread::sync_threads();
    out.store(t, s.load(63 - t));
}

#[test]
fn accesses_ordered_by_lockstep_or_a_barrier_are_not_hazards() {
    let mut dev = device();
    let out = dev.alloc::<u32>(64).unwrap();
    let r = dev
        .launch(
            &ordered::KERNEL,
            LaunchConfig::linear(1, 64),
            (out.slice(),),
        )
        .unwrap();
    let want: Vec<u32> = (0..64).map(|t| (63 - t) ^ 1).collect();
    assert_eq!(dev.download(&out).unwrap(), want);
    assert!(emu(&r).findings.is_empty(), "{:#?}", emu(&r).findings);
    assert!(!emu(&r).has_race());
}

/// Every lane of each warp stores its thread index to one shared word in one step.
#[kernel]
fn same_step_shared(out: GlobalSlice<u32>) {
    let s = shared_array![u32; 2];
    let t = thread::thread_idx_x();
    s.store(t / 32, t); // @same-step
    thread::sync_threads();
    if t < 2 {
        out.store(t, s.load(t));
    }
}

#[test]
fn same_step_stores_to_one_shared_word() {
    let mut dev = device();
    let out = dev.alloc::<u32>(2).unwrap();
    let r = dev
        .launch(
            &same_step_shared::KERNEL,
            LaunchConfig::linear(1, 64),
            (out.slice(),),
        )
        .unwrap();
    assert_eq!(dev.download(&out).unwrap(), vec![31, 63]);
    let values: Vec<String> = (0..32).map(|v| v.to_string()).collect();
    assert_eq!(
        emu(&r).findings,
        vec![Finding::ConflictingStores {
            space: "__shared__",
            site: SRC.site("same-step", "store"),
            example: format!(
                "in block (0,0,0) warp 0, lanes 0-31 stored {} to address 0x0 in one step; lane 31 won",
                values.join(", ")
            ),
            steps: 2,
            lost: 62,
        }]
    );
    assert_eq!(r.counters().unwrap().overwritten_stores, 62);
}

/// `ordered`'s exchange inside a warp with a `__syncwarp` between the store and the read.
#[kernel]
fn ordered_by_syncwarp(out: GlobalSlice<u32>) {
    let s = shared_array![u32; 64];
    let t = thread::thread_idx_x();
    s.store(t, t);
    warp::sync_warp(warp::FULL_MASK);
    let v = s.load(t ^ 1);
    thread::sync_threads();
    s.store(t, v);
    thread::sync_threads();
    out.store(t, s.load(63 - t));
}

#[test]
fn with_lane_hazards_only_a_barrier_or_a_syncwarp_orders_a_warps_lanes() {
    let mut dev = gpu_host::Device::emulator_with(simt::Config {
        watchdog: None,
        step_budget: 2_000_000,
        lane_hazards: true,
        ..simt::Config::default()
    });
    let out = dev.alloc::<u32>(64).unwrap();
    let want: Vec<u32> = (0..64).map(|t| (63 - t) ^ 1).collect();
    // Lockstep no longer orders the neighbours' exchange: lane 1 stored the word lane 0
    // reads, in one warp, with nothing between.
    let r = dev
        .launch(
            &ordered::KERNEL,
            LaunchConfig::linear(1, 64),
            (out.slice(),),
        )
        .unwrap();
    assert_eq!(dev.download(&out).unwrap(), want);
    let f = &emu(&r).findings;
    assert!(
        matches!(
            &f[..],
            [Finding::SharedHazard { kind: "Read-after-Write", first, second, .. }]
                if first.1 == thread(1) && second.1 == thread(0)
        ),
        "{f:#?}"
    );
    // A `__syncwarp` between them orders them; the barriers order the rest.
    let r = dev
        .launch(
            &ordered_by_syncwarp::KERNEL,
            LaunchConfig::linear(1, 64),
            (out.slice(),),
        )
        .unwrap();
    assert_eq!(dev.download(&out).unwrap(), want);
    assert!(emu(&r).findings.is_empty(), "{:#?}", emu(&r).findings);
}
