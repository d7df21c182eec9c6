//! The CPU anchors of a reduction: the sum of `u32` (wrapping, as the chapter's kernels'
//! sum) and of `f32` on one core and on every core of the host, eight independent
//! accumulators per thread so that the adds pipeline and vectorise (the loop a compiler
//! makes of a plain `iter().sum()` is one dependent chain).

/// Elements a thread sums before it takes the next chunk.
pub const CHUNK: usize = 1 << 20;
/// Independent accumulators per thread.
pub const LANES: usize = 8;

/// The wrapping `u32` sum of `data` with [`LANES`] accumulators.
pub fn sum_u32(data: &[u32]) -> u32 {
    let mut acc = [0u32; LANES];
    let mut words = data.chunks_exact(LANES);
    for w in &mut words {
        for (a, &x) in acc.iter_mut().zip(w) {
            *a = a.wrapping_add(x);
        }
    }
    let tail = words
        .remainder()
        .iter()
        .fold(0u32, |s, &x| s.wrapping_add(x));
    acc.iter().fold(tail, |s, &a| s.wrapping_add(a))
}

/// The `f32` sum of `data` with [`LANES`] `f32` accumulators (each a sequential chain of
/// about `n / LANES` adds), added in `f64` at the end.
pub fn sum_f32(data: &[f32]) -> f64 {
    let mut acc = [0f32; LANES];
    let mut words = data.chunks_exact(LANES);
    for w in &mut words {
        for (a, &x) in acc.iter_mut().zip(w) {
            *a += x;
        }
    }
    let tail: f64 = words.remainder().iter().map(|&x| x as f64).sum();
    acc.iter().map(|&a| a as f64).sum::<f64>() + tail
}

/// `sum` of `data` on `threads` threads, chunk by chunk, the chunks' sums combined by
/// `add`.
pub fn threaded<T: Sync, S: Send + Default>(
    data: &[T],
    threads: usize,
    sum: impl Fn(&[T]) -> S + Sync,
    add: impl Fn(S, S) -> S + Sync + Copy,
) -> S {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let chunks: Vec<&[T]> = data.chunks(CHUNK).collect();
    let next = AtomicUsize::new(0);
    let work = || {
        let mut total = S::default();
        while let Some(chunk) = chunks.get(next.fetch_add(1, Ordering::Relaxed)) {
            total = add(total, sum(chunk));
        }
        total
    };
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads.clamp(1, chunks.len().max(1)))
            .map(|_| s.spawn(work))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .fold(S::default(), add)
    })
}

/// The CPU rows of a reduction: its name and the sum, on one thread and on `threads`.
pub type Row<'a, S> = (String, Box<dyn Fn() -> S + Sync + 'a>);

/// The `u32` rows: one thread, and `threads` when more than one.
pub fn rows_u32(data: &[u32], threads: usize) -> Vec<Row<'_, u32>> {
    let mut rows: Vec<Row<'_, u32>> = vec![("cpu 1 thread".into(), Box::new(|| sum_u32(data)))];
    if threads > 1 {
        rows.push((
            format!("cpu {threads} threads"),
            Box::new(move || threaded(data, threads, sum_u32, u32::wrapping_add)),
        ));
    }
    rows
}

/// The `f32` rows: one thread, and `threads` when more than one.
pub fn rows_f32(data: &[f32], threads: usize) -> Vec<Row<'_, f64>> {
    let mut rows: Vec<Row<'_, f64>> = vec![("cpu 1 thread".into(), Box::new(|| sum_f32(data)))];
    if threads > 1 {
        rows.push((
            format!("cpu {threads} threads"),
            Box::new(move || threaded(data, threads, sum_f32, |a, b| a + b)),
        ));
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sums_agree_with_a_plain_loop() {
        let values: Vec<u32> = (0..3 * CHUNK as u32 + 13)
            .map(|i| i.wrapping_mul(2_654_435_761))
            .collect();
        let want = values.iter().fold(0u32, |s, &x| s.wrapping_add(x));
        assert_eq!(sum_u32(&values), want);
        assert_eq!(
            sum_u32(&values[..5]),
            values[..5].iter().fold(0u32, |s, &x| s.wrapping_add(x))
        );
        for (name, f) in rows_u32(&values, 3) {
            assert_eq!(f(), want, "{name}");
        }
        let floats: Vec<f32> = (0..CHUNK + 7).map(|i| (i % 97) as f32 - 48.0).collect();
        let exact: f64 = floats.iter().map(|&x| x as f64).sum();
        for (name, f) in rows_f32(&floats, 4) {
            assert!((f() - exact).abs() < 1.0, "{name}: {} against {exact}", f());
        }
        assert_eq!(threaded::<u32, u32>(&[], 4, sum_u32, u32::wrapping_add), 0);
    }
}
