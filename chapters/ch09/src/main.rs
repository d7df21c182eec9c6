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
use cli::usage_error;
use course::KernelSource;
use gpu_host::Device;
use std::io::IsTerminal;
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
        Err(e) => return usage_error(e),
    };
    let step = match cli::trace_step(&steps, ch09::trace::DEFAULT_STEP) {
        Ok(step) => step,
        Err(code) => return code,
    };
    let given = |id: &str| cli::given(matches, id);
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
    cli::write_trace(path, ch09::trace::draw(source, step, &p))
}

fn progression_main(args: &cli::Cli) -> ExitCode {
    let (params, steps) = match args.params() {
        Ok(p) => p,
        Err(e) => return usage_error(e),
    };
    let source = match args.kernels {
        Some(cli::Source::Reference) | None => KernelSource::Reference,
        Some(cli::Source::Student) => KernelSource::Student,
    };
    let n = params.elements();
    // Progress goes to stderr, so that stdout stays a clean table or JSON document; only
    // for a person watching, or for a run long enough to need it.
    let show_progress = std::io::stderr().is_terminal() || n >= 1 << 20;
    let k = kernels(source);
    // The progression reports, it does not judge (`cargo test -p ch09` does).
    cli::progression(
        args.device,
        source,
        &args.output,
        &[progression::EMULATOR_COLUMNS, progression::GPU_COLUMNS],
        show_progress,
        |dev, progress| {
            if dev.is_emulator() || source == KernelSource::Reference {
                progression::run(dev, k, &params, &steps, progress)
            } else {
                gpu_student_rows(dev, k, &params, &steps, progress)
            }
        },
        |dev| header(dev, source, &params),
        |rows, columns| progression::table_columns(rows, true, columns),
    )
}

/// The student's kernels on a GPU, step by step, each rehearsed first on the emulator
/// with a small input ([`chapter::rehearsal`]): a step that would trap there keeps the
/// emulator's rows.
fn gpu_student_rows(
    dev: &mut Device,
    k: &ch09::kernels::Kernels,
    params: &Params,
    steps: &[&'static str],
    progress: &mut dyn FnMut(&str),
) -> Vec<Row> {
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
    let all = if steps.is_empty() {
        &progression::STEPS[..]
    } else {
        steps
    };
    chapter::rehearsal::rehearse_then_run(
        all,
        2048,
        params.elements() as u64,
        |step| progression::run(&mut Device::emulator(), k, &small, &[step], &mut |_| {}),
        |step, progress| progression::run(dev, k, params, &[step], progress),
        progress,
    )
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
        "Chapter 9 progression: {} kernels\ndevice: {}\ninput {}, n = {}, {} bins, seed {}\nblock {}, grid {grid}, coarsening {}\n{measures}",
        source.name(),
        dev.props().name,
        p.input.describe(),
        p.elements(),
        p.bins,
        p.seed,
        p.block,
        p.coarsen,
    )
}

/// `ch09 bench`: see [`ch09::bench`].
fn bench(b: &cli::BenchArgs) -> ExitCode {
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    let opts = match b.options(command) {
        Ok(o) => o,
        Err(e) => return usage_error(e),
    };
    if let Err(code) = cli::require_cuda("ch09") {
        return code;
    }
    let mut progress = |line: &str| eprintln!("bench: {line}");
    if !b.sizes.is_empty() {
        let sizes: Vec<u64> = b.sizes.iter().map(|mib| mib << 20).collect();
        let sweep = match ch09::bench::run_sizes(&opts, &sizes, &mut progress) {
            Ok(s) => s,
            Err(e) => return usage_error(e),
        };
        let written = sweep
            .write(&opts.out_dir)
            .map(|json| format!("wrote {} (and a folder per size)", json.display()));
        return cli::finish_bench(&sweep.table(), written, &opts.out_dir, sweep.all_correct());
    }
    let report = match ch09::bench::run(&opts, &mut progress) {
        Ok(r) => r,
        Err(e) => return usage_error(e),
    };
    let written = report
        .write(&opts.out_dir)
        .map(|(csv, json)| format!("wrote {} and {}", csv.display(), json.display()));
    cli::finish_bench(
        &report.table(),
        written,
        &opts.out_dir,
        report.all_correct(),
    )
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
        Err(e) => return usage_error(e),
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

    /// A stand-in for an unsolved exercise, so that this test never depends on what the
    /// student has (or has not yet) written in `kernels/`.
    #[gpu::kernel]
    fn unsolved(data: gpu::GlobalSlice<u8>, histo: gpu::GlobalSlice<u32>) {
        let _ = (data, histo);
        todo!("9.x: an unsolved stand-in")
    }

    /// The rehearsal keeps a stub off the GPU: a step whose kernel is still a `todo!` is
    /// "not implemented" on the emulator, so it never reaches the device (here an emulator
    /// standing in for it), and each row says why.
    #[test]
    fn stubs_are_not_launched_on_the_gpu() {
        let params = Params {
            n: Some(1 << 20),
            ..Params::default()
        };
        let stubs = ch09::kernels::Kernels {
            histo_atomic: unsolved::KERNEL,
            histo_fastest: unsolved::KERNEL,
            ..ch09::kernels::REFERENCE
        };
        let mut dev = Device::emulator();
        let rows = gpu_student_rows(&mut dev, &stubs, &params, &["9.3", "9.9"], &mut |_| {});
        assert_eq!(rows.len(), 2);
        for r in &rows {
            assert_eq!(r.status, "not implemented");
            assert_eq!(r.n, 1 << 20);
            let note = r.note.as_deref().unwrap_or_default();
            assert!(note.contains("not launched on the GPU"), "{note}");
        }
    }
}
