//! The bench's inputs: 1 GiB (by default) of bytes or of `u32` values, generated fast and
//! reproducibly.
//!
//! Four kinds, each for both element types:
//!
//! | input | bytes (256 bins) | `u32` values (4096 bins) |
//! | --- | --- | --- |
//! | `uniform` | every byte equally likely | every bin equally likely |
//! | `one-value` | all zero | all zero |
//! | `90pct-one-value` | zero with probability 58982/65536 (90 %), else a uniform byte | the same with a uniform bin |
//! | `text` | a text file repeated to the size | the text's bytes widened to `u32` (values 0 to 255 of the 4096 bins), repeated |
//!
//! Random inputs are generated in 1 MiB chunks, each from its own seed of the course's
//! generator (`course::Rng`, ChaCha8; `seed` mixed with the chunk's number), on every
//! core: the same input on any machine and with any number of threads.

use course::Rng;

/// Bytes generated per chunk (each chunk has its own seed).
const CHUNK: usize = 1 << 20;

/// Out of 65536: the chance that an element of `90pct-one-value` is the one value (0.9).
pub const HOT_OF_65536: u32 = 58_982;

/// The kinds of input the bench measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Input {
    /// Every value equally likely: no contention, the case CUB is tuned for.
    Uniform,
    /// Every element the same (zero): the worst case for atomics on one address.
    OneValue,
    /// 90 % zeros, the rest uniform: a hot bin, as in a dark image.
    Skewed90,
    /// Real text, repeated: a handful of hot bins (space, e, t, a).
    Text,
}

impl Input {
    /// All four, in the order the bench runs them.
    pub const ALL: [Input; 4] = [
        Input::Uniform,
        Input::OneValue,
        Input::Skewed90,
        Input::Text,
    ];

    /// The name in tables, CSV and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Input::Uniform => "uniform",
            Input::OneValue => "one-value",
            Input::Skewed90 => "90pct-one-value",
            Input::Text => "text",
        }
    }

    /// The input called `name` (as [`name`](Self::name) spells it).
    pub fn from_name(name: &str) -> Option<Input> {
        Input::ALL.into_iter().find(|i| i.name() == name)
    }
}

