//! The byte histogram with AVX-512: the CPU anchor at the speed SIMD gives one core.
//!
//! A scalar byte histogram is a chain of loads and stores to counters (at best about one
//! byte per cycle with several tables, [`super::cpu`]'s `byte_values`). This one counts
//! without touching a counter per byte, in two passes over each 4 KiB chunk:
//!
//! 1. **Binning.** Each 64-byte vector is split by its bytes' two top bits into four
//!    groups (`VPCOMPRESSB` of the bytes whose top bits are 00, 01, 10, 11), and each
//!    group's low six bits are appended to that group's buffer. A group then has only 64
//!    values.
//! 2. **Positional popcount.** A value `v` of a group becomes the 64-bit word `1 << v`
//!    (`VPMOVZXBQ`, `VPSLLVQ`: eight values per vector). Summing such words bit by bit
//!    counts the values: bit `v` of the sum-by-columns is how often `v` occurred. The words
//!    go through a carry-save adder tree (Harley and Seal's, `VPTERNLOGQ`) sixteen vectors
//!    at a time, so that only one vector in sixteen has its columns counted: by gathering
//!    byte `j` of its eight words into word `j` (`VPERMB`), transposing each word's 8x8
//!    bits (`GF2P8AFFINEQB`) and counting each byte's bits (`VPOPCNTB`), which leaves the
//!    count of column `8j + i` in byte `8j + i`.
//!
//! The idea is Harold Aptroot's (bitmath.blogspot.com, "Histogramming bytes with
//! positional popcount (GF2P8AFFINEQB edition)", 2024-11-10), from Wojciech Muła's and
//! Lemire's positional popcounts; this code is the course's own. It needs AVX-512 F, BW,
//! VBMI, VBMI2, BITALG and GFNI, which [`available`] asks the CPU for at run time.

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// Bytes binned per pass: each group's buffer holds at most this many values. The four
/// buffers and the chunk fit a 48 KiB L1 cache.
const CHUNK: usize = 8192;

/// Room after a group's values: a whole vector stored past them, and the padding to a
/// whole number of 128-value steps.
const SLACK: usize = 128;

/// The padding value: `1 << 255` is 0 in `VPSLLVQ` (a shift past 63 gives 0), so it
/// counts nowhere.
const NO_VALUE: u8 = 0xff;

/// Whether this CPU has every instruction [`byte_values`] uses.
pub fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vbmi")
            && std::arch::is_x86_feature_detected!("avx512vbmi2")
            && std::arch::is_x86_feature_detected!("avx512bitalg")
            && std::arch::is_x86_feature_detected!("gfni")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// How many bytes of `data` hold each of the 256 values, or `None` when the CPU lacks
/// the instructions ([`available`]).
pub fn byte_values(data: &[u8]) -> Option<[u32; 256]> {
    #[cfg(target_arch = "x86_64")]
    if available() {
        // SAFETY: `available` checked every target feature the function enables.
        return Some(unsafe { byte_values_avx512(data) });
    }
    let _ = data;
    None
}

/// See the module's docs.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,avx512bitalg,gfni")]
fn byte_values_avx512(data: &[u8]) -> [u32; 256] {
    let mut counts = [0u32; 256];
    // Four group buffers, each with room after its values ([`SLACK`]).
    let mut buffers = vec![0u8; 4 * (CHUNK + SLACK)];
    let mut chunks = data.chunks_exact(CHUNK);
    for chunk in &mut chunks {
        count_chunk(chunk, &mut buffers, &mut counts);
    }
    let rest = chunks.remainder();
    let whole = rest.len() / 64 * 64;
    if whole > 0 {
        count_chunk(&rest[..whole], &mut buffers, &mut counts);
    }
    for &b in &rest[whole..] {
        counts[b as usize] += 1;
    }
    counts
}

