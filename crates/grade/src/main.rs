//! `cargo run -p grade`: the instructor's grader. See the crate's README.md.

use clap::{Args, Parser, Subcommand, ValueEnum};
use course::KernelSource;
use grade::Limits;
use grade::engine::{self, Isolation, Selection, Target};
use grade::manifest;
use grade::render::{self, Format};
use grade::report::Report;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Grades the student's kernels: runs the check of every exercise of every chapter
/// against `kernels/` on the SIMT emulator (or a GPU, `--device`) and prints a scored report. Points are all or
/// nothing per exercise. The exit code is 0 whatever the score; it is non-zero only when
/// grading itself could not run.
#[derive(Debug, Parser)]
#[command(name = "grade", version, long_about = None, after_help = AFTER_HELP)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(Debug, Args)]
struct RunArgs {
    /// Print the JSON report (schema in crates/grade/README.md).
    #[arg(long)]
    json: bool,
    /// Print JUnit XML: one testcase per exercise, for CI systems.
    #[arg(long)]
    junit: bool,
    /// Print a Markdown feedback comment for the student.
    #[arg(long)]
    markdown: bool,
    /// The formats to write, comma-separated: table, json, junit, markdown, gradescope
    /// (results.json), prairielearn. Several at once need --out.
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    format: Vec<String>,
    /// Write the report to FILE instead of standard output (one format).
    #[arg(short, long, value_name = "FILE", conflicts_with = "out")]
    output: Option<PathBuf>,
    /// Write every format asked for into DIR, one file each (grade.json, junit.xml,
    /// feedback.md, grade.txt, results.json, prairielearn.json); with --class, gradebook.csv,
    /// summary.txt and submissions/<row>/ per row [default with --class: grades].
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Grade a class: every entry under DIR is one row of the gradebook, a submission when
    /// it holds kernels/src (or holds it up to 3 levels deeper), else the reason (a path
    /// that holds kernels/src itself is one submission; give several). Each is graded as
    /// --student grades it; see --out.
    #[arg(long, value_name = "DIR", num_args = 1.., conflicts_with_all = ["student", "kernels", "output"])]
    class: Vec<PathBuf>,
    /// With --class: the gradebook of an earlier run of this class; writes changes.csv
    /// beside the new gradebook (who changed, by how much), to see who a fixed check or
    /// a new seed affects before publishing.
    #[arg(long, value_name = "GRADEBOOK", requires = "class")]
    previous: Option<PathBuf>,
    /// Whose kernels to grade: the student's (kernels/) or the reference solutions
    /// (solutions/, which score full points: a check of the grader).
    #[arg(long, value_enum, default_value_t = Source::Student)]
    kernels: Source,
    /// Grade a student's work from this pristine course: only the `.rs` files of
    /// PATH/kernels/src are taken, built as the course's own kernels crate (the student's
    /// Cargo.toml, build scripts and every other file play no part) and run in the
    /// emulator's sandbox. The Classroom recipe (crates/grade/README.md).
    #[arg(long, value_name = "PATH", conflicts_with = "kernels")]
    student: Option<PathBuf>,
    /// Draw every check's inputs (values, sizes, host functions' arguments) from this
    /// private seed, any text, instead of the course's public one: answers keyed to the
    /// public inputs fail. Never printed, nor anything drawn from it (an input, a size, an
    /// expected answer, kernel output): a failure shows its status, kind and hint, and the
    /// public seed's case when that fails the same way. Also from the environment variable
    /// COURSE_GRADE_SEED (a CI secret) or --seed-file.
    #[arg(
        long,
        value_name = "TEXT",
        env = "COURSE_GRADE_SEED",
        hide_env_values = true
    )]
    seed: Option<String>,
    /// Read the private seed (see --seed) from this file (its first line).
    #[arg(long, value_name = "FILE", conflicts_with = "seed")]
    seed_file: Option<PathBuf>,
    /// Grade only this exercise (repeatable), e.g. --exercise 9.4; the total is then
    /// of the exercises graded.
    #[arg(long = "exercise", value_name = "ID")]
    exercises: Vec<String>,
    /// The manifest of the tamper check [default: crates/grade/manifest.txt]; give one
    /// kept outside the student's clone for a check the student cannot regenerate.
    #[arg(long, value_name = "FILE")]
    manifest: Option<PathBuf>,
    #[command(flatten)]
    common: Common,
    #[command(flatten)]
    limits: LimitArgs,
    /// Exercises graded at once [default: the number of CPUs, at most 8].
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// Run the checks in this process instead of one child process per exercise (a
    /// kernel that crashes the process then ends the whole run; for debugging).
    #[arg(long)]
    in_process: bool,
    /// Where the checks run: the SIMT emulator; a GPU (CUDA device 0, needs a build with
    /// `--features cuda`; without one grading cannot run); or auto (the GPU when one can
    /// be opened, else the emulator, with a note on standard error). On a GPU every check
    /// runs on the emulator too and passes only when both pass, and each kernel that
    /// passed is timed beside the reference's. With --student or --class, each
    /// submission's answers are built to PTX with the pinned nightly first (or read from
    /// --prepared folders).
    #[arg(long, value_enum, default_value_t = DeviceArg::Emulator)]
    device: DeviceArg,
    /// With --student or --class: build what grading them on a GPU needs into DIR, for a
    /// GPU machine without Rust: per submission, its answers built to PTX (pinned nightly)
    /// and for the emulator's sandbox, the reference's PTX and sandbox module (--student:
    /// DIR itself; --class: DIR/<row>/, a row that cannot be built holding error.txt).
    /// Grades nothing; carry DIR and grade it there with --prepared --device gpu.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["prepared", "out", "output"])]
    prepare_gpu: Option<PathBuf>,
    /// The --student folder (or every row of the --class folder) was written by
    /// --prepare-gpu: grade those prebuilt answers, building nothing (a GPU machine without
    /// Rust). Needs --device gpu.
    #[arg(long)]
    prepared: bool,
}

