//! Checks of the book: `SUMMARY.md` entries, `{{#include}}`s and relative links resolve.
//!
//! mdBook only warns about a broken include; this check makes it an error, so no code
//! block in the book can drift from the compiled files it is included from.

use std::path::{Path, PathBuf};

/// Problems found in the book under `src` (its `src/` directory), one line each.
pub fn problems(src: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut files = Vec::new();
    collect_md(src, &mut files);
    files.sort();
    let summary = src.join("SUMMARY.md");
    match std::fs::read_to_string(&summary) {
        Ok(text) => {
            for target in links(&text) {
                if !src.join(&target).is_file() {
                    out.push(format!("SUMMARY.md lists {target}, which does not exist"));
                }
            }
        }
        Err(e) => out.push(format!("{}: {e}", summary.display())),
    }
    for file in files {
        let text = match std::fs::read_to_string(&file) {
            Ok(t) => t,
            Err(e) => {
                out.push(format!("{}: {e}", file.display()));
                continue;
            }
        };
        let dir = file.parent().expect("invariant: a file has a parent");
        let rel = file
            .strip_prefix(src)
            .unwrap_or(&file)
            .display()
            .to_string();
        for inc in includes(&text) {
            let (path, anchor) = match inc.split_once(':') {
                Some((p, a)) => (p.to_string(), Some(a.to_string())),
                None => (inc.clone(), None),
            };
            let target = dir.join(&path);
            match std::fs::read_to_string(&target) {
                Err(_) => out.push(format!(
                    "{rel}: {{{{#include {inc}}}}}: {path} does not exist"
                )),
                Ok(t) => {
                    if let Some(a) = anchor
                        && a.parse::<usize>().is_err()
                        && !a.contains("..")
                        && !t.lines().any(|l| opens_anchor(l, &a))
                    {
                        out.push(format!(
                            "{rel}: {{{{#include {inc}}}}}: no `ANCHOR: {a}` in {path}"
                        ));
                    }
                }
            }
        }
        for link in links(&text) {
            if !dir.join(&link).exists() {
                out.push(format!("{rel}: link to {link}, which does not exist"));
            }
        }
        for line in pasted_rust(&text) {
            out.push(format!(
                "{rel}:{line}: a Rust code block that is not an {{{{#include}}}}: every Rust block must come from a compiled file"
            ));
        }
    }
    out
}

/// 1-based lines of ```rust fences whose body holds anything but `{{#include}}`s: code
/// pasted into the book, which no compiler checks and which drifts from the real files.
pub fn pasted_rust(text: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut open: Option<(usize, bool)> = None;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        match &mut open {
            None => {
                if let Some(info) = t.strip_prefix("```") {
                    let lang = info.split([',', ' ']).next().unwrap_or("");
                    open = Some((i + 1, lang == "rust"));
                }
            }
            Some((start, is_rust)) => {
                if t.starts_with("```") {
                    open = None;
                } else if *is_rust
                    && !t.is_empty()
                    && !t.starts_with("{{#include ")
                    && !t.starts_with("{{#rustdoc_include ")
                {
                    out.push(*start);
                    *is_rust = false;
                }
            }
        }
    }
    out
}

fn collect_md(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect_md(&p, out);
        } else if p.extension().is_some_and(|x| x == "md") {
            out.push(p);
        }
    }
}

/// Whether `line` opens anchor `name` as mdBook reads it: `ANCHOR: name` in any comment
/// (`// ANCHOR: name` in Rust, `<!-- ANCHOR: name -->` in Markdown), the name ending where
/// its word characters do.
fn opens_anchor(line: &str, name: &str) -> bool {
    line.split("ANCHOR:").skip(1).any(|rest| {
        let word: String = rest
            .trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '-')
            .collect();
        word == name
    })
}

/// The targets of `{{#include PATH}}` and `{{#include PATH:ANCHOR}}` (also `rustdoc_include`).
pub fn includes(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for kw in ["{{#include ", "{{#rustdoc_include "] {
        let mut rest = text;
        while let Some(i) = rest.find(kw) {
            rest = &rest[i + kw.len()..];
            if let Some(end) = rest.find("}}") {
                out.push(rest[..end].trim().to_string());
            }
        }
    }
    out
}

/// Relative link targets of markdown links `[text](target)`, without fragments; external
/// links (with a scheme) and pure fragments are skipped.
pub fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_code = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        let mut rest = line;
        while let Some(i) = rest.find("](") {
            rest = &rest[i + 2..];
            let Some(end) = rest.find(')') else { break };
            let target = rest[..end].split('#').next().unwrap_or("").trim();
            if !target.is_empty() && !target.contains("://") && !target.starts_with("mailto:") {
                out.push(target.to_string());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pasted_rust_is_found_and_includes_are_not() {
        let ok = "```rust,ignore\n{{#include ../../x.rs:a}}\n```\n```sh\ncargo test\n```\n";
        assert!(pasted_rust(ok).is_empty());
        let bad = "text\n```rust\nfn main() {}\n```\n";
        assert_eq!(pasted_rust(bad), vec![2]);
    }
}
