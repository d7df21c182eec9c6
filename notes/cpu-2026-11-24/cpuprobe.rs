// The stand-alone CPU probe of notes/cpu-histogram-2026-11-24.md (a bin crate with no
// dependencies; `cargo build --release`, then `cpuprobe MIB`): histogram variants of bytes
// and u32 values, best of 3, the core clock and ALU throughput per thread.
use std::time::Instant;

// `mod real`: for each run, the block of chapters/ch09/src/bench/cpu.rs from `const RUN_BLOCK`
// to `value_counts_into` (with `pub` on `byte_values` and `value_counts`) was pasted here, with
// a local `Element` trait for u32; left out of this copy so that the code lives in one place.
fn xorshift(s: &mut u64) -> u64 { *s ^= *s << 13; *s ^= *s >> 7; *s ^= *s << 17; *s }

// ---------- bytes ----------
fn fold<const T: usize>(t: &[[u32; 256]; T]) -> [u32; 256] {
    let mut c = [0u32; 256];
    for tb in t { for (a, b) in c.iter_mut().zip(tb) { *a += b; } }
    c
}
fn b_naive(d: &[u8]) -> [u32; 256] { let mut h = [0u32; 256]; for &b in d { h[b as usize] += 1; } h }
// current: run-length on 8-byte words, 8 tables
fn b_runlen(data: &[u8]) -> [u32; 256] {
    let mut tables = [[0u32; 256]; 8];
    let mut words = data.chunks_exact(8);
    let add = |tables: &mut [[u32; 256]; 8], mut x: u64, times: u32| { for t in tables.iter_mut() { t[(x & 0xff) as usize] += times; x >>= 8; } };
    let (mut prev, mut rep) = (0u64, 0u32);
    for w in &mut words { let x = u64::from_le_bytes(w.try_into().unwrap()); if x == prev { rep += 1; continue; } if rep > 0 { add(&mut tables, prev, rep); rep = 0; } add(&mut tables, x, 1); prev = x; }
    if rep > 0 { add(&mut tables, prev, rep); }
    for &b in words.remainder() { tables[0][b as usize] += 1; }
    fold(&tables)
}
#[inline(always)]
fn add8<const T: usize>(t: &mut [[u32; 256]; T], base: usize, mut x: u64) {
    for k in 0..8 { t[base + k][(x & 0xff) as usize] += 1; x >>= 8; }
}
// 8 tables, 4 words per iteration, block check
fn b_t8_block(data: &[u8]) -> [u32; 256] {
    let mut t = [[0u32; 256]; 8];
    let mut blocks = data.chunks_exact(32);
    for blk in &mut blocks {
        let w: [u64; 4] = core::array::from_fn(|i| u64::from_le_bytes(blk[i * 8..i * 8 + 8].try_into().unwrap()));
        let splat = (w[0] & 0xff) * 0x0101_0101_0101_0101;
        if ((w[0] ^ splat) | (w[1] ^ splat) | (w[2] ^ splat) | (w[3] ^ splat)) == 0 { t[0][(w[0] & 0xff) as usize] += 32; continue; }
        for x in w { add8(&mut t, 0, x); }
    }
    for &b in blocks.remainder() { t[0][b as usize] += 1; }
    fold(&t)
}
// 16 tables, alternate words between two sets
fn b_t16_block(data: &[u8]) -> [u32; 256] {
    let mut t = [[0u32; 256]; 16];
    let mut blocks = data.chunks_exact(32);
    for blk in &mut blocks {
        let w: [u64; 4] = core::array::from_fn(|i| u64::from_le_bytes(blk[i * 8..i * 8 + 8].try_into().unwrap()));
        let splat = (w[0] & 0xff) * 0x0101_0101_0101_0101;
        if ((w[0] ^ splat) | (w[1] ^ splat) | (w[2] ^ splat) | (w[3] ^ splat)) == 0 { t[0][(w[0] & 0xff) as usize] += 32; continue; }
        add8(&mut t, 0, w[0]); add8(&mut t, 8, w[1]); add8(&mut t, 0, w[2]); add8(&mut t, 8, w[3]);
    }
    for &b in blocks.remainder() { t[0][b as usize] += 1; }
    fold(&t)
}
// 8 tables no block check
fn b_t8(data: &[u8]) -> [u32; 256] {
    let mut t = [[0u32; 256]; 8];
    let mut blocks = data.chunks_exact(32);
    for blk in &mut blocks {
        let w: [u64; 4] = core::array::from_fn(|i| u64::from_le_bytes(blk[i * 8..i * 8 + 8].try_into().unwrap()));
        for x in w { add8(&mut t, 0, x); }
    }
    for &b in blocks.remainder() { t[0][b as usize] += 1; }
    fold(&t)
}
// 4 tables, 32-bit halves (TurboHist-like 4x)
fn b_t4(data: &[u8]) -> [u32; 256] {
    let mut t = [[0u32; 256]; 4];
    let mut blocks = data.chunks_exact(16);
    for blk in &mut blocks {
        for i in 0..4 { let mut x = u32::from_le_bytes(blk[i*4..i*4+4].try_into().unwrap()); for k in 0..4 { t[k][(x & 0xff) as usize] += 1; x >>= 8; } }
    }
    for &b in blocks.remainder() { t[0][b as usize] += 1; }
    fold(&t)
}

