//! Pictures of chapter 9's mechanisms, drawn from the emulator's trace of the reference
//! kernels on inputs small enough to follow by hand (16 to 64 elements, one warp): 9.2's
//! lost updates, 9.6's two thread-to-data mappings, 9.8's `match_any` groups and the
//! shared-memory banks of 9.5 against 9.9's lane columns.
//!
//! Each figure is drawn from what the trace recorded (which lane touched which element in
//! which warp step), and checked against the run's own counters or the input where the two
//! must agree: a figure that no longer matches its run is an error, not a picture.
//! Drawn 420 px wide and shown 335 px wide, a phone's column (390 px) whole, with text of
//! 12.6 px and more in the drawing, so that it is 10 px or more as shown (book/layout.py).

use crate::Figure;
use crate::svg::{Svg, num};
use ch09::inputs::{self, InputKind};
use ch09::kernels::REFERENCE;
use ch09::progression::{self, Params, Row};
use gpu_host::{Config, Device};
use simt::op::Space;
use simt::trace::{AccessKind, Trace, TraceSink, TraceStep};
use std::collections::BTreeMap;

/// The figures' width as drawn (see the module's documentation).
const W: f64 = 420.0;
/// The figures' width as shown: a phone's column.
const SHOWN: f64 = 335.0;
/// The smallest text of these figures, captions included: 10 px as shown.
const SMALL: f64 = 12.6;
/// Eight colours that tell bins apart (the Okabe-Ito palette and two greys).
const BIN_COLOURS: [&str; 8] = [
    "#e69f00", "#56b4e9", "#009e73", "#f0e442", "#0072b2", "#d55e00", "#cc79a7", "#999999",
];

/// Runs `step` of the reference kernels at `p` on a traced emulator: its rows and the
/// trace of each launch, in launch order.
pub fn traced(step: &str, p: &Params) -> (Vec<Row>, Vec<Trace>) {
    let sink = TraceSink::new();
    let mut dev = Device::emulator_with(Config {
        trace: Some(sink.clone()),
        ..Config::default()
    });
    let rows = progression::run(chapter::app::Steps::all(&mut dev, &REFERENCE, p).only(&[step]));
    (rows, sink.take())
}

/// The tiny run of a figure: `n` uniform bytes (seed 9), `bins` bins, blocks of 32.
fn tiny(n: usize, bins: u32, coarsen: u32) -> Params {
    Params {
        n: Some(n),
        bins,
        block: 32,
        grid: None,
        coarsen,
        input: InputKind::Uniform,
        ..Params::default()
    }
}

/// The buffer of `t` in `space` whose elements are `bytes` wide.
fn buffer(t: &Trace, space: Space, bytes: u8) -> Result<u32, String> {
    t.buffers
        .iter()
        .position(|b| b.space == space && b.elem_bytes == bytes)
        .map(|i| i as u32)
        .ok_or_else(|| format!("the trace has no {}-byte buffer in {space:?} memory", bytes))
}

/// The steps of `t` of `kind` on buffer `buf`, block 0 and warp 0, in order.
fn steps(t: &Trace, buf: u32, kind: AccessKind) -> Vec<&TraceStep> {
    t.steps
        .iter()
        .filter(|s| s.buffer == buf && s.kind == kind && s.block == 0 && s.warp == 0)
        .collect()
}

/// The bin of `byte` among `bins` bins (the chapter's `byte_bin`).
fn bin_of(byte: u8, bins: u32) -> u32 {
    ((byte as u32) * bins) >> 8
}

