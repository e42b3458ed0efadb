//! The cache sizes of the machine the kernels run on, detected once at run time so that cache policies (streaming
//! stores, blocking, the order of a transpose's tiles) fit this machine rather than the one they were tuned on.
//!
//! Sources, in order: the environment variable `STRIDER_CACHE` (`l2=2MiB,l3=480MiB,sharing=2,l1ways=12`: any of
//! them, for tests and for machines that report wrong sizes), Linux's `/sys/devices/system/cpu/cpu0/cache`, then the
//! defaults of [`CacheSizes::FALLBACK`].

use std::sync::OnceLock;

/// Data cache sizes in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheSizes {
    /// The level-2 cache of one core.
    pub l2: usize,
    /// The last-level cache (L3, or L2 when there is no L3), shared by all cores that share it.
    pub llc: usize,
    /// How many logical CPUs share the last-level cache (at least 1).
    pub llc_sharing: usize,
    /// The associativity (ways) of one core's level-1 data cache.
    pub l1d_ways: usize,
}

impl CacheSizes {
    /// Used when nothing can be detected: 1 MiB of L2, 32 MiB of last-level cache shared by 8 CPUs (a recent
    /// desktop or server core complex), an 8-way L1.
    pub const FALLBACK: CacheSizes = CacheSizes { l2: 1 << 20, llc: 32 << 20, llc_sharing: 8, l1d_ways: 8 };

    /// The last-level cache one thread can count on: its share when every CPU sharing the cache is busy.
    pub fn llc_per_thread(&self) -> usize {
        self.llc / self.llc_sharing.max(1)
    }

    /// The footprint (bytes a walk touches) from which stores are non-temporal by default on this machine: 1.5× the
    /// share of the last-level cache one thread can count on (glibc's rule for `memcpy`).
    pub fn stream_threshold(&self) -> usize {
        let (num, den) = crate::params::STREAM_LLC_FRACTION;
        self.llc_per_thread() / den * num
    }

