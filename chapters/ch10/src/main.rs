//! `cargo run -p ch10`: chapter 10's progression, on the emulator (counters) or a GPU
//! (`--device gpu`, times), as a table or JSON, or one step drawn (`--trace`); and the GPU
//! `bench` subcommand.
//!
//! Options are in [`chapter::app::Cli`] and [`ch10::progression::Params`];
//! `cargo run -p ch10 -- --help` lists them.

mod cli;

use ch10::command::Ch10;
use std::process::ExitCode;

fn main() -> ExitCode {
    chapter::app::cli_main::<Ch10, cli::Command>(|command| match command {
        cli::Command::Bench(b) => bench(b),
    })
}

/// `ch10 bench`: see [`ch10::bench`].
fn bench(b: &cli::BenchArgs) -> ExitCode {
    let opts = match chapter::cli::bench_options("ch10", |command| b.options(command)) {
        Ok(o) => o,
        Err(code) => return code,
    };
    let mut progress = |line: &str| eprintln!("bench: {line}");
    let report = match ch10::bench::run(&opts, &mut progress) {
        Ok(r) => r,
        Err(e) => return chapter::cli::usage_error(e),
    };
    let written = report
        .write(&opts.common.out_dir)
        .map(|(csv, json)| format!("wrote {} and {}", csv.display(), json.display()));
    chapter::cli::finish_bench(
        &report.table_titled("Chapter 10 bench", "issue 48"),
        written,
        &opts.common.out_dir,
        report.all_correct(),
    )
}