/// `ch09-race-9.2.svg`: one warp of 9.2's naive kernel on 16 bytes into 4 bins. Per lane:
/// its byte, the bin it loaded and the bin it stored; per bin: how many lanes stored to
/// it in one warp step, all the same value, so that one update survives and the others
/// are lost. The sum of the losses must be the run's `lost` counter.
pub fn race_figure() -> Result<Figure, String> {
    let (n, bins) = (16usize, 4u32);
    let p = tiny(n, bins, 1);
    let (rows, traces) = traced("9.2", &p);
    let row = rows.first().ok_or("9.2 gave no row")?;
    let t = traces.first().ok_or("9.2 launched nothing")?;
    let data = inputs::bytes(&p.input, n, p.seed);
    let h = buffer(t, Space::Global, 4)?;
    let loads = steps(t, h, AccessKind::Load);
    let stores = steps(t, h, AccessKind::Store);
    let (Some(load), Some(store)) = (loads.first(), stores.first()) else {
        return Err("9.2's trace has no load and store of the bins".into());
    };
    let mut per_bin: BTreeMap<u64, u64> = BTreeMap::new();
    for &(_, bin) in &store.lanes {
        *per_bin.entry(bin).or_default() += 1;
    }
    let lost: u64 = per_bin.values().map(|k| k - 1).sum();
    let counted = row
        .counters
        .lost_updates
        .ok_or("9.2's row has no lost counter")?;
    if lost != counted {
        return Err(format!(
            "9.2: the trace's one store step loses {lost} updates, the run's lost counter is {counted}"
        ));
    }
    let row_h = 19.0;
    let top = 96.0;
    let table_bottom = top + 22.0 + row_h * load.lanes.len() as f64;
    let caption = format!(
        "SIMT emulator trace, reference 9.2 (histo_naive), {n} uniform bytes (seed {}), {bins} bins, one warp: {lost} updates lost, the run's lost counter",
        p.seed
    );
    let height = table_bottom
        + 30.0
        + row_h * per_bin.len() as f64
        + Svg::caption_height_at(W, &caption, SMALL)
        + 10.0;
    let mut s = Svg::shown(W, height, "9.2: one warp, 16 bytes, one race", SHOWN, SMALL);
    s.text(
        10.0,
        50.0,
        SMALL + 1.0,
        "start",
        "The warp loads h[bin] in one step and stores",
        "normal",
    );
    s.text(
        10.0,
        68.0,
        SMALL + 1.0,
        "start",
        "h[bin] + 1 in the next: lanes on one bin all",
        "normal",
    );
    s.text(
        10.0,
        86.0,
        SMALL + 1.0,
        "start",
        "read 0 and all write 1.",
        "normal",
    );
    let cols = [
        (30.0, "lane"),
        (95.0, "byte"),
        (190.0, "loads h[bin]"),
        (320.0, "stores h[bin]"),
    ];
    for (x, label) in cols {
        s.text(x, top + 14.0, SMALL, "middle", label, "bold");
    }
    let stored: BTreeMap<u8, u64> = store.lanes.iter().copied().collect();
    for (i, &(lane, bin)) in load.lanes.iter().enumerate() {
        let y = top + 22.0 + row_h * i as f64;
        let byte = data[lane as usize];
        if bin_of(byte, bins) as u64 != bin {
            return Err(format!(
                "9.2: lane {lane} loaded bin {bin}, its byte {byte} is in bin {}",
                bin_of(byte, bins)
            ));
        }
        let colour = BIN_COLOURS[bin as usize % BIN_COLOURS.len()];
        s.rect(150.0, y + 2.0, 80.0, row_h - 3.0, colour, 0.55);
        s.rect(280.0, y + 2.0, 80.0, row_h - 3.0, colour, 0.55);
        s.text(30.0, y + 14.0, SMALL, "middle", &lane.to_string(), "normal");
        s.text(95.0, y + 14.0, SMALL, "middle", &byte.to_string(), "normal");
        s.text(
            190.0,
            y + 14.0,
            SMALL,
            "middle",
            &format!("h[{bin}] = 0"),
            "normal",
        );
        let st = stored.get(&lane).copied().unwrap_or(u64::MAX);
        s.text(
            320.0,
            y + 14.0,
            SMALL,
            "middle",
            &format!("h[{st}] = 1"),
            "normal",
        );
    }
    let mut y = table_bottom + 22.0;
    for (bin, k) in &per_bin {
        s.rect(
            10.0,
            y - 12.0,
            14.0,
            14.0,
            BIN_COLOURS[*bin as usize % BIN_COLOURS.len()],
            0.8,
        );
        s.text(
            32.0,
            y,
            SMALL,
            "start",
            &format!(
                "bin {bin}: {k} lanes stored 1: h[{bin}] = 1, {} lost",
                k - 1
            ),
            "normal",
        );
        y += row_h;
    }
    s.caption(&caption);
    Ok(Figure {
        name: "ch09-race-9.2.svg",
        svg: s.finish(),
        phone: None,
    })
}

