//! The size sweep (`bench --sizes 1,4,16,...`): the same bench at several input sizes, one
//! after another, and a summary of how close the best kernel of each element type comes to
//! the read kernel and to CUB at each size.
//!
//! Small inputs are where a histogram's fixed costs show (the launch, zeroing and
//! committing the private bins, the tail of the last wave): at 1 GiB they are a rounding
//! error, at 16 MiB they can be most of the time. The sweep writes each size's full
//! report (`size-<MiB>/bench.json`) and `sizes.json` with every size's rows, which the
//! book's tables read.

use super::report::{Report, Row};
use super::{Options, run_on};
use gpu_host::Device;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// One size's report.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SizeRun {
    /// Bytes of every input.
    pub bytes: u64,
    /// The bench at that size.
    pub report: Report,
}

/// The sweep: every size's report, in the order run.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct SizeSweep {
    /// One report per size.
    pub runs: Vec<SizeRun>,
}

/// Runs the bench of `opts` at each of `sizes` (bytes) on `dev`.
pub fn sweep(
    dev: &mut Device,
    opts: &Options,
    sizes: &[u64],
    progress: &mut dyn FnMut(&str),
) -> SizeSweep {
    let mut out = SizeSweep::default();
    for &bytes in sizes {
        progress(&format!("size {}", describe(bytes)));
        let o = Options {
            runs: chapter::timing::BenchRuns {
                size_bytes: bytes,
                ..opts.runs
            },
            out_dir: opts.out_dir.join(format!("size-{}", describe(bytes))),
            ..opts.clone()
        };
        out.runs.push(SizeRun {
            bytes,
            report: run_on(dev, &o, progress),
        });
    }
    out
}

/// `16MiB`, `8KiB`, `100B`: a size as the sweep's folders and tables name it.
pub fn describe(bytes: u64) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{}MiB", bytes >> 20)
    } else if bytes >= 1 << 10 && bytes.is_multiple_of(1 << 10) {
        format!("{}KiB", bytes >> 10)
    } else {
        format!("{bytes}B")
    }
}

/// The fastest correct row of `rows` for which `pick` holds, by median time.
fn fastest(rows: &[Row], pick: impl Fn(&Row) -> bool) -> Option<&Row> {
    rows.iter()
        .filter(|r| r.correct && r.rate.median_ms.is_some() && pick(r))
        .min_by(|a, b| {
            a.rate
                .median_ms
                .partial_cmp(&b.rate.median_ms)
                .expect("times are numbers")
        })
}

impl SizeSweep {
    /// Per size, element type and input: the read kernel's time, the best GPU step's time
    /// and kernel, their ratio and difference, and CUB's time when it ran.
    pub fn table(&self) -> String {
        let mut cells = vec![
            [
                "size",
                "type",
                "input",
                "best kernel",
                "read µs",
                "µs",
                "x read",
                "+µs",
                "CUB µs",
            ]
            .map(String::from)
            .to_vec(),
        ];
        for run in &self.runs {
            let rows = &run.report.rows;
            let read = fastest(rows, |r| r.implementation.starts_with("read_bandwidth"));
            let mut groups: Vec<(&str, &str)> = Vec::new();
            for r in rows.iter().filter(|r| r.step.starts_with("9.")) {
                if !groups.contains(&(r.dtype.as_str(), r.input.as_str())) {
                    groups.push((&r.dtype, &r.input));
                }
            }
            for (dtype, input) in groups {
                let here = |r: &Row| r.dtype == dtype && r.input == input;
                let best = fastest(rows, |r| here(r) && r.step.starts_with("9."));
                let cub = fastest(rows, |r| here(r) && r.step == "cub");
                let us = |r: Option<&Row>| r.and_then(|r| r.rate.median_ms).map(|ms| ms * 1e3);
                let (t_read, t_best) = (us(read), us(best));
                let f1 = |v: Option<f64>| v.map_or("-".into(), |v| format!("{v:.1}"));
                cells.push(vec![
                    describe(run.bytes),
                    dtype.into(),
                    input.into(),
                    best.map_or("-".into(), |r| r.implementation.clone()),
                    f1(t_read),
                    f1(t_best),
                    match (t_best, t_read) {
                        (Some(b), Some(r)) => format!("{:.2}", b / r),
                        _ => "-".into(),
                    },
                    f1(t_best.zip(t_read).map(|(b, r)| b - r)),
                    f1(us(cub)),
                ]);
            }
        }
        chapter::table::render(&cells, 4)
    }

    /// Writes `sizes.json` (every size's header and rows) into `dir`; each size's own
    /// `bench.csv` and `bench.json` go to `dir/size-<size>/`. Returns the summary's path.
    pub fn write(&self, dir: &Path) -> std::io::Result<PathBuf> {
        std::fs::create_dir_all(dir)?;
        for run in &self.runs {
            run.report
                .write(&dir.join(format!("size-{}", describe(run.bytes))))?;
        }
        let path = dir.join("sizes.json");
        let json = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        std::fs::write(&path, json + "\n")?;
        Ok(path)
    }

    /// Whether every row of every size was right.
    pub fn all_correct(&self) -> bool {
        self.runs.iter().all(|r| r.report.all_correct())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::{Dtype, Input, Tool};
    use std::time::Duration;

    #[test]
    fn the_sweep_runs_every_size_and_writes_them() {
        let dir = std::env::temp_dir().join(format!("ch09-sizes-test-{}", std::process::id()));
        let opts = Options {
            runs: chapter::timing::BenchRuns {
                warmup: 0,
                reps: 1,
                ..Options::default().runs
            },
            budget: Duration::from_secs(60),
            dtypes: vec![Dtype::U8, Dtype::U32],
            inputs: vec![Input::Uniform],
            steps: vec!["9.9".into(), "9.14".into()],
            cpu: false,
            cub: Tool::Off,
            torch: Tool::Off,
            out_dir: dir.clone(),
            ..Options::default()
        };
        let sweep = sweep(
            &mut Device::emulator(),
            &opts,
            &[8 << 10, 12 << 10],
            &mut |_| {},
        );
        assert!(sweep.all_correct());
        assert_eq!(sweep.runs.len(), 2);
        for (run, bytes) in sweep.runs.iter().zip([8u64 << 10, 12 << 10]) {
            assert_eq!(run.bytes, bytes);
            // Every kernel's row is at its size (the copy reference counts read + write).
            let kernels: Vec<&Row> = run
                .report
                .rows
                .iter()
                .filter(|r| r.step.starts_with("9."))
                .collect();
            assert_eq!(kernels.len(), 4, "{:?}", run.report.rows);
            assert!(kernels.iter().all(|r| r.rate.bytes == bytes), "{kernels:?}");
        }
        let table = sweep.table();
        // Which kernel is fastest on the emulator says nothing: only that each size and
        // type has a row.
        for want in ["8KiB   u8", "8KiB   u32", "12KiB  u8", "12KiB  u32"] {
            assert!(table.contains(want), "{want} not in\n{table}");
        }
        let json = sweep.write(&dir).unwrap();
        // It reads back into its own type (as the book's figures read it), the same.
        let back: SizeSweep =
            serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
        assert_eq!(back.runs[1].bytes, 12 << 10);
        assert_eq!(back.runs[1].report.rows, sweep.runs[1].report.rows);
        assert!(dir.join("size-8KiB").join("bench.json").exists());
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn sizes_are_named_in_their_unit() {
        assert_eq!(describe(16 << 20), "16MiB");
        assert_eq!(describe(8 << 10), "8KiB");
        assert_eq!(describe(1000), "1000B");
    }
}
