//! Warps: the 32 threads the hardware runs together, and the intrinsics that let them
//! talk without memory.
//!
//! An SM issues one instruction for a whole warp; lanes whose branch went the other way
//! sit idle (*divergence*). The `_sync` intrinsics take a `mask` naming the lanes that
//! take part: each of those lanes must reach the same call, or the result is undefined on
//! a GPU (the emulator reports it, as compute-sanitizer's synccheck would). Use
//! [`FULL_MASK`] when the whole warp is there; in a block whose size is not a multiple of
//! 32, the lanes past the end simply do not exist and are not waited for.
//!
//! Shuffles move 32 or 64 bits (`u32`, `i32`, `f32`, `u64`); pack smaller values.
//! `match_any` needs compute capability 7.0 (Volta); the others 3.0 (`_sync` forms 7.0).
//!
//! # Note for the GPU build
//! rustc does not mark inline assembly as *convergent*, so keep warp collectives on
//! warp-uniform control flow (every lane of the mask takes the same path to the call):
//! use a sentinel value for lanes with no data instead of skipping the call.

/// All 32 lanes: `0xffff_ffff`.
pub const FULL_MASK: u32 = 0xffff_ffff;

/// Lanes in a warp ([`crate::hardware::WARP_SIZE`]).
pub const WARP_SIZE: u32 = crate::hardware::WARP_SIZE;

#[cfg(not(target_arch = "nvptx64"))]
#[track_caller]
fn host(op: crate::emu::WarpOp) -> u128 {
    crate::emu::lane::park(core::panic::Location::caller(), crate::emu::Op::Warp(op))
}

/// The lane's index in its warp, 0..32 (`%laneid`).
#[inline(always)]
#[track_caller]
pub fn lane_id() -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let l: u32;
        // SAFETY: reading a special register has no preconditions.
        unsafe { core::arch::asm!("mov.u32 {l}, %laneid;", l = out(reg32) l) };
        // SAFETY: `%laneid` is below the warp size. Saying so lets the compiler fold
        // `x * 32 + lane_id()` into a bitwise or (one `LOP3` with the address arithmetic).
        unsafe { core::hint::assert_unchecked(l < 32) };
        l
    }
    #[cfg(not(target_arch = "nvptx64"))]
    crate::emu::lane::lane_id()
}

/// `__activemask()`: the lanes executing this instruction together. Not a
/// synchronisation: on a GPU it reports whoever happens to be converged.
#[inline(always)]
#[track_caller]
pub fn activemask() -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let m: u32;
        // SAFETY: no preconditions.
        unsafe { core::arch::asm!("activemask.b32 {m};", m = out(reg32) m) };
        m
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        host(crate::emu::WarpOp::ActiveMask) as u32
    }
}

/// `__ballot_sync(mask, pred)`: bit `l` is set when lane `l` (of `mask`) has `pred` true.
#[inline(always)]
#[track_caller]
pub fn warp_vote_ballot(mask: u32, pred: bool) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let r: u32;
        // SAFETY: every lane of `mask` must execute this; see the module docs.
        unsafe {
            core::arch::asm!(
                "{{ .reg .pred p; setp.ne.u32 p, {v}, 0; vote.sync.ballot.b32 {r}, p, {m}; }}",
                r = out(reg32) r, v = in(reg32) pred as u32, m = in(reg32) mask
            )
        };
        r
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        host(crate::emu::WarpOp::Ballot { mask, pred }) as u32
    }
}

/// `__all_sync(mask, pred)`: true when `pred` holds on every lane of `mask`.
#[inline(always)]
#[track_caller]
pub fn warp_vote_all(mask: u32, pred: bool) -> bool {
    #[cfg(target_arch = "nvptx64")]
    {
        let r: u32;
        // SAFETY: every lane of `mask` must execute this; see the module docs.
        unsafe {
            core::arch::asm!(
                "{{ .reg .pred p, q; setp.ne.u32 p, {v}, 0; vote.sync.all.pred q, p, {m}; selp.u32 {r}, 1, 0, q; }}",
                r = out(reg32) r, v = in(reg32) pred as u32, m = in(reg32) mask
            )
        };
        r != 0
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        host(crate::emu::WarpOp::All { mask, pred }) != 0
    }
}

