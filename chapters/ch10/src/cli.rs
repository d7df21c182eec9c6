//! The `bench` subcommand of `cargo run -p ch10`: its options, checked into
//! [`ch10::bench::Options`].

use ch10::bench::{Dtype, Options};
use clap::{Args, Subcommand};
use std::path::PathBuf;
use std::time::Duration;

/// What to run instead of the progression.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Measures every step's reference kernel on the GPU on 1 GiB of u32 and of f32
    /// against the read bandwidth, cub::DeviceReduce::Sum, torch.sum and the CPU; writes
    /// a table to stdout and bench.csv and bench.json to --out. Needs a build with
    /// `--features cuda` (use --release) and an NVIDIA GPU.
    Bench(BenchArgs),
}

/// `bench`'s options.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Input size in MiB (each element type).
    #[arg(long, value_name = "N", default_value_t = 1024)]
    pub size_mib: u64,
    /// Timed launches per case (at most: fewer when one is slow).
    #[arg(long, value_name = "R", default_value_t = chapter::timing::DEFAULT_REPS)]
    pub reps: u32,
    /// Untimed launches before them (at most).
    #[arg(long, value_name = "W", default_value_t = chapter::timing::DEFAULT_WARMUP)]
    pub warmup: u32,
    /// About how long to spend per case, in milliseconds (at least one timed run each).
    #[arg(long, value_name = "MS", default_value_t = 2000)]
    pub budget_ms: u64,
    /// Where bench.csv, bench.json and a compiled CUB go.
    #[arg(long, value_name = "DIR", default_value = "ch10-bench")]
    pub out: PathBuf,
    /// The compiled CUB program (bench/cub_reduce.cu) [default: compile it with nvcc when
    /// nvcc is on PATH].
    #[arg(long, value_name = "PATH")]
    pub cub: Option<PathBuf>,
    /// The PyTorch script (bench/torch_sum.py) [default: the copy built into this program].
    #[arg(long, value_name = "PATH")]
    pub torch: Option<PathBuf>,
    /// The Python that has PyTorch.
    #[arg(long, value_name = "PROGRAM", default_value = "python3")]
    pub python: String,
    /// Leave out: cpu, cub, torch (comma-separated or repeated).
    #[arg(long, value_name = "WHAT", value_delimiter = ',')]
    pub skip: Vec<String>,
    /// Only these element types: u32, f32 (repeatable) [default: both].
    #[arg(long, value_name = "TYPE")]
    pub dtype: Vec<String>,
    /// Only these steps (10.2 ... 10.9; repeatable) [default: all].
    #[arg(long = "step", value_name = "ID")]
    pub steps: Vec<String>,
    /// Seed of the random inputs.
    #[arg(long, value_name = "S", default_value_t = chapter::timing::DEFAULT_SEED)]
    pub seed: u64,
    /// Threads of the multi-threaded CPU row [default: every core].
    #[arg(long, value_name = "N")]
    pub cpu_threads: Option<usize>,
    /// Where the input files for CUB and PyTorch go [default: /dev/shm, else the
    /// system's temporary directory].
    #[arg(long, value_name = "DIR")]
    pub tmp: Option<PathBuf>,
}

impl BenchArgs {
    /// The options, or why they are not valid; `command` is the command line, for the
    /// report.
    pub fn options(&self, command: String) -> Result<Options, String> {
        let runs = chapter::timing::bench_runs(self.size_mib, self.warmup, self.reps, self.seed)?;
        let mut o = Options {
            runs,
            budget: Duration::from_millis(self.budget_ms.max(1)),
            steps: self.steps.clone(),
            python: self.python.clone(),
            out_dir: self.out.clone(),
            tmp_dir: self.tmp.clone(),
            command,
            ..Options::default()
        };
        if let Some(t) = self.cpu_threads {
            o.cpu_threads = t.max(1);
        }
        for what in &self.skip {
            match what.as_str() {
                "cpu" => o.cpu = false,
                "cub" => o.cub = bench::external::Tool::Off,
                "torch" => o.torch = bench::external::Tool::Off,
                other => {
                    return Err(format!(
                        "--skip {other}: what can be left out is cpu, cub and torch"
                    ));
                }
            }
        }
        if let (Some(p), false) = (&self.cub, o.cub == bench::external::Tool::Off) {
            o.cub = bench::external::Tool::Path(p.clone());
        }
        if let (Some(p), false) = (&self.torch, o.torch == bench::external::Tool::Off) {
            o.torch = bench::external::Tool::Path(p.clone());
        }
        if !self.dtype.is_empty() {
            o.dtypes = self
                .dtype
                .iter()
                .map(|d| Dtype::from_name(d).ok_or_else(|| format!("--dtype {d}: u32 or f32")))
                .collect::<Result<_, _>>()?;
        }
        for s in &self.steps {
            if !ch10::STEP_IDS.contains(&s.as_str()) || s == "10.1" {
                return Err(format!("--step {s}: the GPU steps are 10.2 to 10.9"));
            }
        }
        Ok(o)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Options, String> {
        #[derive(clap::Parser)]
        struct Cli {
            #[command(subcommand)]
            command: Command,
        }
        let all = std::iter::once("ch10")
            .chain(std::iter::once("bench"))
            .chain(args.iter().copied());
        let Command::Bench(b) = <Cli as clap::Parser>::try_parse_from(all)
            .map_err(|e| e.to_string())?
            .command;
        b.options(String::new())
    }

    #[test]
    fn options_are_checked() {
        let o = parse(&["--size-mib", "64", "--dtype", "f32", "--skip", "cpu,torch"]).unwrap();
        assert_eq!(o.runs.size_bytes, 64 << 20);
        assert_eq!(o.dtypes, [Dtype::F32]);
        assert!(!o.cpu && o.torch == bench::external::Tool::Off);
        assert!(parse(&["--dtype", "u8"]).is_err());
        assert!(parse(&["--skip", "gpu"]).is_err());
        assert!(parse(&["--step", "10.1"]).is_err());
        assert_eq!(parse(&["--step", "10.9"]).unwrap().steps, ["10.9"]);
    }
}
