//! The step rule (`simt::schedule`): one warp instruction per step, loads before stores,
//! the highest lane wins a same-step store, earliest site first, reconvergence inside
//! loops, warps taking turns, blocks in order; and the naive increment that loses the same
//! updates on every run, with the finding that explains it.

// Kernels read like CUDA C: `i % 2 == 0` rather than `i.is_multiple_of(2)`.
#![allow(clippy::manual_is_multiple_of)]

mod common;

use common::{device, emu};
use gpu::prelude::*;
use gpu_host::LaunchConfig;
use simt::{Finding, ThreadRef};

const SRC: common::Src = src!("lockstep.rs");

fn thread(block: u32, t: u32) -> ThreadRef {
    ThreadRef {
        block: [block, 0, 0],
        thread: [t, 0, 0],
    }
}

/// The naive histogram's update on one counter: `h[0] = h[0] + 1` without an atomic.
#[kernel]
fn naive_inc(h: GlobalSlice<u32>) {
    let v = h.load(0); // @naive-load
    h.store(0, v + 1); // @naive-store
}

#[test]
fn naive_increment_of_one_block_loses_the_same_updates_every_run() {
    let store = SRC.site("naive-store", "store");
    for _ in 0..3 {
        let mut dev = device();
        let h = dev.upload(&[10u32]).unwrap();
        let r = dev
            .launch(
                &naive_inc::KERNEL,
                LaunchConfig::linear(1, 64),
                (h.slice(),),
            )
            .unwrap();
        // Round 1: warp 0 loads 10, warp 1 loads 10. Round 2: warp 0's 32 lanes store 11
        // (lane 31 wins), warp 1's store 11. 64 increments, one survives.
        assert_eq!(dev.download(&h).unwrap(), vec![11]);
        let addr = h.slice().addr();
        let findings = &emu(&r).findings;
        assert_eq!(
            findings,
            &vec![
                Finding::ConflictingStores {
                    space: "__global__",
                    site: store.clone(),
                    example: format!(
                        "in block (0,0,0) warp 0, lanes 0-31 all stored 11 to address {addr:#x} in one step; lane 31 won"
                    ),
                    steps: 2,
                    lost: 62,
                },
                Finding::GlobalHazard {
                    kind: "Write-after-Write",
                    first: (store.clone(), thread(0, 31)),
                    second: (store.clone(), thread(0, 32)),
                    address: addr,
                    count: 1,
                },
            ]
        );
        assert_eq!(
            findings[0].to_string(),
            format!(
                "__global__ write-write conflict at {store}: in block (0,0,0) warp 0, lanes 0-31 all stored 11 \
                 to address {addr:#x} in one step; lane 31 won; in 2 step(s) 62 store(s) were overwritten by \
                 another lane of the same warp (lost updates)"
            )
        );
        assert!(emu(&r).has_race());
        let c = r.counters().unwrap();
        assert_eq!(c.overwritten_stores, 62);
        assert_eq!((c.global_load_requests, c.global_store_requests), (2, 2));
    }
}

#[test]
fn naive_increment_over_blocks_gains_one_per_block() {
    let (load, store) = (
        SRC.site("naive-load", "load"),
        SRC.site("naive-store", "store"),
    );
    let mut dev = device();
    let h = dev.upload(&[10u32]).unwrap();
    let r = dev
        .launch(
            &naive_inc::KERNEL,
            LaunchConfig::linear(4, 64),
            (h.slice(),),
        )
        .unwrap();
    // Blocks run one after another; each one's 64 threads read the same value and add 1.
    assert_eq!(dev.download(&h).unwrap(), vec![14]);
    let addr = h.slice().addr();
    let f = &emu(&r).findings;
    assert_eq!(f.len(), 3, "{f:#?}");
    assert!(matches!(
        &f[0],
        Finding::ConflictingStores {
            steps: 8,
            lost: 248,
            ..
        }
    ));
    // Warp 1 over warp 0 in each block (4), and each later block's warp 0 over the block
    // before (3).
    assert_eq!(
        f[1],
        Finding::GlobalHazard {
            kind: "Write-after-Write",
            first: (store.clone(), thread(0, 31)),
            second: (store.clone(), thread(0, 32)),
            address: addr,
            count: 7,
        }
    );
    // Every load of blocks 1-3 reads what an earlier block stored, unordered.
    assert_eq!(
        f[2],
        Finding::GlobalHazard {
            kind: "Read-after-Write",
            first: (store.clone(), thread(0, 63)),
            second: (load, thread(1, 0)),
            address: addr,
            count: 192,
        }
    );
    assert!(f[2].to_string().starts_with(
        "global race (simt extension): Read-after-Write hazard on __global__ address"
    ));
}

/// Every lane reads its right neighbour's element, then writes its own.
#[kernel]
fn rotate(a: GlobalSlice<u32>) {
    let t = thread::thread_idx_x();
    let v = a.load((t + 1) % a.len());
    a.store(t, v);
}