/// `--device`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum DeviceArg {
    /// The SIMT emulator (deterministic, with counters).
    Emulator,
    /// CUDA device 0, or an error.
    Gpu,
    /// The GPU when one can be opened, else the emulator.
    Auto,
}

#[derive(Debug, Args)]
struct Common {
    /// The course's root [default: the course this command runs in, found from the
    /// current folder (or COURSE_ROOT)].
    #[arg(long, value_name = "DIR")]
    root: Option<PathBuf>,
}

#[derive(Debug, Args)]
struct LimitArgs {
    /// Most warp steps one launch may take before it is stopped as an infinite loop.
    #[arg(long, value_name = "STEPS", default_value_t = Limits::CHECKS.step_budget)]
    step_budget: u64,
    /// Steps a block may repeat without progress before it is reported (a livelock when threads spin).
    #[arg(long, value_name = "STEPS", default_value_t = Limits::CHECKS.spin_steps)]
    spin_steps: u64,
    /// Wall-clock limit of one launch, in milliseconds (a lane spinning in registers).
    #[arg(long, value_name = "MS", default_value_t = Limits::CHECKS.launch_watchdog_ms)]
    watchdog_ms: u64,
    /// Wall-clock limit of one exercise's whole check, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = Limits::CHECKS.exercise_timeout_ms)]
    timeout_ms: u64,
    /// WebAssembly instructions all launches and host calls of one check may run together.
    #[arg(long, value_name = "N", default_value_t = Limits::CHECKS.work.instructions)]
    work_instructions: u64,
    /// Warp steps all launches of one check may take together.
    #[arg(long, value_name = "STEPS", default_value_t = Limits::CHECKS.work.warp_steps)]
    work_steps: u64,
}