/// One panel of the mapping figure: the 64 bytes as 4 rows of 16 cells, each labelled
/// with the lane that loaded it and shaded by which of its loads it was.
fn mapping_panel(
    s: &mut Svg,
    top: f64,
    title: &str,
    loads: &[&TraceStep],
    n: usize,
) -> Result<(), String> {
    s.text(10.0, top, SMALL + 1.0, "start", title, "bold");
    let mut by_elem = vec![None; n];
    for (k, st) in loads.iter().enumerate() {
        for &(lane, e) in &st.lanes {
            let e = e as usize;
            if e >= n {
                return Err(format!("a load of element {e} past the {n} bytes"));
            }
            by_elem[e] = Some((lane, k));
        }
    }
    let (cell, left) = (24.0, 18.0);
    for (e, who) in by_elem.iter().enumerate() {
        let (lane, k) = who.ok_or(format!("no lane loaded byte {e}"))?;
        let x = left + cell * (e % 16) as f64;
        let y = top + 8.0 + 26.0 * (e / 16) as f64;
        let fill = ["#56b4e9", "#e69f00", "#009e73", "#cc79a7"][k % 4];
        s.rect(x, y, cell - 2.0, 22.0, fill, 0.45);
        s.text(
            x + cell / 2.0 - 1.0,
            y + 16.0,
            SMALL,
            "middle",
            &lane.to_string(),
            "normal",
        );
    }
    Ok(())
}

/// Distinct 32-byte sectors of one warp load of bytes.
fn sectors(st: &TraceStep) -> usize {
    let mut v: Vec<u64> = st.lanes.iter().map(|&(_, e)| e / 32).collect();
    v.sort_unstable();
    v.dedup();
    v.len()
}

/// `ch09-mapping-9.6.svg`: 9.6's two kernels on 64 bytes with 32 threads and a coarsening
/// of 2, from their traces: which lane loaded each byte, in which of its two loads, and
/// how many sectors each warp load touched.
pub fn mapping_figure() -> Result<Figure, String> {
    let n = 64;
    let p = tiny(n, 8, 2);
    let (rows, traces) = traced("9.6", &p);
    if traces.len() != 2 || rows.len() != 2 {
        return Err(format!("9.6 ran {} launches, not 2", traces.len()));
    }
    let caption = format!(
        "SIMT emulator traces, reference 9.6 (histo_coarse_contiguous, histo_coarse_interleaved), {n} uniform bytes (seed {}), one block of 32 threads, coarsening 2; a cell is a byte, its number the lane that loaded it, its colour the lane's first or second load",
        p.seed
    );
    let height = 60.0 + 2.0 * 160.0 + Svg::caption_height_at(W, &caption, SMALL) + 10.0;
    let mut s = Svg::shown(
        W,
        height,
        "9.6: which thread loads which byte",
        SHOWN,
        SMALL,
    );
    let mut said = Vec::new();
    for (i, (t, r)) in traces.iter().zip(&rows).enumerate() {
        let data = buffer(t, Space::Global, 1)?;
        let loads = steps(t, data, AccessKind::Load);
        let secs: Vec<usize> = loads.iter().map(|st| sectors(st)).collect();
        let kind = if r.kernel.contains("contiguous") {
            "contiguous"
        } else {
            "interleaved"
        };
        let rule = if kind == "contiguous" {
            "lane t loads bytes 2t and 2t + 1"
        } else {
            "lane t loads bytes t and t + 32"
        };
        let top = 60.0 + 160.0 * i as f64;
        mapping_panel(&mut s, top, &format!("{kind}: {rule}"), &loads, n)?;
        let per: Vec<String> = secs.iter().map(|x| x.to_string()).collect();
        s.text(
            10.0,
            top + 134.0,
            SMALL,
            "start",
            &format!("sectors per warp load: {}", per.join(", ")),
            "normal",
        );
        said.push((kind, secs));
    }
    // The picture's point: interleaved loads touch one sector per warp load, contiguous ones
    // two (the lanes' bytes are two apart).
    let contiguous = said
        .iter()
        .find(|(k, _)| *k == "contiguous")
        .map(|(_, v)| v.clone());
    let interleaved = said
        .iter()
        .find(|(k, _)| *k == "interleaved")
        .map(|(_, v)| v.clone());
    if contiguous != Some(vec![2, 2]) || interleaved != Some(vec![1, 1]) {
        return Err(format!(
            "9.6's sectors per load: contiguous {contiguous:?}, interleaved {interleaved:?}"
        ));
    }
    s.caption(&caption);
    Ok(Figure {
        name: "ch09-mapping-9.6.svg",
        svg: s.finish(),
        phone: None,
    })
}