/// `__any_sync(mask, pred)`: true when `pred` holds on some lane of `mask`.
#[inline(always)]
#[track_caller]
pub fn warp_vote_any(mask: u32, pred: bool) -> bool {
    #[cfg(target_arch = "nvptx64")]
    {
        let r: u32;
        // SAFETY: every lane of `mask` must execute this; see the module docs.
        unsafe {
            core::arch::asm!(
                "{{ .reg .pred p, q; setp.ne.u32 p, {v}, 0; vote.sync.any.pred q, p, {m}; selp.u32 {r}, 1, 0, q; }}",
                r = out(reg32) r, v = in(reg32) pred as u32, m = in(reg32) mask
            )
        };
        r != 0
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        host(crate::emu::WarpOp::Any { mask, pred }) != 0
    }
}

// ANCHOR: warp_match_any
/// `__match_any_sync(mask, value)`: the lanes of `mask` holding the same `value`
/// as this lane (its *peers*). The lowest peer (`peers.trailing_zeros()`) can act
/// for all of them: one atomic of `peers.count_ones()` instead of one per lane
/// (warp aggregation).
#[inline(always)]
#[track_caller]
pub fn warp_match_any(mask: u32, value: u32) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let r: u32;
        // SAFETY: every lane of `mask` must execute this; see the module docs.
        unsafe {
            core::arch::asm!("match.any.sync.b32 {r}, {v}, {m};", r = out(reg32) r, v = in(reg32) value, m = in(reg32) mask)
        };
        r
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        host(crate::emu::WarpOp::MatchAny {
            mask,
            value: value as u64,
        }) as u32
    }
}
// ANCHOR_END: warp_match_any

/// Values a shuffle can move: 32 or 64 bits.
pub trait ShuffleValue: Copy {
    /// The bits, zero-extended.
    #[doc(hidden)]
    fn to_u64(self) -> u64;
    /// The value from its bits.
    #[doc(hidden)]
    fn from_u64(b: u64) -> Self;
}

macro_rules! shuffle_value {
    ($($t:ty => $via:ty),*) => {$(
        impl ShuffleValue for $t {
            fn to_u64(self) -> u64 { self as $via as u64 }
            fn from_u64(b: u64) -> Self { b as $via as $t }
        }
    )*};
}
shuffle_value!(u32 => u32, i32 => u32, u64 => u64, i64 => u64);

impl ShuffleValue for f32 {
    fn to_u64(self) -> u64 {
        self.to_bits() as u64
    }
    fn from_u64(b: u64) -> Self {
        f32::from_bits(b as u32)
    }
}

#[cfg(target_arch = "nvptx64")]
#[inline(always)]
fn shfl32(kind: u32, mask: u32, v: u32, arg: u32, c: u32) -> u32 {
    let r: u32;
    // SAFETY: every lane of `mask` must execute this; see the module docs.
    unsafe {
        match kind {
            0 => {
                core::arch::asm!("shfl.sync.idx.b32 {r}, {v}, {a}, {c}, {m};", r = out(reg32) r, v = in(reg32) v, a = in(reg32) arg, c = in(reg32) c, m = in(reg32) mask)
            }
            1 => {
                core::arch::asm!("shfl.sync.up.b32 {r}, {v}, {a}, {c}, {m};", r = out(reg32) r, v = in(reg32) v, a = in(reg32) arg, c = in(reg32) c, m = in(reg32) mask)
            }
            2 => {
                core::arch::asm!("shfl.sync.down.b32 {r}, {v}, {a}, {c}, {m};", r = out(reg32) r, v = in(reg32) v, a = in(reg32) arg, c = in(reg32) c, m = in(reg32) mask)
            }
            _ => {
                core::arch::asm!("shfl.sync.bfly.b32 {r}, {v}, {a}, {c}, {m};", r = out(reg32) r, v = in(reg32) v, a = in(reg32) arg, c = in(reg32) c, m = in(reg32) mask)
            }
        }
    }
    r
}

