//! Counters, exact on known patterns, per launch and per kernel source line: warp
//! instructions, global load/store requests and 32-byte sectors, shared accesses and bank
//! conflicts, atomics, divergent steps and barriers. (Atomic counters in detail are in
//! `atomics.rs`.)

mod common;

use common::{device, emu};
use gpu::prelude::*;
use gpu::value::U32x4;
use gpu_host::LaunchConfig;
use simt::Counters;

const SRC: common::Src = src!("counters.rs");

/// One warp reads and writes global memory in known patterns; each on its own line.
#[kernel]
fn global_patterns(
    a: GlobalSlice<u32>,
    b: GlobalSlice<u8>,
    v: GlobalSlice<U32x4>,
    out: GlobalSlice<u32>,
) {
    let l = warp::lane_id();
    let x0 = a.load(l); // @coalesced
    let x1 = a.load(l * 32); // @strided
    let x2 = b.load(l) as u32; // @bytes
    let x3 = a.load(7); // @broadcast
    let x4 = a.load(l + 4); // @offset
    let x5 = v.load(l).0[0]; // @vector
    out.store(l, x0 + x1 + x2 + x3 + x4 + x5); // @store-coalesced
    out.store(32 + 32 * l, 0); // @store-strided
}

fn line(r: &simt::LaunchReport, marker: &str) -> Counters {
    *r.line(SRC.file, SRC.line(marker))
        .unwrap_or_else(|| panic!("no counters on the line marked {marker}"))
}

#[test]
fn global_sectors_per_request() {
    let mut dev = device();
    let a = dev.alloc::<u32>(32 * 32).unwrap();
    let b = dev.alloc::<u8>(32).unwrap();
    let v = dev.alloc::<U32x4>(32).unwrap();
    let out = dev.alloc::<u32>(32 * 33).unwrap();
    let r = dev
        .launch(
            &global_patterns::KERNEL,
            LaunchConfig::linear(1, 32),
            (a.slice(), b.slice(), v.slice(), out.slice()),
        )
        .unwrap();
    let e = emu(&r);
    let load = |m: &str| {
        let c = line(e, m);
        (c.global_load_requests, c.global_load_sectors)
    };
    // Device allocations are 256-byte aligned, as cudaMalloc's.
    assert_eq!(
        load("coalesced"),
        (1, 4),
        "32 consecutive u32: 128 bytes, 4 sectors"
    );
    assert_eq!(
        load("strided"),
        (1, 32),
        "a stride of 32 u32: a sector per lane"
    );
    assert_eq!(load("bytes"), (1, 1), "32 consecutive u8: one sector");
    assert_eq!(load("broadcast"), (1, 1), "every lane on one word");
    assert_eq!(
        load("offset"),
        (1, 5),
        "128 bytes starting 16 bytes into a sector"
    );
    assert_eq!(load("vector"), (1, 16), "32 x 16 bytes");
    let store = |m: &str| {
        let c = line(e, m);
        (c.global_store_requests, c.global_store_sectors)
    };
    assert_eq!(store("store-coalesced"), (1, 4));
    assert_eq!(store("store-strided"), (1, 32));
    let c = &e.counters;
    assert_eq!((c.global_load_requests, c.global_load_sectors), (6, 59));
    assert_eq!((c.global_store_requests, c.global_store_sectors), (2, 36));
    assert_eq!(c.warp_instructions, 8);
    assert_eq!(c.lane_ops, 8 * 32);
    assert_eq!(c.simt_efficiency(), 32.0);
    assert_eq!(c.sectors_per_load_request(), 59.0 / 6.0);
    assert_eq!(c.divergent_steps, 0);
}

/// One warp reads shared memory in known patterns.
#[kernel]
fn shared_patterns(out: GlobalSlice<u32>, wide: GlobalSlice<u64>) {
    let s = shared_array![u32; 1024];
    let d = shared_array![u64; 64];
    let q = shared_array![U32x4; 32];
    let l = warp::lane_id();
    for k in 0..32 {
        s.store(k * 32 + l, l); // @fill
    }
    d.store(l, 1);
    d.store(32 + l, 2);
    q.store(l, U32x4([l; 4]));
    let x0 = s.load(l); // @stride1
    let x1 = s.load(l * 32); // @stride32
    let x2 = s.load(7); // @same-word
    let x3 = s.load(l * 2); // @stride2
    let x4 = s.load(l * 33); // @padded
    let y0 = d.load(l); // @u64-consecutive
    let y1 = d.load(l * 2); // @u64-stride2
    let z = q.load(l).0[1]; // @u32x4
    out.store(l, x0 + x1 + x2 + x3 + x4 + z);
    wide.store(l, y0 + y1);
}

