//! `cargo run -p ch09`: chapter 9's progression on the emulator, as a table or JSON.
//!
//! Options are in [`cli::Cli`]; `cargo run -p ch09 -- --help` lists them.

mod cli;

use ch09::kernels::kernels;
use ch09::progression::{self, Row};
use clap::Parser;
use course::KernelSource;
use gpu_host::Device;
use std::io::{IsTerminal, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    let (params, steps) = match args.params() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let source = match args.kernels {
        cli::Source::Reference => KernelSource::Reference,
        cli::Source::Student => KernelSource::Student,
    };
    let mut dev = Device::emulator();
    let n = params.elements();
    // Progress goes to stderr, so that stdout stays a clean table or JSON document; only
    // for a person watching, or for a run long enough to need it.
    let show_progress = std::io::stderr().is_terminal() || n >= 1 << 20;
    let mut progress = |line: &str| {
        if show_progress {
            eprintln!("{line}");
        }
    };
    let rows = progression::run(&mut dev, kernels(source), &params, &steps, &mut progress);
    let out = if args.json {
        match serde_json::to_string_pretty(&rows) {
            Ok(s) => s + "\n",
            Err(e) => {
                eprintln!("error: cannot write the rows as JSON: {e}");
                return ExitCode::FAILURE;
            }
        }
    } else {
        format!(
            "{}\n{}",
            header(&dev, source, &params),
            progression::table(&rows, true)
        )
    };
    let mut stdout = std::io::stdout().lock();
    if stdout
        .write_all(out.as_bytes())
        .and_then(|_| stdout.flush())
        .is_err()
    {
        // A closed pipe (`| head`) is not an error worth a message.
        return ExitCode::SUCCESS;
    }
    summary_exit(&rows)
}

/// What the table is about: kernels, device, input.
fn header(dev: &Device, source: KernelSource, p: &progression::Params) -> String {
    let grid = p
        .grid
        .map_or("from the device".to_string(), |g| g.to_string());
    format!(
        "Chapter 9 progression: {} kernels on the {}\ninput {}, n = {}, {} bins, block {}, grid {grid}, coarsening {}, seed {}\n\
         counters are the emulator's model of the hardware (g. = global, s. = shared, worst.ser = most lanes of one atomic on one address)",
        source.name(),
        dev.props().name,
        p.input.describe(),
        p.elements(),
        p.bins,
        p.block,
        p.coarsen,
        p.seed
    )
}

/// Always success: the progression reports, it does not judge (`cargo test -p ch09` does).
fn summary_exit(_rows: &[Row]) -> ExitCode {
    ExitCode::SUCCESS
}
