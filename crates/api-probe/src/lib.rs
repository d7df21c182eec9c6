//! # API probe: every device function of `gpu`, inside real kernels
//!
//! The chapter kernels use the part of the `gpu` API their exercises need; this crate
//! uses *all* of it, so that
//!
//! - the PTX build (`cargo run -p ptx-builder -- api-probe`, run by `.ci/ptx-check`)
//!   proves every `#[cfg(target_arch = "nvptx64")]` body of `gpu` compiles with rustc's
//!   NVPTX backend, links without unresolved calls and assembles with `ptxas -arch=sm_90`;
//! - the host build runs the same kernels on the emulator (`tests/emulator.rs`) and checks
//!   their outputs, so both bodies of every function are exercised by one source.
//!
//! Generic device functions (loads, stores and atomics for each element type) only reach
//! the PTX when a kernel instantiates them, which is why there is one kernel per
//! (element type, memory space) for the atomics.
//!
//! Each kernel documents its launch shape and output layout; the test computes the
//! expected values on the CPU. Warp collectives are only called on warp-uniform control
//! flow with full warps (blocks of 64 threads): rustc does not mark inline assembly
//! convergent (see `gpu::warp`).
#![cfg_attr(target_arch = "nvptx64", no_std)]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]
#![deny(missing_docs)]

use gpu::prelude::*;
use gpu::thread::Dim3;
use gpu::value::U32x4;
use gpu::warp::FULL_MASK;

/// Slots of the integer atomics probes: one word per operation.
pub mod slot {
    /// `atomic_add(t + 1)` by every thread.
    pub const ADD: u32 = 0;
    /// `atomic_sub(t)` by every thread.
    pub const SUB: u32 = 1;
    /// `atomic_min(mix(t))` by every thread.
    pub const MIN: u32 = 2;
    /// `atomic_max(mix(t + 7))` by every thread.
    pub const MAX: u32 = 3;
    /// `atomic_exch(t + 1)` by every thread; the old values go to `olds[t]`.
    pub const EXCH: u32 = 4;
    /// A compare-and-swap retry loop adding 1, by every thread.
    pub const CAS: u32 = 5;
    /// `atomic_and(!bit(t / 8))` by every thread.
    pub const AND: u32 = 6;
    /// `atomic_or(bit(t / 8 + 5))` by every thread.
    pub const OR: u32 = 7;
    /// `atomic_xor(mix(3 t + 1))` by every thread.
    pub const XOR: u32 = 8;
    /// Number of slots.
    pub const COUNT: u32 = 9;
}

/// Threads per block of the atomics probes: two and a half warps, so that one warp is
/// partial and atomics of several warps meet on one address.
pub const ATOMIC_BLOCK: u32 = 80;
/// Blocks of the atomics probes.
pub const ATOMIC_GRID: u32 = 2;

/// The operands the atomics probes use, per element type, so that the test computes the
/// expected results from the same definitions the kernels use.
pub trait ProbeInt: Copy + PartialEq + core::ops::Not<Output = Self> {
    /// `x as Self`.
    fn from_u32(x: u32) -> Self;
    /// A value spread over the type's range (negative for `i32`, above 2^32 for `u64`),
    /// so that min/max/xor see more than small positive numbers.
    fn mix(t: u32) -> Self;
    /// `1 << (t % BITS)`.
    fn bit(t: u32) -> Self;
    /// `self + 1`, wrapping.
    fn succ(self) -> Self;
}

impl ProbeInt for u32 {
    #[inline(always)]
    fn from_u32(x: u32) -> Self {
        x
    }
    #[inline(always)]
    fn mix(t: u32) -> Self {
        t.wrapping_mul(2_654_435_761) >> 4
    }
    #[inline(always)]
    fn bit(t: u32) -> Self {
        1 << (t % 32)
    }
    #[inline(always)]
    fn succ(self) -> Self {
        self.wrapping_add(1)
    }
}

impl ProbeInt for i32 {
    #[inline(always)]
    fn from_u32(x: u32) -> Self {
        x as i32
    }
    #[inline(always)]
    fn mix(t: u32) -> Self {
        t.wrapping_mul(2_654_435_761) as i32
    }
    #[inline(always)]
    fn bit(t: u32) -> Self {
        1 << (t % 32)
    }
    #[inline(always)]
    fn succ(self) -> Self {
        self.wrapping_add(1)
    }
}

