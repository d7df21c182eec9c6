//! The options every chapter's bench with anchors takes alike, on the command line
//! ([`CommonArgs`], flattened into a chapter's `bench` arguments) and checked
//! ([`Common`]): how much input, how many launches, how long per case, where the results
//! go, and which anchors run. A chapter adds only its own (types, steps, inputs, modes).

use crate::external::{Runner, Tool};
use crate::measure::Budget;
use chapter::timing::{BenchRuns, DEFAULT_REPS, DEFAULT_SEED, DEFAULT_WARMUP, bench_runs};
use clap::Args;
use std::path::PathBuf;
use std::time::Duration;

/// What every chapter's bench measures and how, checked.
#[derive(Clone, Debug)]
pub struct Common {
    /// Input size (`--size-mib`, default 1 GiB), launches at most, and seed.
    pub runs: BenchRuns,
    /// Time to spend per case, about (at least one timed run each).
    pub budget: Duration,
    /// The CPU rows.
    pub cpu: bool,
    /// Threads of the multi-threaded CPU row.
    pub cpu_threads: usize,
    /// CUB.
    pub cub: Tool,
    /// PyTorch.
    pub torch: Tool,
    /// The Python interpreter for PyTorch.
    pub python: String,
    /// Where `bench.csv`, `bench.json` and a compiled CUB go.
    pub out_dir: PathBuf,
    /// Where the input files for CUB and PyTorch are written (default: `/dev/shm` when
    /// it has room, else the system's temporary directory).
    pub tmp_dir: Option<PathBuf>,
    /// The command line, for the header.
    pub command: String,
}

impl Common {
    /// Every default, with the results written to `out_dir` (each chapter its own).
    pub fn new(out_dir: &str) -> Self {
        Common {
            runs: BenchRuns::of(1 << 30),
            budget: Duration::from_millis(DEFAULT_BUDGET_MS),
            cpu: true,
            cpu_threads: crate::cpu::cores(),
            cub: Tool::Auto,
            torch: Tool::Auto,
            python: "python3".into(),
            out_dir: PathBuf::from(out_dir),
            tmp_dir: None,
            command: String::new(),
        }
    }

    /// The runs and time budget every measurement reads.
    pub fn budget(&self) -> Budget {
        Budget {
            runs: self.runs,
            budget: self.budget,
        }
    }

    /// How `chapter`'s anchors run under these options ([`crate::external::run_anchors`]).
    pub fn runner<'a>(&'a self, chapter: &'a str) -> Runner<'a> {
        Runner {
            python: &self.python,
            tmp_dir: self.tmp_dir.as_ref(),
            chapter,
            budget: self.budget(),
        }
    }

    /// A small run of `size_bytes` into `out_dir`, as the benches' tests make on the
    /// emulator: one timed launch and no warm-up per case, no CUB or PyTorch, the CPU rows
    /// on 2 threads, a budget no case reaches.
    pub fn small(size_bytes: u64, out_dir: PathBuf) -> Self {
        let defaults = Common::new("");
        Common {
            runs: BenchRuns {
                size_bytes,
                warmup: 0,
                reps: 1,
                ..defaults.runs
            },
            budget: Duration::from_secs(60),
            cub: Tool::Off,
            torch: Tool::Off,
            cpu_threads: 2,
            out_dir,
            ..defaults
        }
    }
}

/// About how long a case takes by default, in milliseconds (`--budget-ms`).
pub const DEFAULT_BUDGET_MS: u64 = 2000;