    /// The footprint from which stores are non-temporal by default when a walk is split across `threads` threads:
    /// the one-thread threshold ([`CacheSizes::stream_threshold`]) times the threads sharing the last-level cache
    /// (their shares add up; at most all the CPUs sharing it), and never beyond the whole cache: a footprint the
    /// cache cannot hold streams however many threads share it.
    ///
    /// PERF: on the Zen 5 VM (32 MiB L3 shared by 2 CPUs), `strider bench --method tight --streaming on|off`, six
    /// alternations: at 2 threads a 28 MiB-footprint padded-rows copy ran in 340–349 µs streaming against 254–297
    /// µs with regular stores, and the 24 MiB vertical flip in 287–295 against 164–178 µs; at one thread streaming
    /// won both (357–381 against 574–629 µs; 288–297 against 377–460 µs); at 41 MiB the two tied at 2 threads
    /// (507–599 against 512–557 µs). At exactly the whole cache (32 MiB footprints, 2 threads) the machines
    /// disagree, with the same detected sizes. Zen 5 VM, regular against streaming: f32 NCHW → NHWC with 64
    /// channels 350–396 against 461–498 µs, f32 2048² 447–467 against 497–516 µs. Zen 4 VM (EPYC, 1 MiB L2): f32
    /// NCHW → NHWC 1070–1810 against 623–1160 µs, the same with scale-bias 1960–2500 against 1280–1450 µs, f32
    /// 2048² 982–1490 against 723–972 µs, row copies (f32 64 × 256², f16 mid slice) within noise (medians of five
    /// 676 against 615 µs, 835 against 630 µs); 2 threads with regular stores there ran *slower* than one
    /// streaming (f32 NCHW → NHWC 0.91–1.38 ms). Streaming from the whole cache costs up to 1.3× where regular
    /// stores win and saves up to 1.8× where they lose, so the cap is the cache.
    pub fn stream_threshold_for(&self, threads: usize) -> usize {
        let k = threads.clamp(1, self.llc_sharing.max(1));
        self.stream_threshold().saturating_mul(k).min(self.llc.max(self.stream_threshold()))
    }

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

/// Parses `l2=SIZE,l3=SIZE,sharing=N,l1ways=N` (sizes in bytes, or with a `K`/`KiB`/`M`/`MiB`/`G`/`GiB` suffix; any
/// subset of the keys) over `base`; `None` when the text is not of that form.
pub fn parse_override(spec: &str, base: CacheSizes) -> Option<CacheSizes> {
    let mut out = base;
    for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (key, value) = part.split_once('=')?;
        match key.trim().to_ascii_lowercase().as_str() {
            "l2" => out.l2 = parse_size(value.trim())?,
            "l3" | "llc" => out.llc = parse_size(value.trim())?,
            "sharing" => out.llc_sharing = value.trim().parse().ok().filter(|&n| n > 0)?,
            "l1ways" => out.l1d_ways = value.trim().parse().ok().filter(|&n| n > 0)?,
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
    let (mut l2, mut l3, mut sharing, mut ways) = (None, None, None, None);
    for entry in std::fs::read_dir(dir).ok()? {
        let path = entry.ok()?.path();
        let read = |name: &str| std::fs::read_to_string(path.join(name)).ok().map(|s| s.trim().to_owned());
        let (Some(level), Some(kind), Some(size)) = (read("level"), read("type"), read("size")) else { continue };
        if kind == "Instruction" {
            continue;
        }
        let bytes = parse_size(&size);
        let cpus = read("shared_cpu_list").map(|l| count_cpus(&l));
        match level.as_str() {
            "1" => ways = read("ways_of_associativity").and_then(|w| w.parse::<usize>().ok()).filter(|&w| w > 0),
            "2" => {
                l2 = bytes;
                if l3.is_none() {
                    sharing = cpus;
                }
            }
            "3" => {
                l3 = bytes;
                sharing = cpus;
            }
            _ => {}
        }
    }
    let l2 = l2?;
    let l1d_ways = ways.unwrap_or(CacheSizes::FALLBACK.l1d_ways);
    Some(CacheSizes { l2, llc: l3.unwrap_or(l2), llc_sharing: sharing.flatten().unwrap_or(1), l1d_ways })
}

/// The number of CPUs in a Linux CPU list (`0-3,8,10-11`); `None` when malformed.
fn count_cpus(list: &str) -> Option<usize> {
    let mut n = 0;
    for part in list.trim().split(',').filter(|p| !p.is_empty()) {
        n += match part.split_once('-') {
            Some((a, b)) => b.trim().parse::<usize>().ok()?.checked_sub(a.trim().parse::<usize>().ok()?)? + 1,
            None => {
                part.trim().parse::<usize>().ok()?;
                1
            }
        };
    }
    (n > 0).then_some(n)
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
        assert_eq!(parse_override("l3=480MiB", base), Some(CacheSizes { llc: 480 << 20, ..base }));
        assert_eq!(
            parse_override(" l2=2M , L3=32M,sharing=2 ", base),
            Some(CacheSizes { l2: 2 << 20, llc: 32 << 20, llc_sharing: 2, ..base })
        );
        assert_eq!(parse_override("l4=1M", base), None);
        assert_eq!(parse_override("l3", base), None);
        assert_eq!(parse_override("sharing=0", base), None);
        assert_eq!(parse_override("l1ways=12", base), Some(CacheSizes { l1d_ways: 12, ..base }));
        assert_eq!(parse_override("l1ways=0", base), None);
    }

    #[test]
    fn cpu_lists_count() {
        assert_eq!(count_cpus("0-1"), Some(2));
        assert_eq!(count_cpus("0-3,8,10-11\n"), Some(7));
        assert_eq!(count_cpus("5"), Some(1));
        assert_eq!(count_cpus("3-1"), None);
        assert_eq!(count_cpus(""), None);
    }

    #[test]
    fn stream_thresholds_of_known_machines() {
        // The Zen 5 VM: 32 MiB L3 shared by its 2 CPUs.
        let zen = CacheSizes { l2: 1 << 20, llc: 32 << 20, llc_sharing: 2, l1d_ways: 12 };
        assert_eq!(zen.stream_threshold(), 24 << 20);
        // The Intel VM: a reported 480 MiB L3 (the host's) over 2 CPUs: nothing under 360 MiB streams.
        let intel = CacheSizes { l2: 2 << 20, llc: 480 << 20, llc_sharing: 2, l1d_ways: 12 };
        assert_eq!(intel.stream_threshold(), 360 << 20);
        // Split across threads: the shares add up, as many as there are CPUs sharing the cache, up to the whole
        // cache.
        assert_eq!(zen.stream_threshold_for(1), 24 << 20);
        assert_eq!(zen.stream_threshold_for(2), 32 << 20);
        assert_eq!(zen.stream_threshold_for(7), 32 << 20);
        assert_eq!(intel.stream_threshold_for(2), 480 << 20);
        let desktop = CacheSizes::FALLBACK; // 32 MiB over 8 CPUs: 6 MiB alone, 12 MiB on two threads
        assert_eq!(desktop.stream_threshold_for(0), 6 << 20);
        assert_eq!(desktop.stream_threshold_for(2), 12 << 20);
        assert_eq!(desktop.stream_threshold_for(5), 30 << 20);
        assert_eq!(desktop.stream_threshold_for(64), 32 << 20);
        // A cache shared by one CPU: its own threshold (1.5× the cache) even when that exceeds the cache.
        let alone = CacheSizes { l2: 1 << 20, llc: 8 << 20, llc_sharing: 1, l1d_ways: 8 };
        assert_eq!(alone.stream_threshold_for(1), 12 << 20);
        assert_eq!(alone.stream_threshold_for(4), 12 << 20);
    }

    #[test]
    fn detection_gives_plausible_sizes() {
        let c = CacheSizes::get();
        assert!(c.l2 >= 64 << 10 && c.llc >= c.l2 && c.llc_sharing >= 1 && c.l1d_ways >= 1, "{c:?}");
    }
}