#[test]
fn a_step_reads_memory_as_it_was_before_it() {
    let mut dev = device();
    let data: Vec<u32> = (0..32).map(|i| i * 10).collect();
    let a = dev.upload(&data).unwrap();
    let r = dev
        .launch(&rotate::KERNEL, LaunchConfig::linear(1, 32), (a.slice(),))
        .unwrap();
    // One load step for all 32 lanes, then one store step: an exact rotation. (Thread by
    // thread, the last lane would read the first lane's new value, 10, not 0.)
    let want: Vec<u32> = (0..32).map(|i| ((i + 1) % 32) * 10).collect();
    assert_eq!(dev.download(&a).unwrap(), want);
    assert!(
        emu(&r).findings.is_empty(),
        "one warp, ordered by its steps"
    );
    assert_eq!(r.counters().unwrap().warp_instructions, 2);
}

/// Odd lanes below 20 store their lane number to one address in one step.
#[kernel]
fn same_step_store(a: GlobalSlice<u32>) {
    let lane = warp::lane_id();
    if lane % 2 == 1 && lane < 20 {
        a.store(0, lane); // @same-store
    }
}

#[test]
fn the_highest_lane_wins_a_same_step_store() {
    let mut dev = device();
    let a = dev.alloc::<u32>(1).unwrap();
    let r = dev
        .launch(
            &same_step_store::KERNEL,
            LaunchConfig::linear(1, 32),
            (a.slice(),),
        )
        .unwrap();
    assert_eq!(dev.download(&a).unwrap(), vec![19]);
    let c = r.counters().unwrap();
    assert_eq!(c.overwritten_stores, 9);
    // The other lanes have exited by then: one store of 10 lanes, not a divergent step
    // (divergence is relative to the lanes still alive), a SIMT efficiency of 10/32.
    assert_eq!(
        (c.warp_instructions, c.lane_ops, c.divergent_steps),
        (1, 10, 0)
    );
    assert_eq!(
        emu(&r).findings,
        vec![Finding::ConflictingStores {
            space: "__global__",
            site: SRC.site("same-store", "store"),
            example: format!(
                "in block (0,0,0) warp 0, lanes 1, 3, 5, 7, 9, 11, 13, 15, 17, 19 stored 1, 3, 5, 7, 9, 11, 13, \
                 15, 17, 19 to address {:#x} in one step; lane 19 won",
                a.slice().addr()
            ),
            steps: 1,
            lost: 9,
        }]
    );
}

/// Each thread takes two tickets from one counter; atomics apply in lane order.
#[kernel]
fn tickets(counter: GlobalSlice<u32>, log: GlobalSlice<u32>) {
    let t = thread::index_1d();
    let a = counter.atomic_add(0, 1);
    let b = counter.atomic_add(0, 1);
    log.store(2 * t, a);
    log.store(2 * t + 1, b);
}

#[test]
fn warps_take_turns_step_by_step_and_blocks_run_in_order() {
    let mut dev = device();
    let counter = dev.alloc::<u32>(1).unwrap();
    let log = dev.alloc::<u32>(2 * 128).unwrap();
    dev.launch(
        &tickets::KERNEL,
        LaunchConfig::linear(2, 64),
        (counter.slice(), log.slice()),
    )
    .unwrap();
    let log = dev.download(&log).unwrap();
    // Block B, warp w, lane l: first ticket in round 1 (warp 0's 32 lanes, then warp 1's),
    // second in round 2; block 1 after all of block 0.
    for b in 0..2u32 {
        for w in 0..2u32 {
            for l in 0..32u32 {
                let t = (b * 64 + w * 32 + l) as usize;
                let first = 128 * b + 32 * w + l;
                assert_eq!(log[2 * t], first, "thread {t}");
                assert_eq!(log[2 * t + 1], first + 64, "thread {t}");
            }
        }
    }
    assert_eq!(dev.download(&counter).unwrap(), vec![256]);
}

/// An if/else whose `then` branch comes first in the source.
#[allow(clippy::if_same_then_else)] // two call sites: the point of the test
#[kernel]
fn branches(counter: GlobalSlice<u32>, log: GlobalSlice<u32>) {
    let lane = warp::lane_id();
    let x = if lane >= 16 {
        counter.atomic_add(0, 1) // @then
    } else {
        counter.atomic_add(0, 1) // @else
    };
    let y = counter.atomic_add(0, 1); // @after
    log.store(2 * lane, x);
    log.store(2 * lane + 1, y);
}

#[test]
fn divergent_branches_run_in_source_order_then_reconverge() {
    let mut dev = device();
    let counter = dev.alloc::<u32>(1).unwrap();
    let log = dev.alloc::<u32>(64).unwrap();
    let r = dev
        .launch(
            &branches::KERNEL,
            LaunchConfig::linear(1, 32),
            (counter.slice(), log.slice()),
        )
        .unwrap();
    let log = dev.download(&log).unwrap();
    for l in 0..32u32 {
        let x = if l >= 16 { l - 16 } else { 16 + l };
        assert_eq!(log[2 * l as usize], x, "lane {l} in its branch");
        assert_eq!(log[2 * l as usize + 1], 32 + l, "lane {l} after the branch");
    }
    let e = emu(&r);
    let then = e.line(SRC.file, SRC.line("then")).unwrap();
    let els = e.line(SRC.file, SRC.line("else")).unwrap();
    let after = e.line(SRC.file, SRC.line("after")).unwrap();
    assert_eq!((then.lane_ops, then.divergent_steps), (16, 1));
    assert_eq!((els.lane_ops, els.divergent_steps), (16, 1));
    assert_eq!((after.lane_ops, after.divergent_steps), (32, 0));
    let c = &e.counters;
    assert_eq!((c.warp_instructions, c.divergent_steps), (5, 2));
}

