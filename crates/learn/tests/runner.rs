//! The runner's state machine with a fake kernel set: three fake exercises whose "files"
//! are flags in memory and whose check passes when the flag says solved. Solve, hint,
//! reset, next, list, trace and quit, through the same `drive` loop the binary uses.

use course::{Failure, Outcome, Status};
use learn::{App, Backend, Event, ExerciseInfo, Key, Progress, Verdict, View, drive};
use std::collections::BTreeMap;

/// The fake kernels: per exercise, what its check says.
#[derive(Default)]
struct Fake {
    files: BTreeMap<String, FakeFile>,
    /// What each reset saved, newest last.
    backups: BTreeMap<String, Vec<FakeFile>>,
    checks: Vec<String>,
    /// The exercises of each scan, in order, and when it came (after how many checks).
    scans: Vec<(usize, Vec<String>)>,
    saved: Option<Progress>,
}

#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
enum FakeFile {
    #[default]
    Stub,
    Solved,
    DoesNotCompile,
    /// Right bins but a race: the check fails as `race`.
    Racy,
}

impl Fake {
    fn edit(&mut self, id: &str, f: FakeFile) {
        self.files.insert(id.to_string(), f);
    }
}

impl Backend for Fake {
    fn check(&mut self, ex: &ExerciseInfo) -> Verdict {
        self.checks.push(ex.id.clone());
        match self.files.get(&ex.id).copied().unwrap_or_default() {
            FakeFile::Stub => Verdict::Fail {
                outcome: Outcome::fail(
                    Status::NotImplemented,
                    format!("not yet implemented: {}", ex.id),
                ),
                hint: None,
            },
            FakeFile::Solved => Verdict::Pass {
                reason: "bins match".into(),
                kernel_output: Vec::new(),
            },
            FakeFile::DoesNotCompile => Verdict::BuildFailed {
                errors: "error[E0425]: cannot find value `x` in this scope".into(),
            },
            FakeFile::Racy => Verdict::Fail {
                outcome: Outcome::fail(Status::Race, "a data race on bins"),
                hint: None,
            },
        }
    }
    fn reset(&mut self, ex: &ExerciseInfo) -> Result<String, String> {
        let old = self.files.insert(ex.id.clone(), FakeFile::Stub);
        self.backups
            .entry(ex.id.clone())
            .or_default()
            .push(old.unwrap_or_default());
        Ok(format!("reset {}", ex.id))
    }
    fn undo(&mut self, ex: &ExerciseInfo) -> Result<String, String> {
        let old = self
            .backups
            .get_mut(&ex.id)
            .and_then(Vec::pop)
            .ok_or("no backup")?;
        self.files.insert(ex.id.clone(), old);
        Ok(format!("restored {}", ex.id))
    }
    fn scan(&mut self, exercises: &[ExerciseInfo]) -> Result<Vec<(String, bool)>, String> {
        self.scans.push((
            self.checks.len(),
            exercises.iter().map(|e| e.id.clone()).collect(),
        ));
        if self.files.values().any(|f| *f == FakeFile::DoesNotCompile) {
            return Err("your kernels do not compile".into());
        }
        Ok(exercises
            .iter()
            .map(|e| {
                (
                    e.id.clone(),
                    self.files.get(&e.id) == Some(&FakeFile::Solved),
                )
            })
            .collect())
    }
    fn trace(&mut self, ex: &ExerciseInfo) -> Result<String, String> {
        Ok(format!("wrote .course/traces/{}.svg", ex.id))
    }
    fn solution(&mut self, ex: &ExerciseInfo) -> Result<String, String> {
        Ok(format!("the reference solution of {}", ex.id))
    }
    fn save(&mut self, p: &Progress) -> Result<(), String> {
        self.saved = Some(p.clone());
        Ok(())
    }
}

