//! The student's answers, put into the course's own files.
//!
//! Only the answer regions are the student's: the lines between `// STUDENT-BEGIN <id>` and
//! `// STUDENT-END` of each file the course ships in `crates/learn/pristine/` (its
//! [`PRISTINE_DIR`]). What is built for the sandbox is the course's copy of each file with
//! every region's body replaced by the student's ([`splice`]); anything else the student
//! changed (a helper outside a region, a constant, `lib.rs` and its crate attributes, an
//! extra module file) is not built, and is listed as [`Ignored`].
//!
//! A region is taken only when it stands on its own: its markers are there once each and
//! in the course's order, its tokens balance (so it cannot close the function it sits in,
//! or open a comment or string that swallows the course's code after it), and it holds
//! nothing the sandbox refuses ([`crate::sources`]). Otherwise its exercise is put back to
//! the course's stub and costs only itself, with a message that names the marker or the
//! line ([`Answers::refused`]).
//!
//! The spliced file keeps the student's line numbers for the regions wherever the course's
//! lines before a region are not more than the student's (blank lines are added before the
//! region's marker), so that a compile error or a panic names the student's own line.

use crate::sources;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::path::{Path, PathBuf};

/// Where the course keeps its kernel files as shipped, relative to its root: one
/// `<chapter>.rs` per chapter and the crate's `lib.rs`.
pub const PRISTINE_DIR: &str = "crates/learn/pristine";

/// An edit of the student's files outside the answer regions: not built, listed in every
/// report so that the student and the instructor see it did not count.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ignored {
    /// The file, relative to the student's `kernels/src` (`ch09.rs`).
    pub file: String,
    /// The student's lines that differ from the course's, first and last (1-based); `null`
    /// for a whole file (one the course does not have, or one that is missing).
    pub lines: Option<[usize; 2]>,
    /// What differs, in words.
    pub what: String,
}

impl Ignored {
    /// `ch09.rs:12-40: what` (or `ch09.rs: what` for a whole file).
    pub fn describe(&self) -> String {
        match self.lines {
            Some([a, b]) if a == b => format!("{}:{a}: {}", self.file, self.what),
            Some([a, b]) => format!("{}:{a}-{b}: {}", self.file, self.what),
            None => format!("{}: {}", self.file, self.what),
        }
    }
}

/// A region taken from the student's file, where it lies in the spliced file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placed {
    /// The file, relative to `kernels/src`.
    pub file: String,
    /// The exercise.
    pub id: String,
    /// The body's lines in the spliced file (1-based, end exclusive).
    pub spliced: Range<usize>,
    /// The body's first line in the student's file.
    pub student_line: usize,
}

/// The student's answers in the course's files: what to build, and what was left out.
#[derive(Clone, Debug, Default)]
pub struct Answers {
    /// Every file to build, relative to `kernels/src`, with its text.
    pub files: Vec<(String, String)>,
    /// The edits outside the regions, ignored.
    pub ignored: Vec<Ignored>,
    /// The exercises whose regions were not taken (put back to the course's stub), by id,
    /// with why: the first line says it, the rest are details.
    pub refused: BTreeMap<String, Vec<String>>,
    /// The regions taken, where they lie.
    pub placed: Vec<Placed>,
    /// The exercises whose answer sits in a function whose signature differs from the
    /// course's (an answer written for an earlier version of the stubs): the course's
    /// signature, then the student's, each on one line.
    pub signatures: BTreeMap<String, (String, String)>,
}

/// The signature of the function a region starting at byte `at` of `text` sits in: from
/// its last `fn ` before `at` to the `{` that opens its body, on one line.
fn signature_before(text: &str, at: usize) -> Option<String> {
    let head = &text[..at];
    let start = head.rfind("fn ")?;
    let line_start = head[..start].rfind('\n').map_or(0, |i| i + 1);
    let open = head[start..].find('{')? + start;
    let sig: Vec<&str> = head[line_start..open].split_whitespace().collect();
    Some(
        sig.join(" ")
            .replace("( ", "(")
            .replace(" )", ")")
            .replace(",)", ")"),
    )
}

impl Answers {
    /// The exercise whose region holds line `line` of `file` in the spliced sources, else
    /// the nearest taken region above it in that file, else the nearest below: the answer
    /// a compile error there comes from (everything outside the regions is the course's,
    /// which builds on its own).
    pub fn culprit(&self, file: &str, line: usize) -> Option<&str> {
        let mine = || self.placed.iter().filter(|p| p.file == file);
        mine()
            .find(|p| p.spliced.contains(&line))
            .or_else(|| mine().rfind(|p| p.spliced.start <= line))
            .or_else(|| mine().find(|p| p.spliced.start > line))
            .map(|p| p.id.as_str())
    }

