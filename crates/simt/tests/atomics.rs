//! Every atomic of the device API against hand-computed results: the lanes of one warp
//! instruction apply in lane order, so each lane's old value is known exactly. With
//! partial masks, divergent lanes, shared memory, and CAS retry loops that terminate.

// Kernels read like CUDA C: `i % 2 == 0` rather than `i.is_multiple_of(2)`.
#![allow(clippy::manual_is_multiple_of)]

mod common;

use common::{device, emu};
use gpu::prelude::*;
use gpu_host::LaunchConfig;

const SRC: common::Src = src!("atomics.rs");

/// Sum of `0..n`.
fn tri(n: u64) -> u64 {
    n * n.saturating_sub(1) / 2
}

/// XOR of `0..n`.
fn xor_below(n: u32) -> u32 {
    (0..n).fold(0, |a, b| a ^ b)
}

/// One warp; operation `k` on element `k`; lane `l`'s old value to `old[32 k + l]`.
#[kernel]
fn all_u32(a: GlobalSlice<u32>, old: GlobalSlice<u32>) {
    let l = thread::thread_idx_x();
    let r = [
        a.atomic_add(0, l + 1),
        a.atomic_sub(1, l + 1),
        a.atomic_min(2, 100 - l),
        a.atomic_max(3, l * 3),
        a.atomic_exch(4, l + 200),
        a.atomic_cas(5, 1000 + l, 1001 + l),
        a.atomic_cas(6, 0, l + 1),
        a.atomic_and(7, !(1 << l)),
        a.atomic_or(8, 1 << l),
        a.atomic_xor(9, l),
        a.atomic_inc(10, 9),
        a.atomic_dec(11, 5),
        a.atomic_dec(12, 5),
    ];
    for (k, v) in r.iter().enumerate() {
        old.store(k as u32 * 32 + l, *v);
    }
}

#[test]
fn u32_atomics_apply_in_lane_order() {
    let mut dev = device();
    let init = [0, 1000, 90, 50, 7, 1000, 0, u32::MAX, 0, 0, 0, 3, 100];
    let a = dev.upload(&init).unwrap();
    let old = dev.alloc::<u32>(13 * 32).unwrap();
    let r = dev
        .launch(
            &all_u32::KERNEL,
            LaunchConfig::linear(1, 32),
            (a.slice(), old.slice()),
        )
        .unwrap();
    let old = dev.download(&old).unwrap();
    let o = |k: usize, l: u32| old[k * 32 + l as usize];
    for l in 0..32u32 {
        let l64 = l as u64;
        assert_eq!(o(0, l) as u64, tri(l64 + 1), "add, lane {l}");
        assert_eq!(o(1, l) as u64, 1000 - tri(l64 + 1), "sub, lane {l}");
        assert_eq!(o(2, l), 90.min(101 - l), "min, lane {l}");
        assert_eq!(
            o(3, l),
            if l == 0 { 50 } else { 50.max(3 * (l - 1)) },
            "max, lane {l}"
        );
        assert_eq!(o(4, l), if l == 0 { 7 } else { 199 + l }, "exch, lane {l}");
        assert_eq!(o(5, l), 1000 + l, "cas chain, lane {l}");
        assert_eq!(o(6, l), if l == 0 { 0 } else { 1 }, "cas, lane {l}");
        assert_eq!(o(7, l), u32::MAX << l, "and, lane {l}");
        assert_eq!(o(8, l) as u64, (1u64 << l) - 1, "or, lane {l}");
        assert_eq!(o(9, l), xor_below(l), "xor, lane {l}");
        assert_eq!(o(10, l), l % 10, "inc wraps after 9, lane {l}");
        assert_eq!(o(11, l), (39 - l) % 6, "dec wraps below 0 to 5, lane {l}");
        let dec_high = if l == 0 { 100 } else { (42 - l) % 6 };
        assert_eq!(o(12, l), dec_high, "dec above the limit, lane {l}");
    }
    assert_eq!(
        dev.download(&a).unwrap(),
        vec![528, 472, 69, 93, 231, 1032, 1, 0, u32::MAX, 0, 2, 1, 4]
    );
    let c = r.counters().unwrap();
    assert_eq!(c.cas_failures, 31, "31 lanes found 1 where they expected 0");
    assert_eq!(c.global_atomic_requests, 13);
    // Every lane's atomic is a request's lane; those that left the word as it was (the 31
    // failed CASes, mins and maxes that kept the old value, ...) are no-ops.
    assert_eq!(c.global_atomic_lanes + c.global_atomic_noop_lanes, 13 * 32);
    assert_eq!(c.global_atomic_noop_lanes, 60);
    assert_eq!(c.global_atomic_addresses, 13);
    assert_eq!(c.global_atomic_serialized, 13 * 31);
    assert_eq!(c.global_atomic_max_depth, 32);
    assert_eq!(c.shared_atomic_requests, 0);
}