#[test]
fn shared_bank_conflicts() {
    let mut dev = device();
    let out = dev.alloc::<u32>(32).unwrap();
    let wide = dev.alloc::<u64>(32).unwrap();
    let r = dev
        .launch(
            &shared_patterns::KERNEL,
            LaunchConfig::linear(1, 32),
            (out.slice(), wide.slice()),
        )
        .unwrap();
    let e = emu(&r);
    assert!(e.findings.is_empty(), "{:#?}", e.findings);
    let bank = |m: &str| {
        let c = line(e, m);
        (c.shared_load_requests, c.bank_conflicts, c.max_bank_ways)
    };
    assert_eq!(bank("stride1"), (1, 0, 1), "one word per bank");
    assert_eq!(bank("stride32"), (1, 31, 32), "32 words in bank 0: 32-way");
    assert_eq!(bank("same-word"), (1, 0, 1), "one word, broadcast");
    assert_eq!(bank("stride2"), (1, 1, 2), "two words in each even bank");
    assert_eq!(
        bank("padded"),
        (1, 0, 1),
        "a stride of 33 spreads over the banks"
    );
    // 8-byte accesses are served by half-warps, 16-byte ones by quarter-warps: consecutive
    // ones are conflict-free; a stride of two u64 puts 2 words in a bank per half-warp.
    assert_eq!(bank("u64-consecutive"), (1, 0, 1));
    assert_eq!(bank("u64-stride2"), (1, 2, 2));
    assert_eq!(bank("u32x4"), (1, 0, 1));
    let fill = line(e, "fill");
    assert_eq!(
        (
            fill.shared_store_requests,
            fill.bank_conflicts,
            fill.warp_instructions,
            fill.lane_ops
        ),
        (32, 0, 32, 1024)
    );
    let c = &e.counters;
    assert_eq!(c.shared_load_requests, 8);
    assert_eq!(c.shared_store_requests, 35);
    assert_eq!(c.bank_conflicts, 31 + 1 + 2);
    assert_eq!(c.max_bank_ways, 32);
}

/// Divergence, barriers and collectives in a two-warp block.
#[kernel]
fn control(out: GlobalSlice<u32>) {
    let (t, i) = (thread::thread_idx_x(), thread::index_1d());
    let l = warp::lane_id();
    if l < 8 {
        out.store(i, 1); // @diverge
    }
    thread::sync_threads(); // @bar
    let b = warp::warp_vote_ballot(warp::FULL_MASK, l < 8); // @ballot
    if t >= 32 {
        out.atomic_add(i, b); // @warp1-only
    }
}

#[test]
fn divergence_barriers_and_collectives() {
    let mut dev = device();
    let out = dev.alloc::<u32>(128).unwrap();
    let r = dev
        .launch(
            &control::KERNEL,
            LaunchConfig::linear(2, 64),
            (out.slice(),),
        )
        .unwrap();
    let e = emu(&r);
    assert!(e.findings.is_empty(), "{:#?}", e.findings);
    let d = line(e, "diverge");
    // Per block: each warp's 8 lanes store while 24 wait at the barrier.
    assert_eq!(
        (d.warp_instructions, d.lane_ops, d.divergent_steps),
        (4, 32, 4)
    );
    let bar = line(e, "bar");
    assert_eq!(
        (bar.barriers, bar.warp_instructions, bar.lane_ops),
        (2, 4, 128)
    );
    let ballot = line(e, "ballot");
    assert_eq!(
        (
            ballot.warp_collectives,
            ballot.warp_instructions,
            ballot.divergent_steps
        ),
        (4, 4, 0)
    );
    // Warp 0 has exited by then: warp 1's whole live warp takes part, not divergent.
    let w1 = line(e, "warp1-only");
    assert_eq!(
        (
            w1.global_atomic_requests,
            w1.global_atomic_lanes,
            w1.divergent_steps
        ),
        (2, 64, 0)
    );
    let c = &e.counters;
    assert_eq!(c.barriers, 2);
    assert_eq!(c.warp_instructions, 4 + 4 + 4 + 2);
    assert_eq!(c.lane_ops, 32 + 128 + 128 + 64);
    assert_eq!(c.divergent_steps, 4);
    assert_eq!(c.warp_collectives, 4);
    // The per-line counters add up to the launch's.
    let mut sum = Counters::default();
    for l in &e.lines {
        assert!(l.file.ends_with("tests/counters.rs"));
        sum.add(&l.counters);
    }
    assert_eq!(sum, e.counters);
    // Lines are sorted and distinct.
    assert!(
        e.lines
            .windows(2)
            .all(|w| (&w[0].file, w[0].line) < (&w[1].file, w[1].line))
    );
    let got = dev.download(&out).unwrap();
    for (i, &v) in got.iter().enumerate() {
        let t = i % 64;
        let want = (t % 32 < 8) as u32 + if t >= 32 { 0xff } else { 0 };
        assert_eq!(v, want, "thread {i}");
    }
}
