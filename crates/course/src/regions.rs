//! Student regions: the parts of an exercise file the student writes.
//!
//! A region starts with a line `// STUDENT-BEGIN <id>` and ends with a line
//! `// STUDENT-END` (leading whitespace allowed). Outside its regions a stub file equals
//! its solution file (the course's self-test checks that); the runner resets a region to
//! the shipped stub and shows the reference's. One parser serves both, so they agree on
//! what a region is.

use std::ops::Range;

/// One student region of a file, located by byte offsets into the text it was found in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    /// The exercise id after `STUDENT-BEGIN`.
    pub id: String,
    /// 1-based line of the `STUDENT-BEGIN` marker.
    pub line: usize,
    /// The `STUDENT-BEGIN` line, without its line end.
    pub begin: Range<usize>,
    /// The lines between the markers, each with its line end.
    pub body: Range<usize>,
    /// Just past the `STUDENT-END` line and its line end.
    pub end: usize,
}

/// The code of exercise `id` in `text`: the bodies of its regions of `regions` (found in
/// `text` by [`regions`]), in file order, joined. An exercise may have several regions
/// (one per function it asks for).
pub fn code_of(text: &str, regions: &[Region], id: &str) -> String {
    regions
        .iter()
        .filter(|r| r.id == id)
        .map(|r| &text[r.body.clone()])
        .collect()
}

/// The regions of `text`, in order. Errors name the line of an unbalanced marker or of a
/// `STUDENT-BEGIN` without an id.
pub fn regions(text: &str) -> Result<Vec<Region>, String> {
    let mut found = Vec::new();
    let mut open: Option<(String, usize, Range<usize>, usize)> = None;
    let mut pos = 0;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let t = line.trim();
        let next = pos + line.len();
        if let Some(rest) = t.strip_prefix("// STUDENT-BEGIN") {
            if let Some((id, at, _, _)) = &open {
                return Err(format!(
                    "line {}: STUDENT-BEGIN inside the region {id} opened at line {at}",
                    i + 1
                ));
            }
            let id = rest.trim().to_string();
            if id.is_empty() {
                return Err(format!(
                    "line {}: STUDENT-BEGIN needs an exercise id",
                    i + 1
                ));
            }
            let content = line.trim_end_matches(['\n', '\r']).len();
            open = Some((id, i + 1, pos..pos + content, next));
        } else if t == "// STUDENT-END" {
            let Some((id, line, begin, body_start)) = open.take() else {
                return Err(format!("line {}: STUDENT-END without STUDENT-BEGIN", i + 1));
            };
            found.push(Region {
                id,
                line,
                begin,
                body: body_start..pos,
                end: next,
            });
        }
        pos = next;
    }
    if let Some((id, at, _, _)) = open {
        return Err(format!(
            "line {at}: region {id} is never closed with STUDENT-END"
        ));
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_are_located_by_bytes() {
        let text = "fn f() {\n    // STUDENT-BEGIN 9.1\n    x\r\n    // STUDENT-END\n}\n";
        let r = regions(text).unwrap();
        assert_eq!(r.len(), 1);
        assert_eq!((r[0].id.as_str(), r[0].line), ("9.1", 2));
        assert_eq!(&text[r[0].begin.clone()], "    // STUDENT-BEGIN 9.1");
        assert_eq!(&text[r[0].body.clone()], "    x\r\n");
        assert_eq!(&text[r[0].end..], "}\n");
    }

    #[test]
    fn unbalanced_markers_name_their_line() {
        let nested = "// STUDENT-BEGIN 1\n// STUDENT-BEGIN 2\n";
        assert!(
            regions(nested)
                .unwrap_err()
                .starts_with("line 2: STUDENT-BEGIN inside")
        );
        assert!(
            regions("a\n// STUDENT-END\n")
                .unwrap_err()
                .starts_with("line 2:")
        );
        assert!(
            regions("// STUDENT-BEGIN 9.1")
                .unwrap_err()
                .contains("never closed")
        );
    }
}