/// The command-line options every chapter's bench shares; `#[command(flatten)]` them
/// into the chapter's `bench` arguments and check them with [`CommonArgs::common`].
#[derive(Args, Debug, Clone)]
pub struct CommonArgs {
    /// Bytes of every input, in MiB (an input of 4-byte values holds a quarter as many).
    #[arg(long, value_name = "N", default_value_t = 1024)]
    pub size_mib: u64,
    /// Timed launches per case, at most (fewer when one is slower than --budget-ms allows).
    #[arg(long, value_name = "R", default_value_t = DEFAULT_REPS)]
    pub reps: u32,
    /// Untimed launches before the timed ones, at most.
    #[arg(long, value_name = "W", default_value_t = DEFAULT_WARMUP)]
    pub warmup: u32,
    /// About how long to spend per case, in milliseconds (at least one timed run each).
    #[arg(long, value_name = "MS", default_value_t = DEFAULT_BUDGET_MS)]
    pub budget_ms: u64,
    /// The compiled CUB program of this chapter's anchor (bench/cub_*.cu) [default:
    /// compile it with nvcc when nvcc is on PATH].
    #[arg(long, value_name = "PATH")]
    pub cub: Option<PathBuf>,
    /// The PyTorch script of this chapter's anchor (bench/torch_*.py) [default: the copy
    /// built into this program].
    #[arg(long, value_name = "PATH")]
    pub torch: Option<PathBuf>,
    /// The Python that has PyTorch.
    #[arg(long, value_name = "PROGRAM", default_value = "python3")]
    pub python: String,
    /// Leave out: cpu, cub, torch (comma-separated or repeated).
    #[arg(long, value_name = "WHAT", value_delimiter = ',')]
    pub skip: Vec<String>,
    /// Seed of the random inputs.
    #[arg(long, value_name = "S", default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// Threads of the multi-threaded CPU row [default: every core].
    #[arg(long, value_name = "N")]
    pub cpu_threads: Option<usize>,
    /// Directory for the input files CUB and PyTorch read [default: /dev/shm, else the
    /// system's temporary directory].
    #[arg(long, value_name = "DIR")]
    pub tmp: Option<PathBuf>,
}

impl CommonArgs {
    /// The options checked, writing to `out_dir`; `command` is the command line, for the
    /// report. The error is one line naming the option.
    pub fn common(&self, out_dir: PathBuf, command: String) -> Result<Common, String> {
        let mut o = Common {
            runs: bench_runs(self.size_mib, self.warmup, self.reps, self.seed)?,
            budget: Duration::from_millis(self.budget_ms.max(1)),
            python: self.python.clone(),
            out_dir,
            tmp_dir: self.tmp.clone(),
            command,
            ..Common::new("")
        };
        if let Some(t) = self.cpu_threads {
            o.cpu_threads = t.max(1);
        }
        for what in &self.skip {
            match what.trim() {
                "cpu" => o.cpu = false,
                "cub" => o.cub = Tool::Off,
                "torch" => o.torch = Tool::Off,
                other => {
                    return Err(format!(
                        "--skip {other}: what can be left out is cpu, cub and torch"
                    ));
                }
            }
        }
        if let (Some(p), false) = (&self.cub, o.cub == Tool::Off) {
            o.cub = Tool::Path(p.clone());
        }
        if let (Some(p), false) = (&self.torch, o.torch == Tool::Off) {
            o.torch = Tool::Path(p.clone());
        }
        Ok(o)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        common: CommonArgs,
    }

    fn parse(args: &[&str]) -> Result<Common, String> {
        let cli = Cli::try_parse_from(std::iter::once("bench").chain(args.iter().copied()))
            .map_err(|e| e.to_string())?;
        cli.common.common(PathBuf::from("out"), "bench".into())
    }

    #[test]
    fn defaults_are_the_documented_ones() {
        let o = parse(&[]).unwrap();
        assert_eq!(o.runs.size_bytes, 1 << 30);
        assert_eq!(o.runs.reps, DEFAULT_REPS);
        assert_eq!(o.budget, Duration::from_millis(DEFAULT_BUDGET_MS));
        assert!(o.cpu && o.cub == Tool::Auto && o.torch == Tool::Auto);
        assert_eq!(o.out_dir, PathBuf::from("out"));
    }

    #[test]
    fn skipping_and_paths_are_checked() {
        let o = parse(&[
            "--skip",
            "cpu,torch",
            "--cub",
            "/x/cub",
            "--torch",
            "/x/t.py",
        ])
        .unwrap();
        assert!(!o.cpu);
        assert_eq!(o.cub, Tool::Path("/x/cub".into()));
        assert_eq!(
            o.torch,
            Tool::Off,
            "a skipped anchor stays off even with its path"
        );
        assert!(
            parse(&["--skip", "gpu"])
                .unwrap_err()
                .contains("--skip gpu")
        );
        assert!(
            parse(&["--size-mib", "0"])
                .unwrap_err()
                .contains("--size-mib")
        );
        assert!(parse(&["--reps", "0"]).unwrap_err().contains("--reps"));
        assert_eq!(parse(&["--cpu-threads", "0"]).unwrap().cpu_threads, 1);
    }
}
