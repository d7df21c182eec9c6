//! `cargo run -p ch09`: chapter 9's progression, on the emulator (counters) or a GPU
//! (`--device gpu`, times), as a table or JSON; and the GPU `bench` and the
//! `demo-racecheck` subcommands.
//!
//! Options are in [`cli::Cli`]; `cargo run -p ch09 -- --help` lists them.

mod cli;

use ch09::command::Ch09;
use ch09::device;
use ch09::kernels::REFERENCE;
use ch09::launch::{self, Shape, one_per_thread};
use cli::usage_error;
use course::KernelSource;
use gpu_host::Device;
use std::process::ExitCode;

fn main() -> ExitCode {
    chapter::app::cli_main::<Ch09, cli::Command>(|command| match command {
        cli::Command::Bench(b) => bench(b),
        cli::Command::DemoRacecheck(d) => demo_racecheck(d),
    })
}

/// `ch09 bench`: see [`ch09::bench`].
fn bench(b: &cli::BenchArgs) -> ExitCode {
    let opts = match cli::bench_options("ch09", |command| b.options(command)) {
        Ok(o) => o,
        Err(code) => return code,
    };
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
