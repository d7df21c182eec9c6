//! The stub files equal the solution files outside the student regions, every region is
//! a stub with a `todo!` naming its exercise, and every exercise has a book section.
//!
//! The stubs read here are the shipped ones, `crates/learn/pristine` (equal to
//! `kernels/src` outside the regions, and as the course ships, inside them:
//! `crates/learn/tests/pristine.rs`): a course with some exercises solved in `kernels/`
//! passes these tests too.

use course_tests::{book, chapters, regions, workspace_root};

/// The shipped stubs, as `cargo run -p learn -- pristine` copies them from `kernels/src`.
const PRISTINE: &str = learn::cargo::PRISTINE_DIR;

fn read(rel: &str) -> String {
    let p = workspace_root().join(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn stubs_equal_solutions_outside_student_regions() {
    for ch in chapters() {
        let stub = read(&format!("{PRISTINE}/{}.rs", ch.id));
        let sol = read(&format!("solutions/src/{}.rs", ch.id));
        if let Err(e) = regions::same_outside_regions(&stub, &sol) {
            panic!("{PRISTINE}/{0}.rs vs solutions/src/{0}.rs: {e}", ch.id);
        }
    }
}

#[test]
fn every_region_is_a_stub_of_a_registered_exercise() {
    for ch in chapters() {
        let stub =
            regions::split(&read(&format!("{PRISTINE}/{}.rs", ch.id))).expect("balanced markers");
        let sol = regions::split(&read(&format!("solutions/src/{}.rs", ch.id)))
            .expect("balanced markers");
        assert_eq!(stub.regions.len(), sol.regions.len());
        for (r, s) in stub.regions.iter().zip(&sol.regions) {
            assert!(
                ch.exercise(&r.id).is_some(),
                "{PRISTINE}/{}.rs:{}: region {} is not a registered exercise",
                ch.id,
                r.line,
                r.id
            );
            assert!(
                r.body.contains(&format!("todo!(\"{}", r.id)),
                "{PRISTINE}/{}.rs:{}: the stub region {} must end in todo!(\"{} …\")",
                ch.id,
                r.line,
                r.id,
                r.id
            );
            assert!(
                r.body.contains("TODO"),
                "{PRISTINE}/{}.rs:{}: the stub region {} has no TODO comment",
                ch.id,
                r.line,
                r.id
            );
            assert!(
                !s.body.contains("todo!("),
                "solutions/src/{}.rs:{}: region {} is not solved",
                ch.id,
                s.line,
                s.id
            );
        }
        for e in ch.exercises {
            assert!(
                stub.regions.iter().any(|r| r.id == e.id),
                "exercise {} has no student region in {PRISTINE}/{}.rs",
                e.id,
                ch.id
            );
        }
    }
}

#[test]
fn every_exercise_has_a_book_section() {
    let src = workspace_root().join("book/src");
    let summary = std::fs::read_to_string(src.join("SUMMARY.md")).expect("book/src/SUMMARY.md");
    for ch in chapters() {
        for e in ch.exercises {
            let path = src.join(e.book);
            let text = std::fs::read_to_string(&path).unwrap_or_else(|_| {
                panic!(
                    "exercise {}: its book section book/src/{} does not exist",
                    e.id, e.book
                )
            });
            assert!(
                text.lines().any(|l| l.starts_with('#') && l.contains(e.id)),
                "book/src/{}: no heading names exercise {}",
                e.book,
                e.id
            );
            assert!(
                summary.contains(e.book),
                "book/src/SUMMARY.md does not list {}",
                e.book
            );
        }
    }
}

#[test]
fn the_books_includes_and_links_resolve() {
    let problems = book::problems(&workspace_root().join("book/src"));
    assert!(
        problems.is_empty(),
        "book problems:\n{}",
        problems.join("\n")
    );
}
