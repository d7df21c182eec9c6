//! `cargo run -p learn`: the student's runner. See the crate docs and the README.

use clap::{Parser, Subcommand};
use learn::app::KEYS;
use learn::cargo::{CargoBackend, PRISTINE_DIR};
use learn::{App, Event, Progress, View, drive, progress, term};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::mpsc;
use std::time::Duration;

/// The exercise runner: opens where you left off (else on your first unsolved
/// exercise), picks up exercises you solved with `cargo test` (it checks them all in the
/// background), re-checks the open one whenever you save a file under kernels/, and
/// shows pass or fail with the reason and the hint that answers it, and what your kernels
/// printed in a pane of its own. Keys (a single press; a letter then Enter where the
/// terminal has no raw mode): h hint, l list (up/down or a number such as 9.4, then
/// Enter; Esc goes back), r reset the stub (r again to confirm), u undo the reset, n next,
/// t trace (SVG; of the failing input when the check fails), s solution, c check, q quit
/// (q again to confirm). After a save every other exercise is re-checked in the
/// background, so the list stays true. Progress is kept in
/// .course/progress.json. With no terminal (CI) or --once it checks every exercise,
/// prints the status once and exits 0.
#[derive(Debug, Parser)]
#[command(name = "learn", version, long_about = None, after_help = AFTER_HELP)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Print the status of the current exercise and the list once, then exit (the
    /// default when standard input or output is not a terminal).
    #[arg(long)]
    once: bool,
    /// Open on this exercise, e.g. --exercise 9.4 [default: where you left off, else the
    /// first unsolved one].
    #[arg(long, value_name = "ID")]
    exercise: Option<String>,
    /// The course's root [default: the course this command runs in, found from the
    /// current folder (or COURSE_ROOT)].
    #[arg(long, value_name = "DIR")]
    root: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Course maintainers: refresh crates/learn/pristine/ (the stubs `r` restores) from
    /// kernels/src/ after changing a stub, then `cargo run -p grade -- manifest`.
    Pristine,
}

const AFTER_HELP: &str = "Examples:
  cargo run -p learn                     work through the exercises
  cargo run -p learn -- --exercise 9.5   start at 9.5
  cargo run -p learn -- --once           the status, once (what CI sees)

Each check builds your kernels for the emulator's sandbox (WebAssembly: only that crate
is rebuilt, about a second) and runs `grade --exercise ID` in a child process: a kernel
that panics, deadlocks, overflows its stack or loops forever is reported, not fatal.
Traces (key t) are written to .course/traces/ID.svg; resets back up your whole file in
.course/backups/ID-N.rs, and u puts the exercise's regions back from the newest one.";

fn main() -> ExitCode {
    let cli = Cli::parse();
    let root = match cli
        .root
        .clone()
        .map(Ok)
        .unwrap_or_else(course_root::course_root)
    {
        Ok(root) => root,
        Err(e) => {
            eprintln!("learn: error: {e}");
            return ExitCode::FAILURE;
        }
    };
    // Every process the runner starts (the checks, the grader) checks this course.
    // SAFETY: no thread has been started yet that could read the environment.
    unsafe { std::env::set_var(course_root::ROOT_ENV, &root) };
    let result = match cli.command {
        Some(Command::Pristine) => pristine(&root),
        None => run(&cli, &root),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("learn: error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn pristine(root: &Path) -> Result<(), String> {
    let dir = root.join(PRISTINE_DIR);
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let names = grade::chapters()
        .into_iter()
        .map(|c| format!("{}.rs", c.id))
        .chain(["lib.rs".to_string()]);
    for name in names {
        let from = root.join("kernels/src").join(&name);
        let to = dir.join(&name);
        std::fs::copy(&from, &to)
            .map_err(|e| format!("cannot copy {} to {}: {e}", from.display(), to.display()))?;
        println!("learn: wrote {PRISTINE_DIR}/{name}");
    }
    println!("learn: now run `cargo run -p grade -- manifest` and commit both");
    Ok(())
}

fn run(cli: &Cli, root: &Path) -> Result<(), String> {
    let exercises = learn::exercises(&grade::chapters());
    if let Some(id) = &cli.exercise
        && !exercises.iter().any(|e| &e.id == id)
    {
        let known: Vec<&str> = exercises.iter().map(|e| e.id.as_str()).collect();
        return Err(format!("no exercise {id} (known: {})", known.join(", ")));
    }
    let progress = Progress::load(&progress::progress_path(root))?;
    let mut app = App::new(exercises, progress, cli.exercise.as_deref());
    let interactive =
        !cli.once && std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    let mut backend = CargoBackend::new(root.to_path_buf(), interactive);
    if !interactive {
        app.keys = false;
        // The open exercise, then every other one: the list must say what `cargo test`
        // and the grader say.
        drive(&mut app, &mut backend, Event::Start);
        let mut text = app.render();
        app.view = View::List;
        text.push('\n');
        text.push_str(&app.render());
        text.push_str("\n(one-shot status: run `cargo run -p learn` in a terminal to work with re-checks on save)\n");
        print(&text);
        return Ok(());
    }
    // Single keys where the terminal allows it; the guard gives the terminal back.
    let raw = term::RawMode::enter();
    let (tx, rx) = mpsc::channel();
    term::spawn_key_reader(tx.clone());
    // The other exercises are checked on a thread of their own, after the open one: at
    // the start (progress made with `cargo test`) and after every save.
    let mut backend = backend.in_background(tx.clone());
    let watched = root.join("kernels");
    // Lives until the runner quits: dropping it stops the watch.
    let _watch = learn::watch::watch(&watched, move || {
        let _ = tx.send(Event::FileChanged);
    })?;
    let mut pending = std::collections::VecDeque::from([Event::Start]);
    loop {
        let Some(event) = pending.pop_front() else {
            let Ok(next) = rx.recv() else { return Ok(()) };
            pending.push_back(next);
            // Saves that arrived during a check (or an editor's burst of writes) need
            // one more check, not one each: keep the first, and every key in order.
            std::thread::sleep(Duration::from_millis(100));
            while let Ok(more) = rx.try_recv() {
                if more != Event::FileChanged || !pending.contains(&Event::FileChanged) {
                    pending.push_back(more);
                }
            }
            continue;
        };
        if !drive(&mut app, &mut backend, event) {
            // The terminal back as it was, then how to come back.
            drop(raw);
            println!("{}", app.farewell());
            return Ok(());
        }
        draw(&app);
    }
}

/// Clears the terminal (ANSI, which the terminals of Linux, macOS and Windows 10+
/// understand) and draws the screen.
fn draw(app: &App) {
    let how = if term::single_keys() {
        "press a key"
    } else {
        "type a key, then Enter"
    };
    print(&format!(
        "\x1b[2J\x1b[H{}\n{KEYS}\n({how}; saving a file under kernels/ checks again)\n",
        app.render()
    ));
}

/// Writes `text` to stdout (see [`term::print`]).
fn print(text: &str) {
    term::print(text);
}
