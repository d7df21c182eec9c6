//! The command line of `cargo run -p ch09`: options, their validation, and the input.

use ch09::inputs::InputKind;
use ch09::progression::{Params, STEPS};
use clap::{Parser, ValueEnum};

/// Runs chapter 9's progression, from the naive kernel to the fastest, on the SIMT
/// emulator, and prints per step whether the bins are right and what the step asks of
/// the memory system: global and shared atomics, the worst serialization on one bin,
/// global sectors, bank conflicts, divergent steps.
#[derive(Debug, Parser)]
#[command(name = "ch09", version, about, long_about = None, after_help = AFTER_HELP)]
pub struct Cli {
    /// Whose kernels to run: the reference solutions or yours (kernels/src/ch09.rs).
    #[arg(long, value_enum, default_value_t = Source::Reference)]
    pub kernels: Source,
    /// Elements to count [default: 65536, or a text file's length].
    #[arg(long, value_name = "N")]
    pub n: Option<usize>,
    /// Bins of the histogram (per channel for 9.11, both axes together for 9.13).
    #[arg(long, value_name = "B", default_value_t = 256)]
    pub bins: u32,
    /// Threads per block: a multiple of 32, at most 1024.
    #[arg(long, value_name = "T", default_value_t = 256)]
    pub block: u32,
    /// Blocks of the grid-stride kernels [default: from the device: its SMs times the
    /// blocks one SM holds, but no more than N / (T * C)].
    #[arg(long, value_name = "G")]
    pub grid: Option<u32>,
    /// Elements per thread the grids are sized for (9.6's coarsening factor).
    #[arg(long, value_name = "C", default_value_t = 8)]
    pub coarsen: u32,
    /// The input: uniform, zeros, skew:P (P% zeros, the rest uniform) or text:PATH (a
    /// file's bytes, repeated to N).
    #[arg(long, value_name = "KIND", default_value = "uniform", value_parser = parse_input)]
    pub input: InputKind,
    /// Seed of the generated input.
    #[arg(long, value_name = "S", default_value_t = 9)]
    pub seed: u64,
    /// Run only this step (repeatable), e.g. --step 9.5 --step 9.9.
    #[arg(long = "step", value_name = "ID")]
    pub steps: Vec<String>,
    /// Print one JSON array of rows instead of the table.
    #[arg(long)]
    pub json: bool,
}

const AFTER_HELP: &str = "Examples:
  cargo run -p ch09                                  the whole progression, reference kernels
  cargo run -p ch09 -- --kernels student             your kernels; unsolved steps say \"not implemented\"
  cargo run -p ch09 -- --step 9.6 --coarsen 16       contiguous vs interleaved loads
  cargo run -p ch09 -- --input skew:90 --step 9.7    aggregation on a hot bin
  cargo run -p ch09 -- --step 9.16 --bins 4096       the three strategies at 4096 bins

Counters come from the emulator: a model of the hardware, not a GPU measurement.";

/// Whose kernels to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Source {
    /// The reference solutions (`solutions/src/ch09.rs`).
    Reference,
    /// Your kernels (`kernels/src/ch09.rs`).
    Student,
}

/// Most elements a run may ask for: the emulator runs every lane (about 10-30 million
/// lane operations a second), so more would take minutes per step.
pub const MAX_N: usize = 1 << 26;

/// Parses `--input`.
fn parse_input(s: &str) -> Result<InputKind, String> {
    match s {
        "uniform" => Ok(InputKind::Uniform),
        "zeros" => Ok(InputKind::Zeros),
        _ => {
            if let Some(p) = s.strip_prefix("skew:") {
                let p: u32 = p
                    .trim()
                    .parse()
                    .map_err(|_| format!("skew:P needs a percentage 0..=100, got `{p}`"))?;
                if p > 100 {
                    return Err(format!("skew:P needs a percentage 0..=100, got {p}"));
                }
                Ok(InputKind::Skew(p))
            } else if let Some(path) = s.strip_prefix("text:") {
                let bytes =
                    std::fs::read(path).map_err(|e| format!("cannot read `{path}`: {e}"))?;
                if bytes.is_empty() {
                    return Err(format!("`{path}` is empty"));
                }
                Ok(InputKind::Text(bytes))
            } else {
                Err("expected uniform, zeros, skew:P or text:PATH".into())
            }
        }
    }
}

impl Cli {
    /// Checks the options against each other and the hardware's limits, and returns the
    /// progression's parameters and steps. The error is one line for the student.
    pub fn params(&self) -> Result<(Params, Vec<&'static str>), String> {
        if let Some(n) = self.n
            && n > MAX_N
        {
            return Err(format!(
                "--n {n} is more than the emulator runs in reasonable time (at most {MAX_N})"
            ));
        }
        if self.bins == 0 || self.bins > 1 << 20 {
            return Err(format!(
                "--bins must be between 1 and {}, got {}",
                1 << 20,
                self.bins
            ));
        }
        if self.block == 0 || self.block > 1024 || !self.block.is_multiple_of(32) {
            return Err(format!(
                "--block must be a multiple of 32 (whole warps) between 32 and 1024, got {}",
                self.block
            ));
        }
        if self.grid == Some(0) {
            return Err("--grid must be at least 1".into());
        }
        if self.coarsen == 0 {
            return Err("--coarsen must be at least 1".into());
        }
        let mut steps = Vec::new();
        for s in &self.steps {
            let Some(&id) = STEPS.iter().find(|&&id| id == s.trim()) else {
                return Err(format!(
                    "unknown --step `{s}`: the steps are {}",
                    STEPS.join(", ")
                ));
            };
            if !steps.contains(&id) {
                steps.push(id);
            }
        }
        let params = Params {
            n: self.n,
            bins: self.bins,
            block: self.block,
            grid: self.grid,
            coarsen: self.coarsen,
            input: self.input.clone(),
            seed: self.seed,
        };
        Ok((params, steps))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("ch09").chain(args.iter().copied()))
    }

    #[test]
    fn defaults_are_the_documented_ones() {
        let cli = parse(&[]).unwrap();
        let (p, steps) = cli.params().unwrap();
        assert_eq!(cli.kernels, Source::Reference);
        assert_eq!(p, Params::default());
        assert!(steps.is_empty());
        assert!(!cli.json);
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
        let (p, steps) = cli.params().unwrap();
        assert_eq!(cli.kernels, Source::Student);
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
        assert!(cli.json);
        assert_eq!(
            parse(&["--input", "zeros"]).unwrap().input,
            InputKind::Zeros
        );
    }

    #[test]
    fn bad_options_are_one_line_errors() {
        let bad = |args: &[&str]| parse(args).unwrap().params().unwrap_err();
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