/// The seed of chunk `c`: the bench's seed and the chunk number, mixed.
fn chunk_seed(seed: u64, c: usize) -> u64 {
    seed ^ (c as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// Fills `out` chunk by chunk on every core: `fill(chunk_number, chunk)`.
fn parallel_chunks<T: Send>(
    out: &mut [T],
    per_chunk: usize,
    fill: impl Fn(usize, &mut [T]) + Sync,
) {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunks: Vec<(usize, &mut [T])> = out.chunks_mut(per_chunk.max(1)).enumerate().collect();
    let per_thread = chunks.len().div_ceil(threads).max(1);
    let mut groups: Vec<Vec<(usize, &mut [T])>> = Vec::new();
    let mut it = chunks.into_iter().peekable();
    while it.peek().is_some() {
        groups.push(it.by_ref().take(per_thread).collect());
    }
    let fill = &fill;
    std::thread::scope(|s| {
        for group in groups {
            s.spawn(move || {
                for (c, chunk) in group {
                    fill(c, chunk);
                }
            });
        }
    });
}

/// The one value's zero, written for real: a zeroed allocation is the kernel's shared
/// zero page until written, so that reading it runs from the cache, and the CPU rows on
/// one value measured 37 GB/s on one core (`notes/cpu-histogram-2026-11-24.md`). Opaque
/// to the compiler, so that the fill is not dropped as a store of what is already there.
fn one_value_fill() -> u8 {
    std::hint::black_box(0)
}

/// `n` bytes of `input` (`text` is repeated or cut to `n`).
pub fn bytes(input: Input, n: usize, seed: u64, text: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8; n];
    match input {
        Input::OneValue => {
            parallel_chunks(&mut out, CHUNK, |_, chunk| chunk.fill(one_value_fill()))
        }
        Input::Text => repeat_into(text, &mut out),
        Input::Uniform => parallel_chunks(&mut out, CHUNK, |c, chunk| {
            let mut rng = Rng::new(chunk_seed(seed, c));
            for word in chunk.chunks_mut(8) {
                let r = rng.next_u64().to_le_bytes();
                word.copy_from_slice(&r[..word.len()]);
            }
        }),
        Input::Skewed90 => parallel_chunks(&mut out, CHUNK, |c, chunk| {
            let mut rng = Rng::new(chunk_seed(seed, c));
            // Two bytes per draw: 16 bits decide hot or not, 8 more give the byte.
            for pair in chunk.chunks_mut(2) {
                let r = rng.next_u64();
                for (k, b) in pair.iter_mut().enumerate() {
                    let part = (r >> (32 * k)) as u32;
                    *b = if part & 0xffff < HOT_OF_65536 {
                        0
                    } else {
                        (part >> 16) as u8
                    };
                }
            }
        }),
    }
    out
}

/// `n` values of `input` for a histogram of `bins` bins (at most 65536), all of them
/// bins; `text` is the text's bytes widened.
pub fn values(input: Input, n: usize, bins: u32, seed: u64, text: &[u8]) -> Vec<u32> {
    let bins = bins.clamp(1, 1 << 16) as u64;
    // A uniform bin from 16 random bits (exact for powers of two, nearly so otherwise).
    let bin = move |r16: u64| (((r16 & 0xffff) * bins) >> 16) as u32;
    let mut out = vec![0u32; n];
    match input {
        Input::OneValue => parallel_chunks(&mut out, CHUNK / 4, |_, chunk| {
            chunk.fill(one_value_fill().into())
        }),
        Input::Text => {
            let mut widened = vec![0u8; n];
            repeat_into(text, &mut widened);
            parallel_chunks(&mut out, CHUNK / 4, |c, chunk| {
                let start = c * (CHUNK / 4);
                for (v, &b) in chunk.iter_mut().zip(&widened[start..]) {
                    *v = b as u32;
                }
            });
        }
        Input::Uniform => parallel_chunks(&mut out, CHUNK / 4, |c, chunk| {
            let mut rng = Rng::new(chunk_seed(seed, c));
            for quad in chunk.chunks_mut(4) {
                let r = rng.next_u64();
                for (k, v) in quad.iter_mut().enumerate() {
                    *v = bin(r >> (16 * k));
                }
            }
        }),
        Input::Skewed90 => parallel_chunks(&mut out, CHUNK / 4, |c, chunk| {
            let mut rng = Rng::new(chunk_seed(seed, c));
            for pair in chunk.chunks_mut(2) {
                let r = rng.next_u64();
                for (k, v) in pair.iter_mut().enumerate() {
                    let part = r >> (32 * k);
                    *v = if (part & 0xffff) < HOT_OF_65536 as u64 {
                        0
                    } else {
                        bin(part >> 16)
                    };
                }
            }
        }),
    }
    out
}

/// Fills `out` with `text` repeated (zeros for an empty text).
fn repeat_into(text: &[u8], out: &mut [u8]) {
    if text.is_empty() {
        return;
    }
    let mut filled = 0;
    while filled < out.len() {
        let take = text.len().min(out.len() - filled);
        out[filled..filled + take].copy_from_slice(&text[..take]);
        filled += take;
    }
}

/// 64-bit FNV-1a of `bytes`: names a text input in the results (which text, exactly).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    gpu_host::fnv::hash(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_are_reproducible_and_shaped() {
        let n = 3 * CHUNK + 5;
        let u = bytes(Input::Uniform, n, 1, b"");
        assert_eq!(u, bytes(Input::Uniform, n, 1, b""));
        assert_ne!(u, bytes(Input::Uniform, n, 2, b""));
        let mut seen = [0u64; 256];
        for &b in &u {
            seen[b as usize] += 1;
        }
        let mean = n as u64 / 256;
        assert!(
            seen.iter()
                .all(|&c| c > mean * 9 / 10 && c < mean * 11 / 10)
        );
        assert!(bytes(Input::OneValue, 100, 1, b"").iter().all(|&b| b == 0));
        let s = bytes(Input::Skewed90, n, 1, b"");
        let zeros = s.iter().filter(|&&b| b == 0).count() as f64 / n as f64;
        assert!((0.895..0.905).contains(&zeros), "{zeros}");
        assert_eq!(bytes(Input::Text, 7, 1, b"abc"), b"abcabca");
        let v = values(Input::Uniform, n, 4096, 3, b"");
        assert!(v.iter().all(|&x| x < 4096));
        assert_eq!(v, values(Input::Uniform, n, 4096, 3, b""));
        let sv = values(Input::Skewed90, n, 4096, 3, b"");
        let zeros = sv.iter().filter(|&&x| x == 0).count() as f64 / n as f64;
        assert!((0.895..0.905).contains(&zeros), "{zeros}");
        assert_eq!(values(Input::Text, 4, 4096, 0, b"ab"), [97, 98, 97, 98]);
        let long_text: Vec<u8> = (0..CHUNK as u32 + 7).map(|i| (i % 251) as u8).collect();
        let t = values(Input::Text, 2 * CHUNK, 4096, 0, &long_text);
        assert!(
            t.iter()
                .enumerate()
                .all(|(i, &x)| x == (i % long_text.len()) as u32 % 251)
        );
        for i in Input::ALL {
            assert_eq!(Input::from_name(i.name()), Some(i));
        }
    }
}
