//! `__syncthreads()`: it orders a block's shared memory; reached by part of a block or at
//! two sites it is a synccheck error naming threads and sites; a spin-wait that can never
//! end is a deadlock naming where each thread is; an endless loop that keeps changing
//! memory hits the step budget. None of them hangs.

mod common;

use common::{device, emu};
use gpu::prelude::*;
use gpu_host::{Config, Device, LaunchConfig, LaunchError};
use simt::report::WaitSite;

const SRC: common::Src = src!("barriers.rs");

fn wait(what: &str, site: &str, threads: &str) -> WaitSite {
    WaitSite {
        what: what.into(),
        site: site.into(),
        threads: threads.into(),
        spinning: false,
        in_loop: None,
    }
}

fn exited(threads: &str) -> WaitSite {
    wait("exited", "", threads)
}

/// Reverses 64 elements through shared memory: each thread reads what another warp wrote.
#[kernel]
fn reverse(a: GlobalSlice<u32>) {
    let s = shared_array![u32; 64];
    let t = thread::thread_idx_x();
    s.store(t, a.load(t));
    thread::sync_threads(); // @reverse-bar
    a.store(t, s.load(63 - t));
}

#[test]
fn a_barrier_orders_shared_memory_between_warps() {
    let mut dev = device();
    let data: Vec<u32> = (0..64).collect();
    let a = dev.upload(&data).unwrap();
    let r = dev
        .launch(&reverse::KERNEL, LaunchConfig::linear(1, 64), (a.slice(),))
        .unwrap();
    let want: Vec<u32> = (0..64).rev().collect();
    assert_eq!(dev.download(&a).unwrap(), want);
    let e = emu(&r);
    assert!(e.findings.is_empty(), "{:#?}", e.findings);
    assert_eq!(e.counters.barriers, 1);
    let bar = e.line(SRC.file, SRC.line("reverse-bar")).unwrap();
    // A barrier is one instruction per warp, all lanes taking part.
    assert_eq!(
        (bar.barriers, bar.warp_instructions, bar.lane_ops),
        (1, 2, 64)
    );
}

/// A barrier in a loop, three times per block.
#[kernel]
fn barrier_loop(a: GlobalSlice<u32>) {
    let t = thread::thread_idx_x();
    for _ in 0..3 {
        a.atomic_add(t, 1);
        thread::sync_threads();
    }
}

#[test]
fn barriers_are_counted_once_per_release_per_block() {
    let mut dev = device();
    let a = dev.alloc::<u32>(48).unwrap();
    let r = dev
        .launch(
            &barrier_loop::KERNEL,
            LaunchConfig::linear(2, 48),
            (a.slice(),),
        )
        .unwrap();
    assert_eq!(dev.download(&a).unwrap(), vec![6; 48]);
    let c = r.counters().unwrap();
    assert_eq!(c.barriers, 6);
    // 2 warps per block (32 + 16 threads): 3 atomics and 3 barriers each, 2 blocks.
    assert_eq!(c.warp_instructions, 2 * 2 * 6);
}

/// Only threads 0-39 of the block reach the barrier; the others exit.
#[kernel]
fn part_of_block() {
    if thread::thread_idx_x() < 40 {
        thread::sync_threads(); // @part-bar
    }
}

#[test]
fn a_barrier_reached_by_part_of_the_block_is_a_synccheck_error() {
    let mut dev = device();
    let e = dev
        .launch(&part_of_block::KERNEL, LaunchConfig::linear(2, 64), ())
        .unwrap_err();
    let site = SRC.site("part-bar", "thread::sync_threads");
    assert_eq!(
        e,
        LaunchError::BarrierDivergence {
            block: [0, 0, 0],
            waits: vec![wait("__syncthreads", &site, "0-39"), exited("40-63")],
        }
    );
    assert_eq!(
        e.to_string(),
        format!(
            "synccheck: Barrier error detected in block (0,0,0): __syncthreads() must be reached by every \
             thread of the block, at the same place:\n    threads 0-39 wait in __syncthreads at {site}\n    \
             threads 40-63 exited"
        )
    );
}

/// Two warps of a block wait at two different barriers; inside warp 0, its halves too.
#[allow(clippy::if_same_then_else)] // two call sites: the point of the test
#[kernel]
fn two_sites() {
    let t = thread::thread_idx_linear();
    if t < 16 {
        thread::sync_threads(); // @site-a
    } else {
        thread::sync_threads(); // @site-b
    }
}