/// `ch09-groups-9.8.svg`: one warp of 9.8 on 32 bytes into 8 bins: each lane's bin, the
/// groups `match_any` makes (lanes of one bin) and the leader of each group, the one lane
/// that adds the group's size with a shared atomic. The leaders must be as many as the
/// distinct bins, one per bin.
pub fn groups_figure() -> Result<Figure, String> {
    let (n, bins) = (32usize, 8u32);
    let p = tiny(n, bins, 1);
    let (_, traces) = traced("9.8", &p);
    let t = traces.first().ok_or("9.8 launched nothing")?;
    let data = inputs::bytes(&p.input, n, p.seed);
    let shared = buffer(t, Space::Shared, 4)?;
    let atomics = steps(t, shared, AccessKind::Atomic);
    let first = atomics.first().ok_or("9.8's trace has no shared atomic")?;
    let lane_bin: Vec<u32> = data.iter().map(|&b| bin_of(b, bins)).collect();
    let mut size: BTreeMap<u32, usize> = BTreeMap::new();
    for &b in &lane_bin {
        *size.entry(b).or_default() += 1;
    }
    let leaders: BTreeMap<u8, u64> = first.lanes.iter().copied().collect();
    if leaders.len() != size.len() {
        return Err(format!(
            "9.8: {} lanes made the shared atomic, the warp holds {} distinct bins",
            leaders.len(),
            size.len()
        ));
    }
    for (&lane, &bin) in &leaders {
        if lane_bin[lane as usize] as u64 != bin {
            return Err(format!(
                "9.8: leader lane {lane} added to bin {bin}, its byte is in bin {}",
                lane_bin[lane as usize]
            ));
        }
    }
    let caption = format!(
        "SIMT emulator trace, reference 9.8 (histo_warp_aggregate), {n} uniform bytes (seed {}), {bins} bins, one warp; framed: the lanes of the traced shared atomic",
        p.seed
    );
    let height =
        270.0 + 18.0 * size.len().div_ceil(2) as f64 + Svg::caption_height_at(W, &caption, SMALL);
    let mut s = Svg::shown(
        W,
        height,
        "9.8: match_any's groups in one warp",
        SHOWN,
        SMALL,
    );
    s.text(
        10.0,
        50.0,
        SMALL + 1.0,
        "start",
        "Each cell is a lane and the bin of its byte;",
        "normal",
    );
    s.text(
        10.0,
        68.0,
        SMALL + 1.0,
        "start",
        "lanes of one bin form a group, and its leader",
        "normal",
    );
    s.text(
        10.0,
        86.0,
        SMALL + 1.0,
        "start",
        "(framed) adds the group's size in one atomic.",
        "normal",
    );
    let (cell, left, top) = (24.0, 18.0, 104.0);
    for (lane, &bin) in lane_bin.iter().enumerate() {
        let x = left + cell * (lane % 16) as f64;
        let y = top + 44.0 * (lane / 16) as f64;
        s.rect(x, y, cell - 2.0, 24.0, BIN_COLOURS[bin as usize], 0.6);
        s.text(
            x + cell / 2.0 - 1.0,
            y + 17.0,
            SMALL,
            "middle",
            &bin.to_string(),
            "normal",
        );
        s.text(
            x + cell / 2.0 - 1.0,
            y + 38.0,
            SMALL,
            "middle",
            &lane.to_string(),
            "normal",
        );
        if leaders.contains_key(&(lane as u8)) {
            s.body.push_str(&format!(
                "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"24\" fill=\"none\" stroke=\"#000000\" stroke-width=\"2.5\"/>\n",
                num(x),
                num(y),
                num(cell - 2.0)
            ));
        }
    }
    s.text(
        10.0,
        top + 104.0,
        SMALL,
        "start",
        "top: bin; below: lane",
        "normal",
    );
    let mut y = top + 128.0;
    for (i, (bin, k)) in size.iter().enumerate() {
        let x = 10.0 + 205.0 * (i % 2) as f64;
        s.rect(x, y - 12.0, 14.0, 14.0, BIN_COLOURS[*bin as usize], 0.8);
        let leader = leaders
            .iter()
            .find(|(_, b)| **b == *bin as u64)
            .map_or(0, |(l, _)| *l);
        s.text(
            x + 20.0,
            y,
            SMALL,
            "start",
            &format!("bin {bin}: lane {leader} adds {k}"),
            "normal",
        );
        if i % 2 == 1 {
            y += 18.0;
        }
    }
    s.text(
        10.0,
        y + 22.0,
        SMALL,
        "start",
        &format!("{} shared atomic lanes instead of {n}", leaders.len()),
        "bold",
    );
    s.caption(&caption);
    Ok(Figure {
        name: "ch09-groups-9.8.svg",
        svg: s.finish(),
        phone: None,
    })
}