impl ProbeInt for u64 {
    #[inline(always)]
    fn from_u32(x: u32) -> Self {
        x as u64
    }
    #[inline(always)]
    fn mix(t: u32) -> Self {
        (t as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }
    #[inline(always)]
    fn bit(t: u32) -> Self {
        1 << (t % 64)
    }
    #[inline(always)]
    fn succ(self) -> Self {
        self.wrapping_add(1)
    }
}

/// Every integer atomic on handle `$a` for thread `$t` (see [`slot`]). Written as a macro
/// because the handles share method names but no trait; each kernel expands it once, so
/// every call keeps its own source line on the emulator.
macro_rules! rmw_all {
    ($ty:ty, $a:expr, $t:expr, $olds:expr) => {{
        let a = $a;
        let t: u32 = $t;
        a.atomic_add(slot::ADD, <$ty as ProbeInt>::from_u32(t + 1));
        a.atomic_sub(slot::SUB, <$ty as ProbeInt>::from_u32(t));
        a.atomic_min(slot::MIN, <$ty as ProbeInt>::mix(t));
        a.atomic_max(slot::MAX, <$ty as ProbeInt>::mix(t + 7));
        let old = a.atomic_exch(slot::EXCH, <$ty as ProbeInt>::from_u32(t + 1));
        $olds.store(t, old);
        // A CAS retry loop (how every other atomic can be built): the guess starts wrong
        // on purpose, so every thread retries at least once.
        let mut guess = <$ty as ProbeInt>::from_u32(0);
        loop {
            let prev = a.atomic_cas(slot::CAS, guess, guess.succ());
            if prev == guess {
                break;
            }
            guess = prev;
        }
        a.atomic_and(slot::AND, !<$ty as ProbeInt>::bit(t / 8));
        a.atomic_or(slot::OR, <$ty as ProbeInt>::bit(t / 8 + 5));
        a.atomic_xor(slot::XOR, <$ty as ProbeInt>::mix(3 * t + 1));
    }};
}

/// The shared-memory version of [`rmw_all`]: copy `init` in, run every atomic, copy the
/// block's result to `out[block * COUNT ..]`. The barriers keep the plain copies apart
/// from the atomics (no racecheck hazard).
macro_rules! shared_rmw {
    ($ty:ty, $s:expr, $init:expr, $out:expr, $olds:expr) => {{
        let s = $s;
        let tid = thread::thread_idx_x();
        if tid < slot::COUNT {
            s.store(tid, $init.load(tid));
        }
        thread::sync_threads();
        rmw_all!($ty, s, thread::index_1d(), $olds);
        thread::sync_threads();
        if tid < slot::COUNT {
            $out.store(thread::block_idx_x() * slot::COUNT + tid, s.load(tid));
        }
    }};
}

/// Every `u32` atomic on global memory. Launch `ATOMIC_GRID x ATOMIC_BLOCK`; `a` holds
/// the initial [`slot`] values and receives the results; `olds[t]` gets the exchange's old
/// value.
#[kernel]
pub fn atomics_global_u32(a: GlobalSlice<u32>, olds: GlobalSlice<u32>) {
    rmw_all!(u32, a, thread::index_1d(), olds);
}

/// Every `i32` atomic on global memory (as [`atomics_global_u32`](fn@atomics_global_u32)).
#[kernel]
pub fn atomics_global_i32(a: GlobalSlice<i32>, olds: GlobalSlice<i32>) {
    rmw_all!(i32, a, thread::index_1d(), olds);
}

/// Every `u64` atomic on global memory (as [`atomics_global_u32`](fn@atomics_global_u32)).
#[kernel]
pub fn atomics_global_u64(a: GlobalSlice<u64>, olds: GlobalSlice<u64>) {
    rmw_all!(u64, a, thread::index_1d(), olds);
}

/// Every `u32` atomic on a static shared array. Launch `ATOMIC_GRID x ATOMIC_BLOCK`;
/// each block starts from `init` and writes its result to `out[block * COUNT ..]`.
#[kernel]
pub fn atomics_shared_u32(init: GlobalSlice<u32>, out: GlobalSlice<u32>, olds: GlobalSlice<u32>) {
    let s = shared_array![u32; slot::COUNT as usize];
    shared_rmw!(u32, s, init, out, olds);
}

/// Every `i32` atomic on a static shared array (as
/// [`atomics_shared_u32`](fn@atomics_shared_u32)).
#[kernel]
pub fn atomics_shared_i32(init: GlobalSlice<i32>, out: GlobalSlice<i32>, olds: GlobalSlice<i32>) {
    let s = shared_array![i32; slot::COUNT as usize];
    shared_rmw!(i32, s, init, out, olds);
}

/// Every `u64` atomic on a static shared array (as
/// [`atomics_shared_u32`](fn@atomics_shared_u32)).
#[kernel]
pub fn atomics_shared_u64(init: GlobalSlice<u64>, out: GlobalSlice<u64>, olds: GlobalSlice<u64>) {
    let s = shared_array![u64; slot::COUNT as usize];
    shared_rmw!(u64, s, init, out, olds);
}

/// Every `u32` atomic on dynamic shared memory (launch with at least `COUNT * 4` dynamic
/// shared bytes; otherwise as [`atomics_shared_u32`](fn@atomics_shared_u32)).
#[kernel]
pub fn atomics_dynamic_u32(init: GlobalSlice<u32>, out: GlobalSlice<u32>, olds: GlobalSlice<u32>) {
    let s = dynamic_shared![u32];
    shared_rmw!(u32, s, init, out, olds);
}

/// Every `i32` atomic on dynamic shared memory (as
/// [`atomics_dynamic_u32`](fn@atomics_dynamic_u32)).
#[kernel]
pub fn atomics_dynamic_i32(init: GlobalSlice<i32>, out: GlobalSlice<i32>, olds: GlobalSlice<i32>) {
    let s = dynamic_shared![i32];
    shared_rmw!(i32, s, init, out, olds);
}

/// Every `u64` atomic on dynamic shared memory (launch with at least `COUNT * 8` dynamic
/// shared bytes; as [`atomics_dynamic_u32`](fn@atomics_dynamic_u32)).
#[kernel]
pub fn atomics_dynamic_u64(init: GlobalSlice<u64>, out: GlobalSlice<u64>, olds: GlobalSlice<u64>) {
    let s = dynamic_shared![u64];
    shared_rmw!(u64, s, init, out, olds);
}

/// Limit of the `atomic_inc` probe: the counter wraps to 0 after this value.
pub const INC_LIMIT: u32 = 7;
/// Limit of the `atomic_dec` probe: from 0 the counter wraps to this value.
pub const DEC_LIMIT: u32 = 5;

/// `atomic_inc`/`atomic_dec` (u32 only, as in CUDA) and `f32` `atomic_add`, on global,
/// static shared and dynamic shared memory. Launch one block of `ATOMIC_BLOCK` threads
/// with at least 12 dynamic shared bytes.
///
/// `g` holds `[inc, dec]` and receives the global results; `out` receives
/// `[shared inc, shared dec, dynamic inc, dynamic dec]`, starting from `g`'s initial
/// values. Every thread adds `t / 2` (exact in `f32`, so the sum does not depend on the
/// order) to `gf[0]`, to a static shared and a dynamic shared `f32`; `outf` receives the
/// two shared sums.
#[kernel]
pub fn atomics_inc_dec_f32(
    g: GlobalSlice<u32>,
    out: GlobalSlice<u32>,
    gf: GlobalSlice<f32>,
    outf: GlobalSlice<f32>,
) {
    let s = shared_array![u32; 2];
    let sf = shared_array![f32; 1];
    // Two views of the same dynamic shared memory, as two `extern __shared__` arrays
    // alias in CUDA C: words 0 and 1 are `u32` counters, word 2 is an `f32` sum.
    let d = dynamic_shared![u32];
    let df = dynamic_shared![f32];
    let t = thread::thread_idx_x();
    if t < 2 {
        let v = g.load(t);
        s.store(t, v);
        d.store(t, v);
    }
    if t == 0 {
        sf.store(0, 0.0);
        df.store(2, 0.0);
    }
    thread::sync_threads();
    let half = t as f32 * 0.5;
    g.atomic_inc(0, INC_LIMIT);
    g.atomic_dec(1, DEC_LIMIT);
    gf.atomic_add(0, half);
    s.atomic_inc(0, INC_LIMIT);
    s.atomic_dec(1, DEC_LIMIT);
    sf.atomic_add(0, half);
    d.atomic_inc(0, INC_LIMIT);
    d.atomic_dec(1, DEC_LIMIT);
    df.atomic_add(2, half);
    thread::sync_threads();
    if t < 2 {
        out.store(t, s.load(t));
        out.store(2 + t, d.load(t));
    }
    if t == 0 {
        outf.store(0, sf.load(0));
        outf.store(1, df.load(2));
    }
}

/// Values written per thread by [`index_probe`](fn@index_probe).
pub const INDEX_FIELDS: u32 = 20;

/// Every thread, block and grid index function. Launch any 3-D shape; thread `g` (the
/// linear thread number, block-major) writes [`INDEX_FIELDS`] words at
/// `out[g * INDEX_FIELDS ..]`: `threadIdx.xyz`, `blockIdx.xyz`, `blockDim.xyz`,
/// `gridDim.xyz`, `index_1d`, `index_2d().1`, `index_3d().2`, `grid_stride_x`,
/// `thread_idx_linear`, and 1 when the `Dim3` forms agree with the scalar ones.
#[kernel]
pub fn index_probe(out: GlobalSlice<u32>) {
    let (tx, ty, tz) = (
        thread::thread_idx_x(),
        thread::thread_idx_y(),
        thread::thread_idx_z(),
    );
    let (bx, by, bz) = (
        thread::block_idx_x(),
        thread::block_idx_y(),
        thread::block_idx_z(),
    );
    let (dx, dy, dz) = (
        thread::block_dim_x(),
        thread::block_dim_y(),
        thread::block_dim_z(),
    );
    let (gx, gy, gz) = (
        thread::grid_dim_x(),
        thread::grid_dim_y(),
        thread::grid_dim_z(),
    );
    let linear = thread::thread_idx_linear();
    let block_linear = bx + by * gx + bz * gx * gy;
    let g = block_linear * (dx * dy * dz) + linear;
    let (i1, _) = thread::index_2d();
    let (_, j3, k3) = thread::index_3d();
    let dims_agree = thread::thread_idx()
        == Dim3 {
            x: tx,
            y: ty,
            z: tz,
        }
        && thread::block_idx()
            == Dim3 {
                x: bx,
                y: by,
                z: bz,
            }
        && thread::block_dim()
            == Dim3 {
                x: dx,
                y: dy,
                z: dz,
            }
        && thread::grid_dim()
            == Dim3 {
                x: gx,
                y: gy,
                z: gz,
            }
        && i1 == thread::index_1d();
    let fields = [
        tx,
        ty,
        tz,
        bx,
        by,
        bz,
        dx,
        dy,
        dz,
        gx,
        gy,
        gz,
        thread::index_1d(),
        j3,
        k3,
        thread::grid_stride_x(),
        linear,
        dims_agree as u32,
        0,
        0,
    ];
    let base = g * INDEX_FIELDS;
    let mut k = 0;
    while k < INDEX_FIELDS {
        out.store(base + k, fields[k as usize]);
        k += 1;
    }
}

/// Global slices of every width: `bytes` (64 bytes, `bytes[i] = i` from the host) read
/// as `u8`, as `u32` and as `U32x4` (16-byte vector loads) through `cast`, and `f32`,
/// `f64`, `u64` loads and stores. Launch one block of 32 threads.
///
/// Writes: `rev[t] = bytes[63 - t]` and `rev[32 + t] = bytes[31 - t]`; `words[t] =
/// bytes.cast::<u32>()[t]` for `t < 16`; `vecs[t] = bytes.cast::<U32x4>()[t]` with each
/// lane's words rotated by one, for `t < 4`; `wide[t] = bytes.cast::<u64>()[t]` for
/// `t < 8`; `xf[t] *= 2`, `xd[t] *= 2`; and from thread 0, `meta = [len of words view,
/// len of vector view, bytes.is_empty(), empty.is_empty(), addr % 256,
/// from_raw_parts(words.addr(), words.len()).len()]`.
#[kernel]
#[allow(clippy::too_many_arguments)]
pub fn memory_probe(
    bytes: GlobalSlice<u8>,
    rev: GlobalSlice<u8>,
    words: GlobalSlice<u32>,
    vecs: GlobalSlice<U32x4>,
    wide: GlobalSlice<u64>,
    xf: GlobalSlice<f32>,
    xd: GlobalSlice<f64>,
    meta: GlobalSlice<u32>,
) {
    let t = thread::thread_idx_x();
    rev.store(t, bytes.load(63 - t));
    rev.store(32 + t, bytes.load(31 - t));
    let as_words = bytes.cast::<u32>();
    let as_vecs = bytes.cast::<U32x4>();
    let as_wide = bytes.cast::<u64>();
    if t < as_words.len() {
        words.store(t, as_words.load(t));
    }
    if t < as_vecs.len() {
        let U32x4([a, b, c, d]) = as_vecs.load(t);
        vecs.store(t, U32x4([b, c, d, a]));
    }
    if t < as_wide.len() {
        wide.store(t, as_wide.load(t));
    }
    if t < xf.len() {
        xf.store(t, xf.load(t) * 2.0);
    }
    if t < xd.len() {
        xd.store(t, xd.load(t) * 2.0);
    }
    if t == 0 {
        // SAFETY: the same memory as `words`, and a zero-length view of it.
        let (alias, empty) = unsafe {
            (
                GlobalSlice::<u32>::from_raw_parts(words.addr(), words.len()),
                GlobalSlice::<u32>::from_raw_parts(words.addr(), 0),
            )
        };
        meta.store(0, as_words.len());
        meta.store(1, as_vecs.len());
        meta.store(2, bytes.is_empty() as u32);
        meta.store(3, empty.is_empty() as u32);
        meta.store(4, (bytes.addr() % 256) as u32);
        meta.store(5, alias.len());
    }
}

/// Values written per thread by [`shared_probe`](fn@shared_probe).
pub const SHARED_FIELDS: u32 = 12;

/// Static shared arrays of several types (their layout and alignment: `u32`, `u64`,
/// a 3-byte `u8`, a 16-byte `U32x4`) and dynamic shared memory, written by some threads
/// and read by others across a barrier. Launch one block of 64 threads with 256 dynamic
/// shared bytes. Thread `t` writes [`SHARED_FIELDS`] words at `out[t * SHARED_FIELDS ..]`:
/// `a[63 - t]`, `d[(t + 1) % 64]`, `b[t % 8]` low and high words, `c[t % 3]`,
/// `v[t % 4]` (4 words), `a.len()`, `d.len()`, `a.is_empty() + 2 d.is_empty()`.
#[kernel]
pub fn shared_probe(out: GlobalSlice<u32>) {
    let a = shared_array![u32; 64];
    let b = shared_array![u64; 8];
    let c = shared_array![u8; 3];
    let v = shared_array![U32x4; 4];
    let d = dynamic_shared![u32];
    let t = thread::thread_idx_x();
    a.store(t, t * 3);
    if t < d.len() {
        d.store(t, t + 1000);
    }
    if t < b.len() {
        b.store(t, (t as u64) << 40 | t as u64);
    }
    if t < c.len() {
        c.store(t, t as u8 + 7);
    }
    if t < v.len() {
        v.store(t, U32x4([t, t + 10, t + 20, t + 30]));
    }
    // Every thread reads words other threads (of the other warp, too) wrote.
    thread::sync_threads();
    let o = t * SHARED_FIELDS;
    out.store(o, a.load(63 - t));
    out.store(o + 1, d.load((t + 1) % 64));
    let w = b.load(t % 8);
    out.store(o + 2, w as u32);
    out.store(o + 3, (w >> 32) as u32);
    out.store(o + 4, c.load(t % 3) as u32);
    let U32x4(q) = v.load(t % 4);
    out.store(o + 5, q[0]);
    out.store(o + 6, q[1]);
    out.store(o + 7, q[2]);
    out.store(o + 8, q[3]);
    out.store(o + 9, a.len());
    out.store(o + 10, d.len());
    out.store(o + 11, a.is_empty() as u32 + 2 * d.is_empty() as u32);
}

/// `u32` results per thread of [`warp_probe`](fn@warp_probe).
pub const WARP_FIELDS: u32 = 20;
/// `u64` results per thread of [`warp_probe`](fn@warp_probe).
pub const WARP_FIELDS_64: u32 = 5;
/// `f32` results per thread of [`warp_probe`](fn@warp_probe).
pub const WARP_FIELDS_F32: u32 = 4;

/// Every warp intrinsic, on warp-uniform control flow with full warps. Launch blocks of
/// 64 threads (any grid). Thread `g = index_1d()`, lane `l`, writes:
///
/// `out[g * WARP_FIELDS ..]`: `lane_id`, `activemask`, `ballot(l % 3 == 0)`,
/// `all(true)`, `all(l != 7)`, `any(l == 9)`, `any(false)`, `match_any(l / 4)`,
/// then shuffles of `x = 10 l + 1`: `idx(3)`, `idx(5, width 8)`, `up(1)`,
/// `up(2, width 16)`, `down(4)`, `down(1, width 8)`, `xor(1)`, `xor(16)`,
/// `xor(3, width 4)`, an `i32` `idx(31)` of `-l`, the warp sum of `x` by a `xor`
/// butterfly, and `match_any` of the warp index (all lanes).
///
/// `out64[g * WARP_FIELDS_64 ..]`: `u64` `idx(2)`, `up(3)`, `down(5)`, `xor(7)` of
/// `y = l << 33 | l`, and an `i64` `down(1)` of `-y`.
///
/// `outf[g * WARP_FIELDS_F32 ..]`: `f32` `idx(4)`, `up(1)`, `down(2)`, `xor(8)` of `l / 4`.
#[kernel]
pub fn warp_probe(out: GlobalSlice<u32>, out64: GlobalSlice<u64>, outf: GlobalSlice<f32>) {
    let g = thread::index_1d();
    let l = warp::lane_id();
    warp::sync_warp(FULL_MASK);
    let active = warp::activemask();
    let ballot = warp::warp_vote_ballot(FULL_MASK, l.is_multiple_of(3));
    let all_t = warp::warp_vote_all(FULL_MASK, true);
    let all_f = warp::warp_vote_all(FULL_MASK, l != 7);
    let any_t = warp::warp_vote_any(FULL_MASK, l == 9);
    let any_f = warp::warp_vote_any(FULL_MASK, false);
    let peers = warp::warp_match_any(FULL_MASK, l / 4);
    let x = 10 * l + 1;
    let s_idx = warp::warp_shuffle_idx(FULL_MASK, x, 3, 32);
    let s_idx8 = warp::warp_shuffle_idx(FULL_MASK, x, 5, 8);
    let s_up = warp::warp_shuffle_up(FULL_MASK, x, 1, 32);
    let s_up16 = warp::warp_shuffle_up(FULL_MASK, x, 2, 16);
    let s_down = warp::warp_shuffle_down(FULL_MASK, x, 4, 32);
    let s_down8 = warp::warp_shuffle_down(FULL_MASK, x, 1, 8);
    let s_xor = warp::warp_shuffle_xor(FULL_MASK, x, 1, 32);
    let s_xor16 = warp::warp_shuffle_xor(FULL_MASK, x, 16, 32);
    let s_xor4 = warp::warp_shuffle_xor(FULL_MASK, x, 3, 4);
    let s_i32 = warp::warp_shuffle_idx(FULL_MASK, -(l as i32), 31, 32);
    // A warp all-reduce: the loop bound is the same for every lane (warp-uniform).
    let mut sum = x;
    let mut m = 16;
    while m > 0 {
        sum += warp::warp_shuffle_xor(FULL_MASK, sum, m, 32);
        m /= 2;
    }
    warp::sync_warp(FULL_MASK);
    let whole = warp::warp_match_any(FULL_MASK, g / 32);
    let fields = [
        l,
        active,
        ballot,
        all_t as u32,
        all_f as u32,
        any_t as u32,
        any_f as u32,
        peers,
        s_idx,
        s_idx8,
        s_up,
        s_up16,
        s_down,
        s_down8,
        s_xor,
        s_xor16,
        s_xor4,
        s_i32 as u32,
        sum,
        whole,
    ];
    let mut k = 0;
    while k < WARP_FIELDS {
        out.store(g * WARP_FIELDS + k, fields[k as usize]);
        k += 1;
    }

    let y = (l as u64) << 33 | l as u64;
    let fields64 = [
        warp::warp_shuffle_idx(FULL_MASK, y, 2, 32),
        warp::warp_shuffle_up(FULL_MASK, y, 3, 32),
        warp::warp_shuffle_down(FULL_MASK, y, 5, 32),
        warp::warp_shuffle_xor(FULL_MASK, y, 7, 32),
        warp::warp_shuffle_down(FULL_MASK, -(y as i64), 1, 32) as u64,
    ];
    let mut k = 0;
    while k < WARP_FIELDS_64 {
        out64.store(g * WARP_FIELDS_64 + k, fields64[k as usize]);
        k += 1;
    }

    let z = (l / 4) as f32;
    let fieldsf = [
        warp::warp_shuffle_idx(FULL_MASK, z, 4, 32),
        warp::warp_shuffle_up(FULL_MASK, z, 1, 32),
        warp::warp_shuffle_down(FULL_MASK, z, 2, 32),
        warp::warp_shuffle_xor(FULL_MASK, z, 8, 32),
    ];
    let mut k = 0;
    while k < WARP_FIELDS_F32 {
        outf.store(g * WARP_FIELDS_F32 + k, fieldsf[k as usize]);
        k += 1;
    }
}
