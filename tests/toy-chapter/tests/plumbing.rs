//! The toy chapter through the course's plumbing: its registry from `exercises.toml`, the
//! shared command line, progression, table, trace and rehearsal of `chapter::app`, its
//! check registry, and the grader. What a third chapter gets by writing its records and
//! its steps.

use chapter::app::{self, Progression};
use course::{KernelSource, Status};
use gpu_host::Device;
use toy_chapter::command::Toy;
use toy_chapter::progression::Params;

/// The toy has no subcommands.
#[derive(clap::Subcommand, Debug)]
enum NoCommand {}

#[test]
fn the_registry_comes_from_the_records() {
    let c = &toy_chapter::CHAPTER;
    assert_eq!((c.id, c.title), ("ch01", "A toy chapter"));
    let e = c.exercise("1.1").expect("1.1");
    assert_eq!(e.kernels, ["mul_blocks"]);
    assert_eq!(e.book, "ch01/01-multiply.md");
    assert_eq!(e.test_filter(), "ex_1_01");
    assert_eq!(
        e.hints_for(course::Failure::status(Status::Race)),
        [
            "Does each thread write its own element?",
            "Which element is this thread's?"
        ]
    );
    assert_eq!(Toy::STEPS, ["1.1"]);
}

#[test]
fn the_command_line_parses_checks_and_lists_the_steps() {
    let parsed = |args: &[&str]| {
        let all = std::iter::once("ch01").chain(args.iter().copied());
        app::parse_from::<Toy, NoCommand>("", all).map_err(|e| e.to_string())
    };
    let cli = parsed(&["--n", "100", "--step", "1.1", "--json"]).unwrap();
    let (p, steps) = app::checked::<Toy, NoCommand>(&cli).unwrap();
    assert_eq!((p.n, p.block, steps), (100, 128, vec!["1.1"]));
    assert!(cli.run.output.json);
    let bad = app::checked::<Toy, NoCommand>(&parsed(&["--step", "1.2"]).unwrap());
    assert!(bad.unwrap_err().contains("the steps are 1.1"));
    assert!(app::checked::<Toy, NoCommand>(&parsed(&["--block", "0"]).unwrap()).is_err());
    let help = app::command::<Toy, NoCommand>()
        .render_long_help()
        .to_string();
    assert!(help.contains("A toy chapter of one exercise."), "{help}");
    assert!(
        help.contains("Run only this step (repeatable): 1.1"),
        "{help}"
    );
    // The trace's defaults stand in for the options not given.
    let traced = app::parse_from::<Toy, NoCommand>(Toy::TRACE_DEFAULTS, ["ch01", "--block", "32"]);
    let p = traced.unwrap().params;
    assert_eq!((p.n, p.block), (256, 32));
    assert_eq!(
        app::defaults::<Params>(),
        Params {
            n: 4096,
            block: 128
        }
    );
}

#[test]
fn the_progression_runs_and_prints_its_table() {
    let mut dev = Device::emulator();
    let p = app::defaults::<Params>();
    let k = (Toy::KERNELS)(KernelSource::Reference);
    let mut said = Vec::new();
    let mut progress = |line: &str| said.push(line.to_string());
    let rows = (Toy::RUN)(app::Steps::all(&mut dev, k, &p).progress(&mut progress));
    assert_eq!(said, ["step 1.1"]);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].status, "correct");
    assert_eq!(rows[0].counters.global_store_requests, Some(4096 / 32));
    let table = chapter::table::progression(&Toy::LAYOUT, &rows, true, &[]);
    assert!(
        table.starts_with("step  kernel      status      n  st.req\n"),
        "{table}"
    );
    assert!(
        table.contains("1.1   mul_blocks  correct  4096     128"),
        "{table}"
    );
    let header = app::header::<Toy>(&dev, KernelSource::Reference, &p);
    assert!(
        header.starts_with("Chapter 1 progression: reference kernels\n"),
        "{header}"
    );
    assert!(
        header.contains("n = 4096, block 128\ncounters: st.req"),
        "{header}"
    );
}

#[test]
fn a_step_is_traced_and_an_unknown_one_named() {
    let p = app::defaults_with::<Params>(Toy::TRACE_DEFAULTS);
    let drawn = (Toy::DRAW)(KernelSource::Reference, "1.1", &p).unwrap();
    assert!(drawn.svg.starts_with("<svg"), "{}", drawn.summary);
    assert!(
        drawn
            .summary
            .starts_with("1.1 mul_blocks<<<4, 64>>>: correct"),
        "{}",
        drawn.summary
    );
    let e = (Toy::DRAW)(KernelSource::Reference, "1.9", &p).unwrap_err();
    assert!(e.contains("no step 1.9 (the steps are 1.1)"), "{e}");
}

/// A stand-in for an unsolved 1.1.
#[gpu::kernel]
fn unsolved(a: gpu::GlobalSlice<u32>, b: gpu::GlobalSlice<u32>, c: gpu::GlobalSlice<u32>) {
    let _ = (a, b, c);
    todo!("1.1: an unsolved stand-in")
}

#[test]
fn a_stub_is_rehearsed_and_kept_off_the_gpu() {
    let stubs = toy_chapter::kernels::Kernels {
        mul_blocks: unsolved::KERNEL,
        ..toy_chapter::kernels::REFERENCE
    };
    let p = app::defaults::<Params>();
    let rows = app::gpu_student_rows::<Toy>(&mut Device::emulator(), &stubs, &p, &[], &mut |_| {});
    assert_eq!(rows.len(), 1);
    assert_eq!(
        (rows[0].status.as_str(), rows[0].n),
        ("not implemented", 4096)
    );
    let note = rows[0].note.as_deref().unwrap_or_default();
    assert!(
        note.contains("(n = 64), so not launched on the GPU"),
        "{note}"
    );
}

#[test]
fn its_check_rejects_a_wrong_kernel_and_the_grader_grades_it() {
    let stubs = toy_chapter::kernels::Kernels {
        mul_blocks: unsolved::KERNEL,
        ..toy_chapter::kernels::REFERENCE
    };
    let k: &'static _ = Box::leak(Box::new(stubs));
    let out = toy_chapter::checks::check_with("1.1", &mut Device::emulator(), k).unwrap();
    assert_eq!(out.status, Status::NotImplemented, "{}", out.reason);
    let reports = grade::grade(
        &[&toy_chapter::CHAPTER],
        &grade::Selection::all(),
        KernelSource::Reference,
        &grade::Limits::CHECKS,
        &grade::Isolation::InProcess,
        1,
    )
    .expect("in-process grading runs");
    assert_eq!(reports.len(), 1);
    assert!(reports[0].passed, "{}", reports[0].outcome.reason);
    assert_eq!(
        (reports[0].chapter.as_str(), reports[0].id.as_str()),
        ("ch01", "1.1")
    );
}