impl LimitArgs {
    fn limits(&self) -> Limits {
        Limits {
            step_budget: self.step_budget,
            spin_steps: self.spin_steps,
            launch_watchdog_ms: self.watchdog_ms,
            exercise_timeout_ms: self.timeout_ms,
            work: gpu_host::WorkBudget {
                instructions: self.work_instructions,
                warp_steps: self.work_steps,
            },
        }
    }
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Regenerate crates/grade/manifest.txt, the hashes of the course's files that the
    /// tamper check compares with. Run it after every change to the course.
    Manifest {
        #[command(flatten)]
        common: Common,
    },
    /// Collect a class for the final grade: clone every repository of a roster at its
    /// deadline commit into a class folder, then grade it on this machine with your
    /// private seed (`grade --class FOLDER --seed-file …`): the seed never reaches a
    /// student's repository. Writes FOLDER/.collected.csv (which commit each row is).
    Collect {
        /// The roster: CSV with a header naming `name` (or student, login,
        /// github_username) and `repository` (or repo, url, repository_url), and
        /// optionally `commit` (or sha): a commit to take.
        #[arg(long, value_name = "CSV")]
        roster: PathBuf,
        /// The class folder to collect into (one folder per student, replaced).
        #[arg(long, value_name = "DIR")]
        into: PathBuf,
        /// Take each repository's last commit before this date (any date git reads,
        /// e.g. 2026-12-01T23:59:00Z), unless the roster names a commit; default: the head.
        #[arg(long, value_name = "DATE")]
        deadline: Option<String>,
    },
    /// Print the feedback workflow of a student's repository
    /// (.github/workflows/feedback.yml): a plain GitHub Actions workflow that grades the
    /// answers on the course's public seed for feedback, holding no secret (GitHub
    /// Classroom, which it once served, was retired in August 2026).
    #[command(alias = "classroom")]
    FeedbackWorkflow,
    /// Write what an instructor puts in their Classroom 50 repository for this course:
    /// DIR/autograders/SLUG/autograder.py (with course.json, the pinned course, beside
    /// it) and DIR/assignment.json (the entry for CLASSROOM/assignments.json).
    Classroom50 {
        /// Where the course can be cloned from (a URL git can fetch).
        #[arg(long, value_name = "URL")]
        repository: String,
        /// The course's commit (or tag) to grade with.
        #[arg(long = "ref", value_name = "COMMIT")]
        reference: String,
        /// The assignment's slug in Classroom 50.
        #[arg(long, value_name = "SLUG", default_value = "cuda-course")]
        slug: String,
        /// Where to write the files (then copy them into your classroom's folder).
        #[arg(long, value_name = "DIR", default_value = "classroom50")]
        out: PathBuf,
    },
    /// Exit with 0 when exercise ID passed in the JSON report FILE (and the grade is not
    /// marked tampered), 1 otherwise: the command of a CI step that asks a report.
    Passed {
        /// A JSON report of the grader (--json, or grade.json of --out).
        report: PathBuf,
        /// The exercise, e.g. 9.4.
        id: String,
    },
    /// Run several exercises one after another and print a result line for each (a class
    /// run grades each submission this way: `grade::batch`).
    #[command(name = "__exercises", hide = true)]
    Exercises {
        /// An exercise, as `chapter/id` (`ch09/9.4`); repeatable, in order.
        #[arg(long = "only", value_name = "CHAPTER/ID")]
        only: Vec<String>,
        #[arg(long, value_enum, default_value_t = Source::Student)]
        kernels: Source,
        #[command(flatten)]
        limits: LimitArgs,
    },
    /// Time one exercise's kernels on the GPU beside the reference's and print the times
    /// (`grade::gpu_times`).
    #[command(name = "__time", hide = true)]
    Time { chapter: String, id: String },
    /// Run one exercise and print its result line (the grader runs itself this way,
    /// one child process per exercise).
    #[command(name = "__exercise", hide = true)]
    Exercise {
        chapter: String,
        id: String,
        #[arg(long, value_enum, default_value_t = Source::Student)]
        kernels: Source,
        /// `emulator` or `gpu` (the parent resolved `auto`).
        #[arg(long, value_enum, default_value_t = DeviceArg::Emulator)]
        device: DeviceArg,
        #[command(flatten)]
        limits: LimitArgs,
    },
}

/// Whose kernels to grade.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Source {
    /// The student's kernels (kernels/).
    Student,
    /// The reference solutions (solutions/).
    Reference,
}

impl From<Source> for KernelSource {
    fn from(s: Source) -> Self {
        match s {
            Source::Student => KernelSource::Student,
            Source::Reference => KernelSource::Reference,
        }
    }
}