// 4 tables, 32-bit loads, 32-byte block check
fn b_t4_block(data: &[u8]) -> [u32; 256] {
    let mut t = [[0u32; 256]; 4];
    let mut blocks = data.chunks_exact(32);
    for blk in &mut blocks {
        let w: [u64; 4] = core::array::from_fn(|i| u64::from_le_bytes(blk[i * 8..i * 8 + 8].try_into().unwrap()));
        let splat = (w[0] & 0xff) * 0x0101_0101_0101_0101;
        if ((w[0] ^ splat) | (w[1] ^ splat) | (w[2] ^ splat) | (w[3] ^ splat)) == 0 { t[0][(w[0] & 0xff) as usize] += 32; continue; }
        for mut x in w { for k in 0..8 { t[k & 3][(x & 0xff) as usize] += 1; x >>= 8; } }
    }
    for &b in blocks.remainder() { t[0][b as usize] += 1; }
    fold(&t)
}
// 16 tables, 64-byte blocks, two words per table set alternate
fn b_t16_64(data: &[u8]) -> [u32; 256] {
    let mut t = [[0u32; 256]; 16];
    let mut blocks = data.chunks_exact(64);
    for blk in &mut blocks {
        let w: [u64; 8] = core::array::from_fn(|i| u64::from_le_bytes(blk[i * 8..i * 8 + 8].try_into().unwrap()));
        let splat = (w[0] & 0xff) * 0x0101_0101_0101_0101;
        let mut diff = 0; for x in w { diff |= x ^ splat; }
        if diff == 0 { t[0][(w[0] & 0xff) as usize] += 64; continue; }
        for i in 0..8 { add8(&mut t, (i & 1) * 8, w[i]); }
    }
    for &b in blocks.remainder() { t[0][b as usize] += 1; }
    fold(&t)
}

// 8 tables, 64-byte blocks with the check
fn b_t8_64blk(data: &[u8]) -> [u32; 256] {
    let mut t = [[0u32; 256]; 8];
    let mut blocks = data.chunks_exact(64);
    for blk in &mut blocks {
        let w: [u64; 8] = core::array::from_fn(|i| u64::from_le_bytes(blk[i * 8..i * 8 + 8].try_into().unwrap()));
        let splat = (w[0] & 0xff) * 0x0101_0101_0101_0101;
        let mut diff = 0; for x in w { diff |= x ^ splat; }
        if diff == 0 { t[0][(w[0] & 0xff) as usize] += 64; continue; }
        for x in w { add8(&mut t, 0, x); }
    }
    for &b in blocks.remainder() { t[0][b as usize] += 1; }
    fold(&t)
}
// u32: T tables (u32), block of B values checked for one value
fn u_tables_blk<const T: usize, const B: usize>(data: &[u32]) -> Vec<u32> {
    let bins = BINS as u32; let mut t = vec![[0u32; BINS + 1]; T];
    let mut c = data.chunks_exact(B);
    for q in &mut c {
        let v0 = q[0]; let mut diff = 0; for &v in q { diff |= v ^ v0; }
        if diff == 0 { t[0][v0.min(bins) as usize] += B as u32; continue; }
        for (i, &v) in q.iter().enumerate() { t[i % T][v.min(bins) as usize] += 1; }
    }
    for &v in c.remainder() { t[0][v.min(bins) as usize] += 1; }
    (0..BINS).map(|i| t.iter().map(|x| x[i]).sum()).collect()
}

