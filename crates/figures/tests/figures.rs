//! The figures are well-formed SVG with their captions, and the committed ones in
//! `book/src/figures` are what `cargo run -p figures` writes.

use ch09::progression::Params;
use figures::{
    FIGURES_DIR, all_figures, contention, emulator_figures, gpu_figures, load_bench, newest_bench,
    newest_extensions, parse_bench, queues, repo_root, strategy_figure,
};

const FIXTURE: &str = include_str!("fixture-bench.json");
const RUNS: &str = "## 2026-01-02, run 1: Fixture GPU 1, driver 123.45.6, CUDA 12.9\n";

/// Every tag is closed in order (comments, declarations and `<.../>` aside), and the
/// document is one `<svg>` element.
fn well_formed(svg: &str) -> Result<(), String> {
    let mut stack: Vec<String> = Vec::new();
    let mut rest = svg;
    let mut roots = 0;
    while let Some(i) = rest.find('<') {
        let j = rest[i..].find('>').ok_or("unterminated tag")? + i;
        let tag = &rest[i + 1..j];
        rest = &rest[j + 1..];
        if tag.starts_with('!') || tag.starts_with('?') || tag.ends_with('/') {
            if stack.is_empty() {
                roots += 1;
            }
            continue;
        }
        if let Some(name) = tag.strip_prefix('/') {
            let open = stack
                .pop()
                .ok_or_else(|| format!("</{name}> closes nothing"))?;
            if open != name {
                return Err(format!("<{open}> closed by </{name}>"));
            }
        } else {
            if stack.is_empty() {
                roots += 1;
            }
            let name = tag.split_whitespace().next().unwrap_or("").to_string();
            stack.push(name);
        }
    }
    if !stack.is_empty() {
        return Err(format!("unclosed: {stack:?}"));
    }
    if roots != 1 || !svg.starts_with("<svg ") {
        return Err(format!("{roots} root elements"));
    }
    Ok(())
}

/// Chapter 5's figures: well-formed, captioned, one group per kernel.
#[test]
fn ch05_figures_are_well_formed() {
    let p = ch05::progression::Params {
        n: 4096,
        block: 64,
        ..ch05::progression::Params::default()
    };
    let figs = figures::ch05_figures(&p).unwrap();
    assert_eq!(figs.len(), 3);
    // The trace (third) has its own parameters, not `p`'s.
    assert_eq!(figs[2].name, "ch05-trace-5.3.svg");
    assert!(figs[2].svg.contains("mul_grid_stride"));
    well_formed(&figs[2].svg).unwrap_or_else(|e| panic!("{}: {e}", figs[2].name));
    for f in &figs[..2] {
        well_formed(&f.svg).unwrap_or_else(|e| panic!("{}: {e}", f.name));
        assert!(f.svg.contains("<title>"), "{}: no title", f.name);
        assert!(f.svg.contains("n = 4096"), "{}: no caption", f.name);
    }
    assert!(
        figs[0].svg.contains("uniform"),
        "5.4's kernels are labelled"
    );
    assert!(
        figs[1].svg.contains("histo_shared_n"),
        "5.6's kernels are labelled"
    );
}

