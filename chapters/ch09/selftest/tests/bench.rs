//! Chapter 9's bench on the emulator: its steps are the progression's, every kernel of
//! every mode (the steps, `--kernels student`, `--same-grid`, `--variants`,
//! `--extensions`, `--sizes`) right on small inputs, and its results written. (The bench's
//! machinery has its own tests in `crates/bench`.)

use ch09::bench::data::{self, Input};
use ch09::bench::report::Row;
use ch09::bench::sizes::SizeSweep;
use ch09::bench::*;
use ch09::kernels::REFERENCE;
use ch09::launch::Shape;
use gpu_host::Device;

#[test]
fn the_steps_are_the_progressions() {
    let props = gpu_host::DeviceProps::emulated_h100();
    let n = 1 << 30;
    let steps = byte_steps(&REFERENCE, &mut Device::emulator(), n);
    let names: Vec<&str> = steps.iter().map(|s| s.kernel).collect();
    assert_eq!(
        names,
        [
            "histo_atomic",
            "histo_private_global",
            "histo_private_shared",
            "histo_private_dynamic",
            "histo_coarse_contiguous",
            "histo_coarse_interleaved",
            "histo_aggregate",
            "histo_warp_aggregate",
            "histo_fastest"
        ]
    );
    for s in &steps {
        let name = match s.launch {
            StepKernel::Bytes(k) => k.name,
            StepKernel::BytesWith(k, _) => k.name,
            StepKernel::Values(k) => k.name,
        };
        assert_eq!(name, s.kernel);
    }
    assert_eq!(steps[0].shape.grid, 132 * 8);
    assert_eq!(steps[1].out_len, 132 * 8 * 256);
    assert_eq!(steps[2].shape.grid, (1 << 30) / 256);
    let v = value_steps(&REFERENCE, &props, n / 4, U32_BINS);
    assert_eq!(v[1].shape.shared_bytes, 4 * U32_BINS);
    // Past 4096 bins: the global kernel and 9.17's two sliced ones, whose grids are
    // whole multiples of their slices.
    let v = value_steps(&REFERENCE, &props, n / 4, 65_536);
    let kernels: Vec<&str> = v.iter().map(|s| s.kernel).collect();
    assert_eq!(
        kernels,
        ["histo_u32_global", "histo_u32_sliced", "u32_sliced_vectors"]
    );
    assert_eq!(v[1].shape.shared_bytes, props.shared_bytes_per_block);
    assert_eq!(v[1].shape.grid % 6, 0, "65536 bins in slices of 12288");
    assert_eq!(v[2].shape.shared_bytes, 4 * SLICE_BINS);
    assert_eq!(v[2].shape.grid, 132, "one 128 KiB block per SM, two slices");
}

/// 9.17's bench kernel on the emulator: right at 16 384 and 65 536 bins, with one
/// chunk or several, fewer blocks than slices, and a tail of values past the last
/// whole vector (small grids: zeroing 32 768 bins per block is slow to emulate).
#[test]
fn the_sliced_vectors_are_right_on_the_emulator() {
    let mut dev = Device::emulator();
    let k = solutions::bench::u32_sliced_vectors::KERNEL;
    for (bins, width, grid, block) in [
        (65_536, SLICE_BINS, 2, 64),
        (65_536, SLICE_BINS, 4, 96),
        (65_536, 16_384, 3, 64),
        (16_384, 16_384, 3, 64),
    ] {
        let data = data::values(Input::Uniform, 6001, bins + bins / 8, 9, &[]);
        let expected = ch09::reference::value_histogram(&data, bins);
        let shape = Shape::new(grid, block).with_bins(width);
        let run = ch09::launch::values(&mut dev, &k, &data, bins, shape).unwrap();
        assert_eq!(run.out, expected, "{bins} bins, {shape:?}");
    }
}

