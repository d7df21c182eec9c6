//! Student regions, and resetting one to its stub.
//!
//! A region is the text between `// STUDENT-BEGIN <id>` and `// STUDENT-END` in a file of
//! `kernels/src/` (the same markers `course-tests` checks). Resetting an exercise puts
//! back the region of the shipped stub, kept in `crates/learn/pristine/<chapter>.rs`: a
//! copy of `kernels/src/<chapter>.rs` as shipped, which the crate's tests check against
//! the stubs (`cargo run -p learn -- pristine` refreshes it). Only that region changes,
//! so a student who solved other exercises of the file keeps them, and git history is
//! not needed (a student may have committed their work).

/// Where the regions `id` lie in `text`, in file order: the byte range of each body (the
/// lines between the markers, each with its newline), as [`course::regions`] finds them.
/// An exercise may have several (9.1 has one per function it asks for); at least one, or
/// an error.
pub fn body_ranges(text: &str, id: &str) -> Result<Vec<std::ops::Range<usize>>, String> {
    let found: Vec<_> = course::regions::regions(text)?
        .into_iter()
        .filter(|r| r.id == id)
        .map(|r| r.body)
        .collect();
    if found.is_empty() {
        return Err(format!("no `// STUDENT-BEGIN {id}` marker"));
    }
    Ok(found)
}

/// The bodies of the regions `id` of `text`, in file order.
pub fn bodies<'a>(text: &'a str, id: &str) -> Result<Vec<&'a str>, String> {
    Ok(body_ranges(text, id)?
        .into_iter()
        .map(|r| &text[r])
        .collect())
}

/// `current` with the body of every region `id` replaced by the matching one of
/// `pristine`; also returns the bodies it replaced, joined, for the backup.
pub fn reset(current: &str, pristine: &str, id: &str) -> Result<(String, String), String> {
    let stubs = bodies(pristine, id).map_err(|e| format!("the pristine copy: {e}"))?;
    let ranges = body_ranges(current, id).map_err(|e| format!("your file: {e}"))?;
    if stubs.len() != ranges.len() {
        return Err(format!(
            "your file has {} regions {id}, the shipped stub {}: restore the markers first",
            ranges.len(),
            stubs.len()
        ));
    }
    let mut out = String::with_capacity(current.len());
    let mut old = String::new();
    let mut at = 0;
    for (k, (range, stub)) in ranges.iter().zip(&stubs).enumerate() {
        out.push_str(&current[at..range.start]);
        out.push_str(stub);
        if ranges.len() > 1 {
            old.push_str(&format!("// region {} of {} ({id})\n", k + 1, ranges.len()));
        }
        old.push_str(&current[range.clone()]);
        at = range.end;
    }
    out.push_str(&current[at..]);
    Ok((out, old))
}

#[cfg(test)]
mod tests {
    use super::*;

    const STUB: &str = "fn f() {\n    // STUDENT-BEGIN 9.1\n    todo!(\"9.1\")\n    // STUDENT-END\n}\nfn g() {\n    // STUDENT-BEGIN 9.2\n    todo!(\"9.2\")\n    // STUDENT-END\n}\n";

    #[test]
    fn resets_one_region_only() {
        let mine = STUB
            .replace("todo!(\"9.1\")", "let x = 1;\n    x")
            .replace("todo!(\"9.2\")", "2");
        let (out, old) = reset(&mine, STUB, "9.1").unwrap();
        assert_eq!(old, "    let x = 1;\n    x\n");
        assert!(out.contains("todo!(\"9.1\")"));
        assert!(out.contains("    2\n"), "9.2 is kept: {out}");
        assert_eq!(reset(&out, STUB, "9.2").unwrap().0, STUB);
    }

    #[test]
    fn missing_markers_are_errors() {
        assert!(
            bodies(STUB, "9.3")
                .unwrap_err()
                .contains("STUDENT-BEGIN 9.3")
        );
        assert!(
            bodies("// STUDENT-BEGIN 9.1\nx\n", "9.1")
                .unwrap_err()
                .contains("STUDENT-END")
        );
        let broken = STUB.replace("    // STUDENT-BEGIN 9.1\n", "");
        assert!(
            reset(&broken, STUB, "9.1")
                .unwrap_err()
                .starts_with("your file")
        );
    }

    #[test]
    fn every_region_of_an_exercise_is_reset_and_shown() {
        let two = "fn a() {\n    // STUDENT-BEGIN 9.1\n    todo!(\"a\")\n    // STUDENT-END\n}\nfn b() {\n    // STUDENT-BEGIN 9.1\n    todo!(\"b\")\n    // STUDENT-END\n}\n";
        let mine = two
            .replace("todo!(\"a\")", "1")
            .replace("todo!(\"b\")", "2");
        assert_eq!(bodies(&mine, "9.1").unwrap(), ["    1\n", "    2\n"]);
        let (out, old) = reset(&mine, two, "9.1").unwrap();
        assert_eq!(out, two);
        assert_eq!(
            old,
            "// region 1 of 2 (9.1)\n    1\n// region 2 of 2 (9.1)\n    2\n"
        );
        let one = two.replacen(
            "    // STUDENT-BEGIN 9.1\n    todo!(\"a\")\n    // STUDENT-END\n",
            "",
            1,
        );
        assert!(
            reset(&one, two, "9.1")
                .unwrap_err()
                .contains("1 regions 9.1")
        );
    }
}