const AFTER_HELP: &str = "An instructor's commands, from a pristine checkout of the course:
  grade --student ../alice --format json,junit,markdown --out graded/alice
        one student: every format into one folder
  grade --class submissions/ --out grades/
        a class: gradebook.csv, summary.txt, and grades/submissions/<row>/ per row
  grade collect --roster roster.csv --into class --deadline 2026-12-01T23:59:00Z
        the final grade: every student's repository at its deadline commit, then --class
  grade --class submissions/ --device gpu --out grades/
        on a GPU (a grader built with --features cuda): each submission's answers built to
        PTX with the pinned nightly, both judges, each passed kernel timed beside the reference
  grade --class submissions/ --prepare-gpu gpu/       then, on a GPU machine without Rust:
  grade --class gpu/ --prepared --device gpu --out grades/
  grade classroom50 --repository URL --ref COMMIT
        a platform: Classroom 50's autograder.py (Gradescope and PrairieLearn: the scripts
        in crates/grade/platforms/); each grades one submission with --student
A private seed (inputs the students never saw): --seed-file FILE or COURSE_GRADE_SEED.

Examples:
  cargo run -p grade                                  the table, on the student's kernels
  cargo run -p grade -- --json -o grade.json          the JSON report, for CI
  cargo run -p grade -- --junit -o junit.xml          JUnit XML, one testcase per exercise
  cargo run -p grade -- --markdown                    a feedback comment for the student
  cargo run -p grade -- --kernels reference           the solutions: should score full points
  cargo run -p grade -- --exercise 9.4                one exercise
  cargo run -p grade -- --student ../alice            alice's answers, graded from this course
  cargo run -p grade -- --student ../alice --seed-file ~/secret   on inputs only you know
  cargo run -p grade --features cuda -- --device gpu  on the GPU (CUDA device 0)
  cargo run -p grade -- manifest                      regenerate crates/grade/manifest.txt

Statuses: pass, wrong result, wrong technique, race, barrier error, out of bounds,
panicked, timed out, not implemented, error (the check itself could not run).
Only the answers between STUDENT-BEGIN and STUDENT-END are built, in the course's own
files; every other edit is listed as ignored. The tamper check lists every course file
that differs from the manifest. The report is deterministic: the same clone and seed give
the same bytes, and it holds no path of this machine and never the seed.";

