//! The runner's state machine: pure, with no I/O, so that it can be tested with a fake
//! kernel set.
//!
//! The loop around it (`main.rs`, [`crate::drive`]) turns keys, saved files and finished
//! checks into [`Event`]s; [`App::handle`] updates the state and answers with
//! [`Effect`]s (check this exercise, reset that stub, save the progress) for a
//! [`Backend`](crate::Backend) to carry out; [`App::render`] draws the screen as text.

use crate::progress::Progress;
use course::{Failure, Outcome};
use std::fmt::Write as _;

/// One exercise as the runner shows it: the registry's data, owned, so that tests can
/// make fake ones.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExerciseInfo {
    /// The chapter's id, `"ch09"`: also its crate, and its files `kernels/src/ch09.rs`
    /// and `solutions/src/ch09.rs`.
    pub chapter: String,
    /// `"9.4"`.
    pub id: String,
    /// Short title.
    pub title: String,
    /// The functions the student writes.
    pub kernels: Vec<String>,
    /// Points, as the grader scores them.
    pub points: u32,
    /// Hints for any failure, gentlest first.
    pub hints: Vec<String>,
    /// Hints that answer one kind of failure: shown before the general ones when the
    /// check fails that way.
    pub hints_by_failure: Vec<(Failure, String)>,
    /// Every kind of failure the exercise's check can produce
    /// (`course::Exercise::failures`): how a failure's named kind is read back.
    pub failures: Vec<Failure>,
    /// The book section, relative to `book/src/`.
    pub book: String,
}

impl ExerciseInfo {
    /// The runner's view of a registered exercise.
    pub fn from_course(chapter: &course::Chapter, e: &course::Exercise) -> Self {
        ExerciseInfo {
            chapter: chapter.id.to_string(),
            id: e.id.to_string(),
            title: e.title.to_string(),
            kernels: e.kernels.iter().map(|k| k.to_string()).collect(),
            points: e.points,
            hints: e.hints.iter().map(|h| h.to_string()).collect(),
            hints_by_failure: e
                .hints_by_failure
                .iter()
                .map(|(failure, h)| (*failure, h.to_string()))
                .collect(),
            failures: e.failures(),
            book: e.book.to_string(),
        }
    }

    /// The hints for a failure of kind `failure` (`None`: not failing), in the order
    /// they are shown: those that answer it (the exercise's, else the course's), then the
    /// general ones (`course::hints::choose`, as `course::Exercise::hints_for`).
    pub fn hints_for(&self, failure: Option<Failure>) -> Vec<&str> {
        match failure {
            Some(f) => course::hints::choose(&self.hints_by_failure, &self.hints, f),
            None => self.hints.iter().map(String::as_str).collect(),
        }
    }

    /// The kind of failure `out` is, as this exercise's check names its kinds.
    pub fn failure_of(&self, out: &Outcome) -> Failure {
        out.failure(&self.failures)
    }

    /// The student's file: `kernels/src/<chapter>.rs`.
    pub fn student_file(&self) -> String {
        format!("kernels/src/{}.rs", self.chapter)
    }

    /// The reference's file: `solutions/src/<chapter>.rs`.
    pub fn solution_file(&self) -> String {
        format!("solutions/src/{}.rs", self.chapter)
    }
}

/// What a check said.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The check passed.
    Pass {
        /// What was checked.
        reason: String,
        /// What the kernels printed (`println!` in a kernel), labelled with the launch,
        /// block and thread: shown in a pane of its own, never read by the check.
        kernel_output: Vec<String>,
    },
    /// The check failed (wrong result, race, not implemented, ...).
    Fail {
        /// What the check found (the course's one result type, as the grader's report
        /// carries it): the status, the first line of the reason, and the details
        /// (expected vs got, the emulator's findings, the seed).
        outcome: Outcome,
        /// The hint the grader chose for this failure (the one that answers it, or
        /// "solve 9.5 first" when a needed exercise is still a stub), shown first.
        hint: Option<String>,
    },
    /// The student's code does not compile: the compiler's errors.
    BuildFailed {
        /// The errors, as rustc renders them.
        errors: String,
    },
    /// The check could not run at all (cargo missing, the grader failed).
    Error {
        /// Why.
        message: String,
    },
}