#[kernel]
fn all_i32(a: GlobalSlice<i32>, old: GlobalSlice<i32>) {
    let l = thread::thread_idx_x();
    let s = l as i32;
    let r = [
        a.atomic_add(0, -s),
        a.atomic_sub(1, s - 10),
        a.atomic_min(2, -s),
        a.atomic_max(3, s - 16),
        a.atomic_exch(4, -s - 1),
        a.atomic_cas(5, -1 - s, -2 - s),
        a.atomic_and(6, !(1 << l)),
        a.atomic_or(7, 1 << l),
        a.atomic_xor(8, -s),
    ];
    for (k, v) in r.iter().enumerate() {
        old.store(k as u32 * 32 + l, *v);
    }
}

#[test]
fn i32_atomics_compare_signed() {
    let mut dev = device();
    let a = dev.upload(&[0i32, 0, 5, -100, 0, -1, -1, 0, 0]).unwrap();
    let old = dev.alloc::<i32>(9 * 32).unwrap();
    dev.launch(
        &all_i32::KERNEL,
        LaunchConfig::linear(1, 32),
        (a.slice(), old.slice()),
    )
    .unwrap();
    let old = dev.download(&old).unwrap();
    let o = |k: usize, l: i32| old[k * 32 + l as usize];
    for l in 0..32i32 {
        assert_eq!(o(0, l), -(l * (l - 1) / 2), "add, lane {l}");
        assert_eq!(o(1, l), 10 * l - l * (l - 1) / 2, "sub, lane {l}");
        assert_eq!(o(2, l), if l == 0 { 5 } else { 1 - l }, "min, lane {l}");
        assert_eq!(o(3, l), if l == 0 { -100 } else { l - 17 }, "max, lane {l}");
        assert_eq!(o(4, l), -l, "exch, lane {l}");
        assert_eq!(o(5, l), -1 - l, "cas chain, lane {l}");
        assert_eq!(o(6, l), -1i32 << l, "and, lane {l}");
        assert_eq!(o(7, l), ((1u64 << l) - 1) as u32 as i32, "or, lane {l}");
        assert_eq!(o(8, l), (0..l).fold(0, |x, j| x ^ -j), "xor, lane {l}");
    }
    let xor_all = (0..32).fold(0, |x, j: i32| x ^ -j);
    assert_eq!(
        dev.download(&a).unwrap(),
        vec![-496, -176, -31, 15, -32, -33, 0, -1, xor_all]
    );
}

#[kernel]
fn all_u64(a: GlobalSlice<u64>, old: GlobalSlice<u64>) {
    let l = thread::thread_idx_x();
    let w = l as u64;
    let r = [
        a.atomic_add(0, w << 33),
        a.atomic_sub(1, 1 << 40),
        a.atomic_min(2, u64::MAX - w),
        a.atomic_max(3, w << 40),
        a.atomic_exch(4, (w << 36) | w),
        a.atomic_cas(5, w << 32, (w + 1) << 32),
        a.atomic_and(6, !(1 << (w + 32))),
        a.atomic_or(7, 1 << (w + 32)),
        a.atomic_xor(8, w << 32),
    ];
    for (k, v) in r.iter().enumerate() {
        old.store(k as u32 * 32 + l, *v);
    }
}

