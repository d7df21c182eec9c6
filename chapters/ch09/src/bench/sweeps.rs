//! The extension sweeps beyond the progression's steps: 9.15's compare-and-swap loop, 9.11
//! to 9.13 (RGB, weighted, joint) and 9.16's strategies at every bin count.

use super::*;

/// 9.15 of the extension sweep ([`extension_steps`]) on the first [`CAS_MAX_BYTES`] of
/// the bytes `d`, checked against the CPU's histogram of that prefix.
pub(super) fn cas_sweep(
    dev: &mut Device,
    d: &[u8],
    input: Input,
    opts: &Options,
    tag: &str,
    progress: &mut dyn FnMut(&str),
    report: &mut Report,
) {
    let d = &d[..d.len().min(CAS_MAX_BYTES)];
    let expected = cpu::threaded(d, U8_BINS, opts.common.cpu_threads);
    let up = match dev.upload(d) {
        Ok(up) => Uploaded::U8(up),
        Err(e) => {
            report.header.notes.push(format!(
                "{tag}: upload failed, histo_cas not run: {}",
                first_line(&e)
            ));
            return;
        }
    };
    for s in extension_steps(dev.props(), d.len()) {
        let row = Row::new(
            s.kernel,
            s.step,
            input.name(),
            "u8",
            U8_BINS,
            d.len() as u64,
        );
        let r = measure_step(dev, &s, &up, &expected, opts).into_row(row);
        progress(&format!("{tag} {} {}: {}", s.step, s.kernel, r.summary()));
        report.rows.push(r);
    }
    if let Uploaded::U8(b) = up {
        drop(dev.free(b));
    }
}

/// 9.11 to 9.13 of the extension sweep on the bytes `d` (uploaded as `up`): `histo_rgb`
/// on `d` as pixels (3 bytes each, 3 x 256 bins), `histo_weighted` on `d` with `f32`
/// weights (256 bins), then `histo_joint` on the pairs
/// `(d[i], d[n/2 + i])` (16 x 16 bins); each checked against [`crate::reference`].
pub(super) fn rgb_and_joint(
    dev: &mut Device,
    up: &DeviceBuffer<u8>,
    d: &[u8],
    opts: &Options,
    tag: &str,
    progress: &mut dyn FnMut(&str),
    report: &mut Report,
) {
    use crate::reference;
    let n = d.len();
    let input = Input::Uniform.name();

    // 9.11: RGB, one block-private copy of the three channels.
    let bins = 3 * U8_BINS;
    let expected = reference::rgb_histogram(d, U8_BINS);
    let shape = Shape::new(device_grid(dev.props(), n / 3, BLOCK, COARSEN), BLOCK).with_bins(bins);
    let k = solutions::ch09::histo_rgb::KERNEL;
    let m = match dev.alloc::<u32>(bins as usize) {
        Ok(out) => {
            let args = (up.slice(), out.slice());
            let m = measure_kernel(
                dev,
                &k,
                shape.config(),
                args,
                &out,
                &expected,
                &opts.common.budget(),
            );
            let _ = dev.free(out);
            m
        }
        Err(e) => Measured::Failed(format!("alloc failed: {}", first_line(&e))),
    };
    let r = m.into_row(Row::new("histo_rgb", "9.11", input, "u8", bins, n as u64));
    progress(&format!("{tag} 9.11 histo_rgb: {}", r.summary()));
    report.rows.push(r);

    // 9.12: weighted, f32 weights in quarters from -2 to 2 (as the exercise's check),
    // compared with the f64 sums within a relative tolerance.
    let bins = U8_BINS;
    let mut rng = course::Rng::new(opts.common.runs.seed ^ 0x12);
    let weights: Vec<f32> = (0..n).map(|_| (rng.below(17) as f32 - 8.0) / 4.0).collect();
    let expected = reference::weighted_histogram(d, &weights, bins);
    let check = |got: &[f32]| weighted_difference(&expected, got);
    let shape = Shape::new(device_grid(dev.props(), n, BLOCK, COARSEN), BLOCK).with_bins(bins);
    let k = solutions::ch09::histo_weighted::KERNEL;
    let m = match (dev.upload(&weights), dev.alloc::<f32>(bins as usize)) {
        (Ok(ws), Ok(out)) => {
            let args = (up.slice(), ws.slice(), out.slice());
            let m = measure_checked(
                dev,
                &k,
                shape.config(),
                args,
                &out,
                &check,
                &opts.common.budget(),
            );
            let _ = dev.free(out);
            let _ = dev.free(ws);
            m
        }
        (ws, out) => {
            let mut why = Vec::new();
            match ws {
                Ok(b) => drop(dev.free(b)),
                Err(e) => why.push(first_line(&e)),
            }
            match out {
                Ok(b) => drop(dev.free(b)),
                Err(e) => why.push(first_line(&e)),
            }
            Measured::Failed(format!("upload or alloc failed: {}", why.join("; ")))
        }
    };
    drop(weights);
    let r = m.into_row(Row::new(
        "histo_weighted",
        "9.12",
        input,
        "u8",
        bins,
        5 * n as u64,
    ));
    progress(&format!("{tag} 9.12 histo_weighted: {}", r.summary()));
    report.rows.push(r);

    // 9.13: joint, 16 x 16 bins over the pairs of the two halves.
    let (bins_x, bins_y) = (16u32, 16u32);
    let bins = bins_x * bins_y;
    let half = n / 2;
    let (x, y) = (&d[..half], &d[half..2 * half]);
    let expected = reference::joint_histogram(x, y, bins_x, bins_y);
    let shape = Shape::new(device_grid(dev.props(), half, BLOCK, COARSEN), BLOCK).with_bins(bins);
    let k = solutions::ch09::histo_joint::KERNEL;
    let m = match (
        dev.upload(x),
        dev.upload(y),
        dev.alloc::<u32>(bins as usize),
    ) {
        (Ok(xs), Ok(ys), Ok(out)) => {
            let args = (xs.slice(), ys.slice(), out.slice(), bins_x);
            let m = measure_kernel(
                dev,
                &k,
                shape.config(),
                args,
                &out,
                &expected,
                &opts.common.budget(),
            );
            let _ = dev.free(out);
            let _ = dev.free(xs);
            let _ = dev.free(ys);
            m
        }
        (xs, ys, out) => {
            let mut why = Vec::new();
            match xs {
                Ok(b) => drop(dev.free(b)),
                Err(e) => why.push(first_line(&e)),
            }
            match ys {
                Ok(b) => drop(dev.free(b)),
                Err(e) => why.push(first_line(&e)),
            }
            match out {
                Ok(b) => drop(dev.free(b)),
                Err(e) => why.push(first_line(&e)),
            }
            Measured::Failed(format!("upload or alloc failed: {}", why.join("; ")))
        }
    };
    let r = m.into_row(Row::new(
        "histo_joint",
        "9.13",
        input,
        "u8",
        bins,
        2 * half as u64,
    ));
    progress(&format!(
        "{tag} 9.13 histo_joint (16 x 16 bins): {}",
        r.summary()
    ));
    report.rows.push(r);
}

