//! Where a run comes from: the host CPU and the course's commit, for the JSON's header
//! (the device's name, driver and CUDA version are [`chapter::provenance`]'s).

use crate::options::Common;
use crate::report::Header;
use gpu_host::Device;

/// A header with what every chapter's bench records: the device, the host (and the
/// threads of its CPU rows), the commit, the command line and the budget, from the
/// options `o`. The chapter adds its text input, its method and the host's clock when it
/// has them.
pub fn header(dev: &Device, o: &Common) -> Header {
    let (b, cpu_threads, command) = (o.budget(), o.cpu_threads, &o.command);
    let p = dev.props();
    Header {
        gpu: p.name.clone(),
        sm_count: p.sm_count,
        compute_capability: format!("{}.{}", p.compute_capability.0, p.compute_capability.1),
        l2_bytes: p.l2_bytes,
        driver_version: chapter::provenance::nvidia_driver_version(),
        cuda_version: chapter::provenance::cuda_version(dev),
        date_utc: chapter::provenance::utc_now(),
        host_cpu: host_cpu(),
        host_threads: cpu_threads,
        git_commit: git_commit(),
        command: command.to_string(),
        input_bytes: b.runs.size_bytes,
        warmup: b.runs.warmup,
        reps: b.runs.reps,
        budget_ms: b.budget.as_millis() as u64,
        seed: b.runs.seed,
        ..Header::default()
    }
}

/// The host CPU's model name, with its family and model numbers (cloud hosts report a
/// generic name such as `Intel(R) Xeon(R) Processor`: the numbers say which CPU), from
/// `/proc/cpuinfo`.
pub fn host_cpu() -> String {
    let Ok(info) = std::fs::read_to_string("/proc/cpuinfo") else {
        return std::env::consts::ARCH.to_string();
    };
    let field = |key: &str| {
        info.lines()
            .find(|l| l.split(':').next().is_some_and(|k| k.trim() == key))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_string())
    };
    match (field("model name"), field("cpu family"), field("model")) {
        (Some(name), Some(family), Some(model)) => {
            format!("{name} (family {family} model {model})")
        }
        (Some(name), _, _) => name,
        _ => std::env::consts::ARCH.to_string(),
    }
}

/// The course's commit: `COURSE_GIT_COMMIT` (set by the GPU session scripts, which know
/// it; `CH09_GIT_COMMIT`, its name before 2026-11-28, is read too), else the first line
/// of a `COMMIT` file beside the executable (prepare-gpu.sh writes one), else `git` in the
/// workspace this crate was built from, else `unknown`.
pub fn git_commit() -> String {
    for name in ["COURSE_GIT_COMMIT", "CH09_GIT_COMMIT"] {
        if let Ok(c) = std::env::var(name)
            && !c.trim().is_empty()
        {
            return c.trim().to_string();
        }
    }
    // The folder prepare-gpu.sh makes holds the binary and the commit it was built from:
    // there, the machine's copy of the course may have another checkout's history.
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| std::fs::read_to_string(exe.with_file_name("COMMIT")).ok());
    if let Some(c) = beside.as_deref().and_then(|c| c.lines().next())
        && !c.trim().is_empty()
    {
        return c.trim().to_string();
    }
    let dir = env!("CARGO_MANIFEST_DIR");
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    match git(&["rev-parse", "--short=12", "HEAD"]) {
        Some(c) if !c.is_empty() => {
            let dirty = git(&["status", "--porcelain"]).is_some_and(|s| !s.is_empty());
            if dirty { format!("{c}-dirty") } else { c }
        }
        _ => "unknown".into(),
    }
}