#[test]
fn u64_atomics_use_all_64_bits() {
    let mut dev = device();
    let a = dev
        .upload(&[0u64, 1 << 50, u64::MAX, 5, 9, 0, u64::MAX, 0, 0])
        .unwrap();
    let old = dev.alloc::<u64>(9 * 32).unwrap();
    dev.launch(
        &all_u64::KERNEL,
        LaunchConfig::linear(1, 32),
        (a.slice(), old.slice()),
    )
    .unwrap();
    let old = dev.download(&old).unwrap();
    let o = |k: usize, l: u64| old[k * 32 + l as usize];
    for l in 0..32u64 {
        assert_eq!(o(0, l), tri(l) << 33, "add, lane {l}");
        assert_eq!(o(1, l), (1 << 50) - (l << 40), "sub, lane {l}");
        assert_eq!(o(2, l), u64::MAX - l.saturating_sub(1), "min, lane {l}");
        assert_eq!(
            o(3, l),
            if l <= 1 { 5 } else { (l - 1) << 40 },
            "max, lane {l}"
        );
        let exch = if l == 0 { 9 } else { ((l - 1) << 36) | (l - 1) };
        assert_eq!(o(4, l), exch, "exch, lane {l}");
        assert_eq!(o(5, l), l << 32, "cas chain, lane {l}");
        assert_eq!(o(6, l), !(((1u64 << l) - 1) << 32), "and, lane {l}");
        assert_eq!(o(7, l), ((1 << l) - 1) << 32, "or, lane {l}");
        assert_eq!(
            o(8, l),
            ((0..l).fold(0, |x, j| x ^ j)) << 32,
            "xor, lane {l}"
        );
    }
    assert_eq!(
        dev.download(&a).unwrap(),
        vec![
            496 << 33,
            (1 << 50) - (32 << 40),
            u64::MAX - 31,
            31 << 40,
            (31 << 36) | 31,
            32 << 32,
            0xffff_ffff,
            0xffff_ffff_0000_0000,
            0,
        ]
    );
}

#[kernel]
fn f32_add(a: GlobalSlice<f32>, old: GlobalSlice<f32>) {
    let l = thread::thread_idx_x();
    old.store(l, a.atomic_add(0, 0.5));
    old.store(32 + l, a.atomic_add(1, 1.0));
    old.store(64 + l, a.atomic_add(2, 0.1 * l as f32));
}

#[test]
fn f32_add_rounds_in_lane_order() {
    let mut dev = device();
    let a = dev.upload(&[0.0f32, 16_777_216.0, 0.0]).unwrap();
    let old = dev.alloc::<f32>(96).unwrap();
    dev.launch(
        &f32_add::KERNEL,
        LaunchConfig::linear(1, 32),
        (a.slice(), old.slice()),
    )
    .unwrap();
    let old = dev.download(&old).unwrap();
    let mut seq = 0.0f32;
    for l in 0..32 {
        assert_eq!(old[l], 0.5 * l as f32, "exact halves, lane {l}");
        // 2^24 + 1 is not an f32: every add rounds back to 2^24 (ties to even).
        assert_eq!(old[32 + l], 16_777_216.0, "lane {l}");
        assert_eq!(old[64 + l].to_bits(), seq.to_bits(), "lane {l}");
        seq += 0.1 * l as f32;
    }
    let a = dev.download(&a).unwrap();
    assert_eq!(a[..2], [16.0, 16_777_216.0]);
    assert_eq!(
        a[2].to_bits(),
        seq.to_bits(),
        "the sum of a sequential loop, bit for bit"
    );
}

/// Divergent lanes: every third lane adds on pairs of addresses, the others take the
/// max on two addresses by parity.
#[kernel]
fn divergent(a: GlobalSlice<u32>, old: GlobalSlice<u32>) {
    let l = warp::lane_id();
    if l % 3 == 0 {
        let o = a.atomic_add(l / 6, 1); // @div-add
        old.store(l, o);
    } else {
        let o = a.atomic_max(8 + l % 2, l); // @div-max
        old.store(l, o);
    }
}

#[test]
fn partial_masks_and_divergent_lanes() {
    let mut dev = device();
    let a = dev.alloc::<u32>(10).unwrap();
    let old = dev.alloc::<u32>(32).unwrap();
    let r = dev
        .launch(
            &divergent::KERNEL,
            LaunchConfig::linear(1, 32),
            (a.slice(), old.slice()),
        )
        .unwrap();
    // Lanes 0, 3, ..., 30 add to l / 6: two lanes on each of 0-4, lane 30 alone on 5.
    // Even non-multiples of 3 take the max on 8 (up to 28), odd ones on 9 (up to 31).
    assert_eq!(
        dev.download(&a).unwrap(),
        vec![2, 2, 2, 2, 2, 1, 0, 0, 28, 31]
    );
    let old = dev.download(&old).unwrap();
    let mut last_max = [0u32; 2];
    for l in 0..32u32 {
        let want = if l % 3 == 0 {
            (l % 6 != 0) as u32
        } else {
            let p = (l % 2) as usize;
            std::mem::replace(&mut last_max[p], l)
        };
        assert_eq!(old[l as usize], want, "lane {l}");
    }
    let e = emu(&r);
    let add = e.line(SRC.file, SRC.line("div-add")).unwrap();
    assert_eq!(
        (
            add.global_atomic_requests,
            add.global_atomic_lanes,
            add.global_atomic_addresses,
            add.global_atomic_serialized,
            add.global_atomic_max_depth,
            add.divergent_steps,
        ),
        (1, 11, 6, 5, 2, 1)
    );
    let max = e.line(SRC.file, SRC.line("div-max")).unwrap();
    assert_eq!(
        (
            max.global_atomic_requests,
            max.global_atomic_lanes,
            max.global_atomic_addresses,
            max.global_atomic_serialized,
            max.global_atomic_max_depth,
            max.divergent_steps,
        ),
        (1, 21, 2, 19, 11, 0),
        "the `else` lanes run last, when the `if` lanes have exited"
    );
    assert_eq!(e.counters.global_atomic_max_depth, 11);
}