fn main() -> ExitCode {
    // The report must not depend on the environment: a replay seed set for `cargo test`
    // would change the checks' inputs. (Child processes are started without it too.)
    // SAFETY: nothing else runs yet: no thread has been started that could read the
    // environment concurrently.
    unsafe { std::env::remove_var("COURSE_SEED") };
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Manifest { common }) => regenerate(&common),
        Some(Command::Exercises {
            only,
            kernels,
            limits,
        }) => {
            let work: Vec<(String, String)> = only
                .iter()
                .filter_map(|w| w.split_once('/'))
                .map(|(c, id)| (c.to_string(), id.to_string()))
                .collect();
            let result = grade::batch::child_main(
                &grade::chapters(),
                &work,
                kernels.into(),
                &limits.limits(),
            );
            // Exit now: a check's thread left spinning by its wall clock dies with us.
            std::process::exit(match result {
                Ok(()) => 0,
                Err(e) => {
                    eprintln!("grade: error: {e}");
                    1
                }
            });
        }
        Some(Command::Collect {
            roster,
            into,
            deadline,
        }) => std::fs::read_to_string(&roster)
            .map_err(|e| format!("--roster {}: cannot read it: {e}", roster.display()))
            .and_then(|text| grade::collect::roster(&text))
            .and_then(|entries| grade::collect::collect(&entries, &into, deadline.as_deref()))
            .map(|done| {
                let ok = done.iter().filter(|c| c.commit.is_ok()).count();
                println!(
                    "grade: collected {ok} of {} into {} (which commit each is: {}); grade them \
                     with: grade --class {} --seed-file YOUR_SEED --out grades/",
                    done.len(),
                    into.display(),
                    into.join(".collected.csv").display(),
                    into.display()
                );
            }),
        Some(Command::FeedbackWorkflow) => {
            print!("{}", grade::classroom::workflow(&grade::chapters()));
            Ok(())
        }
        Some(Command::Classroom50 {
            repository,
            reference,
            slug,
            out,
        }) => {
            let a = grade::classroom50::Assignment {
                slug,
                repository,
                reference,
            };
            grade::classroom50::write(&a, &grade::chapters(), &out).map(|files| {
                for f in &files {
                    println!("grade: wrote {}", f.display());
                }
                println!(
                    "grade: copy {} into CLASSROOM/autograders/ of your classroom50 repository, \
                     add assignment.json's entry to CLASSROOM/assignments.json (or set its \
                     runtime to {{\"rust\": \"stable\"}} in the web form), then run Publish Pages",
                    out.join("autograders").join(&a.slug).display()
                );
            })
        }
        Some(Command::Passed { report, id }) => {
            let text = std::fs::read_to_string(&report)
                .map_err(|e| format!("cannot read {}: {e}", report.display()));
            match text.and_then(|t| {
                serde_json::from_str::<Report>(&t)
                    .map_err(|e| format!("{} is not a grade report: {e}", report.display()))
            }) {
                Ok(r) => match grade::classroom::passed(&r, &id) {
                    Ok((ok, line)) => {
                        println!("{line}");
                        return if ok {
                            ExitCode::SUCCESS
                        } else {
                            ExitCode::FAILURE
                        };
                    }
                    Err(e) => Err(e),
                },
                Err(e) => Err(e),
            }
        }
        Some(Command::Time { chapter, id }) => {
            let result = grade::gpu_times::child_main(&grade::chapters(), &chapter, &id);
            std::process::exit(match result {
                Ok(()) => 0,
                Err(e) => {
                    eprintln!("grade: error: {e}");
                    1
                }
            });
        }
        Some(Command::Exercise {
            chapter,
            id,
            kernels,
            device,
            limits,
        }) => {
            let target = match device {
                DeviceArg::Emulator | DeviceArg::Auto => Target::Emulator,
                // The child needs only the kind: the parent has the name for the report.
                DeviceArg::Gpu => Target::Gpu {
                    name: String::new(),
                    driver: String::new(),
                },
            };
            let result = engine::child_main(
                &grade::chapters(),
                &chapter,
                &id,
                kernels.into(),
                &limits.limits(),
                &target,
            );
            // Exit now: a launch thread left spinning by the watchdog dies with us.
            std::process::exit(match result {
                Ok(()) => 0,
                Err(e) => {
                    eprintln!("grade: error: {e}");
                    1
                }
            });
        }
        None => run(&cli.run),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("grade: error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn root(common: &Common) -> Result<PathBuf, String> {
    match &common.root {
        Some(root) => Ok(root.clone()),
        None => grade::workspace_root(),
    }
}

/// The course's root ([`root`]), made the one every child process grades
/// (`COURSE_ROOT`): call it before any thread starts.
fn course(common: &Common) -> Result<PathBuf, String> {
    let root = root(common)?;
    // SAFETY: called from `main`'s thread before any other thread is started.
    unsafe { std::env::set_var(course_root::ROOT_ENV, &root) };
    Ok(root)
}

fn regenerate(common: &Common) -> Result<(), String> {
    let root = root(common)?;
    let n = manifest::write(&root)?;
    println!(
        "grade: wrote {} ({n} files); commit it with the change that needed it",
        manifest::MANIFEST_PATH
    );
    Ok(())
}

/// Makes the private seed of `--seed`, `--seed-file` or `COURSE_GRADE_SEED` the one this
/// process and its children draw the checks' inputs from ([`course::draw`]); without one,
/// no seed is set and the public inputs are used. Call it before any thread starts.
fn private_seed(args: &RunArgs) -> Result<(), String> {
    let seed = match (&args.seed, &args.seed_file) {
        (_, Some(file)) => Some(
            std::fs::read_to_string(file)
                .map_err(|e| format!("--seed-file {}: cannot read it: {e}", file.display()))?
                .lines()
                .next()
                .unwrap_or_default()
                .to_string(),
        ),
        (seed, None) => seed.clone(),
    };
    // SAFETY: called from `main`'s thread before any other thread is started.
    match seed.filter(|s| !s.trim().is_empty()) {
        Some(s) => unsafe { std::env::set_var(course::draw::PRIVATE_SEED_ENV, s.trim()) },
        None => unsafe { std::env::remove_var(course::draw::PRIVATE_SEED_ENV) },
    }
    Ok(())
}

