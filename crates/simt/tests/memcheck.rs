//! memcheck and initcheck: an out-of-bounds or misaligned access ends the launch with an
//! error naming the block, thread, kernel line and the bad index (not a Rust panic);
//! shared memory starts as poison (`0xCDCDCDCD`), and reading a byte no thread of the
//! block wrote is reported.

// Kernels read like CUDA C: `i % 2 == 0` rather than `i.is_multiple_of(2)`.
#![allow(clippy::manual_is_multiple_of)]

mod common;

use common::{device, emu};
use gpu::prelude::*;
use gpu_host::{LaunchConfig, LaunchError};
use simt::{Finding, ThreadRef};

const SRC: common::Src = src!("memcheck.rs");

fn at(block: u32, t: u32) -> ThreadRef {
    ThreadRef {
        block: [block, 0, 0],
        thread: [t, 0, 0],
    }
}

/// Reads one element ahead: the last thread of the grid reads past the end.
#[kernel]
fn read_ahead(a: GlobalSlice<u32>, out: GlobalSlice<u32>) {
    let i = thread::index_1d();
    let v = a.load(i + 1); // @read-ahead
    out.store(i, v);
}

#[test]
fn an_out_of_bounds_global_read_names_block_thread_line_and_index() {
    let mut dev = device();
    let data: Vec<u32> = (0..64).collect();
    let a = dev.upload(&data).unwrap();
    let out = dev.alloc::<u32>(64).unwrap();
    let e = dev
        .launch(
            &read_ahead::KERNEL,
            LaunchConfig::linear(2, 32),
            (a.slice(), out.slice()),
        )
        .unwrap_err();
    let site = SRC.site("read-ahead", "load");
    let address = a.slice().addr() + 64 * 4;
    assert_eq!(
        e,
        LaunchError::MemoryFault {
            kind: "out of bounds",
            access: "__global__ read of size 4".into(),
            thread: at(1, 31),
            site: site.clone(),
            index: 64,
            len: 64,
            address,
        }
    );
    assert_eq!(
        e.to_string(),
        format!(
            "memcheck: Invalid __global__ read of size 4 at {site} by thread (31,0,0) in block (1,0,0): index \
             64 is out of bounds (the buffer has 64 elements; address {address:#x})"
        )
    );
    // Memory keeps what ran before the fault, as on a GPU: block 0 finished.
    let got = dev.download(&out).unwrap();
    assert_eq!(got[..32], data[1..33]);
    assert_eq!(got[32..], [0; 32]);
}

/// Stores and atomics past the end, and an index that wrapped below zero.
#[kernel]
fn bad_writes(a: GlobalSlice<u32>, which: u32) {
    let i = thread::index_1d();
    match which {
        0 => a.store(2 * i, 1), // @bad-store
        1 => {
            a.atomic_add(i + 60, 1); // @bad-atomic
        }
        _ => {
            let _ = a.load(i.wrapping_sub(1)); // @bad-wrap
        }
    }
}

#[test]
fn out_of_bounds_stores_atomics_and_wrapped_indices() {
    let mut dev = device();
    let a = dev.alloc::<u32>(64).unwrap();
    let cfg = LaunchConfig::linear(2, 32);
    let fault = |e: LaunchError| match e {
        LaunchError::MemoryFault {
            kind,
            access,
            thread,
            site,
            index,
            len,
            ..
        } => (kind, access, thread, site, index, len),
        other => panic!("expected a memory fault, got {other:?}"),
    };
    let e = dev
        .launch(&bad_writes::KERNEL, cfg, (a.slice(), 0))
        .unwrap_err();
    assert_eq!(
        fault(e),
        (
            "out of bounds",
            "__global__ write of size 4".to_string(),
            at(1, 0),
            SRC.site("bad-store", "store"),
            64,
            64
        )
    );
    let e = dev
        .launch(&bad_writes::KERNEL, cfg, (a.slice(), 1))
        .unwrap_err();
    assert_eq!(
        fault(e),
        (
            "out of bounds",
            "atomicAdd on __global__".to_string(),
            at(0, 4),
            SRC.site("bad-atomic", "atomic_add"),
            64,
            64
        )
    );
    let e = dev
        .launch(&bad_writes::KERNEL, cfg, (a.slice(), 2))
        .unwrap_err();
    assert_eq!(
        fault(e),
        (
            "out of bounds",
            "__global__ read of size 4".to_string(),
            at(0, 0),
            SRC.site("bad-wrap", "load"),
            u32::MAX as u64,
            64
        )
    );
}

