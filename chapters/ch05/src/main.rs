//! `cargo run -p ch05`: chapter 5's progression, on the emulator (counters) or a GPU
//! (`--device gpu`, times), as a table or JSON; and the GPU `bench` subcommand.
//!
//! Options are in [`cli::Cli`]; `cargo run -p ch05 -- --help` lists them.

mod cli;

use ch05::device;
use ch05::kernels::kernels;
use ch05::progression::{self, Params, Row};
use clap::{CommandFactory, FromArgMatches};
use course::KernelSource;
use gpu_host::Device;
use std::io::{IsTerminal, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    let matches = cli::Cli::command().get_matches();
    let args = cli::Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    match &args.command {
        Some(cli::Command::Bench(b)) => bench(b),
        None => match &args.trace {
            Some(path) => trace_main(&args, &matches, path),
            None => progression_main(&args),
        },
    }
}

/// `--trace FILE.svg`: one step, traced, drawn. The options the student gave (--n,
/// --block, --grid, --words-per-thread, --seed) apply; the rest are
/// [`ch05::trace::trace_params`]'s.
fn trace_main(args: &cli::Cli, matches: &clap::ArgMatches, path: &std::path::Path) -> ExitCode {
    let (params, steps) = match args.params() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let step = match steps.as_slice() {
        [] => ch05::trace::DEFAULT_STEP,
        [one] => one,
        _ => {
            eprintln!("error: --trace draws one step: give one --step");
            return ExitCode::from(2);
        }
    };
    let given = |id: &str| matches.value_source(id) == Some(clap::parser::ValueSource::CommandLine);
    let mut p = ch05::trace::trace_params();
    if given("n") {
        p.n = params.n;
    }
    if given("block") {
        p.block = params.block;
    }
    if given("grid") {
        p.grid = params.grid;
    }
    if given("words_per_thread") {
        p.words_per_thread = params.words_per_thread;
    }
    if given("seed") {
        p.seed = params.seed;
    }
    let source = match args.kernels {
        Some(cli::Source::Reference) => KernelSource::Reference,
        Some(cli::Source::Student) | None => KernelSource::Student,
    };
    match ch05::trace::draw(source, step, &p) {
        Ok(drawn) => match std::fs::write(path, &drawn.svg) {
            Ok(()) => {
                print(&format!("{}\nwrote {}\n", drawn.summary, path.display()));
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: cannot write {}: {e}", path.display());
                ExitCode::FAILURE
            }
        },
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// Writes `text` to stdout; a closed pipe (`| head`) is not an error worth a message.
fn print(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout
        .write_all(text.as_bytes())
        .and_then(|_| stdout.flush());
}

fn progression_main(args: &cli::Cli) -> ExitCode {
    let (params, steps) = match args.params() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let source = match args.kernels {
        Some(cli::Source::Reference) | None => KernelSource::Reference,
        Some(cli::Source::Student) => KernelSource::Student,
    };
    let mut dev = match args.device {
        cli::DeviceArg::Emulator => Device::emulator(),
        cli::DeviceArg::Gpu => match device::open_gpu(&[source]) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        },
    };
    // Progress goes to stderr, so that stdout stays a clean table or JSON document.
    let show_progress = std::io::stderr().is_terminal();
    let mut progress = |line: &str| {
        if show_progress {
            eprintln!("{line}");
        }
    };
    let k = kernels(source);
    let rows = if dev.is_emulator() || source == KernelSource::Reference {
        progression::run(&mut dev, k, &params, &steps, &mut progress)
    } else {
        gpu_student_rows(&mut dev, k, &params, &steps, &mut progress)
    };
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
    print(&out);
    // The progression reports, it does not judge (`cargo test -p ch05` does).
    ExitCode::SUCCESS
}

/// The student's kernels on a GPU, step by step, after a rehearsal of each step on the
/// emulator with a small input: a step that is not implemented (a `todo!()`), panics,
/// deadlocks or runs out of bounds there is not launched on the GPU, where it would trap
/// and take every later launch of the process down with it; its row is the emulator's.
fn gpu_student_rows(
    dev: &mut Device,
    k: &ch05::kernels::Kernels,
    params: &Params,
    steps: &[&'static str],
    progress: &mut dyn FnMut(&str),
) -> Vec<Row> {
    const UNSAFE_ON_GPU: [&str; 5] = [
        "not implemented",
        "panicked",
        "out of bounds",
        "timed out",
        "barrier error",
    ];
    let small = Params {
        n: params.n.min(2048),
        grid: None,
        ..params.clone()
    };
    let all: Vec<&'static str> = if steps.is_empty() {
        progression::STEPS.to_vec()
    } else {
        steps.to_vec()
    };
    let mut rows = Vec::new();
    for step in all {
        let rehearsal = progression::run(&mut Device::emulator(), k, &small, &[step], &mut |_| {});
        if let Some(bad) = rehearsal
            .iter()
            .find(|r| UNSAFE_ON_GPU.contains(&r.status.as_str()))
        {
            progress(&format!(
                "step {step}: {} on the emulator, not run on the GPU",
                bad.status
            ));
            rows.extend(rehearsal.into_iter().map(|mut r| {
                let why = format!(
                    "{} on the emulator (n = {}), so not launched on the GPU, where a \
                     fault ends every later launch of the process",
                    r.status, small.n
                );
                r.n = params.n as u64;
                r.note = Some(match r.note.take() {
                    Some(n) => format!("{why}: {n}"),
                    None => why,
                });
                r
            }));
            continue;
        }
        rows.extend(progression::run(dev, k, params, &[step], progress));
    }
    rows
}

/// What the table is about: kernels, device, sizes.
fn header(dev: &Device, source: KernelSource, p: &Params) -> String {
    let grid = p
        .grid
        .map_or("stride_grid of the SMs".to_string(), |g| g.to_string());
    let measures = if dev.is_emulator() {
        "counters are the emulator's model of the hardware (simt.eff = active lanes per warp \
         instruction, diverg = divergent steps, ld/st = global load/store requests and sectors)"
            .to_string()
    } else {
        format!(
            "times: one launch each, bracketed by CUDA events (driver's CUDA {}); GB/s = bytes \
             moved / time. For careful numbers: cargo run -p ch05 --release --features cuda -- bench",
            dev.driver_version()
                .map_or("?".into(), |(a, b)| format!("{a}.{b}"))
        )
    };
    format!(
        "Chapter 5 progression: {} kernels on the {} ({} SMs)\nn = {}, block {}, 5.3 grid {grid}, 5.6 words per thread {}, seed {}\n{measures}",
        source.name(),
        dev.props().name,
        dev.props().sm_count,
        p.n,
        p.block,
        p.words_per_thread,
        p.seed
    )
}

/// `ch05 bench`: see [`ch05::bench`].
fn bench(b: &cli::BenchArgs) -> ExitCode {
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    let opts = match b.options(command) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    if !device::has_cuda() {
        eprintln!(
            "error: no CUDA device: this ch05 was built without the `cuda` feature; run \
             cargo run -p ch05 --release --features cuda -- bench"
        );
        return ExitCode::from(2);
    }
    let mut dev = match device::open_gpu(&[KernelSource::Reference]) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let mut progress = |line: &str| eprintln!("bench: {line}");
    let report = match ch05::bench::run(&mut dev, &opts, &mut progress) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    print(&report.table());
    match report.write(&opts.out_dir) {
        Ok(json) => eprintln!("bench: wrote {}", json.display()),
        Err(e) => {
            eprintln!(
                "error: cannot write the results to {}: {e}",
                opts.out_dir.display()
            );
            return ExitCode::FAILURE;
        }
    }
    if report.all_correct() {
        ExitCode::SUCCESS
    } else {
        eprintln!("bench: some results were wrong or failed (rows with correct = false)");
        ExitCode::FAILURE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rehearsal keeps a stub off the GPU: every step of the untouched stubs is "not
    /// implemented" on the emulator, so no step reaches the device (here an emulator
    /// standing in for it), and each row says why.
    #[test]
    fn stubs_are_not_launched_on_the_gpu() {
        let params = Params {
            n: 1 << 20,
            ..Params::default()
        };
        let mut dev = Device::emulator();
        let rows = gpu_student_rows(
            &mut dev,
            &ch05::kernels::STUDENT,
            &params,
            &["5.3", "5.6"],
            &mut |_| {},
        );
        assert_eq!(rows.len(), 5);
        for r in &rows {
            assert_eq!(r.status, "not implemented");
            assert_eq!(r.n, 1 << 20);
            let note = r.note.as_deref().unwrap_or_default();
            assert!(note.contains("not launched on the GPU"), "{note}");
        }
    }
}
