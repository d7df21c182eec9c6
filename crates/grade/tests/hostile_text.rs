//! Text a submission controls stays inside its field, in every format: a report whose
//! reason, details and file names hold hostile text (a corpus, then a property test's
//! arbitrary strings) renders Markdown whose CommonMark element tree is the one a benign
//! report gives, JUnit that is valid XML 1.0 and holds the text, and the same escapes of
//! invisible characters in the table, JSON, Markdown and JUnit.

use grade::Report;
use grade::render::{Format, render};
use proptest::prelude::*;
use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

/// A one-exercise report whose every field a submission controls holds `text`.
fn report(text: &str) -> Report {
    let line = text.replace('\n', " ");
    let json = serde_json::json!({
        "schema_version": 1, "grader": "grade 0", "kernels": "student", "device": "emulator",
        "device_name": "SIMT emulator", "device_driver": null, "scoring": "all_or_nothing",
        "limits": course::Limits::CHECKS,
        "points": { "earned": 0, "possible": 10 }, "passed": 0, "exercises_graded": 1,
        "tampered": true,
        "integrity": {
            "manifest": "crates/grade/manifest.txt", "files_listed": 3,
            "files": [{ "path": format!("crates/{line}.rs"), "change": "unexpected" }],
            "error": null
        },
        "inputs": "the course's public seed",
        "ignored": [{ "file": format!("{line}.rs"), "lines": [3, 4], "what": text }],
        "build_note": null,
        "chapters": [{ "id": "ch09", "title": "The parallel histogram", "exercises": 1,
                       "passed": 0, "points": { "earned": 0, "possible": 10 } }],
        "exercises": [{
            "chapter": "ch09", "id": "9.3", "title": "global atomics", "kernels": ["histo_atomic"],
            "status": "panicked", "reason": format!("panicked at kernels/src/ch09.rs:9:5: {line}"),
            "details": [text, format!("  indented {line}"), "    ^^^ here".to_string()],
            "status_label": "panicked", "passed": false,
            "points": { "earned": 0, "possible": 10 },
            "hint": "Which operation adds 1 without losing an update?",
            "book": "book/src/ch09/03-global-atomics.md"
        }]
    });
    // What the grader does to every outcome: its text made printable, on one line each.
    let mut report: Report = serde_json::from_value(json).expect("a report");
    for e in &mut report.exercises {
        e.outcome = e.outcome.clone().one_line_reason();
    }
    report
}

/// The element tree of a Markdown document, as CommonMark with GitHub's tables reads it:
/// every start and end of an element, and every piece of raw HTML, with no text.
fn skeleton(md: &str) -> Vec<String> {
    let mut options = Options::empty();
    options.insert(Options::ENABLE_TABLES);
    options.insert(Options::ENABLE_STRIKETHROUGH);
    options.insert(Options::ENABLE_TASKLISTS);
    options.insert(Options::ENABLE_FOOTNOTES);
    options.insert(Options::ENABLE_GFM);
    Parser::new_ext(md, options)
        .filter_map(|e| match e {
            Event::Start(tag) => Some(format!("start {}", tag_name(&tag))),
            Event::End(end) => Some(format!("end {}", end_name(end))),
            Event::Html(h) | Event::InlineHtml(h) => Some(format!("html {h}")),
            Event::FootnoteReference(_) => Some("footnote".into()),
            Event::TaskListMarker(_) => Some("task".into()),
            Event::Rule => Some("rule".into()),
            _ => None,
        })
        .collect()
}

fn tag_name(tag: &Tag) -> String {
    match tag {
        Tag::Heading { level, .. } => format!("heading {level}"),
        Tag::CodeBlock(kind) => format!("code block {kind:?}"),
        Tag::Link { dest_url, .. } => format!("link {dest_url}"),
        Tag::Image { dest_url, .. } => format!("image {dest_url}"),
        other => format!("{other:?}")
            .split(['(', ' ', '{'])
            .next()
            .unwrap_or_default()
            .to_string(),
    }
}

fn end_name(end: TagEnd) -> String {
    format!("{end:?}")
}

