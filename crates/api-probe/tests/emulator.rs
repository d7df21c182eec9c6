//! The probe kernels on the emulator: every `gpu` device function, run through
//! `gpu_host::Device` and checked against results computed here on the CPU.
//!
//! The same kernels are compiled to PTX and assembled with `ptxas` by `.ci/ptx-check`,
//! so one source proves both bodies of each function. Every launch must also come back
//! without findings (no races, no uninitialised shared reads, no shuffle from an
//! inactive lane): the probes are written to be clean.

use api_probe::*;
use gpu::value::U32x4;
use gpu_host::{Device, DeviceValue, GlobalSlice, Kernel, LaunchConfig, LaunchReport};
use std::fmt::Debug;

fn clean(name: &str, r: &LaunchReport) {
    let findings: Vec<String> = r.findings().iter().map(|f| f.to_string()).collect();
    assert!(
        findings.is_empty(),
        "{name}: unexpected findings:\n{}",
        findings.join("\n")
    );
}

/// What the CPU needs, beyond [`ProbeInt`], to compute the atomics' results.
trait RefInt: ProbeInt + DeviceValue + Ord + Debug {
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn and(self, o: Self) -> Self;
    fn or(self, o: Self) -> Self;
    fn xor(self, o: Self) -> Self;
}

macro_rules! ref_int {
    ($($t:ty),*) => {$(
        impl RefInt for $t {
            fn add(self, o: Self) -> Self { self.wrapping_add(o) }
            fn sub(self, o: Self) -> Self { self.wrapping_sub(o) }
            fn and(self, o: Self) -> Self { self & o }
            fn or(self, o: Self) -> Self { self | o }
            fn xor(self, o: Self) -> Self { self ^ o }
        }
    )*};
}
ref_int!(u32, i32, u64);

/// Checks the nine slots after threads `ts` ran every atomic once, starting from `init`,
/// and the old values the exchanges returned.
fn check_rmw<T: RefInt>(what: &str, init: &[T], got: &[T], olds: &[T], ts: std::ops::Range<u32>) {
    let f = T::from_u32;
    let n = ts.len() as u32;
    let mut want = init.to_vec();
    let mut exch_sum = init[slot::EXCH as usize];
    for t in ts.clone() {
        want[slot::ADD as usize] = want[slot::ADD as usize].add(f(t + 1));
        want[slot::SUB as usize] = want[slot::SUB as usize].sub(f(t));
        want[slot::MIN as usize] = want[slot::MIN as usize].min(T::mix(t));
        want[slot::MAX as usize] = want[slot::MAX as usize].max(T::mix(t + 7));
        want[slot::AND as usize] = want[slot::AND as usize].and(!T::bit(t / 8));
        want[slot::OR as usize] = want[slot::OR as usize].or(T::bit(t / 8 + 5));
        want[slot::XOR as usize] = want[slot::XOR as usize].xor(T::mix(3 * t + 1));
        exch_sum = exch_sum.add(f(t + 1));
    }
    want[slot::CAS as usize] = init[slot::CAS as usize].add(f(n));
    // The exchange's final value depends on the order; what is conserved is the sum of
    // everything that was ever in the slot.
    let exch = got[slot::EXCH as usize];
    want[slot::EXCH as usize] = exch;
    assert_eq!(got, &want[..], "{what}: slots");
    let seen = ts.clone().fold(exch, |s, t| s.add(olds[t as usize]));
    assert_eq!(
        seen, exch_sum,
        "{what}: exchange olds + final != init + values"
    );
    assert!(
        ts.clone().any(|t| f(t + 1) == exch),
        "{what}: final exchange value {exch:?}"
    );
}

type TwoSlices<T> = (GlobalSlice<T>, GlobalSlice<T>);
type ThreeSlices<T> = (GlobalSlice<T>, GlobalSlice<T>, GlobalSlice<T>);