fn run(args: &RunArgs) -> Result<(), String> {
    let root = course(&args.common)?;
    private_seed(args)?;
    if let Some(dir) = &args.prepare_gpu {
        return prepare_gpu(args, &root, dir);
    }
    if args.prepared && args.device != DeviceArg::Gpu {
        return Err(
            "--prepared grades folders written by --prepare-gpu on a GPU: add --device gpu".into(),
        );
    }
    if args.prepared && args.student.is_none() && args.class.is_empty() {
        return Err("--prepared names what --student or --class gives: add one".into());
    }
    if !args.class.is_empty() {
        return run_class(args, &root);
    }
    let chapters = grade::chapters();
    let selection = Selection::only(args.exercises.iter().cloned());
    let unknown = selection.unknown(&chapters);
    if !unknown.is_empty() {
        let known: Vec<&str> = chapters
            .iter()
            .flat_map(|c| c.exercises.iter().map(|e| e.id))
            .collect();
        return Err(format!(
            "no exercise {} (known: {})",
            unknown.join(", "),
            known.join(", ")
        ));
    }
    let target = target(args)?;
    let limits = args.limits.limits();
    let isolation = if args.in_process {
        Isolation::InProcess
    } else {
        let exe = std::env::current_exe()
            .map_err(|e| format!("cannot find the grader's own binary: {e}"))?;
        Isolation::Subprocess {
            exe,
            env: Vec::new(),
        }
    };
    let jobs = args.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
            .min(8)
    });
    let source: KernelSource = args.kernels.into();
    let mut outline = gpu_host::lanes::Outline::default();
    if let (Some(path), Target::Gpu { .. }) = (&args.student, &target) {
        let prepared = if args.prepared {
            grade::gpu_build::Prepared::open(path)
                .map_err(|e| format!("--student {}: {e}", path.display()))?
        } else {
            let src = student_src(path)?;
            eprintln!(
                "grade: building the answers of {} for the sandbox and to PTX",
                path.display()
            );
            let tc = grade::gpu_build::toolchain()?;
            let reference = grade::gpu_build::Reference::build(&root, &tc)?;
            let dir = grade::gpu_build::scratch_dir(&src, &root);
            grade::gpu_build::prepare(&src, &root, &tc, &reference, &dir)?
        };
        outline = prepared.outline();
        for (k, v) in prepared.env() {
            // SAFETY: no thread has been started yet (the grading threads start below).
            unsafe { std::env::set_var(k, v) };
        }
    } else if let Some(path) = &args.student {
        let src = path.join("kernels").join("src");
        if !src.is_dir() {
            return Err(format!(
                "--student {}: no kernels/src folder there (give the root of the student's clone)",
                path.display()
            ));
        }
        eprintln!(
            "grade: building the answers of {} in the sandbox",
            path.display()
        );
        outline = grade::student::build(&src, &root)?;
    } else if source == KernelSource::Student && matches!(target, Target::Emulator) {
        // Grading the clone in place: its answers, in the course's files.
        outline = grade::student::build_in_place(&root)?;
    }
    for (id, why) in &outline.broken {
        let first = why.first().map(String::as_str).unwrap_or_default();
        let first = first.split(':').next().unwrap_or_default();
        eprintln!(
            "grade: {id}'s answer was not built ({first}): graded as not started, the others on their own code"
        );
    }
    let manifest_path = args
        .manifest
        .clone()
        .unwrap_or_else(|| PathBuf::from(manifest::MANIFEST_PATH));
    let integrity = manifest::check(&root, &manifest_path);
    let mut exercises = engine::grade_on(
        &chapters, &selection, source, &limits, &isolation, jobs, &target,
    )?;
    if let (Target::Gpu { .. }, Isolation::Subprocess { exe, env }) = (&target, &isolation) {
        grade::gpu_times::attach(&mut exercises, exe, env, &chapters, &selection, &limits);
    }
    let paths = grade::report::machine_paths(&root, args.student.as_deref());
    let report = Report::new(source, limits, &chapters, exercises, Some(integrity))
        .on(&target)
        .answers(&outline)
        .without_paths(&paths);
    let formats = formats(args)?;
    if let Some(out) = &args.out {
        std::fs::create_dir_all(out)
            .map_err(|e| format!("--out {}: cannot create it: {e}", out.display()))?;
        for f in formats {
            let path = out.join(f.file_name());
            std::fs::write(&path, render::render(&report, f))
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        }
        eprintln!("grade: wrote the report into {}", out.display());
        return Ok(());
    }
    let [format] = formats[..] else {
        return Err("several formats need --out DIR (one file each)".into());
    };
    let text = render::render(&report, format);
    match &args.output {
        Some(path) => {
            std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
        }
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes())
                .and_then(|()| out.flush())
                .map_err(|e| format!("cannot write the report: {e}"))
        }
    }
}

