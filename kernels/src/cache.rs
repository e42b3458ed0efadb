//! The cache sizes of the machine the kernels run on, detected once at run time so that cache policies (streaming
//! stores, blocking) fit this machine rather than the one they were tuned on.
//!
//! Sources, in order: the environment variable `STRIDER_CACHE` (`l2=2MiB,l3=480MiB`: either or both, for tests and
//! for machines that report wrong sizes), Linux's `/sys/devices/system/cpu/cpu0/cache`, then the defaults of
//! [`CacheSizes::FALLBACK`].

use std::sync::OnceLock;

/// Data cache sizes in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheSizes {
    /// The level-2 cache of one core.
    pub l2: usize,
    /// The last-level cache (L3, or L2 when there is no L3), shared by all cores that share it.
    pub llc: usize,
}

impl CacheSizes {
    /// Used when nothing can be detected: 1 MiB of L2, 32 MiB of last-level cache (a recent desktop or server core).
    pub const FALLBACK: CacheSizes = CacheSizes { l2: 1 << 20, llc: 32 << 20 };

    /// The sizes of this machine, detected once (see the module documentation for the sources).
    pub fn get() -> CacheSizes {
        static SIZES: OnceLock<CacheSizes> = OnceLock::new();
        *SIZES.get_or_init(|| {
            let detected = detect_sysfs().unwrap_or(CacheSizes::FALLBACK);
            match std::env::var("STRIDER_CACHE") {
                Ok(spec) => parse_override(&spec, detected).unwrap_or(detected),
                Err(_) => detected,
            }
        })
    }
}

/// Parses `l2=SIZE,l3=SIZE` (sizes in bytes, or with a `K`/`KiB`/`M`/`MiB`/`G`/`GiB` suffix) over `base`; `None`
/// when the text is not of that form.
pub fn parse_override(spec: &str, base: CacheSizes) -> Option<CacheSizes> {
    let mut out = base;
    for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (key, value) = part.split_once('=')?;
        let bytes = parse_size(value.trim())?;
        match key.trim().to_ascii_lowercase().as_str() {
            "l2" => out.l2 = bytes,
            "l3" | "llc" => out.llc = bytes,
            _ => return None,
        }
    }
    Some(out)
}

/// `1048576`, `1024K`, `1024KiB`, `1M`, `1MiB`, `1G`, … → bytes.
fn parse_size(text: &str) -> Option<usize> {
    let t = text.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let n: usize = t[..digits].parse().ok()?;
    let unit = t[digits..].trim().trim_end_matches("iB").trim_end_matches('B').to_ascii_uppercase();
    let scale = match unit.as_str() {
        "" => 1,
        "K" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        _ => return None,
    };
    n.checked_mul(scale).filter(|&b| b > 0)
}

/// Reads the data and unified caches of CPU 0 from sysfs.
fn detect_sysfs() -> Option<CacheSizes> {
    let dir = std::path::Path::new("/sys/devices/system/cpu/cpu0/cache");
    let (mut l2, mut l3) = (None, None);
    for entry in std::fs::read_dir(dir).ok()? {
        let path = entry.ok()?.path();
        let read = |name: &str| std::fs::read_to_string(path.join(name)).ok().map(|s| s.trim().to_owned());
        let (Some(level), Some(kind), Some(size)) = (read("level"), read("type"), read("size")) else { continue };
        if kind == "Instruction" {
            continue;
        }
        let bytes = parse_size(&size);
        match level.as_str() {
            "2" => l2 = bytes,
            "3" => l3 = bytes,
            _ => {}
        }
    }
    let l2 = l2?;
    Some(CacheSizes { l2, llc: l3.unwrap_or(l2) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("1024K"), Some(1 << 20));
        assert_eq!(parse_size("32768K"), Some(32 << 20));
        assert_eq!(parse_size("2MiB"), Some(2 << 20));
        assert_eq!(parse_size("480M"), Some(480 << 20));
        assert_eq!(parse_size("65536"), Some(65536));
        assert_eq!(parse_size("0"), None);
        assert_eq!(parse_size("12Q"), None);
        assert_eq!(parse_size(""), None);
    }

    #[test]
    fn overrides_parse() {
        let base = CacheSizes::FALLBACK;
        assert_eq!(parse_override("l3=480MiB", base), Some(CacheSizes { l2: 1 << 20, llc: 480 << 20 }));
        assert_eq!(parse_override(" l2=2M , L3=32M ", base), Some(CacheSizes { l2: 2 << 20, llc: 32 << 20 }));
        assert_eq!(parse_override("l4=1M", base), None);
        assert_eq!(parse_override("l3", base), None);
    }

    #[test]
    fn detection_gives_plausible_sizes() {
        let c = CacheSizes::get();
        assert!(c.l2 >= 64 << 10 && c.llc >= c.l2, "{c:?}");
    }
}