/// Bins `chunk` (a whole number of 64-byte vectors, at most [`CHUNK`] bytes) into the
/// four group buffers and counts each group into `counts[64 * group ..]`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,avx512bitalg,gfni")]
fn count_chunk(chunk: &[u8], buffers: &mut [u8], counts: &mut [u32; 256]) {
    debug_assert!(chunk.len().is_multiple_of(64) && chunk.len() <= CHUNK);
    let stride = CHUNK + SLACK;
    let (b0, rest) = buffers.split_at_mut(stride);
    let (b1, rest) = rest.split_at_mut(stride);
    let (b2, b3) = rest.split_at_mut(stride);
    // Four lengths as four variables, not an array (which the compiler kept in a vector
    // register and extracted from at every store).
    let (mut l0, mut l1, mut l2, mut l3) = (0usize, 0usize, 0usize, 0usize);
    let low = _mm512_set1_epi8(0x3f);
    let bit6 = _mm512_set1_epi8(0x40);
    // Appends the bytes of `values` that `mask` selects to `buf` at `len`: a whole vector
    // stored there, what follows them overwritten by the next store or by the padding.
    let append = |buf: &mut [u8], len: &mut usize, mask: __mmask64, values: __m512i| {
        let packed = _mm512_maskz_compress_epi8(mask, values);
        let out = &mut buf[*len..*len + 64];
        // SAFETY: `out` is 64 writable bytes; an unaligned store.
        unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), packed) };
        *len += mask.count_ones() as usize;
    };
    for v in chunk.chunks_exact(64) {
        // SAFETY: `v` is 64 readable bytes; an unaligned load.
        let x = unsafe { _mm512_loadu_si512(v.as_ptr().cast()) };
        // 64 equal bytes (a run, or one-value input) are one add, as the scalar code
        // counts a block of one value; on varied data the branch is never taken, and
        // predicted so.
        if _mm512_cmpneq_epi8_mask(x, _mm512_set1_epi8(v[0] as i8)) == 0 {
            counts[v[0] as usize] += 64;
            continue;
        }
        let top = _mm512_movepi8_mask(x);
        let six = _mm512_test_epi8_mask(x, bit6);
        let values = _mm512_and_si512(x, low);
        append(b0, &mut l0, !top & !six, values);
        append(b1, &mut l1, !top & six, values);
        append(b2, &mut l2, top & !six, values);
        append(b3, &mut l3, top & six, values);
    }
    let pad = _mm512_set1_epi8(NO_VALUE as i8);
    for (g, (buf, len)) in [(b0, l0), (b1, l1), (b2, l2), (b3, l3)]
        .into_iter()
        .enumerate()
    {
        if len == 0 {
            continue;
        }
        // Padded to whole steps of 128 values with values that count nowhere.
        let padded = len.next_multiple_of(128);
        for at in (len..padded).step_by(64) {
            let out = &mut buf[at..at + 64];
            // SAFETY: `out` is 64 writable bytes; an unaligned store.
            unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), pad) };
        }
        let into: &mut [u32; 64] = (&mut counts[64 * g..64 * (g + 1)])
            .try_into()
            .expect("a group's 64 counters");
        count_group(&buf[..padded], into);
    }
}

/// The count of column `k` of the eight 64-bit words of `words`, in byte `k` (0 to 8).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512bitalg,gfni")]
fn column_counts(words: __m512i) -> __m512i {
    // Byte `8j + i` of the gathered vector is byte `j` of word `i`: word `j` is the 8x8
    // bit matrix whose row `i` is byte `j` of word `i`.
    let gather = _mm512_set_epi8(
        63, 55, 47, 39, 31, 23, 15, 7, 62, 54, 46, 38, 30, 22, 14, 6, 61, 53, 45, 37, 29, 21, 13,
        5, 60, 52, 44, 36, 28, 20, 12, 4, 59, 51, 43, 35, 27, 19, 11, 3, 58, 50, 42, 34, 26, 18,
        10, 2, 57, 49, 41, 33, 25, 17, 9, 1, 56, 48, 40, 32, 24, 16, 8, 0,
    );
    let rows = _mm512_permutexvar_epi8(gather, words);
    // GF2P8AFFINEQB of the bytes 1 << c with each word as its matrix: byte `c` of the
    // result holds column `c` of that word's matrix (one bit per row, in some order).
    let units = _mm512_set1_epi64(0x8040_2010_0804_0201_u64 as i64);
    let columns = _mm512_gf2p8affine_epi64_epi8::<0>(units, rows);
    _mm512_popcnt_epi8(columns)
}

/// Adds the 64 byte counts of `v` times `weight` to `into`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn add_bytes(into: &mut [u32; 64], v: __m512i, weight: u32) {
    let mut bytes = [0u8; 64];
    // SAFETY: `bytes` is 64 writable bytes; an unaligned store.
    unsafe { _mm512_storeu_si512(bytes.as_mut_ptr().cast(), v) };
    for (c, &b) in into.iter_mut().zip(&bytes) {
        *c += weight * b as u32;
    }
}

/// One carry-save adder of three vectors: `(carry, sum)` bit by bit.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn csa(a: __m512i, b: __m512i, c: __m512i) -> (__m512i, __m512i) {
    // 0xe8: the majority of the three bits; 0x96: their XOR.
    (
        _mm512_ternarylogic_epi64::<0xe8>(a, b, c),
        _mm512_ternarylogic_epi64::<0x96>(a, b, c),
    )
}