impl Verdict {
    /// Did the check pass?
    pub fn passed(&self) -> bool {
        matches!(self, Verdict::Pass { .. })
    }
}

/// A key the student pressed (or a command typed, then Enter).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    /// `h`: the next hint level.
    Hint,
    /// `l`: the list of exercises with their status (again: back to the exercise).
    List,
    /// `r`: reset the current exercise's stub (asks first: `r` again confirms; the
    /// student's version is backed up).
    Reset,
    /// `u`: undo the last reset of the current exercise, from its backup.
    Undo,
    /// `n`: the next unsolved exercise.
    Next,
    /// `t`: write an SVG trace of the current exercise's launch.
    Trace,
    /// `s`: show the reference solution (only once the exercise is solved).
    Solution,
    /// `c`: check again now.
    Check,
    /// `q`: quit (asks first: `q` again quits, any other key stays).
    Quit,
    /// Esc (or `b`, typed): step back, from the list to the exercise; on the exercise,
    /// cancel what a key asked to confirm.
    Back,
    /// Arrow up: the previous exercise of the list.
    Up,
    /// Arrow down: the next exercise of the list.
    Down,
    /// Enter: open the exercise the list points at (or whose number was typed).
    Enter,
}

impl Key {
    /// The key of a typed command: its first letter (`"h"`, `"hint"`), case-insensitive.
    pub fn parse(line: &str) -> Option<Key> {
        let c = line.trim().chars().next()?.to_ascii_lowercase();
        Some(match c {
            'h' => Key::Hint,
            'l' => Key::List,
            'r' => Key::Reset,
            'u' => Key::Undo,
            'n' => Key::Next,
            't' => Key::Trace,
            's' => Key::Solution,
            'c' => Key::Check,
            'q' => Key::Quit,
            'b' => Key::Back,
            _ => return None,
        })
    }
}

/// Something that happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The runner started: check the current exercise.
    Start,
    /// A file under `kernels/` was saved.
    FileChanged,
    /// A check finished.
    Checked {
        /// The exercise checked.
        id: String,
        /// What it said.
        verdict: Verdict,
    },
    /// A key.
    Key(Key),
    /// A backend's answer to an effect (a reset, a trace, a solution): text to show.
    Message(String),
    /// A key (or typed line) that names no command: it cancels what a key asked to
    /// confirm (a quit, a reset), else the runner says it does not know it.
    UnknownKey(String),
    /// A character of an exercise's number typed in the list (`9`, `.`, `4`; a
    /// backspace, `'\u{8}'`, takes one back), for Enter to open.
    Typed(char),
    /// Open exercise `id` (a number typed as a line, where keys need Enter).
    Open(String),
    /// The other exercises, checked in the background after the runner started or a save
    /// ([`Effect::Rescan`] of the same `generation`): `(id, passed)` for each, or why
    /// they could not be checked (the kernels do not compile). Progress made outside the
    /// runner (with `cargo test`) is picked up, and an exercise a save made pass (or
    /// fail) shows it in the list.
    Scanned {
        /// The [`Effect::Rescan`] this answers; an older one than the last asked for is
        /// stale (a later save asked again) and ignored.
        generation: u64,
        /// `(id, passed)` per exercise checked, or why none was.
        results: Result<Vec<(String, bool)>, String>,
    },
    /// Ctrl-C (or the end of the input): quit now, without asking.
    Interrupt,
}