/// The passes one shared-memory step takes: the most distinct words in one bank.
fn passes(st: &TraceStep) -> usize {
    let mut words: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
    for &(_, w) in &st.lanes {
        let v = words.entry(w % 32).or_default();
        if !v.contains(&w) {
            v.push(w);
        }
    }
    words.values().map(Vec::len).max().unwrap_or(0)
}

/// One panel of the bank figure: the 32 banks as columns, each lane of one shared atomic
/// step a square in the column of its word's bank, one row per distinct word of the
/// bank (a pass).
fn bank_panel(s: &mut Svg, top: f64, title: &str, st: &TraceStep) {
    s.text(10.0, top, SMALL + 1.0, "start", title, "bold");
    let mut words: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
    for &(_, w) in &st.lanes {
        let v = words.entry(w % 32).or_default();
        if !v.contains(&w) {
            v.push(w);
        }
    }
    let passes = words.values().map(Vec::len).max().unwrap_or(0);
    let (cell, left) = (12.0, 18.0);
    let grid_top = top + 10.0;
    for b in 0..32u64 {
        s.rect(
            left + cell * b as f64,
            grid_top,
            cell - 1.0,
            10.0 * passes.max(1) as f64 + 4.0,
            "#eeeeee",
            1.0,
        );
    }
    for &(_, w) in &st.lanes {
        let bank = w % 32;
        let pass = words[&bank].iter().position(|&x| x == w).unwrap_or(0);
        s.rect(
            left + cell * bank as f64 + 1.0,
            grid_top + 2.0 + 10.0 * pass as f64,
            cell - 3.0,
            8.0,
            "#0072b2",
            0.9,
        );
    }
    let below = grid_top + 10.0 * passes.max(1) as f64 + 20.0;
    for b in [0u64, 8, 16, 24, 31] {
        s.text(
            left + cell * b as f64 + cell / 2.0,
            below,
            SMALL,
            "middle",
            &b.to_string(),
            "normal",
        );
    }
}

