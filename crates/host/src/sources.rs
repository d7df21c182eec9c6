//! What the sandbox refuses in a kernel crate's sources, checked before any build.
//!
//! A kernel runs in its own WebAssembly lane, and the build is the course's own (no build
//! script, no dependency of the student's). What is left that could step outside the
//! lane is written in the sources themselves:
//!
//! - `unsafe` (a kernel could read its stack or heap before writing it, which a pooled
//!   lane instance may still hold from an earlier lane, or declare imports);
//! - `include!`, `include_str!`, `include_bytes!` and `#[path]`: code or data from outside
//!   the crate's `src/` (the reference solutions, the instructor's files);
//! - `env!` and `option_env!`: the environment of the machine that compiles the crate (a
//!   grading job's secrets, a CI variable a kernel could behave differently on);
//! - `global_asm!` and `naked_asm!`: code the compiler does not check;
//! - a symbolic link under `src/`, which brings in a file from anywhere, and anything
//!   that is neither a folder nor a regular file (a FIFO would block the check's read).
//!
//! And one thing that is harmless but silent: std's printing (`std::println!`, `dbg!`,
//! `io::stdout`) writes to a standard output that a lane does not have, so it would print
//! nothing. It is refused with a message that points to `println!` as the kernel files
//! import it (`gpu::println!`, shown to the student as kernel output).
//!
//! Each refused word is refused wherever it stands as an identifier, not only where it
//! would do harm: a `macro_rules!` can take `path` or `include_str` as an argument and
//! write the attribute or the call itself. The files are read as Rust tokens by a real
//! lexer (`proc-macro2`), so no string, char or raw literal can hide a word from the check
//! or make one up. A file the lexer cannot read is refused only if it compiles (rustc's
//! error message is the better one for a student in the middle of an edit): see
//! [`Scan::Unreadable`].

use proc_macro2::{TokenStream, TokenTree};
use std::path::{Path, PathBuf};

/// The identifiers refused in a kernel crate, with why.
const REFUSED: [(&str, &str); 9] = [
    (
        "unsafe",
        "`unsafe` code could step outside the lane (read memory it never wrote, declare imports)",
    ),
    (
        "include",
        "`include!` brings in code from outside the crate",
    ),
    (
        "include_str",
        "`include_str!` reads files from outside the crate",
    ),
    (
        "include_bytes",
        "`include_bytes!` reads files from outside the crate",
    ),
    (
        "path",
        "`#[path]` takes a module from outside the crate's src/ (the word is refused \
         everywhere: a macro can write the attribute from it)",
    ),
    (
        "env",
        "`env!` reads the environment of the machine that compiles it (the grader's, not \
         yours): kernels take their inputs as arguments",
    ),
    (
        "option_env",
        "`option_env!` reads the environment of the machine that compiles it (the grader's, \
         not yours): kernels take their inputs as arguments",
    ),
    (
        "global_asm",
        "`global_asm!` adds code the compiler does not check (a constructor that runs before main)",
    ),
    (
        "naked_asm",
        "`naked_asm!` adds code the compiler does not check",
    ),
];

/// What the check found in a crate's sources.
#[derive(Debug, PartialEq, Eq)]
pub enum Scan {
    /// Nothing refused: the crate may be built.
    Clean,
    /// A refused construct, a symbolic link or an unreadable folder: the message says
    /// which file and line, and why. The crate must not be built.
    Refused(String),
    /// A file the lexer could not read as Rust tokens (the message says which). Almost
    /// always a student's unfinished edit that rustc rejects too, with a better message;
    /// so the crate is built, and refused with this message only if the build succeeds.
    Unreadable(String),
}