/// Per-block bins in shared memory, then one global atomic per bin.
#[kernel]
fn shared_atomics(out: GlobalSlice<u32>, old: GlobalSlice<u32>) {
    let s = shared_array![u32; 8];
    let t = thread::thread_idx_x();
    if t < 8 {
        s.store(t, 0);
    }
    thread::sync_threads();
    let o = s.atomic_add(t % 8, t); // @sh-add
    old.store(t, o);
    if t % 2 == 0 {
        s.atomic_sub(1, 1); // @sh-sub
    }
    thread::sync_threads();
    if t < 8 {
        out.atomic_add(t, s.load(t)); // @commit
    }
}

#[test]
fn shared_atomics_are_counted_apart_from_global_ones() {
    let mut dev = device();
    let out = dev.alloc::<u32>(8).unwrap();
    let old = dev.alloc::<u32>(64).unwrap();
    let r = dev
        .launch(
            &shared_atomics::KERNEL,
            LaunchConfig::linear(1, 64),
            (out.slice(), old.slice()),
        )
        .unwrap();
    // s[k] = sum of t = k + 8j over j < 8 = 8k + 224; then 32 even threads take 1 from s[1].
    assert_eq!(
        dev.download(&out).unwrap(),
        vec![224, 200, 240, 248, 256, 264, 272, 280]
    );
    let old = dev.download(&old).unwrap();
    for t in 0..64u32 {
        let (k, j) = (t % 8, t / 8);
        assert_eq!(
            old[t as usize],
            j * k + 4 * j * j.saturating_sub(1),
            "thread {t}"
        );
    }
    let e = emu(&r);
    assert!(e.findings.is_empty(), "{:#?}", e.findings);
    let add = e.line(SRC.file, SRC.line("sh-add")).unwrap();
    assert_eq!(
        (
            add.shared_atomic_requests,
            add.shared_atomic_lanes,
            add.shared_atomic_addresses,
            add.shared_atomic_serialized,
            add.shared_atomic_max_depth,
        ),
        (2, 63, 16, 48, 4)
    );
    assert_eq!(add.shared_atomic_noop_lanes, 1, "thread 0 adds 0");
    let sub = e.line(SRC.file, SRC.line("sh-sub")).unwrap();
    assert_eq!(
        (
            sub.shared_atomic_requests,
            sub.shared_atomic_lanes,
            sub.shared_atomic_addresses,
            sub.shared_atomic_serialized,
            sub.shared_atomic_max_depth,
        ),
        (2, 32, 2, 30, 16)
    );
    let c = &e.counters;
    assert_eq!(
        (
            c.shared_atomic_requests,
            c.shared_atomic_lanes,
            c.shared_atomic_addresses,
            c.shared_atomic_serialized,
            c.shared_atomic_max_depth
        ),
        (4, 95, 18, 78, 16)
    );
    assert_eq!(c.shared_atomic_noop_lanes, 1);
    assert_eq!(
        (
            c.global_atomic_requests,
            c.global_atomic_lanes,
            c.global_atomic_addresses,
            c.global_atomic_serialized,
            c.global_atomic_max_depth
        ),
        (1, 8, 8, 0, 1)
    );
    assert_eq!(c.atomic_lanes(), 103);
    let commit = e.line(SRC.file, SRC.line("commit")).unwrap();
    assert_eq!(commit.global_atomic_lanes, 8);
    assert_eq!(commit.shared_load_requests, 1);
}

