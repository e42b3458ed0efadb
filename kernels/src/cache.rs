//! The cache sizes of the machine the kernels run on, detected once at run time so that cache policies (streaming
//! stores, blocking, the order of a transpose's tiles) fit this machine rather than the one they were tuned on.
//!
//! Sources, in order: the environment variable `STRIDER_CACHE` (`l2=2MiB,l3=480MiB,sharing=2,l1ways=12`: any of
//! them, for tests and for machines that report wrong sizes), Linux's `/sys/devices/system/cpu/cpu0/cache`, then the
//! defaults of [`CacheSizes::FALLBACK`].

use std::sync::OnceLock;

/// Data cache sizes in bytes, each within a plausible range ([`CacheSizes::new`]).
///
/// # Examples
///
/// ```
/// use strider::CacheSizes;
/// let zen = CacheSizes::new(1 << 20, 32 << 20, 2, 12).unwrap();
/// assert_eq!(zen.stream_threshold(), 24 << 20); // 1.5× the 16 MiB share of one CPU
/// assert!(CacheSizes::new(1 << 20, usize::MAX, 2, 12).is_none()); // an LLC of 16 EiB is no cache
/// let here = CacheSizes::get(); // detected once (or STRIDER_CACHE)
/// assert!(here.llc() >= 4096 && here.llc_sharing() >= 1);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheSizes {
    /// The level-2 cache of one core.
    l2: usize,
    /// The last-level cache (L3, or L2 when there is no L3), shared by all cores that share it.
    llc: usize,
    /// How many logical CPUs share the last-level cache (at least 1).
    llc_sharing: usize,
    /// The associativity (ways) of one core's level-1 data cache.
    l1d_ways: usize,
}

/// The accepted range of a cache size (bytes): 4 KiB to 64 GiB. Sizes outside it are misreports or typos, and
/// every threshold derived from them stays far from overflowing.
const SIZE_RANGE: (usize, usize) = (4 << 10, 64 << 30);
/// The accepted range of the CPUs sharing the last-level cache.
const SHARING_RANGE: (usize, usize) = (1, 1 << 16);
/// The accepted range of the L1 data cache's ways.
const WAYS_RANGE: (usize, usize) = (1, 256);

fn within(v: usize, (lo, hi): (usize, usize)) -> bool {
    (lo..=hi).contains(&v)
}

impl CacheSizes {
    /// Used when nothing can be detected: 1 MiB of L2, 32 MiB of last-level cache shared by 8 CPUs (a recent
    /// desktop or server core complex), an 8-way L1.
    pub const FALLBACK: CacheSizes = CacheSizes { l2: 1 << 20, llc: 32 << 20, llc_sharing: 8, l1d_ways: 8 };

    /// Cache sizes from their values: `l2` and `llc` (the last-level cache) in bytes, each 4 KiB to 64 GiB;
    /// `llc_sharing` CPUs (1 to 65536) share the last-level cache; the L1 data cache has `l1d_ways` ways (1 to
    /// 256). `None` when a value is outside its range.
    pub fn new(l2: usize, llc: usize, llc_sharing: usize, l1d_ways: usize) -> Option<CacheSizes> {
        let valid = within(l2, SIZE_RANGE)
            && within(llc, SIZE_RANGE)
            && within(llc_sharing, SHARING_RANGE)
            && within(l1d_ways, WAYS_RANGE);
        valid.then_some(CacheSizes { l2, llc, llc_sharing, l1d_ways })
    }

    /// The level-2 cache of one core, in bytes.
    pub fn l2(&self) -> usize {
        self.l2
    }

    /// The last-level cache (L3, or L2 when there is no L3), in bytes, shared by [`CacheSizes::llc_sharing`] CPUs.
    pub fn llc(&self) -> usize {
        self.llc
    }

    /// How many logical CPUs share the last-level cache.
    pub fn llc_sharing(&self) -> usize {
        self.llc_sharing
    }