/// Checks every `.rs` file under `src` (see the module docs).
pub fn scan(src: &Path) -> Scan {
    let files = match rust_files(src) {
        Ok(files) => files,
        Err(why) => return Scan::Refused(why),
    };
    let mut unreadable = None;
    for file in files {
        let text = match std::fs::read_to_string(&file) {
            Ok(text) => text,
            Err(e) => return Scan::Refused(format!("cannot read {}: {e}", file.display())),
        };
        match refused_in(&text) {
            Ok(None) => {}
            Ok(Some((line, why))) => {
                return Scan::Refused(format!(
                    "{}:{line}: not allowed in a kernel crate: {why}",
                    file.display()
                ));
            }
            Err(line) => {
                unreadable.get_or_insert(format!(
                    "{}:{line}: the course could not read this file as Rust tokens to check it \
                     for what the sandbox refuses, so it is not run",
                    file.display()
                ));
            }
        }
    }
    unreadable.map_or(Scan::Clean, Scan::Unreadable)
}

/// Checks that a submission's sources at `src` (`<submission>/kernels/src`) are its own
/// folders: neither `kernels` nor `kernels/src` may be a symbolic link, which could make the
/// course's solutions or a classmate's files the submission's answers. Links under `src`
/// are refused by [`rust_files`]. The message names no path of the machine.
pub fn own_folders(src: &Path) -> Result<(), String> {
    let kernels = src.parent().unwrap_or(src);
    for (path, name) in [(kernels, "kernels"), (src, "kernels/src")] {
        let meta = std::fs::symlink_metadata(path)
            .map_err(|e| format!("cannot read the submission's {name}: {e}"))?;
        if meta.file_type().is_symlink() {
            return Err(format!(
                "the submission's {name} is a symbolic link: a submission is graded from its own \
                 files only (a link could name the course's solutions or a classmate's work); \
                 submit the files themselves"
            ));
        }
        if !meta.is_dir() {
            return Err(format!("the submission's {name} is not a folder"));
        }
    }
    Ok(())
}

/// The most bytes of one `.rs` file under a kernel crate's `src/` (the course's own are
/// under 100 KiB): a file is read whole, and its text lexed, in the grader's own process.
pub const MAX_FILE_BYTES: u64 = 4 << 20;

/// The most brackets, braces and parentheses nested in one another that a file or an
/// answer may hold: the checks walk a file's tokens group by group, in the grader's own
/// process, and real code nests a few dozen deep (rustc's own parser recurses too).
pub const MAX_NESTING: usize = 256;

/// The `.rs` files under `dir`, sorted. A symbolic link anywhere under it is an error:
/// it could bring in any file of the machine (the check reads what the build would). So
/// is a `.rs` file over [`MAX_FILE_BYTES`]: a file is read whole in the grader's own
/// process (a class's submissions in one), which one submission must not exhaust.
pub fn rust_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    collect(dir, &mut out)?;
    out.sort();
    Ok(out)
}

/// Walks `dir` with a list of folders to visit, not a recursion: a submission's folders
/// nested thousands deep cannot overflow the stack of the thread that reads them.
fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let mut folders = vec![dir.to_path_buf()];
    while let Some(dir) = folders.pop() {
        let entries =
            std::fs::read_dir(&dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
        for e in entries {
            let e = e.map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
            let p = e.path();
            let kind = e
                .file_type()
                .map_err(|err| format!("cannot read {}: {err}", p.display()))?;
            if kind.is_symlink() {
                return Err(format!(
                    "{}: a symbolic link, not allowed in a kernel crate: it could bring in a file \
                     from outside the crate's src/ (copy the file instead)",
                    p.display()
                ));
            } else if kind.is_dir() {
                folders.push(p);
            } else if !kind.is_file() {
                // A FIFO or a device would block or never end the read.
                return Err(format!(
                    "{}: not a regular file, not allowed in a kernel crate",
                    p.display()
                ));
            } else if p.extension().is_some_and(|x| x == "rs") {
                let bytes = e
                    .metadata()
                    .map_err(|err| format!("cannot read {}: {err}", p.display()))?
                    .len();
                if bytes > MAX_FILE_BYTES {
                    return Err(format!(
                        "{}: {bytes} bytes, more than the {} MiB a file of a kernel crate may hold",
                        p.display(),
                        MAX_FILE_BYTES >> 20
                    ));
                }
                out.push(p);
            }
        }
    }
    Ok(())
}

