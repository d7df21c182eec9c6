//! Warp intrinsics against hand-computed results: lane id, activemask, ballot, all, any,
//! match_any, the four shuffles with widths, syncwarp; full, partial and per-half masks,
//! divergent lanes, a partial last warp; and the synccheck errors of collectives that
//! cannot complete.

// Kernels read like CUDA C: `i % 2 == 0` rather than `i.is_multiple_of(2)`.
#![allow(clippy::manual_is_multiple_of)]

mod common;

use common::{device, emu};
use gpu::prelude::*;
use gpu::warp::{
    FULL_MASK, activemask, lane_id, sync_warp, warp_match_any, warp_shuffle_down, warp_shuffle_idx,
    warp_shuffle_up, warp_shuffle_xor, warp_vote_all, warp_vote_any, warp_vote_ballot,
};
use gpu_host::{LaunchConfig, LaunchError};
use simt::{Finding, ThreadRef};

const SRC: common::Src = src!("warp.rs");

fn thread(t: u32) -> ThreadRef {
    ThreadRef {
        block: [0, 0, 0],
        thread: [t, 0, 0],
    }
}

/// Eight results per thread, full masks; launched with 48 threads, so warp 1 has lanes
/// 0-15 only.
#[kernel]
fn votes(out: GlobalSlice<u32>) {
    let t = thread::thread_idx_x();
    let l = lane_id();
    let r = [
        l,
        activemask(),
        warp_vote_ballot(FULL_MASK, l % 3 == 0),
        warp_vote_all(FULL_MASK, l < 40) as u32,
        warp_vote_all(FULL_MASK, l != 5) as u32,
        warp_vote_any(FULL_MASK, l == 5) as u32,
        warp_vote_any(FULL_MASK, false) as u32,
        warp_match_any(FULL_MASK, l % 4),
    ];
    for (k, v) in r.iter().enumerate() {
        out.store(t * 8 + k as u32, *v);
    }
}

#[test]
fn votes_and_match_over_full_and_partial_warps() {
    let mut dev = device();
    let out = dev.alloc::<u32>(48 * 8).unwrap();
    let r = dev
        .launch(&votes::KERNEL, LaunchConfig::linear(1, 48), (out.slice(),))
        .unwrap();
    let out = dev.download(&out).unwrap();
    for t in 0..48u32 {
        let l = t % 32;
        // Lanes past the end of the block do not exist: they are neither waited for nor
        // counted.
        let exists = if t < 32 { FULL_MASK } else { 0x0000_ffff };
        let want = [
            l,
            exists,
            0x4924_9249 & exists,
            1,
            0,
            1,
            0,
            (0x1111_1111 << (l % 4)) & exists,
        ];
        assert_eq!(out[t as usize * 8..][..8], want, "thread {t}");
    }
    let e = emu(&r);
    assert!(e.findings.is_empty(), "{:#?}", e.findings);
    // 7 collectives per warp (activemask counts; lane_id is a register), 2 warps.
    assert_eq!(e.counters.warp_collectives, 14);
}

/// The two halves of the warp vote in their own branch with their own masks.
#[kernel]
fn half_votes(out: GlobalSlice<u32>) {
    let l = lane_id();
    let r = if l < 16 {
        [
            activemask(),
            warp_vote_ballot(0x0000_ffff, l % 2 == 1),
            warp_vote_all(0x0000_ffff, l < 16) as u32,
            warp_vote_any(0x0000_ffff, l == 3) as u32,
            warp_match_any(0x0000_ffff, l / 4),
        ]
    } else {
        [
            activemask(),
            warp_vote_ballot(0xffff_0000, true),
            warp_vote_all(0xffff_0000, l < 20) as u32,
            warp_vote_any(0xffff_0000, l == 3) as u32,
            warp_match_any(0xffff_0000, 9),
        ]
    };
    for (k, v) in r.iter().enumerate() {
        out.store(l * 5 + k as u32, *v);
    }
}