/// Something the loop must do for the state machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Effect {
    /// Check this exercise (rebuild, run its check isolated), then send
    /// [`Event::Checked`].
    Check(String),
    /// Restore this exercise's stub in the student's file, backing up their version.
    Reset(String),
    /// Restore this exercise's regions from its last backup.
    Undo(String),
    /// Write the SVG trace of this exercise's launch.
    Trace(String),
    /// Show the reference solution of this exercise.
    ShowSolution(String),
    /// Check every exercise but the open one in the background (the open one was just
    /// checked, first), then send [`Event::Scanned`] with this generation: after a save
    /// any exercise's verdict may have changed (a compile error fails them all; solving
    /// 9.5 unblocks 9.9), so the list is never stale.
    Rescan(u64),
    /// Write the progress file.
    Save,
    /// Stop.
    Quit,
}

/// What the screen shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    /// The current exercise.
    Exercise,
    /// Every exercise with its status.
    List,
}

/// The runner's state.
#[derive(Clone, Debug)]
pub struct App {
    exercises: Vec<ExerciseInfo>,
    /// What is kept between runs.
    pub progress: Progress,
    current: usize,
    /// The last verdict of the current exercise (`None`: not checked yet).
    verdict: Option<Verdict>,
    /// What the screen shows.
    pub view: View,
    /// Whether keys are read (the interactive runner): the list then says how to move in
    /// it. `learn --once` turns it off.
    pub keys: bool,
    /// A one-off message (a reset's backup path, a trace's file, a solution).
    message: Option<String>,
    /// The exercise a first `r` asked to reset: a second `r` confirms it.
    confirm_reset: Option<String>,
    /// A first `q` asked to quit: a second `q` quits.
    confirm_quit: bool,
    /// Counts the checks of every exercise asked for (at the start and after each save):
    /// a background answer to an older one is stale.
    generation: u64,
    /// The generation of the background check still running, if any.
    scanning: Option<u64>,
    /// Why the last background check of the others could not run (the kernels do not
    /// compile): the list then shows the last checks that ran.
    scan_note: Option<String>,
    /// The list's cursor (an index into the exercises).
    cursor: usize,
    /// An exercise number being typed in the list.
    typed: String,
    quit: bool,
}

impl App {
    /// A runner over `exercises` (course order) with the saved `progress`. It opens on
    /// `start` when given and known, else where the student left off (the progress's
    /// current exercise, in any chapter), else on the first unsolved exercise (the last
    /// one when all are solved).
    pub fn new(exercises: Vec<ExerciseInfo>, progress: Progress, start: Option<&str>) -> Self {
        assert!(
            !exercises.is_empty(),
            "invariant: a course has at least one exercise"
        );
        let first_unsolved = exercises
            .iter()
            .position(|e| !progress.is_solved(&e.id))
            .unwrap_or(exercises.len() - 1);
        let at = |id: &str| exercises.iter().position(|e| e.id == id);
        let current = start
            .and_then(at)
            .or_else(|| progress.current.as_deref().and_then(at))
            .unwrap_or(first_unsolved);
        let mut app = App {
            exercises,
            progress,
            current,
            verdict: None,
            view: View::Exercise,
            keys: true,
            message: None,
            confirm_reset: None,
            confirm_quit: false,
            generation: 0,
            scanning: None,
            scan_note: None,
            cursor: current,
            typed: String::new(),
            quit: false,
        };
        app.progress.current = Some(app.exercises[current].id.clone());
        app
    }

    /// The exercise in front of the student.
    pub fn current(&self) -> &ExerciseInfo {
        &self.exercises[self.current]
    }

    /// Every exercise, in course order.
    pub fn exercises(&self) -> &[ExerciseInfo] {
        &self.exercises
    }

    /// The last verdict of the current exercise.
    pub fn verdict(&self) -> Option<&Verdict> {
        self.verdict.as_ref()
    }

    /// The one-off message on screen, if any.
    pub fn message(&self) -> Option<&str> {
        self.message.as_deref()
    }

    /// Has the student asked to quit?
    pub fn quitting(&self) -> bool {
        self.quit
    }

    /// The kind of the current failure, if the last check failed.
    fn failure(&self) -> Option<Failure> {
        match &self.verdict {
            Some(Verdict::Fail { outcome, .. }) => Some(self.current().failure_of(outcome)),
            _ => None,
        }
    }

