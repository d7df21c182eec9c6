//! `cargo run -q -p chapters`: the course's chapter ids, one a line, in order: the list
//! that CI (`.ci/run`) and the book's generator (`book/gen/regenerate.sh`) loop over.
//! `--help` says so; any other argument is an error (status 2).

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [] => {
            for c in chapters::all() {
                println!("{}", c.id);
            }
            ExitCode::SUCCESS
        }
        [h] if h == "--help" || h == "-h" => {
            println!(
                "Prints the course's chapter ids (the crates under chapters/), one a line, in \
                 order.\n\nUsage: chapters"
            );
            ExitCode::SUCCESS
        }
        _ => {
            eprintln!("error: chapters takes no arguments (see --help)");
            ExitCode::from(2)
        }
    }
}
