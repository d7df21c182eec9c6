//! The pristine stubs that `r` (reset) restores equal the shipped stubs of every chapter.

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
        assert!(
            a == b,
            "{} differs from {}: after changing a stub, run `cargo run -p learn -- pristine` \
             (and `cargo run -p grade -- manifest`)",
            copy.display(),
            stub.display()
        );
        for e in ch.exercises {
            if a.contains(&format!("// STUDENT-BEGIN {}\n", e.id)) {
                learn::regions::bodies(&b, e.id).expect("the copy has every region");
            }
        }
    }
}
