//! The progression command of every chapter (`cargo run -p ch05`, `cargo run -p ch09`),
//! generic over what a chapter says of its steps: [`Progression`].
//!
//! A chapter names its steps, parameters, kernels, rows and table; this module does the
//! rest alike for every chapter: open the device `--device` names, run the steps (the
//! student's rehearsed on the emulator before a GPU, [`crate::rehearsal`]), draw one step
//! with `--trace`, print the table or JSON. So a third chapter writes its records and its
//! table, not another copy of the command.

use crate::cli::{self, DeviceArg, RowsOutput};
use crate::row::Row;
use crate::table::Layout;
use crate::trace::Drawn;
use clap::ValueEnum;
use course::KernelSource;
use gpu_host::Device;
use serde::Serialize;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// What the shared command needs of a chapter's progression: its steps, how to run them
/// with one table of kernels, and how to print and trace them.
pub trait Progression {
    /// The chapter's crate and command, `"ch09"`: what the messages name.
    const NAME: &'static str;
    /// What `--help` says the command does (its first paragraph).
    const ABOUT: &'static str;
    /// `--trace`'s help: which step it draws by default and on what input.
    const TRACE_HELP: &'static str;
    /// What `--help` ends with: examples.
    const AFTER_HELP: &'static str;
    /// The step `--trace` draws when no `--step` names one.
    const DEFAULT_TRACE_STEP: &'static str;
    /// Every step's id, in the order the book teaches them.
    const STEPS: &'static [&'static str];
    /// How the table lays out a row; its heads are what `--columns` may name.
    const LAYOUT: Layout<Row<Self::Extra>>;
    /// What one run is of: sizes, input, launch shape; the command's own options (their
    /// defaults are [`defaults`]).
    type Params: Clone + clap::Args + clap::FromArgMatches;
    /// The chapter's own columns of a row ([`Row`]'s `extra`).
    type Extra: Serialize + std::fmt::Debug;
    /// A table of the chapter's kernels (the student's or the reference).
    type Kernels: Sync + 'static;

    /// `params` as given on the command line, checked against each other and against
    /// `device` (the error is one line for the student), with what depends on the device
    /// filled in.
    fn check(params: &Self::Params, device: DeviceArg) -> Result<Self::Params, String>;
    /// The kernels of `source`.
    const KERNELS: fn(KernelSource) -> &'static Self::Kernels;
    /// The elements a run of `params` counts: the progress threshold and the size a
    /// rehearsed row reports.
    fn elements(params: &Self::Params) -> u64;
    /// Runs the steps asked for ([`Steps`]); the rows in step order.
    const RUN: RunFn<Self>;
    /// The header's lines about `params` (sizes, input, launch shape), under the kernels
    /// and the device ([`header`]).
    fn describe(params: &Self::Params) -> String;
    /// The header's line on the emulator: what the table's counters are.
    const LEGEND: &'static str;
    /// What the GB/s column divides on a GPU (`"input bytes / time"`).
    const GBPS: &'static str;
    /// A small copy of `params` for the rehearsal on the emulator: quick, and big enough
    /// to meet what would trap on a GPU.
    fn rehearsal_params(params: &Self::Params) -> Self::Params;
    /// The options `--trace` takes unless the student gives them, as on the command line
    /// (`"--n 2048 --block 64"`): a small input that makes a readable picture.
    const TRACE_DEFAULTS: &'static str;
    /// Runs a step with the kernels of a source on a traced emulator and draws it.
    const DRAW: DrawFn<Self>;
    /// The chapter's exercises (its registry): what `--trace --failing` checks.
    const CHAPTER: &'static course::Chapter;
    /// Whether the chapter's command has a `bench` subcommand, which the GPU header then
    /// points to for careful numbers.
    const HAS_BENCH: bool = true;
}

/// A chapter's trace: `(source, step, params)` to a drawing ([`Progression::DRAW`]).
pub type DrawFn<P> = fn(KernelSource, &str, &<P as Progression>::Params) -> Result<Drawn, String>;

