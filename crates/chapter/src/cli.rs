//! The small pieces of every chapter's command ([`crate::app`]) and of its `bench`: the
//! `--device` choice, printing to a pipe, the `--trace` file, the rows as JSON or text,
//! and how `bench` starts and ends, with the messages they print.

use crate::device;
use crate::trace::Drawn;
use clap::ValueEnum;
use course::KernelSource;
use gpu_host::Device;
use serde::Serialize;
use std::fmt::Display;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

/// Where to run (`--device`): both chapters offer the same two.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DeviceArg {
    /// The SIMT emulator: counters, races, deterministic.
    Emulator,
    /// CUDA device 0 (a build with `--features cuda`).
    Gpu,
}

/// How the progression prints its rows: the options both chapters' commands share
/// (flattened into each `Cli`), so that their names, help and checks cannot drift apart.
#[derive(clap::Args, Clone, Debug, Default, PartialEq, Eq)]
pub struct RowsOutput {
    /// Print one JSON array of rows instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Only these columns of the table, by their heads, comma-separated, in the table's
    /// order (e.g. `--columns step,kernel,s.atomics,at.conf`); the notes stay.
    #[arg(
        long,
        value_name = "HEADS",
        value_delimiter = ',',
        conflicts_with = "json"
    )]
    pub columns: Vec<String>,
    /// With --json on the emulator: each row also carries its counters under the names of
    /// the Nsight Compute metrics they model (an `ncu` object), what
    /// bench/fidelity.py compares with ncu on a GPU.
    #[arg(long, requires = "json")]
    pub ncu_names: bool,
}

/// Writes `text` to stdout; a closed pipe (`| head`) is not an error worth a message.
pub fn print(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout
        .write_all(text.as_bytes())
        .and_then(|_| stdout.flush());
}

/// Prints `error: {e}` and returns exit status 2: the command was asked for something
/// it cannot do (bad options, no GPU), as opposed to a run that went wrong (status 1).
pub fn usage_error(e: impl Display) -> ExitCode {
    eprintln!("error: {e}");
    ExitCode::from(2)
}

/// The one step `--trace` draws: `default` when no `--step` was given; an error when
/// several were (a picture is of one launch).
pub fn trace_step<'a>(steps: &[&'a str], default: &'a str) -> Result<&'a str, ExitCode> {
    match steps {
        [] => Ok(default),
        [one] => Ok(one),
        _ => Err(usage_error("--trace draws one step: give one --step")),
    }
}

/// Prints what the kernels of the run printed (`gpu::println!`), on standard error, each
/// line labelled `kernel output: launch K KERNEL<<<grid, block>>>: block (..) thread (..):`
/// (`simt::kernel_output`, at most its 200 lines), so that the table or JSON on standard
/// output stays clean.
pub fn print_kernel_output() {
    let lines = gpu_host::kernel_output::take();
    if lines.is_empty() {
        return;
    }
    let mut err = std::io::stderr().lock();
    for line in lines {
        let _ = writeln!(err, "kernel output: {}", gpu_host::printable(&line));
    }
}

/// Writes a drawn trace to `path` and prints its summary: how `--trace FILE.svg` ends.
pub fn write_trace(path: &Path, drawn: Result<Drawn, String>) -> ExitCode {
    match drawn {
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
        Err(e) => usage_error(e),
    }
}

/// The device `--device` names, with the PTX of `source` loaded on a GPU; an error
/// already printed (status 2) when no GPU can be opened.
pub(crate) fn open_device(arg: DeviceArg, source: KernelSource) -> Result<Device, ExitCode> {
    match arg {
        DeviceArg::Emulator => Ok(Device::emulator()),
        DeviceArg::Gpu => device::open_gpu(&[source]).map_err(usage_error),
    }
}

/// Progress lines to stderr, so that stdout stays a clean table or JSON document; only
/// when `show` (a person watching, or a run long enough to need it).
pub fn progress(show: bool) -> impl FnMut(&str) {
    move |line: &str| {
        if show {
            eprintln!("{line}");
        }
    }
}

/// The progression's output: `rows` as one pretty JSON array with `--json`, else
/// `header` and the table `table()` renders. An error already printed (status 1) when
/// the rows cannot be written as JSON.
pub(crate) fn rows_output<R: Serialize>(
    rows: &[R],
    json: bool,
    header: impl FnOnce() -> String,
    table: impl FnOnce() -> String,
) -> Result<String, ExitCode> {
    if json {
        match serde_json::to_string_pretty(rows) {
            Ok(s) => Ok(s + "\n"),
            Err(e) => {
                eprintln!("error: cannot write the rows as JSON: {e}");
                Err(ExitCode::FAILURE)
            }
        }
    } else {
        Ok(format!("{}\n{}", header(), table()))
    }
}

/// How `bench` starts: its options, checked by `options` (given the command line, which
/// the report records), and a GPU, which `bench` needs: an error already printed (status
/// 2) for a bad option, or naming the command to run when this build of `chapter` (`ch05`,
/// `ch09`) has no `cuda` feature.
pub fn bench_options<O>(
    chapter: &str,
    options: impl FnOnce(String) -> Result<O, String>,
) -> Result<O, ExitCode> {
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    let opts = options(command).map_err(usage_error)?;
    if device::has_cuda() {
        Ok(opts)
    } else {
        Err(usage_error(format!(
            "no CUDA device: this {chapter} was built without the `cuda` feature; run \
             cargo run -p {chapter} --release --features cuda -- bench"
        )))
    }
}

/// How `bench` ends: the table to stdout, what `written` wrote (`Ok("wrote ...")`) or why
/// it could not write to `out_dir`, and a failure when not `all_correct`, so that a
/// script running the bench notices a wrong kernel.
pub fn finish_bench(
    table: &str,
    written: std::io::Result<String>,
    out_dir: &Path,
    all_correct: bool,
) -> ExitCode {
    print(table);
    match written {
        Ok(what) => eprintln!("bench: {what}"),
        Err(e) => {
            eprintln!(
                "error: cannot write the results to {}: {e}",
                out_dir.display()
            );
            return ExitCode::FAILURE;
        }
    }
    if all_correct {
        ExitCode::SUCCESS
    } else {
        eprintln!("bench: some results were wrong or failed (rows with correct = false)");
        ExitCode::FAILURE
    }
}