/// `ch09-banks-9.9.svg`: one warp's first shared atomic in 9.5 (one copy of the bins per
/// block: a lane's bin decides its bank, and lanes on other words of one bank wait a pass
/// each) against 9.9 (lane columns: lane `l`'s counters all in bank `l`: one pass). 9.9's
/// lanes must each be in their own bank.
pub fn banks_figure() -> Result<Figure, String> {
    let p5 = tiny(256, 256, 1);
    let (_, t5) = traced("9.5", &p5);
    let t5 = t5.first().ok_or("9.5 launched nothing")?;
    let s5 = buffer(t5, Space::Shared, 4)?;
    let a5 = steps(t5, s5, AccessKind::Atomic);
    let st5 = a5.first().ok_or("9.5's trace has no shared atomic")?;
    let p9 = Params {
        n: Some(512 * 16),
        bins: 256,
        ..Params::default()
    };
    let (_, t9) = traced("9.9", &p9);
    let t9 = t9.first().ok_or("9.9 launched nothing")?;
    let s9 = buffer(t9, Space::Shared, 4)?;
    let a9 = steps(t9, s9, AccessKind::Atomic);
    let st9 = a9.first().ok_or("9.9's trace has no shared atomic")?;
    if let Some(&(lane, w)) = st9.lanes.iter().find(|&&(lane, w)| w % 32 != lane as u64) {
        return Err(format!(
            "9.9: lane {lane}'s counter {w} is in bank {}, not its own",
            w % 32
        ));
    }
    let caption = format!(
        "SIMT emulator traces, reference kernels: the first shared atomic of warp 0 of block 0; 9.5 on 256 uniform bytes (seed {}), 256 bins, blocks of 32; 9.9 on {} bytes, 256 bins; a square is a lane, its column the bank of its word",
        p5.seed,
        512 * 16
    );
    let (pass5, pass9) = (passes(st5), passes(st9));
    if pass9 != 1 || pass5 < 2 {
        return Err(format!("banks: 9.5 took {pass5} passes, 9.9 {pass9}"));
    }
    let top9 = 98.0 + 10.0 * pass5 as f64 + 70.0;
    let last = top9 + 10.0 * pass9 as f64 + 64.0;
    let height = last + 10.0 + Svg::caption_height_at(W, &caption, SMALL);
    let mut s = Svg::shown(
        W,
        height,
        "Shared-memory banks: 9.5 against 9.9",
        SHOWN,
        SMALL,
    );
    s.text(
        10.0,
        50.0,
        SMALL + 1.0,
        "start",
        "32 banks; lanes on different words of one bank",
        "normal",
    );
    s.text(
        10.0,
        68.0,
        SMALL + 1.0,
        "start",
        "are served one pass after another.",
        "normal",
    );
    bank_panel(
        &mut s,
        98.0,
        "9.5, one copy per block: a lane's bin picks its bank",
        st5,
    );
    bank_panel(&mut s, top9, "9.9, lane columns: lane l in bank l", st9);
    s.text(
        10.0,
        last,
        SMALL,
        "start",
        &format!("passes of one atomic instruction: {pass5} (9.5), {pass9} (9.9)"),
        "bold",
    );
    s.caption(&caption);
    Ok(Figure {
        name: "ch09-banks-9.9.svg",
        svg: s.finish(),
        phone: None,
    })
}

/// The four mechanism figures.
pub fn mechanism_figures() -> Result<Vec<Figure>, String> {
    Ok(vec![
        race_figure()?,
        mapping_figure()?,
        groups_figure()?,
        banks_figure()?,
    ])
}