fn ex(id: &str, hints: &[&str]) -> ExerciseInfo {
    ExerciseInfo {
        chapter: "ch01".into(),
        id: id.into(),
        title: format!("exercise {id}"),
        kernels: vec![format!("kernel_{}", id.replace('.', "_"))],
        points: 5,
        hints: hints.iter().map(|h| h.to_string()).collect(),
        hints_by_failure: vec![(
            Failure::status(Status::Race),
            format!("the barrier hint of {id}"),
        )],
        failures: vec![Failure::status(Status::Race)],
        book: format!("ch01/{id}.md"),
    }
}

fn course() -> Vec<ExerciseInfo> {
    vec![
        ex("1.1", &["first hint", "second hint"]),
        ex("1.2", &["only hint"]),
        ex("1.3", &["a", "b", "c"]),
    ]
}

fn start(progress: Progress) -> (App, Fake) {
    let mut fake = Fake::default();
    // The files agree with the progress: the start's scan of them says so.
    for id in &progress.solved {
        fake.edit(id, FakeFile::Solved);
    }
    let mut app = App::new(course(), progress, None);
    assert!(drive(&mut app, &mut fake, Event::Start));
    (app, fake)
}

#[test]
fn opens_on_the_first_unsolved_exercise_and_checks_it() {
    let mut p = Progress::default();
    p.set_solved("1.1", true);
    let (app, fake) = start(p);
    assert_eq!(app.current().id, "1.2");
    assert_eq!(fake.checks, ["1.2"]);
    let screen = app.render();
    assert!(screen.contains("FAIL (not implemented)"), "{screen}");
    assert!(screen.contains("hint 1/1: only hint"), "{screen}");
    assert!(screen.contains("book/src/ch01/1.2.md"), "{screen}");
}

#[test]
fn solving_on_save_marks_it_solved_and_offers_the_solution() {
    let (mut app, mut fake) = start(Progress::default());
    assert_eq!(app.current().id, "1.1");
    fake.edit("1.1", FakeFile::DoesNotCompile);
    drive(&mut app, &mut fake, Event::FileChanged);
    assert!(app.render().contains("DOES NOT COMPILE"));
    assert!(app.render().contains("E0425"));
    // Not solved: no solution yet.
    drive(&mut app, &mut fake, Event::Key(Key::Solution));
    assert!(app.message().unwrap().contains("once your version passes"));
    fake.edit("1.1", FakeFile::Solved);
    drive(&mut app, &mut fake, Event::FileChanged);
    assert!(app.progress.is_solved("1.1"));
    assert!(
        fake.saved.as_ref().unwrap().is_solved("1.1"),
        "saved on solve"
    );
    let screen = app.render();
    assert!(screen.contains("PASS - bins match"), "{screen}");
    assert!(
        screen.contains("solutions/src/ch01.rs (fn kernel_1_1)"),
        "{screen}"
    );
    assert!(screen.contains("book/src/ch01/1.1.md"), "{screen}");
    drive(&mut app, &mut fake, Event::Key(Key::Solution));
    assert_eq!(app.message(), Some("the reference solution of 1.1"));
    assert_eq!(fake.checks, ["1.1", "1.1", "1.1"]);
}

#[test]
fn hints_go_one_level_at_a_time_and_stop_at_the_last() {
    let (mut app, mut fake) = start(Progress::default());
    // A failing check shows the first hint.
    assert_eq!(app.hint_level(), 1);
    drive(&mut app, &mut fake, Event::Key(Key::Hint));
    assert_eq!(app.hint_level(), 2);
    assert!(app.render().contains("hint 2/2: second hint"));
    assert_eq!(fake.saved.as_ref().unwrap().hint_level("1.1"), 2);
    drive(&mut app, &mut fake, Event::Key(Key::Hint));
    assert_eq!(app.hint_level(), 2);
    assert!(app.message().unwrap().contains("last hint"));
}

