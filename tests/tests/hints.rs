//! Hints by failure: every exercise lists each kind of failure its check can produce and
//! the hint that kind shows first (`snapshots/hints__failures.snap`, reviewed like any
//! other snapshot); no failure but a stub's `todo!` gets a general hint; and no hint, of
//! an exercise or of the course, holds the answer's code.

use course::{Exercise, Failure, Status};
use std::fmt::Write as _;

/// The listing: per exercise, each failure its check can produce and its first hint.
fn listing() -> String {
    let mut s = String::new();
    for c in course_tests::chapters() {
        for e in c.exercises {
            let _ = writeln!(s, "{} {}", e.id, e.title);
            for f in e.failures() {
                let _ = writeln!(s, "  {:<40} {}", f.key(), e.first_hint(f));
            }
        }
    }
    s
}

#[test]
fn every_failure_kind_has_its_own_hint() {
    insta::assert_snapshot!("failures", listing());
    for c in course_tests::chapters() {
        for e in c.exercises {
            for f in e.failures() {
                let first = e.first_hint(f);
                if f.status == Status::NotImplemented {
                    assert_eq!(Some(&first), e.hints.first(), "{} {}", e.id, f.key());
                    continue;
                }
                assert!(
                    !e.hints.contains(&first),
                    "{} fails as `{}` with a general hint: {first}",
                    e.id,
                    f.key()
                );
            }
            // A wrong result and a wrong technique are the exercise's own to answer.
            for f in e.failures() {
                let own = matches!(f.status, Status::WrongResult | Status::WrongTechnique)
                    && !course::hints::COURSE_KINDS.contains(&f);
                if own {
                    let first = e.first_hint(f);
                    assert!(
                        e.hints_by_failure.iter().any(|&(_, h)| h == first),
                        "{} fails as `{}` with a hint that is not its own: {first}",
                        e.id,
                        f.key()
                    );
                }
            }
        }
    }
}

#[test]
fn the_course_kinds_are_the_records_kinds() {
    let course: Vec<(String, &str)> = course::hints::COURSE_KINDS
        .iter()
        .map(|f| (f.status.key(), f.name.expect("a named kind")))
        .collect();
    let records: Vec<(String, &str)> = chapter_records::COURSE_KINDS
        .iter()
        .map(|&(s, n)| (s.to_string(), n))
        .collect();
    assert_eq!(course, records);
}

/// Rust tokens, roughly: identifiers and numbers whole, `::` and `..` as one token, any
/// other character alone; comments and whitespace dropped.
fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_whitespace() || c == '`' {
            continue;
        }
        if c == '/' && chars.peek() == Some(&'/') {
            for c in chars.by_ref() {
                if c == '\n' {
                    break;
                }
            }
            continue;
        }
        if c.is_alphanumeric() || c == '_' {
            let mut word = c.to_string();
            while let Some(&n) = chars.peek() {
                if n.is_alphanumeric() || n == '_' {
                    word.push(n);
                    chars.next();
                } else {
                    break;
                }
            }
            out.push(word);
        } else if (c == ':' || c == '.') && chars.peek() == Some(&c) {
            chars.next();
            out.push(format!("{c}{c}"));
        } else {
            out.push(c.to_string());
        }
    }
    out
}

/// The longest run of tokens that `hint` shares with `code`, as text.
fn longest_shared(hint: &[String], code: &[String]) -> Vec<String> {
    let mut best = (0, 0);
    let mut prev = vec![0usize; code.len() + 1];
    for (i, h) in hint.iter().enumerate() {
        let mut row = vec![0usize; code.len() + 1];
        for (j, c) in code.iter().enumerate() {
            if h == c {
                row[j + 1] = prev[j] + 1;
                if row[j + 1] > best.0 {
                    best = (row[j + 1], i + 1);
                }
            }
        }
        prev = row;
    }
    hint[best.1 - best.0..best.1].to_vec()
}

/// Most tokens a hint may share, in a row, with its exercise's reference code: a call
/// with its arguments (`histo.atomic_add(bin, 1)`, 9 tokens) names the tool; a whole
/// statement or expression of the answer (`a.store(i, b.load(i).wrapping_mul(c.load(i)))`,
/// 22 tokens) is the answer.
const MOST_SHARED: usize = 11;

