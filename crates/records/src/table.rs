//! A chapter's kernel table, from its records and its reference source.
//!
//! A record lists the functions its exercise covers (`kernels`, and `given`: those the
//! stub already holds whole). Which of them are kernels, which host functions and which
//! device helpers (called by a kernel, never launched) the reference source says: a
//! `#[kernel]` or `#[host]` attribute before the `fn`. So the table of every kernel and
//! host function a chapter's checks reach (`kernel_table.rs`: the `Kernels` struct and its
//! `chapter::kernel_tables!`) is written by the build, not by hand: adding an exercise adds
//! its names to its record, and its solution says what each is.
//!
//! The scan is of the course's own, rustfmt-formatted reference file (a trusted file, not
//! a student's): attributes on the lines above a `fn`, a signature that ends at its body's
//! `{`.

use crate::{Record, Records};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// What a function of the reference source is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// A `#[kernel]`: launched on the device.
    Kernel,
    /// A `#[host]` function, called in a sandboxed lane: its parameters (name, type) and
    /// its return type.
    Host {
        /// `(name, type)` of each parameter, as written.
        params: Vec<(String, String)>,
        /// The return type, as written (`()` when the signature has none).
        ret: String,
    },
    /// Any other `fn`: a device helper of the kernels.
    Helper,
}

/// The reference source's functions and the types it defines.
#[derive(Debug, Default)]
pub struct Source {
    /// Every `fn` at any depth, by name.
    pub items: BTreeMap<String, Item>,
    /// The `struct`s and `enum`s it defines (their names in a host signature are
    /// qualified with the crate's module).
    pub types: BTreeSet<String>,
}

/// The name after `keyword ` in `line` (`fn`, `struct`, `enum`), when the line declares
/// one (after an optional `pub`, `pub(crate)`, `const`...).
fn declared<'a>(line: &'a str, keyword: &str) -> Option<&'a str> {
    let at = line.find(&format!("{keyword} "))?;
    let before = &line[..at];
    let prefix_ok = before.split_whitespace().all(|w| {
        matches!(w, "pub" | "const" | "unsafe" | "extern" | "\"C\"") || w.starts_with("pub(")
    });
    if !prefix_ok {
        return None;
    }
    let rest = &line[at + keyword.len() + 1..];
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    (end > 0).then(|| &rest[..end])
}

/// `text` split at the commas outside brackets.
fn split_top(text: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let (mut depth, mut cur) = (0i32, String::new());
    for c in text.chars() {
        match c {
            '(' | '[' | '<' => depth += 1,
            ')' | ']' | '>' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    parts.push(cur);
    parts
        .into_iter()
        .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|p| !p.is_empty())
        .collect()
}

/// The parameters and return type of the signature that starts at `fn name(` in `text`
/// (the rest of the file from that line).
fn signature(text: &str, name: &str) -> Result<Item, String> {
    let open = text
        .find(&format!("{name}("))
        .ok_or_else(|| format!("`{name}`: no parameter list"))?
        + name.len();
    let mut depth = 0i32;
    let mut close = None;
    for (i, c) in text[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(open + i);
                    break;
                }
            }
            _ => {}
        }
    }
    let close = close.ok_or_else(|| format!("`{name}`: its parameter list does not end"))?;
    let mut params = Vec::new();
    for p in split_top(&text[open + 1..close]) {
        let (n, t) = p
            .split_once(':')
            .ok_or_else(|| format!("`{name}`: parameter `{p}` is not `name: Type`"))?;
        let n = n.trim().trim_start_matches("mut ").trim();
        params.push((n.to_string(), t.trim().to_string()));
    }
    let rest = &text[close + 1..];
    let body = rest.find('{').ok_or_else(|| format!("`{name}`: no body"))?;
    let head = rest[..body].split(" where ").next().unwrap_or_default();
    let ret = match head.trim().strip_prefix("->") {
        Some(r) => r.split_whitespace().collect::<Vec<_>>().join(" "),
        None => "()".to_string(),
    };
    Ok(Item::Host { params, ret })
}