#[test]
fn votes_in_divergent_branches_with_partial_masks() {
    let mut dev = device();
    let out = dev.alloc::<u32>(160).unwrap();
    let r = dev
        .launch(
            &half_votes::KERNEL,
            LaunchConfig::linear(1, 32),
            (out.slice(),),
        )
        .unwrap();
    let out = dev.download(&out).unwrap();
    for l in 0..32u32 {
        let want = if l < 16 {
            [0x0000_ffff, 0x0000_aaaa, 1, 1, 0xf << (4 * (l / 4))]
        } else {
            [0xffff_0000, 0xffff_0000, 0, 0, 0xffff_0000]
        };
        assert_eq!(out[l as usize * 5..][..5], want, "lane {l}");
    }
    assert!(emu(&r).findings.is_empty());
    // Each half's 5 intrinsics run as steps of their own.
    assert_eq!(r.counters().unwrap().divergent_steps, 10);
}

/// activemask after some lanes returned.
#[kernel]
fn after_exit(out: GlobalSlice<u32>) {
    let l = lane_id();
    if l >= 20 {
        return;
    }
    let m = activemask();
    out.store(l, m);
    out.store(32 + l, warp_vote_ballot(m, l % 2 == 0));
}

#[test]
fn activemask_after_lanes_exited() {
    let mut dev = device();
    let out = dev.alloc::<u32>(64).unwrap();
    dev.launch(
        &after_exit::KERNEL,
        LaunchConfig::linear(1, 32),
        (out.slice(),),
    )
    .unwrap();
    let out = dev.download(&out).unwrap();
    assert_eq!(out[..20], [0x000f_ffff; 20]);
    assert_eq!(out[32..52], [0x0005_5555; 20]);
    assert_eq!(out[20..32], [0; 12]);
}

#[kernel]
fn shuffles(out: GlobalSlice<u32>) {
    let l = lane_id();
    let v = 100 + l;
    let r = [
        warp_shuffle_idx(FULL_MASK, v, 5, 32),
        warp_shuffle_idx(FULL_MASK, v, 11, 8),
        warp_shuffle_up(FULL_MASK, v, 3, 32),
        warp_shuffle_up(FULL_MASK, v, 3, 16),
        warp_shuffle_down(FULL_MASK, v, 4, 32),
        warp_shuffle_down(FULL_MASK, v, 4, 8),
        warp_shuffle_xor(FULL_MASK, v, 1, 32),
        warp_shuffle_xor(FULL_MASK, v, 16, 16),
        warp_shuffle_down(FULL_MASK, v, 40, 32),
    ];
    for (k, x) in r.iter().enumerate() {
        out.store(l * 9 + k as u32, *x);
    }
}

#[test]
fn shuffles_with_widths() {
    let mut dev = device();
    let out = dev.alloc::<u32>(32 * 9).unwrap();
    let r = dev
        .launch(
            &shuffles::KERNEL,
            LaunchConfig::linear(1, 32),
            (out.slice(),),
        )
        .unwrap();
    let out = dev.download(&out).unwrap();
    for l in 0..32u32 {
        let want = [
            105,
            // Source lane 11 of an 8-lane segment is its lane 3.
            100 + (l & !7) + 3,
            if l >= 3 { 97 + l } else { 100 + l },
            if l % 16 >= 3 { 97 + l } else { 100 + l },
            if l + 4 < 32 { 104 + l } else { 100 + l },
            if l % 8 + 4 < 8 { 104 + l } else { 100 + l },
            100 + (l ^ 1),
            // A later segment is out of reach (own value); an earlier one is not.
            if l < 16 { 100 + l } else { 84 + l },
            // A delta past the width keeps the lane's own value.
            100 + l,
        ];
        assert_eq!(out[l as usize * 9..][..9], want, "lane {l}");
    }
    assert!(emu(&r).findings.is_empty());
}