#[test]
fn barriers_at_two_sites_are_a_synccheck_error() {
    let mut dev = device();
    let e = dev
        .launch(
            &two_sites::KERNEL,
            LaunchConfig::dims((1, 1, 1), (8, 8, 1)),
            (),
        )
        .unwrap_err();
    // 8x8 threads, numbered x fastest: 0-15 are the first two rows.
    assert_eq!(
        e,
        LaunchError::BarrierDivergence {
            block: [0, 0, 0],
            waits: vec![
                wait("__syncthreads", &SRC.site("site-a", "thread::"), "0-15"),
                wait("__syncthreads", &SRC.site("site-b", "thread::"), "16-63"),
            ],
        }
    );
}

/// Thread 0 waits for a flag that thread 32 sets only after the barrier the rest of the
/// block waits at.
#[kernel]
fn spin_behind_barrier(flag: GlobalSlice<u32>) {
    let t = thread::thread_idx_x();
    if t == 0 {
        while flag.load(0) == 0 {} // @spin
    }
    thread::sync_threads(); // @spin-bar
    if t == 32 {
        flag.store(0, 1);
    }
}

#[test]
fn a_spin_wait_on_a_thread_held_at_a_barrier_is_a_livelock() {
    let mut dev = device();
    let flag = dev.alloc::<u32>(1).unwrap();
    let e = dev
        .launch(
            &spin_behind_barrier::KERNEL,
            LaunchConfig::linear(1, 64),
            (flag.slice(),),
        )
        .unwrap_err();
    let spin = WaitSite {
        spinning: true,
        in_loop: None,
        ..wait("__global__ read of size 4", &SRC.site("spin", "load"), "0")
    };
    let bar = wait(
        "__syncthreads",
        &SRC.site("spin-bar", "thread::sync_threads"),
        "1-63",
    );
    assert_eq!(
        e,
        LaunchError::Deadlock {
            block: [0, 0, 0],
            waits: vec![spin, bar],
        }
    );
    let text = e.to_string();
    assert!(
        text.starts_with("livelock in block (0,0,0): threads spin forever"),
        "{text}"
    );
    assert!(
        text.ends_with(&format!(
            "\n    thread 0 spins, repeating a __global__ read of size 4 at {}\n    threads 1-63 wait in \
             __syncthreads at {}",
            SRC.site("spin", "load"),
            SRC.site("spin-bar", "thread::sync_threads")
        )),
        "{text}"
    );
}

/// Block 0 waits for a flag that block 1 sets.
#[kernel]
fn wait_for_later_block(flag: GlobalSlice<u32>) {
    if thread::thread_idx_x() == 0 {
        if thread::block_idx_x() == 0 {
            while flag.load(0) == 0 {} // @block-spin
        } else {
            flag.store(0, 1);
        }
    }
}

#[test]
fn a_block_waiting_for_a_later_block_is_a_deadlock() {
    let mut dev = Device::emulator_with(Config {
        watchdog: None,
        spin_steps: 1000,
        ..Config::default()
    });
    let flag = dev.alloc::<u32>(1).unwrap();
    let e = dev
        .launch(
            &wait_for_later_block::KERNEL,
            LaunchConfig::linear(2, 32),
            (flag.slice(),),
        )
        .unwrap_err();
    let LaunchError::Deadlock { block, waits } = e else {
        panic!("expected a deadlock, got {e:?}")
    };
    assert_eq!(block, [0, 0, 0]);
    assert_eq!(
        waits,
        vec![
            WaitSite {
                spinning: true,
                in_loop: None,
                ..wait(
                    "__global__ read of size 4",
                    &SRC.site("block-spin", "load"),
                    "0"
                )
            },
            exited("1-31"),
        ]
    );
}

/// Changes memory on every step, forever.
#[kernel]
fn endless(counter: GlobalSlice<u32>) {
    loop {
        counter.atomic_add(0, 1); // @endless
    }
}

#[test]
fn an_endless_loop_that_changes_memory_hits_the_step_budget() {
    let mut dev = Device::emulator_with(Config {
        watchdog: None,
        step_budget: 10_000,
        ..Config::default()
    });
    let counter = dev.alloc::<u32>(1).unwrap();
    let e = dev
        .launch(
            &endless::KERNEL,
            LaunchConfig::linear(1, 32),
            (counter.slice(),),
        )
        .unwrap_err();
    assert_eq!(
        e,
        LaunchError::StepBudgetExceeded {
            budget: 10_000,
            waits: vec![wait(
                "atomicAdd on __global__",
                &SRC.site("endless", "atomic_add"),
                "0-31"
            )],
            block: [0, 0, 0],
        }
    );
    assert!(
        e.to_string()
            .contains("might be caused by an infinite loop")
    );
    // Exactly the budget's steps ran, and memory keeps what they did.
    assert_eq!(dev.download(&counter).unwrap(), vec![10_000 * 32]);
}
