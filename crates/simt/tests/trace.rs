//! Traces: an opt-in record of a launch's memory accesses, and their SVG, locked with a
//! snapshot. A trace is delivered also when the launch fails, and costs nothing when off.

mod common;

use common::private_histo;

use gpu::prelude::*;
use gpu_host::{Config, Device, LaunchConfig};
use simt::trace::{AccessKind, TraceSink};

fn traced_device() -> (Device, TraceSink) {
    let sink = TraceSink::new();
    let dev = Device::emulator_with(Config {
        watchdog: None,
        trace: Some(sink.clone()),
        ..Config::default()
    });
    (dev, sink)
}

fn run(dev: &mut Device) -> gpu_host::Result<()> {
    // Skewed input: every third element is a 0, so bin 0 is hot.
    let data: Vec<u32> = (0..200u32)
        .map(|i| if i % 3 == 0 { 0 } else { i * 7 })
        .collect();
    let d = dev.upload(&data)?;
    let h = dev.alloc::<u32>(8)?;
    dev.fill(&h, 0)?;
    dev.launch(
        &private_histo::KERNEL,
        LaunchConfig::linear(4, 64),
        (d.slice(), h.slice()),
    )?;
    Ok(())
}

#[test]
fn a_traced_launch_records_every_memory_step() {
    let (mut dev, sink) = traced_device();
    run(&mut dev).unwrap();
    let traces = sink.take();
    assert_eq!(traces.len(), 1, "one launch, one trace");
    let t = &traces[0];
    assert_eq!(t.grid, [4, 1, 1]);
    assert_eq!(t.buffers.len(), 3, "shared bins, input, global bins");
    // 200 elements: one shared atomic lane each; 8 commits per block.
    assert_eq!(t.atomic_lanes(), 200 + 4 * 8);
    let loads: usize = t
        .steps
        .iter()
        .filter(|s| s.kind == AccessKind::Load && t.buffers[s.buffer as usize].len == 200)
        .map(|s| s.lanes.len())
        .sum();
    assert_eq!(loads, 200);
    assert!(sink.take().is_empty(), "take empties the sink");
}

#[test]
fn tracing_is_off_by_default_and_changes_nothing() {
    let mut plain = common::device();
    run(&mut plain).unwrap();
    let (mut traced, _sink) = traced_device();
    run(&mut traced).unwrap();
    assert!(Config::default().trace.is_none());
}

/// A lane panics: the launch fails, and the trace of what ran until then is delivered.
#[kernel]
fn panics_midway(a: GlobalSlice<u32>) {
    let t = thread::thread_idx_x();
    a.atomic_add(t % 4, 1);
    if t == 40 {
        panic!("lane 40 gives up");
    }
    a.atomic_add(t % 4, 1);
}

#[test]
fn a_failing_launch_still_delivers_its_trace() {
    let (mut dev, sink) = traced_device();
    let a = dev.alloc::<u32>(4).unwrap();
    let err = dev
        .launch(
            &panics_midway::KERNEL,
            LaunchConfig::linear(1, 64),
            (a.slice(),),
        )
        .unwrap_err();
    assert!(err.to_string().contains("lane 40 gives up"), "{err}");
    let t = sink.take().pop().expect("the trace of the failed launch");
    assert!(t.atomic_lanes() >= 64);
}