/// The device of `--device` for a run of `args`: a GPU refused with the reason (a grader
/// without the `cuda` feature, no GPU, and for --student without --prepared the nightly
/// of the PTX build) and how to get it; `auto` falls back to the emulator with a note.
fn target(args: &RunArgs) -> Result<Target, String> {
    let builds = (args.student.is_some() || !args.class.is_empty()) && !args.prepared;
    let gpu = || -> Result<Target, String> {
        let t = Target::gpu()?;
        if builds {
            grade::gpu_build::toolchain()?;
        }
        Ok(t)
    };
    match args.device {
        DeviceArg::Emulator => Ok(Target::Emulator),
        DeviceArg::Gpu => gpu().map_err(|e| format!("--device gpu: {e}")),
        DeviceArg::Auto => Ok(gpu().unwrap_or_else(|e| {
            eprintln!("grade: note: --device auto: grading on the emulator: {e}");
            Target::Emulator
        })),
    }
}

/// `PATH/kernels/src` of `--student PATH`, or why it is not there.
fn student_src(path: &std::path::Path) -> Result<PathBuf, String> {
    let src = path.join("kernels").join("src");
    if !src.is_dir() {
        return Err(format!(
            "--student {}: no kernels/src folder there (give the root of the student's clone)",
            path.display()
        ));
    }
    Ok(src)
}

/// `--prepare-gpu DIR`: what grading `--student` (or every row of `--class`) on a GPU
/// needs, built into `dir` ([`grade::gpu_build::prepare`]).
fn prepare_gpu(
    args: &RunArgs,
    root: &std::path::Path,
    dir: &std::path::Path,
) -> Result<(), String> {
    if args.student.is_none() && args.class.is_empty() {
        return Err("--prepare-gpu builds what --student or --class gives: add one".into());
    }
    let tc = grade::gpu_build::toolchain()?;
    eprintln!("grade: building the reference for the sandbox and to PTX");
    let reference = grade::gpu_build::Reference::build(root, &tc)?;
    if let Some(path) = &args.student {
        let src = student_src(path)?;
        eprintln!("grade: preparing {} into {}", path.display(), dir.display());
        grade::gpu_build::prepare(&src, root, &tc, &reference, dir)?;
        eprintln!(
            "grade: ready: carry {} to the GPU machine and run there: grade --student {} \
             --prepared --device gpu",
            dir.display(),
            dir.display()
        );
        return Ok(());
    }
    let rows = grade::class::discover(&args.class, Some(dir))?;
    let mut ok = 0;
    for row in &rows {
        let out = dir.join(&row.name);
        eprintln!("grade: preparing {} into {}", row.folder, out.display());
        let prepared = match &row.problem {
            Some(why) => Err(why.clone()),
            None => grade::gpu_build::prepare(
                &row.path.join("kernels").join("src"),
                root,
                &tc,
                &reference,
                &out,
            ),
        };
        match prepared {
            Ok(_) => ok += 1,
            Err(why) => {
                std::fs::create_dir_all(&out)
                    .and_then(|()| {
                        std::fs::write(out.join(grade::gpu_build::files::ERROR), format!("{why}\n"))
                    })
                    .map_err(|e| format!("cannot write {}: {e}", out.display()))?;
            }
        }
    }
    eprintln!(
        "grade: prepared {ok} of {} row(s) into {}: carry it to the GPU machine and run there: \
         grade --class {} --prepared --device gpu --out grades/",
        rows.len(),
        dir.display(),
        dir.display()
    );
    Ok(())
}