/// A chapter's progression run: the [`Steps`] asked for, to rows ([`Progression::RUN`]).
pub type RunFn<P> = fn(
    Steps<'_, <P as Progression>::Kernels, <P as Progression>::Params>,
) -> Vec<Row<<P as Progression>::Extra>>;

/// What a chapter's progression runs with: the device, a table of kernels `K`, the
/// parameters `P`, the steps asked for, and where progress lines go.
pub struct Steps<'a, K, P> {
    /// The device the kernels run on.
    pub dev: &'a mut Device,
    /// The kernels: the student's, the reference, or a table with stand-ins.
    pub kernels: &'a K,
    /// The parameters.
    pub params: &'a P,
    /// The steps to run, by id; every step when empty.
    pub only: &'a [&'a str],
    /// Called before each step with a line for the student, if anyone is watching.
    pub progress: Option<&'a mut dyn FnMut(&str)>,
}

impl<'a, K, P> Steps<'a, K, P> {
    /// Every step of `kernels` on `dev` with `params`, quietly.
    pub fn all(dev: &'a mut Device, kernels: &'a K, params: &'a P) -> Self {
        Steps {
            dev,
            kernels,
            params,
            only: &[],
            progress: None,
        }
    }

    /// Only the steps `only` (every step when empty).
    pub fn only(self, only: &'a [&'a str]) -> Self {
        Steps { only, ..self }
    }

    /// Progress lines to `progress`.
    pub fn progress(self, progress: &'a mut dyn FnMut(&str)) -> Self {
        Steps {
            progress: Some(progress),
            ..self
        }
    }

    /// Whether step `id` was asked for.
    pub fn wants(&self, id: &str) -> bool {
        self.only.is_empty() || self.only.contains(&id)
    }

    /// Says `line` to whoever watches the progress.
    pub fn say(&mut self, line: &str) {
        if let Some(p) = self.progress.as_mut() {
            p(line);
        }
    }
}

/// Whose kernels (`--kernels`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum KernelsArg {
    /// The reference solutions (`solutions/src/chNN.rs`).
    Reference,
    /// Yours (`kernels/src/chNN.rs`).
    Student,
}

impl KernelsArg {
    /// The source `arg` names, `default` when none was given (the progression shows the
    /// reference kernels, a trace the student's).
    pub fn or(arg: Option<Self>, default: KernelSource) -> KernelSource {
        match arg {
            Some(KernelsArg::Reference) => KernelSource::Reference,
            Some(KernelsArg::Student) => KernelSource::Student,
            None => default,
        }
    }
}

/// Where and with whose kernels the progression runs: the options every chapter's
/// command shares (flattened into each `Cli`).
#[derive(clap::Args, Clone, Debug, PartialEq, Eq)]
pub struct RunArgs {
    /// Where to run: the SIMT emulator (counters), or the GPU (each launch's time and
    /// GB/s; needs a build with `--features cuda` and an NVIDIA GPU).
    #[arg(long, value_enum, default_value_t = DeviceArg::Emulator)]
    pub device: DeviceArg,
    /// Whose kernels to run: the reference solutions or yours (kernels/src/chNN.rs)
    /// [default: reference; with --trace: student].
    #[arg(long, value_enum)]
    pub kernels: Option<KernelsArg>,
    /// How the rows are printed: `--json`, `--columns`, `--ncu-names`.
    #[command(flatten)]
    pub output: RowsOutput,
}