    /// The associativity (ways) of one core's level-1 data cache.
    pub fn l1d_ways(&self) -> usize {
        self.l1d_ways
    }

    /// The last-level cache one thread can count on: its share when every CPU sharing the cache is busy.
    pub fn llc_per_thread(&self) -> usize {
        self.llc / self.llc_sharing.max(1)
    }

    /// The footprint (bytes a walk touches) from which stores are non-temporal by default on this machine: 1.5× the
    /// share of the last-level cache one thread can count on (glibc's rule for `memcpy`).
    pub fn stream_threshold(&self) -> usize {
        let (num, den) = crate::params::STREAM_LLC_FRACTION;
        (self.llc_per_thread() / den).saturating_mul(num)
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

    /// The sizes of this machine, detected once (see the module documentation for the sources). A
    /// `STRIDER_CACHE` that does not parse, or gives a value outside its range, is ignored with a one-line warning
    /// on standard error that names it, says what it accepts, and gives the detected sizes used instead.
    pub fn get() -> CacheSizes {
        static SIZES: OnceLock<CacheSizes> = OnceLock::new();
        *SIZES.get_or_init(|| {
            let detected = detect_sysfs().unwrap_or(CacheSizes::FALLBACK);
            match crate::env::var("STRIDER_CACHE") {
                None => detected,
                Some(spec) => parse_override(&spec, detected).unwrap_or_else(|why| {
                    crate::env::warn(&format!(
                        "STRIDER_CACHE={spec:?} ignored: {why}; using the detected {}",
                        detected.describe()
                    ));
                    detected
                }),
            }
        })
    }

    /// The longest contiguous run a copy moves with the CPU's fast string move (`rep movsb`, see
    /// [`params::REP_MOVSB_MIN_BYTES`](crate::params::REP_MOVSB_MIN_BYTES)): the L2 size where the CPU reports
    /// enhanced fast strings (ERMS), else 0 (never). glibc bounds its own use of `rep movsb` on AMD CPUs by the L2
    /// size, above which AMD found it slower than vector loops.
    pub(crate) fn rep_movsb_max() -> usize {
        static MAX: OnceLock<usize> = OnceLock::new();
        *MAX.get_or_init(|| {
            #[cfg(target_arch = "x86_64")]
            if std::is_x86_feature_detected!("ermsb") {
                return CacheSizes::get().l2();
            }
            0
        })
    }

    /// `l2=1MiB,l3=32MiB,sharing=2,l1ways=12`: the sizes in the form `STRIDER_CACHE` takes.
    pub fn describe(&self) -> String {
        let size = |b: usize| {
            if b.is_multiple_of(1 << 20) { format!("{}MiB", b >> 20) } else { format!("{}KiB", b >> 10) }
        };
        format!("l2={},l3={},sharing={},l1ways={}", size(self.l2), size(self.llc), self.llc_sharing, self.l1d_ways)
    }
}

/// Parses `l2=SIZE,l3=SIZE,sharing=N,l1ways=N` (sizes in bytes, or with a `K`/`KiB`/`M`/`MiB`/`G`/`GiB` suffix; any
/// subset of the keys) over `base`; the error says which part is wrong and what it accepts.
fn parse_override(spec: &str, base: CacheSizes) -> Result<CacheSizes, String> {
    let mut out = base;
    for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let Some((key, value)) = part.split_once('=') else {
            return Err(format!("{part:?} is not key=value (keys l2, l3, sharing, l1ways)"));
        };
        let (key, value) = (key.trim().to_ascii_lowercase(), value.trim());
        let number =
            |range: (usize, usize), what: &str| {
                value.parse().ok().filter(|&n| within(n, range)).ok_or_else(|| {
                    format!("{key}={value:?}: {what} must be an integer from {} to {}", range.0, range.1)
                })
            };
        let size = || {
            parse_size(value).filter(|&b| within(b, SIZE_RANGE)).ok_or_else(|| {
                format!("{key}={value:?}: a cache size must be 4KiB to 64GiB (bytes, or with a K, M or G suffix)")
            })
        };
        match key.as_str() {
            "l2" => out.l2 = size()?,
            "l3" | "llc" => out.llc = size()?,
            "sharing" => out.llc_sharing = number(SHARING_RANGE, "the CPUs sharing the last-level cache")?,
            "l1ways" => out.l1d_ways = number(WAYS_RANGE, "the L1 ways")?,
            _ => return Err(format!("unknown key {key:?} (keys l2, l3, sharing, l1ways)")),
        }
    }
    Ok(out)
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
    // Implausible values (a misreporting virtual machine) count as undetected.
    CacheSizes::new(l2, l3.unwrap_or(l2), sharing.flatten().unwrap_or(1), l1d_ways)
}

