//! What an answer region may hold: an allow-list of the attributes and macros a kernel
//! needs, checked on the student's text before anything is built.
//!
//! The words the whole crate refuses ([`crate::sources`]) name what is known to reach
//! outside a lane; an allow-list also shuts out what nobody listed yet. An attribute can
//! read a file of the grading machine while it compiles (`#[debugger_visualizer]`,
//! `#[doc = include_str!(..)]`, `#[path]`), tell the linker what to export
//! (`#[export_name]`, `#[link_section]`) or hide code from the checks; a macro can read a
//! file or the environment. So an answer may use only the attributes and macros below,
//! written as themselves (an attribute or macro whose name a `macro_rules!` fills in from
//! a `$` fragment is refused), and the macros it defines itself.
//!
//! The check goes by names, so a name must mean what rustc resolves it to: a macro the
//! answer defines counts only where rustc would find that definition (after it, in the
//! block that holds it: `macro_rules!` is textually scoped), a call through a path
//! (`core::file!`) never names one of the answer's macros, and no `as` may give a listed
//! name, or a name the answer defines, to something else (`use core::file as line;`).

use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};
use std::collections::BTreeSet;

/// Attributes an answer may carry: lints, inlining, derives of the traits below, `cfg`
/// (and `cfg_attr` of allowed attributes), `repr`, plain `doc` text, and the course's own
/// `#[kernel]` and `#[host]`.
const ATTRIBUTES: [&str; 17] = [
    "allow",
    "expect",
    "warn",
    "deny",
    "forbid",
    "inline",
    "cold",
    "must_use",
    "track_caller",
    "derive",
    "cfg",
    "cfg_attr",
    "repr",
    "doc",
    "non_exhaustive",
    "kernel",
    "host",
];

/// Tools whose attributes (`#[rustfmt::skip]`, `#[clippy::…]`) only steer the tool.
const TOOLS: [&str; 2] = ["rustfmt", "clippy"];

/// Traits an answer may derive (the standard ones and the course's `HostValue`).
const DERIVES: [&str; 10] = [
    "Clone",
    "Copy",
    "Debug",
    "Default",
    "PartialEq",
    "Eq",
    "PartialOrd",
    "Ord",
    "Hash",
    "HostValue",
];

/// Macros an answer may call: printing (the course's kernel output), formatting,
/// assertions and panics, `vec!` and `matches!`, the course's shared-memory macros, and
/// constant memory, and the compile-time text macros that read nothing outside the source.
const MACROS: [&str; 30] = [
    "println",
    "print",
    "eprintln",
    "eprint",
    "dbg",
    "format",
    "format_args",
    "write",
    "writeln",
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "panic",
    "todo",
    "unimplemented",
    "unreachable",
    "vec",
    "matches",
    "shared_array",
    "dynamic_shared",
    "constant",
    "concat",
    "stringify",
    "line",
    "column",
    "cfg",
    "compile_error",
];

/// Keywords that a `!` can follow in an expression (`if !(a)`, `return !(b)`): not macros.
const KEYWORDS: [&str; 14] = [
    "if", "while", "return", "match", "in", "let", "else", "for", "as", "break", "move", "mut",
    "ref", "yield",
];

/// The first attribute or macro of `text` (a region's body) that is not on the
/// allow-list: its line (1-based, within `text`) and why. `Err(line)` where `text` is not
/// Rust tokens.
pub fn first_not_allowed(text: &str) -> Result<Option<(usize, String)>, usize> {
    let tokens: TokenStream = text
        .parse()
        .map_err(|e: proc_macro2::LexError| e.span().start().line.max(1))?;
    // Every walk below recurses group by group.
    if let Some(line) = crate::sources::too_deep(&tokens) {
        return Ok(Some((line, crate::sources::TOO_DEEP.to_string())));
    }
    let mut anywhere = BTreeSet::new();
    collect_definitions(tokens.clone(), &mut anywhere);
    if let Some(hit) = renamed(tokens.clone(), &anywhere) {
        return Ok(Some(hit));
    }
    Ok(scan(tokens, &BTreeSet::new()))
}

/// The names of the macros `macro_rules!` defines anywhere in `tokens`.
fn collect_definitions(tokens: TokenStream, out: &mut BTreeSet<String>) {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, t) in trees.iter().enumerate() {
        match t {
            TokenTree::Group(g) => collect_definitions(g.stream(), out),
            _ => {
                if let Some(name) = defines(&trees, i) {
                    out.insert(name);
                }
            }
        }
    }
}