/// The steps `--step` named, each once, checked against the chapter's `all`: the error
/// (one line) names the unknown one and lists the others.
pub fn parse_steps(given: &[String], all: &[&'static str]) -> Result<Vec<&'static str>, String> {
    let mut steps = Vec::new();
    for s in given {
        let Some(&id) = all.iter().find(|&&id| id == s.trim()) else {
            return Err(format!(
                "unknown --step `{s}`: the steps are {}",
                all.join(", ")
            ));
        };
        if !steps.contains(&id) {
            steps.push(id);
        }
    }
    Ok(steps)
}

/// A chapter's command line: its own options (`P`, the chapter's parameters) and
/// subcommands (`S`), and those every chapter shares.
#[derive(clap::Parser, Debug)]
#[command(version, args_conflicts_with_subcommands = true)]
pub struct Cli<P: clap::Args, S: clap::Subcommand> {
    /// Instead of the progression: another command.
    #[command(subcommand)]
    pub command: Option<S>,
    /// Where, whose kernels, and how the rows are printed: `--device`, `--kernels`,
    /// `--json`, `--columns`, `--ncu-names`.
    #[command(flatten)]
    pub run: RunArgs,
    /// The chapter's parameters.
    #[command(flatten)]
    pub params: P,
    /// Run only this step (repeatable); the chapter's steps are listed in its help.
    #[arg(long = "step", visible_alias = "exercise", value_name = "ID")]
    pub steps: Vec<String>,
    /// Instead of the table: run one step on a small input with the emulator's trace on
    /// and draw its launch to FILE.svg.
    #[arg(long, value_name = "FILE.svg", conflicts_with_all = ["json", "device"])]
    pub trace: Option<PathBuf>,
    /// With --trace: run the exercise's check on the kernels and draw the launch it fails
    /// on (the failing input), or say why there is none; an exercise that passes draws its
    /// step as without it. What the runner's key `t` does.
    #[arg(long, requires = "trace")]
    pub failing: bool,
}

/// The command line of chapter `P`, with subcommands `S`: the shared [`Cli`] named and
/// described as the chapter says.
pub fn command<P: Progression, S: clap::Subcommand>() -> clap::Command {
    use clap::CommandFactory;
    Cli::<P::Params, S>::command()
        .name(P::NAME)
        .bin_name(P::NAME)
        .about(P::ABOUT)
        .after_help(P::AFTER_HELP)
        .mut_arg("trace", |a| a.help(P::TRACE_HELP))
        .mut_arg("steps", |a| {
            a.help(format!(
                "Run only this step (repeatable): {}",
                P::STEPS.join(", ")
            ))
        })
}

/// `cmd` with `defaults` (options and values as on the command line, `"--n 2048"`) in
/// place of those options' own defaults. A chapter's own string: an option it does not
/// have is a bug of the chapter, and panics.
fn with_defaults(mut cmd: clap::Command, defaults: &'static str) -> clap::Command {
    let words: Vec<&'static str> = defaults.split_whitespace().collect();
    for pair in words.chunks(2) {
        let [option, value] = pair else {
            panic!("`{defaults}`: an option without its value");
        };
        let long = option.trim_start_matches("--");
        let id = cmd
            .get_arguments()
            .find(|a| a.get_long() == Some(long))
            .unwrap_or_else(|| panic!("`{defaults}`: no option {option}"))
            .get_id()
            .clone();
        cmd = cmd.mut_arg(id, |a| a.default_value(*value));
    }
    cmd
}

/// Parses `args` (the program's name first) as chapter `P`'s command line, with
/// `defaults` in place of the options' own (`""`: the command's; `P::TRACE_DEFAULTS`:
/// what `--trace` draws).
pub fn parse_from<P: Progression, S: clap::Subcommand>(
    defaults: &'static str,
    args: impl IntoIterator<Item = impl Into<std::ffi::OsString> + Clone>,
) -> Result<Cli<P::Params, S>, clap::Error> {
    use clap::FromArgMatches;
    let matches = with_defaults(command::<P, S>(), defaults).try_get_matches_from(args)?;
    Cli::from_arg_matches(&matches)
}

/// A chapter's parameters (`A`) from no options: the defaults its `--help` shows, or
/// `defaults` in their place. So that defaults are written once, on the options.
pub fn defaults_with<A: clap::Args + clap::FromArgMatches>(defaults: &'static str) -> A {
    let cmd = with_defaults(A::augment_args(clap::Command::new("defaults")), defaults);
    let matches = cmd.get_matches_from(["defaults"]);
    A::from_arg_matches(&matches).expect("every option has a default or is optional")
}

/// [`defaults_with`] the options' own defaults.
pub fn defaults<A: clap::Args + clap::FromArgMatches>() -> A {
    defaults_with("")
}

/// The parameters and steps `cli` gives chapter `P`, checked ([`Progression::check`],
/// [`parse_steps`]): what the progression runs, and what a chapter's tests of its options
/// look at.
pub fn checked<P: Progression, S: clap::Subcommand>(
    cli: &Cli<P::Params, S>,
) -> Result<(P::Params, Vec<&'static str>), String> {
    let params = P::check(&cli.params, cli.run.device)?;
    Ok((params, parse_steps(&cli.steps, P::STEPS)?))
}

/// A chapter's `main`: parses its command line (`--help` and errors print and exit, as
/// clap's do) and runs the subcommand by `sub`, else the progression, or with `--trace`
/// one step drawn (the options the student did not give take `P::TRACE_DEFAULTS`).
pub fn cli_main<P: Progression, S: clap::Subcommand>(sub: impl FnOnce(&S) -> ExitCode) -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let cli = parse_from::<P, S>("", &args).unwrap_or_else(|e| e.exit());
    if let Some(s) = &cli.command {
        return sub(s);
    }
    let cli = match cli.trace {
        Some(_) => parse_from::<P, S>(P::TRACE_DEFAULTS, &args).unwrap_or_else(|e| e.exit()),
        None => cli,
    };
    let (params, steps) = match checked::<P, S>(&cli) {
        Ok(p) => p,
        Err(e) => return cli::usage_error(e),
    };
    match &cli.trace {
        Some(path) => trace_main::<P>(&cli.run, &params, &steps, path, cli.failing),
        None => progression_main::<P>(&cli.run, &params, &steps),
    }
}

/// `--trace FILE.svg`: one step of `params`, traced, drawn, with the student's kernels
/// unless `--kernels reference`.
/// With `failing`, the exercise's check first: its failing launch is drawn if it fails
/// on one (`crate::trace::draw_failing`).
fn trace_main<P: Progression>(
    args: &RunArgs,
    params: &P::Params,
    steps: &[&'static str],
    path: &Path,
    failing: bool,
) -> ExitCode {
    let step = match cli::trace_step(steps, P::DEFAULT_TRACE_STEP) {
        Ok(step) => step,
        Err(code) => return code,
    };
    let source = KernelsArg::or(args.kernels, KernelSource::Student);
    if failing && let Some(ex) = P::CHAPTER.exercise(step) {
        let failed = crate::trace::draw_failing(ex.id, |dev| ex.run(dev, source));
        match failed {
            Ok(crate::trace::Failing::Drawn(drawn)) => return cli::write_trace(path, Ok(drawn)),
            Ok(crate::trace::Failing::Passes) => {}
            Err(why) => return cli::write_trace(path, Err(why)),
        }
    }
    let drawn = (P::DRAW)(source, step, params);
    cli::print_kernel_output();
    cli::write_trace(path, drawn)
}

/// The progression: every step (or those of `--step`) on the device asked for, printed
/// as a table or JSON (`--columns` checked against the table's heads first; the `ncu`
/// counters only with `--ncu-names`). It reports, it does not judge (`cargo test -p
/// chNN` does): a wrong row still exits 0.
fn progression_main<P: Progression>(
    args: &RunArgs,
    params: &P::Params,
    steps: &[&'static str],
) -> ExitCode {
    let source = KernelsArg::or(args.kernels, KernelSource::Reference);
    // Only for a person watching, or for a run long enough to need it.
    let show_progress = std::io::stderr().is_terminal() || P::elements(params) >= 1 << 20;
    if let Err(e) = crate::table::check_columns(&args.output.columns, &P::LAYOUT.heads()) {
        return cli::usage_error(e);
    }
    let mut dev = match cli::open_device(args.device, source) {
        Ok(d) => d,
        Err(code) => return code,
    };
    let k = (P::KERNELS)(source);
    let mut progress = cli::progress(show_progress);
    let mut rows = if dev.is_emulator() || source == KernelSource::Reference {
        (P::RUN)(
            Steps::all(&mut dev, k, params)
                .only(steps)
                .progress(&mut progress),
        )
    } else {
        gpu_student_rows::<P>(&mut dev, k, params, steps, &mut progress)
    };
    if !args.output.ncu_names {
        rows.iter_mut().for_each(|r| r.ncu = None);
    }
    cli::print_kernel_output();
    let out = cli::rows_output(
        &rows,
        args.output.json,
        || crate::table::wrap_lines(&header::<P>(&dev, source, params), crate::table::NOTE_WIDTH),
        || crate::table::progression(&P::LAYOUT, &rows, true, &args.output.columns),
    );
    match out {
        Ok(out) => {
            cli::print(&out);
            ExitCode::SUCCESS
        }
        Err(code) => code,
    }
}

/// The student's kernels `k` on a GPU, step by step, each rehearsed first on the
/// emulator with [`Progression::rehearsal_params`] ([`crate::rehearsal`]): a step that
/// would trap there keeps the emulator's rows.
pub fn gpu_student_rows<P: Progression>(
    dev: &mut Device,
    k: &P::Kernels,
    params: &P::Params,
    steps: &[&'static str],
    progress: &mut dyn FnMut(&str),
) -> Vec<Row<P::Extra>> {
    let small = P::rehearsal_params(params);
    let all = if steps.is_empty() { P::STEPS } else { steps };
    crate::rehearsal::rehearse_then_run(
        all,
        P::elements(&small) as usize,
        P::elements(params),
        |step| (P::RUN)(Steps::all(&mut Device::emulator(), k, &small).only(&[step])),
        |step, progress| (P::RUN)(Steps::all(dev, k, params).only(&[step]).progress(progress)),
        progress,
    )
}

/// What the progression's table is about: the chapter, whose kernels, the device, the
/// parameters ([`Progression::describe`]) and what the numbers are: the emulator's
/// counters ([`Progression::LEGEND`]), or on a GPU how the times were taken and the
/// command for careful numbers (the chapter's `bench`).
pub fn header<P: Progression>(dev: &Device, source: KernelSource, params: &P::Params) -> String {
    let number = P::NAME.trim_start_matches("ch").trim_start_matches('0');
    let measures = if dev.is_emulator() {
        P::LEGEND.to_string()
    } else {
        let careful = if P::HAS_BENCH {
            format!(
                ". For careful numbers: cargo run -p {} --release --features cuda -- bench",
                P::NAME
            )
        } else {
            String::new()
        };
        format!(
            "times: one launch each, bracketed by CUDA events (driver's CUDA {}); GB/s = {}{careful}",
            dev.driver_version()
                .map_or("?".into(), |(a, b)| format!("{a}.{b}")),
            P::GBPS,
        )
    };
    format!(
        "Chapter {number} progression: {} kernels\ndevice: {}, {} SMs\n{}\n{measures}",
        source.name(),
        dev.props().name,
        dev.props().sm_count,
        P::describe(params),
    )
}

/// The items of a [`Progression`] impl that every chapter crate writes alike, by its
/// conventional names: `progression::{Params, Row, STEPS, LAYOUT, run}`,
/// `kernels::{Kernels, kernels}` and `trace::{draw, DEFAULT_STEP}`; `$extra` is the
/// chapter's own columns of a row. The impl adds its name, texts and the functions that
/// are the chapter's own. (`crate` is the calling chapter's crate, on purpose.)
#[macro_export]
#[allow(clippy::crate_in_macro_def)]
macro_rules! conventional_progression {
    ($extra:ty) => {
        type Params = crate::progression::Params;
        type Extra = $extra;
        type Kernels = crate::kernels::Kernels;
        const STEPS: &'static [&'static str] = &crate::progression::STEPS;
        const LAYOUT: $crate::table::Layout<crate::progression::Row> = crate::progression::LAYOUT;
        const KERNELS: fn(course::KernelSource) -> &'static crate::kernels::Kernels =
            crate::kernels::kernels;
        const RUN: $crate::app::RunFn<Self> = crate::progression::run;
        const DRAW: $crate::app::DrawFn<Self> = crate::trace::draw;
        const DEFAULT_TRACE_STEP: &'static str = crate::trace::DEFAULT_STEP;
        const CHAPTER: &'static course::Chapter = &crate::CHAPTER;
    };
}