/// CUDA's canonical CAS loop: retry with the value the failed CAS returned.
#[kernel]
fn cas_add(a: GlobalSlice<u32>) {
    let t = thread::thread_idx_x();
    let mut old = a.load(0);
    loop {
        let seen = a.atomic_cas(0, old, old + t + 1); // @cas
        if seen == old {
            break;
        }
        old = seen;
    }
}

#[test]
fn a_cas_retry_loop_terminates_with_a_known_number_of_retries() {
    let mut dev = device();
    let a = dev.alloc::<u32>(1).unwrap();
    let r = dev
        .launch(&cas_add::KERNEL, LaunchConfig::linear(1, 32), (a.slice(),))
        .unwrap();
    assert_eq!(dev.download(&a).unwrap(), vec![528]);
    // Each CAS step, the lowest waiting lane wins and the others fail: 31 + 30 + ... + 0.
    let c = r.counters().unwrap();
    assert_eq!(c.cas_failures, 496);
    let cas = emu(&r).line(SRC.file, SRC.line("cas")).unwrap();
    assert_eq!(
        (cas.global_atomic_requests, cas.global_atomic_lanes),
        (32, 32)
    );
    // The failed attempts changed nothing: no-ops, not lanes; each lane's swap succeeded once.
    assert_eq!(cas.global_atomic_noop_lanes, 496);
    assert_eq!(cas.cas_successes, 32);

    // Two warps: warp 0's CAS goes first in each round and changes the value, so all of
    // warp 1's fail until warp 0 is done (32 rounds x 32), then warp 1 alone: 496 again.
    let a = dev.alloc::<u32>(1).unwrap();
    let r = dev
        .launch(&cas_add::KERNEL, LaunchConfig::linear(1, 64), (a.slice(),))
        .unwrap();
    assert_eq!(dev.download(&a).unwrap(), vec![64 * 65 / 2]);
    assert_eq!(r.counters().unwrap().cas_failures, 496 + 32 * 32 + 496);
}

/// A spin lock around a plain read-modify-write.
#[kernel]
fn locked_add(lock: GlobalSlice<u32>, sum: GlobalSlice<u32>) {
    let t = thread::thread_idx_x();
    while lock.atomic_cas(0, 0, 1) != 0 {} // @acquire
    let v = sum.load(0);
    sum.store(0, v + t);
    lock.atomic_exch(0, 0);
}

#[test]
fn a_lock_inside_one_warp_makes_progress() {
    // Before Volta this deadlocked: the lanes that failed to take the lock kept the warp.
    // In the model, as since Volta, the holder makes progress: it is behind the lanes
    // that failed (they looped once more), so it goes first. Each failed CAS is one lane
    // waiting for one holder: 31 + 30 + ... + 0 = 496.
    let mut dev = device();
    let lock = dev.alloc::<u32>(1).unwrap();
    let sum = dev.alloc::<u32>(1).unwrap();
    let r = dev
        .launch(
            &locked_add::KERNEL,
            LaunchConfig::linear(1, 32),
            (lock.slice(), sum.slice()),
        )
        .unwrap();
    assert_eq!(dev.download(&sum).unwrap(), vec![496]);
    assert_eq!(dev.download(&lock).unwrap(), vec![0]);
    assert_eq!(r.counters().unwrap().cas_failures, 496);
    assert!(emu(&r).findings.is_empty());
}

/// One warp: lane `l` adds 1 to shared word `bin(l)` four ways, each on its own line:
/// lanes 0 and 32 apart in one bank; all on one word; one word per lane in its own bank;
/// and bins `l * 33 % 64` of a 64-counter row, two lanes per bank.
#[kernel]
fn shared_atomic_banks(out: GlobalSlice<u32>) {
    let s = shared_array![u32; 2048];
    let l = thread::thread_idx_x();
    let mut i = l;
    while i < 2048 {
        s.store(i, 0);
        i += 32;
    }
    thread::sync_threads();
    s.atomic_add(32 * l, 1); // @column
    s.atomic_add(7, 1); // @one-word
    s.atomic_add(1024 + l, 1); // @row
    s.atomic_add(l * 33 % 64, 1); // @two-per-bank
    thread::sync_threads();
    out.store(l, s.load(32 * l) + s.load(7));
}