#[kernel]
fn wide_shuffles(a: GlobalSlice<u64>, b: GlobalSlice<f32>, c: GlobalSlice<i32>) {
    let l = lane_id();
    a.store(
        l,
        warp_shuffle_idx(FULL_MASK, ((l as u64) << 40) | 7, 31, 32),
    );
    b.store(l, warp_shuffle_down(FULL_MASK, l as f32 * 0.5, 1, 32));
    c.store(l, warp_shuffle_xor(FULL_MASK, -(l as i32), 2, 32));
}

#[test]
fn shuffles_move_u64_f32_and_i32() {
    let mut dev = device();
    let a = dev.alloc::<u64>(32).unwrap();
    let b = dev.alloc::<f32>(32).unwrap();
    let c = dev.alloc::<i32>(32).unwrap();
    dev.launch(
        &wide_shuffles::KERNEL,
        LaunchConfig::linear(1, 32),
        (a.slice(), b.slice(), c.slice()),
    )
    .unwrap();
    assert_eq!(dev.download(&a).unwrap(), vec![(31 << 40) | 7; 32]);
    let b = dev.download(&b).unwrap();
    let c = dev.download(&c).unwrap();
    for l in 0..32usize {
        assert_eq!(b[l], (l + 1).min(31) as f32 * 0.5, "lane {l}");
        assert_eq!(c[l], -((l ^ 2) as i32), "lane {l}");
    }
}

/// Tree reduction with `shfl_down` and all-reduce with `shfl_xor`.
#[kernel]
fn reductions(out: GlobalSlice<u32>) {
    let l = lane_id();
    let (mut down, mut xor) = (l, l);
    let mut offset = 16;
    while offset > 0 {
        down += warp_shuffle_down(FULL_MASK, down, offset, 32);
        xor += warp_shuffle_xor(FULL_MASK, xor, offset, 32);
        offset /= 2;
    }
    out.store(l, down);
    out.store(32 + l, xor);
}

#[test]
fn shuffle_reductions() {
    let mut dev = device();
    let out = dev.alloc::<u32>(64).unwrap();
    let r = dev
        .launch(
            &reductions::KERNEL,
            LaunchConfig::linear(1, 32),
            (out.slice(),),
        )
        .unwrap();
    let out = dev.download(&out).unwrap();
    assert_eq!(out[0], 496);
    assert_eq!(out[32..], [496; 32]);
    assert_eq!(r.counters().unwrap().warp_collectives, 10);
}

/// Both half-warps reach one shuffle, each with a mask of its own half.
#[kernel]
fn halves(out: GlobalSlice<u32>) {
    let l = lane_id();
    let m = if l < 16 { 0x0000_ffff } else { 0xffff_0000 };
    let v = warp_shuffle_down(m, 100 + l, 1, 16); // @halves
    out.store(l, v);
}

#[test]
fn half_warps_with_their_own_masks_share_one_instruction() {
    let mut dev = device();
    let out = dev.alloc::<u32>(32).unwrap();
    let r = dev
        .launch(&halves::KERNEL, LaunchConfig::linear(1, 32), (out.slice(),))
        .unwrap();
    let out = dev.download(&out).unwrap();
    for l in 0..32u32 {
        assert_eq!(
            out[l as usize],
            if l % 16 < 15 { 101 + l } else { 100 + l },
            "lane {l}"
        );
    }
    let e = emu(&r);
    assert!(e.findings.is_empty(), "{:#?}", e.findings);
    let line = e.line(SRC.file, SRC.line("halves")).unwrap();
    assert_eq!(
        (line.warp_instructions, line.lane_ops, line.divergent_steps),
        (1, 32, 0)
    );
}

