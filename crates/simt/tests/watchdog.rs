//! The watchdog: a lane that spins in registers never reaches a scheduling point, so no
//! step budget can stop it; the launch runs on a worker thread and is abandoned after the
//! wall-clock limit, reported as timed out with the last site seen. The spinning thread
//! cannot be stopped, so the device's memory is lost with it.
//!
//! This file holds one test on purpose: the abandoned thread keeps a core busy until the
//! test binary exits.

mod common;

use common::device_with_watchdog;
use gpu::prelude::*;
use gpu_host::{LaunchConfig, LaunchError};
use simt::ThreadRef;
use std::time::{Duration, Instant};

const SRC: common::Src = src!("watchdog.rs");

/// Thread 0 forgets to advance its loop counter.
#[allow(clippy::while_immutable_condition)] // the bug under test
#[kernel]
fn forgot_increment(out: GlobalSlice<u32>, n: u32) {
    let t = thread::thread_idx_x();
    out.store(t, 1); // @before-spin
    if t == 0 {
        let i = 0;
        while i < n {}
    }
    out.store(t, 2);
}

#[test]
fn a_lane_spinning_in_registers_times_out() {
    let mut dev = device_with_watchdog(2);
    let out = dev.alloc::<u32>(32).unwrap();
    let start = Instant::now();
    let e = dev
        .launch(
            &forgot_increment::KERNEL,
            LaunchConfig::linear(1, 32),
            (out.slice(), 1),
        )
        .unwrap_err();
    let took = start.elapsed();
    let site = SRC.site("before-spin", "store");
    let thread = ThreadRef {
        block: [0, 0, 0],
        thread: [0, 0, 0],
    };
    assert_eq!(
        e,
        LaunchError::TimedOut {
            after: Duration::from_secs(2),
            last_seen: Some((site.clone(), thread)),
        }
    );
    assert_eq!(
        e.to_string(),
        format!(
            "timed out after 2.0 s of wall-clock time (the emulator's last-resort watchdog): the launch ran \
             too long, or a lane spins in a loop that never touches memory; last seen \
             at {site} (thread (0,0,0) in block (0,0,0))"
        )
    );
    assert!(
        took >= Duration::from_secs(2) && took < Duration::from_secs(20),
        "{took:?}"
    );
    // The spinning lane still owns the memory: the device is lost, and says so.
    let lost = dev.download(&out).unwrap_err();
    assert!(matches!(lost, LaunchError::DeviceLost { .. }), "{lost:?}");
    let again = dev
        .launch(
            &forgot_increment::KERNEL,
            LaunchConfig::linear(1, 32),
            (out.slice(), 0),
        )
        .unwrap_err();
    assert!(again.to_string().contains("create a new device"), "{again}");
}