#[test]
fn reset_restores_the_stub_and_checks_again() {
    let (mut app, mut fake) = start(Progress::default());
    fake.edit("1.1", FakeFile::Solved);
    drive(&mut app, &mut fake, Event::FileChanged);
    assert!(app.progress.is_solved("1.1"));
    // The first r asks; another key cancels.
    drive(&mut app, &mut fake, Event::Key(Key::Reset));
    assert_eq!(fake.files["1.1"], FakeFile::Solved, "not yet");
    assert!(app.message().unwrap().contains("press r again"));
    drive(&mut app, &mut fake, Event::Key(Key::Hint));
    drive(&mut app, &mut fake, Event::Key(Key::Reset));
    assert_eq!(
        fake.files["1.1"],
        FakeFile::Solved,
        "cancelled, then asked again"
    );
    // A check finishing in between does not cancel it; r again does it.
    drive(&mut app, &mut fake, Event::FileChanged);
    drive(&mut app, &mut fake, Event::Key(Key::Reset));
    assert_eq!(fake.files["1.1"], FakeFile::Stub);
    assert!(!app.progress.is_solved("1.1"), "the stub fails again");
    assert_eq!(app.message(), Some("reset 1.1"));
    assert!(app.render().contains("FAIL"));
    // u brings the student's version back, and it passes again.
    drive(&mut app, &mut fake, Event::Key(Key::Undo));
    assert_eq!(fake.files["1.1"], FakeFile::Solved);
    assert!(app.progress.is_solved("1.1"));
    drive(&mut app, &mut fake, Event::Key(Key::Undo));
    assert!(app.message().unwrap().contains("nothing undone"));
}

#[test]
fn it_resumes_where_the_student_left_off_across_chapters() {
    let mut exercises = course();
    let mut other = ex("2.1", &["h"]);
    other.chapter = "ch02".into();
    exercises.push(other);
    let p = Progress {
        current: Some("2.1".into()),
        ..Progress::default()
    };
    let app = App::new(exercises.clone(), p.clone(), None);
    assert_eq!(app.current().id, "2.1", "not the first unsolved, 1.1");
    let app = App::new(exercises.clone(), p, Some("1.3"));
    assert_eq!(app.current().id, "1.3", "--exercise wins");
    let app = App::new(exercises, Progress::default(), None);
    assert_eq!(app.current().id, "1.1");
}

#[test]
fn the_list_is_navigable_with_arrows_or_a_number() {
    let (mut app, mut fake) = start(Progress::default());
    drive(&mut app, &mut fake, Event::Key(Key::List));
    drive(&mut app, &mut fake, Event::Key(Key::Down));
    drive(&mut app, &mut fake, Event::Key(Key::Down));
    assert!(app.render().contains("> todo  1.3"), "{}", app.render());
    drive(&mut app, &mut fake, Event::Key(Key::Enter));
    assert_eq!(app.current().id, "1.3");
    assert_eq!(app.view, View::Exercise);
    assert_eq!(fake.checks.last().map(String::as_str), Some("1.3"));
    assert_eq!(fake.saved.as_ref().unwrap().current.as_deref(), Some("1.3"));
    // Up wraps; a typed number opens its exercise.
    drive(&mut app, &mut fake, Event::Key(Key::Up));
    assert_eq!(app.view, View::List);
    for c in "1.2".chars() {
        drive(&mut app, &mut fake, Event::Typed(c));
    }
    drive(&mut app, &mut fake, Event::Key(Key::Enter));
    assert_eq!(app.current().id, "1.2");
    drive(&mut app, &mut fake, Event::Open("1.1".into()));
    assert_eq!(app.current().id, "1.1");
    drive(&mut app, &mut fake, Event::Open("7.7".into()));
    assert_eq!(app.current().id, "1.1");
    assert!(app.message().unwrap().contains("no exercise 7.7"));
}

