//! The command line of `cargo run -p ch09`: options, their validation, and the input;
//! the `bench` and `demo-racecheck` subcommands.

use ch09::bench::data::Input;
use ch09::bench::{CommonArgs, Dtype, Options, Tool};
// `--device`, printing, `--trace`, the table or JSON and the end of `bench` are the
// same in every chapter: `cli::DeviceArg`, `cli::print`, ... are `chapter::cli`'s.
pub use chapter::cli::*;
use chapter::timing::MAX_BENCH_MIB;
use clap::{Args, Subcommand};
use std::path::PathBuf;

/// What to run instead of the progression.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Measures every GPU step of the chapter (9.3 to 9.9, and 9.14 for u32) on the GPU,
    /// against the read bandwidth measured in the same run, CUB, torch.bincount and the
    /// CPU; writes a table to stdout and bench.csv / bench.json to --out. Needs a build
    /// with `--features cuda` (use --release) and an NVIDIA GPU.
    Bench(Box<BenchArgs>),
    /// Runs 9.5's privatized kernel with its barriers removed, on the emulator (which
    /// reports the race) and on the GPU, so that `compute-sanitizer --tool racecheck`
    /// can be shown catching it.
    DemoRacecheck(DemoArgs),
    /// Verification by decrementing (CUDA by Example's check): runs a step's kernels,
    /// then, on the same bins, a kernel that subtracts one from the bin of every element,
    /// and shows every bin back at 0, or names the first bin that is not and by how much.
    /// Exits with status 1 when a bin is not. Takes the progression's options (--n,
    /// --bins, --input, ...).
    Verify(Box<VerifyArgs>),
    /// Constant memory: a letter histogram whose bins come from a table the host sets in
    /// constant memory, read there by every byte (letters_constant) and through a copy
    /// in shared memory (letters_shared_table); the emulator's constant-cache counters, or
    /// the GPU's times.
    Constant(ConstantArgs),
    /// Concurrent kernels: the two halves of an input counted by two launches, both on
    /// one stream and one on each of two streams, at grids of half and all of the GPU's
    /// resident blocks; the GPU's times, or the emulator's timeline of what a GPU may
    /// overlap.
    Streams(StreamsArgs),
}

/// Options of `verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The step to verify (repeatable) [default: every step that counts bytes or u32
    /// values: 9.2 to 9.10, 9.14, 9.15, 9.17].
    #[arg(long = "step", value_name = "ID")]
    pub steps: Vec<String>,
    /// Where to run.
    #[arg(long, value_enum, default_value_t = DeviceArg::Emulator)]
    pub device: DeviceArg,
    /// Whose kernels count: the reference solutions or yours (kernels/src/ch09.rs); the
    /// decrement is the reference's.
    #[arg(long, value_enum, default_value_t = chapter::app::KernelsArg::Reference)]
    pub kernels: chapter::app::KernelsArg,
    /// The input and launch: the progression's options.
    #[command(flatten)]
    pub params: ch09::progression::Params,
}

/// Options of `constant`.
#[derive(Debug, Args)]
pub struct ConstantArgs {
    /// Where to run.
    #[arg(long, value_enum, default_value_t = DeviceArg::Emulator)]
    pub device: DeviceArg,
    /// Bytes of text to count [default: 262144 on the emulator, 268435456 on a GPU].
    #[arg(long, value_name = "N")]
    pub n: Option<usize>,
    /// The input: text (the course's paragraph, repeated), text:PATH, uniform, zeros or
    /// skew:P.
    #[arg(long, value_name = "KIND", default_value = "text")]
    pub input: String,
    /// Letters per bin (PMPP's letter histogram uses 4: seven bins).
    #[arg(long, value_name = "L", default_value_t = 1)]
    pub letters_per_bin: u32,
    /// Threads per block: a multiple of 32, at most 1024.
    #[arg(long, value_name = "T", default_value_t = 256)]
    pub block: u32,
    /// Blocks [default: the device's resident blocks, at most 8 bytes per thread].
    #[arg(long, value_name = "G")]
    pub grid: Option<u32>,
    /// Timed launches per kernel on a GPU.
    #[arg(long, value_name = "R", default_value_t = 20)]
    pub reps: u32,
    /// Seed of a generated input.
    #[arg(long, value_name = "S", default_value_t = 9)]
    pub seed: u64,
}

