//! The size sweep (`bench --sizes 1,4,16,...`): the same bench at several input sizes, one
//! after another, and a summary of how close the best kernel of each element type comes to
//! the read kernel and to CUB at each size.
//!
//! Small inputs are where a histogram's fixed costs show (the launch, zeroing and
//! committing the private bins, the tail of the last wave): at 1 GiB they are a rounding
//! error, at 16 MiB they can be most of the time. The sweep writes each size's full
//! report (`size-<MiB>/bench.json`) and `sizes.json` with every size's rows, which the
//! book's tables read.

use crate::report::{Report, Row};
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

/// Runs a chapter's bench at each of `sizes` (bytes), one after another: `run(bytes,
/// out_dir)` is the bench at that size, `out_dir` the size's own folder under `out_dir`.
pub fn sweep(
    sizes: &[u64],
    out_dir: &Path,
    progress: &mut dyn FnMut(&str),
    mut run: impl FnMut(u64, PathBuf, &mut dyn FnMut(&str)) -> Report,
) -> SizeSweep {
    let mut out = SizeSweep::default();
    for &bytes in sizes {
        progress(&format!("size {}", describe(bytes)));
        let dir = out_dir.join(format!("size-{}", describe(bytes)));
        out.runs.push(SizeRun {
            bytes,
            report: run(bytes, dir, progress),
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
            for r in rows.iter().filter(|r| r.is_kernel()) {
                if !groups.contains(&(r.dtype.as_str(), r.input.as_str())) {
                    groups.push((&r.dtype, &r.input));
                }
            }
            for (dtype, input) in groups {
                let here = |r: &Row| r.dtype == dtype && r.input == input;
                let best = fastest(rows, |r| here(r) && r.is_kernel());
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
        crate::report::write_json(dir, "sizes.json", self)
    }

    /// Whether every row of every size was right.
    pub fn all_correct(&self) -> bool {
        self.runs.iter().all(|r| r.report.all_correct())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_named_in_their_unit() {
        assert_eq!(describe(16 << 20), "16MiB");
        assert_eq!(describe(8 << 10), "8KiB");
        assert_eq!(describe(1000), "1000B");
    }

    /// Every size runs once, in order, in its own folder, and the table has a line per size
    /// and element type with the best kernel's time over the read kernel's.
    #[test]
    fn the_sweep_runs_every_size_in_its_folder() {
        let mut dirs = Vec::new();
        let sweep = sweep(
            &[8 << 10, 12 << 10],
            Path::new("out"),
            &mut |_| {},
            |bytes, dir, _| {
                dirs.push(dir);
                let mut r = Report::default();
                for (name, step, ms) in [("read_bandwidth", "ref", 1.0), ("k", "9.9", 2.0)] {
                    r.rows
                        .push(Row::new(name, step, "uniform", "u8", 0, bytes).measured(ms, 1));
                }
                r
            },
        );
        assert_eq!(
            dirs,
            [Path::new("out/size-8KiB"), Path::new("out/size-12KiB")]
        );
        assert_eq!(sweep.runs.len(), 2);
        assert!(sweep.all_correct());
        let table = sweep.table();
        assert!(table.contains("8KiB   u8"), "{table}");
        assert!(table.contains("12KiB  u8"), "{table}");
        assert!(table.contains("2.00"), "{table}");
    }
}