#[test]
fn shared_atomics_count_bank_conflicts_per_distinct_word() {
    let mut dev = device();
    let out = dev.alloc::<u32>(32).unwrap();
    let r = dev
        .launch(
            &shared_atomic_banks::KERNEL,
            LaunchConfig::linear(1, 32),
            (out.slice(),),
        )
        .unwrap();
    let got = dev.download(&out).unwrap();
    // Word 0 is lane 0's column and bin 0 of the last line (lane 0); word 7 got 32.
    assert_eq!(got[0], 2 + 32);
    assert!(got[1..].iter().all(|&v| v == 1 + 32), "{got:?}");
    let e = emu(&r);
    let ways = |tag: &str| {
        let c = e.line(SRC.file, SRC.line(tag)).unwrap();
        (
            c.shared_atomic_bank_conflicts,
            c.shared_atomic_max_bank_ways,
        )
    };
    // 32 words in bank 0: 31 extra passes.
    assert_eq!(ways("column"), (31, 32));
    // One word: the atomic unit's own business (serialized), not a bank conflict.
    assert_eq!(ways("one-word"), (0, 1));
    assert_eq!(ways("row"), (0, 1));
    // l * 33 % 64 for l < 32 is 0, 33, 2, 35, ...: banks l % 32, each bank one word.
    assert_eq!(ways("two-per-bank"), (0, 1));
    let c = &e.counters;
    assert_eq!(c.shared_atomic_bank_conflicts, 31);
    assert_eq!(c.shared_atomic_max_bank_ways, 32);
    // Loads and stores keep their own counter: the conflict-free zeroing and loads.
    assert_eq!(c.bank_conflicts, 31);
}

/// One warp, three ways of adding to one shared word, each on its own line: `+1` from
/// every lane (sm_90's `ATOMS.POPC.INC`, which combines the warp's lanes on the word);
/// `+ (lane + 1)`, a variable operand (`ATOMS.ADD`: each lane a pass of its own); and a
/// site that adds 1 here but `run` elsewhere in the launch, as 9.7's flush does (a
/// variable operand in the code, whatever its value at one step).
#[kernel]
fn shared_same_address(out: GlobalSlice<u32>, run: GlobalSlice<u32>) {
    let s = shared_array![u32; 4];
    let l = thread::thread_idx_x();
    if l < 4 {
        s.store(l, 0);
    }
    thread::sync_threads();
    s.atomic_add(0, 1); // @plus-one
    s.atomic_add(1, l + 1); // @variable
    let mut k = 0;
    while k < 2 {
        s.atomic_add(2, run.load(k)); // @sometimes-one
        k += 1;
    }
    thread::sync_threads();
    if l < 4 {
        out.store(l, s.load(l));
    }
}

/// The model of equal addresses in one shared atomic instruction, pinned by the number
/// Nsight Compute gave on an H100 (driver 580, CUDA 13.0, 2026-11-23) for the course's
/// 9.7 on all-zero bytes: 31 744 shared atomic bank conflicts for 1 024 flush
/// instructions whose 32 lanes add their run lengths to one bin, 31 extra passes each;
/// and 0 for 9.5's `+1` on the same input (`notes/sass-h100-2026-11-23.md` has the SASS).
#[test]
fn equal_shared_addresses_combine_only_for_plus_one() {
    let mut dev = device();
    let out = dev.alloc::<u32>(4).unwrap();
    let run = dev.upload(&[1u32, 2]).unwrap();
    let r = dev
        .launch(
            &shared_same_address::KERNEL,
            LaunchConfig::linear(1, 32),
            (out.slice(), run.slice()),
        )
        .unwrap();
    assert_eq!(
        dev.download(&out).unwrap(),
        vec![32, (1..=32).sum::<u32>(), 32 * 3, 0]
    );
    let e = emu(&r);
    let passes = |tag: &str| {
        let c = e.line(SRC.file, SRC.line(tag)).unwrap();
        (
            c.shared_atomic_bank_conflicts,
            c.shared_atomic_max_bank_ways,
        )
    };
    assert_eq!(
        passes("plus-one"),
        (0, 1),
        "POPC.INC: one update for 32 lanes"
    );
    assert_eq!(
        passes("variable"),
        (31, 32),
        "ATOMS.ADD: 32 lanes, 32 passes"
    );
    // Two instructions at the site, the first adding 1 from every lane: the site's code
    // has a variable operand, so both are served a lane at a time.
    assert_eq!(passes("sometimes-one"), (62, 32));
}

