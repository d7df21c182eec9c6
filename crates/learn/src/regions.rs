//! Student regions, and resetting one to its stub.
//!
//! A region is the text between `// STUDENT-BEGIN <id>` and `// STUDENT-END` in a file of
//! `kernels/src/` (the same markers `course-tests` checks). Resetting an exercise puts
//! back the region of the shipped stub, kept in `crates/learn/pristine/<chapter>.rs`: a
//! copy of `kernels/src/<chapter>.rs` as shipped, which the crate's tests check against
//! the stubs (`cargo run -p learn -- pristine` refreshes it). Only that region changes,
//! so a student who solved other exercises of the file keeps them, and git history is
//! not needed (a student may have committed their work).

/// Where the region `id` lies in `text`: the byte range of its body (the lines between
/// the markers, each with its newline).
pub fn body_range(text: &str, id: &str) -> Result<std::ops::Range<usize>, String> {
    let mut pos = 0;
    let mut start = None;
    for line in text.split_inclusive('\n') {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("// STUDENT-BEGIN") {
            if rest.trim() == id {
                start = Some(pos + line.len());
            }
        } else if t == "// STUDENT-END"
            && let Some(s) = start
        {
            return Ok(s..pos);
        }
        pos += line.len();
    }
    Err(match start {
        Some(_) => format!("the region {id} has no `// STUDENT-END`"),
        None => format!("no `// STUDENT-BEGIN {id}` marker"),
    })
}

/// The body of region `id` of `text`.
pub fn body<'a>(text: &'a str, id: &str) -> Result<&'a str, String> {
    Ok(&text[body_range(text, id)?])
}

/// `current` with the body of region `id` replaced by that of `pristine`; also returns
/// the body it replaced.
pub fn reset(current: &str, pristine: &str, id: &str) -> Result<(String, String), String> {
    let stub = body(pristine, id).map_err(|e| format!("the pristine copy: {e}"))?;
    let range = body_range(current, id).map_err(|e| format!("your file: {e}"))?;
    let old = current[range.clone()].to_string();
    let mut out = String::with_capacity(current.len());
    out.push_str(&current[..range.start]);
    out.push_str(stub);
    out.push_str(&current[range.end..]);
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
        assert!(body(STUB, "9.3").unwrap_err().contains("STUDENT-BEGIN 9.3"));
        assert!(
            body("// STUDENT-BEGIN 9.1\nx\n", "9.1")
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
}
