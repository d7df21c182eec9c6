//! The libraries a user would pick instead of writing a kernel, run in the same bench on
//! the same input: CUB (a small CUDA C++ program per chapter, `bench/cub_*.cu`, compiled
//! with `nvcc` where the GPU is) and PyTorch (`bench/torch_*.py`, where PyTorch is). A
//! chapter names its anchors ([`Source`]): chapter 9's are [`CUB_HISTOGRAM`] and
//! [`TORCH_BINCOUNT`].
//!
//! Each takes the input as a raw file, times its call with CUDA events after warm-ups,
//! and prints one JSON object with the median and the result, which the bench checks like
//! any other. The sources are compiled into the chapter's binary, so the bench can write
//! them out and use them on a machine that has only the binary.

use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::process::Command;

/// An anchor's program: its file name (in `bench/` of the course) and its text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Source {
    /// The file's name, `cub_histogram.cu`.
    pub file: &'static str,
    /// Its text, compiled into the binary.
    pub text: &'static str,
}

impl Source {
    /// The name without its extension: the compiled program's, `cub_histogram`.
    pub fn stem(&self) -> &'static str {
        self.file.split_once('.').map_or(self.file, |(s, _)| s)
    }
}

/// `cub::DeviceHistogram::HistogramEven` (compiled with nvcc when no binary is given).
pub const CUB_HISTOGRAM: Source = Source {
    file: "cub_histogram.cu",
    text: include_str!("../../../bench/cub_histogram.cu"),
};
/// `torch.bincount`.
pub const TORCH_BINCOUNT: Source = Source {
    file: "torch_bincount.py",
    text: include_str!("../../../bench/torch_bincount.py"),
};
/// `cub::DeviceReduce::Sum`, `u32` and `f32` (chapter 10's anchor).
pub const CUB_REDUCE: Source = Source {
    file: "cub_reduce.cu",
    text: include_str!("../../../bench/cub_reduce.cu"),
};
/// `torch.sum` (chapter 10's).
pub const TORCH_SUM: Source = Source {
    file: "torch_sum.py",
    text: include_str!("../../../bench/torch_sum.py"),
};

/// Where an external implementation comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tool {
    /// Found or built by the bench (CUB: compiled with `nvcc` from PATH; PyTorch: the
    /// embedded script run with `python3`); skipped with a note when impossible.
    Auto,
    /// This program (CUB) or script (PyTorch).
    Path(PathBuf),
    /// Not run.
    Off,
}

/// An anchor ready to run ([`tools`]): its path, why it cannot run, or `None` when off.
pub type Ready = Option<Result<PathBuf, String>>;

/// A chapter's two anchors, CUB's program and PyTorch's script, as `[(source, where it
/// comes from, its name in notes); 2]`, ready to run: `None` when off, `Err` (also
/// recorded in `notes`) when it cannot run here. CUB is compiled with `nvcc` into
/// `work_dir` for compute capability `arch` when no program is given; PyTorch needs
/// `python` on PATH.
pub fn tools(
    [(cub_src, cub, cub_name), (torch_src, torch, torch_name)]: [(&Source, &Tool, &str); 2],
    python: &str,
    work_dir: &Path,
    arch: (u32, u32),
    notes: &mut Vec<String>,
) -> (Ready, Ready) {
    let cub = match cub {
        Tool::Off => None,
        Tool::Path(p) => Some(cub_binary(cub_src, Some(p), work_dir, (0, 0))),
        Tool::Auto => Some(cub_binary(cub_src, None, work_dir, arch)),
    };
    if let Some(Err(why)) = &cub {
        notes.push(format!("{cub_name} not run: {why}"));
    }
    let torch = match torch {
        Tool::Off => None,
        _ if !on_path(python) => {
            notes.push(format!("{torch_name} not run: {python} is not on PATH"));
            None
        }
        Tool::Path(p) => Some(torch_script(torch_src, Some(p), work_dir)),
        Tool::Auto => Some(torch_script(torch_src, None, work_dir)),
    };
    if let Some(Err(why)) = &torch {
        notes.push(format!("{torch_name} not run: {why}"));
    }
    (cub, torch)
}