    /// Is a background check of the other exercises running?
    pub fn scanning(&self) -> bool {
        self.scanning.is_some()
    }

    /// What to tell the student as the runner ends: where the progress is and how to
    /// come back to this exercise.
    pub fn farewell(&self) -> String {
        format!(
            "learn: progress saved ({}); `cargo run -p learn` brings you back to {}",
            self.score(None),
            self.current().id
        )
    }

    /// The current exercise's hints for its last verdict: the grader's choice for the
    /// failure first, then those that answer that kind of failure (a race gets the
    /// barrier hint), then the general ones.
    pub fn hints(&self) -> Vec<&str> {
        let mut hints = self.current().hints_for(self.failure());
        if let Some(Verdict::Fail { hint: Some(h), .. }) = &self.verdict {
            hints.retain(|x| x != h);
            hints.insert(0, h);
        }
        hints
    }

    /// How many hints of the current exercise are shown: those asked for with `h`, and
    /// at least the first while the check fails (as `cargo test -p ch09` shows it).
    pub fn hint_level(&self) -> usize {
        let failing = self.failure().is_some();
        self.progress
            .hint_level(&self.current().id)
            .max(usize::from(failing))
            .min(self.hints().len())
    }

    /// Updates the state with `event`; returns what the loop must do, in order.
    pub fn handle(&mut self, event: Event) -> Vec<Effect> {
        let id = self.current().id.clone();
        // A reset is confirmed by the very next key; any other key cancels it (a check
        // finishing in between does not).
        let confirming = match event {
            Event::Key(_) | Event::UnknownKey(_) | Event::Typed(_) | Event::Open(_) => {
                self.confirm_reset.take()
            }
            _ => self.confirm_reset.clone(),
        };
        let quitting = match event {
            Event::Key(_) | Event::UnknownKey(_) | Event::Typed(_) | Event::Open(_) => {
                std::mem::take(&mut self.confirm_quit)
            }
            _ => self.confirm_quit,
        };
        match event {
            Event::Start | Event::FileChanged => {
                self.message = None;
                self.generation += 1;
                self.scanning = Some(self.generation);
                vec![Effect::Check(id), Effect::Rescan(self.generation)]
            }
            Event::Key(Key::Check) => {
                self.message = None;
                vec![Effect::Check(id)]
            }
            Event::Checked {
                id: checked,
                verdict,
            } => {
                if checked != id {
                    // A check of an exercise the student has left: its result is stale.
                    return Vec::new();
                }
                let was = self.progress.is_solved(&id);
                self.progress.set_solved(&id, verdict.passed());
                self.verdict = Some(verdict);
                self.view = View::Exercise;
                if was != self.progress.is_solved(&id) {
                    vec![Effect::Save]
                } else {
                    Vec::new()
                }
            }
            Event::Key(Key::Hint) => {
                self.view = View::Exercise;
                let n = self.hints().len();
                let level = self.hint_level();
                if level >= n {
                    self.message = Some(format!("that was the last hint of {id} ({n} of {n})"));
                    return Vec::new();
                }
                self.message = None;
                self.progress.set_hint_level(&id, level + 1);
                vec![Effect::Save]
            }
            Event::Key(Key::List) => {
                self.view = match self.view {
                    View::List => View::Exercise,
                    View::Exercise => View::List,
                };
                Vec::new()
            }
            Event::Key(Key::Back) => {
                if self.view == View::List {
                    self.view = View::Exercise;
                    self.typed.clear();
                    self.message = None;
                } else if confirming.is_some() || quitting {
                    self.message = Some("cancelled".into());
                } else {
                    self.message = Some(format!(
                        "you are on {id} (Esc steps back from the list to here); l lists the \
                         exercises, q quits (it asks first)"
                    ));
                }
                Vec::new()
            }
            Event::Key(Key::Reset) => {
                self.view = View::Exercise;
                if confirming.as_deref() != Some(id.as_str()) {
                    self.message = Some(format!(
                        "press r again to reset {id} to its stub in {} (your version is backed \
                         up in .course/backups/; u undoes the reset); any other key cancels",
                        self.current().student_file()
                    ));
                    self.confirm_reset = Some(id);
                    return Vec::new();
                }
                self.verdict = None;
                vec![Effect::Reset(id.clone()), Effect::Check(id)]
            }
            Event::Key(Key::Undo) => {
                self.view = View::Exercise;
                self.verdict = None;
                vec![Effect::Undo(id.clone()), Effect::Check(id)]
            }
            Event::Key(Key::Up) | Event::Key(Key::Down) => {
                self.view = View::List;
                self.typed.clear();
                let n = self.exercises.len();
                self.cursor = if event == Event::Key(Key::Up) {
                    (self.cursor + n - 1) % n
                } else {
                    (self.cursor + 1) % n
                };
                Vec::new()
            }
            Event::Typed(c) => {
                self.view = View::List;
                if c == '\u{8}' {
                    self.typed.pop();
                } else {
                    self.typed.push(c);
                }
                if let Some(i) = self.exercises.iter().position(|e| e.id == self.typed) {
                    self.cursor = i;
                }
                Vec::new()
            }
            Event::Key(Key::Enter) => {
                if self.view != View::List {
                    return Vec::new();
                }
                let typed = std::mem::take(&mut self.typed);
                if !typed.is_empty() && !self.exercises.iter().any(|e| e.id == typed) {
                    self.message = Some(format!("no exercise {typed}"));
                    return Vec::new();
                }
                self.open(self.cursor)
            }
            Event::Open(target) => match self.exercises.iter().position(|e| e.id == target) {
                Some(i) => self.open(i),
                None => {
                    self.message = Some(format!("no exercise {target}"));
                    Vec::new()
                }
            },
            Event::Scanned {
                generation,
                results,
            } => {
                if generation != self.generation {
                    // A later save asked for another check of them all: this one is stale.
                    return Vec::new();
                }
                self.scanning = None;
                let results = match results {
                    Ok(r) => r,
                    Err(why) => {
                        self.scan_note = Some(why);
                        return Vec::new();
                    }
                };
                self.scan_note = None;
                let (mut now, mut no_longer) = (Vec::new(), Vec::new());
                for (ex, passed) in results {
                    // The exercise on screen has its own, fresher verdict.
                    if ex == id && self.verdict.is_some() {
                        continue;
                    }
                    if self.progress.is_solved(&ex) != passed {
                        self.progress.set_solved(&ex, passed);
                        if passed {
                            now.push(ex);
                        } else {
                            no_longer.push(ex);
                        }
                    }
                }
                let mut said = Vec::new();
                if !now.is_empty() {
                    said.push(format!("now passing: {}", now.join(", ")));
                }
                if !no_longer.is_empty() {
                    said.push(format!("no longer passing: {}", no_longer.join(", ")));
                }
                if !said.is_empty() && self.message.is_none() {
                    self.message = Some(said.join("; "));
                }
                vec![Effect::Save]
            }
            Event::Interrupt => {
                self.quit = true;
                vec![Effect::Save, Effect::Quit]
            }
            Event::Key(Key::Next) => {
                self.view = View::Exercise;
                let n = self.exercises.len();
                let next = (1..=n)
                    .map(|k| (self.current + k) % n)
                    .find(|&i| !self.progress.is_solved(&self.exercises[i].id));
                match next {
                    Some(i) if i != self.current => self.open(i),
                    Some(_) => {
                        self.message =
                            Some(format!("{id} is the only exercise left: solve it first"));
                        Vec::new()
                    }
                    None => {
                        self.message = Some("every exercise is solved: well done!".into());
                        Vec::new()
                    }
                }
            }
            Event::Key(Key::Trace) => {
                self.view = View::Exercise;
                vec![Effect::Trace(id)]
            }
            Event::Key(Key::Solution) => {
                self.view = View::Exercise;
                if self.progress.is_solved(&id) {
                    vec![Effect::ShowSolution(id)]
                } else {
                    self.message = Some(format!(
                        "the reference solution of {id} is shown once your version passes"
                    ));
                    Vec::new()
                }
            }
            Event::Key(Key::Quit) => {
                if !quitting {
                    self.confirm_quit = true;
                    self.message = Some(format!(
                        "quit? press q again (your progress is saved; `cargo run -p learn` \
                         brings you back to {id}); any other key stays"
                    ));
                    return Vec::new();
                }
                self.quit = true;
                vec![Effect::Save, Effect::Quit]
            }
            Event::Message(text) => {
                self.message = Some(text);
                Vec::new()
            }
            Event::UnknownKey(key) => {
                // Any other key cancels a confirmation, as Esc does: no "unknown key".
                self.message = Some(if confirming.is_some() || quitting {
                    "cancelled".into()
                } else {
                    format!("unknown key `{key}`")
                });
                Vec::new()
            }
        }
    }

