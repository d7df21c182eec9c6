//! Where and when a bench ran, for the header of its report: the NVIDIA driver's
//! version and the date in UTC.
//!
//! A bench's numbers mean little without the machine and the day they were taken on;
//! both chapters' reports record them, read the same way.

/// The NVIDIA driver's version: the first word that looks like one after "Module" in
/// `/proc/driver/nvidia/version`, else what `nvidia-smi` says, else `"unknown"` (a
/// report is still written on a machine that hides it).
pub fn nvidia_driver_version() -> String {
    // "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build ...":
    // the first word after "Module" that looks like a version.
    if let Ok(text) = std::fs::read_to_string("/proc/driver/nvidia/version")
        && let Some(v) = text
            .split_whitespace()
            .skip_while(|w| *w != "Module")
            .find(|w| is_version(w))
    {
        return v.to_string();
    }
    std::process::Command::new("nvidia-smi")
        .args(["--query-gpu=driver_version", "--format=csv,noheader"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.lines().next().map(|l| l.trim().to_string()))
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown".into())
}

/// The CUDA version `dev`'s driver supports (`13.0`), or `"none (emulator)"`: a
/// report's numbers are only comparable between the same driver and CUDA.
pub fn cuda_version(dev: &gpu_host::Device) -> String {
    dev.driver_version()
        .map_or("none (emulator)".into(), |(a, b)| format!("{a}.{b}"))
}

/// Does `w` look like a driver version (`580.159.04`)?
fn is_version(w: &str) -> bool {
    w.contains('.')
        && w.chars().all(|c| c.is_ascii_digit() || c == '.')
        && w.starts_with(|c: char| c.is_ascii_digit())
}

/// The time now, `YYYY-MM-DDTHH:MM:SSZ`: the report's date, in UTC so that reports from
/// machines in different zones sort together.
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    utc(secs)
}

/// `secs` since the Unix epoch as `YYYY-MM-DDTHH:MM:SSZ` (Howard Hinnant's
/// days-to-civil algorithm): no date crate for one line of a report.
pub fn utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_utc_and_versions_are_numbers() {
        assert_eq!(utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc(1_795_305_600), "2026-11-22T00:00:00Z");
        assert!(is_version("580.159.04"));
        assert!(!is_version(".") && !is_version("x86_64"));
    }
}