/// Divergent shuffles with partial masks, and one that reads outside its mask.
#[kernel]
fn partial_shuffles(out: GlobalSlice<u32>) {
    let l = lane_id();
    if l < 16 {
        out.store(l, warp_shuffle_xor(0x0000_ffff, 100 + l, 8, 16));
    } else {
        let first = warp_shuffle_idx(0xffff_0000, 100 + l, 0, 16);
        let up = warp_shuffle_up(0xffff_0000, 100 + l, 2, 16);
        out.store(l, first * 1000 + up);
    }
    if l < 8 {
        out.store(32 + l, warp_shuffle_down(0x0000_00ff, 100 + l, 4, 32)); // @outside
    }
}

#[test]
fn shuffles_in_divergent_code_and_from_outside_the_mask() {
    let mut dev = device();
    let out = dev.alloc::<u32>(40).unwrap();
    let r = dev
        .launch(
            &partial_shuffles::KERNEL,
            LaunchConfig::linear(1, 32),
            (out.slice(),),
        )
        .unwrap();
    let out = dev.download(&out).unwrap();
    for l in 0..32u32 {
        let want = if l < 16 {
            100 + (l ^ 8)
        } else {
            116 * 1000 + if l >= 18 { 98 + l } else { 100 + l }
        };
        assert_eq!(out[l as usize], want, "lane {l}");
    }
    // Lanes 0-3 read lanes 4-7; lanes 4-7 would read 8-11, outside the mask: undefined
    // on a GPU, their own value here, and reported once for the site.
    assert_eq!(out[32..], [104, 105, 106, 107, 104, 105, 106, 107]);
    assert_eq!(
        emu(&r).findings,
        vec![Finding::ShuffleFromInactiveLane {
            site: SRC.site("outside", "warp_shuffle_down"),
            thread: thread(4),
            source_lane: 8,
        }]
    );
}

/// A reduction in a block of 48 threads: warp 1's lanes 0-15 read lanes 16-31, which do
/// not exist.
#[kernel]
fn partial_warp_reduction(out: GlobalSlice<u32>) {
    let t = thread::thread_idx_x();
    let v = warp_shuffle_down(FULL_MASK, t, 16, 32); // @missing
    out.store(t, v);
}

#[test]
fn a_shuffle_past_the_end_of_a_partial_warp_is_reported() {
    let mut dev = device();
    let out = dev.alloc::<u32>(48).unwrap();
    let r = dev
        .launch(
            &partial_warp_reduction::KERNEL,
            LaunchConfig::linear(1, 48),
            (out.slice(),),
        )
        .unwrap();
    let out = dev.download(&out).unwrap();
    let want: Vec<u32> = (0..48).map(|t| if t < 16 { t + 16 } else { t }).collect();
    assert_eq!(out, want);
    assert_eq!(
        emu(&r).findings,
        vec![Finding::ShuffleFromInactiveLane {
            site: SRC.site("missing", "warp_shuffle_down"),
            thread: thread(32),
            source_lane: 16,
        }]
    );
}

/// Lanes exchange through shared memory across a `__syncwarp`.
#[kernel]
fn syncwarp_exchange(out: GlobalSlice<u32>) {
    let s = shared_array![u32; 32];
    let l = lane_id();
    s.store(l, l * l);
    sync_warp(FULL_MASK); // @syncwarp
    out.store(l, s.load(31 - l));
    if l < 16 {
        sync_warp(0x0000_ffff);
    }
}

#[test]
fn syncwarp_full_and_partial() {
    let mut dev = device();
    let out = dev.alloc::<u32>(32).unwrap();
    let r = dev
        .launch(
            &syncwarp_exchange::KERNEL,
            LaunchConfig::linear(1, 32),
            (out.slice(),),
        )
        .unwrap();
    let want: Vec<u32> = (0..32).map(|l| (31 - l) * (31 - l)).collect();
    assert_eq!(dev.download(&out).unwrap(), want);
    let e = emu(&r);
    assert!(e.findings.is_empty());
    assert_eq!(e.counters.warp_collectives, 2);
    let line = e.line(SRC.file, SRC.line("syncwarp")).unwrap();
    assert_eq!((line.warp_collectives, line.lane_ops), (1, 32));
}

