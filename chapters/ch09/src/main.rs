//! `cargo run -p ch09`: chapter 9's progression, on the emulator (counters) or a GPU
//! (`--device gpu`, times), as a table or JSON; and the GPU `bench` and the
//! `demo-racecheck` subcommands.
//!
//! Options are in [`cli::Cli`]; `cargo run -p ch09 -- --help` lists them.

mod cli;

use ch09::device;
use ch09::kernels::{REFERENCE, kernels};
use ch09::launch::{self, Shape, one_per_thread};
use ch09::progression::{self, Params, Row};
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
        Some(cli::Command::DemoRacecheck(d)) => demo_racecheck(d),
        None => match &args.trace {
            Some(path) => trace_main(&args, &matches, path),
            None => progression_main(&args),
        },
    }
}

/// `--trace FILE.svg`: one step, traced, drawn. The options the student gave (--n,
/// --bins, --block, ...) apply; the rest are [`ch09::trace::trace_params`]'s.
fn trace_main(args: &cli::Cli, matches: &clap::ArgMatches, path: &std::path::Path) -> ExitCode {
    let (params, steps) = match args.params() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let step = match steps.as_slice() {
        [] => ch09::trace::DEFAULT_STEP,
        [one] => one,
        _ => {
            eprintln!("error: --trace draws one step: give one --step");
            return ExitCode::from(2);
        }
    };
    let given = |id: &str| matches.value_source(id) == Some(clap::parser::ValueSource::CommandLine);
    let mut p = ch09::trace::trace_params();
    if params.n.is_some() {
        p.n = params.n;
    }
    if given("bins") {
        p.bins = params.bins;
    }
    if given("block") {
        p.block = params.block;
    }
    if given("grid") {
        p.grid = params.grid;
    }
    if given("coarsen") {
        p.coarsen = params.coarsen;
    }
    if given("input") {
        p.input = params.input.clone();
    }
    if given("seed") {
        p.seed = params.seed;
    }
    let source = match args.kernels {
        Some(cli::Source::Reference) => KernelSource::Reference,
        Some(cli::Source::Student) | None => KernelSource::Student,
    };
    match ch09::trace::draw(source, step, &p) {
        Ok(drawn) => match std::fs::write(path, &drawn.svg) {
            Ok(()) => {
                println!("{}\nwrote {}", drawn.summary, path.display());
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
    let n = params.elements();
    // Progress goes to stderr, so that stdout stays a clean table or JSON document; only
    // for a person watching, or for a run long enough to need it.
    let show_progress = std::io::stderr().is_terminal() || n >= 1 << 20;
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
    // The progression reports, it does not judge (`cargo test -p ch09` does).
    ExitCode::SUCCESS
}

/// The student's kernels on a GPU, step by step, after a rehearsal of each step on the
/// emulator with a small input: a step that is not implemented (a `todo!()`), panics,
/// deadlocks or runs out of bounds there is not launched on the GPU, where it would trap
/// and take every later launch of the process down with it; its row is the emulator's.
fn gpu_student_rows(
    dev: &mut Device,
    k: &ch09::kernels::Kernels,
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
        n: Some(2048),
        input: match &params.input {
            ch09::inputs::InputKind::Text(t) => {
                ch09::inputs::InputKind::Text(t.iter().copied().take(2048).collect())
            }
            other => other.clone(),
        },
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
                    "{} on the emulator (n = 2048), so not launched on the GPU, where a \
                     fault ends every later launch of the process",
                    r.status
                );
                r.n = params.elements() as u64;
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

/// What the table is about: kernels, device, input.
fn header(dev: &Device, source: KernelSource, p: &progression::Params) -> String {
    let grid = p
        .grid
        .map_or("from the device".to_string(), |g| g.to_string());
    let measures = if dev.is_emulator() {
        "counters are the emulator's model of the hardware (g. = global, s. = shared, worst.ser = most lanes of one atomic on one address)".to_string()
    } else {
        format!(
            "times: one launch each, bracketed by CUDA events (driver's CUDA {}); GB/s = input bytes / time. \
             For careful numbers: cargo run -p ch09 --release --features cuda -- bench",
            dev.driver_version()
                .map_or("?".into(), |(a, b)| format!("{a}.{b}"))
        )
    };
    format!(
        "Chapter 9 progression: {} kernels on the {}\ninput {}, n = {}, {} bins, block {}, grid {grid}, coarsening {}, seed {}\n{measures}",
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

/// `ch09 bench`: see [`ch09::bench`].
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
            "error: no CUDA device: this ch09 was built without the `cuda` feature; run \
             cargo run -p ch09 --release --features cuda -- bench"
        );
        return ExitCode::from(2);
    }
    let mut progress = |line: &str| eprintln!("bench: {line}");
    let report = match ch09::bench::run(&opts, &mut progress) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    print(&report.table());
    match report.write(&opts.out_dir) {
        Ok((csv, json)) => eprintln!("bench: wrote {} and {}", csv.display(), json.display()),
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

/// `ch09 demo-racecheck`: 9.5's kernel without its barriers, on the emulator and on the
/// GPU (for `compute-sanitizer --tool racecheck`).
fn demo_racecheck(d: &cli::DemoArgs) -> ExitCode {
    let k = solutions::bench::histo_shared_no_barrier::KERNEL;
    let bins = 256;
    let block = 256;
    println!(
        "demo-racecheck: {} (9.5's histo_private_shared without its two sync_threads)",
        k.name
    );
    // The emulator: the same race, reported on every run.
    let small = ch09::inputs::uniform(4096, 5);
    let shape = Shape::new(one_per_thread(small.len(), block), block);
    let mut emu = Device::emulator();
    match launch::bytes(&mut emu, &k, &small, bins, shape) {
        Ok(run) => {
            let right = run.bins == ch09::reference::byte_histogram(&small, bins);
            println!(
                "emulator, n = {}: bins {}",
                small.len(),
                if right { "right (by luck)" } else { "WRONG" }
            );
            match run.report.findings().iter().find(|f| f.is_race()) {
                Some(f) => println!("emulator racecheck: {f}"),
                None => println!("emulator racecheck: no race reported (unexpected)"),
            }
        }
        Err(e) => println!("emulator: the launch failed: {e}"),
    }
    if d.device == cli::DeviceArg::Emulator {
        return ExitCode::SUCCESS;
    }
    // The GPU: run it under `compute-sanitizer --tool racecheck` to see the hazards.
    let mut gpu = match device::open_gpu(&[KernelSource::Reference]) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let data = ch09::inputs::uniform(d.n, 6);
    let shape = Shape::new(one_per_thread(data.len(), block), block);
    match launch::bytes(&mut gpu, &k, &data, bins, shape) {
        Ok(run) => {
            let expected = ch09::reference::byte_histogram(&data, bins);
            let wrong = run
                .bins
                .iter()
                .zip(&expected)
                .filter(|(a, b)| a != b)
                .count();
            let lost: i64 = expected.iter().map(|&x| x as i64).sum::<i64>()
                - run.bins.iter().map(|&x| x as i64).sum::<i64>();
            println!(
                "{}, n = {}, <<<{}, {block}>>>: {wrong} of {bins} bins wrong, {lost} counts lost \
                 (timing decides; racecheck finds the race either way)",
                gpu.props().name,
                data.len(),
                shape.grid
            );
            // The reference kernel on the same input, for contrast: racecheck stays quiet.
            let right = launch::bytes(
                &mut gpu,
                &REFERENCE.histo_private_shared,
                &data,
                bins,
                shape,
            )
            .map(|r| r.bins == expected);
            println!(
                "histo_private_shared (with its barriers), same input: {}",
                match right {
                    Ok(true) => "right".to_string(),
                    Ok(false) => "WRONG".to_string(),
                    Err(e) => format!("failed: {e}"),
                }
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: the GPU launch failed: {e}");
            ExitCode::FAILURE
        }
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
            n: Some(1 << 20),
            ..Params::default()
        };
        let mut dev = Device::emulator();
        let rows = gpu_student_rows(
            &mut dev,
            &ch09::kernels::STUDENT,
            &params,
            &["9.3", "9.9"],
            &mut |_| {},
        );
        assert_eq!(rows.len(), 2);
        for r in &rows {
            assert_eq!(r.status, "not implemented");
            assert_eq!(r.n, 1 << 20);
            let note = r.note.as_deref().unwrap_or_default();
            assert!(note.contains("not launched on the GPU"), "{note}");
        }
    }
}