/// One warp's `f32` shared atomic add, pattern by pattern: lane `l` adds `l + 1` to word
/// `idx(pattern, l)` of a zeroed array, each pattern on a line of its own.
#[kernel]
fn shared_f32_patterns(out: GlobalSlice<f32>) {
    let s = shared_array![f32; 1024];
    let l = thread::thread_idx_x();
    let mut k = l;
    while k < 1024 {
        s.store(k, 0.0);
        k += 32;
    }
    thread::sync_threads();
    let v = (l + 1) as f32;
    s.atomic_add(l, v); // @f32-distinct-banks
    s.atomic_add(0, v); // @f32-one-word
    s.atomic_add(if l < 16 { 64 } else { 96 }, v); // @f32-two-words-one-bank
    s.atomic_add(l * 32, v); // @f32-32-words-one-bank
    s.atomic_add(l / 2 + 128, v); // @f32-pairs
    s.atomic_add((l / 4) * 32 + 1, v); // @f32-4-lanes-8-words-one-bank
    thread::sync_threads();
    out.store(l, s.load(l));
}

/// The model of a shared `f32` atomic add (a `LDS` + `ATOMS.CAST.SPIN` loop on sm_90),
/// pinned by what Nsight Compute counted for one warp of `bench/atomics_probe.cu`
/// on an H100 (driver 580.159.04, CUDA 13.0, 2026-11-24; the probe's own read-back `LDS`
/// taken off): rounds (`smsp__inst_executed_op_shared_atom`, and as many loads), the loop's
/// load bank conflicts, and no bank conflicts of the atomic itself. Each round a bank takes
/// its lowest waiting lane: 32 rounds for 16 lanes on each of two words of one bank, not 16.
#[test]
fn shared_f32_atomics_are_a_loop_of_one_lane_per_bank() {
    let mut dev = device();
    let out = dev.alloc::<f32>(32).unwrap();
    let r = dev
        .launch(
            &shared_f32_patterns::KERNEL,
            LaunchConfig::linear(1, 32),
            (out.slice(),),
        )
        .unwrap();
    let got = dev.download(&out).unwrap();
    // Word 0: lane 0's 1 in the first and fourth patterns, every lane's `l + 1` in the second.
    assert_eq!(got[0], 1.0 + (1..=32).sum::<u32>() as f32 + 1.0);
    let e = emu(&r);
    let cost = |tag: &str| {
        let c = e.line(SRC.file, SRC.line(tag)).unwrap();
        (
            c.shared_atomic_requests,
            c.shared_load_requests,
            c.bank_conflicts,
            c.shared_atomic_bank_conflicts,
        )
    };
    // (ATOMS rounds, LDS, LDS bank conflicts, ATOMS bank conflicts), ncu's numbers.
    assert_eq!(cost("f32-distinct-banks"), (1, 1, 0, 0));
    assert_eq!(cost("f32-one-word"), (32, 32, 0, 0));
    assert_eq!(cost("f32-two-words-one-bank"), (32, 32, 16, 0));
    assert_eq!(cost("f32-32-words-one-bank"), (32, 32, 496, 0));
    assert_eq!(cost("f32-pairs"), (2, 2, 0, 0));
    assert_eq!(cost("f32-4-lanes-8-words-one-bank"), (32, 32, 112, 0));
}

/// One warp's integer shared atomics on patterns of the H100 probe, `+1` and a variable
/// operand each: lanes 0-15 on word 0 and 16-31 on word 32 (two words of bank 0), and
/// lanes `4k..4k + 3` on word `32k` (8 words of bank 0, 4 lanes each).
#[kernel]
fn shared_int_patterns(out: GlobalSlice<u32>) {
    let s = shared_array![u32; 1024];
    let l = thread::thread_idx_x();
    let mut k = l;
    while k < 1024 {
        s.store(k, 0);
        k += 32;
    }
    thread::sync_threads();
    let two = if l < 16 { 0 } else { 32 };
    let eight = (l / 4) * 32;
    s.atomic_add(two, 1); // @popc-two-words-one-bank
    s.atomic_add(two, l + 1); // @add-two-words-one-bank
    s.atomic_add(eight, 1); // @popc-8-words-one-bank
    s.atomic_add(eight, l + 1); // @add-8-words-one-bank
    thread::sync_threads();
    out.store(l, s.load(l * 32));
}