    /// Makes exercise `i` the current one and checks it.
    fn open(&mut self, i: usize) -> Vec<Effect> {
        self.current = i;
        self.cursor = i;
        self.verdict = None;
        self.message = None;
        self.view = View::Exercise;
        let id = self.current().id.clone();
        self.progress.current = Some(id.clone());
        vec![Effect::Save, Effect::Check(id)]
    }

    /// `3/16 solved` over the exercises of `chapter`, or of the whole course (`None`),
    /// which adds the points: `5/23 solved, 60/260 points`.
    fn score(&self, chapter: Option<&str>) -> String {
        let of: Vec<&ExerciseInfo> = self
            .exercises
            .iter()
            .filter(|e| chapter.is_none_or(|c| e.chapter == c))
            .collect();
        let solved: Vec<&&ExerciseInfo> = of
            .iter()
            .filter(|e| self.progress.is_solved(&e.id))
            .collect();
        let counted = format!("{}/{} solved", solved.len(), of.len());
        if chapter.is_some() {
            return counted;
        }
        let earned: u32 = solved.iter().map(|e| e.points).sum();
        let possible: u32 = of.iter().map(|e| e.points).sum();
        format!("{counted}, {earned}/{possible} points")
    }

    /// The screen, as plain text (no colour: it must read the same in every terminal
    /// and in a CI log).
    pub fn render(&self) -> String {
        let mut s = String::new();
        match self.view {
            View::Exercise => self.render_exercise(&mut s),
            View::List => self.render_list(&mut s),
        }
        if let Some(m) = &self.message {
            let _ = writeln!(s, "\n{m}");
        }
        s
    }

