//! `cargo run -p ch10`: chapter 10's progression, on the emulator (counters) or a GPU
//! (`--device gpu`, times), as a table or JSON, or one step drawn (`--trace`).
//!
//! Options are in [`chapter::app::Cli`] and [`ch10::progression::Params`];
//! `cargo run -p ch10 -- --help` lists them.

use ch10::command::Ch10;
use std::process::ExitCode;

/// The chapter's subcommands: none yet (its GPU bench is the course's bench crate's).
#[derive(clap::Subcommand, Debug)]
enum Command {}

fn main() -> ExitCode {
    chapter::app::cli_main::<Ch10, Command>(|command| match *command {})
}