/// Scans a reference source file (see the module's docs).
pub fn scan(source: &str) -> Result<Source, String> {
    let mut out = Source::default();
    let mut pending: Option<&str> = None;
    let mut offset = 0;
    for line in source.lines() {
        let start = offset;
        offset += line.len() + 1;
        let t = line.trim();
        if t.starts_with("//") || t.is_empty() {
            continue;
        }
        if t.starts_with("#[") {
            let attr = t.trim_start_matches("#[").trim_end_matches(']');
            match attr {
                "kernel" | "gpu::kernel" => pending = Some("kernel"),
                "host" | "gpu::host" => pending = Some("host"),
                _ => {}
            }
            continue;
        }
        for keyword in ["struct", "enum"] {
            if let Some(n) = declared(t, keyword) {
                out.types.insert(n.to_string());
            }
        }
        if let Some(n) = declared(t, "fn") {
            let item = match pending {
                Some("kernel") => Item::Kernel,
                Some(_) => signature(&source[start..], n)?,
                None => Item::Helper,
            };
            // A method of the same name later in the file does not hide a kernel.
            let slot = out.items.entry(n.to_string()).or_insert(Item::Helper);
            if *slot == Item::Helper {
                *slot = item;
            }
        }
        pending = None;
    }
    Ok(out)
}

/// `ty` with each name of a type the module defines qualified as `path::Name`.
fn qualify(ty: &str, types: &BTreeSet<String>, path: &str) -> String {
    let mut out = String::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        if types.contains(word.as_str()) && !out.ends_with("::") {
            out.push_str(path);
            out.push_str("::");
        }
        out.push_str(word);
        word.clear();
    };
    for c in ty.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// The functions of `e` the table holds, with how the record names each: its own
/// (`kernels`) then those the stub gives (`given`).
fn names(e: &Record) -> impl Iterator<Item = (&String, bool)> {
    e.kernels
        .iter()
        .map(|k| (k, false))
        .chain(e.given.iter().map(|k| (k, true)))
}