#[kernel]
fn read_at(a: GlobalSlice<u32>) {
    let _ = a.load(thread::thread_idx_x()); // @misaligned
}

#[test]
fn a_misaligned_handle_is_reported() {
    let mut dev = device();
    let buf = dev.alloc::<u32>(8).unwrap();
    // SAFETY: deliberately 2 bytes into a live allocation, to provoke the check.
    let bad = unsafe { GlobalSlice::<u32>::from_raw_parts(buf.slice().addr() + 2, 4) };
    let e = dev
        .launch(&read_at::KERNEL, LaunchConfig::linear(1, 4), (bad,))
        .unwrap_err();
    assert_eq!(
        e,
        LaunchError::MemoryFault {
            kind: "misaligned",
            access: "__global__ read of size 4".into(),
            thread: at(0, 0),
            site: SRC.site("misaligned", "load"),
            index: 0,
            len: 4,
            address: buf.slice().addr() + 2,
        }
    );
}

/// A static shared array of 16, written by a block of 20 threads.
#[kernel]
fn shared_overflow() {
    let s = shared_array![u32; 16];
    let t = thread::thread_idx_x();
    s.store(t, t); // @shared-oob
}

/// Launch-sized shared memory read one past its end by the last thread.
#[kernel]
fn dynamic_overflow(out: GlobalSlice<u32>) {
    let s = dynamic_shared![u32];
    let t = thread::thread_idx_x();
    s.store(t, t);
    thread::sync_threads();
    out.store(t, s.load(t + 1)); // @dyn-oob
}

#[test]
fn out_of_bounds_shared_accesses() {
    let mut dev = device();
    let e = dev
        .launch(&shared_overflow::KERNEL, LaunchConfig::linear(1, 20), ())
        .unwrap_err();
    let site = SRC.site("shared-oob", "store");
    assert_eq!(
        e,
        LaunchError::MemoryFault {
            kind: "out of bounds",
            access: "__shared__ write of size 4".into(),
            thread: at(0, 16),
            site: site.clone(),
            index: 16,
            len: 16,
            address: 64,
        }
    );
    assert!(e.to_string().starts_with(&format!(
        "memcheck: Invalid __shared__ write of size 4 at {site} by thread (16,0,0) in block (0,0,0): index 16 \
         is out of bounds (the buffer has 16 elements"
    )));

    let out = dev.alloc::<u32>(16).unwrap();
    let e = dev
        .launch(
            &dynamic_overflow::KERNEL,
            LaunchConfig::linear(1, 16).with_shared(16 * 4),
            (out.slice(),),
        )
        .unwrap_err();
    assert_eq!(
        e,
        LaunchError::MemoryFault {
            kind: "out of bounds",
            access: "__shared__ read of size 4".into(),
            thread: at(0, 15),
            site: SRC.site("dyn-oob", "load"),
            index: 16,
            len: 16,
            address: 64,
        }
    );
}

/// Even threads initialise their shared element; every thread reads its own.
#[kernel]
fn half_initialised(out: GlobalSlice<u32>, bytes: GlobalSlice<u8>) {
    let s = shared_array![u32; 64];
    let b = shared_array![u8; 64];
    let t = thread::thread_idx_x();
    if t % 2 == 0 {
        s.store(t, t);
    }
    thread::sync_threads();
    let v = s.load(t); // @uninit
    out.store(thread::index_1d(), v);
    bytes.store(thread::index_1d(), b.load(t)); // @uninit-byte
}