/// Counts the values of `group` into `into`: each value below 64 in its counter, the
/// padding ([`NO_VALUE`]) nowhere. `group` is a whole number of 128-value steps.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512bitalg,gfni")]
fn count_group(group: &[u8], into: &mut [u32; 64]) {
    let one = _mm512_set1_epi64(1);
    // Eight values, as eight words `1 << v`.
    let onehot = |eight: &[u8]| -> __m512i {
        // SAFETY: `eight` is 8 readable bytes; an unaligned 8-byte load.
        let b = unsafe { _mm_loadl_epi64(eight.as_ptr().cast()) };
        _mm512_sllv_epi64(one, _mm512_cvtepu8_epi64(b))
    };
    let zero = _mm512_setzero_si512();
    let (mut ones, mut twos, mut fours, mut eights) = (zero, zero, zero, zero);
    // Column counts of the sixteens, added up as bytes: at most 8 per step, so 31 steps
    // fit a byte before they are added into `into`.
    let mut sixteens = zero;
    let mut steps = 0;
    let mut blocks = group.chunks_exact(128);
    for block in &mut blocks {
        let v = |k: usize| onehot(&block[8 * k..8 * k + 8]);
        let (twos_a, o) = csa(ones, v(0), v(1));
        let (twos_b, o) = csa(o, v(2), v(3));
        let (fours_a, t) = csa(twos, twos_a, twos_b);
        let (twos_a, o) = csa(o, v(4), v(5));
        let (twos_b, o) = csa(o, v(6), v(7));
        let (fours_b, t) = csa(t, twos_a, twos_b);
        let (eights_a, f) = csa(fours, fours_a, fours_b);
        let (twos_a, o) = csa(o, v(8), v(9));
        let (twos_b, o) = csa(o, v(10), v(11));
        let (fours_a, t) = csa(t, twos_a, twos_b);
        let (twos_a, o) = csa(o, v(12), v(13));
        let (twos_b, o) = csa(o, v(14), v(15));
        let (fours_b, t) = csa(t, twos_a, twos_b);
        let (eights_b, f) = csa(f, fours_a, fours_b);
        let (sixteen, e) = csa(eights, eights_a, eights_b);
        (ones, twos, fours, eights) = (o, t, f, e);
        sixteens = _mm512_add_epi8(sixteens, column_counts(sixteen));
        steps += 1;
        if steps == 31 {
            add_bytes(into, sixteens, 16);
            sixteens = zero;
            steps = 0;
        }
    }
    debug_assert!(
        blocks.remainder().is_empty(),
        "a group is padded to whole steps"
    );
    add_bytes(into, sixteens, 16);
    add_bytes(into, column_counts(eights), 8);
    add_bytes(into, column_counts(fours), 4);
    add_bytes(into, column_counts(twos), 2);
    add_bytes(into, column_counts(ones), 1);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference(data: &[u8]) -> [u32; 256] {
        let mut h = [0u32; 256];
        for &b in data {
            h[b as usize] += 1;
        }
        h
    }

    /// Every length from 0 to a few chunks (partial vectors, partial steps of 128, a
    /// tail of bytes), on random, one-value, two-value and text input, against the loop.
    #[test]
    fn the_simd_histogram_counts_as_the_loop_does() {
        if !available() {
            eprintln!("this CPU lacks AVX-512 VBMI2/BITALG/GFNI: nothing to test here");
            assert!(byte_values(&[1, 2, 3]).is_none());
            return;
        }
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        let random: Vec<u8> = (0..3 * CHUNK + 777).map(|_| next() as u8).collect();
        let text: Vec<u8> = b"Programming Massively Parallel Processors, chapter 9. "
            .iter()
            .cycle()
            .take(2 * CHUNK + 5)
            .copied()
            .collect();
        let two: Vec<u8> = (0..CHUNK + 100)
            .map(|i| if i % 3 == 0 { 0xff } else { 0 })
            .collect();
        let one = vec![0x41u8; 3 * CHUNK + 1];
        for input in [&random, &text, &two, &one] {
            for len in (0..200).chain([1023, 1024, 4095, 4096, 4097, 8191, input.len()]) {
                let len = len.min(input.len());
                let got = byte_values(&input[..len]).expect("available");
                assert_eq!(got, reference(&input[..len]), "length {len}");
            }
        }
        // More than 31 steps of 128 values in one group (the byte accumulator's flush),
        // and counts past 255 in one column: two values of one group, never 64 equal
        // bytes in a row (which the run check would count at once).
        let long: Vec<u8> = (0..3 * CHUNK + 3).map(|i| 7 + (i % 2) as u8).collect();
        assert_eq!(byte_values(&long).unwrap(), reference(&long));
    }
}
