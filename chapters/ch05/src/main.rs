//! `cargo run -p ch05`: chapter 5's progression, on the emulator (counters) or a GPU
//! (`--device gpu`, times), as a table or JSON; and the GPU `bench` subcommand.
//!
//! Options are in [`cli::Cli`]; `cargo run -p ch05 -- --help` lists them.

mod cli;

use ch05::command::Ch05;
use ch05::device;
use cli::usage_error;
use course::KernelSource;
use std::process::ExitCode;

fn main() -> ExitCode {
    chapter::app::cli_main::<Ch05, cli::Command>(|command| match command {
        cli::Command::Bench(b) => bench(b),
    })
}

/// `ch05 bench`: see [`ch05::bench`].
fn bench(b: &cli::BenchArgs) -> ExitCode {
    let opts = match cli::bench_options("ch05", |command| b.options(command)) {
        Ok(o) => o,
        Err(code) => return code,
    };
    let mut dev = match device::open_gpu(&[KernelSource::Reference]) {
        Ok(d) => d,
        Err(e) => return usage_error(e),
    };
    let mut progress = |line: &str| eprintln!("bench: {line}");
    let report = match ch05::bench::run(&mut dev, &opts, &mut progress) {
        Ok(r) => r,
        Err(e) => return usage_error(e),
    };
    let written = report
        .write(&opts.out_dir)
        .map(|json| format!("wrote {}", json.display()));
    cli::finish_bench(
        &report.table(),
        written,
        &opts.out_dir,
        report.all_correct(),
    )
}
