//! What the order of f32 additions does to a sum (the book's 10.1): the same values added
//! one after another (a CPU loop) and as a tree of pairs (a reduction's order), against
//! the sum in f64. Run: `rustc -O float_order.rs && ./float_order`.

/// A sequential sum, left to right.
fn sequential(v: &[f32]) -> f32 {
    let mut s = 0.0f32;
    for &x in v {
        s += x;
    }
    s
}

/// A tree of pairs, as a block's stride-halving tree adds them.
fn tree(v: &[f32]) -> f32 {
    let mut w = v.to_vec();
    while w.len() > 1 {
        if w.len() % 2 == 1 {
            w.push(0.0);
        }
        let half = w.len() / 2;
        for i in 0..half {
            w[i] += w[i + half];
        }
        w.truncate(half);
    }
    w.first().copied().unwrap_or(0.0)
}

fn main() {
    let ones = vec![1.0f32; 1 << 25];
    println!("2^25 ones: sequential {}, tree {}, exact {}", sequential(&ones), tree(&ones), 1u64 << 25);
    // Uniform values in [0, 1) from a fixed xorshift, 2^24 of them.
    let mut x = 0x9e3779b97f4a7c15u64;
    let v: Vec<f32> = (0..1 << 24)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 40) as f32 / (1u64 << 24) as f32
        })
        .collect();
    let exact: f64 = v.iter().map(|&a| a as f64).sum();
    let (s, t) = (sequential(&v), tree(&v));
    println!(
        "2^24 uniform [0,1): f64 {exact:.1}, sequential {s:.1} (rel. error {:.2e}), tree {t:.1} (rel. error {:.2e})",
        ((s as f64 - exact) / exact).abs(),
        ((t as f64 - exact) / exact).abs()
    );
    let mut r = v.clone();
    r.reverse();
    println!("same values reversed, sequential: {:.1}", sequential(&r));
}