/// Options of `streams`.
#[derive(Debug, Args)]
pub struct StreamsArgs {
    /// Where to run.
    #[arg(long, value_enum, default_value_t = DeviceArg::Emulator)]
    pub device: DeviceArg,
    /// Bytes of the whole input, both halves [default: 262144 on the emulator, 536870912
    /// on a GPU].
    #[arg(long, value_name = "N")]
    pub n: Option<usize>,
    /// Bins of each histogram.
    #[arg(long, value_name = "B", default_value_t = 256)]
    pub bins: u32,
    /// Threads per block: a multiple of 32, at most 1024.
    #[arg(long, value_name = "T", default_value_t = 256)]
    pub block: u32,
    /// Blocks of each launch (repeatable) [default: half the blocks the device keeps
    /// resident, then all of them].
    #[arg(long = "grid", value_name = "G")]
    pub grids: Vec<u32>,
    /// Timed runs of each arrangement on a GPU.
    #[arg(long, value_name = "R", default_value_t = 20)]
    pub reps: u32,
    /// Seed of the uniform input.
    #[arg(long, value_name = "S", default_value_t = 9)]
    pub seed: u64,
}

/// `--block` checked: whole warps, at most 1024 threads.
pub fn check_block(block: u32) -> Result<u32, String> {
    if block == 0 || block > 1024 || !block.is_multiple_of(32) {
        return Err(format!(
            "--block must be a multiple of 32 (whole warps) between 32 and 1024, got {block}"
        ));
    }
    Ok(block)
}

/// Options of `bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Size, launches, budget, anchors.
    #[command(flatten)]
    pub common: CommonArgs,
    /// The size sweep: the bench at each of these sizes in MiB, one after another
    /// (e.g. --sizes 1,4,16,64,256,1024,4095); writes every size's report under
    /// OUT/size-<size>/ and OUT/sizes.json, and prints the best kernel against the read
    /// kernel and CUB at each size.
    #[arg(long, value_name = "MIB,...", value_delimiter = ',', conflicts_with_all = ["size_mib", "variants", "extensions"])]
    pub sizes: Vec<u64>,
    /// Directory for bench.csv and bench.json (and a CUB build).
    #[arg(long, value_name = "DIR", default_value = "ch09-bench")]
    pub out: PathBuf,
    /// Only these element types: u8, u32 (repeatable) [default: both].
    #[arg(long, value_name = "TYPE")]
    pub dtype: Vec<String>,
    /// Bins of the u32 histograms, 1 to 65536: past 4096 (9.14's shared kernel) the
    /// u32 steps are 9.14's global kernel and 9.17's sliced ones (e.g. 16384, 65536).
    #[arg(long, value_name = "B", default_value_t = ch09::bench::U32_BINS)]
    pub u32_bins: u32,
    /// Only these inputs: uniform, one-value, 90pct-one-value, text (repeatable)
    /// [default: all four].
    #[arg(long, value_name = "INPUT")]
    pub input: Vec<String>,
    /// Only these GPU steps, e.g. --step 9.9 (repeatable) [default: all].
    #[arg(long = "step", value_name = "ID")]
    pub steps: Vec<String>,
    /// The variant sweep instead of the steps: 9.9's histo_fastest (at 512, 256 and 1024
    /// threads, and its grid coarsened to 16 and 4 vectors per thread where the policy has
    /// 8) against the designs it was chosen from (solutions::bench:
    /// fast_run_length, fast_popc, fast_warp_bins, fast_lane_bins), CUB and the
    /// read-bandwidth reference, on the u8 inputs only;
    /// every result checked against the CPU's histogram. Implies --skip cpu,torch and
    /// ignores --step.
    #[arg(long)]
    pub variants: bool,
    /// Each byte step also on the grid and block of the step before it (rows
    /// KERNEL@STEP, e.g. histo_fastest@9.8), so that every "faster than the last step" is
    /// measured on one grid, and the grid's own effect shows apart (the step on its own
    /// grid against the step on the last step's); a summary of those ratios per input ends
    /// the output. With --dtype u32 nothing is added.
    #[arg(long, conflicts_with_all = ["variants", "extensions"])]
    pub same_grid: bool,
    /// The extension sweep instead of the steps: 9.15's histo_cas on the u8 inputs (their
    /// first 16 MiB), 9.11 histo_rgb, 9.12 histo_weighted and 9.13 histo_joint (16 x 16
    /// bins) on the uniform one, then 9.16's strategy sweep on uniform u32 values at 8, 16, 64, 256, 1024 and 4096 bins
    /// (9.10 histo_registers where it applies, 9.14 histo_u32_shared and
    /// histo_u32_global); every result checked against the CPU's histogram. Implies
    /// --skip cpu,torch and ignores --step.
    #[arg(long, conflicts_with = "variants")]
    pub extensions: bool,
    /// The text input's file [default: the book's chapters, book/src/**/*.md, when this
    /// program runs from the course's workspace; else a paragraph built in].
    #[arg(long, value_name = "PATH")]
    pub text: Option<PathBuf>,
    /// Whose kernels: the reference's alone, or yours too (`student`): each step's kernel
    /// of kernels/src/ch09.rs in a row of its own beside the reference's, on the same input
    /// (each first rehearsed on the emulator: one that would trap stays off the GPU).
    #[arg(long, value_enum, default_value_t = chapter::app::KernelsArg::Reference)]
    pub kernels: chapter::app::KernelsArg,
}