    fn render_exercise(&self, s: &mut String) {
        let e = self.current();
        let _ = writeln!(
            s,
            "{} {} ({} points)    [course: {}; {}: {}]",
            e.id,
            e.title,
            e.points,
            self.score(None),
            e.chapter,
            self.score(Some(&e.chapter))
        );
        let _ = writeln!(
            s,
            "  write: {} in {}",
            e.kernels.join(", "),
            e.student_file()
        );
        match &self.verdict {
            None => {
                let _ = writeln!(s, "  status: checking ...");
            }
            Some(Verdict::Pass { reason, .. }) => {
                let _ = writeln!(s, "  status: PASS - {reason}");
                let _ = writeln!(
                    s,
                    "  solved! compare with the reference: {} (fn {}), key s shows it",
                    e.solution_file(),
                    e.kernels.join(", fn ")
                );
                let _ = writeln!(s, "  read why it works: book/src/{}", e.book);
                let _ = writeln!(s, "  n: on to the next exercise");
            }
            Some(Verdict::Fail { outcome, .. }) => {
                let (status, reason, details) =
                    (outcome.status.label(), &outcome.reason, &outcome.details);
                let _ = writeln!(s, "  status: FAIL ({status}) - {reason}");
                for d in details.iter().take(12) {
                    let _ = writeln!(s, "    {d}");
                }
                if details.len() > 12 {
                    let _ = writeln!(s, "    ... ({} more lines)", details.len() - 12);
                }
            }
            Some(Verdict::BuildFailed { errors }) => {
                let _ = writeln!(
                    s,
                    "  status: DOES NOT COMPILE - fix the errors below, then save"
                );
                for l in errors.lines().take(40) {
                    let _ = writeln!(s, "    {l}");
                }
            }
            Some(Verdict::Error { message }) => {
                let _ = writeln!(s, "  status: could not check - {message}");
            }
        }
        let level = self.hint_level();
        let hints = self.hints();
        for (i, h) in hints.iter().take(level).enumerate() {
            let _ = writeln!(s, "  hint {}/{}: {h}", i + 1, hints.len());
        }
        if !self.verdict.as_ref().is_some_and(Verdict::passed) {
            let _ = writeln!(s, "  read: book/src/{}", e.book);
            let _ = writeln!(
                s,
                "  api: {} (every function and macro a kernel may use)",
                course::API_PAGE
            );
        }
        self.render_kernel_output(s);
    }

