//! Chapter 5's progression as the shared command runs it ([`chapter::app`]):
//! `cargo run -p ch05` is [`Ch05`] and the chapter's options.

use crate::progression::{Launch, Params};
use chapter::app::Progression;
use chapter::cli::DeviceArg;

/// Chapter 5 for [`chapter::app`]: its steps, kernels, rows, table and trace.
pub struct Ch05;

impl Progression for Ch05 {
    // The options' values a trace takes unless the student gives them: 1024 elements (a few
    // blocks of warps, few enough that every warp step stays a visible column), 64 threads a
    // block (two warps, so that the warps of one block can be told apart), a grid of 4
    // blocks for 5.3, 4 words per thread for 5.6.
    const TRACE_DEFAULTS: &'static str = "--n 1024 --block 64 --grid 4 --words-per-thread 4";
    chapter::conventional_progression!(Launch);
    const NAME: &'static str = "ch05";
    const ABOUT: &'static str = "Runs chapter 5's progression, from a loop turned into a \
        kernel to four histogram kernels, on the SIMT emulator, and prints per kernel whether \
        the output is right and what the hardware did: warp instructions, SIMT efficiency \
        (active lanes per warp instruction), divergent steps, global requests and sectors, \
        atomics, barriers.";
    const TRACE_HELP: &'static str = "Instead of the table: run one step (--step, default \
        5.3) on a small input with the emulator's trace on and draw its launch to FILE.svg: \
        which thread of which warp touched which element at each warp step, and the atomic \
        contention per bin. Your kernels unless --kernels reference; --n, --block, --grid \
        and --words-per-thread apply when given.";
    const AFTER_HELP: &'static str = "Examples:
  cargo run -p ch05                                  the whole progression, reference kernels
  cargo run -p ch05 -- --kernels student             your kernels; unsolved steps say \"not implemented\"
  cargo run -p ch05 -- --step 5.4                    divergent vs warp-uniform branches
  cargo run -p ch05 -- --step 5.3 --grid 4           a grid-stride loop on four blocks
  cargo run -p ch05 -- --step 5.6 --words-per-thread 32   fewer blocks, fewer commits
  cargo run -p ch05 -- --trace 5.2.svg --step 5.2    a picture of your 5.2: who wrote which element
  cargo run -p ch05 --features cuda -- --device gpu  the progression on the GPU, in GB/s
  cargo run -p ch05 --release --features cuda -- bench   blocks per SM, the four histograms (bench --help)

Counters come from the emulator: a model of the hardware, not a GPU measurement.";

    fn check(p: &Params, _device: DeviceArg) -> Result<Params, String> {
        if p.block == 0 || p.block > 1024 {
            return Err(format!("--block must be 1 to 1024, got {}", p.block));
        }
        if p.grid == Some(0) {
            return Err("--grid must be at least 1".into());
        }
        if p.n > u32::MAX as usize / 4 {
            return Err(format!("--n must be below 2^30, got {}", p.n));
        }
        if p.words_per_thread == 0 {
            return Err("--words-per-thread must be at least 1".into());
        }
        Ok(p.clone())
    }

    fn elements(params: &Params) -> u64 {
        params.n as u64
    }

    const LEGEND: &'static str = "counters are the emulator's model of the hardware \
        (simt.eff = active lanes per warp instruction, diverg = divergent steps, ld/st = \
        global load/store requests and sectors)";
    const GBPS: &'static str = "bytes moved / time";

    fn describe(p: &Params) -> String {
        let (n, block, seed, words) = (p.n, p.block, p.seed, p.words_per_thread);
        let grid = p
            .grid
            .map_or("stride_grid of the SMs".into(), |g| g.to_string());
        let input = p.input.describe();
        format!(
            "n = {n}, block {block}, input {input}, seed {seed}\n5.3 grid {grid}, 5.6 words per \
             thread {words}"
        )
    }

    fn rehearsal_params(params: &Params) -> Params {
        Params {
            n: params.n.min(2048),
            grid: None,
            ..params.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::Kernels;
    use crate::kernels::stand_ins::{unsolved_histo_n, unsolved_mul};
    use chapter::check_tests::assert_stubs_stay_off_the_gpu;

    /// The rehearsal keeps 5.3's and 5.6's stubs off the GPU, and says why.
    #[test]
    fn stubs_are_not_launched_on_the_gpu() {
        let unsolved = Kernels {
            mul_grid_stride: unsolved_mul::KERNEL,
            histo_shared_n: unsolved_histo_n::KERNEL,
            ..crate::kernels::REFERENCE
        };
        let params = chapter::app::defaults_with::<Params>("--n 1048576");
        let stubbed = ["mul_grid_stride", "histo_shared_n (N = 8)"];
        assert_stubs_stay_off_the_gpu::<Ch05>(&unsolved, &params, &["5.3", "5.6"], &stubbed);
    }
}