#[test]
fn no_hint_holds_the_answers_code() {
    let root = course_tests::workspace_root();
    let mut found = Vec::new();
    for c in course_tests::chapters() {
        let path = root.join("solutions/src").join(format!("{}.rs", c.id));
        let text = std::fs::read_to_string(&path).expect("the reference file");
        let regions = course::regions::regions(&text).expect("its regions");
        for e in c.exercises {
            let code = tokens(&course::regions::code_of(&text, &regions, e.id));
            for hint in every_hint(e) {
                let shared = longest_shared(&tokens(hint), &code);
                if shared.len() > MOST_SHARED {
                    found.push(format!(
                        "{}: a hint holds {} tokens of the answer's code in a row (`{}`): {hint}",
                        e.id,
                        shared.len(),
                        shared.join(" ")
                    ));
                }
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// Every hint exercise `e` can show: its general ones, its own by failure, and the
/// course's for the failures it lists.
fn every_hint(e: &Exercise) -> Vec<&'static str> {
    let mut all: Vec<&'static str> = e.hints.to_vec();
    all.extend(e.hints_by_failure.iter().map(|&(_, h)| h));
    for f in e.failures() {
        all.extend(course::hints::course_hint(f));
        all.extend(course::hints::course_hint(Failure::status(f.status)));
    }
    all.sort();
    all.dedup();
    all
}

#[test]
fn the_answer_check_catches_an_answer() {
    // 9.3's old second hint was the answer's loop: the check must see it.
    let hint = "Start at `thread::index_1d()`, step by `thread::grid_stride_x()` while in \
                range, and count with `histo.atomic_add(byte_bin(data.load(i), histo.len()), 1)`.";
    let code = "let mut i = thread::index_1d();\nwhile i < data.len() {\n    \
                histo.atomic_add(byte_bin(data.load(i), histo.len()), 1);\n    \
                i += thread::grid_stride_x();\n}";
    let shared = longest_shared(&tokens(hint), &tokens(code));
    assert!(shared.len() > MOST_SHARED, "{shared:?}");
    let named = "Count with an atomic add on `histo` (`histo.atomic_add(bin, 1)`).";
    assert!(longest_shared(&tokens(named), &tokens(code)).len() <= MOST_SHARED);
}

/// The mistakes a student found answered by another kind's hint (issue 46) have kinds of
/// their own, whose first hint answers them: a commit before the barrier (9.4), a write
/// past the bins (9.7's sentinel, 9.10's bin count), a row length (5.2). The fixtures
/// (`chapters/*/selftest/tests/fixtures.rs`) show each check names these kinds.
#[test]
fn each_mistake_found_has_its_own_hint() {
    let find = |id: &str| {
        course_tests::chapters()
            .iter()
            .flat_map(|c| c.exercises.iter())
            .find(|e| e.id == id)
            .unwrap_or_else(|| panic!("no exercise {id}"))
    };
    let cases: [(&str, Failure, &[&str]); 5] = [
        (
            "9.4",
            Failure::named(Status::WrongResult, "commit"),
            &["barrier", "once"],
        ),
        (
            "9.7",
            course::hints::OUT_OF_BOUNDS_WRITE,
            &["no bin", "off by one"],
        ),
        (
            "9.10",
            course::hints::OUT_OF_BOUNDS_WRITE,
            &["no bin", "off by one"],
        ),
        (
            "5.2",
            Failure::named(Status::WrongResult, "row_length"),
            &["row", "width"],
        ),
        ("5.2", course::hints::OUT_OF_BOUNDS_WRITE, &["row length"]),
    ];
    for (id, kind, says) in cases {
        let e = find(id);
        assert!(
            e.failures().contains(&kind),
            "{id} lists no `{}`",
            kind.key()
        );
        let first = e.first_hint(kind);
        let whole = e.first_hint(Failure::status(kind.status));
        assert_ne!(first, whole, "{id} `{}` gets its status's hint", kind.key());
        for word in says {
            assert!(first.contains(word), "{id} `{}`: {first}", kind.key());
        }
    }
}