/// The number of CPUs in a Linux CPU list (`0-3,8,10-11`); `None` when malformed.
fn count_cpus(list: &str) -> Option<usize> {
    let mut n: usize = 0;
    for part in list.trim().split(',').filter(|p| !p.is_empty()) {
        n = n.checked_add(match part.split_once('-') {
            Some((a, b)) => {
                b.trim().parse::<usize>().ok()?.checked_sub(a.trim().parse::<usize>().ok()?)?.checked_add(1)?
            }
            None => {
                part.trim().parse::<usize>().ok()?;
                1
            }
        })?;
    }
    (n > 0).then_some(n)
}

#[cfg(feature = "selftest")]
#[strider_kernels_macros::selftests]
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
        assert_eq!(parse_override("l3=480MiB", base), Ok(CacheSizes { llc: 480 << 20, ..base }));
        assert_eq!(
            parse_override(" l2=2M , L3=32M,sharing=2 ", base),
            Ok(CacheSizes { l2: 2 << 20, llc: 32 << 20, llc_sharing: 2, ..base })
        );
        assert_eq!(parse_override("l1ways=12", base), Ok(CacheSizes { l1d_ways: 12, ..base }));
        let err = |spec: &str| parse_override(spec, base).unwrap_err();
        assert!(err("l4=1M").contains("unknown key \"l4\""));
        assert!(err("l3").contains("not key=value"));
        assert!(err("sharing=0").contains("sharing=\"0\": the CPUs sharing the last-level cache must be an integer"));
        assert!(err("l1ways=0").contains("from 1 to 256"));
        // Values that would overflow the thresholds derived from them, or are no cache at all.
        for bad in ["l3=18446744073709551615", "l3=17179869184G", "l2=65G", "l2=1K", "llc=0"] {
            assert!(err(bad).contains("4KiB to 64GiB"), "{bad}: {}", err(bad));
        }
        assert!(err("sharing=100000").contains("to 65536"));
    }

    #[test]
    fn sizes_are_range_checked_and_thresholds_never_overflow() {
        assert_eq!(CacheSizes::new(1 << 20, usize::MAX, 1, 8), None);
        assert_eq!(CacheSizes::new(0, 32 << 20, 1, 8), None);
        assert_eq!(CacheSizes::new(1 << 20, 32 << 20, 0, 8), None);
        assert_eq!(CacheSizes::new(1 << 20, 32 << 20, 1, 0), None);
        for l2 in [SIZE_RANGE.0, SIZE_RANGE.1] {
            for llc in [SIZE_RANGE.0, SIZE_RANGE.1] {
                for sharing in [SHARING_RANGE.0, SHARING_RANGE.1] {
                    let c = CacheSizes::new(l2, llc, sharing, 8).unwrap();
                    for threads in [0, 1, 2, usize::MAX] {
                        let t = c.stream_threshold_for(threads);
                        assert!(t >= c.stream_threshold().min(c.llc()) && t <= c.llc().max(c.stream_threshold()));
                    }
                }
            }
        }
        let c = CacheSizes::new(4 << 10, 64 << 30, 1, 8).unwrap();
        assert_eq!(c.stream_threshold(), 96 << 30);
        assert_eq!(c.describe(), "l2=4KiB,l3=65536MiB,sharing=1,l1ways=8");
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