/// The most `u32` bins the bench takes: its inputs' values are drawn from 16 random bits.
pub const MAX_U32_BENCH_BINS: u32 = 1 << 16;

impl BenchArgs {
    /// The bench's options, checked. The error is one line.
    pub fn options(&self, command: String) -> Result<Options, String> {
        if let Some(bad) = self.sizes.iter().find(|&&s| s == 0 || s > MAX_BENCH_MIB) {
            return Err(format!(
                "--sizes: every size must be between 1 and {MAX_BENCH_MIB} MiB, got {bad}"
            ));
        }
        if self.u32_bins == 0 || self.u32_bins > MAX_U32_BENCH_BINS {
            return Err(format!(
                "--u32-bins must be between 1 and {MAX_U32_BENCH_BINS}, got {}",
                self.u32_bins
            ));
        }
        let mut o = Options {
            common: self.common.common(self.out.clone(), command)?,
            u32_bins: self.u32_bins,
            ..Options::default()
        };
        if !self.dtype.is_empty() {
            o.dtypes = Vec::new();
            for d in &self.dtype {
                let Some(t) = Dtype::ALL.into_iter().find(|t| t.name() == d.trim()) else {
                    return Err(format!("--dtype {d}: the types are u8 and u32"));
                };
                o.dtypes.push(t);
            }
        }
        if !self.input.is_empty() {
            o.inputs = Vec::new();
            for i in &self.input {
                let Some(k) = Input::from_name(i.trim()) else {
                    let names: Vec<&str> = Input::ALL.iter().map(|i| i.name()).collect();
                    return Err(format!("--input {i}: the inputs are {}", names.join(", ")));
                };
                o.inputs.push(k);
            }
        }
        let gpu_steps = ["9.3", "9.4", "9.5", "9.6", "9.7", "9.8", "9.9", "9.14"];
        for s in &self.steps {
            if !gpu_steps.contains(&s.trim()) {
                return Err(format!(
                    "--step {s}: the bench's steps are {}",
                    gpu_steps.join(", ")
                ));
            }
            o.steps.push(s.trim().to_string());
        }
        if let Some(path) = &self.text {
            let bytes =
                std::fs::read(path).map_err(|e| format!("--text {}: {e}", path.display()))?;
            if bytes.is_empty() {
                return Err(format!("--text {}: the file is empty", path.display()));
            }
            o.text = (bytes, path.display().to_string());
        }
        if self.variants {
            if !o.dtypes.contains(&Dtype::U8) {
                return Err("--variants runs on the u8 inputs only; leave out --dtype u32".into());
            }
            o.variants = true;
            o.dtypes = vec![Dtype::U8];
            o.common.cpu = false;
            o.common.torch = Tool::Off;
            o.steps.clear();
        }
        o.same_grid = self.same_grid;
        o.student = self.kernels == chapter::app::KernelsArg::Student;
        if o.student && (self.variants || self.extensions || self.same_grid) {
            return Err(
                "--kernels student runs the steps: leave out --variants, --extensions and --same-grid"
                    .into(),
            );
        }
        if self.extensions {
            if !o.dtypes.contains(&Dtype::U8) {
                return Err(
                    "--extensions runs on the u8 inputs only; leave out --dtype u32".into(),
                );
            }
            o.extensions = true;
            o.dtypes = vec![Dtype::U8];
            o.common.cpu = false;
            o.common.torch = Tool::Off;
            o.steps.clear();
        }
        Ok(o)
    }
}

