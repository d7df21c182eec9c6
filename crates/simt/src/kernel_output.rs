//! What a check's kernels and host functions printed (`gpu::println!`, CUDA's device
//! `printf`), kept for the student.
//!
//! Each launch's report carries its own lines ([`LaunchReport::output`]); the host
//! runtime hands them here, labelled with the launch ([`launched`]), and a sandboxed host
//! function's lines come here directly ([`host`]). The tools that show a check's result
//! ([`take`]: `cargo test`'s report, the grader's JSON, the runner's pane) take them at
//! the check's end. No check reads them: a kernel's text is untrusted, shown to the
//! student as kernel output and never parsed.
//!
//! Kept per OS thread (a check runs its launches and host calls on its own thread), at
//! most [`LINES`] lines between two [`take`]s: a kernel that prints in every thread of
//! every launch of a check would otherwise fill the report with the same line.
//!
//! [`LaunchReport::output`]: crate::LaunchReport::output

use std::cell::RefCell;

/// Most lines kept between two [`take`]s; the others are counted, and the last line says
/// how many were left out.
pub const LINES: usize = 200;

#[derive(Default)]
struct Kept {
    lines: Vec<String>,
    /// Lines printed past [`LINES`].
    dropped: u64,
    /// Launches since the last take (with output or not): how a line names its launch.
    launches: u64,
}

impl Kept {
    fn push(&mut self, line: String) {
        if self.lines.len() < LINES {
            self.lines.push(line);
        } else {
            self.dropped += 1;
        }
    }
}

thread_local! {
    static KEPT: RefCell<Kept> = RefCell::new(Kept::default());
    /// The sandboxed host function running on this thread, if any.
    static HOST: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Counts a launch and keeps what its lanes printed (`lines`, each `block (..) thread
/// (..): text`), each line labelled `launch K NAME: ` (K counts the launches since the
/// last [`take`]; `label` is the kernel and its shape, `histo_atomic<<<3, 64>>>`).
pub fn launched(label: &str, lines: &[String]) {
    KEPT.with(|k| {
        let mut k = k.borrow_mut();
        k.launches += 1;
        let n = k.launches;
        for line in lines {
            k.push(format!("launch {n} {label}: {line}"));
        }
    });
}

thread_local! {
    /// What the lanes of the last launch that failed on this thread printed, until taken.
    static FAILED: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// Keeps what the lanes of a launch printed before it failed (a panic, an access out of
/// bounds, a race, a deadlock, a limit): the student needs it most then. `simt::launch`
/// calls it on the launching thread; [`take_failed_launch`] hands the lines on.
pub(crate) fn failed_launch(lines: Vec<String>) {
    FAILED.with(|f| *f.borrow_mut() = lines);
}

/// What the last failed launch on this thread printed (`block (..) thread (..): text`
/// lines, as a completed launch's report holds them), once.
pub fn take_failed_launch() -> Vec<String> {
    FAILED.with(|f| std::mem::take(&mut *f.borrow_mut()))
}

/// Keeps `text`, printed outside any launch: by the sandboxed host function that
/// `in_host_function` runs, or by a native one.
pub fn host(text: &str) {
    let text = text.strip_suffix('\n').unwrap_or(text);
    let name = HOST.with(|h| h.borrow().clone());
    let line = match name {
        Some(name) => format!("host function {name}: {text}"),
        None => format!("host function: {text}"),
    };
    KEPT.with(|k| k.borrow_mut().push(line));
}

/// Runs `f`, a call of host function `name`, so that what it prints is labelled with
/// its name.
pub(crate) fn in_host_function<R>(name: &str, f: impl FnOnce() -> R) -> R {
    let before = HOST.with(|h| h.borrow_mut().replace(name.to_string()));
    let r = f();
    HOST.with(|h| *h.borrow_mut() = before);
    r
}

/// The lines kept since the last take (at most [`LINES`], then one that counts the rest),
/// and a fresh start: the next launch is launch 1 again.
pub fn take() -> Vec<String> {
    KEPT.with(|k| {
        let k = std::mem::take(&mut *k.borrow_mut());
        let mut lines = k.lines;
        if k.dropped > 0 {
            lines.push(format!(
                "(and {} more lines of kernel output, not kept: the first {LINES} are)",
                k.dropped
            ));
        }
        lines
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_name_their_launch_and_are_capped() {
        let _ = take();
        launched("k<<<1, 2>>>", &[]);
        launched(
            "k<<<2, 2>>>",
            &["block (1,0,0) thread (0,0,0): i = 2".into()],
        );
        in_host_function("predict", || host("seven\n"));
        host("native");
        assert_eq!(
            take(),
            vec![
                "launch 2 k<<<2, 2>>>: block (1,0,0) thread (0,0,0): i = 2",
                "host function predict: seven",
                "host function: native",
            ]
        );
        // A fresh start: launches count from 1 again, and past LINES lines are counted.
        let many: Vec<String> = (0..LINES + 5).map(|i| format!("t {i}")).collect();
        launched("k<<<9, 32>>>", &many);
        let kept = take();
        assert_eq!(kept.len(), LINES + 1);
        assert_eq!(kept[0], "launch 1 k<<<9, 32>>>: t 0");
        assert!(kept[LINES].contains("5 more lines"), "{}", kept[LINES]);
        assert!(take().is_empty());
    }
}