    /// The student's line for line `line` of `file` of the spliced sources, when it lies
    /// in a taken region.
    pub fn student_line(&self, file: &str, line: usize) -> Option<usize> {
        self.placed
            .iter()
            .find(|p| p.file == file && p.spliced.contains(&line))
            .map(|p| p.student_line + (line - p.spliced.start))
    }
}

/// One region of a student's file, found by [`markers`].
#[derive(Clone, Debug, PartialEq, Eq)]
struct Found {
    id: String,
    /// 1-based line of the `STUDENT-BEGIN` marker.
    line: usize,
    /// The body's byte range.
    body: Range<usize>,
}

/// The regions of `text` whose markers are well formed, and a sentence for each marker
/// that is not, by the exercise it concerns (`None`: no exercise, such as a stray END).
fn markers(text: &str) -> (Vec<Found>, Vec<(Option<String>, String)>) {
    let mut found = Vec::new();
    let mut problems = Vec::new();
    let mut open: Option<(String, usize, usize)> = None;
    let mut pos = 0;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let t = line.trim();
        let next = pos + line.len();
        if let Some(rest) = t.strip_prefix("// STUDENT-BEGIN") {
            let id = rest.trim().to_string();
            if let Some((was, at, _)) = open.take() {
                problems.push((
                    Some(was.clone()),
                    format!(
                        "the region STUDENT-BEGIN {was} (line {at}) has no STUDENT-END before \
                         the next STUDENT-BEGIN (line {})",
                        i + 1
                    ),
                ));
            }
            if id.is_empty() {
                problems.push((
                    None,
                    format!(
                        "line {}: a STUDENT-BEGIN marker without an exercise id",
                        i + 1
                    ),
                ));
            } else {
                open = Some((id, i + 1, next));
            }
        } else if t == "// STUDENT-END" {
            match open.take() {
                Some((id, at, start)) => found.push(Found {
                    id,
                    line: at,
                    body: start..pos,
                }),
                None => problems.push((
                    None,
                    format!(
                        "line {}: a STUDENT-END marker with no STUDENT-BEGIN before it",
                        i + 1
                    ),
                )),
            }
        }
        pos = next;
    }
    if let Some((id, at, _)) = open {
        problems.push((
            Some(id.clone()),
            format!("the region STUDENT-BEGIN {id} (line {at}) has no STUDENT-END"),
        ));
    }
    (found, problems)
}

/// The key of each region: its id and which occurrence of that id it is (0, 1, ...).
fn keys(regions: &[Found]) -> Vec<(String, usize)> {
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    regions
        .iter()
        .map(|r| {
            let n = seen.entry(&r.id).or_default();
            *n += 1;
            (r.id.clone(), *n - 1)
        })
        .collect()
}