#[test]
fn fixture_figures_are_well_formed_and_captioned() {
    let bench = parse_bench(FIXTURE, "fixture.json", None, Some(RUNS)).unwrap();
    assert_eq!(
        bench.driver, "123.45.6",
        "the driver comes from gpu-runs.md"
    );
    let dir = std::env::temp_dir().join(format!("figures-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = Params {
        n: Some(4096),
        ..Params::default()
    };
    let mut figs = gpu_figures(&bench);
    figs.extend(emulator_figures(&p).unwrap());
    assert_eq!(figs.len(), 4);
    for f in &figs {
        std::fs::write(dir.join(f.name), &f.svg).unwrap();
        let svg = std::fs::read_to_string(dir.join(f.name)).unwrap();
        well_formed(&svg).unwrap_or_else(|e| panic!("{}: {e}", f.name));
        assert!(svg.contains("<title>"), "{}: no title", f.name);
        if f.name.contains("throughput") {
            assert!(
                svg.contains("Fixture GPU 1, driver 123.45.6, CUDA 12.9, 2026-01-02"),
                "{}: no caption",
                f.name
            );
            assert!(
                svg.contains("measured read bandwidth: 1000 GB/s"),
                "{}",
                f.name
            );
        } else {
            assert!(
                svg.contains("SIMT emulator, n = 4096, seed 9"),
                "{}: no caption",
                f.name
            );
        }
    }
    // Deterministic: the same inputs give the same bytes.
    assert_eq!(gpu_figures(&bench), gpu_figures(&bench));
    assert_eq!(emulator_figures(&p).unwrap()[1], figs[3]);
    // The best CPU is the fastest CPU row; a wrong row is marked.
    assert!(figs[0].svg.contains(">best CPU<") && figs[0].svg.contains(">wrong<"));
    // The fixture's header names no host: the caption names no CPU.
    assert!(!figs[0].svg.contains("CPU: "));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A bench whose header names its host: the caption of a figure with CPU rows says which
/// CPU they ran on.
#[test]
fn the_caption_names_the_cpu_of_the_cpu_rows() {
    let named = FIXTURE
        .replacen("\"host_cpu\": \"\"", "\"host_cpu\": \"Fixture CPU\"", 1)
        .replacen("\"host_threads\": 0", "\"host_threads\": 8", 1);
    assert_ne!(named, FIXTURE);
    let bench = parse_bench(&named, "fixture.json", None, Some(RUNS)).unwrap();
    assert_eq!(bench.host_cpu, "Fixture CPU, 8 threads");
    // The caption may wrap anywhere: read the figure's text with its lines joined.
    let text = |svg: &str| {
        let mut out = String::new();
        for part in svg.split('<') {
            if let Some((_, t)) = part.split_once('>') {
                out.push_str(t);
                out.push(' ');
            }
        }
        out.split_whitespace().collect::<Vec<_>>().join(" ")
    };
    let figs = gpu_figures(&bench);
    assert!(
        figs.iter()
            .any(|f| text(&f.svg).contains("CPU: Fixture CPU, 8 threads")),
        "no figure names the CPU"
    );
}

#[test]
fn a_warp_loads_queue_is_its_most_lanes_on_one_bin() {
    let mut data = vec![7u8; 32];
    data.extend((0..32).map(|i| i as u8));
    data.extend([1, 1, 1, 2]);
    assert_eq!(queues(&data), vec![32, 1, 3]);
}

#[test]
fn mechanism_figures_show_what_their_traces_recorded() {
    let figs = figures::mechanisms::mechanism_figures().unwrap();
    let names: Vec<&str> = figs.iter().map(|f| f.name).collect();
    assert_eq!(
        names,
        [
            "ch09-race-9.2.svg",
            "ch09-mapping-9.6.svg",
            "ch09-groups-9.8.svg",
            "ch09-banks-9.9.svg"
        ]
    );
    for f in &figs {
        well_formed(&f.svg).unwrap_or_else(|e| panic!("{}: {e}", f.name));
        assert!(f.svg.contains("SIMT emulator trace"), "{}", f.name);
    }
    // 16 lanes over 4 bins keep 4 counts: 12 lost, as the run's counter says.
    assert!(figs[0].svg.contains("12 updates lost"), "{}", figs[0].svg);
    assert!(figs[1].svg.contains("sectors per warp load: 2, 2"));
    assert!(figs[1].svg.contains("sectors per warp load: 1, 1"));
    assert!(figs[3].svg.contains(", 1 (9.9)"));
}

#[test]
fn contention_counts_lanes_per_bin_per_warp_load() {
    let mut data = vec![7u8; 32];
    data.extend((0..32).map(|i| i as u8));
    let c = contention(&data);
    assert_eq!((c.hits[7], c.lanes[7], c.max[7]), (2, 33, 32));
    assert_eq!((c.hits[8], c.lanes[8], c.max[8]), (1, 1, 1));
    assert_eq!(c.hits[200], 0);
}

/// Every chart has a phone variant, drawn 335 px wide and well-formed; the mechanism
/// figures are shown 335 px wide themselves (book/layout.py measures what shows at once).
#[test]
fn a_phone_shows_every_chart_and_mechanism_whole() {
    let root = repo_root();
    let bench = newest_bench(&root.join("notes")).expect("a notes/bench-*.json");
    let bench = load_bench(&bench, None).unwrap();
    let ext = newest_extensions(&root.join("notes")).map(|p| load_bench(&p, None).unwrap());
    let sizes = figures::sizes::load_sizes(&root.join("notes")).map(|s| s.unwrap());
    let figs = all_figures(&bench, ext.as_ref(), sizes.as_ref()).unwrap();
    let width = |svg: &str| {
        let w = svg.split("width=\"").nth(1).unwrap();
        w[..w.find('"').unwrap()].parse::<f64>().unwrap()
    };
    let mut charts = 0;
    for f in &figs {
        match &f.phone {
            Some(p) => {
                charts += 1;
                well_formed(p).unwrap_or_else(|e| panic!("{}: {e}", f.phone_name()));
                assert_eq!(width(p), 335.0, "{}", f.phone_name());
                assert!(width(&f.svg) > 335.0, "{} needs no phone variant", f.name);
            }
            None if f.name.contains("trace") => {}
            None => assert!(
                width(&f.svg) <= 335.0,
                "{} is wider than a phone's column and has no phone variant",
                f.name
            ),
        }
    }
    assert!(charts >= 8, "{charts} charts with a phone variant");
}

#[test]
fn committed_figures_are_up_to_date() {
    let root = repo_root();
    let bench = newest_bench(&root.join("notes")).expect("a notes/bench-*.json");
    let bench = load_bench(&bench, None).unwrap();
    let ext = newest_extensions(&root.join("notes")).map(|p| load_bench(&p, None).unwrap());
    let mut stale = Vec::new();
    let sizes = figures::sizes::load_sizes(&root.join("notes")).map(|s| s.unwrap());
    for f in all_figures(&bench, ext.as_ref(), sizes.as_ref()).unwrap() {
        let phone = f.phone.as_ref().map(|svg| (f.phone_name(), svg));
        for (name, svg) in std::iter::once((f.name.to_string(), &f.svg)).chain(phone) {
            let path = root.join(FIGURES_DIR).join(&name);
            if std::fs::read_to_string(&path).ok().as_deref() != Some(svg.as_str()) {
                stale.push(format!("{FIGURES_DIR}/{name}"));
            }
        }
    }
    assert!(
        stale.is_empty(),
        "out of date: {}: run `cargo run -p figures`",
        stale.join(", ")
    );
}

#[test]
fn the_strategy_figure_has_a_group_per_bin_count_and_a_bar_per_strategy_run() {
    let root = repo_root();
    let path = newest_extensions(&root.join("notes")).expect("a notes/extensions-*.json");
    let ext = load_bench(&path, None).unwrap();
    let svg = strategy_figure(&ext).svg;
    for bins in figures::STRATEGY_BINS {
        assert!(
            svg.contains(&format!(">{bins} bins<")),
            "no group for {bins} bins"
        );
    }
    for series in ["registers (9.10)", "shared (9.14)", "global (9.14)"] {
        assert!(svg.contains(series), "no legend entry {series}");
    }
    assert!(svg.contains(&ext.gpu) && svg.contains(&ext.driver));
}

/// The bench's JSON is read into the bench's own types: a field renamed on either side is
/// an error that names it, not a bar of height zero.
#[test]
fn a_renamed_field_of_the_bench_is_an_error() {
    let renamed = FIXTURE.replace("\"gbps\"", "\"gb_per_s\"");
    let err = parse_bench(&renamed, "fixture.json", None, Some(RUNS)).unwrap_err();
    assert!(err.contains("gbps"), "{err}");
    let no_header_field = FIXTURE.replacen("\"sm_count\": 132, ", "", 1);
    let err = parse_bench(&no_header_field, "fixture.json", None, Some(RUNS)).unwrap_err();
    assert!(err.contains("sm_count"), "{err}");
}

/// A CPU named only by a generic CPUID string is named by family and model from the
/// `lscpu` output kept beside the bench; two notes that disagree leave it as it was.
#[test]
fn a_generic_cpu_name_gets_its_model_from_lscpu_notes() {
    let dir = std::env::temp_dir().join(format!("figures-lscpu-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("host-probe")).unwrap();
    let lscpu = |model: u32| {
        format!(
            "CPU(s):   16\nModel name:   Vendor(R) CPU(R) Processor\nCPU family:   6\nModel:   {model}\n"
        )
    };
    std::fs::write(dir.join("host-probe/lscpu-host.txt"), lscpu(207)).unwrap();
    let named = figures::named_by_model("Vendor(R) CPU(R) Processor, 16 threads", &dir);
    assert_eq!(
        named,
        "Vendor(R) CPU(R) Processor, family 6 model 207 (lscpu: notes/host-probe/lscpu-host.txt), 16 threads"
    );
    assert_eq!(
        figures::named_by_model("Other CPU, 8 threads", &dir),
        "Other CPU, 8 threads"
    );
    std::fs::write(dir.join("lscpu-other.txt"), lscpu(143)).unwrap();
    assert_eq!(
        figures::named_by_model("Vendor(R) CPU(R) Processor, 16 threads", &dir),
        "Vendor(R) CPU(R) Processor, 16 threads",
        "notes that disagree name no model"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
