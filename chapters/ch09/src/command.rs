//! Chapter 9's progression as the shared command runs it ([`chapter::app`]):
//! `cargo run -p ch09` is [`Ch09`] and the chapter's options.

use crate::inputs::InputKind;
use crate::progression::{Bins, Params};
use chapter::app::Progression;
use chapter::cli::DeviceArg;

/// Chapter 9 for [`chapter::app`]: its steps, kernels, rows, table and trace.
pub struct Ch09;

/// Most elements a run may ask for: the emulator runs every lane (about 10-30 million
/// lane operations a second), so more would take minutes per step.
pub const MAX_N: usize = 1 << 26;

/// Most elements a GPU run may ask for: 1 Gi (the RGB step reads three bytes per
/// element, and a buffer holds at most 2^32 - 1).
pub const MAX_GPU_N: usize = 1 << 30;

/// The elements a GPU run counts when `--n` is not given: 64 Mi, enough for the launches
/// to take longer than their overhead.
pub const DEFAULT_GPU_N: usize = 1 << 26;

/// The elements of a rehearsal on the emulator, before a student's step goes to a GPU.
const REHEARSAL_N: usize = 2048;

impl Progression for Ch09 {
    // The options' values a trace takes unless the student gives them: 2048 elements (enough
    // for several blocks and warps, few enough that every warp step stays a visible column),
    // 32 bins (so a hot bin shows), 64 threads a block (two warps, so warps of one block can
    // be told apart), coarsening 4.
    const TRACE_DEFAULTS: &'static str = "--n 2048 --bins 32 --block 64 --coarsen 4";
    chapter::conventional_progression!(Bins);
    const NAME: &'static str = "ch09";
    const ABOUT: &'static str = "Runs chapter 9's progression, from the naive kernel to the fastest, on the SIMT emulator, and prints per step whether the bins are right and what the step asks of the memory system: global and shared atomics, the worst serialization on one bin, global sectors, bank conflicts, divergent steps.";
    const TRACE_HELP: &'static str = "Instead of the table: run one step (--step, default \
        9.3) once on the emulator with tracing on and write FILE.svg, a picture of which \
        thread of which warp touched which element or bin at each warp step, and a heatmap \
        of atomic contention per bin and step. Runs your kernels unless --kernels \
        reference; the input is small (2048 elements, 32 bins, 64 threads a block) unless \
        --n, --bins or --block say otherwise.";
    const AFTER_HELP: &'static str = "Examples:
  cargo run -p ch09                                  the whole progression, reference kernels
  cargo run -p ch09 -- --kernels student             your kernels; unsolved steps say \"not implemented\"
  cargo run -p ch09 -- --step 9.6 --coarsen 16       contiguous vs interleaved loads
  cargo run -p ch09 -- --input skew:90 --step 9.7    aggregation on a hot bin
  cargo run -p ch09 -- --step 9.7 --columns step,kernel,s.atomics,at.conf   only those columns
  cargo run -p ch09 -- --step 9.16 --bins 4096       the three strategies at 4096 bins
  cargo run -p ch09 -- --trace 9.5.svg --step 9.5    a picture of your 9.5: accesses, contention
  cargo run -p ch09 -- verify --step 9.5 --kernels student   check yours by decrementing every bin
  cargo run -p ch09 -- constant                      a table of bins in constant memory
  cargo run -p ch09 -- streams                       two halves on one stream and on two
  cargo run -p ch09 --features cuda -- --device gpu  the progression on the GPU, in GB/s
  cargo run -p ch09 --release --features cuda -- bench   the GPU benchmark (bench --help)

Counters come from the emulator: a model of the hardware, not a GPU measurement.";

    fn check(p: &Params, device: DeviceArg) -> Result<Params, String> {
        match (p.n, device) {
            (Some(n), DeviceArg::Emulator) if n > MAX_N => {
                return Err(format!(
                    "--n {n} is more than the emulator runs in reasonable time (at most {MAX_N}; \
                     a GPU takes up to {MAX_GPU_N} with --device gpu)"
                ));
            }
            (Some(n), DeviceArg::Gpu) if n > MAX_GPU_N => {
                return Err(format!(
                    "--n {n} is more than a GPU run takes (at most {MAX_GPU_N})"
                ));
            }
            _ => {}
        }
        if p.bins == 0 || p.bins > 1 << 20 {
            return Err(format!(
                "--bins must be between 1 and {}, got {}",
                1 << 20,
                p.bins
            ));
        }
        if p.block == 0 || p.block > 1024 || !p.block.is_multiple_of(32) {
            return Err(format!(
                "--block must be a multiple of 32 (whole warps) between 32 and 1024, got {}",
                p.block
            ));
        }
        if p.grid == Some(0) {
            return Err("--grid must be at least 1".into());
        }
        if p.coarsen == 0 {
            return Err("--coarsen must be at least 1".into());
        }
        let n = match (p.n, device, &p.input) {
            (None, DeviceArg::Gpu, InputKind::Uniform | InputKind::Zeros | InputKind::Skew(_)) => {
                Some(DEFAULT_GPU_N)
            }
            (n, _, _) => n,
        };
        Ok(Params { n, ..p.clone() })
    }

    fn elements(params: &Params) -> u64 {
        params.elements() as u64
    }

    const LEGEND: &'static str = "counters are the emulator's model of the hardware \
        (g. = global, s. = shared, worst.ser = most lanes of one atomic on one address)";
    const GBPS: &'static str = "input bytes / time";

    fn describe(p: &Params) -> String {
        let shape = match p.grid {
            Some(g) => format!("block {}, grid {g}", p.block),
            None => format!("block {}, grid from the device", p.block),
        };
        format!(
            "input {}, n = {}, {} bins, seed {}\n{shape}, coarsening {}",
            p.input.describe(),
            p.elements(),
            p.bins,
            p.seed,
            p.coarsen
        )
    }

    fn rehearsal_params(params: &Params) -> Params {
        Params {
            n: Some(REHEARSAL_N),
            input: match &params.input {
                InputKind::Text(t) => {
                    InputKind::Text(t.iter().copied().take(REHEARSAL_N).collect())
                }
                other => other.clone(),
            },
            grid: None,
            ..params.clone()
        }
    }
}