#[inline(always)]
fn all_bytes_equal(blk: &[u8]) -> bool {
    let first = blk[0] as u64 * 0x0101_0101_0101_0101;
    let mut diff = 0u64;
    for w in blk.chunks_exact(8) { diff |= u64::from_le_bytes(w.try_into().unwrap()) ^ first; }
    diff == 0
}
fn b_tn_chk<const T: usize, const BLK: usize>(data: &[u8]) -> [u32; 256] {
    let mut t = [[0u32; 256]; T];
    let mut blocks = data.chunks_exact(BLK);
    for blk in &mut blocks {
        if all_bytes_equal(blk) { t[0][blk[0] as usize] += BLK as u32; continue; }
        for pair in blk.chunks_exact(16) {
            let a = u64::from_le_bytes(pair[..8].try_into().unwrap());
            let b = u64::from_le_bytes(pair[8..].try_into().unwrap());
            add8(&mut t, 0, a); add8(&mut t, (T - 8), b);
        }
    }
    for &b in blocks.remainder() { t[0][b as usize] += 1; }
    fold(&t)
}
fn b_tn<const T: usize>(data: &[u8]) -> [u32; 256] {
    let mut t = [[0u32; 256]; T];
    let mut blocks = data.chunks_exact(16);
    for pair in &mut blocks {
        let a = u64::from_le_bytes(pair[..8].try_into().unwrap());
        let b = u64::from_le_bytes(pair[8..].try_into().unwrap());
        add8(&mut t, 0, a); add8(&mut t, (T - 8), b);
    }
    for &b in blocks.remainder() { t[0][b as usize] += 1; }
    fold(&t)
}
#[inline(always)]
fn all_values_equal(q: &[u32]) -> bool { let v0 = q[0]; let mut d = 0; for &v in q { d |= v ^ v0; } d == 0 }
fn u_chk<const T: usize, const BLK: usize>(data: &[u32]) -> Vec<u32> {
    let bins = BINS as u32; let mut t = vec![[0u32; BINS + 1]; T];
    let mut c = data.chunks_exact(BLK);
    for q in &mut c {
        if all_values_equal(q) { t[0][q[0].min(bins) as usize] += BLK as u32; continue; }
        for g in q.chunks_exact(T) { for k in 0..T { t[k][g[k].min(bins) as usize] += 1; } }
    }
    for &v in c.remainder() { t[0][v.min(bins) as usize] += 1; }
    (0..BINS).map(|i| t.iter().map(|x| x[i]).sum()).collect()
}
fn u_chk16<const T: usize, const BLK: usize>(data: &[u32]) -> Vec<u32> {
    let bins = BINS as u32; let mut t = vec![[0u16; BINS + 1]; T]; let mut out = vec![0u32; BINS + 1];
    for chunk in data.chunks(BLK * (65535 / BLK) * T) {
        let mut c = chunk.chunks_exact(BLK);
        for q in &mut c {
            if all_values_equal(q) { out[q[0].min(bins) as usize] += BLK as u32; continue; }
            for g in q.chunks_exact(T) { for k in 0..T { t[k][g[k].min(bins) as usize] += 1; } }
        }
        for &v in c.remainder() { out[v.min(bins) as usize] += 1; }
        for tb in t.iter_mut() { for (o, x) in out.iter_mut().zip(tb.iter_mut()) { *o += *x as u32; *x = 0; } }
    }
    out.truncate(BINS); out
}
fn threaded<R: Send>(n: usize, f: &(dyn Fn(usize) -> R + Sync)) -> Vec<R> {
    std::thread::scope(|s| { let hs: Vec<_> = (0..n).map(|i| s.spawn(move || f(i))).collect(); hs.into_iter().map(|h| h.join().unwrap()).collect() })
}
// u16 counters packed: 16 tables of u16 256 (8KB), flush periodically -- skip
// ---------- u32 ----------
const BINS: usize = 4096;
fn u_naive(d: &[u32]) -> Vec<u32> { let mut h = vec![0u32; BINS]; for &v in d { if (v as usize) < BINS { h[v as usize] += 1; } } h }
fn u_naive_b(d: &[u32], b: usize) -> Vec<u32> { let mut h = vec![0u32; b]; for &v in d { if (v as usize) < b { h[v as usize] += 1; } } h }
fn u_runlen(data: &[u32]) -> Vec<u32> {
    let bins = BINS as u32; let mut table = vec![0u32; BINS + 1]; let (mut prev, mut run) = (0u32, 0u32);
    for &v in data { if v == prev { run += 1; continue; } table[prev.min(bins) as usize] += run; prev = v; run = 1; }
    table[prev.min(bins) as usize] += run; table.truncate(BINS); table
}
fn u_tables<const T: usize>(data: &[u32]) -> Vec<u32> {
    let bins = BINS as u32; let mut t = vec![[0u32; BINS + 1]; T];
    let mut c = data.chunks_exact(T);
    for q in &mut c { for k in 0..T { t[k][q[k].min(bins) as usize] += 1; } }
    for &v in c.remainder() { t[0][v.min(bins) as usize] += 1; }
    (0..BINS).map(|i| t.iter().map(|x| x[i]).sum()).collect()
}
// u16 counters, T tables, flush every 65535*T elements
fn u_tables16<const T: usize>(data: &[u32]) -> Vec<u32> {
    let bins = BINS as u32; let mut t = vec![[0u16; BINS + 1]; T]; let mut out = vec![0u32; BINS];
    for chunk in data.chunks(65535 * T) {
        let mut c = chunk.chunks_exact(T);
        for q in &mut c { for k in 0..T { t[k][q[k].min(bins) as usize] += 1; } }
        for &v in c.remainder() { t[0][v.min(bins) as usize] += 1; }
        for tb in t.iter_mut() { for (o, x) in out.iter_mut().zip(tb.iter_mut()) { *o += *x as u32; *x = 0; } }
    }
    out
}
// u16 counters, T tables, with 8-value block check
fn u_tables16_block<const T: usize>(data: &[u32]) -> Vec<u32> {
    let bins = BINS as u32; let mut t = vec![[0u16; BINS + 1]; T]; let mut out = vec![0u32; BINS];
    for chunk in data.chunks(65528 * T) {
        let mut c = chunk.chunks_exact(8);
        let mut extra = [0u32; BINS + 1];
        for q in &mut c {
            let v0 = q[0];
            if q.iter().all(|&v| v == v0) { extra[v0.min(bins) as usize] += 8; continue; }
            for k in 0..8 { t[k % T][q[k].min(bins) as usize] += 1; }
        }
        for &v in c.remainder() { t[0][v.min(bins) as usize] += 1; }
        for tb in t.iter_mut() { for (o, x) in out.iter_mut().zip(tb.iter_mut()) { *o += *x as u32; *x = 0; } }
        for (o, x) in out.iter_mut().zip(extra.iter()) { *o += x; }
    }
    out
}

