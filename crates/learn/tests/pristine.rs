//! The pristine stubs that `r` (reset) restores equal the shipped stubs of every chapter
//! outside the student regions, and hold a stub in every region. Inside the regions
//! `kernels/src` may hold a student's work (this test must pass on a half-solved course),
//! so there the copies are checked as stubs: a `todo!` naming the exercise.

use std::path::Path;

#[test]
fn pristine_copies_equal_the_shipped_stubs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for ch in grade::chapters() {
        let stub = root.join("kernels/src").join(format!("{}.rs", ch.id));
        let copy = root
            .join(learn::cargo::PRISTINE_DIR)
            .join(format!("{}.rs", ch.id));
        let read = |p: &Path| std::fs::read_to_string(p).map(|t| t.replace("\r\n", "\n"));
        let (Ok(a), Ok(b)) = (read(&stub), read(&copy)) else {
            panic!(
                "{} or {} is missing: run `cargo run -p learn -- pristine`",
                stub.display(),
                copy.display()
            );
        };
        // The shipped file with every region reset to the copy's stub must be the copy.
        let mut reset = a.clone();
        for e in ch.exercises {
            if reset.contains(&format!("// STUDENT-BEGIN {}\n", e.id)) {
                reset = learn::regions::reset(&reset, &b, e.id)
                    .unwrap_or_else(|why| panic!("{}: region {}: {why}", stub.display(), e.id))
                    .0;
            }
        }
        assert!(
            reset == b,
            "{} differs from {} outside the student regions: after changing a stub, run \
             `cargo run -p learn -- pristine` (and `cargo run -p grade -- manifest`)",
            copy.display(),
            stub.display()
        );
        for e in ch.exercises {
            if a.contains(&format!("// STUDENT-BEGIN {}\n", e.id)) {
                let bodies = learn::regions::bodies(&b, e.id).expect("the copy has every region");
                assert!(
                    bodies
                        .iter()
                        .any(|r| r.contains(&format!("todo!(\"{}", e.id))),
                    "{}: region {} is not a stub",
                    copy.display(),
                    e.id
                );
            }
        }
    }
}