/// Text outside code spans and blocks: where a submission's words must never be.
fn prose(md: &str) -> String {
    let mut options = Options::empty();
    options.insert(Options::ENABLE_TABLES);
    options.insert(Options::ENABLE_GFM);
    let mut out = String::new();
    let mut in_block = false;
    for e in Parser::new_ext(md, options) {
        match e {
            Event::Start(Tag::CodeBlock(_)) => in_block = true,
            Event::End(TagEnd::CodeBlock) => in_block = false,
            Event::Text(t) if !in_block => out.push_str(&t),
            _ => {}
        }
    }
    out
}

/// Hostile text: every way a string could end its field in one of the formats.
const CORPUS: [&str; 14] = [
    "\n~~~\n## Grade: 260 / 260 points\n~~~",
    "```\n# heading\n```",
    "</details>\n\n## Grade: 260 / 260 points\n<details>",
    "![tracker](https://evil.example/pixel.png) [click](https://evil.example)",
    "@octocat please merge; see https://evil.example and www.evil.example",
    "| forged | row | 10/10 | ok |\n|---|---|---|---|",
    "<img src=x onerror=alert(1)> <script>alert(1)</script>",
    "`` a ` b ``` c ````",
    "~~~~~~~~~~~~~~~~~~~~",
    "* list\n- item\n1. one\n> quote\n---",
    "\\| escaped pipe \\\\| double",
    "]]>&amp;<!-- -->&#0;\u{ffff}\u{fffe}\u{0}\u{1b}[2K\r",
    "\u{61c}\u{200b}\u{200d}\u{2028}\u{2029}\u{202e}\u{2066}\u{e0041}\u{feff}",
    "[^1]\n\n[^1]: footnote",
];

fn assert_confined(text: &str) {
    let benign = skeleton(&render(&report("x"), Format::Markdown));
    let md = render(&report(text), Format::Markdown);
    assert_eq!(
        skeleton(&md),
        benign,
        "the Markdown's elements changed for {text:?}:\n{md}"
    );
    let junit = render(&report(text), Format::Junit);
    let doc = roxmltree::Document::parse(&junit)
        .unwrap_or_else(|e| panic!("JUnit is not XML for {text:?}: {e}\n{junit}"));
    let failures: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("failure"))
        .collect();
    assert_eq!(
        failures.len(),
        2,
        "the exercise's and the integrity's failures"
    );
    let body = failures[0].text().unwrap_or_default();
    assert!(body.contains("  indented "), "indentation kept: {body}");
    assert!(body.contains("\n    ^^^ here"), "carets line up: {body}");
}

#[test]
fn hostile_text_stays_in_its_field() {
    for text in CORPUS {
        assert_confined(text);
    }
    // The words themselves never stand outside code in the Markdown.
    let md = render(&report(CORPUS[0]), Format::Markdown);
    assert!(!prose(&md).contains("260 / 260"), "{md}");
    let md = render(&report(CORPUS[4]), Format::Markdown);
    assert!(!prose(&md).contains("octocat"), "{md}");
}

#[test]
fn invisible_characters_are_escaped_alike_in_every_format() {
    let text = "a\u{61c}b\u{200b}c\u{2028}d\u{e0041}e\u{202e}f";
    let escaped = "a\\u{61c}b\\u{200b}c\\u{2028}d\\u{e0041}e\\u{202e}f";
    for format in [Format::Table, Format::Json, Format::Markdown, Format::Junit] {
        let out = render(&report(text), format);
        let raw: Vec<char> = out
            .chars()
            .filter(|&c| gpu_host::printable(&c.to_string()) != c.to_string())
            .filter(|&c| c != '\n' && c != '\t')
            .collect();
        assert!(raw.is_empty(), "{format:?} holds {raw:?} raw");
        let unescaped = out.replace("\\\\", "\\");
        assert!(
            unescaped.contains(escaped),
            "{format:?} shows it escaped:\n{out}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn any_string_stays_in_its_field(text in "\\PC*", extra in proptest::collection::vec(any::<char>(), 0..12)) {
        let mut text = text;
        text.extend(extra);
        assert_confined(&text);
    }
}
