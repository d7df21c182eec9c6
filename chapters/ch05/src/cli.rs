//! The command line of `cargo run -p ch05`: the same contract as chapter 9's
//! (`--kernels`, `--device`, `--step`, `--json`, `bench`), with this chapter's knobs.

use ch05::bench::Options;
// `--device`, printing, `--trace`, the table or JSON and the end of `bench` are the
// same in every chapter: `cli::DeviceArg`, `cli::print`, ... are `chapter::cli`'s.
pub use chapter::cli::*;
use clap::{Args, Subcommand};
use std::path::PathBuf;

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
    #[arg(long, value_name = "R", default_value_t = chapter::timing::DEFAULT_REPS)]
    pub reps: u32,
    /// Untimed launches before the timed ones.
    #[arg(long, value_name = "W", default_value_t = chapter::timing::DEFAULT_WARMUP)]
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
    #[arg(long, value_name = "S", default_value_t = chapter::timing::DEFAULT_SEED)]
    pub seed: u64,
}

impl BenchArgs {
    /// The bench's options, checked. The error is one line.
    pub fn options(&self, command: String) -> Result<Options, String> {
        let runs = chapter::timing::bench_runs(self.size_mib, self.warmup, self.reps, self.seed)?;
        if self.blocks_per_sm.contains(&0) || self.words_per_thread.contains(&0) {
            return Err("--blocks-per-sm and --words-per-thread must be at least 1".into());
        }
        Ok(Options {
            runs,
            blocks_per_sm: self.blocks_per_sm.clone(),
            words_per_thread: self.words_per_thread.clone(),
            out_dir: self.out.clone(),
            command,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ch05::command::Ch05;
    use ch05::progression::Params;

    /// Chapter 5's command line: the shared options and the chapter's parameters, with
    /// the `bench` subcommand.
    type Cli = chapter::app::Cli<Params, Command>;

    /// `cargo run -p ch05 -- ARGS`, parsed.
    fn parse(args: &[&str]) -> Cli {
        let all = std::iter::once("ch05").chain(args.iter().copied());
        chapter::app::parse_from::<Ch05, Command>("", all).expect("parses")
    }

    #[test]
    fn options_are_checked() {
        let checked = |args: &[&str]| chapter::app::checked::<Ch05, Command>(&parse(args));
        let (p, steps) = checked(&["--step", "5.4", "--block", "64"]).expect("valid");
        assert_eq!(steps, vec!["5.4"]);
        assert_eq!(p.block, 64);
        assert_eq!(checked(&[]).expect("valid").0, Params::default());
        assert!(checked(&["--step", "9.4"]).is_err());
        assert!(checked(&["--block", "2048"]).is_err());
        match parse(&["bench", "--blocks-per-sm", "1,4"]).command {
            Some(Command::Bench(b)) => {
                let o = b.options(String::new()).expect("valid");
                assert_eq!(o.blocks_per_sm, vec![1, 4]);
            }
            None => panic!("no bench"),
        }
    }
}