#[inline(always)]
#[track_caller]
fn shuffle<T: ShuffleValue>(kind: simt_kind::Kind, mask: u32, value: T, arg: u32, width: u32) -> T {
    #[cfg(target_arch = "nvptx64")]
    {
        // c = ((32 - width) << 8) | clamp, clamp = 0 for `up`, 31 otherwise (PTX ISA).
        let seg = (32 - width) << 8;
        let c = if kind == 1 { seg } else { seg | 0x1f };
        let b = value.to_u64();
        let lo = shfl32(kind, mask, b as u32, arg, c);
        if core::mem::size_of::<T>() == 8 {
            let hi = shfl32(kind, mask, (b >> 32) as u32, arg, c);
            T::from_u64(lo as u64 | (hi as u64) << 32)
        } else {
            T::from_u64(lo as u64)
        }
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        T::from_u64(host(crate::emu::WarpOp::Shuffle {
            mask,
            value: value.to_u64(),
            kind,
            arg,
            width,
        }) as u64)
    }
}

#[cfg(target_arch = "nvptx64")]
mod simt_kind {
    pub type Kind = u32;
    pub const IDX: Kind = 0;
    pub const UP: Kind = 1;
    pub const DOWN: Kind = 2;
    pub const XOR: Kind = 3;
}
#[cfg(not(target_arch = "nvptx64"))]
mod simt_kind {
    pub type Kind = crate::emu::ShuffleKind;
    pub const IDX: Kind = crate::emu::ShuffleKind::Idx;
    pub const UP: Kind = crate::emu::ShuffleKind::Up;
    pub const DOWN: Kind = crate::emu::ShuffleKind::Down;
    pub const XOR: Kind = crate::emu::ShuffleKind::Xor;
}

/// `__shfl_sync(mask, value, src_lane, width)`: `value` of lane `src_lane` of this lane's
/// `width`-lane segment (a broadcast when every lane names the same source).
#[inline(always)]
#[track_caller]
pub fn warp_shuffle_idx<T: ShuffleValue>(mask: u32, value: T, src_lane: u32, width: u32) -> T {
    shuffle(simt_kind::IDX, mask, value, src_lane, width)
}

/// `__shfl_up_sync(mask, value, delta, width)`: `value` of lane `lane - delta`; the first
/// `delta` lanes of each segment keep their own (the step of a scan).
#[inline(always)]
#[track_caller]
pub fn warp_shuffle_up<T: ShuffleValue>(mask: u32, value: T, delta: u32, width: u32) -> T {
    shuffle(simt_kind::UP, mask, value, delta, width)
}

/// `__shfl_down_sync(mask, value, delta, width)`: `value` of lane `lane + delta`; the last
/// `delta` lanes of each segment keep their own (the step of a reduction).
#[inline(always)]
#[track_caller]
pub fn warp_shuffle_down<T: ShuffleValue>(mask: u32, value: T, delta: u32, width: u32) -> T {
    shuffle(simt_kind::DOWN, mask, value, delta, width)
}

/// `__shfl_xor_sync(mask, value, lane_mask, width)`: `value` of lane `lane ^ lane_mask`
/// (the butterfly of an all-reduce).
#[inline(always)]
#[track_caller]
pub fn warp_shuffle_xor<T: ShuffleValue>(mask: u32, value: T, lane_mask: u32, width: u32) -> T {
    shuffle(simt_kind::XOR, mask, value, lane_mask, width)
}

/// `__syncwarp(mask)`: waits until every lane of `mask` reaches this call, and orders
/// their memory accesses. Since Volta the lanes of a warp are scheduled independently, so
/// code that passes data between lanes through shared memory needs it.
#[inline(always)]
#[track_caller]
pub fn sync_warp(mask: u32) {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: every lane of `mask` must execute this; see the module docs.
    unsafe {
        core::arch::asm!("bar.warp.sync {m};", m = in(reg32) mask)
    };
    #[cfg(not(target_arch = "nvptx64"))]
    {
        host(crate::emu::WarpOp::SyncWarp { mask });
    }
}