/// The command that runs an anchor: `python SCRIPT` for PyTorch (step `torch`), the
/// program for CUB.
pub fn command(python: &str, step: &str, path: &Path) -> Command {
    if step == "torch" {
        let mut c = Command::new(python);
        c.arg(path);
        c
    } else {
        Command::new(path)
    }
}

/// Runs the anchor of `step` at `path` on `file` (`dtype` and `bins` as its arguments)
/// with the budget's warm-ups and repetitions. From 256 MiB (`bytes`) on, a first call
/// (warm-up 0, one run) sizes the rest to the budget: CUB on 4 GiB of u32 values took
/// 12.6 s a call on an H100, 23 calls 5 minutes.
pub fn run_sized(
    python: &str,
    step: &str,
    path: &Path,
    file: &Path,
    (dtype, bins): (&str, u32),
    b: &crate::measure::Budget,
    bytes: u64,
) -> Outcome {
    let (mut warmup, mut reps) = (b.runs.warmup, b.runs.reps);
    if bytes >= 256 << 20 {
        let mut probe = command(python, step, path);
        probe.args(args(file, dtype, bins, 0, 1));
        if let Outcome::Ran { median_ms, .. } = run(probe) {
            (warmup, reps) = crate::plan(
                std::time::Duration::from_secs_f64(median_ms / 1e3),
                warmup,
                reps,
                b.budget,
            );
        }
    }
    let mut cmd = command(python, step, path);
    cmd.args(args(file, dtype, bins, warmup, reps));
    run(cmd)
}

/// How a chapter runs its anchors on one input: the Python for PyTorch, where the input
/// file goes (`tmp_dir`, else `/dev/shm` or the system's), the chapter's name for the file,
/// and the budget.
#[derive(Clone, Copy, Debug)]
pub struct Runner<'a> {
    /// The Python interpreter for PyTorch.
    pub python: &'a str,
    /// Where the input file is written (`--tmp`).
    pub tmp_dir: Option<&'a PathBuf>,
    /// The chapter (`ch09`), in the file's name.
    pub chapter: &'a str,
    /// Warm-ups, repetitions and time per case.
    pub budget: crate::measure::Budget,
}

/// Why an anchor's result (its bins, its sum) is wrong, if it is (`None`: right).
pub type Check<'a> = dyn Fn(&[u64], Option<f64>) -> Option<String> + 'a;

/// Runs the anchors `tools` (`(name, step, ready)`, as [`tools`] made them) on `data`,
/// written once to a file, with `dtype` and `bins` as their arguments, and returns a row
/// each (`row(name, step)`): timed when `check(bins, sum)` finds nothing wrong, else why
/// not. `tag` prefixes the progress lines; a file that cannot be written is a note.
#[allow(clippy::too_many_arguments)]
pub fn run_anchors(
    tools: [(&str, &str, &Ready); 2],
    data: &crate::measure::HostData,
    (dtype, bins): (&str, u32),
    how: &Runner,
    tag: &str,
    row: &dyn Fn(&str, &str) -> crate::report::Row,
    check: &Check,
    notes: &mut Vec<String>,
    progress: &mut dyn FnMut(&str),
) -> Vec<crate::report::Row> {
    use crate::report::{SKIPPED, WRONG};
    let tools: Vec<(&str, &str, &Result<PathBuf, String>)> = tools
        .into_iter()
        .filter_map(|(n, s, t)| t.as_ref().map(|t| (n, s, t)))
        .collect();
    if !tools.iter().any(|(_, _, t)| t.is_ok()) {
        return Vec::new();
    }
    let file = match crate::reference::write_input(data, how.tmp_dir, how.chapter, tag) {
        Ok(f) => f,
        Err(why) => {
            notes.push(format!("{tag}: {why}; CUB and PyTorch not run"));
            return Vec::new();
        }
    };
    let mut rows = Vec::new();
    for (name, step, tool) in &tools {
        let Ok(path) = tool else { continue };
        progress(&format!("{tag} {name}"));
        let ran = run_sized(
            how.python,
            step,
            path,
            &file,
            (dtype, bins),
            &how.budget,
            data.len_bytes(),
        );
        let r = match ran {
            Outcome::Ran {
                median_ms,
                reps,
                bins,
                sum,
            } => match check(&bins, sum) {
                Some(d) => row(name, step).failed(format!("{WRONG}: {d}")),
                None => row(name, step).measured(median_ms, reps),
            },
            Outcome::Skipped(why) => row(name, step).failed(format!("{SKIPPED}: {why}")),
            Outcome::Failed(why) => row(name, step).failed(why),
        };
        progress(&format!("{tag} {name}: {}", r.summary()));
        rows.push(r);
    }
    let _ = std::fs::remove_file(&file);
    rows
}

