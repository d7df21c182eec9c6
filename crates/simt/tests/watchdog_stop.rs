//! The watchdog stops a launch that reaches warp steps: a long launch (here one thread
//! rereading memory a hundred million times) is asked to stop at its next step when the
//! wall-clock limit passes, reported as timed out, and gives its memory back, so the
//! device goes on (`watchdog.rs` is the other case: a lane spinning in registers, whose
//! memory is lost with it).

mod common;

use common::reread;

use gpu_host::{Config, Device, LaunchConfig, LaunchError};
use std::time::{Duration, Instant};

#[test]
fn a_launch_past_its_watchdog_stops_at_a_step_and_the_device_goes_on() {
    let mut dev = Device::emulator_with(Config {
        watchdog: Some(Duration::from_secs(1)),
        step_budget: u64::MAX,
        spin_steps: 0,
        ..Config::default()
    });
    let out = dev.alloc::<u32>(32).unwrap();
    dev.fill(&out, 0).unwrap();
    let start = Instant::now();
    let e = dev
        .launch(
            &reread::KERNEL,
            LaunchConfig::linear(1, 32),
            (out.slice(), 100_000_000),
        )
        .unwrap_err();
    let took = start.elapsed();
    assert!(
        matches!(e, LaunchError::TimedOut { after, .. } if after == Duration::from_secs(1)),
        "{e:?}"
    );
    assert!(took < Duration::from_secs(10), "stopped after {took:?}");
    // The memory came back as the kernel left it: every lane had counted some, none all.
    let counts = dev.download(&out).unwrap();
    assert!(
        counts.iter().all(|&c| c > 0 && c < 100_000_000),
        "{counts:?}"
    );
    // And the device runs the next launch.
    dev.fill(&out, 0).unwrap();
    dev.launch(
        &reread::KERNEL,
        LaunchConfig::linear(1, 32),
        (out.slice(), 3),
    )
    .unwrap();
    assert_eq!(dev.download(&out).unwrap(), vec![3; 32]);
}