/// The deepest nesting of groups in `tokens`, counted without recursion, stopping past
/// `limit`.
fn nesting(tokens: &TokenStream, limit: usize) -> usize {
    let mut deepest = 0;
    let mut stack: Vec<(proc_macro2::token_stream::IntoIter, usize)> =
        vec![(tokens.clone().into_iter(), 0)];
    while let Some((mut trees, depth)) = stack.pop() {
        deepest = deepest.max(depth);
        if deepest > limit {
            break;
        }
        if let Some(tree) = trees.next() {
            stack.push((trees, depth));
            if let TokenTree::Group(g) = tree {
                stack.push((g.stream().into_iter(), depth + 1));
            }
        }
    }
    deepest
}

/// The line of `tokens` (its first token's) when its groups nest deeper than
/// [`MAX_NESTING`]: then it is refused with [`TOO_DEEP`] before any check walks it.
pub fn too_deep(tokens: &TokenStream) -> Option<usize> {
    (nesting(tokens, MAX_NESTING) > MAX_NESTING).then(|| {
        tokens
            .clone()
            .into_iter()
            .next()
            .map_or(1, |t| t.span().start().line)
    })
}

/// Why a file or an answer nested deeper than [`MAX_NESTING`] is refused.
pub const TOO_DEEP: &str = "brackets, braces or parentheses nested more than 256 deep: more than \
     any kernel needs, and more than the course's checks read";

/// The first refused identifier of `text`: its line and why; `Err(line)` where the text
/// is not Rust tokens (a delimiter that does not balance, a string or comment left open).
pub fn refused_in(text: &str) -> Result<Option<(usize, &'static str)>, usize> {
    let tokens: TokenStream = text.parse().map_err(|e: proc_macro2::LexError| {
        let line = e.span().start().line;
        line.max(1)
    })?;
    if let Some(line) = too_deep(&tokens) {
        return Ok(Some((line, TOO_DEEP)));
    }
    Ok(first_refused(tokens))
}

/// Why std's printing is refused (see the module docs).
const STD_OUTPUT: &str = "std's printing writes to a standard output that a lane does not have, so it \
     prints nothing: write `println!` (or `print!`, `eprintln!`, `dbg!`) without `std::`; the kernel \
     files import them from `gpu` (`gpu::println!`), and their text is shown to you as kernel \
     output, labelled with the launch, block and thread";

/// The macros of std that print, refused when named through a path (`std::println!`).
const STD_PRINTING: [&str; 5] = ["print", "println", "eprint", "eprintln", "dbg"];

/// The first `std::println`-like path among `trees` (one level of a token stream): its
/// line. `std :: println`, `std :: { println, .. }`, and `io :: stdout` / `io :: stderr`.
fn std_printing(trees: &[TokenTree]) -> Option<usize> {
    let ident = |i: usize| match trees.get(i) {
        Some(TokenTree::Ident(id)) => Some(id.to_string()),
        _ => None,
    };
    let path_sep = |i: usize| {
        matches!((trees.get(i), trees.get(i + 1)),
            (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b))) if a.as_char() == ':' && b.as_char() == ':')
    };
    for (i, tree) in trees.iter().enumerate() {
        let TokenTree::Ident(first) = tree else {
            continue;
        };
        let first = first.to_string();
        if !path_sep(i + 1) {
            continue;
        }
        let line = first_line(tree);
        let next = ident(i + 3);
        match first.as_str() {
            "std" if next.as_deref().is_some_and(|n| STD_PRINTING.contains(&n)) => {
                return Some(line);
            }
            "std" => {
                if let Some(TokenTree::Group(g)) = trees.get(i + 3) {
                    let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                    let named = inner.iter().any(|t| {
                        matches!(t, TokenTree::Ident(id) if STD_PRINTING.contains(&id.to_string().as_str()))
                    });
                    if named {
                        return Some(line);
                    }
                }
            }
            "io" if matches!(next.as_deref(), Some("stdout" | "stderr")) => return Some(line),
            _ => {}
        }
    }
    None
}

fn first_line(tree: &TokenTree) -> usize {
    tree.span().start().line
}

