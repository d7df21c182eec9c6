//! `cargo run -p ch05`: chapter 5's progression, on the emulator (counters) or a GPU
//! (`--device gpu`, times), as a table or JSON; and the GPU `bench` subcommand.
//!
//! Options are in [`cli::Cli`]; `cargo run -p ch05 -- --help` lists them.

mod cli;

use ch05::device;
use ch05::kernels::kernels;
use ch05::progression::{self, Params, Row};
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
        None => match &args.trace {
            Some(path) => trace_main(&args, &matches, path),
            None => progression_main(&args),
        },
    }
}

/// `--trace FILE.svg`: one step, traced, drawn. The options the student gave (--n,
/// --block, --grid, --words-per-thread, --seed, --input) apply; the rest are
/// [`ch05::trace::trace_params`]'s.
fn trace_main(args: &cli::Cli, matches: &clap::ArgMatches, path: &std::path::Path) -> ExitCode {
    let (params, steps) = match args.params() {
        Ok(p) => p,
        Err(e) => return usage_error(e),
    };
    let step = match cli::trace_step(&steps, ch05::trace::DEFAULT_STEP) {
        Ok(step) => step,
        Err(code) => return code,
    };
    let given = |id: &str| cli::given(matches, id);
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
    if given("input") {
        p.input = params.input;
    }
    let source = match args.kernels {
        Some(cli::Source::Reference) => KernelSource::Reference,
        Some(cli::Source::Student) | None => KernelSource::Student,
    };
    cli::write_trace(path, ch05::trace::draw(source, step, &p))
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
    // Progress goes to stderr, so that stdout stays a clean table or JSON document.
    let show_progress = std::io::stderr().is_terminal();
    let k = kernels(source);
    // The progression reports, it does not judge (`cargo test -p ch05` does).
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
    k: &ch05::kernels::Kernels,
    params: &Params,
    steps: &[&'static str],
    progress: &mut dyn FnMut(&str),
) -> Vec<Row> {
    let small = Params {
        n: params.n.min(2048),
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
        small.n,
        params.n as u64,
        |step| progression::run(&mut Device::emulator(), k, &small, &[step], &mut |_| {}),
        |step, progress| progression::run(dev, k, params, &[step], progress),
        progress,
    )
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
        "Chapter 5 progression: {} kernels\ndevice: {} ({} SMs)\nn = {}, block {}, input {}, seed {}\n5.3 grid {grid}, 5.6 words per thread {}\n{measures}",
        source.name(),
        dev.props().name,
        dev.props().sm_count,
        p.n,
        p.block,
        p.input.describe(),
        p.seed,
        p.words_per_thread,
    )
}

/// `ch05 bench`: see [`ch05::bench`].
fn bench(b: &cli::BenchArgs) -> ExitCode {
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    let opts = match b.options(command) {
        Ok(o) => o,
        Err(e) => return usage_error(e),
    };
    if let Err(code) = cli::require_cuda("ch05") {
        return code;
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Stand-ins for unsolved exercises, so that this test never depends on what the
    /// student has (or has not yet) written in `kernels/`.
    #[gpu::kernel]
    fn unsolved_mul(a: gpu::GlobalSlice<u32>, b: gpu::GlobalSlice<u32>, c: gpu::GlobalSlice<u32>) {
        let _ = (a, b, c);
        todo!("5.x: an unsolved stand-in")
    }

    #[gpu::kernel]
    fn unsolved_histo(data: gpu::GlobalSlice<u8>, histo: gpu::GlobalSlice<u32>) {
        let _ = (data, histo);
        todo!("5.x: an unsolved stand-in")
    }

    #[gpu::kernel]
    fn unsolved_histo_n(data: gpu::GlobalSlice<u8>, histo: gpu::GlobalSlice<u32>, n: u32) {
        let _ = (data, histo, n);
        todo!("5.x: an unsolved stand-in")
    }

    /// The reference table with the kernels of 5.3 and 5.6 left unsolved.
    fn unsolved_kernels() -> ch05::kernels::Kernels {
        ch05::kernels::Kernels {
            mul_grid_stride: unsolved_mul::KERNEL,
            histo_byte: unsolved_histo::KERNEL,
            histo_word: unsolved_histo::KERNEL,
            histo_shared: unsolved_histo::KERNEL,
            histo_shared_n: unsolved_histo_n::KERNEL,
            ..ch05::kernels::REFERENCE
        }
    }

    /// The rehearsal keeps a stub off the GPU: a step whose kernels are still `todo!` is
    /// "not implemented" on the emulator, so no step reaches the device (here an emulator
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
            &unsolved_kernels(),
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
