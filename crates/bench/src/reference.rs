//! The limit every row is a percentage of, measured in the same run on the same input: a
//! read-only kernel with 16-byte loads and a device-to-device copy; and the input written
//! once to a file for the external anchors.

use crate::measure::{Budget, HostData, Uploaded, first_line};
use crate::report::{Report, Row, WRONG};
use crate::{BLOCK, median, plan};
use gpu_host::{Device, LaunchConfig};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Measures the two references on the uploaded input (named `input` in the rows) and
/// records them in the header and as rows.
pub fn read_bandwidth(
    dev: &mut Device,
    up: &Uploaded,
    data: &HostData,
    input: &str,
    opts: &Budget,
    report: &mut Report,
) {
    let bytes = data.len_bytes();
    let src = up.bytes();
    let vectors = (bytes / 16) as usize;
    let want_xor = data.vector_xor();
    let props = dev.props().clone();
    let resident = props.sm_count * props.blocks_per_sm(BLOCK);
    // No more blocks than give each thread four vectors (a short input), at least one.
    let needed = vectors.div_ceil(BLOCK as usize * 4).max(1) as u32;
    let mut best: Option<(f64, u32, u32, u32)> = None;
    let mut notes = Vec::new();
    let k = solutions::bench::read_bandwidth::KERNEL;
    for waves in [1u32, 2, 4] {
        let grid = (resident * waves).min(needed);
        if best.is_some_and(|b| b.1 == grid) {
            continue;
        }
        let sink = match dev.alloc::<u32>((grid * BLOCK) as usize) {
            Ok(s) => s,
            Err(e) => {
                notes.push(format!("read kernel: alloc failed: {}", first_line(&e)));
                break;
            }
        };
        let cfg = LaunchConfig::linear(grid, BLOCK);
        let args = (src, sink.slice());
        let m = (|| -> Result<(Duration, u32), String> {
            let wall = Instant::now();
            let probe = dev.launch(&k, cfg, args).map_err(|e| first_line(&e))?;
            let probe = probe.gpu_time.unwrap_or_else(|| wall.elapsed());
            let got = dev.download(&sink).map_err(|e| first_line(&e))?;
            let xor = got.iter().fold(0, |x, &w| x ^ w);
            if xor != want_xor {
                return Err(format!(
                    "{WRONG}: the read kernel's XOR is {xor:#010x}, the input's {want_xor:#010x}"
                ));
            }
            let (warmup, reps) = plan(probe, opts.runs.warmup, opts.runs.reps, opts.budget);
            let times = dev
                .time_launches(&k, cfg, args, warmup, reps)
                .map_err(|e| first_line(&e))?;
            Ok((median(&times), reps))
        })();
        let _ = dev.free(sink);
        match m {
            Ok((t, reps)) => {
                let gbps = bytes as f64 / t.as_secs_f64() / 1e9;
                if best.is_none_or(|b| gbps > b.0) {
                    best = Some((gbps, grid, waves, reps));
                }
            }
            Err(why) => notes.push(format!("read kernel <<<{grid}, {BLOCK}>>>: {why}")),
        }
    }
    let mut row = Row::new(
        "read_bandwidth (16-byte loads)",
        "ref",
        input,
        "u8",
        0,
        bytes,
    );
    row = match best {
        Some((gbps, grid, waves, reps)) => {
            report.header.read_kernel_gbps = Some(gbps);
            report.header.read_kernel_launch = format!(
                "<<<{grid}, {BLOCK}>>> ({waves} wave(s) of resident blocks; the best of 1, 2, 4)"
            );
            row.measured(bytes as f64 / gbps / 1e6, reps).noted(format!(
                "<<<{grid}, {BLOCK}>>>, the best of 1, 2 and 4 waves"
            ))
        }
        None => row.failed(notes.join("; ")),
    };
    report.rows.push(row);

    // The copy: read + write bytes.
    let mut row = Row::new(
        "cuMemcpyDtoD (read + write bytes)",
        "ref",
        input,
        "u8",
        0,
        2 * bytes,
    );
    let copied = (|| -> Result<(Duration, u32), String> {
        let dst = match up {
            Uploaded::U8(d) => dev.alloc::<u8>(d.len() as usize).map(Uploaded::U8),
            Uploaded::U32(d) => dev.alloc::<u32>(d.len() as usize).map(Uploaded::U32),
        }
        .map_err(|e| first_line(&e))?;
        let timed = |dev: &mut Device, w: u32, r: u32| match (&dst, up) {
            (Uploaded::U8(a), Uploaded::U8(b)) => dev.time_device_copies(a, b, w, r),
            (Uploaded::U32(a), Uploaded::U32(b)) => dev.time_device_copies(a, b, w, r),
            _ => Ok(Vec::new()),
        };
        let result = (|| {
            let probe = median(&timed(dev, 0, 1).map_err(|e| first_line(&e))?);
            let (warmup, reps) = plan(probe, opts.runs.warmup, opts.runs.reps, opts.budget);
            let times = timed(dev, warmup, reps).map_err(|e| first_line(&e))?;
            let same = match &dst {
                Uploaded::U8(a) => dev.download(a).map(|v| HostData::U8(v).vector_xor()),
                Uploaded::U32(a) => dev.download(a).map(|v| HostData::U32(v).vector_xor()),
            }
            .map_err(|e| first_line(&e))?
                == want_xor;
            if !same {
                return Err(format!("{WRONG}: the copy differs from its source"));
            }
            Ok((median(&times), reps))
        })();
        match dst {
            Uploaded::U8(d) => drop(dev.free(d)),
            Uploaded::U32(d) => drop(dev.free(d)),
        }
        result
    })();
    row = match copied {
        Ok((t, reps)) => {
            let r = row.measured(t.as_secs_f64() * 1e3, reps);
            report.header.copy_gbps = r.rate.gbps;
            r
        }
        Err(why) => row.failed(why),
    };
    report.rows.push(row);
    report.header.read_bw_gbps = match (report.header.read_kernel_gbps, report.header.copy_gbps) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    };
    report.header.notes.extend(notes);
}

/// Writes the input for CUB and PyTorch, named after `chapter` and `tag`: into `tmp_dir`
/// (`--tmp`), else `/dev/shm` (memory, fast), else the system's temporary directory when
/// `/dev/shm` is missing or too small.
pub fn write_input(
    data: &HostData,
    tmp_dir: Option<&PathBuf>,
    chapter: &str,
    tag: &str,
) -> Result<PathBuf, String> {
    let name = format!(
        "{chapter}-bench-{}-{}.bin",
        std::process::id(),
        tag.trim_matches(['[', ']']).replace(' ', "-")
    );
    let dirs: Vec<PathBuf> = match tmp_dir {
        Some(d) => vec![d.clone()],
        None => vec![PathBuf::from("/dev/shm"), std::env::temp_dir()],
    };
    let bytes = data.bytes();
    let mut why = Vec::new();
    for d in dirs {
        if !d.is_dir() {
            continue;
        }
        let path = d.join(&name);
        match std::fs::write(&path, &bytes) {
            Ok(()) => return Ok(path),
            Err(e) => {
                let _ = std::fs::remove_file(&path);
                why.push(format!("{}: {e}", path.display()));
            }
        }
    }
    Err(format!("cannot write the input file ({})", why.join("; ")))
}