fn atomics<T: RefInt>(
    ty: &str,
    init: [T; slot::COUNT as usize],
    global: &Kernel<TwoSlices<T>>,
    shared: &Kernel<ThreeSlices<T>>,
    dynamic: &Kernel<ThreeSlices<T>>,
) {
    let threads = ATOMIC_GRID * ATOMIC_BLOCK;
    let cfg = LaunchConfig::linear(ATOMIC_GRID, ATOMIC_BLOCK);

    let mut dev = Device::emulator();
    let a = dev.upload(&init).unwrap();
    let olds = dev.alloc::<T>(threads as usize).unwrap();
    let r = dev.launch(global, cfg, (a.slice(), olds.slice())).unwrap();
    clean(global.name, &r);
    let got = dev.download(&a).unwrap();
    let olds_got = dev.download(&olds).unwrap();
    check_rmw(&format!("global {ty}"), &init, &got, &olds_got, 0..threads);

    let dyn_bytes = slot::COUNT * std::mem::size_of::<T>() as u32;
    for (kernel, cfg) in [(shared, cfg), (dynamic, cfg.with_shared(dyn_bytes))] {
        let mut dev = Device::emulator();
        let init_buf = dev.upload(&init).unwrap();
        let out = dev
            .alloc::<T>((ATOMIC_GRID * slot::COUNT) as usize)
            .unwrap();
        let olds = dev.alloc::<T>(threads as usize).unwrap();
        let r = dev
            .launch(kernel, cfg, (init_buf.slice(), out.slice(), olds.slice()))
            .unwrap();
        clean(kernel.name, &r);
        let got = dev.download(&out).unwrap();
        let olds_got = dev.download(&olds).unwrap();
        for b in 0..ATOMIC_GRID {
            let k = slot::COUNT as usize;
            let mine = &got[b as usize * k..(b as usize + 1) * k];
            let ts = b * ATOMIC_BLOCK..(b + 1) * ATOMIC_BLOCK;
            check_rmw(
                &format!("{} block {b}", kernel.name),
                &init,
                mine,
                &olds_got,
                ts,
            );
        }
    }
}

#[test]
fn atomics_u32() {
    let init = [10, 1000, u32::MAX - 5, 3, 77, 40, u32::MAX, 0, 0x5555_5555];
    atomics(
        "u32",
        init,
        &atomics_global_u32::KERNEL,
        &atomics_shared_u32::KERNEL,
        &atomics_dynamic_u32::KERNEL,
    );
}

#[test]
fn atomics_i32() {
    let init = [-10, 1000, i32::MAX, i32::MIN, -77, -40, -1, 0, 0x5555_5555];
    atomics(
        "i32",
        init,
        &atomics_global_i32::KERNEL,
        &atomics_shared_i32::KERNEL,
        &atomics_dynamic_i32::KERNEL,
    );
}

#[test]
fn atomics_u64() {
    let init = [
        1 << 40,
        1000,
        u64::MAX,
        3,
        77,
        40,
        u64::MAX,
        0,
        0x5555_5555_5555_5555,
    ];
    atomics(
        "u64",
        init,
        &atomics_global_u64::KERNEL,
        &atomics_shared_u64::KERNEL,
        &atomics_dynamic_u64::KERNEL,
    );
}

#[test]
fn atomics_inc_dec_and_f32() {
    let (inc0, dec0) = (2u32, 3u32);
    let mut dev = Device::emulator();
    let g = dev.upload(&[inc0, dec0]).unwrap();
    let out = dev.alloc::<u32>(4).unwrap();
    let gf = dev.upload(&[0.25f32]).unwrap();
    let outf = dev.alloc::<f32>(2).unwrap();
    let r = dev
        .launch(
            &atomics_inc_dec_f32::KERNEL,
            LaunchConfig::linear(1, ATOMIC_BLOCK).with_shared(12),
            (g.slice(), out.slice(), gf.slice(), outf.slice()),
        )
        .unwrap();
    clean("atomics_inc_dec_f32", &r);
    let (mut inc, mut dec) = (inc0, dec0);
    for _ in 0..ATOMIC_BLOCK {
        inc = if inc >= INC_LIMIT { 0 } else { inc + 1 };
        dec = if dec == 0 || dec > DEC_LIMIT {
            DEC_LIMIT
        } else {
            dec - 1
        };
    }
    assert_eq!(dev.download(&g).unwrap(), [inc, dec], "global inc/dec");
    assert_eq!(
        dev.download(&out).unwrap(),
        [inc, dec, inc, dec],
        "shared and dynamic inc/dec"
    );
    let sum: f32 = (0..ATOMIC_BLOCK).map(|t| t as f32 * 0.5).sum();
    assert_eq!(dev.download(&gf).unwrap(), [sum + 0.25], "global f32 add");
    assert_eq!(
        dev.download(&outf).unwrap(),
        [sum, sum],
        "shared and dynamic f32 add"
    );
}

