//! Each exercise's `needs` (the exercises whose functions it calls) is complete: every
//! function of another exercise that its reference region calls belongs to an exercise
//! it lists, and the list is closed (what a needed exercise needs is listed too), so a
//! student who solves out of order is told which exercise to solve first.

use course::regions::regions;

#[test]
fn needs_cover_the_calls_of_the_reference() {
    let root = course_tests::workspace_root();
    for chapter in course_tests::chapters() {
        let file = root
            .join("solutions/src")
            .join(format!("{}.rs", chapter.id));
        let text = std::fs::read_to_string(&file).expect("the reference's source");
        let regions = regions(&text).expect("the reference's regions");
        for e in chapter.exercises {
            for d in e.needs {
                let dep = chapter.exercise(d).unwrap_or_else(|| {
                    panic!("{} needs {d}, which {} does not have", e.id, chapter.id)
                });
                for dd in dep.needs {
                    assert!(
                        e.needs.contains(dd),
                        "{} needs {d}, which needs {dd}: list {dd} in {}'s needs too",
                        e.id,
                        e.id
                    );
                }
            }
            let code = course::regions::code_of(&text, &regions, e.id);
            for other in chapter.exercises.iter().filter(|o| o.id != e.id) {
                for f in other.kernels {
                    let called = code.match_indices(f).any(|(i, _)| {
                        let before = code[..i].chars().next_back();
                        let after = code[i + f.len()..].trim_start().chars().next();
                        !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
                            && after == Some('(')
                    });
                    assert!(
                        !called || e.needs.contains(&other.id),
                        "{}'s reference calls `{f}` of {}: add \"{}\" to its needs",
                        e.id,
                        other.id,
                        other.id
                    );
                }
            }
        }
    }
}
