//! Chapter 10's progression as the shared command runs it ([`chapter::app`]):
//! `cargo run -p ch10` is [`Ch10`] and the chapter's options.

use crate::progression::{Extra, Params};
use chapter::app::Progression;
use chapter::cli::DeviceArg;

/// Chapter 10 for [`chapter::app`]: its steps, kernels, rows, table and trace.
pub struct Ch10;

impl Progression for Ch10 {
    // A trace's input: 512 elements in blocks of 64 (two warps, eight blocks for the trees),
    // and a grid of 2 for the grid-stride kernels: few enough warp steps to see each.
    const TRACE_DEFAULTS: &'static str = "--n 512 --block 64 --grid 2";
    chapter::conventional_progression!(Extra);
    const NAME: &'static str = "ch10";
    const ABOUT: &'static str = "Runs chapter 10's progression, from the sequential sum \
        and its naive race to a reduction at the read bandwidth, on the SIMT emulator, and \
        prints per kernel whether the sum is right and what the hardware did: divergent \
        steps, loads and sectors, bank conflicts, global atomics, barriers, shuffles.";
    const TRACE_HELP: &'static str = "Instead of the table: run one step (--step, default \
        10.6) on a small input with the emulator's trace on and draw its launch to \
        FILE.svg: which thread of which warp touched which word at each warp step. Your \
        kernels unless --kernels reference; --n, --block and --grid apply when given.";
    const AFTER_HELP: &'static str = "Examples:
  cargo run -p ch10                                  the whole progression, reference kernels
  cargo run -p ch10 -- --kernels student             your kernels; unsolved steps say \"not implemented\"
  cargo run -p ch10 -- --step 10.4 --step 10.6       divergence and bank conflicts of two trees
  cargo run -p ch10 -- --step 10.7 --coarsen 16      fewer blocks, fewer atomics
  cargo run -p ch10 -- --trace 10.6.svg --step 10.6  a picture of your tree
  cargo run -p ch10 --features cuda -- --device gpu  the progression on the GPU, in GB/s

Counters come from the emulator: a model of the hardware, not a GPU measurement.";

    fn check(p: &Params, _device: DeviceArg) -> Result<Params, String> {
        if !p.block.is_multiple_of(32) || !(32..=1024).contains(&p.block) {
            return Err(format!(
                "--block must be a multiple of 32 from 32 to 1024 (whole warps), got {}",
                p.block
            ));
        }
        if p.grid == Some(0) {
            return Err("--grid must be at least 1".into());
        }
        if p.coarsen == 0 {
            return Err("--coarsen must be at least 1".into());
        }
        if p.n > u32::MAX as usize / 4 {
            return Err(format!("--n must be below 2^30, got {}", p.n));
        }
        Ok(p.clone())
    }

    fn elements(params: &Params) -> u64 {
        params.n as u64
    }

    const LEGEND: &'static str = "counters are the emulator's model of the hardware \
        (diverg = divergent warp steps, ld = global load requests and sectors, bank.cf = \
        shared-memory bank conflicts, g.atom = global atomic lanes, shfl = warp collectives)";
    const GBPS: &'static str = "input bytes / time";
    // Its GPU bench comes from the course's bench crate (issue 48's first point), not yet.
    const HAS_BENCH: bool = false;

    fn describe(p: &Params) -> String {
        let grid = p.grid.map_or("from the device".into(), |g| g.to_string());
        format!(
            "n = {}, block {}, input {}, seed {}; grid-stride kernels' grid {grid}, 10.7 \
             coarsen {}",
            p.n,
            p.block,
            p.input.describe(),
            p.seed,
            p.coarsen
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
