//! Constant memory and streams on the emulator backend: what `set_constant` puts there
//! is what kernels read, the constant cache's serialization is counted, and launches on
//! streams report what a GPU may run at the same time.

use gpu::prelude::*;
use gpu_host::{Device, LaunchConfig, LaunchError};

gpu::constant! {
    /// A table of 64 values for the tests.
    static TABLE: [u32; 64];
    /// Never set by any test: reads as zeros, as a module's constant memory starts.
    static UNSET: [u16; 8];
}

/// `out[i] = TABLE[(i * stride) % 64]`: with stride 0 every lane reads one entry (a
/// broadcast), with stride 1 each lane of a warp its own.
#[kernel]
fn gather(out: GlobalSlice<u32>, stride: u32) {
    let i = thread::index_1d();
    if i < out.len() {
        out.store(i, TABLE.load((i * stride) % TABLE.len()));
    }
}

/// Reads `TABLE[i]` for every thread `i`: past 63 it is out of bounds.
#[kernel]
fn past_the_end(out: GlobalSlice<u32>) {
    let i = thread::index_1d();
    out.store(i, TABLE.load(i));
}

#[kernel]
fn read_unset(out: GlobalSlice<u32>) {
    let i = thread::index_1d();
    out.store(i, UNSET.load(i % 8) as u32 + 1);
}

fn table() -> Vec<u32> {
    (0..64).map(|i| 1000 + i * 7).collect()
}

#[test]
fn kernels_read_what_the_host_set_and_distinct_addresses_serialize() {
    let mut dev = Device::emulator();
    dev.set_constant(&TABLE, &table()).unwrap();
    let out = dev.alloc::<u32>(64).unwrap();
    let cfg = LaunchConfig::linear(2, 32);
    let r = dev.launch(&gather::KERNEL, cfg, (out.slice(), 1)).unwrap();
    assert_eq!(dev.download(&out).unwrap(), table());
    let c = r.counters().unwrap();
    assert_eq!(c.constant_load_requests, 2, "one per warp");
    assert_eq!(
        c.constant_serialized,
        2 * 31,
        "32 distinct entries: 31 extra passes"
    );
    assert_eq!(c.constant_max_addresses, 32);
    let r = dev.launch(&gather::KERNEL, cfg, (out.slice(), 0)).unwrap();
    assert_eq!(dev.download(&out).unwrap(), vec![1000; 64]);
    let c = r.counters().unwrap();
    assert_eq!(c.constant_load_requests, 2);
    assert_eq!(
        c.constant_serialized, 0,
        "one entry for the warp: a broadcast"
    );
    assert_eq!(c.constant_max_addresses, 1);
    // Set again: later launches see the new values.
    let doubled: Vec<u32> = table().iter().map(|v| 2 * v).collect();
    dev.set_constant(&TABLE, &doubled).unwrap();
    dev.launch(&gather::KERNEL, cfg, (out.slice(), 1)).unwrap();
    assert_eq!(dev.download(&out).unwrap(), doubled);
}

#[test]
fn constant_memory_is_checked_like_any_other() {
    let mut dev = Device::emulator();
    let e = dev.set_constant(&TABLE, &[1, 2, 3]).unwrap_err();
    assert!(
        e.to_string().contains("holds 64 elements; 3 were given"),
        "{e}"
    );
    dev.set_constant(&TABLE, &table()).unwrap();
    let out = dev.alloc::<u32>(96).unwrap();
    let e = dev
        .launch(
            &past_the_end::KERNEL,
            LaunchConfig::linear(3, 32),
            (out.slice(),),
        )
        .unwrap_err();
    match e {
        LaunchError::MemoryFault {
            kind,
            access,
            index,
            len,
            ..
        } => {
            assert_eq!((kind, index, len), ("out of bounds", 64, 64));
            assert_eq!(access, "__constant__ read of size 4");
        }
        other => panic!("{other}"),
    }
    let out = dev.alloc::<u32>(32).unwrap();
    dev.launch(
        &read_unset::KERNEL,
        LaunchConfig::linear(1, 32),
        (out.slice(),),
    )
    .unwrap();
    assert_eq!(dev.download(&out).unwrap(), vec![1; 32]);
}

/// Adds 1 to `out[i]` for every `i` of the grid.
#[kernel]
fn bump(out: GlobalSlice<u32>) {
    let i = thread::index_1d();
    if i < out.len() {
        out.atomic_add(i, 1);
    }
}

#[test]
fn stream_launches_run_and_say_what_a_gpu_may_overlap() {
    let mut dev = Device::emulator();
    let (a, b) = (dev.create_stream().unwrap(), dev.create_stream().unwrap());
    assert_eq!((a.number(), b.number()), (1, 2));
    let out = dev.alloc::<u32>(64).unwrap();
    let cfg = LaunchConfig::linear(1, 64);
    dev.launch_on(&a, &bump::KERNEL, cfg, (out.slice(),))
        .unwrap();
    dev.launch_on(&b, &bump::KERNEL, cfg, (out.slice(),))
        .unwrap();
    let done_a = dev.record_event(&a).unwrap();
    dev.wait_event(&b, &done_a).unwrap();
    dev.launch_on(&b, &bump::KERNEL, cfg, (out.slice(),))
        .unwrap();
    dev.synchronize_stream(&b).unwrap();
    assert_eq!(dev.download(&out).unwrap(), vec![3; 64], "every launch ran");
    let t = dev.timeline();
    assert_eq!(t.len(), 3);
    assert_eq!(t[0].may_overlap, [1], "launches of two streams, unordered");
    assert_eq!(t[1].may_overlap, [0]);
    assert!(t[2].may_overlap.is_empty(), "b waited for a's event");
    assert_eq!(
        (t[0].stream, t[1].stream, t[0].blocks, t[0].threads),
        (1, 2, 1, 64)
    );
    assert_eq!(
        t[0].blocks_per_sm, 32,
        "2048 threads per SM, 64 threads a block"
    );
    assert_eq!(t[0].report.counters().unwrap().global_atomic_lanes, 64);
    assert_eq!(dev.elapsed(&done_a, &done_a).unwrap(), None, "no GPU clock");
    let other = Device::emulator().create_stream().unwrap();
    let e = dev
        .launch_on(&other, &bump::KERNEL, cfg, (out.slice(),))
        .unwrap_err();
    assert!(e.to_string().contains("another device"), "{e}");
}
