//! The SVG of a traced launch ([`chapter::trace_svg::render_svg`]), locked with a snapshot:
//! the access pattern of each buffer and the contention heatmap of each buffer with
//! atomics. Review a change with `cargo insta review`.

use gpu::prelude::*;
use gpu_host::{Config, Device, LaunchConfig};
use simt::trace::TraceSink;

/// A privatized histogram of 8 bins: shared atomics, then one global atomic per bin and
/// block (the launch the emulator's own trace tests record).
#[kernel]
fn private_histo(data: GlobalSlice<u32>, histo: GlobalSlice<u32>) {
    let s = shared_array![u32; 8];
    let t = thread::thread_idx_x();
    if t < 8 {
        s.store(t, 0);
    }
    thread::sync_threads();
    let i = thread::index_1d();
    if i < data.len() {
        s.atomic_add(data.load(i) % 8, 1);
    }
    thread::sync_threads();
    if t < 8 {
        histo.atomic_add(t, s.load(t));
    }
}

#[test]
fn the_svg_is_locked() {
    let sink = TraceSink::new();
    let mut dev = Device::emulator_with(Config {
        watchdog: None,
        trace: Some(sink.clone()),
        ..Config::default()
    });
    // Skewed input: every third element is a 0, so bin 0 is hot.
    let data: Vec<u32> = (0..200u32)
        .map(|i| if i % 3 == 0 { 0 } else { i * 7 })
        .collect();
    let d = dev.upload(&data).unwrap();
    let h = dev.alloc::<u32>(8).unwrap();
    dev.fill(&h, 0).unwrap();
    dev.launch(
        &private_histo::KERNEL,
        LaunchConfig::linear(4, 64),
        (d.slice(), h.slice()),
    )
    .unwrap();
    let t = sink.take().pop().unwrap();
    let title = "private_histo: 200 elements, 8 bins";
    let svg = chapter::trace_svg::render_svg(&t, title);
    assert_eq!(
        svg,
        chapter::trace_svg::render_svg(&t, title),
        "deterministic"
    );
    insta::assert_snapshot!(svg);
}