#[test]
fn progress_made_outside_the_runner_is_picked_up() {
    // Solved with `cargo test` before the runner started: its first scan sees it.
    let mut app = App::new(course(), Progress::default(), None);
    let mut fake = Fake::default();
    fake.edit("1.2", FakeFile::Solved);
    fake.edit("1.3", FakeFile::Solved);
    assert!(drive(&mut app, &mut fake, Event::Start));
    assert!(app.progress.is_solved("1.2") && app.progress.is_solved("1.3"));
    assert!(!app.progress.is_solved("1.1"));
    assert!(app.message().unwrap().contains("now passing: 1.2, 1.3"));
    assert!(fake.saved.as_ref().unwrap().is_solved("1.3"), "saved");
    drive(&mut app, &mut fake, Event::Key(Key::Next));
    assert_eq!(app.current().id, "1.1", "next knows they are done");
}

#[test]
fn a_save_checks_the_open_exercise_first_then_every_other_one() {
    let (mut app, mut fake) = start(Progress::default());
    // At the start: 1.1 checked, then the others scanned.
    assert_eq!(fake.checks, ["1.1"]);
    assert_eq!(fake.scans, [(1, vec!["1.2".to_string(), "1.3".into()])]);
    // One save solves 1.1 and 1.3 (a helper they share): both show done at once.
    fake.edit("1.1", FakeFile::Solved);
    fake.edit("1.3", FakeFile::Solved);
    drive(&mut app, &mut fake, Event::FileChanged);
    assert_eq!(fake.checks, ["1.1", "1.1"]);
    assert_eq!(fake.scans[1], (2, vec!["1.2".to_string(), "1.3".into()]));
    assert!(app.progress.is_solved("1.1") && app.progress.is_solved("1.3"));
    app.view = View::List;
    let list = app.render();
    assert!(list.contains("done  1.3"), "{list}");
    assert!(!list.contains("re-checking"), "{list}");
    // A save that breaks 1.3 again shows it as no longer passing.
    fake.edit("1.3", FakeFile::Racy);
    drive(&mut app, &mut fake, Event::FileChanged);
    assert!(!app.progress.is_solved("1.3"));
    assert!(app.message().unwrap().contains("no longer passing: 1.3"));
}

#[test]
fn a_stale_or_failed_background_check_does_not_rewrite_the_list() {
    let (mut app, mut fake) = start(Progress::default());
    // An answer to an older request (a later save asked again) is ignored.
    drive(
        &mut app,
        &mut fake,
        Event::Scanned {
            generation: 0,
            results: Ok(vec![("1.2".into(), true)]),
        },
    );
    assert!(!app.progress.is_solved("1.2"));
    // Kernels that do not compile: the marks stay, and the list says why.
    let mut p = Progress::default();
    p.set_solved("1.2", true);
    let mut app = App::new(course(), p, Some("1.1"));
    fake.edit("1.1", FakeFile::DoesNotCompile);
    drive(&mut app, &mut fake, Event::Start);
    assert!(app.progress.is_solved("1.2"), "kept");
    app.view = View::List;
    let list = app.render();
    assert!(
        list.contains("not re-checked: your kernels do not compile"),
        "{list}"
    );
}

#[test]
fn the_hint_answers_the_failure() {
    let (mut app, mut fake) = start(Progress::default());
    assert!(
        app.render().contains("hint 1/2: first hint"),
        "{}",
        app.render()
    );
    fake.edit("1.1", FakeFile::Racy);
    drive(&mut app, &mut fake, Event::FileChanged);
    let screen = app.render();
    assert!(
        screen.contains("hint 1/3: the barrier hint of 1.1"),
        "{screen}"
    );
    // The levels still step, through the general hints.
    drive(&mut app, &mut fake, Event::Key(Key::Hint));
    assert!(app.render().contains("hint 2/3: first hint"));
}

