//! # `learn`: the student's runner
//!
//! `cargo run -p learn` keeps a student in flow, as rustlings' watch mode does: it opens
//! where the student left off (else on the first unsolved exercise across the
//! chapters), picks up exercises solved with `cargo test` by checking them all in the
//! background, re-checks the current one whenever a file under `kernels/` is saved, and
//! shows the exercise, pass or fail with the reason (or the compiler's errors) and the
//! hint that answers the failure, and keys for the next hint level, the list of
//! exercises (arrows or a number, Enter opens), a reset of the exercise's stub (confirmed,
//! and undoable from its backup), an SVG trace of its launch, and quitting. A solved
//! exercise offers its reference solution and its book section. Progress is kept in
//! `.course/progress.json`. With no terminal (CI), or with `--once`, it prints the same
//! status once and exits. After every save the open exercise is checked first, then
//! every other one in the background, so that the list never shows a stale verdict; Esc
//! steps back from the list, and quitting asks first and says how to come back.
//!
//! The pieces:
//!
//! - [`app`]: the state machine, pure (events in, effects out), tested with a fake
//!   kernel set;
//! - [`Backend`]: what the effects need from the world; [`cargo::CargoBackend`] is the
//!   real one: it rebuilds the grader with the student's kernels and runs the grader on
//!   one exercise, each check in a child process with the grader's step budget, watchdog
//!   and timeout, so a kernel that panics, deadlocks or spins costs nothing but its
//!   verdict;
//! - [`progress`]: the state file; [`regions`]: resetting a stub;
//! - [`drive`]: runs an event through the app and its effects through a backend.
#![deny(missing_docs)]

pub mod app;
pub mod cargo;
pub mod progress;
pub mod regions;
pub mod term;
pub mod watch;

pub use app::{App, Effect, Event, ExerciseInfo, Key, Verdict, View};
pub use progress::Progress;

/// What the runner's effects need: checking, resetting, tracing, showing a solution and
/// saving progress. The real one is [`cargo::CargoBackend`]; tests use a fake.
pub trait Backend {
    /// Checks `ex` against the student's current files.
    fn check(&mut self, ex: &ExerciseInfo) -> Verdict;
    /// Restores `ex`'s stub; `Ok` is a line for the student (where the backup went).
    fn reset(&mut self, ex: &ExerciseInfo) -> Result<String, String>;
    /// Undoes the last reset of `ex` from its backup; `Ok` is a line for the student.
    fn undo(&mut self, ex: &ExerciseInfo) -> Result<String, String>;
    /// Checks every exercise of `exercises` against the student's current files, as one
    /// run: `(id, passed)` for each (the runner does this in the background at start,
    /// to pick up progress made with `cargo test`).
    fn scan(&mut self, exercises: &[ExerciseInfo]) -> Result<Vec<(String, bool)>, String>;
    /// Writes the SVG trace of `ex`'s launch; `Ok` is a line naming the file.
    fn trace(&mut self, ex: &ExerciseInfo) -> Result<String, String>;
    /// The reference solution of `ex`, as text to show.
    fn solution(&mut self, ex: &ExerciseInfo) -> Result<String, String>;
    /// Writes the progress file.
    fn save(&mut self, progress: &Progress) -> Result<(), String>;
    /// Checks `exercises` for [`Effect::Rescan`] of `generation`: by default now, as one
    /// [`scan`](Self::scan), answering with the [`Event::Scanned`]; the interactive
    /// runner's backend starts it in the background instead and answers `None` (the
    /// event comes later, through the runner's loop).
    fn rescan(&mut self, generation: u64, exercises: &[ExerciseInfo]) -> Option<Event> {
        Some(Event::Scanned {
            generation,
            results: self.scan(exercises),
        })
    }
    /// Called before a slow effect (a check), so a terminal can say "checking ...".
    fn busy(&mut self, _what: &str) {}
    /// A warning the last check left for the student (edits outside the answer regions
    /// that are not built), once: `None` when there is nothing new to say.
    fn notice(&mut self) -> Option<String> {
        None
    }
}

/// Feeds `event` to `app` and carries out its effects with `backend` until none are
/// left (a check's verdict is an event too). Returns `false` once the app quits.
pub fn drive(app: &mut App, backend: &mut dyn Backend, event: Event) -> bool {
    let mut queue = std::collections::VecDeque::from([event]);
    while let Some(ev) = queue.pop_front() {
        for effect in app.handle(ev) {
            let find = |id: &str| {
                app.exercises()
                    .iter()
                    .find(|e| e.id == id)
                    .cloned()
                    .expect("invariant: effects name known exercises")
            };
            match effect {
                Effect::Check(id) => {
                    let ex = find(&id);
                    backend.busy(&format!("checking {id} ..."));
                    let verdict = backend.check(&ex);
                    queue.push_back(Event::Checked { id, verdict });
                    if let Some(text) = backend.notice() {
                        queue.push_back(Event::Message(text));
                    }
                }
                Effect::Reset(id) => {
                    let text = backend
                        .reset(&find(&id))
                        .unwrap_or_else(|e| format!("reset failed: {e}"));
                    queue.push_back(Event::Message(text));
                }
                Effect::Undo(id) => {
                    let text = backend
                        .undo(&find(&id))
                        .unwrap_or_else(|e| format!("nothing undone: {e}"));
                    queue.push_back(Event::Message(text));
                }
                Effect::Trace(id) => {
                    backend.busy(&format!("tracing {id} ..."));
                    let text = backend
                        .trace(&find(&id))
                        .unwrap_or_else(|e| format!("no trace: {e}"));
                    queue.push_back(Event::Message(text));
                }
                Effect::ShowSolution(id) => {
                    let text = backend
                        .solution(&find(&id))
                        .unwrap_or_else(|e| format!("cannot show the solution: {e}"));
                    queue.push_back(Event::Message(text));
                }
                Effect::Rescan(generation) => {
                    let current = app.current().id.clone();
                    let others: Vec<ExerciseInfo> = app
                        .exercises()
                        .iter()
                        .filter(|e| e.id != current)
                        .cloned()
                        .collect();
                    if let Some(ev) = backend.rescan(generation, &others) {
                        queue.push_back(ev);
                    }
                }
                Effect::Save => {
                    if let Err(e) = backend.save(&app.progress) {
                        queue.push_back(Event::Message(format!("progress not saved: {e}")));
                    }
                }
                Effect::Quit => return false,
            }
        }
    }
    !app.quitting()
}

/// Every exercise of `chapters`, in course order.
pub fn exercises(chapters: &[&'static course::Chapter]) -> Vec<ExerciseInfo> {
    chapters
        .iter()
        .flat_map(|c| c.exercises.iter().map(|e| ExerciseInfo::from_course(c, e)))
        .collect()
}