/// The chapter's kernel table as Rust (`kernel_table.rs`): the `Kernels` struct, one field
/// per kernel and host function the records name (helpers are left out), and its
/// `chapter::kernel_tables!`. `source` is the reference file of module `module`
/// (`solutions/src/<module>.rs`), scanned with [`scan`].
pub fn kernel_table_rs(r: &Records, module: &str, source: &str) -> Result<String, String> {
    let scanned = scan(source)?;
    let path = format!("solutions::{module}");
    let (mut fields, mut kernels, mut hosts) = (String::new(), Vec::new(), Vec::new());
    let mut seen = BTreeSet::new();
    for e in &r.exercise {
        for (name, given) in names(e) {
            let item = scanned.items.get(name).ok_or_else(|| {
                format!(
                    "exercise {} names `{name}`, which solutions/src/{module}.rs does not define",
                    e.id
                )
            })?;
            if !seen.insert(name.clone()) {
                return Err(format!("`{name}` is named by two records"));
            }
            let note = if given {
                " (given whole in the stub)"
            } else {
                ""
            };
            match item {
                Item::Kernel => {
                    let _ = writeln!(
                        fields,
                        "    /// {} `{name}`{note}.\n    pub {name}: gpu::Kernel<{path}::{name}::Args>,",
                        e.id
                    );
                    kernels.push(name.clone());
                }
                Item::Host { params, ret } => {
                    let ret = qualify(ret, &scanned.types, &path);
                    let types: Vec<String> = params
                        .iter()
                        .map(|(_, t)| qualify(t, &scanned.types, &path))
                        .collect();
                    let _ = writeln!(
                        fields,
                        "    /// {} `{name}`{note}, a host function (run in a sandboxed lane).\n    pub {name}: fn({}) -> {ret},",
                        e.id,
                        types.join(", ")
                    );
                    let args: Vec<String> = params
                        .iter()
                        .zip(&types)
                        .map(|((n, _), t)| format!("{n}: {t}"))
                        .collect();
                    hosts.push(format!("{name}({}) -> {ret}", args.join(", ")));
                }
                Item::Helper => {}
            }
        }
    }
    let mut out =
        String::from("// Generated from exercises.toml by chapter-records: edit that file.\n\n");
    let _ = writeln!(
        out,
        "/// Every kernel and host function of the chapter's exercises, from one crate: the\n\
         /// records' `kernels` and `given` that `{path}` marks `#[kernel]` or `#[host]`.\n\
         /// Checks, the progression and the grader reach a kernel only through this table.\n\
         #[derive(Clone, Copy)]\n\
         pub struct Kernels {{\n    /// Which crate this table was built from.\n    pub source: course::KernelSource,\n{fields}}}\n"
    );
    let _ = writeln!(
        out,
        "// `STUDENT`, `REFERENCE` and `kernels(source)`, run in the sandbox.\n\
         chapter::kernel_tables! {{\n    chapter {module};\n    kernels [{}];\n    host [{}];\n}}",
        kernels.join(", "),
        hosts.join(", ")
    );
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = r#"
use gpu::prelude::*;

/// A choice.
#[derive(Clone, Copy)]
pub enum Strategy {
    A,
}

#[host]
pub fn sequential(data: &[u8], mut letters: u32) -> [u32; 26] {
    [0; 26]
}

#[gpu::host]
pub fn choose(
    bins: u32,
) -> Strategy {
    Strategy::A
}

#[host]
pub fn nothing() {}

/// Doc.
#[kernel]
pub fn histo(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    helper(1);
}

fn helper(x: u32) -> u32 {
    x
}
"#;

    #[test]
    fn the_scan_tells_kernels_hosts_and_helpers_apart() {
        let s = scan(SOURCE).unwrap();
        assert_eq!(s.items["histo"], Item::Kernel);
        assert_eq!(s.items["helper"], Item::Helper);
        assert_eq!(
            s.items["sequential"],
            Item::Host {
                params: vec![
                    ("data".into(), "&[u8]".into()),
                    ("letters".into(), "u32".into())
                ],
                ret: "[u32; 26]".into()
            }
        );
        assert_eq!(
            s.items["choose"],
            Item::Host {
                params: vec![("bins".into(), "u32".into())],
                ret: "Strategy".into()
            }
        );
        assert_eq!(
            s.items["nothing"],
            Item::Host {
                params: vec![],
                ret: "()".into()
            }
        );
        assert!(s.types.contains("Strategy"));
    }

    /// A chapter of one exercise that lists `names` (TOML: its `kernels` and more).
    fn one_exercise(names: &str) -> crate::Records {
        crate::parse(&format!(
            "id = \"ch07\"\ntitle = \"t\"\ncheck_seed = 1\n\n[[exercise]]\nid = \"7.1\"\n\
             topic = \"a\"\ntitle = \"a\"\ncheck = \"check_7_1\"\nchecks = \".\"\n{names}\n\
             points = 1\nbook = \"a.md\"\nhints = []\n"
        ))
        .unwrap()
    }

    #[test]
    fn the_table_holds_kernels_and_hosts_but_not_helpers() {
        let records =
            one_exercise("kernels = [\"histo\", \"helper\", \"choose\"]\ngiven = [\"sequential\"]");
        let t = kernel_table_rs(&records, "ch07", SOURCE).unwrap();
        assert!(
            t.contains("pub histo: gpu::Kernel<solutions::ch07::histo::Args>,"),
            "{t}"
        );
        assert!(
            t.contains("pub choose: fn(u32) -> solutions::ch07::Strategy,"),
            "{t}"
        );
        assert!(
            t.contains("pub sequential: fn(&[u8], u32) -> [u32; 26],"),
            "{t}"
        );
        assert!(t.contains("(given whole in the stub)"), "{t}");
        assert!(!t.contains("helper"), "{t}");
        assert!(t.contains("kernels [histo];"), "{t}");
        assert!(
            t.contains(
                "host [choose(bins: u32) -> solutions::ch07::Strategy, sequential(data: &[u8], letters: u32) -> [u32; 26]];"
            ),
            "{t}"
        );
    }

    #[test]
    fn a_name_the_source_lacks_is_refused() {
        let records = one_exercise("kernels = [\"histo\", \"typo\"]");
        let e = kernel_table_rs(&records, "ch07", SOURCE).unwrap_err();
        assert!(e.contains("`typo`") && e.contains("does not define"), "{e}");
    }
}