/// The whole pipeline on the emulator, on a small input: every kernel right, the
/// references measured, CSV and JSON written.
#[test]
fn the_bench_runs_on_the_emulator() {
    let dir = std::env::temp_dir().join(format!("ch09-bench-test-{}", std::process::id()));
    let opts = Options {
        common: Common::small(8 << 10, dir.clone()),
        inputs: vec![Input::Skewed90, Input::Text],
        text: (b"the quick brown fox ".to_vec(), "a test".into()),
        ..Options::default()
    };
    let mut lines = Vec::new();
    let report = run_on(&mut Device::emulator(), &opts, &mut |l| {
        lines.push(l.to_string())
    });
    assert!(report.all_correct(), "{}", report.table());
    // 2 references + (9 kernels + 4 CPU) x 2 inputs + (3 kernels + 4 CPU) x 2 inputs.
    assert_eq!(report.rows.len(), 2 + 13 * 2 + 7 * 2, "{}", report.table());
    assert!(report.rows.iter().all(|r| r.pct_read_bw.is_some()));
    assert!(report.header.read_bw_gbps.is_some());
    let (csv, json) = report.write(&dir).unwrap();
    assert!(
        std::fs::read_to_string(csv)
            .unwrap()
            .contains("histo_fastest,9.9,text,u8,256,8192,")
    );
    assert!(
        std::fs::read_to_string(json)
            .unwrap()
            .contains("\"header\"")
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("[u32 text] 9.14 histo_u32_shared"))
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// `--kernels student` on the emulator: beside every step's reference row, a row of the
/// student's kernel on the same input, right or saying why it has no time (what
/// `kernels/` holds decides which: the test holds for any).
#[test]
fn the_student_s_rows_sit_beside_the_reference_s() {
    let dir = std::env::temp_dir().join(format!("ch09-bench-student-{}", std::process::id()));
    let opts = Options {
        common: Common {
            cpu: false,
            ..Common::small(8 << 10, dir.clone())
        },
        inputs: vec![Input::Uniform],
        student: true,
        ..Options::default()
    };
    let report = run_on(&mut Device::emulator(), &opts, &mut |_| {});
    let steps: Vec<&Row> = report
        .rows
        .iter()
        .filter(|r| r.step.starts_with("9.") && !r.implementation.ends_with(YOURS))
        .collect();
    assert!(!steps.is_empty(), "{}", report.table());
    for r in steps {
        let mine = report.rows.iter().find(|m| {
            m.implementation == format!("{}{YOURS}", r.implementation)
                && m.step == r.step
                && m.input == r.input
                && m.dtype == r.dtype
        });
        let Some(mine) = mine else {
            panic!(
                "no row of yours beside {}\n{}",
                r.implementation,
                report.table()
            );
        };
        assert!(mine.correct || mine.note.is_some(), "{}", report.table());
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// `--same-grid` on the emulator: after each byte step whose launch differs from the
/// step before it, the step again on that step's grid and block, right, and a summary
/// line per such pair.
#[test]
fn the_same_grid_mode_runs_on_the_emulator() {
    let dir = std::env::temp_dir().join(format!("ch09-same-grid-test-{}", std::process::id()));
    let opts = Options {
        common: Common {
            cpu: false,
            ..Common::small(3 * 8192 + 77, dir.clone())
        },
        same_grid: true,
        dtypes: vec![Dtype::U8],
        inputs: vec![Input::Uniform],
        text: (b"the quick brown fox ".to_vec(), "a test".into()),
        ..Options::default()
    };
    let report = run_on(&mut Device::emulator(), &opts, &mut |_| {});
    assert!(report.all_correct(), "{}", report.table());
    let same: Vec<&str> = report
        .rows
        .iter()
        .filter(|r| r.implementation.contains(SAME_GRID))
        .map(|r| r.implementation.as_str())
        .collect();
    // 9.5 on 9.4's grid, 9.6 (contiguous) on 9.5's, 9.9 on 9.8's. (At this size 9.6's
    // coarsened grid and 9.7's resident one are both 13 blocks of 256: no row.)
    assert_eq!(
        same,
        [
            "histo_private_shared@9.4",
            "histo_coarse_contiguous@9.5",
            "histo_fastest@9.8"
        ],
        "{}",
        report.table()
    );
    let summary: Vec<&String> = report
        .header
        .notes
        .iter()
        .filter(|n| n.starts_with("same grid"))
        .collect();
    assert_eq!(summary.len(), same.len(), "{:?}", report.header.notes);
    assert!(
        summary[2].contains("9.9 histo_fastest on 9.8's grid takes"),
        "{}",
        summary[2]
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// The variant sweep on the emulator: every variant right on every byte input, with
/// a length that leaves a partial round of vectors and a tail of bytes.
#[test]
fn the_variant_sweep_runs_on_the_emulator() {
    let dir = std::env::temp_dir().join(format!("ch09-variants-test-{}", std::process::id()));
    let opts = Options {
        common: Common {
            // 9.9's grid gives each thread about four vectors: 5 * 16 KiB + 5000 bytes is
            // 6 blocks (stride 1536 vectors) over 5432 vectors, so the first threads do a
            // round of four, the others single vectors, and 8 bytes are a tail.
            cpu: false,
            ..Common::small(5 * 16384 + 5000, dir.clone())
        },
        variants: true,
        text: (b"the quick brown fox ".to_vec(), "a test".into()),
        ..Options::default()
    };
    let mut lines = Vec::new();
    let report = run_on(&mut Device::emulator(), &opts, &mut |l| {
        lines.push(l.to_string())
    });
    assert!(report.all_correct(), "{}", report.table());
    // 2 references + 11 kernels x 4 byte inputs; no u32 input.
    assert_eq!(report.rows.len(), 2 + 11 * 4, "{}", report.table());
    for k in [
        "histo_fastest",
        "histo_fastest/b256",
        "histo_fastest/b1024",
        "histo_fastest/v16",
        "histo_fastest/v4",
        "fast_run_length",
        "fast_popc",
        "fast_warp_bins",
        "fast_lane_bins",
        "fast_bin_columns",
        "fast_wide_columns",
    ] {
        assert_eq!(
            report.rows.iter().filter(|r| r.implementation == k).count(),
            4,
            "{k}: {}",
            report.table()
        );
    }
    assert!(report.rows.iter().all(|r| r.dtype == "u8"));
    let _ = std::fs::remove_dir_all(dir);
}

/// The extension sweep on the emulator: `histo_cas` right on every byte input and
/// every strategy right at every bin count.
#[test]
fn the_extension_sweep_runs_on_the_emulator() {
    let dir = std::env::temp_dir().join(format!("ch09-ext-test-{}", std::process::id()));
    let opts = Options {
        common: Common {
            cpu: false,
            ..Common::small(3 * 4096 + 44, dir.clone())
        },
        extensions: true,
        dtypes: vec![Dtype::U8],
        text: (b"the quick brown fox ".to_vec(), "a test".into()),
        ..Options::default()
    };
    let report = run_on(&mut Device::emulator(), &opts, &mut |_| {});
    assert!(report.all_correct(), "{}", report.table());
    // 2 references + histo_cas x 4 byte inputs + RGB, weighted and joint on uniform +
    // the strategies: 3 at 8 and 16 bins, 2 at the 4 others.
    assert_eq!(
        report.rows.len(),
        2 + 4 + 3 + 3 * 2 + 2 * 4,
        "{}",
        report.table()
    );
    let count = |k: &str| report.rows.iter().filter(|r| r.implementation == k).count();
    assert_eq!(count("histo_cas"), 4, "{}", report.table());
    assert_eq!(count("histo_rgb"), 1, "{}", report.table());
    assert_eq!(count("histo_weighted"), 1, "{}", report.table());
    assert_eq!(count("histo_joint"), 1, "{}", report.table());
    assert_eq!(count("histo_registers"), 2, "{}", report.table());
    assert_eq!(count("histo_u32_shared"), 6, "{}", report.table());
    assert_eq!(count("histo_u32_global"), 6, "{}", report.table());
    for bins in STRATEGY_BINS {
        assert!(
            report
                .rows
                .iter()
                .any(|r| r.implementation == "histo_u32_global" && r.bins == bins),
            "{bins}: {}",
            report.table()
        );
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// The size sweep on the emulator: every size in its own folder with its own rows, a line
/// per size and element type in the table, and `sizes.json` reading back the same.
#[test]
fn the_sweep_runs_every_size_and_writes_them() {
    let dir = std::env::temp_dir().join(format!("ch09-sizes-test-{}", std::process::id()));
    let opts = Options {
        common: Common {
            cpu: false,
            ..Common::small(Options::default().common.runs.size_bytes, dir.clone())
        },
        dtypes: vec![Dtype::U8, Dtype::U32],
        inputs: vec![Input::Uniform],
        steps: vec!["9.9".into(), "9.14".into()],
        ..Options::default()
    };
    let sweep = sweep_sizes(
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
    let back: SizeSweep = serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    assert_eq!(back.runs[1].bytes, 12 << 10);
    assert_eq!(back.runs[1].report.rows, sweep.runs[1].report.rows);
    assert!(dir.join("size-8KiB").join("bench.json").exists());
    std::fs::remove_dir_all(&dir).ok();
}
