//! The command line of `cargo run -p ch05`: the same contract as chapter 9's
//! (`--kernels`, `--device`, `--step`, `--json`, `bench`), with this chapter's knobs.

use ch05::bench::Options;
use ch05::progression::{DEFAULT_N, Params, STEPS};
// `--device`, printing, `--trace`, the table or JSON and the end of `bench` are the
// same in every chapter: `cli::DeviceArg`, `cli::print`, ... are `chapter::cli`'s.
pub use chapter::cli::*;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// Runs chapter 5's progression, from a loop turned into a kernel to four histogram
/// kernels, on the SIMT emulator, and prints per kernel whether the output is right and
/// what the hardware did: warp instructions, SIMT efficiency (active lanes per warp
/// instruction), divergent steps, global requests and sectors, atomics, barriers.
#[derive(Debug, Parser)]
#[command(
    name = "ch05",
    version,
    about,
    long_about = None,
    after_help = AFTER_HELP,
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    /// Instead of the progression: the GPU benchmark.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Where to run: the SIMT emulator (counters), or the GPU (each launch's time and
    /// GB/s; needs a build with `--features cuda` and an NVIDIA GPU).
    #[arg(long, value_enum, default_value_t = DeviceArg::Emulator)]
    pub device: DeviceArg,
    /// Whose kernels to run: the reference solutions or yours (kernels/src/ch05.rs)
    /// [default: reference; with --trace: student].
    #[arg(long, value_enum)]
    pub kernels: Option<Source>,
    /// Elements of the 1-D kernels (bytes for the histograms).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_N)]
    pub n: usize,
    /// Threads per block of the 1-D kernels: 1 to 1024 (5.4's uniform kernel wants a
    /// multiple of 64).
    #[arg(long, value_name = "T", default_value_t = 256)]
    pub block: u32,
    /// Blocks of 5.3's grid-stride kernel [default: stride_grid of the device's SMs].
    #[arg(long, value_name = "G")]
    pub grid: Option<u32>,
    /// Words per thread of 5.6's fourth kernel.
    #[arg(long, value_name = "W", default_value_t = 8)]
    pub words_per_thread: u32,
    /// Seed of the generated inputs.
    #[arg(long, value_name = "S", default_value_t = 9)]
    pub seed: u64,
    /// The inputs' values: uniform (random, the default), zeros, skew:P (P% zeros) or
    /// text:PATH (a file's bytes, repeated to N; each byte a value of the 1-D kernels). 5.6's
    /// histograms are the ones it changes most: zeros put every atomic on one counter.
    #[arg(long, value_name = "KIND", default_value = "uniform", value_parser = chapter::inputs::parse_input)]
    pub input: chapter::inputs::InputKind,
    /// Run only this step (repeatable), e.g. --step 5.4 --step 5.6.
    #[arg(long = "step", value_name = "ID")]
    pub steps: Vec<String>,
    /// How the rows are printed: `--json`, `--columns`, `--ncu-names`.
    #[command(flatten)]
    pub output: chapter::cli::RowsOutput,
    /// Instead of the table: run one step (--step, default 5.3) on a small input with the
    /// emulator's trace on and draw its launch to FILE.svg: which thread of which warp
    /// touched which element at each warp step, and the atomic contention per bin. Your
    /// kernels unless --kernels reference; --n, --block, --grid and --words-per-thread
    /// apply when given.
    #[arg(long, value_name = "FILE.svg")]
    pub trace: Option<PathBuf>,
}

const AFTER_HELP: &str = "Examples:
  cargo run -p ch05                                  the whole progression, reference kernels
  cargo run -p ch05 -- --kernels student             your kernels; unsolved steps say \"not implemented\"
  cargo run -p ch05 -- --step 5.4                    divergent vs warp-uniform branches
  cargo run -p ch05 -- --step 5.3 --grid 4           a grid-stride loop on four blocks
  cargo run -p ch05 -- --step 5.6 --words-per-thread 32   fewer blocks, fewer commits
  cargo run -p ch05 -- --trace 5.2.svg --step 5.2    a picture of your 5.2: who wrote which element
  cargo run -p ch05 --features cuda -- --device gpu  the progression on the GPU, in GB/s
  cargo run -p ch05 --release --features cuda -- bench   blocks per SM, the four histograms (bench --help)

Counters come from the emulator: a model of the hardware, not a GPU measurement.";

/// Whose kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Source {
    /// The reference solutions (`solutions/src/ch05.rs`).
    Reference,
    /// Yours (`kernels/src/ch05.rs`).
    Student,
}

