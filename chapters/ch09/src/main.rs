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
        cli::Command::Verify(v) => verify(v),
        cli::Command::Constant(c) => constant(c),
        cli::Command::Streams(s) => streams(s),
    })
}

/// Prints `text` wrapped at 80 columns, as the progression's header is.
fn say(text: &str) {
    println!(
        "{}",
        chapter::table::wrap_lines(text, chapter::table::NOTE_WIDTH)
    );
}

/// The device `arg` names, with the PTX of `sources` loaded on a GPU.
fn open(arg: cli::DeviceArg, sources: &[KernelSource]) -> Result<Device, ExitCode> {
    match arg {
        cli::DeviceArg::Emulator => Ok(Device::emulator()),
        cli::DeviceArg::Gpu => device::open_gpu(sources).map_err(usage_error),
    }
}

/// `ch09 verify`: see [`ch09::verify`].
fn verify(v: &cli::VerifyArgs) -> ExitCode {
    use chapter::app::Progression;
    let params = match Ch09::check(&v.params, v.device) {
        Ok(p) => p,
        Err(e) => return usage_error(e),
    };
    let steps: Vec<&str> = if v.steps.is_empty() {
        ch09::verify::STEPS.to_vec()
    } else {
        v.steps.iter().map(|s| s.trim()).collect()
    };
    if let Some(why) = steps.iter().find_map(|s| ch09::verify::unsupported(s)) {
        return usage_error(why);
    }
    let source = chapter::app::KernelsArg::or(Some(v.kernels), KernelSource::Reference);
    let mut sources = vec![KernelSource::Reference];
    if source == KernelSource::Student {
        sources.insert(0, KernelSource::Student);
    }
    let mut dev = match open(v.device, &sources) {
        Ok(d) => d,
        Err(code) => return code,
    };
    let k = ch09::kernels::kernels(source);
    println!(
        "Verification by decrementing: {} kernels on {}\n{}",
        source.name(),
        if dev.is_emulator() {
            "the emulator".to_string()
        } else {
            dev.props().name.clone()
        },
        Ch09::describe(&params)
    );
    let mut all_right = true;
    for step in steps {
        // A student's kernel goes to a GPU only after it ran on the emulator: a fault
        // there would end the GPU's context (as the progression rehearses).
        if !dev.is_emulator() && source == KernelSource::Student {
            let small = Ch09::rehearsal_params(&params);
            let rehearsed = ch09::verify::run(&mut Device::emulator(), k, step, &small);
            if let Ok(verdicts) = &rehearsed
                && let Some(bad) = verdicts.iter().find(|v| v.outcome.is_err())
            {
                println!("step {step} (not run on the GPU: on the emulator it failed)");
                println!("  {}", bad.line().replace('\n', "\n  "));
                all_right = false;
                continue;
            }
        }
        match ch09::verify::run(&mut dev, k, step, &params) {
            Ok(verdicts) => {
                println!("step {step}");
                for v in &verdicts {
                    println!("  {}", v.line().replace('\n', "\n  "));
                    all_right &= v.is_right();
                }
            }
            Err(why) => {
                println!("step {step}: not verified: {why}");
                all_right = false;
            }
        }
    }
    if all_right {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// `ch09 constant`: see [`ch09::lookup`].
fn constant(a: &cli::ConstantArgs) -> ExitCode {
    let block = match cli::check_block(a.block) {
        Ok(b) => b,
        Err(e) => return usage_error(e),
    };
    let kind = if a.input == "text" {
        Ok(ch09::inputs::InputKind::Text(
            ch09::inputs::TEXT.as_bytes().to_vec(),
        ))
    } else {
        chapter::inputs::parse_input(&a.input)
    };
    let kind = match kind {
        Ok(k) => k,
        Err(e) => return usage_error(format!("--input: {e}")),
    };
    let n = a.n.unwrap_or(match a.device {
        cli::DeviceArg::Emulator => 1 << 18,
        cli::DeviceArg::Gpu => 1 << 28,
    });
    if a.device == cli::DeviceArg::Emulator && n > ch09::command::MAX_N {
        return usage_error(format!(
            "--n {n} is more than the emulator runs in reasonable time (at most {})",
            ch09::command::MAX_N
        ));
    }
    if a.grid == Some(0) || a.letters_per_bin == 0 {
        return usage_error("--grid and --letters-per-bin must be at least 1");
    }
    let text = ch09::inputs::bytes(&kind, n, a.seed);
    let mut dev = match open(a.device, &[KernelSource::Reference]) {
        Ok(d) => d,
        Err(code) => return code,
    };
    say(&format!(
        "Constant memory: a letter histogram of {n} bytes ({}), {} bins from a table of 256 \
         in constant memory, on {}",
        kind.describe(),
        ch09::lookup::letter_bins(a.letters_per_bin),
        if dev.is_emulator() {
            "the emulator".to_string()
        } else {
            dev.props().name.clone()
        }
    ));
    match ch09::lookup::run(&mut dev, &text, a.letters_per_bin, block, a.grid, a.reps) {
        Ok(runs) => {
            cli::print(&ch09::lookup::table(&runs, text.len()));
            if dev.is_emulator() {
                say(
                    "c.loads: constant-memory load instructions; c.serial: their extra passes \
                     (one per distinct address after the first); c.worst: the most distinct \
                     addresses of one; bank.conf: shared-memory bank conflicts",
                );
            } else {
                say(&format!(
                    "median of {} launches each, CUDA events, every launch from a cold L2 and \
                     zeroed bins; GB/s = text bytes / time",
                    a.reps
                ));
            }
            if runs.iter().all(|r| r.correct) {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `ch09 streams`: see [`ch09::streams`].
fn streams(a: &cli::StreamsArgs) -> ExitCode {
    let block = match cli::check_block(a.block) {
        Ok(b) => b,
        Err(e) => return usage_error(e),
    };
    if a.bins == 0 || a.bins as u64 * 4 > ch09::launch::DEFAULT_SHARED_BYTES as u64 {
        return usage_error(format!(
            "--bins must be between 1 and {} (one u32 each in a block's 48 KiB)",
            ch09::launch::DEFAULT_SHARED_BYTES / 4
        ));
    }
    if a.grids.contains(&0) {
        return usage_error("--grid must be at least 1");
    }
    let n = a.n.unwrap_or(match a.device {
        cli::DeviceArg::Emulator => 1 << 18,
        cli::DeviceArg::Gpu => 1 << 29,
    });
    if a.device == cli::DeviceArg::Emulator && n > ch09::command::MAX_N {
        return usage_error(format!(
            "--n {n} is more than the emulator runs in reasonable time (at most {})",
            ch09::command::MAX_N
        ));
    }
    let data = ch09::inputs::uniform(n, a.seed);
    let mut dev = match open(a.device, &[KernelSource::Reference]) {
        Ok(d) => d,
        Err(code) => return code,
    };
    let resident = dev.props().sm_count * dev.props().blocks_per_sm_with_shared(block, a.bins * 4);
    let grids = if a.grids.is_empty() {
        vec![(resident / 2).max(1), resident]
    } else {
        a.grids.clone()
    };
    say(&format!(
        "Two streams: the two halves of {n} uniform bytes, each counted by \
         histo_private_dynamic into {} bins, on {} ({} SMs, {resident} resident blocks of {block} threads)",
        a.bins,
        if dev.is_emulator() {
            "the emulator".to_string()
        } else {
            dev.props().name.clone()
        },
        dev.props().sm_count,
    ));
    match ch09::streams::run(&mut dev, &data, a.bins, block, &grids, a.reps) {
        Ok(runs) => {
            cli::print(&ch09::streams::table(&runs, n));
            if dev.is_emulator() {
                say(
                    "The emulator runs each launch to its end, one after the other; what a GPU \
                     may overlap:",
                );
                cli::print(&ch09::streams::timeline(&dev));
            } else {
                say(&format!(
                    "median of {} runs each, CUDA events from before the first launch to after \
                     both; ratio = one stream / two streams; GB/s = input bytes / time",
                    a.reps
                ));
            }
            if runs.iter().all(|r| r.correct.iter().all(|&c| c)) {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
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
            .write(&opts.common.out_dir)
            .map(|json| format!("wrote {} (and a folder per size)", json.display()));
        return cli::finish_bench(
            &sweep.table(),
            written,
            &opts.common.out_dir,
            sweep.all_correct(),
        );
    }
    let report = match ch09::bench::run(&opts, &mut progress) {
        Ok(r) => r,
        Err(e) => return usage_error(e),
    };
    let written = report
        .write(&opts.common.out_dir)
        .map(|(csv, json)| format!("wrote {} and {}", csv.display(), json.display()));
    cli::finish_bench(
        &report.table(),
        written,
        &opts.common.out_dir,
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
            let right = run.out == ch09::reference::byte_histogram(&small, bins);
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
                .out
                .iter()
                .zip(&expected)
                .filter(|(a, b)| a != b)
                .count();
            let lost: i64 = expected.iter().map(|&x| x as i64).sum::<i64>()
                - run.out.iter().map(|&x| x as i64).sum::<i64>();
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
            .map(|r| r.out == expected);
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