/// What an external implementation gave.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// It ran: its median time and its result.
    Ran {
        /// Median of its timed calls, milliseconds.
        median_ms: f64,
        /// Its timed calls.
        reps: u32,
        /// The histogram it computed (empty for a reduction).
        bins: Vec<u64>,
        /// The sum it computed (a reduction's anchor; `None` for a histogram's).
        sum: Option<f64>,
    },
    /// It could not run here (no PyTorch, no GPU for it): why.
    Skipped(String),
    /// It ran and failed: why.
    Failed(String),
}

/// Runs `program args…`, and reads the last line of its stdout as the JSON result.
pub fn run(mut cmd: Command) -> Outcome {
    let shown = format!("{cmd:?}");
    let out = match cmd.output() {
        Ok(o) => o,
        Err(e) => return Outcome::Failed(format!("cannot run {shown}: {e}")),
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        let why = stderr
            .lines()
            .chain(stdout.lines())
            .rfind(|l| !l.trim().is_empty());
        return Outcome::Failed(format!(
            "{} ({})",
            why.unwrap_or("no message").trim(),
            out.status
        ));
    }
    let Some(line) = stdout.lines().rfind(|l| l.trim_start().starts_with('{')) else {
        return Outcome::Failed(format!("no JSON result on its output: {}", stdout.trim()));
    };
    parse(line)
}

/// One result line of a reference program, as its JSON reads.
#[derive(Deserialize)]
#[serde(untagged)]
enum Line {
    /// `{"skipped": "why"}`.
    Skipped { skipped: String },
    /// `{"median_ms": …, "reps": …, "bins": […]}` (other fields, `impl`, ignored).
    Ran {
        median_ms: f64,
        reps: u32,
        bins: Vec<u64>,
        #[serde(default)]
        sum: Option<f64>,
    },
}

/// Reads one result line: `{"median_ms": …, "reps": …, "bins": […]}` or
/// `{"skipped": "why"}`; anything else (a field missing or of the wrong type) is a
/// failure that quotes the line.
pub fn parse(line: &str) -> Outcome {
    match serde_json::from_str::<Line>(line) {
        Ok(Line::Skipped { skipped }) => Outcome::Skipped(skipped),
        Ok(Line::Ran {
            median_ms,
            reps,
            bins,
            sum,
        }) => Outcome::Ran {
            median_ms,
            reps,
            bins,
            sum,
        },
        Err(e) if line.trim_start().starts_with('{') => Outcome::Failed(format!(
            "a result without median_ms, reps and bins, or skipped ({e}): {line}"
        )),
        Err(e) => Outcome::Failed(format!("unreadable result ({e}): {line}")),
    }
}

/// Whether `program` can be found on `PATH` (or is a path to a file).
pub fn on_path(program: &str) -> bool {
    if program.contains('/') {
        return Path::new(program).is_file();
    }
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join(program).is_file()))
}