/// The formats asked for: `--format a,b`, or the one of `--json`, `--junit`,
/// `--markdown`; else the table (or, with `--out`, JSON, JUnit and Markdown).
fn formats(args: &RunArgs) -> Result<Vec<Format>, String> {
    let mut out: Vec<Format> = Vec::new();
    for name in &args.format {
        let f = Format::parse(name).map_err(|e| format!("--format: {e}"))?;
        if !out.contains(&f) {
            out.push(f);
        }
    }
    for (on, f) in [
        (args.json, Format::Json),
        (args.junit, Format::Junit),
        (args.markdown, Format::Markdown),
    ] {
        if on && !out.contains(&f) {
            out.push(f);
        }
    }
    if out.is_empty() {
        if args.out.is_some() || !args.class.is_empty() {
            out = vec![Format::Json, Format::Junit, Format::Markdown];
        } else {
            out.push(Format::Table);
        }
    }
    Ok(out)
}

/// `--class`: every submission of the paths, graded into `--out` (see `grade::class`).
fn run_class(args: &RunArgs, root: &std::path::Path) -> Result<(), String> {
    let chapters = grade::chapters();
    let selection = Selection::only(args.exercises.iter().cloned());
    let out = args.out.clone().unwrap_or_else(|| PathBuf::from("grades"));
    let target = target(args)?;
    let submissions = if args.prepared {
        grade::class::discover_prepared(&args.class)?
    } else {
        grade::class::discover(&args.class, Some(&out))?
    };
    let tc;
    let reference;
    let gpu = match &target {
        Target::Emulator => None,
        Target::Gpu { .. } if args.prepared => Some(grade::class::Gpu {
            target: target.clone(),
            build: None,
        }),
        Target::Gpu { .. } => {
            tc = grade::gpu_build::toolchain()?;
            eprintln!("grade: building the reference for the sandbox and to PTX");
            reference = grade::gpu_build::Reference::build(root, &tc)?;
            Some(grade::class::Gpu {
                target: target.clone(),
                build: Some((&tc, &reference)),
            })
        }
    };
    let exe =
        std::env::current_exe().map_err(|e| format!("cannot find the grader's own binary: {e}"))?;
    let formats = formats(args)?;
    let jobs = args.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
            .min(8)
    });
    eprintln!(
        "grade: {} submission(s), {jobs} at a time, into {}",
        submissions.len(),
        out.display()
    );
    let options = grade::class::Options {
        root,
        chapters: &chapters,
        selection: &selection,
        limits: args.limits.limits(),
        exe: &exe,
        jobs,
        formats: &formats,
        out: &out,
        gpu,
    };
    // Read before grading: a gradebook that cannot be read stops the run at once.
    let previous = match &args.previous {
        Some(file) => Some(
            std::fs::read_to_string(file)
                .map_err(|e| format!("--previous {}: cannot read it: {e}", file.display()))?,
        ),
        None => None,
    };
    let t = std::time::Instant::now();
    let graded = grade::class::grade(&submissions, &options)?;
    let ids: Vec<&str> = chapters
        .iter()
        .flat_map(|c| c.exercises.iter().map(|e| e.id))
        .filter(|id| selection.contains(id))
        .collect();
    let book = out.join("gradebook.csv");
    let csv = grade::gradebook::csv(&graded, &ids);
    std::fs::write(&book, &csv).map_err(|e| format!("cannot write {}: {e}", book.display()))?;
    let mut summary = grade::class::summary(&graded, t.elapsed());
    if let Some(old) = previous {
        let (changes, line) = grade::regrade::changes(&old, &csv)?;
        let file = out.join("changes.csv");
        std::fs::write(&file, changes)
            .map_err(|e| format!("cannot write {}: {e}", file.display()))?;
        summary.push_str(&format!("{line}: {}\n", file.display()));
    }
    let file = out.join("summary.txt");
    std::fs::write(&file, &summary).map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    println!("{summary}gradebook: {}", book.display());
    Ok(())
}