/// Options of `demo-racecheck`.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Bytes the GPU launch counts (the emulator counts 4096).
    #[arg(long, value_name = "N", default_value_t = 1 << 20)]
    pub n: usize,
    /// Run on the emulator only, or on the emulator and the GPU (a build with `--features
    /// cuda`).
    #[arg(long, value_enum, default_value_t = DeviceArg::Gpu)]
    pub device: DeviceArg,
}

#[cfg(test)]
mod tests {
    use super::*;
    use ch09::command::{Ch09, DEFAULT_GPU_N};
    use ch09::inputs::InputKind;
    use ch09::progression::Params;

    /// Chapter 9's command line: the shared options and the chapter's parameters, with
    /// its subcommands.
    type Cli = chapter::app::Cli<Params, Command>;

    /// `cargo run -p ch09 -- ARGS`, parsed.
    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        let all = std::iter::once("ch09").chain(args.iter().copied());
        chapter::app::parse_from::<Ch09, Command>("", all)
    }

    /// `cargo run -p ch09 -- ARGS`, parsed and checked as the progression checks it.
    fn checked(cli: &Cli) -> Result<(Params, Vec<&'static str>), String> {
        chapter::app::checked::<Ch09, Command>(cli)
    }

    #[test]
    fn defaults_are_the_documented_ones() {
        let cli = parse(&[]).unwrap();
        let (p, steps) = checked(&cli).unwrap();
        assert_eq!(cli.run.kernels, None);
        assert_eq!(p, Params::default());
        assert!(steps.is_empty());
        assert!(!cli.run.output.json);
    }

    #[test]
    fn every_option_parses() {
        let cli = parse(&[
            "--kernels",
            "student",
            "--n",
            "1000",
            "--bins",
            "64",
            "--block",
            "128",
            "--grid",
            "3",
            "--coarsen",
            "4",
            "--input",
            "skew:90",
            "--seed",
            "7",
            "--step",
            "9.5",
            "--step",
            "9.16",
            "--step",
            "9.5",
            "--json",
        ])
        .unwrap();
        let (p, steps) = checked(&cli).unwrap();
        assert_eq!(cli.run.kernels, Some(chapter::app::KernelsArg::Student));
        assert_eq!(
            p,
            Params {
                n: Some(1000),
                bins: 64,
                block: 128,
                grid: Some(3),
                coarsen: 4,
                input: InputKind::Skew(90),
                seed: 7
            }
        );
        assert_eq!(steps, vec!["9.5", "9.16"]);
        assert!(cli.run.output.json);
        assert_eq!(
            parse(&["--input", "zeros"]).unwrap().params.input,
            InputKind::Zeros
        );
    }

    #[test]
    fn gpu_runs_are_larger_and_the_bench_parses() {
        let cli = parse(&["--device", "gpu"]).unwrap();
        assert_eq!(checked(&cli).unwrap().0.n, Some(DEFAULT_GPU_N));
        assert!(
            parse(&["--device", "gpu", "--n", "1000000000"])
                .map(|c| checked(&c))
                .unwrap()
                .is_ok()
        );
        let cli = parse(&[
            "bench",
            "--size-mib",
            "64",
            "--reps",
            "5",
            "--skip",
            "cub,torch",
            "--dtype",
            "u32",
            "--input",
            "text",
            "--step",
            "9.14",
        ])
        .unwrap();
        let Some(Command::Bench(b)) = &cli.command else {
            panic!("{cli:?}")
        };
        let o = b.options("ch09 bench".into()).unwrap();
        assert_eq!(o.common.runs.size_bytes, 64 << 20);
        assert_eq!((o.common.runs.reps, o.common.runs.warmup), (5, 3));
        assert_eq!(
            (o.common.cub.clone(), o.common.torch.clone(), o.common.cpu),
            (Tool::Off, Tool::Off, true)
        );
        assert_eq!(o.dtypes, [Dtype::U32]);
        assert_eq!(o.inputs, [Input::Text]);
        assert_eq!(o.steps, ["9.14"]);
        let bad = |args: &[&str]| match parse(args).unwrap().command {
            Some(Command::Bench(b)) => b.options(String::new()).unwrap_err(),
            other => panic!("{other:?}"),
        };
        assert!(bad(&["bench", "--size-mib", "0"]).contains("--size-mib"));
        assert!(bad(&["bench", "--sizes", "1,4096"]).contains("--sizes"));
        assert!(bad(&["bench", "--skip", "gpu"]).contains("cpu, cub and torch"));
        assert!(bad(&["bench", "--step", "9.2"]).contains("9.3"));
        assert!(bad(&["bench", "--input", "zeros"]).contains("one-value"));
        assert!(bad(&["bench", "--text", "/no/such/file"]).contains("--text"));
        assert!(parse(&["--n", "5", "bench"]).is_err());
        assert!(matches!(
            parse(&["demo-racecheck", "--device", "emulator"])
                .unwrap()
                .command,
            Some(Command::DemoRacecheck(DemoArgs {
                device: DeviceArg::Emulator,
                ..
            }))
        ));
    }

    #[test]
    fn the_seed_sections_commands_parse() {
        let cli = parse(&[
            "verify",
            "--step",
            "9.5",
            "--kernels",
            "student",
            "--n",
            "4096",
        ])
        .unwrap();
        let Some(Command::Verify(v)) = &cli.command else {
            panic!("{cli:?}")
        };
        assert_eq!(v.steps, ["9.5"]);
        assert_eq!(v.kernels, chapter::app::KernelsArg::Student);
        assert_eq!(v.params.n, Some(4096));
        assert_eq!(v.device, DeviceArg::Emulator);
        let cli = parse(&["constant", "--input", "zeros", "--letters-per-bin", "4"]).unwrap();
        let Some(Command::Constant(c)) = &cli.command else {
            panic!("{cli:?}")
        };
        assert_eq!(
            (c.input.as_str(), c.letters_per_bin, c.block),
            ("zeros", 4, 256)
        );
        let cli = parse(&[
            "streams", "--grid", "66", "--grid", "132", "--device", "gpu",
        ])
        .unwrap();
        let Some(Command::Streams(s)) = &cli.command else {
            panic!("{cli:?}")
        };
        assert_eq!(
            (s.grids.as_slice(), s.device),
            (&[66, 132][..], DeviceArg::Gpu)
        );
        assert!(check_block(96).is_ok());
        assert!(check_block(100).unwrap_err().contains("multiple of 32"));
    }

    #[test]
    fn bad_options_are_one_line_errors() {
        let bad = |args: &[&str]| checked(&parse(args).unwrap()).unwrap_err();
        assert!(bad(&["--block", "100"]).contains("multiple of 32"));
        assert!(bad(&["--block", "2048"]).contains("1024"));
        assert!(bad(&["--bins", "0"]).contains("--bins"));
        assert!(bad(&["--grid", "0"]).contains("--grid"));
        assert!(bad(&["--coarsen", "0"]).contains("--coarsen"));
        assert!(bad(&["--step", "9.99"]).contains("9.1, 9.2"));
        assert!(bad(&["--n", "1000000000"]).contains("at most"));
        for (args, says) in [
            (&["--input", "skew:101"][..], "0..=100"),
            (&["--input", "text:/no/such/file"], "cannot read"),
            (&["--input", "bytes"], "uniform, zeros"),
            (&["--kernels", "mine"], "reference"),
        ] {
            let e = parse(args).unwrap_err().to_string();
            assert!(e.contains(says), "{args:?}: {e}");
        }
    }
}