/// The CUB program of `source`: `given`, else compiled with `nvcc` into `dir` for the GPU's
/// architecture (`sm_XY` from its compute capability), reusing an earlier build of the
/// same source. `Err` says why there is none.
pub fn cub_binary(
    source: &Source,
    given: Option<&Path>,
    dir: &Path,
    arch: (u32, u32),
) -> Result<PathBuf, String> {
    if let Some(p) = given {
        return if p.is_file() {
            Ok(p.to_path_buf())
        } else {
            Err(format!("--cub {}: no such file", p.display()))
        };
    }
    if !on_path("nvcc") {
        return Err(format!(
            "nvcc is not on PATH: compile bench/{} with \
             `nvcc -O3 -arch=sm_90 -o {} {}` and pass --cub PATH",
            source.file,
            source.stem(),
            source.file
        ));
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let src = dir.join(source.file);
    let bin = dir.join(source.stem());
    let arch = format!("sm_{}{}", arch.0, arch.1);
    let stamp = dir.join(format!("{}.arch", source.stem()));
    let fresh = std::fs::read_to_string(&src).is_ok_and(|s| s == source.text)
        && std::fs::read_to_string(&stamp).is_ok_and(|s| s == arch)
        && bin.is_file();
    if fresh {
        return Ok(bin);
    }
    std::fs::write(&src, source.text)
        .map_err(|e| format!("cannot write {}: {e}", src.display()))?;
    eprintln!(
        "bench: compiling {} with nvcc for {arch} (once; takes a minute)",
        src.display()
    );
    let out = Command::new("nvcc")
        .args(["-O3", &format!("-arch={arch}"), "-o"])
        .arg(&bin)
        .arg(&src)
        .output()
        .map_err(|e| format!("cannot run nvcc: {e}"))?;
    if !out.status.success() {
        let log = String::from_utf8_lossy(&out.stderr);
        return Err(format!(
            "nvcc failed ({}): {}",
            out.status,
            log.lines()
                .rfind(|l| !l.trim().is_empty())
                .unwrap_or("no message")
        ));
    }
    let _ = std::fs::write(&stamp, &arch);
    Ok(bin)
}

/// The PyTorch script of `source`: `given`, else its text written into `dir`.
pub fn torch_script(source: &Source, given: Option<&Path>, dir: &Path) -> Result<PathBuf, String> {
    if let Some(p) = given {
        return if p.is_file() {
            Ok(p.to_path_buf())
        } else {
            Err(format!("--torch {}: no such file", p.display()))
        };
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let path = dir.join(source.file);
    std::fs::write(&path, source.text)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(path)
}

/// The arguments both programs take after their own path: `FILE u8|u32 BINS WARMUP REPS`.
pub fn args(file: &Path, dtype: &str, bins: u32, warmup: u32, reps: u32) -> Vec<String> {
    vec![
        file.display().to_string(),
        dtype.to_string(),
        bins.to_string(),
        warmup.to_string(),
        reps.max(1).to_string(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_are_read() {
        assert_eq!(
            parse(r#"{"impl":"x","median_ms":0.5,"reps":20,"bins":[1,2,3]}"#),
            Outcome::Ran {
                median_ms: 0.5,
                reps: 20,
                bins: vec![1, 2, 3],
                sum: None,
            }
        );
        assert_eq!(
            parse(r#"{"impl":"torch.bincount","skipped":"no CUDA device"}"#),
            Outcome::Skipped("no CUDA device".into())
        );
        assert_eq!(
            parse(r#"{"impl":"torch.sum","median_ms":0.25,"reps":2,"bins":[],"sum":-1.5e9}"#),
            Outcome::Ran {
                median_ms: 0.25,
                reps: 2,
                bins: vec![],
                sum: Some(-1.5e9),
            }
        );
        assert!(CUB_REDUCE.text.contains("DeviceReduce::Sum"));
        assert!(TORCH_SUM.text.contains("torch.sum"));
        assert!(matches!(parse("{}"), Outcome::Failed(_)));
        assert!(matches!(parse("nope"), Outcome::Failed(_)));
        assert!(CUB_HISTOGRAM.text.contains("HistogramEven"));
        assert!(TORCH_BINCOUNT.text.contains("bincount"));
        assert_eq!(CUB_HISTOGRAM.stem(), "cub_histogram");
    }

    #[test]
    fn programs_are_run() {
        let mut ok = Command::new("sh");
        ok.args([
            "-c",
            r#"echo progress; echo '{"median_ms":1.5,"reps":3,"bins":[4]}'"#,
        ]);
        assert_eq!(
            run(ok),
            Outcome::Ran {
                median_ms: 1.5,
                reps: 3,
                bins: vec![4],
                sum: None,
            }
        );
        let mut bad = Command::new("sh");
        bad.args(["-c", "echo 'cub_histogram: cannot open x' >&2; exit 2"]);
        match run(bad) {
            Outcome::Failed(why) => assert!(why.contains("cannot open x"), "{why}"),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            run(Command::new("/no/such/program")),
            Outcome::Failed(_)
        ));
        assert!(on_path("sh"));
        assert!(!on_path("no-such-program-bench"));
    }
}
