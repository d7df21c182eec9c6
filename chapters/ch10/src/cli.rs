//! The `bench` subcommand of `cargo run -p ch10`: its options, checked into
//! [`ch10::bench::Options`].

use ::bench::options::CommonArgs;
use ch10::bench::{Dtype, Options};
use clap::{Args, Subcommand};
use std::path::PathBuf;

/// What to run instead of the progression.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Measures every step's reference kernel on the GPU on 1 GiB of u32 and of f32
    /// against the read bandwidth, cub::DeviceReduce::Sum, torch.sum and the CPU; writes
    /// a table to stdout and bench.csv and bench.json to --out. Needs a build with
    /// `--features cuda` (use --release) and an NVIDIA GPU.
    Bench(BenchArgs),
}

/// `bench`'s options: every bench's ([`CommonArgs`]) and the chapter's.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Size, launches, budget, anchors.
    #[command(flatten)]
    pub common: CommonArgs,
    /// Where bench.csv, bench.json and a compiled CUB go.
    #[arg(long, value_name = "DIR", default_value = "ch10-bench")]
    pub out: PathBuf,
    /// Only these element types: u32, f32 (repeatable) [default: both].
    #[arg(long, value_name = "TYPE")]
    pub dtype: Vec<String>,
    /// Only these steps (10.2 ... 10.9; repeatable) [default: all].
    #[arg(long = "step", value_name = "ID")]
    pub steps: Vec<String>,
}

impl BenchArgs {
    /// The options, or why they are not valid; `command` is the command line, for the
    /// report.
    pub fn options(&self, command: String) -> Result<Options, String> {
        let mut o = Options {
            common: self.common.common(self.out.clone(), command)?,
            steps: self.steps.clone(),
            ..Options::default()
        };
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
        assert_eq!(o.common.runs.size_bytes, 64 << 20);
        assert_eq!(o.dtypes, [Dtype::F32]);
        assert!(!o.common.cpu && o.common.torch == ::bench::external::Tool::Off);
        assert!(parse(&["--dtype", "u8"]).is_err());
        assert!(parse(&["--skip", "gpu"]).is_err());
        assert!(parse(&["--step", "10.1"]).is_err());
        assert_eq!(parse(&["--step", "10.9"]).unwrap().steps, ["10.9"]);
    }
}