#[test]
fn next_skips_solved_exercises_and_wraps() {
    let mut p = Progress::default();
    p.set_solved("1.2", true);
    let (mut app, mut fake) = start(p);
    assert_eq!(app.current().id, "1.1");
    drive(&mut app, &mut fake, Event::Key(Key::Next));
    assert_eq!(app.current().id, "1.3", "1.2 is solved");
    assert_eq!(fake.saved.as_ref().unwrap().current.as_deref(), Some("1.3"));
    drive(&mut app, &mut fake, Event::Key(Key::Next));
    assert_eq!(app.current().id, "1.1", "wraps around");
    // Solve everything in one save: the background check marks 1.3 too, so next says
    // so and stays.
    for id in ["1.1", "1.3"] {
        fake.edit(id, FakeFile::Solved);
    }
    drive(&mut app, &mut fake, Event::FileChanged);
    drive(&mut app, &mut fake, Event::Key(Key::Next));
    assert_eq!(app.current().id, "1.1");
    assert!(app.message().unwrap().contains("every exercise is solved"));
}

#[test]
fn a_stale_check_of_another_exercise_is_ignored() {
    let (mut app, mut fake) = start(Progress::default());
    drive(
        &mut app,
        &mut fake,
        Event::Checked {
            id: "1.3".into(),
            verdict: Verdict::Pass {
                reason: "x".into(),
                kernel_output: Vec::new(),
            },
        },
    );
    assert!(!app.progress.is_solved("1.3"));
}

#[test]
fn list_trace_and_quit() {
    let (mut app, mut fake) = start(Progress::default());
    drive(&mut app, &mut fake, Event::Key(Key::List));
    assert_eq!(app.view, View::List);
    let list = app.render();
    assert!(list.contains(">*todo  1.1"), "{list}");
    assert!(list.contains("0/3 solved, 0/15 points"), "{list}");
    drive(&mut app, &mut fake, Event::Key(Key::List));
    assert_eq!(app.view, View::Exercise);
    drive(&mut app, &mut fake, Event::Key(Key::Trace));
    assert_eq!(app.message(), Some("wrote .course/traces/1.1.svg"));
    // q asks first, says how to come back; another key stays; q q quits.
    assert!(drive(&mut app, &mut fake, Event::Key(Key::Quit)));
    assert!(app.message().unwrap().contains("press q again"));
    assert!(app.message().unwrap().contains("cargo run -p learn"));
    assert!(drive(&mut app, &mut fake, Event::Key(Key::Hint)));
    assert!(drive(&mut app, &mut fake, Event::Key(Key::Quit)));
    assert!(!drive(&mut app, &mut fake, Event::Key(Key::Quit)));
    assert!(fake.saved.is_some(), "quitting saves");
    assert!(
        app.farewell().contains("brings you back to 1.1"),
        "{}",
        app.farewell()
    );
    // Ctrl-C quits at once.
    let (mut app, mut fake) = start(Progress::default());
    assert!(!drive(&mut app, &mut fake, Event::Interrupt));
}

#[test]
fn esc_steps_back_from_the_list_and_never_quits() {
    let (mut app, mut fake) = start(Progress::default());
    drive(&mut app, &mut fake, Event::Key(Key::List));
    drive(&mut app, &mut fake, Event::Typed('1'));
    assert!(drive(&mut app, &mut fake, Event::Key(Key::Back)));
    assert_eq!(app.view, View::Exercise);
    // On the exercise it says where the student is, and cancels a pending quit.
    assert!(drive(&mut app, &mut fake, Event::Key(Key::Back)));
    assert!(app.message().unwrap().contains("you are on 1.1"));
    drive(&mut app, &mut fake, Event::Key(Key::Quit));
    assert!(drive(&mut app, &mut fake, Event::Key(Key::Back)));
    assert_eq!(app.message(), Some("cancelled"));
    assert!(
        drive(&mut app, &mut fake, Event::Key(Key::Quit)),
        "asks again"
    );
    // Another key, one that names no command, cancels the quit as Esc does: no
    // "unknown key" for it.
    assert!(drive(&mut app, &mut fake, Event::UnknownKey("x".into())));
    assert_eq!(app.message(), Some("cancelled"));
    assert!(drive(&mut app, &mut fake, Event::UnknownKey("x".into())));
    assert_eq!(app.message(), Some("unknown key `x`"));
    assert!(drive(&mut app, &mut fake, Event::Key(Key::Quit)));
    assert!(
        !drive(&mut app, &mut fake, Event::Key(Key::Quit)),
        "the cancelled quit asked again, and q q quits"
    );
    assert_eq!(Key::parse("b"), Some(Key::Back));
}

