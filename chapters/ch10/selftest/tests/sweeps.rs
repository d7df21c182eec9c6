//! Long sweeps of the chapter's thresholds (ignored by `cargo test`; `.ci/run` runs them
//! with `--include-ignored`): what the checks assume of the reference kernels holds at
//! every block size and on many inputs, not only at the few the student's checks run.

use ch10::kernels::REFERENCE;
use ch10::{inputs, launch, reference};
use gpu_host::Device;

/// Every power-of-two block from 64 to 1024: the trees whose busy threads come first
/// stay within [`ch10::checks::QUIET_DIVERGENCE`] divergent steps a block, the
/// interleaved one exceeds it; sequential addressing has no bank conflict, the strided
/// index has some.
#[test]
#[ignore = "long (every block size): .ci/run runs it with --include-ignored"]
fn the_divergence_bound_tells_the_trees_apart_at_every_block_size() {
    let mut dev = Device::emulator();
    let k = &REFERENCE;
    for shift in 6..=10 {
        let block = 1u32 << shift;
        let n = 3 * block as usize + 5;
        let data = inputs::uniform(n, 1000, shift as u64);
        let grid = launch::one_per_thread(n, block);
        let quiet = ch10::checks::QUIET_DIVERGENCE * grid as u64;
        let run = |dev: &mut Device, kernel| {
            let run = launch::sum_u32(dev, kernel, &data, grid, block).expect("launch");
            assert_eq!(run.out, [reference::sum_u32(&data)], "block {block}");
            *run.report.counters().expect("emulated")
        };
        let c = run(&mut dev, &k.sum_tree_interleaved);
        assert!(
            c.divergent_steps > quiet,
            "interleaved, block {block}: {c:?}"
        );
        let c = run(&mut dev, &k.sum_tree_strided_index);
        assert!(c.divergent_steps <= quiet, "strided, block {block}: {c:?}");
        assert!(c.bank_conflicts > 0, "strided, block {block}");
        let c = run(&mut dev, &k.sum_tree_sequential);
        assert!(
            c.divergent_steps <= quiet,
            "sequential, block {block}: {c:?}"
        );
        assert_eq!(c.bank_conflicts, 0, "sequential, block {block}");
    }
}

/// 10.9's `f32` sum stays within the bound of its order on many inputs and shapes, a
/// bound smaller than the sequential order's (within which the sequential sum stays).
#[test]
#[ignore = "long (many inputs): .ci/run runs it with --include-ignored"]
fn the_fastest_f32_sum_stays_within_its_bound() {
    let mut dev = Device::emulator();
    for seed in 0..16u64 {
        for n in [1000usize, 4099, 20011, 100_003] {
            for (grid, block) in [(2u32, 64u32), (5, 256)] {
                let data = inputs::f32_uniform(n, 1000.0, seed);
                let (exact, mass) = reference::sum_f64(&data);
                let bound = reference::f32_bound(reference::fastest_depth(n, grid, block), mass);
                let run = launch::sum_f32(&mut dev, &REFERENCE.sum_fastest_f32, &data, grid, block)
                    .expect("launch");
                let err = (run.out[0] as f64 - exact).abs();
                assert!(
                    err <= bound,
                    "seed {seed}, n {n}, <<<{grid}, {block}>>>: {err} > {bound}"
                );
                // The kernel's order is far shallower than the sequential one: its bound is
                // the smaller, and the sequential sum itself stays within its own.
                let seq = data.iter().fold(0.0f32, |a, &x| a + x) as f64;
                let seq_bound = reference::f32_bound(reference::sequential_depth(n), mass);
                assert!(bound < seq_bound, "n {n}: {bound} against {seq_bound}");
                assert!(
                    (seq - exact).abs() <= seq_bound,
                    "seed {seed}, n {n}: sequential"
                );
            }
        }
    }
}
