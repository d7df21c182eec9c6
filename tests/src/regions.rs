//! Student regions: the parts of a stub file that differ from the solution.
//!
//! A region starts with a line `// STUDENT-BEGIN <id>` and ends with `// STUDENT-END`
//! (leading whitespace allowed). Outside regions, stub and solution files are identical.

/// One student region of a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    /// The exercise id after `STUDENT-BEGIN`.
    pub id: String,
    /// 1-based line of the `STUDENT-BEGIN` marker.
    pub line: usize,
    /// The lines between the markers.
    pub body: String,
}

/// A file split into the text outside regions (each region replaced by one marker line
/// with its id) and the regions themselves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Split {
    /// The file with each region's body removed.
    pub skeleton: Vec<String>,
    /// The regions, in order.
    pub regions: Vec<Region>,
}

/// Splits `text` into skeleton and regions ([`course::regions::regions`] finds them).
/// Errors name the line of an unbalanced marker.
pub fn split(text: &str) -> Result<Split, String> {
    let mut skeleton = Vec::new();
    let mut regions = Vec::new();
    let mut pos = 0;
    for r in course::regions::regions(text)? {
        skeleton.extend(text[pos..r.begin.start].lines().map(str::to_string));
        let marker = &text[r.begin.clone()];
        let indent = &marker[..marker.len() - marker.trim_start().len()];
        skeleton.push(format!("{indent}// STUDENT-REGION {}", r.id));
        regions.push(Region {
            body: text[r.body.clone()].lines().collect::<Vec<_>>().join("\n"),
            id: r.id,
            line: r.line,
        });
        pos = r.end;
    }
    skeleton.extend(text[pos..].lines().map(str::to_string));
    Ok(Split { skeleton, regions })
}

/// Compares two files outside their regions. The error names the first differing line.
pub fn same_outside_regions(stub: &str, solution: &str) -> Result<(), String> {
    let a = split(stub).map_err(|e| format!("stub: {e}"))?;
    let b = split(solution).map_err(|e| format!("solution: {e}"))?;
    for (i, (x, y)) in a.skeleton.iter().zip(&b.skeleton).enumerate() {
        if x != y {
            return Err(format!(
                "outside the student regions, line {} of the skeleton differs:\n  stub:     {x}\n  solution: {y}",
                i + 1
            ));
        }
    }
    if a.skeleton.len() != b.skeleton.len() {
        return Err(format!(
            "the stub has {} lines outside regions, the solution {}",
            a.skeleton.len(),
            b.skeleton.len()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const STUB: &str =
        "fn f() {\n    // STUDENT-BEGIN 9.1\n    todo!(\"9.1\")\n    // STUDENT-END\n}\n";
    const SOL: &str =
        "fn f() {\n    // STUDENT-BEGIN 9.1\n    let x = 1;\n    x\n    // STUDENT-END\n}\n";

    #[test]
    fn equal_outside_regions() {
        assert_eq!(same_outside_regions(STUB, SOL), Ok(()));
        let s = split(SOL).unwrap();
        assert_eq!(s.regions.len(), 1);
        assert_eq!(s.regions[0].id, "9.1");
        assert_eq!(s.regions[0].body, "    let x = 1;\n    x");
    }

    #[test]
    fn differences_are_found() {
        let changed = SOL.replace("fn f()", "fn g()");
        let err = same_outside_regions(STUB, &changed).unwrap_err();
        assert!(err.contains("fn g()"), "{err}");
    }

    #[test]
    fn unbalanced_markers_are_errors() {
        assert!(
            split("// STUDENT-BEGIN 9.1\n")
                .unwrap_err()
                .contains("never closed")
        );
        assert!(split("// STUDENT-END\n").unwrap_err().contains("without"));
        assert!(
            split("// STUDENT-BEGIN\n// STUDENT-END\n")
                .unwrap_err()
                .contains("needs an exercise id")
        );
    }
}
