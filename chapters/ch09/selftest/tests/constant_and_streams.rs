//! The constant-memory and streams examples (`cargo run -p ch09 -- constant`, `streams`)
//! on the emulator: right histograms, the constant cache's serialization where the lanes
//! read different entries and none where they read one, and the timeline of two streams.

use ch09::lookup;
use ch09::streams;
use gpu_host::Device;

#[test]
fn a_table_in_constant_memory_serializes_by_distinct_entries() {
    let zeros = vec![b'e'; 4096];
    let text = ch09::inputs::cycle(ch09::inputs::TEXT.as_bytes(), 4096);
    let mut dev = Device::emulator();
    for (input, broadcast) in [(&zeros, true), (&text, false)] {
        let runs = lookup::run(&mut dev, input, 1, 256, Some(4), 0).unwrap();
        assert_eq!(runs.len(), 2);
        assert!(runs.iter().all(|r| r.correct));
        let c = runs[0].report.counters().copied().unwrap();
        // 4096 bytes, one lookup each: 128 warp loads of constant memory.
        assert_eq!(c.constant_load_requests, 128);
        if broadcast {
            assert_eq!((c.constant_serialized, c.constant_max_addresses), (0, 1));
        } else {
            assert!(c.constant_serialized > 128, "{c:?}");
            assert!(c.constant_max_addresses > 8, "{c:?}");
        }
        // The shared copy reads the table once per block: 8 warps of 32 entries, each a
        // 32-way serialized load, whatever the input.
        let s = runs[1].report.counters().copied().unwrap();
        assert_eq!(s.constant_load_requests, 4 * 8);
        assert_eq!(s.constant_serialized, 4 * 8 * 31);
    }
}

#[test]
fn two_streams_run_both_halves_and_may_overlap() {
    let data = ch09::inputs::uniform(8192, 3);
    let mut dev = Device::emulator();
    let runs = streams::run(&mut dev, &data, 64, 128, &[8], 0).unwrap();
    assert_eq!(runs[0].correct, [true, true]);
    assert_eq!(runs[0].gpu_median, [None, None]);
    let t = dev.timeline();
    assert_eq!(t.len(), 4, "two launches per arrangement");
    assert!(
        t[0].may_overlap.is_empty() && t[1].may_overlap.is_empty(),
        "one stream"
    );
    assert_eq!(
        (t[2].may_overlap.as_slice(), t[3].may_overlap.as_slice()),
        (&[3][..], &[2][..])
    );
    assert_eq!((t[2].stream, t[3].stream), (1, 2));
    let text = streams::timeline(&dev);
    assert!(text.contains("may overlap on a GPU: #4"), "{text}");
}