#[test]
fn shared_memory_is_poison_and_uninitialised_reads_are_reported() {
    let mut dev = device();
    let out = dev.alloc::<u32>(128).unwrap();
    let bytes = dev.alloc::<u8>(128).unwrap();
    let r = dev
        .launch(
            &half_initialised::KERNEL,
            LaunchConfig::linear(2, 64),
            (out.slice(), bytes.slice()),
        )
        .unwrap();
    // Every block starts from poison again: block 1 does not see block 0's values.
    let got = dev.download(&out).unwrap();
    for i in 0..128u32 {
        let t = i % 64;
        let want = if t % 2 == 0 { t } else { 0xCDCD_CDCD };
        assert_eq!(got[i as usize], want, "element {i}");
    }
    assert_eq!(dev.download(&bytes).unwrap(), vec![0xCD; 128]);
    let site = SRC.site("uninit", "load");
    let f = &emu(&r).findings;
    assert_eq!(
        f,
        &vec![
            Finding::UninitializedShared {
                site: site.clone(),
                thread: at(0, 1),
                offset: 4,
                count: 64,
            },
            Finding::UninitializedShared {
                site: SRC.site("uninit-byte", "load"),
                thread: at(0, 0),
                offset: 256,
                count: 128,
            },
        ]
    );
    assert_eq!(
        f[0].to_string(),
        format!(
            "initcheck: Uninitialized __shared__ memory read at {site} by thread (1,0,0) in block (0,0,0): byte \
             offset 4 was never written by this block (64 lane(s)); shared memory is not zero-filled"
        )
    );
    assert!(!emu(&r).has_race(), "initcheck findings are not races");
}

/// The classic missing initialisation: shared bins incremented without being zeroed.
#[kernel]
fn unzeroed_bins(out: GlobalSlice<u32>) {
    let bins = shared_array![u32; 4];
    let t = thread::thread_idx_x();
    bins.atomic_add(t % 4, 1); // @unzeroed
    thread::sync_threads();
    if t < 4 {
        out.store(t, bins.load(t));
    }
}

#[test]
fn atomics_on_uninitialised_shared_memory_are_reported() {
    let mut dev = device();
    let out = dev.alloc::<u32>(4).unwrap();
    let r = dev
        .launch(
            &unzeroed_bins::KERNEL,
            LaunchConfig::linear(1, 32),
            (out.slice(),),
        )
        .unwrap();
    assert_eq!(dev.download(&out).unwrap(), vec![0xCDCD_CDCD + 8; 4]);
    // Only the first lane on each bin read poison; the bins' loads came after writes.
    assert_eq!(
        emu(&r).findings,
        vec![Finding::UninitializedShared {
            site: SRC.site("unzeroed", "atomic_add"),
            thread: at(0, 0),
            offset: 0,
            count: 4,
        }]
    );
}

/// Launch-sized shared memory, read before anything was written to it.
#[kernel]
fn dynamic_poison(out: GlobalSlice<u32>) {
    let s = dynamic_shared![u32];
    out.store(0, s.load(0)); // @dyn-poison
    out.store(1, s.len());
}

#[test]
fn dynamic_shared_memory_is_poison_too() {
    let mut dev = device();
    let out = dev.alloc::<u32>(2).unwrap();
    let r = dev
        .launch(
            &dynamic_poison::KERNEL,
            LaunchConfig::linear(1, 1).with_shared(16),
            (out.slice(),),
        )
        .unwrap();
    assert_eq!(dev.download(&out).unwrap(), vec![0xCDCD_CDCD, 4]);
    assert_eq!(
        emu(&r).findings,
        vec![Finding::UninitializedShared {
            site: SRC.site("dyn-poison", "load"),
            thread: at(0, 0),
            offset: 0,
            count: 1,
        }]
    );
}