fn first_refused(tokens: TokenStream) -> Option<(usize, &'static str)> {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    if let Some(line) = std_printing(&trees) {
        return Some((line, STD_OUTPUT));
    }
    for tree in trees {
        match tree {
            TokenTree::Ident(ident) => {
                let word = ident.to_string();
                let word = word.strip_prefix("r#").unwrap_or(&word);
                if let Some((_, why)) = REFUSED.iter().find(|(w, _)| *w == word) {
                    return Some((ident.span().start().line, why));
                }
            }
            TokenTree::Group(group) => {
                if let Some(hit) = first_refused(group.stream()) {
                    return Some(hit);
                }
            }
            TokenTree::Punct(_) | TokenTree::Literal(_) => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::{Scan, refused_in as refused, scan};

    fn line(text: &str) -> Option<usize> {
        refused(text).expect("Rust tokens").map(|r| r.0)
    }

    #[test]
    fn refused_words_are_found_outside_comments_and_literals() {
        assert_eq!(line("fn f() { unsafe { } }"), Some(1));
        assert_eq!(line("// unsafe\n/* unsafe */ let s = \"unsafe\";"), None);
        assert_eq!(line("/// unsafe, include_str!\nfn f() {}"), None);
        assert_eq!(line("\n\ninclude!(\"x.rs\");"), Some(3));
        assert_eq!(
            line("const S: &str = include_str!(\"../../solutions/src/ch09.rs\");"),
            Some(1)
        );
        assert_eq!(line("#[path = \"x.rs\"] mod m;"), Some(1));
        assert_eq!(line("let s = r#\"unsafe \"# ; let c = 'u';"), None);
        assert_eq!(line("#[unsafe(no_mangle)] fn f() {}"), Some(1));
    }

    /// Literals that a hand-written scanner misread: each hid the `unsafe` after it.
    #[test]
    fn no_literal_hides_a_word() {
        // A raw byte string holding a quote.
        assert_eq!(
            line("let s = br#\"a\"b\"#;\nunsafe { }\nlet t = \"\";"),
            Some(2)
        );
        // A two-byte char, then a char that is a double quote.
        assert_eq!(
            line("let a = ('é','\"');\nunsafe { }\nlet t = \"\";"),
            Some(2)
        );
        // A C string and a raw C string.
        assert_eq!(
            line("let a = cr#\"x\"y\"#; let b = c\"q\\\"\";\nunsafe { }"),
            Some(2)
        );
        // Nested block comments.
        assert_eq!(line("/* /* */ unsafe */ fn f() {}"), None);
        assert_eq!(line("/* /* */ */ unsafe fn f() {}"), Some(1));
    }

    /// A macro can write an attribute or a call from a word it is given.
    #[test]
    fn words_a_macro_could_use_are_refused_anywhere() {
        let attr = "macro_rules! m { ($a:ident) => { #[$a = \"x.rs\"] mod y; } }\nm!(path);";
        assert_eq!(line(attr), Some(2));
        let call = "macro_rules! m { ($a:ident) => { $a!(\"/etc/hostname\") } }\nconst S: &str = m!(include_str);";
        assert_eq!(line(call), Some(2));
        assert_eq!(
            line("#[cfg_attr(all(), path = \"../../solutions/src/ch09.rs\")] mod m;"),
            Some(1)
        );
        assert_eq!(line("fn f() { r#unsafe(); }"), Some(1));
        assert_eq!(line("let paths = 3; let included = 4;"), None);
    }

    /// std's printing has no output in a lane: refused, pointing to `gpu::println!`; the
    /// course's own `println!` (imported from `gpu`) is not.
    #[test]
    fn std_printing_is_refused_and_points_to_the_kernel_output() {
        for text in [
            "fn f() {\n    std::println!(\"x\");\n}",
            "fn f() {\n    ::std::dbg!(3);\n}",
            "fn f() {\n    std::eprint!(\"x\");\n}",
            "use std::{println as p};\nfn f() {}",
            "fn f() {\n    let _ = std::io::stdout();\n}",
            "fn f() {\n    { std::print!(\"deep\") }\n}",
        ] {
            let (line, why) = refused(text).expect("Rust tokens").expect(text);
            assert!(line <= 2, "{text}: line {line}");
            assert!(why.contains("gpu::println!"), "{why}");
        }
        for text in [
            "use gpu::{dbg, println};\nfn f() { println!(\"i = {}\", 1); dbg!(2); }",
            "fn f() { gpu::println!(\"x\"); let _ = core::cmp::min(1, 2); }",
            "fn f() { let stdout = 1; let io = stdout; }",
        ] {
            assert_eq!(line(text), None, "{text}");
        }
    }

    /// Nesting the checks would recurse through is refused before any walk, whatever its
    /// depth (the count itself keeps a list, not a stack of calls).
    #[test]
    fn nesting_past_the_bound_is_refused_without_a_deep_walk() {
        let nested =
            |n: usize| format!("fn f() {{ let x = {}0{}; }}", "(".repeat(n), ")".repeat(n));
        assert_eq!(line(&nested(super::MAX_NESTING - 2)), None);
        for n in [super::MAX_NESTING + 1, 1_000_000] {
            let (line, why) = refused(&nested(n)).expect("Rust tokens").expect("refused");
            assert_eq!((line, why), (1, super::TOO_DEEP));
        }
        assert!(super::TOO_DEEP.contains(&super::MAX_NESTING.to_string()));
    }

    #[test]
    fn unreadable_text_is_reported_with_its_line() {
        assert_eq!(refused("fn f() {\n let s = \"open;\n}"), Err(2));
        assert!(refused("fn f() { ( }").is_err());
    }

    #[test]
    fn a_symbolic_link_is_refused_and_a_clean_crate_passes() {
        let dir = std::env::temp_dir().join(format!("course-sources-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("src/sub")).expect("a scratch folder");
        std::fs::write(dir.join("src/lib.rs"), "pub mod sub;\n").expect("written");
        std::fs::write(dir.join("src/sub/mod.rs"), "pub fn f() {}\n").expect("written");
        assert_eq!(scan(&dir.join("src")), Scan::Clean);
        std::fs::write(dir.join("src/sub/bad.rs"), "fn f() {\n unsafe {} }\n").expect("written");
        match scan(&dir.join("src")) {
            Scan::Refused(why) => assert!(why.contains("bad.rs:2"), "{why}"),
            other => panic!("{other:?}"),
        }
        std::fs::remove_file(dir.join("src/sub/bad.rs")).expect("removed");
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("/etc/hostname", dir.join("src/sub/leak.rs"))
                .expect("a link");
            match scan(&dir.join("src")) {
                Scan::Refused(why) => assert!(why.contains("symbolic link"), "{why}"),
                other => panic!("{other:?}"),
            }
            std::fs::remove_file(dir.join("src/sub/leak.rs")).expect("removed");
            std::os::unix::fs::symlink("..", dir.join("src/sub/up")).expect("a link");
            assert!(matches!(scan(&dir.join("src")), Scan::Refused(_)));
            std::fs::remove_file(dir.join("src/sub/up")).expect("removed");
            let fifo = std::process::Command::new("mkfifo")
                .arg(dir.join("src/sub/pipe.rs"))
                .status();
            if fifo.is_ok_and(|s| s.success()) {
                match scan(&dir.join("src")) {
                    Scan::Refused(why) => assert!(why.contains("not a regular file"), "{why}"),
                    other => panic!("{other:?}"),
                }
            }
        }
        // A file too large to read whole.
        let _ = std::fs::remove_file(dir.join("src/sub/pipe.rs"));
        let big = std::fs::File::create(dir.join("src/sub/big.rs")).expect("a file");
        big.set_len(super::MAX_FILE_BYTES + 1).expect("sparse");
        match scan(&dir.join("src")) {
            Scan::Refused(why) => assert!(why.contains("more than the 4 MiB"), "{why}"),
            other => panic!("{other:?}"),
        }
        std::fs::remove_file(dir.join("src/sub/big.rs")).expect("removed");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