/// 9.16's strategy sweep: uniform `u32` values (a quarter of `opts.common.runs.size_bytes`) at every
/// bin count of [`STRATEGY_BINS`], every applicable strategy checked against the CPU's
/// histogram and timed.
pub(super) fn strategy_sweep(
    dev: &mut Device,
    opts: &Options,
    progress: &mut dyn FnMut(&str),
    report: &mut Report,
) {
    let input = Input::Uniform;
    let n = (opts.common.runs.size_bytes / 4) as usize;
    for bins in STRATEGY_BINS {
        let tag = format!("[u32 {} {bins} bins]", input.name());
        progress(&format!(
            "{tag} generating {} MiB",
            opts.common.runs.size_bytes >> 20
        ));
        let d = data::values(input, n, bins, opts.common.runs.seed, &opts.text.0);
        let expected = cpu::threaded(&d, bins, opts.common.cpu_threads);
        let up = match dev.upload(&d) {
            Ok(up) => Uploaded::U32(up),
            Err(e) => {
                report.header.notes.push(format!(
                    "{tag}: upload failed, GPU kernels not run: {}",
                    first_line(&e)
                ));
                continue;
            }
        };
        for s in strategy_steps(dev.props(), n, bins) {
            let m = measure_step(dev, &s, &up, &expected, opts);
            let row = Row::new(s.kernel, s.step, input.name(), "u32", bins, 4 * n as u64);
            let r = m.into_row(row);
            progress(&format!("{tag} {} {}: {}", s.step, s.kernel, r.summary()));
            report.rows.push(r);
        }
        if let Uploaded::U32(d) = up {
            drop(dev.free(d));
        }
    }
}