/// What to run instead of the progression.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Measures on the GPU 5.5's grid-stride kernel at 1, 2, 4, 8 and 16 blocks per SM
    /// (latency hiding), and 5.6's four histogram kernels in MB/s; writes a table to
    /// stdout and bench.json to --out. Needs a build with `--features cuda` (use
    /// --release) and an NVIDIA GPU.
    Bench(BenchArgs),
}

/// Options of `bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Bytes of each histogram input, in MiB (5.5's arrays hold a quarter as many u32).
    #[arg(long, value_name = "N", default_value_t = 256)]
    pub size_mib: u64,
    /// Timed launches per case.
    #[arg(long, value_name = "R", default_value_t = 20)]
    pub reps: u32,
    /// Untimed launches before the timed ones.
    #[arg(long, value_name = "W", default_value_t = 3)]
    pub warmup: u32,
    /// Blocks per SM of the 5.5 sweep (comma-separated).
    #[arg(
        long,
        value_name = "K",
        value_delimiter = ',',
        default_value = "1,2,4,8,16"
    )]
    pub blocks_per_sm: Vec<u32>,
    /// Words per thread of 5.6's fourth kernel (comma-separated).
    #[arg(
        long,
        value_name = "W",
        value_delimiter = ',',
        default_value = "4,16,64"
    )]
    pub words_per_thread: Vec<u32>,
    /// Directory for bench.json.
    #[arg(long, value_name = "DIR", default_value = "ch05-bench")]
    pub out: PathBuf,
    /// Seed of the random inputs.
    #[arg(long, value_name = "S", default_value_t = 9)]
    pub seed: u64,
}

/// The largest input the bench takes, in MiB: a buffer holds at most 2^32 - 1 elements.
pub const MAX_BENCH_MIB: u64 = 4095;

impl BenchArgs {
    /// The bench's options, checked. The error is one line.
    pub fn options(&self, command: String) -> Result<Options, String> {
        if self.size_mib == 0 || self.size_mib > MAX_BENCH_MIB {
            return Err(format!(
                "--size-mib must be between 1 and {MAX_BENCH_MIB}, got {}",
                self.size_mib
            ));
        }
        if self.reps == 0 {
            return Err("--reps must be at least 1".into());
        }
        if self.blocks_per_sm.contains(&0) || self.words_per_thread.contains(&0) {
            return Err("--blocks-per-sm and --words-per-thread must be at least 1".into());
        }
        Ok(Options {
            size_bytes: self.size_mib << 20,
            warmup: self.warmup,
            reps: self.reps,
            blocks_per_sm: self.blocks_per_sm.clone(),
            words_per_thread: self.words_per_thread.clone(),
            seed: self.seed,
            out_dir: self.out.clone(),
            command,
        })
    }
}

impl Cli {
    /// The progression's parameters and steps, checked. The error is one line.
    pub fn params(&self) -> Result<(Params, Vec<&'static str>), String> {
        if self.block == 0 || self.block > 1024 {
            return Err(format!("--block must be 1 to 1024, got {}", self.block));
        }
        if self.grid == Some(0) {
            return Err("--grid must be at least 1".into());
        }
        if self.n > u32::MAX as usize / 4 {
            return Err(format!("--n must be below 2^30, got {}", self.n));
        }
        if self.words_per_thread == 0 {
            return Err("--words-per-thread must be at least 1".into());
        }
        let mut steps = Vec::new();
        for s in &self.steps {
            match STEPS.iter().find(|&&id| id == s.trim()) {
                Some(&id) => steps.push(id),
                None => {
                    return Err(format!(
                        "--step {s}: no such step; the steps are {}",
                        STEPS.join(", ")
                    ));
                }
            }
        }
        Ok((
            Params {
                n: self.n,
                block: self.block,
                grid: self.grid,
                words_per_thread: self.words_per_thread,
                seed: self.seed,
                input: self.input.clone(),
            },
            steps,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_checked() {
        let cli = Cli::parse_from(["ch05", "--step", "5.4", "--block", "64"]);
        let (p, steps) = cli.params().expect("valid");
        assert_eq!(steps, vec!["5.4"]);
        assert_eq!(p.block, 64);
        assert!(Cli::parse_from(["ch05", "--step", "9.4"]).params().is_err());
        assert!(
            Cli::parse_from(["ch05", "--block", "2048"])
                .params()
                .is_err()
        );
        let cli = Cli::parse_from(["ch05", "bench", "--blocks-per-sm", "1,4"]);
        match cli.command {
            Some(Command::Bench(b)) => {
                assert_eq!(
                    b.options(String::new()).expect("valid").blocks_per_sm,
                    vec![1, 4]
                )
            }
            None => panic!("no bench"),
        }
    }
}
