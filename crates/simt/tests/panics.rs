//! A panicking lane (a student's `todo!()`, an index bug, an overflow) ends the launch
//! with `LaunchError::LanePanic` carrying the message, block and thread: never a crash of
//! the test binary, never a hang, and the device stays usable.

mod common;

use common::{device, device_with_watchdog};
use gpu::prelude::*;
use gpu_host::{Device, LaunchConfig, LaunchError};
use simt::ThreadRef;

const SRC: common::Src = src!("panics.rs");

/// One thread of one block has not been written yet.
#[kernel]
fn not_done(out: GlobalSlice<u32>) {
    if thread::block_idx_x() == 2 && thread::thread_idx_x() == 37 {
        todo!("9.4 privatize the bins"); // @todo
    }
    out.store(thread::index_1d(), 1);
}

fn check_todo(mut dev: Device) {
    let out = dev.alloc::<u32>(256).unwrap();
    let e = dev
        .launch(
            &not_done::KERNEL,
            LaunchConfig::linear(4, 64),
            (out.slice(),),
        )
        .unwrap_err();
    let site = SRC.site("todo", "todo!");
    assert_eq!(
        e,
        LaunchError::LanePanic {
            thread: ThreadRef {
                block: [2, 0, 0],
                thread: [37, 0, 0]
            },
            message: "not yet implemented: 9.4 privatize the bins".into(),
            site: site.clone(),
        }
    );
    assert_eq!(
        e.to_string(),
        format!(
            "thread (37,0,0) in block (2,0,0) panicked at {site}: not yet implemented: 9.4 privatize the bins"
        )
    );
    assert_eq!(e.kind(), "panicked");
    // Blocks 0 and 1 completed before block 2 started.
    let got = dev.download(&out).unwrap();
    assert_eq!(got[..128], [1; 128]);
    assert_eq!(got[128..], [0; 128]);
    // The device is still usable.
    dev.launch(
        &not_done::KERNEL,
        LaunchConfig::linear(2, 64),
        (out.slice(),),
    )
    .unwrap();
}

#[test]
fn a_todo_becomes_a_lane_panic_report() {
    check_todo(device());
}

#[test]
fn a_todo_becomes_a_lane_panic_report_under_the_watchdog() {
    check_todo(device_with_watchdog(60));
}

/// A host-side table indexed past its end by thread 3.
#[kernel]
fn table_lookup(out: GlobalSlice<u32>) {
    let table = [10u32, 20, 30];
    let t = thread::thread_idx_x();
    out.store(t, table[t as usize]); // @table
}

#[test]
fn an_index_panic_in_kernel_code_names_the_thread() {
    let mut dev = device();
    let out = dev.alloc::<u32>(8).unwrap();
    let e = dev
        .launch(
            &table_lookup::KERNEL,
            LaunchConfig::linear(1, 8),
            (out.slice(),),
        )
        .unwrap_err();
    let LaunchError::LanePanic {
        thread,
        message,
        site,
    } = e
    else {
        panic!("expected a lane panic, got {e:?}")
    };
    assert_eq!(thread.thread, [3, 0, 0]);
    assert_eq!(
        message,
        "index out of bounds: the len is 3 but the index is 3"
    );
    assert!(
        site.starts_with(&format!("{}:{}:", SRC.file, SRC.line("table"))),
        "{site}"
    );
}

/// A panic with a payload that is not a string, in the middle of the kernel: the other
/// lanes are parked at the store and are discarded.
#[kernel]
fn odd_payload(out: GlobalSlice<u32>) {
    let t = thread::thread_idx_x();
    out.store(t, t);
    if t == 40 {
        std::panic::panic_any(42u32);
    }
    out.store(t, t + 1);
}

#[test]
fn a_non_string_panic_payload_is_still_reported() {
    let mut dev = device();
    let out = dev.alloc::<u32>(64).unwrap();
    let e = dev
        .launch(
            &odd_payload::KERNEL,
            LaunchConfig::linear(1, 64),
            (out.slice(),),
        )
        .unwrap_err();
    match e {
        LaunchError::LanePanic {
            thread, message, ..
        } => {
            assert_eq!(thread.thread, [40, 0, 0]);
            assert_eq!(message, "(non-string panic payload)");
        }
        other => panic!("expected a lane panic, got {other:?}"),
    }
    // Round 1: warp 0's first store, then warp 1's; lane 40 panics as warp 1 moves on,
    // before warp 0's second store in round 2. Memory keeps the first stores.
    let got = dev.download(&out).unwrap();
    assert_eq!(got, (0..64).collect::<Vec<u32>>());
}

/// `u32` arithmetic that overflows: a panic in a debug build, as in any Rust code.
#[kernel]
fn overflow(out: GlobalSlice<u32>, x: u32) {
    out.store(0, x + thread::thread_idx_x());
}

#[test]
#[cfg(debug_assertions)]
fn an_overflow_in_a_debug_build_is_a_lane_panic() {
    let mut dev = device();
    let out = dev.alloc::<u32>(1).unwrap();
    let e = dev
        .launch(
            &overflow::KERNEL,
            LaunchConfig::linear(1, 2),
            (out.slice(), u32::MAX),
        )
        .unwrap_err();
    assert!(
        matches!(&e, LaunchError::LanePanic { thread, message, .. }
            if thread.thread == [1, 0, 0] && message == "attempt to add with overflow"),
        "{e:?}"
    );
}