    /// The kernel output pane: what the open exercise's kernels printed in its last
    /// check, each line labelled with its launch, block and thread, set apart from the
    /// verdict (the text is the kernels', not the course's, and no check reads it).
    fn render_kernel_output(&self, s: &mut String) {
        let lines: &[String] = match &self.verdict {
            Some(Verdict::Pass { kernel_output, .. }) => kernel_output,
            Some(Verdict::Fail { outcome, .. }) => &outcome.kernel_output,
            _ => &[],
        };
        if lines.is_empty() {
            return;
        }
        let _ = writeln!(
            s,
            "\n  -- kernel output: {} lines printed by your kernels (shown for you; no check reads it) --",
            lines.len()
        );
        for l in lines.iter().take(KERNEL_OUTPUT_LINES) {
            let _ = writeln!(s, "  | {l}");
        }
        if lines.len() > KERNEL_OUTPUT_LINES {
            let _ = writeln!(
                s,
                "  | ... {} more (all of them: `cargo test -p {} {} -- --nocapture`)",
                lines.len() - KERNEL_OUTPUT_LINES,
                self.current().chapter,
                course::test_filter(&self.current().id)
            );
        }
    }

    fn render_list(&self, s: &mut String) {
        let _ = writeln!(s, "exercises ({})", self.score(None));
        if self.scanning.is_some() {
            let _ = writeln!(s, "(re-checking the other exercises in the background ...)");
        } else if let Some(note) = &self.scan_note {
            let _ = writeln!(
                s,
                "(not re-checked: {note}; the list shows the last checks that ran)"
            );
        }
        let width = self
            .exercises
            .iter()
            .map(|e| e.title.len())
            .max()
            .unwrap_or(0);
        for (i, e) in self.exercises.iter().enumerate() {
            let solved = self.progress.is_solved(&e.id);
            let mark = if solved { "done" } else { "todo" };
            let here = if i == self.cursor { ">" } else { " " };
            let open = if i == self.current { "*" } else { " " };
            let earned = if solved { e.points } else { 0 };
            let _ = writeln!(
                s,
                "{here}{open}{mark}  {:<5} {:<width$}  {earned:>2}/{} pts",
                e.id, e.title, e.points
            );
        }
        if self.keys {
            let _ = writeln!(
                s,
                "\n(up/down or type a number such as 9.4, then Enter to open; * is the open one; Esc or l goes back){}",
                if self.typed.is_empty() {
                    String::new()
                } else {
                    format!("\nopen: {}", self.typed)
                }
            );
        }
    }
}

/// Most kernel output lines the runner's pane shows.
const KERNEL_OUTPUT_LINES: usize = 15;

/// The keys, for the bottom of the screen.
pub const KEYS: &str = "keys: h hint  l list (up/down, Enter; Esc back)  r reset stub  u undo reset  n next  t trace (SVG)  s solution  c check  q quit";