#[test]
fn indices_in_3d() {
    let (grid, block) = ((2, 3, 2), (4, 3, 2));
    let threads = 2 * 3 * 2 * 4 * 3 * 2;
    let mut dev = Device::emulator();
    let out = dev.alloc::<u32>((threads * INDEX_FIELDS) as usize).unwrap();
    let r = dev
        .launch(
            &index_probe::KERNEL,
            LaunchConfig::dims(grid, block),
            (out.slice(),),
        )
        .unwrap();
    clean("index_probe", &r);
    let got = dev.download(&out).unwrap();
    let mut checked = 0;
    for bz in 0..grid.2 {
        for by in 0..grid.1 {
            for bx in 0..grid.0 {
                for tz in 0..block.2 {
                    for ty in 0..block.1 {
                        for tx in 0..block.0 {
                            let linear = tx + ty * block.0 + tz * block.0 * block.1;
                            let bl = bx + by * grid.0 + bz * grid.0 * grid.1;
                            let g = bl * (block.0 * block.1 * block.2) + linear;
                            let want = [
                                tx,
                                ty,
                                tz,
                                bx,
                                by,
                                bz,
                                block.0,
                                block.1,
                                block.2,
                                grid.0,
                                grid.1,
                                grid.2,
                                bx * block.0 + tx,
                                by * block.1 + ty,
                                bz * block.2 + tz,
                                grid.0 * block.0,
                                linear,
                                1,
                                0,
                                0,
                            ];
                            let at = (g * INDEX_FIELDS) as usize;
                            assert_eq!(
                                got[at..at + INDEX_FIELDS as usize],
                                want,
                                "thread ({tx},{ty},{tz}) of block ({bx},{by},{bz})"
                            );
                            checked += 1;
                        }
                    }
                }
            }
        }
    }
    assert_eq!(checked, threads);
}

#[test]
fn memory_every_width() {
    let bytes: Vec<u8> = (0..64).collect();
    let xf = [1.5f32, -2.25, 3.0];
    let xd = [1e10f64, -0.5];
    let mut dev = Device::emulator();
    let b = dev.upload(&bytes).unwrap();
    let rev = dev.alloc::<u8>(64).unwrap();
    let words = dev.alloc::<u32>(16).unwrap();
    let vecs = dev.alloc::<U32x4>(4).unwrap();
    let wide = dev.alloc::<u64>(8).unwrap();
    let f = dev.upload(&xf).unwrap();
    let d = dev.upload(&xd).unwrap();
    let meta = dev.alloc::<u32>(6).unwrap();
    let r = dev
        .launch(
            &memory_probe::KERNEL,
            LaunchConfig::linear(1, 32),
            (
                b.slice(),
                rev.slice(),
                words.slice(),
                vecs.slice(),
                wide.slice(),
                f.slice(),
                d.slice(),
                meta.slice(),
            ),
        )
        .unwrap();
    clean("memory_probe", &r);
    let mut want_rev: Vec<u8> = (32..64).rev().collect();
    want_rev.extend((0..32).rev());
    assert_eq!(dev.download(&rev).unwrap(), want_rev, "u8 loads and stores");
    let le32 = |i: usize| u32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().unwrap());
    let want_words: Vec<u32> = (0..16).map(le32).collect();
    assert_eq!(dev.download(&words).unwrap(), want_words, "cast::<u32>");
    let want_vecs: Vec<U32x4> = (0..4)
        .map(|v| {
            U32x4([
                le32(4 * v + 1),
                le32(4 * v + 2),
                le32(4 * v + 3),
                le32(4 * v),
            ])
        })
        .collect();
    assert_eq!(dev.download(&vecs).unwrap(), want_vecs, "cast::<U32x4>");
    let want_wide: Vec<u64> = (0..8)
        .map(|i| u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().unwrap()))
        .collect();
    assert_eq!(dev.download(&wide).unwrap(), want_wide, "cast::<u64>");
    assert_eq!(dev.download(&f).unwrap(), xf.map(|x| x * 2.0), "f32");
    assert_eq!(dev.download(&d).unwrap(), xd.map(|x| x * 2.0), "f64");
    assert_eq!(
        dev.download(&meta).unwrap(),
        [16, 4, 0, 1, 0, 16],
        "len, is_empty, addr, from_raw_parts"
    );
}