/// The indices of `b` in a longest common subsequence of `a` and `b`.
fn in_order<T: PartialEq>(a: &[T], b: &[T]) -> BTreeSet<usize> {
    let (n, m) = (a.len(), b.len());
    let mut len = vec![vec![0usize; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            len[i][j] = if a[i] == b[j] {
                len[i + 1][j + 1] + 1
            } else {
                len[i + 1][j].max(len[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, BTreeSet::new());
    while i < n && j < m {
        if a[i] == b[j] {
            out.insert(j);
            i += 1;
            j += 1;
        } else if len[i + 1][j] >= len[i][j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

/// 1-based line of byte offset `at` in `text`.
fn line_of(text: &str, at: usize) -> usize {
    text[..at].bytes().filter(|&b| b == b'\n').count() + 1
}

/// The differing lines of two texts (`ours`, the course's, and `theirs`, the student's)
/// as the student's line range, `first` being the student's line of `theirs`'s start; or
/// `None` if they are equal. A pure deletion names the student's line after which it is.
fn differing(ours: &str, theirs: &str, first: usize) -> Option<([usize; 2], String)> {
    if ours == theirs {
        return None;
    }
    let a: Vec<&str> = ours.lines().collect();
    let b: Vec<&str> = theirs.lines().collect();
    let head = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let tail = a[head..]
        .iter()
        .rev()
        .zip(b[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (changed_a, changed_b) = (a.len() - head - tail, b.len() - head - tail);
    if changed_b == 0 {
        let at = (first + head).saturating_sub(1).max(1);
        return Some((
            [at, at],
            format!("{changed_a} line(s) of the course's removed after this line"),
        ));
    }
    let range = [first + head, first + head + changed_b - 1];
    let what = if changed_a == 0 {
        "lines added outside the answer regions".to_string()
    } else {
        "the course's lines changed outside the answer regions".to_string()
    };
    Some((range, what))
}

/// Puts the student's answers (`student`: their `kernels/src`) into the course's files
/// (`pristine`: [`PRISTINE_DIR`] of the course), the exercises of `put_back` (and any
/// region that cannot be taken) as the course's stubs. See the module docs.
pub fn splice(
    student: &Path,
    pristine: &Path,
    put_back: &BTreeSet<String>,
) -> Result<Answers, String> {
    let shipped = sources::rust_files(pristine)?;
    let mine = sources::rust_files(student)?;
    let rel = |base: &Path, p: &Path| -> String {
        p.strip_prefix(base)
            .unwrap_or(p)
            .to_string_lossy()
            .replace('\\', "/")
    };
    let shipped_names: BTreeSet<String> = shipped.iter().map(|p| rel(pristine, p)).collect();
    let mut out = Answers::default();
    for p in &mine {
        let name = rel(student, p);
        if !shipped_names.contains(&name) {
            out.ignored.push(Ignored {
                file: name,
                lines: None,
                what: "a file the course does not have: not built".into(),
            });
        }
    }
    // First, what each file's regions are and which exercises lose theirs.
    let mut plans = Vec::new();
    for name in &shipped_names {
        let course_text = read(&pristine.join(name))?;
        let theirs = if student.join(name).is_file() {
            Some(read(&student.join(name))?)
        } else {
            None
        };
        plans.push(plan(name, course_text, theirs, &mut out)?);
    }
    // An exercise is taken whole or not at all (its regions may span files).
    let refused: BTreeSet<String> = out.refused.keys().cloned().collect();
    for plan in plans {
        let text = assemble(&plan, put_back, &refused, &mut out.placed);
        out.files.push((plan.name.clone(), text));
    }
    Ok(out)
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// One shipped file: the course's text and regions, and the student's region (text,
/// body and first line) chosen for each, if one can be taken.
struct Plan {
    name: String,
    course: String,
    regions: Vec<Found>,
    theirs: Vec<Option<(String, usize)>>,
}

/// Matches the student's regions of file `name` with the course's, noting in `out` the
/// edits outside them and the exercises whose region cannot be taken.
fn plan(
    name: &str,
    course: String,
    theirs: Option<String>,
    out: &mut Answers,
) -> Result<Plan, String> {
    let (regions, problems) = markers(&course);
    if let Some((_, why)) = problems.first() {
        return Err(format!("the course's {name} is malformed: {why}"));
    }
    let Some(theirs) = theirs else {
        out.ignored.push(Ignored {
            file: name.to_string(),
            lines: None,
            what: "missing from the student's files: built as the course's".into(),
        });
        for r in &regions {
            refuse(
                out,
                &r.id,
                format!(
                    "{name} is missing from the student's files, and with it the region STUDENT-BEGIN {}",
                    r.id
                ),
            );
        }
        return Ok(Plan {
            name: name.to_string(),
            theirs: vec![None; regions.len()],
            course,
            regions,
        });
    };
    let (found, problems) = markers(&theirs);
    for (id, why) in &problems {
        match id {
            Some(id) if regions.iter().any(|r| &r.id == id) => {
                refuse(out, id, format!("{name}: {why}"));
            }
            _ => out.ignored.push(Ignored {
                file: name.to_string(),
                lines: None,
                what: why.clone(),
            }),
        }
    }
    let course_keys = keys(&regions);
    let their_keys = keys(&found);
    let ordered = in_order(&course_keys, &their_keys);
    let mut chosen: Vec<Option<(String, usize)>> = vec![None; regions.len()];
    for (j, key) in their_keys.iter().enumerate() {
        let r = &found[j];
        let Some(i) = course_keys.iter().position(|k| k == key) else {
            if regions.iter().any(|c| c.id == key.0) {
                let n = course_keys.iter().filter(|k| k.0 == key.0).count();
                refuse(
                    out,
                    &key.0,
                    format!(
                        "{name}:{}: the marker STUDENT-BEGIN {} appears {} times where the course has \
                         {n}: which one is the answer cannot be told",
                        r.line,
                        key.0,
                        their_keys.iter().filter(|k| k.0 == key.0).count()
                    ),
                );
            } else {
                out.ignored.push(Ignored {
                    file: name.to_string(),
                    lines: Some([r.line, r.line]),
                    what: format!(
                        "STUDENT-BEGIN {}: no exercise of that id in this file",
                        key.0
                    ),
                });
            }
            continue;
        };
        if !ordered.contains(&j) {
            refuse(
                out,
                &key.0,
                format!(
                    "{name}:{}: the marker STUDENT-BEGIN {} is out of the course's order (regions \
                     cannot be moved: each belongs to its function)",
                    r.line, key.0
                ),
            );
            continue;
        }
        if let (Some(ours), Some(yours)) = (
            signature_before(&course, regions[i].body.start),
            signature_before(&theirs, r.body.start),
        ) && ours != yours
        {
            out.signatures.insert(key.0.clone(), (ours, yours));
        }
        let body = &theirs[r.body.clone()];
        let first = line_of(&theirs, r.body.start);
        match stands_alone(body) {
            Ok(()) => chosen[i] = Some((body.to_string(), first)),
            Err((offset, why)) => {
                refuse(out, &key.0, format!("{name}:{}: {why}", first + offset - 1))
            }
        }
    }
    for (i, key) in course_keys.iter().enumerate() {
        let taken = their_keys.contains(key);
        if !taken && !out.refused.contains_key(&key.0) {
            refuse(
                out,
                &key.0,
                format!(
                    "{name}: the region STUDENT-BEGIN {} is missing (its markers were removed or \
                     changed): put them back around your answer",
                    regions[i].id
                ),
            );
        }
    }
    // The lines between the regions: the student's, against the course's.
    let spans = |text: &str, rs: &[&Found]| -> Vec<(usize, String)> {
        let mut at = 0;
        let mut out = Vec::new();
        for r in rs {
            out.push((at, text[at..r.body.start].to_string()));
            at = r.body.end;
        }
        out.push((at, text[at..].to_string()));
        out
    };
    let matched: Vec<(usize, usize)> = their_keys
        .iter()
        .enumerate()
        .filter(|(j, _)| ordered.contains(j))
        .filter_map(|(j, k)| course_keys.iter().position(|c| c == k).map(|i| (i, j)))
        .collect();
    let ours_spans = spans(
        &course,
        &matched
            .iter()
            .map(|&(i, _)| &regions[i])
            .collect::<Vec<_>>(),
    );
    let their_spans = spans(
        &theirs,
        &matched.iter().map(|&(_, j)| &found[j]).collect::<Vec<_>>(),
    );
    for ((_, a), (at, b)) in ours_spans.iter().zip(&their_spans) {
        if let Some((lines, what)) = differing(a, b, line_of(&theirs, *at)) {
            out.ignored.push(Ignored {
                file: name.to_string(),
                lines: Some(lines),
                what,
            });
        }
    }
    Ok(Plan {
        name: name.to_string(),
        course,
        regions,
        theirs: chosen,
    })
}

fn refuse(out: &mut Answers, id: &str, why: String) {
    let list = out.refused.entry(id.to_string()).or_default();
    if !list.contains(&why) {
        list.push(why);
    }
}

/// Whether a region's body can be taken on its own: Rust tokens whose delimiters balance
/// (no comment or string left open), with nothing the sandbox refuses and only the
/// attributes and macros an answer may use ([`crate::allowed`]). `Err` is the line
/// within the body (1-based) and why.
fn stands_alone(body: &str) -> Result<(), (usize, String)> {
    match sources::refused_in(body) {
        Ok(None) => match crate::allowed::first_not_allowed(body) {
            Ok(Some((line, why))) => Err((line, format!("not allowed in an answer: {why}"))),
            _ => Ok(()),
        },
        Ok(Some((line, why))) => Err((line, format!("not allowed in a kernel crate: {why}"))),
        Err(line) => Err((
            line,
            "the answer does not stand on its own: a brace, bracket or parenthesis that does not \
             close, or a string or comment left open (each region must be whole statements \
             inside its function)"
                .to_string(),
        )),
    }
}

/// The spliced text of one file: the course's, each region's body the student's where it
/// was chosen and its exercise is neither put back nor refused, padded so that the
/// student's bodies keep their line numbers where they can.
fn assemble(
    plan: &Plan,
    put_back: &BTreeSet<String>,
    refused: &BTreeSet<String>,
    placed: &mut Vec<Placed>,
) -> String {
    let mut text = String::with_capacity(plan.course.len() * 2);
    let mut at = 0;
    let mut line = 1;
    for (r, theirs) in plan.regions.iter().zip(&plan.theirs) {
        let before = &plan.course[at..r.body.start];
        let taken = theirs
            .as_ref()
            .filter(|_| !put_back.contains(&r.id) && !refused.contains(&r.id));
        match taken {
            Some((body, student_line)) => {
                // The marker's line is the last line of `before`: pad before it.
                let marker = before[..before.len() - 1].rfind('\n').map_or(0, |i| i + 1);
                let before_lines = before.matches('\n').count();
                let pad = (student_line - 1).saturating_sub(line - 1 + before_lines);
                text.push_str(&before[..marker]);
                text.extend(std::iter::repeat_n('\n', pad));
                text.push_str(&before[marker..]);
                line += before_lines + pad;
                let n = body.matches('\n').count();
                placed.push(Placed {
                    file: plan.name.clone(),
                    id: r.id.clone(),
                    spliced: line..line + n,
                    student_line: *student_line,
                });
                text.push_str(body);
                line += n;
            }
            None => {
                let body = &plan.course[r.body.clone()];
                text.push_str(before);
                text.push_str(body);
                line += before.matches('\n').count() + body.matches('\n').count();
            }
        }
        at = r.body.end;
    }
    text.push_str(&plan.course[at..]);
    text
}

/// Writes `answers`' files into `dir` (emptied first), as a crate's `src/`; only files
/// whose text changed are rewritten, so that an incremental build stays incremental.
pub fn write(answers: &Answers, dir: &Path) -> Result<(), String> {
    let io = |p: &Path, e: std::io::Error| format!("cannot write {}: {e}", p.display());
    let keep: BTreeSet<PathBuf> = answers.files.iter().map(|(n, _)| dir.join(n)).collect();
    if let Ok(old) = sources::rust_files(dir) {
        for p in old.into_iter().filter(|p| !keep.contains(p)) {
            let _ = std::fs::remove_file(p);
        }
    }
    for (name, text) in &answers.files {
        let path = dir.join(name);
        if std::fs::read_to_string(&path).is_ok_and(|t| &t == text) {
            continue;
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| io(parent, e))?;
        }
        std::fs::write(&path, text).map_err(|e| io(&path, e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const COURSE: &str = "//! ch\npub fn helper() -> u32 { 1 }\n\npub fn a() -> u32 {\n    // STUDENT-BEGIN 1.1\n    todo!()\n    // STUDENT-END\n}\n\npub fn b() -> u32 {\n    // STUDENT-BEGIN 1.2\n    todo!()\n    // STUDENT-END\n}\n";

    fn dirs(name: &str, student: &[(&str, &str)]) -> (PathBuf, PathBuf) {
        let base = std::env::temp_dir().join(format!("answers-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let (p, s) = (base.join("pristine"), base.join("student"));
        std::fs::create_dir_all(&p).unwrap();
        std::fs::create_dir_all(&s).unwrap();
        std::fs::write(p.join("ch01.rs"), COURSE).unwrap();
        std::fs::write(p.join("lib.rs"), "pub mod ch01;\n").unwrap();
        for (f, t) in student {
            std::fs::write(s.join(f), t).unwrap();
        }
        (p, s)
    }

    fn spliced(student: &str) -> Answers {
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let (p, s) = dirs(
            &format!("s{n}"),
            &[("ch01.rs", student), ("lib.rs", "pub mod ch01;\n")],
        );
        splice(&s, &p, &BTreeSet::new()).unwrap()
    }

    fn text<'a>(a: &'a Answers, name: &str) -> &'a str {
        &a.files.iter().find(|(n, _)| n == name).unwrap().1
    }

    #[test]
    fn answers_are_taken_and_everything_else_is_the_course_s() {
        let mine = COURSE
            .replace(
                "pub fn helper() -> u32 { 1 }",
                "pub fn helper() -> u32 { 2 }",
            )
            .replacen("    todo!()\n", "    helper() + 40\n", 1);
        let a = spliced(&mine);
        let t = text(&a, "ch01.rs");
        assert!(t.contains("{ 1 }") && t.contains("helper() + 40"), "{t}");
        assert_eq!(a.ignored.len(), 1, "{:?}", a.ignored);
        assert_eq!(a.ignored[0].lines, Some([2, 2]));
        assert!(a.refused.is_empty());
        assert_eq!(a.placed[0].student_line, 6);
        assert_eq!(
            a.student_line("ch01.rs", a.placed[0].spliced.start),
            Some(6)
        );
    }

    #[test]
    fn a_region_keeps_the_student_s_line_numbers() {
        // Three lines added above the first region: its body still starts at line 9.
        let mine = COURSE.replace("//! ch\n", "//! ch\n// a\n// b\n// c\n");
        let a = spliced(&mine);
        let t = text(&a, "ch01.rs");
        assert_eq!(t.lines().nth(8), Some("    todo!()"), "{t}");
        assert_eq!(a.placed[0].spliced.start, 9);
        assert_eq!(a.ignored[0].lines, Some([2, 4]));
    }

    #[test]
    fn broken_markers_cost_their_exercise_with_the_marker_named() {
        let missing = COURSE.replacen("    // STUDENT-END\n", "", 1);
        let a = spliced(&missing);
        assert!(
            a.refused["1.1"][0].contains("STUDENT-BEGIN 1.1"),
            "{:?}",
            a.refused
        );
        assert!(!a.refused.contains_key("1.2"));
        let twice = COURSE.replace(
            "pub fn b() -> u32 {\n",
            "pub fn b() -> u32 {\n    // STUDENT-BEGIN 1.1\n    // STUDENT-END\n",
        );
        let a = spliced(&twice);
        assert!(
            a.refused["1.1"]
                .iter()
                .any(|w| w.contains("appears 2 times")),
            "{:?}",
            a.refused
        );
        let swapped = COURSE
            .replace("BEGIN 1.1", "BEGIN X")
            .replace("BEGIN 1.2", "BEGIN 1.1")
            .replace("BEGIN X", "BEGIN 1.2");
        let a = spliced(&swapped);
        assert!(
            a.refused
                .values()
                .flatten()
                .any(|w| w.contains("out of the course's order")),
            "{:?}",
            a.refused
        );
        // A refused exercise is the course's stub in the spliced file.
        assert_eq!(text(&a, "ch01.rs"), COURSE);
    }

    #[test]
    fn a_region_that_does_not_stand_alone_is_refused() {
        for (body, why) in [
            (
                "    1 }\n    pub fn evil() -> u32 { 2\n",
                "does not stand on its own",
            ),
            ("    /* 1\n", "does not stand on its own"),
            ("    option_env!(\"CI\").map_or(1, |_| 2)\n", "not allowed"),
            ("    env!(\"HOME\").len() as u32\n", "not allowed"),
        ] {
            let mine = COURSE.replacen("    todo!()\n", body, 1);
            let a = spliced(&mine);
            assert!(a.refused["1.1"][0].contains(why), "{body}: {:?}", a.refused);
            assert!(
                a.refused["1.1"][0].starts_with("ch01.rs:6: "),
                "{:?}",
                a.refused
            );
            // 1.1 is the course's stub; 1.2 (the student's, the same as the stub) keeps
            // its line.
            let t = text(&a, "ch01.rs");
            assert!(
                t.contains("BEGIN 1.1\n    todo!()\n") && !t.contains("evil"),
                "{t}"
            );
            assert_eq!(a.placed.len(), 1);
        }
    }

    #[test]
    fn extra_and_missing_files_are_listed_and_put_back_is_the_stub() {
        let (p, s) = dirs(
            "files",
            &[("ch01.rs", COURSE), ("extra.rs", "pub fn x() {}\n")],
        );
        let a = splice(&s, &p, &["1.2".to_string()].into()).unwrap();
        let listed: Vec<String> = a.ignored.iter().map(Ignored::describe).collect();
        assert!(
            listed
                .iter()
                .any(|l| l.starts_with("extra.rs: a file the course does not have"))
        );
        assert!(listed.iter().any(|l| l.starts_with("lib.rs: missing")));
        assert_eq!(text(&a, "lib.rs"), "pub mod ch01;\n");
        assert_eq!(a.placed.len(), 1, "1.2 put back: {:?}", a.placed);
        assert_eq!(
            a.culprit("ch01.rs", 2),
            a.placed.first().map(|p| p.id.as_str())
        );
        assert_eq!(a.culprit("ch01.rs", 13), Some("1.1"));
    }
}