/// Integer shared atomics by bank, pinned by Nsight Compute's bank conflicts for the same
/// patterns on an H100 (`notes/atomics-probe-h100-2026-11-24.md`): a `+1`
/// (`ATOMS.POPC.INC`) pays for distinct words in the busiest bank (1 and 7), a variable
/// operand (`ATOMS.ADD`) for lanes in it (31 and 31).
#[test]
fn shared_integer_atomics_conflict_by_words_or_by_lanes() {
    let mut dev = device();
    let out = dev.alloc::<u32>(32).unwrap();
    let r = dev
        .launch(
            &shared_int_patterns::KERNEL,
            LaunchConfig::linear(1, 32),
            (out.slice(),),
        )
        .unwrap();
    let got = dev.download(&out).unwrap();
    // Word 0: 16 lanes twice (+1 and l + 1 for l < 16), 4 lanes twice (+1 and l + 1 for l < 4).
    assert_eq!(
        got[0],
        16 + (1..=16).sum::<u32>() + 4 + (1..=4).sum::<u32>()
    );
    let e = emu(&r);
    let conflicts = |tag: &str| {
        e.line(SRC.file, SRC.line(tag))
            .unwrap()
            .shared_atomic_bank_conflicts
    };
    assert_eq!(conflicts("popc-two-words-one-bank"), 1);
    assert_eq!(conflicts("add-two-words-one-bank"), 31);
    assert_eq!(conflicts("popc-8-words-one-bank"), 7);
    assert_eq!(conflicts("add-8-words-one-bank"), 31);
}

/// The classic mistake of a first histogram kernel: each block zeroes the global bins
/// itself before counting (the book's 9.3, "The host side").
#[kernel]
fn zero_bins_inside(data: GlobalSlice<u32>, histo: GlobalSlice<u32>) {
    let t = thread::thread_idx_x();
    if t < histo.len() {
        histo.store(t, 0);
    }
    let i = thread::index_1d();
    if i < data.len() {
        histo.atomic_add(data.load(i) % histo.len(), 1);
    }
}

/// Zeroing the global bins inside the kernel is a race between blocks: no barrier spans
/// the grid, so a later block's zeroing can wipe an earlier block's counts. The emulator
/// runs the blocks one after another, so block 1 wipes all of block 0's counts, and it
/// reports the race.
#[test]
fn zeroing_global_bins_inside_the_kernel_is_reported_as_a_race() {
    let mut dev = device();
    let data = dev.upload(&(0..64u32).collect::<Vec<_>>()).unwrap();
    let histo = dev.alloc::<u32>(4).unwrap();
    let r = dev
        .launch(
            &zero_bins_inside::KERNEL,
            LaunchConfig::linear(2, 32),
            (data.slice(), histo.slice()),
        )
        .unwrap();
    // 64 values over 4 bins: 16 each, of which block 1's zeroing leaves its own 8.
    assert_eq!(dev.download(&histo).unwrap(), vec![8; 4]);
    let e = emu(&r);
    assert!(
        e.findings.iter().any(|f| f.is_race()),
        "no race reported: {:?}",
        e.findings
    );
}

/// Atomics that cannot change memory: an add of zero, a CAS whose compare fails, a CAS to
/// the same value, an `f32` add of `-0.0`; beside them one real add.
#[kernel]
fn noop_atomics(a: GlobalSlice<u32>, f: GlobalSlice<f32>) {
    a.atomic_add(0, 0);
    a.atomic_cas(1, 12345, 7);
    let old = a.load(2);
    a.atomic_cas(2, old, old);
    f.atomic_add(0, -0.0);
    a.atomic_add(3, 1);
}

#[test]
fn atomics_that_change_nothing_are_counted_as_noops_not_as_lanes() {
    let mut dev = device();
    let a = dev.alloc::<u32>(4).unwrap();
    let f = dev.alloc::<f32>(1).unwrap();
    let r = dev
        .launch(
            &noop_atomics::KERNEL,
            LaunchConfig::linear(1, 32),
            (a.slice(), f.slice()),
        )
        .unwrap();
    assert_eq!(dev.download(&a).unwrap(), vec![0, 0, 0, 32]);
    let c = r.counters().unwrap();
    assert_eq!(
        c.global_atomic_requests, 5,
        "requests still count every atomic"
    );
    assert_eq!(
        c.global_atomic_lanes, 32,
        "only the add of 1 changes memory"
    );
    assert_eq!(c.global_atomic_noop_lanes, 4 * 32);
    assert_eq!(c.cas_failures, 32);
    assert_eq!(c.cas_successes, 0, "a same-value swap changes nothing");
}