#[test]
fn kernel_output_has_a_pane_of_its_own() {
    let (mut app, mut fake) = start(Progress::default());
    let mut out = Outcome::fail(Status::WrongResult, "1 of 4 bins are wrong");
    out.kernel_output = (0..20)
        .map(|t| format!("launch 1 k<<<1, 32>>>: block (0,0,0) thread ({t},0,0): i = {t}"))
        .collect();
    drive(
        &mut app,
        &mut fake,
        Event::Checked {
            id: "1.1".into(),
            verdict: Verdict::Fail {
                outcome: out,
                hint: None,
            },
        },
    );
    let screen = app.render();
    let pane = screen.find("-- kernel output: 20 lines").expect(&screen);
    let status = screen.find("status: FAIL").expect(&screen);
    assert!(pane > status, "below the verdict: {screen}");
    assert!(screen.contains("  | launch 1 k<<<1, 32>>>: block (0,0,0) thread (14,0,0): i = 14"));
    assert!(!screen.contains("thread (15,0,0)"), "{screen}");
    assert!(screen.contains("5 more (all of them: `cargo test -p ch01 ex_1_01 -- --nocapture`)"));
    // A pass shows its output too.
    drive(
        &mut app,
        &mut fake,
        Event::Checked {
            id: "1.1".into(),
            verdict: Verdict::Pass {
                reason: "ok".into(),
                kernel_output: vec!["host function f: 3".into()],
            },
        },
    );
    assert!(app.render().contains("  | host function f: 3"));
}

#[test]
fn keys_parse_from_typed_commands() {
    assert_eq!(Key::parse("h"), Some(Key::Hint));
    assert_eq!(Key::parse(" Quit\n"), Some(Key::Quit));
    assert_eq!(Key::parse("x"), None);
    assert_eq!(Key::parse(""), None);
}

#[test]
fn progress_round_trips_through_its_file() {
    let dir = std::env::temp_dir().join(format!("learn-progress-{}", std::process::id()));
    let path = dir.join("progress.json");
    assert_eq!(Progress::load(&path).unwrap().version, 1, "missing: fresh");
    let mut p = Progress::load(&path).unwrap();
    p.set_solved("9.1", true);
    p.set_hint_level("9.2", 2);
    p.current = Some("9.2".into());
    p.save(&path).unwrap();
    assert_eq!(Progress::load(&path).unwrap(), p);
    std::fs::write(&path, "not json").unwrap();
    assert!(Progress::load(&path).unwrap_err().contains("delete it"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_score_of_the_screen_is_the_chapters_and_the_lists_is_the_courses() {
    let mut exercises = course();
    let mut other = ex("2.1", &["h"]);
    other.chapter = "ch02".into();
    exercises.push(other);
    let mut p = Progress::default();
    p.set_solved("1.1", true);
    p.set_solved("2.1", true);
    let mut app = App::new(exercises, p, None);
    let mut fake = Fake::default();
    fake.edit("1.1", FakeFile::Solved);
    fake.edit("2.1", FakeFile::Solved);
    assert!(drive(&mut app, &mut fake, Event::Start));
    assert_eq!(app.current().id, "1.2");
    let screen = app.render();
    assert!(
        screen.contains("[course: 2/4 solved, 10/20 points; ch01: 1/3 solved]"),
        "{screen}"
    );
    app.view = View::List;
    let list = app.render();
    assert!(
        list.contains("exercises (2/4 solved, 10/20 points)"),
        "{list}"
    );
    assert!(list.contains(" 5/5 pts"), "{list}");
    assert!(list.contains(" 0/5 pts"), "{list}");
}