#[test]
fn shared_static_and_dynamic() {
    let mut dev = Device::emulator();
    let out = dev.alloc::<u32>((64 * SHARED_FIELDS) as usize).unwrap();
    let r = dev
        .launch(
            &shared_probe::KERNEL,
            LaunchConfig::linear(1, 64).with_shared(256),
            (out.slice(),),
        )
        .unwrap();
    clean("shared_probe", &r);
    let got = dev.download(&out).unwrap();
    for t in 0..64u32 {
        let w = ((t % 8) as u64) << 40 | (t % 8) as u64;
        let v = t % 4;
        let want = [
            (63 - t) * 3,
            (t + 1) % 64 + 1000,
            w as u32,
            (w >> 32) as u32,
            t % 3 + 7,
            v,
            v + 10,
            v + 20,
            v + 30,
            64,
            64,
            0,
        ];
        let at = (t * SHARED_FIELDS) as usize;
        assert_eq!(got[at..at + SHARED_FIELDS as usize], want, "thread {t}");
    }
}

/// The source lane of a shuffle, as PTX's `shfl.sync` defines it for a `width`-lane
/// segment (no source outside the segment: the lane keeps its own value).
fn shfl_src(kind: &str, lane: u32, arg: u32, width: u32) -> u32 {
    let seg = lane & !(width - 1);
    match kind {
        "idx" => seg + arg % width,
        "up" if lane - seg >= arg => lane - arg,
        "down" if lane - seg + arg < width => lane + arg,
        "xor" if (lane ^ arg) < seg + width => lane ^ arg,
        _ => lane,
    }
}

#[test]
fn warp_intrinsics() {
    let (blocks, block) = (2u32, 64u32);
    let threads = blocks * block;
    let mut dev = Device::emulator();
    let out = dev.alloc::<u32>((threads * WARP_FIELDS) as usize).unwrap();
    let out64 = dev
        .alloc::<u64>((threads * WARP_FIELDS_64) as usize)
        .unwrap();
    let outf = dev
        .alloc::<f32>((threads * WARP_FIELDS_F32) as usize)
        .unwrap();
    let r = dev
        .launch(
            &warp_probe::KERNEL,
            LaunchConfig::linear(blocks, block),
            (out.slice(), out64.slice(), outf.slice()),
        )
        .unwrap();
    clean("warp_probe", &r);
    let got = dev.download(&out).unwrap();
    let got64 = dev.download(&out64).unwrap();
    let gotf = dev.download(&outf).unwrap();
    let x = |l: u32| 10 * l + 1;
    let y = |l: u32| (l as u64) << 33 | l as u64;
    let z = |l: u32| (l / 4) as f32;
    let ballot = (0..32u32)
        .filter(|l| l.is_multiple_of(3))
        .fold(0u32, |m, l| m | 1 << l);
    let warp_sum: u32 = (0..32).map(x).sum();
    for g in 0..threads {
        let l = g % 32;
        let want = [
            l,
            u32::MAX,
            ballot,
            1,
            0,
            1,
            0,
            0xf << (l / 4 * 4),
            x(shfl_src("idx", l, 3, 32)),
            x(shfl_src("idx", l, 5, 8)),
            x(shfl_src("up", l, 1, 32)),
            x(shfl_src("up", l, 2, 16)),
            x(shfl_src("down", l, 4, 32)),
            x(shfl_src("down", l, 1, 8)),
            x(shfl_src("xor", l, 1, 32)),
            x(shfl_src("xor", l, 16, 32)),
            x(shfl_src("xor", l, 3, 4)),
            (-31i32) as u32,
            warp_sum,
            u32::MAX,
        ];
        let at = (g * WARP_FIELDS) as usize;
        assert_eq!(got[at..at + WARP_FIELDS as usize], want, "u32, thread {g}");
        let want64 = [
            y(shfl_src("idx", l, 2, 32)),
            y(shfl_src("up", l, 3, 32)),
            y(shfl_src("down", l, 5, 32)),
            y(shfl_src("xor", l, 7, 32)),
            (-(y(shfl_src("down", l, 1, 32)) as i64)) as u64,
        ];
        let at = (g * WARP_FIELDS_64) as usize;
        assert_eq!(
            got64[at..at + WARP_FIELDS_64 as usize],
            want64,
            "u64, thread {g}"
        );
        let wantf = [
            z(shfl_src("idx", l, 4, 32)),
            z(shfl_src("up", l, 1, 32)),
            z(shfl_src("down", l, 2, 32)),
            z(shfl_src("xor", l, 8, 32)),
        ];
        let at = (g * WARP_FIELDS_F32) as usize;
        assert_eq!(
            gotf[at..at + WARP_FIELDS_F32 as usize],
            wantf,
            "f32, thread {g}"
        );
    }
}