fn clock_ghz() -> f64 {
    // 20 dependent one-cycle adds per iteration: the loop runs at the core's clock
    let n = 50_000_000u64; let mut x = 1u64;
    let t = Instant::now();
    for _ in 0..n { unsafe { core::arch::asm!(
        "add {0}, {0}", "add {0}, {0}", "add {0}, {0}", "add {0}, {0}", "add {0}, {0}",
        "add {0}, {0}", "add {0}, {0}", "add {0}, {0}", "add {0}, {0}", "add {0}, {0}",
        "add {0}, {0}", "add {0}, {0}", "add {0}, {0}", "add {0}, {0}", "add {0}, {0}",
        "add {0}, {0}", "add {0}, {0}", "add {0}, {0}", "add {0}, {0}", "add {0}, {0}",
        inout(reg) x, options(nomem, nostack)); } }
    let s = t.elapsed().as_secs_f64(); std::hint::black_box(x);
    (n * 20) as f64 / s / 1e9
}


/// Independent adds on 6 registers: throughput-bound on the ALUs (SMT siblings share them).
fn alu_throughput(n: u64) -> f64 {
    let (mut a, mut b, mut c, mut d, mut e, mut f) = (1u64, 2u64, 3u64, 4u64, 5u64, 6u64);
    let t = Instant::now();
    for _ in 0..n { unsafe { core::arch::asm!(
        "add {0}, {0}", "add {1}, {1}", "add {2}, {2}", "add {3}, {3}", "add {4}, {4}", "add {5}, {5}",
        "add {0}, {0}", "add {1}, {1}", "add {2}, {2}", "add {3}, {3}", "add {4}, {4}", "add {5}, {5}",
        inout(reg) a, inout(reg) b, inout(reg) c, inout(reg) d, inout(reg) e, inout(reg) f, options(nomem, nostack)); } }
    let s = t.elapsed().as_secs_f64(); std::hint::black_box((a, b, c, d, e, f));
    (n * 12) as f64 / s / 1e9
}
fn time<R: PartialEq + std::fmt::Debug>(name: &str, bytes: usize, want: &R, f: &dyn Fn() -> R) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..3 { let t = Instant::now(); let r = f(); let s = t.elapsed().as_secs_f64(); assert_eq!(&r, want, "{name}"); best = best.min(s); }
    let g = bytes as f64 / best / 1e9; print!(" {name}={g:.2}"); g
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mb: usize = args.get(1).map(|s| s.parse().unwrap()).unwrap_or(256);
    let n = mb << 20;
    println!("clock-ish (black_box add loop) {:.2} G iter/s", clock_ghz());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    for th in [1usize, 2, 4, 8, 16].into_iter().filter(|&t| t <= cores) {
        let r = threaded(th, &|_| alu_throughput(200_000_000));
        let c = threaded(th, &|_| clock_ghz());
        println!("threads {th}: adds/ns per thread {:?}  chain GHz per thread {:?}", r.iter().map(|x| (x * 100.0).round() / 100.0).collect::<Vec<_>>(), c.iter().map(|x| (x * 100.0).round() / 100.0).collect::<Vec<_>>());
    }
    let mut s = 0x9E3779B97F4A7C15u64;
    let text: Vec<u8> = { let words = ["the ", "of ", "and ", "histogram ", "GPU ", "a ", "count ", "warp ", "in ", "shared "]; let mut v = Vec::with_capacity(n); while v.len() < n { v.extend_from_slice(words[(xorshift(&mut s) % 10) as usize].as_bytes()); if xorshift(&mut s) % 13 == 0 { v.push(b'\n'); } } v.truncate(n); v };
    let inputs: Vec<(&str, Vec<u8>)> = vec![
        ("uniform", (0..n).map(|_| xorshift(&mut s) as u8).collect()),
        ("one", vec![b'e'; n]),
        ("90pct", (0..n).map(|_| { let r = xorshift(&mut s); if r % 10 != 0 { b'e' } else { (r >> 8) as u8 } }).collect()),
        ("text", text),
    ];
    for (name, d) in &inputs {
        print!("u8 {name}:");
        let want = b_naive(d);
        time("naive", n, &want, &|| b_naive(d));
        time("runlen8", n, &want, &|| b_runlen(d));
        time("t4_32", n, &want, &|| b_t4(d));
        time("t8", n, &want, &|| b_tn::<8>(d));
        time("t16", n, &want, &|| b_tn::<16>(d));
        time("t8c256", n, &want, &|| b_tn_chk::<8, 256>(d));
        time("t16c256", n, &want, &|| b_tn_chk::<16, 256>(d));
        time("t16c1k", n, &want, &|| b_tn_chk::<16, 1024>(d));
        time("REAL", n, &want, &|| real::byte_values(d));
        println!();
    }
    let m = n / 4;
    let vin: Vec<(&str, Vec<u32>)> = vec![
        ("uniform", (0..m).map(|_| (xorshift(&mut s) % 4096) as u32).collect()),
        ("one", vec![1234u32; m]),
        ("90pct", (0..m).map(|_| { let r = xorshift(&mut s); if r % 10 != 0 { 1234 } else { ((r >> 8) % 4096) as u32 } }).collect()),
        ("text", inputs[3].1[..m].iter().map(|&c| c as u32).collect()),
    ];
    for (name, d) in &vin {
        let small = &d[..1 << 18];
        print!("u32 {name} in L2 (1 MiB x 256):");
        for (nm, f) in [("naive", u_naive as fn(&[u32]) -> Vec<u32>), ("t2", u_tables::<2>), ("t4", u_tables::<4>), ("t4x16c256", u_chk16::<4, 256>)] {
            let t = Instant::now(); for _ in 0..256 { std::hint::black_box(f(std::hint::black_box(small))); } print!(" {nm}={:.2}", (256usize << 20) as f64 / t.elapsed().as_secs_f64() / 1e9);
        }
        println!();
        print!("u32 {name}:");
        let want = u_naive(d);
        time("naive", n, &want, &|| u_naive(d));
        time("runlen", n, &want, &|| u_runlen(d));
        time("t2", n, &want, &|| u_tables::<2>(d));
        time("t4", n, &want, &|| u_tables::<4>(d));
        time("t2c256", n, &want, &|| u_chk::<2, 256>(d));
        time("t4c256", n, &want, &|| u_chk::<4, 256>(d));
        time("t4x16c256", n, &want, &|| u_chk16::<4, 256>(d));
        time("t8x16c256", n, &want, &|| u_chk16::<8, 256>(d));
        time("REAL", n, &want, &|| real::value_counts(d, 4096)); time("REAL4000", n, &u_naive_b(d, 4000), &|| real::value_counts(d, 4000));
        println!();
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut ts = vec![1usize]; while ts.last().unwrap() * 2 <= cores { let x = ts.last().unwrap() * 2; ts.push(x); } if *ts.last().unwrap() != cores { ts.push(cores); }
    for (name, d) in &inputs {
        print!("u8 {name} threads:");
        for &th in &ts { let per = d.len().div_ceil(th);
            let g = time(&format!("t16c256x{th}"), n, &b_naive(d), &|| { let parts = threaded(th, &|i| b_tn_chk::<16, 256>(&d[(i*per).min(d.len())..((i+1)*per).min(d.len())])); let mut h = [0u32; 256]; for p in parts { for k in 0..256 { h[k] += p[k]; } } h }); let _ = g; }
        println!();
    }
    for (name, d) in &vin {
        print!("u32 {name} threads:");
        for &th in &ts { let per = d.len().div_ceil(th);
            time(&format!("t4c256x{th}"), n, &u_naive(d), &|| { let parts = threaded(th, &|i| u_chk::<4, 256>(&d[(i*per).min(d.len())..((i+1)*per).min(d.len())])); let mut h = vec![0u32; BINS]; for p in parts { for k in 0..BINS { h[k] += p[k]; } } h });
            time(&format!("t2c256x{th}"), n, &u_naive(d), &|| { let parts = threaded(th, &|i| u_chk::<2, 256>(&d[(i*per).min(d.len())..((i+1)*per).min(d.len())])); let mut h = vec![0u32; BINS]; for p in parts { for k in 0..BINS { h[k] += p[k]; } } h }); }
        println!();
    }
}