/// A loop whose body has a branch only lane 0 takes.
#[kernel]
fn leader_loop(counter: GlobalSlice<u32>, log: GlobalSlice<u32>) {
    let lane = warp::lane_id();
    for it in 0..3 {
        counter.atomic_add(0, 1); // @every-lane
        if lane == 0 {
            let seen = counter.load(0); // @leader-load
            log.store(it, seen);
        }
    }
}

#[test]
fn a_branch_inside_a_loop_finishes_before_the_next_iteration() {
    let mut dev = device();
    let counter = dev.alloc::<u32>(1).unwrap();
    let log = dev.alloc::<u32>(3).unwrap();
    let r = dev
        .launch(
            &leader_loop::KERNEL,
            LaunchConfig::linear(1, 32),
            (counter.slice(), log.slice()),
        )
        .unwrap();
    // Lane 0 reads after each iteration's 32 adds and before the next iteration's: the
    // lanes that jumped back wait for the lane that is behind. (Site order alone would run
    // the loop head first and lane 0 would read 63 and 95.)
    assert_eq!(dev.download(&log).unwrap(), vec![32, 64, 96]);
    let c = r.counters().unwrap();
    assert_eq!(c.warp_instructions, 9);
    // Lane 0's load and store diverge in the first two iterations; in the last one the
    // other lanes have left the loop and exited, so lane 0 is the whole live warp.
    assert_eq!(c.divergent_steps, 4);
    let every = emu(&r).line(SRC.file, SRC.line("every-lane")).unwrap();
    assert_eq!((every.warp_instructions, every.lane_ops), (3, 96));
}

/// Lane 0 waits for a flag that lane 31 of its own warp sets in the other branch.
#[kernel]
fn wait_for_lane(flag: GlobalSlice<u32>, out: GlobalSlice<u32>) {
    let lane = warp::lane_id();
    if lane == 0 {
        while flag.load(0) == 0 {} // @wait
        out.store(0, 7);
    } else if lane == 31 {
        flag.store(0, 1);
    }
}

#[test]
fn a_lane_can_wait_for_another_lane_of_its_warp() {
    // Since Volta a spinning lane does not starve the rest of its warp; in the model the
    // lane that jumped back lets the lanes that are behind go first.
    let mut dev = device();
    let flag = dev.alloc::<u32>(1).unwrap();
    let out = dev.alloc::<u32>(1).unwrap();
    let r = dev
        .launch(
            &wait_for_lane::KERNEL,
            LaunchConfig::linear(1, 32),
            (flag.slice(), out.slice()),
        )
        .unwrap();
    assert_eq!(dev.download(&out).unwrap(), vec![7]);
    let wait = emu(&r).line(SRC.file, SRC.line("wait")).unwrap();
    assert_eq!(wait.global_load_requests, 2, "read 0 once, then 1");
}

/// A data-dependent inner loop: each lane adds its value's set bits (of 4) to `out`.
#[kernel]
fn bits_per_value(data: GlobalSlice<u32>, out: GlobalSlice<u32>) {
    let mut i = thread::index_1d();
    while i < data.len() {
        let v = data.load(i); // @outer_load
        for k in 0..4 {
            if (v >> k) & 1 == 1 {
                out.atomic_add(k, 1);
            }
        }
        i += thread::grid_stride_x();
    }
}

#[test]
fn lanes_rejoin_after_a_data_dependent_inner_loop() {
    // 256 values over one warp: 8 outer iterations. Lanes leave the inner loop after a
    // different number of atomics, and lanes with no set bit skip it; they all wait for
    // each other before the next outer iteration, so each iteration's load is one
    // instruction for the whole warp: 8 requests, none divergent.
    let mut dev = device();
    let values: Vec<u32> = (0..256u32).map(|i| (i * 7 + 3) % 16).collect();
    let data = dev.upload(&values).unwrap();
    let out = dev.alloc::<u32>(4).unwrap();
    let r = dev
        .launch(
            &bits_per_value::KERNEL,
            LaunchConfig::linear(1, 32),
            (data.slice(), out.slice()),
        )
        .unwrap();
    let want: Vec<u32> = (0..4)
        .map(|k| values.iter().filter(|v| (*v >> k) & 1 == 1).count() as u32)
        .collect();
    assert_eq!(dev.download(&out).unwrap(), want);
    let load = emu(&r).line(SRC.file, SRC.line("outer_load")).unwrap();
    assert_eq!(load.global_load_requests, 8);
    assert_eq!(load.divergent_steps, 0);
}