/// The macro that `macro_rules! name` at `trees[i]` defines, if it is one.
fn defines(trees: &[TokenTree], i: usize) -> Option<String> {
    match (&trees[i], trees.get(i + 1), trees.get(i + 2)) {
        (TokenTree::Ident(id), Some(TokenTree::Punct(p)), Some(TokenTree::Ident(name)))
            if id == "macro_rules" && p.as_char() == '!' =>
        {
            Some(unraw(&name.to_string()))
        }
        _ => None,
    }
}

/// The first `use … as NAME` of `tokens` that gives a name the check trusts (a listed
/// macro, attribute, derive or tool, or one of the answer's own macros, `defined`) to
/// something else: `use core::file as line;` would make `line!()` read as a listed macro.
/// (`<T as Default>::default()` names a trait, and is no `use`.)
fn renamed(tokens: TokenStream, defined: &BTreeSet<String>) -> Option<(usize, String)> {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut i = 0;
    while i < trees.len() {
        match &trees[i] {
            TokenTree::Ident(u) if u == "use" => {
                let end = trees[i..]
                    .iter()
                    .position(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ';'))
                    .map_or(trees.len(), |n| i + n);
                if let Some(hit) = use_renames(&trees[i..end], defined) {
                    return Some(hit);
                }
                i = end;
            }
            TokenTree::Group(g) => {
                if let Some(hit) = renamed(g.stream(), defined) {
                    return Some(hit);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The first `as NAME` of a `use` declaration's tokens (its braces included) that gives
/// away a name the check trusts: see [`renamed`].
fn use_renames(trees: &[TokenTree], defined: &BTreeSet<String>) -> Option<(usize, String)> {
    for (i, t) in trees.iter().enumerate() {
        match t {
            TokenTree::Group(g) => {
                let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                if let Some(hit) = use_renames(&inner, defined) {
                    return Some(hit);
                }
            }
            TokenTree::Ident(a) if a == "as" => {
                let Some(TokenTree::Ident(name)) = trees.get(i + 1) else {
                    continue;
                };
                let name = unraw(&name.to_string());
                let trusted = MACROS.contains(&name.as_str())
                    || ATTRIBUTES.contains(&name.as_str())
                    || DERIVES.contains(&name.as_str())
                    || TOOLS.contains(&name.as_str())
                    || defined.contains(&name);
                if trusted {
                    return Some((
                        line(t),
                        format!(
                            "`as {name}`: the check knows a macro or attribute by its name, so a name \
                             it trusts cannot be given to something else: call the macro by its own name"
                        ),
                    ));
                }
            }
            _ => {}
        }
    }
    None
}

fn unraw(word: &str) -> String {
    word.strip_prefix("r#").unwrap_or(word).to_string()
}

fn line(t: &TokenTree) -> usize {
    t.span().start().line
}

/// The first attribute or macro of `tokens` not on the allow-list, the answer's own macros
/// being those of `outer` (defined before `tokens`, in an enclosing block) and those
/// defined in `tokens` before the call: `macro_rules!` is textually scoped, so a
/// definition inside a block counts neither after the block nor before itself.
fn scan(tokens: TokenStream, outer: &BTreeSet<String>) -> Option<(usize, String)> {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut defined = outer.clone();
    let mut i = 0;
    while i < trees.len() {
        if let Some(name) = defines(&trees, i) {
            // Its own rules may call it (recursion): defined from here on.
            defined.insert(name);
        }
        match &trees[i] {
            // `#[…]` or `#![…]`.
            TokenTree::Punct(p) if p.as_char() == '#' => {
                let mut j = i + 1;
                if matches!(trees.get(j), Some(TokenTree::Punct(b)) if b.as_char() == '!') {
                    j += 1;
                }
                if let Some(TokenTree::Group(g)) = trees.get(j)
                    && g.delimiter() == Delimiter::Bracket
                {
                    if let Err(why) = attribute(g.stream(), &defined) {
                        return Some((line(&trees[i]), why));
                    }
                    i = j + 1;
                    continue;
                }
            }
            TokenTree::Ident(id) => {
                let name = unraw(&id.to_string());
                let bang = matches!(trees.get(i + 1),
                    Some(TokenTree::Punct(b)) if b.as_char() == '!' && b.spacing() == Spacing::Alone);
                let filled_in =
                    i > 0 && matches!(&trees[i - 1], TokenTree::Punct(d) if d.as_char() == '$');
                // `a::name!`: a path never names a `macro_rules!` of the answer.
                let through_path =
                    i > 0 && matches!(&trees[i - 1], TokenTree::Punct(c) if c.as_char() == ':');
                if bang && filled_in && matches!(trees.get(i + 2), Some(TokenTree::Group(_))) {
                    return Some((
                        line(&trees[i]),
                        format!(
                            "`${name}!`: a macro whose name a macro_rules! fragment fills in \
                             cannot be checked: call the macros themselves"
                        ),
                    ));
                }
                if bang && name == "macro_rules" {
                    // `macro_rules! name { … }`: its rules are checked as any tokens.
                } else if bang
                    && matches!(trees.get(i + 2), Some(TokenTree::Group(_)))
                    && !KEYWORDS.contains(&name.as_str())
                    && !MACROS.contains(&name.as_str())
                    && (through_path || !defined.contains(&name))
                {
                    let own = if through_path && defined.contains(&name) {
                        " (through a path it names the standard macro, not yours)"
                    } else {
                        ""
                    };
                    return Some((
                        line(&trees[i]),
                        format!(
                            "the macro `{name}!` is not one an answer may use{own} (an answer may call \
                             {}, and macros it defines with macro_rules! before the call, in the block \
                             that holds the call or one around it)",
                            MACROS.map(|m| format!("{m}!")).join(", ")
                        ),
                    ));
                }
            }
            TokenTree::Group(g) => {
                if let Some(hit) = scan(g.stream(), &defined) {
                    return Some(hit);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Checks one attribute's tokens (inside `#[…]`).
fn attribute(tokens: TokenStream, defined: &BTreeSet<String>) -> Result<(), String> {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let not_allowed = |what: &str| {
        Err(format!(
            "the attribute `#[{what}]` is not one an answer may carry (an answer may use {}, \
             `rustfmt::` and `clippy::` attributes; an attribute can read a file of the grading \
             machine or change what is built)",
            ATTRIBUTES.map(|a| format!("#[{a}]")).join(", ")
        ))
    };
    let Some(TokenTree::Ident(first)) = trees.first() else {
        // A `$fragment` or anything that is not a plain name.
        let shown: String = trees.iter().take(3).map(|t| t.to_string()).collect();
        return not_allowed(&shown);
    };
    let name = unraw(&first.to_string());
    let path_follows = matches!(trees.get(1), Some(TokenTree::Punct(p)) if p.as_char() == ':');
    if path_follows {
        return if TOOLS.contains(&name.as_str()) {
            Ok(())
        } else {
            not_allowed(&format!("{name}::…"))
        };
    }
    if !ATTRIBUTES.contains(&name.as_str()) {
        return not_allowed(&name);
    }
    let rest = &trees[1..];
    match name.as_str() {
        "derive" => {
            let Some(TokenTree::Group(g)) = rest.first() else {
                return not_allowed("derive");
            };
            for t in g.stream() {
                match t {
                    TokenTree::Ident(d) if DERIVES.contains(&unraw(&d.to_string()).as_str()) => {}
                    TokenTree::Punct(p) if p.as_char() == ',' => {}
                    other => {
                        return Err(format!(
                            "`#[derive({other})]`: an answer may derive {} only",
                            DERIVES.join(", ")
                        ));
                    }
                }
            }
            Ok(())
        }
        "doc" => match rest {
            // `#[doc = "text"]`, or `#[doc(hidden)]`-like words.
            [TokenTree::Punct(eq), TokenTree::Literal(_)] if eq.as_char() == '=' => Ok(()),
            [TokenTree::Group(g)]
                if g.stream()
                    .into_iter()
                    .all(|t| matches!(t, TokenTree::Ident(_) | TokenTree::Punct(_))) =>
            {
                Ok(())
            }
            _ => Err(
                "`#[doc]` may hold text only (`#[doc = include_str!(…)]` reads a file of the \
                 grading machine): write the text itself, or a `///` comment"
                    .to_string(),
            ),
        },
        "cfg_attr" => {
            // `cfg_attr(predicate, attr, attr…)`: each attribute after the predicate.
            let Some(TokenTree::Group(g)) = rest.first() else {
                return not_allowed("cfg_attr");
            };
            let inner: Vec<TokenTree> = g.stream().into_iter().collect();
            let mut parts = inner.split(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ','));
            let _predicate = parts.next();
            for part in parts.filter(|p| !p.is_empty()) {
                attribute(part.iter().cloned().collect(), defined)?;
            }
            Ok(())
        }
        // Lint names, inline hints, reprs, cfg predicates: words that read nothing. A
        // macro inside one is checked as any macro.
        _ => match scan(rest.iter().cloned().collect(), defined) {
            Some((_, why)) => Err(why),
            None => Ok(()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::first_not_allowed;

    fn refused(text: &str) -> Option<String> {
        first_not_allowed(text).expect("Rust tokens").map(|r| r.1)
    }

    #[test]
    fn what_a_kernel_needs_is_allowed() {
        for text in [
            "macro_rules! twice { ($e:expr) => { $e * 2 } }\n{ let y = { twice!(3) }; }",
            "macro_rules! count { () => { 0 }; ($x:tt $($r:tt)*) => { 1 + count!($($r)*) } }",
            "let x = 3u8 as u32;\nuse core::cmp::max as bigger;\nlet y = core::concat!(\"a\", \"b\");",
            "let d = <u32 as Default>::default();\nlet c = <S as Clone>::clone(&s);",
            "let bins = shared_array![u32; 256];\nprintln!(\"{}\", 1);\nassert!(x < 4);",
            "#[allow(clippy::needless_range_loop)]\nfor i in 0..4 { if !(i < 3) { break; } }",
            "#[inline(always)]\nfn helper(x: u32) -> u32 { x }\nlet v = vec![0u32; 4];",
            "#[derive(Clone, Copy, Debug)]\nstruct P { x: u32 }\n#[rustfmt::skip]\nlet a = 1;",
            "macro_rules! twice { ($e:expr) => { $e * 2 } }\nlet y = twice!(3);",
            "#[cfg_attr(test, allow(dead_code))]\nfn f() {}\nlet s = format!(\"{}\", line!());",
            "/// Text.\n#[doc = \"more\"]\nfn g() {}\nlet ok = a != (b);\nreturn !(c);",
        ] {
            assert_eq!(refused(text), None, "{text}");
        }
    }

    #[test]
    fn attributes_that_read_files_or_change_the_build_are_refused() {
        for (text, word) in [
            (
                "#![debugger_visualizer(gdb_script_file = \"/etc/passwd\")]",
                "debugger_visualizer",
            ),
            ("#[doc = include_str!(\"/etc/hostname\")]\nfn f() {}", "doc"),
            ("#[export_name = \"x\"]\nfn f() {}", "export_name"),
            (
                "#[link_section = \".init_array\"]\nstatic S: u32 = 0;",
                "link_section",
            ),
            (
                "#[cfg_attr(all(), debugger_visualizer(x))]\nfn f() {}",
                "debugger_visualizer",
            ),
            ("#[derive(Evil)]\nstruct S;", "Evil"),
            ("#[used]\nstatic S: u32 = 0;", "used"),
            ("#[some_tool::attr]\nfn f() {}", "some_tool"),
        ] {
            let why = refused(text).unwrap_or_else(|| panic!("{text} was allowed"));
            assert!(why.contains(word), "{text}: {why}");
        }
    }

    #[test]
    fn macros_off_the_list_and_names_filled_in_are_refused() {
        for (text, word) in [
            ("let s = concat_idents!(a, b);", "concat_idents"),
            ("let s = core::include_str!(\"x\");", "include_str"),
            ("asm!(\"nop\");", "asm"),
            (
                "macro_rules! m { ($a:ident) => { #[$a = \"x.rs\"] mod y; } }",
                "$",
            ),
            ("macro_rules! m { ($m:ident) => { $m!(\"x\") } }", "$m!"),
            ("thread_local! { static X: u32 = 0; }", "thread_local"),
        ] {
            let why = refused(text).unwrap_or_else(|| panic!("{text} was allowed"));
            assert!(why.contains(word), "{text}: {why}");
        }
    }

    /// The check goes by names: a name must be the macro rustc resolves it to.
    #[test]
    fn a_name_counts_only_where_rustc_resolves_it_to_what_the_check_trusts() {
        for (text, word) in [
            // The answer's macro ends with its block; after it, `file!` is core's.
            (
                "{ macro_rules! file { () => { \"\" } } }\nlet s = file!();",
                "file",
            ),
            // Before its definition, a macro_rules! name is not yet the answer's.
            (
                "let s = module_path!();\nmacro_rules! module_path { () => { \"\" } }",
                "module_path",
            ),
            // Through a path, the standard macro whatever the answer defines.
            (
                "macro_rules! file { () => { \"\" } }\nlet s = core::file!();",
                "through a path",
            ),
            // A rename onto a listed name, or onto one of the answer's macros.
            (
                "use core::module_path as line;\nlet s = line!();",
                "as line",
            ),
            (
                "macro_rules! mine { () => { 1 } }\nuse core::file as mine;",
                "as mine",
            ),
            ("use core::prelude::v1::test as inline;", "as inline"),
            ("use core::{cmp::max, module_path as concat};", "as concat"),
        ] {
            let why = refused(text).unwrap_or_else(|| panic!("{text} was allowed"));
            assert!(why.contains(word), "{text}: {why}");
        }
    }
}