/// Half the warp reaches a full-mask shuffle; the other half goes on to the barrier.
#[kernel]
fn collective_vs_barrier(out: GlobalSlice<u32>) {
    let l = lane_id();
    if l < 16 {
        out.store(l, warp_shuffle_idx(FULL_MASK, l, 0, 32)); // @half-shfl
    }
    thread::sync_threads(); // @half-bar
}

#[test]
fn a_collective_reached_by_part_of_its_mask_is_a_synccheck_error() {
    let mut dev = device();
    let out = dev.alloc::<u32>(32).unwrap();
    let e = dev
        .launch(
            &collective_vs_barrier::KERNEL,
            LaunchConfig::linear(1, 32),
            (out.slice(),),
        )
        .unwrap_err();
    assert_eq!(
        e,
        LaunchError::WarpDivergence {
            what: "__shfl_sync".into(),
            site: SRC.site("half-shfl", "warp_shuffle_idx"),
            thread: thread(0),
            mask: FULL_MASK,
            message: format!(
                "not every lane of the mask can reach it (lanes 16-31 wait in __syncthreads at {}); a warp \
                 collective must be reached by all the lanes its mask names",
                SRC.site("half-bar", "thread::sync_threads")
            ),
        }
    );
    assert!(e.to_string().starts_with(&format!(
        "synccheck: __shfl_sync at {} (thread (0,0,0) in block (0,0,0), mask 0xffffffff): not every lane",
        SRC.site("half-shfl", "warp_shuffle_idx")
    )));
}

#[kernel]
fn collective_after_exit(out: GlobalSlice<u32>) {
    let l = lane_id();
    if l >= 20 {
        return;
    }
    out.store(l, warp_vote_ballot(FULL_MASK, true)); // @after-exit
}

#[kernel]
fn mask_without_self() {
    if lane_id() == 3 {
        sync_warp(0x1); // @not-self
    }
}

#[kernel]
fn masks_disagree(out: GlobalSlice<u32>) {
    let l = lane_id();
    let m = if l == 0 { 0x3 } else { FULL_MASK };
    out.store(l, warp_vote_ballot(m, true)); // @disagree
}

#[test]
fn collective_mask_errors() {
    let mut dev = device();
    let out = dev.alloc::<u32>(32).unwrap();
    let cfg = LaunchConfig::linear(1, 32);
    let e = dev
        .launch(&collective_after_exit::KERNEL, cfg, (out.slice(),))
        .unwrap_err();
    assert_eq!(
        e,
        LaunchError::WarpDivergence {
            what: "__ballot_sync".into(),
            site: SRC.site("after-exit", "warp_vote_ballot"),
            thread: thread(0),
            mask: FULL_MASK,
            message: "the mask names lanes 20-31 of this warp, which exited and can never arrive"
                .into(),
        }
    );
    let e = dev.launch(&mask_without_self::KERNEL, cfg, ()).unwrap_err();
    assert_eq!(
        e,
        LaunchError::WarpDivergence {
            what: "__syncwarp".into(),
            site: SRC.site("not-self", "sync_warp"),
            thread: thread(3),
            mask: 1,
            message: "lane 3 called it with a mask that does not include itself".into(),
        }
    );
    let e = dev
        .launch(&masks_disagree::KERNEL, cfg, (out.slice(),))
        .unwrap_err();
    assert_eq!(
        e,
        LaunchError::WarpDivergence {
            what: "__ballot_sync".into(),
            site: SRC.site("disagree", "warp_vote_ballot"),
            thread: thread(0),
            mask: 3,
            message: "lane 0 passed mask 0x00000003 but lane 1 passed mask 0xffffffff; every lane a mask \
                      names must pass the same mask"
                .into(),
        }
    );
}
